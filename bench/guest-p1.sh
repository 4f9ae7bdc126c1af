#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# P1, P2, P5, P6 in the guest (booted with -icount): a context-switch-heavy
# load (perf bench sched pipe on CPU 0) while recording all CPUs with dtl,
# with the sched_switch+sched_wakeup tracepoints (perf record, or trace-cmd
# record if the guest has it), with perf sched record,
# with an empty sched_switch probe (floor) or one that reads the clock
# (clockprobe), with 2, 4 and 8 dtl sessions at once (dtl2, dtl4, dtl8),
# with bpftrace's runqlat.bt (a histogram in BPF maps, no records; if the
# guest has bpftrace), or with nothing, in alternating rounds.  With
# /dtl/dtl_before.ko (make bench DTL_BENCH_BEFORE=path), also recording
# with that build of dtl (dtlbefore), loaded in place of this one for the
# round: a change's effect as a before/after ratio in one run.
# Prints one line per measurement:
#   P1 <mode> <usecs per round trip>
#   P2 <mode> <perf.data bytes> <switches>
#   P5 <mode> <perf script centiseconds> <switches>
#   P6 <dtl|dtl2|dtl4|dtl8> <records lost by the measured session>
#   P5L <tool> <scale> <centiseconds> <switches>: decoding one dtl recording
#       of 1x, 4x and 16x LINEAR_LOOPS round trips with perf script, perf
#       report and the latency summary (the dlfilter)
ROUNDS=${ROUNDS:-3}
LOOPS=${LOOPS:-10000}
LINEAR_LOOPS=${LINEAR_LOOPS:-2500}	# 0: no P5L
SESSIONS=${SESSIONS:-1}			# 0: no dtl2, dtl4, dtl8

. /dtl/guest-lib.sh
wait_quiet

cs() { awk '/^ctxt/ { print $2 }' /proc/stat; }
now_cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }

# The records lost in the dtl recording /tmp/b.data, from perf's warnings.
dtl_lost() {
	perf-dtl script -i /tmp/b.data >/dev/null 2>/tmp/b.err
	sed -n 's/.*: \([0-9]*\) records lost.*/\1/p' /tmp/b.err | awk '{ s += $1 } END { print s + 0 }'
}

# $1 - 1 more system-wide dtl sessions, recording until stop_sessions.
start_sessions() {
	bg=""
	i=1
	while [ $i -lt "$1" ]; do
		record_bg /tmp/bg$i.data || echo "P1 error: session $i did not start"
		bg="$bg $!"
		i=$((i + 1))
	done
}
# bpftrace running runqlat.bt while the command runs; the script's
# #include <linux/sched.h> (for TASK_RUNNING, 0) needs kernel headers,
# which the guest has not.
sed 's/^#include.*//; s/TASK_RUNNING/0/' /dtl/runqlat.bt >/tmp/runqlat.bt 2>/dev/null
bpft() {
	bpftrace -c "$*" /tmp/runqlat.bt 2>/dev/null
}
stop_sessions() {
	[ -n "$bg" ] && kill -INT $bg && wait $bg
	rm -f /tmp/bg*.data*
	bg=""
}

for r in $(seq $ROUNDS); do
	modes="none floor clockprobe dtl tracepoints sched"
	[ "$SESSIONS" = 0 ] || modes="$modes dtl2 dtl4 dtl8"
	command -v trace-cmd >/dev/null && modes="$modes tracecmd"
	command -v bpftrace >/dev/null && modes="$modes bpftrace"
	[ ! -f /dtl/dtl_before.ko ] || modes="$modes dtlbefore"
	for mode in $modes; do
		rm -f /tmp/b.data
		c0=$(cs)
		case $mode in
		none)	u=$(pipe_usecs) ;;
		floor)	insmod /dtl/dtl_floor.ko
			u=$(pipe_usecs)
			rmmod dtl_floor ;;
		clockprobe)
			insmod /dtl/dtl_floor.ko clock=1
			u=$(pipe_usecs)
			rmmod dtl_floor ;;
		dtl)	u=$(pipe_usecs perf-dtl record -q -o /tmp/b.data -e dtl/all/ -a --) ;;
		dtlbefore)
			# The switches of the recording only, not the swaps'.
			rmmod dtl_pmu && insmod /dtl/dtl_before.ko || echo "P1 error: dtl_before.ko"
			wait_quiet
			c0=$(cs)
			u=$(pipe_usecs perf-dtl record -q -o /tmp/b.data -e dtl/all/ -a --)
			c1=$(cs)
			rmmod dtl_pmu && insmod /dtl/dtl_pmu.ko || echo "P1 error: dtl_pmu.ko"
			wait_quiet ;;
		dtl[248])
			start_sessions ${mode#dtl}
			u=$(pipe_usecs perf-dtl record -q -o /tmp/b.data -e dtl/all/ -a --)
			stop_sessions ;;
		tracepoints)
			u=$(pipe_usecs perf record -q -o /tmp/b.data \
				-e sched:sched_switch,sched:sched_wakeup -a --) ;;
		sched)	u=$(pipe_usecs perf sched record -q -o /tmp/b.data --) ;;
		tracecmd)
			u=$(pipe_usecs trace-cmd record -q -o /tmp/b.data \
				-e sched:sched_switch -e sched:sched_wakeup) ;;
		bpftrace)
			u=$(pipe_usecs bpft) ;;
		esac
		[ $mode = dtlbefore ] || c1=$(cs)
		echo "P1 $mode $u"
		case $mode in
		none|floor|clockprobe|bpftrace) continue ;;
		dtl[248]) echo "P6 $mode $(dtl_lost)"; continue ;;
		esac
		echo "P2 $mode $(stat -c %s /tmp/b.data) $((c1 - c0))"
		t0=$(now_cs)
		if [ $mode = dtl ] || [ $mode = dtlbefore ]; then
			lost=$(dtl_lost)
			echo "P6 $mode $lost"
		elif [ $mode = tracecmd ]; then
			trace-cmd report -i /tmp/b.data >/dev/null 2>&1
		else
			perf script -i /tmp/b.data >/dev/null 2>&1
		fi
		echo "P5 $mode $(($(now_cs) - t0)) $((c1 - c0))"
	done
done

dlf=$(perf-dtl --exec-path)/dlfilters/dlfilter-dtl-runqlat.so
[ "$LINEAR_LOOPS" = 0 ] && exit 0
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
