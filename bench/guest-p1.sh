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
ROUNDS=${ROUNDS:-3}
LOOPS=${LOOPS:-10000}

idle_pct() {
	set -- $(head -1 /proc/stat); t1=$(($2+$3+$4+$5+$6+$7+$8)); i1=$5
	sleep 2
	set -- $(head -1 /proc/stat); t2=$(($2+$3+$4+$5+$6+$7+$8)); i2=$5
	echo $(( (i2 - i1) * 100 / (t2 - t1 + 1) ))
}
n=0
while [ "$(idle_pct)" -lt 95 ] && [ $n -lt 60 ]; do n=$((n + 1)); done

cs() { awk '/^ctxt/ { print $2 }' /proc/stat; }
now_cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
bench() { taskset -c 0 perf bench sched pipe -l $LOOPS 2>/dev/null | sed -n 's/^ *\([0-9.]*\) usecs\/op.*/\1/p'; }

for r in $(seq $ROUNDS); do
	for mode in none dtl tracepoints sched; do
		rm -f /tmp/b.data
		c0=$(cs)
		case $mode in
		none)	u=$(bench) ;;
		dtl)	u=$(perf-dtl record -q -o /tmp/b.data -e dtl/all/ -a -- \
			    taskset -c 0 perf bench sched pipe -l $LOOPS 2>/dev/null |
			    sed -n 's/^ *\([0-9.]*\) usecs\/op.*/\1/p') ;;
		tracepoints) u=$(perf record -q -o /tmp/b.data -e sched:sched_switch,sched:sched_wakeup -a -- \
			    taskset -c 0 perf bench sched pipe -l $LOOPS 2>/dev/null |
			    sed -n 's/^ *\([0-9.]*\) usecs\/op.*/\1/p') ;;
		sched)	u=$(perf sched record -q -o /tmp/b.data -- \
			    taskset -c 0 perf bench sched pipe -l $LOOPS 2>/dev/null |
			    sed -n 's/^ *\([0-9.]*\) usecs\/op.*/\1/p') ;;
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
