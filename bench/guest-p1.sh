#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# P1, P2, P5, P6 in the guest (booted with -icount): a context-switch-heavy
# load (perf bench sched pipe on CPU 0) while recording all CPUs with dtl,
# with the sched_switch+sched_wakeup tracepoints, with perf sched record,
# or with nothing, in alternating rounds.  Prints one line per measurement:
#   P1 <mode> <usecs per round trip>
#   P2 <mode> <perf.data bytes> <switches>
#   P5 <mode> <perf script centiseconds> <switches>
#   P6 dtl <records lost>
#   P5L <tool> <scale> <centiseconds> <switches>: decoding one dtl recording
#       of 1x, 4x and 16x LINEAR_LOOPS round trips with perf script, perf
#       report and the latency summary (the dlfilter)
ROUNDS=${ROUNDS:-3}
LOOPS=${LOOPS:-10000}
LINEAR_LOOPS=${LINEAR_LOOPS:-2500}

. /dtl/guest-lib.sh
wait_quiet

cs() { awk '/^ctxt/ { print $2 }' /proc/stat; }
now_cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }

for r in $(seq $ROUNDS); do
	for mode in none dtl tracepoints sched; do
		rm -f /tmp/b.data
		c0=$(cs)
		case $mode in
		none)	u=$(pipe_usecs) ;;
		dtl)	u=$(pipe_usecs perf-dtl record -q -o /tmp/b.data -e dtl/all/ -a --) ;;
		tracepoints)
			u=$(pipe_usecs perf record -q -o /tmp/b.data \
				-e sched:sched_switch,sched:sched_wakeup -a --) ;;
		sched)	u=$(pipe_usecs perf sched record -q -o /tmp/b.data --) ;;
		esac
		c1=$(cs)
		echo "P1 $mode $u"
		[ $mode = none ] && continue
		echo "P2 $mode $(stat -c %s /tmp/b.data) $((c1 - c0))"
		t0=$(now_cs)
		if [ $mode = dtl ]; then
			perf-dtl script -i /tmp/b.data >/dev/null 2>/tmp/b.err
			lost=$(sed -n 's/.*: \([0-9]*\) records lost.*/\1/p' /tmp/b.err | awk '{ s += $1 } END { print s + 0 }')
			echo "P6 dtl $lost"
		else
			perf script -i /tmp/b.data >/dev/null 2>&1
		fi
		echo "P5 $mode $(($(now_cs) - t0)) $((c1 - c0))"
	done
done

dlf=$(perf-dtl --exec-path)/dlfilters/dlfilter-dtl-runqlat.so
for k in 1 4 16; do
	rm -f /tmp/b.data
	c0=$(cs)
	LOOPS=$((LINEAR_LOOPS * k)) pipe_usecs perf-dtl record -q -o /tmp/b.data -e dtl/all/ -a -- >/dev/null
	c1=$(cs)
	for tool in script report summary; do
		t0=$(now_cs)
		case $tool in
		script)  perf-dtl script -i /tmp/b.data >/dev/null 2>&1 ;;
		report)  perf-dtl report -i /tmp/b.data --stdio --sort comm,pid >/dev/null 2>&1 ;;
		summary) perf-dtl script -i /tmp/b.data --dlfilter "$dlf" >/dev/null 2>&1 ;;
		esac
		echo "P5L $tool $k $(($(now_cs) - t0)) $((c1 - c0))"
	done
done
