#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# P4, in the guest (booted with -icount so that guest time follows executed
# instructions): the cost of a context-switch-heavy load with dtl not
# loaded, loaded but unused, and counting CPU wide, in alternating rounds.
ROUNDS=${ROUNDS:-5}
LOOPS=${LOOPS:-20000}
KO=/dtl/dtl_pmu.ko

# Wait for the boot-time crypto self-tests to finish: 2 s of an idle CPU.
idle_pct() {
	set -- $(head -1 /proc/stat); t1=$(($2+$3+$4+$5+$6+$7+$8)); i1=$5
	sleep 2
	set -- $(head -1 /proc/stat); t2=$(($2+$3+$4+$5+$6+$7+$8)); i2=$5
	echo $(( (i2 - i1) * 100 / (t2 - t1 + 1) ))
}
n=0
while [ "$(idle_pct)" -lt 95 ] && [ $n -lt 60 ]; do n=$((n + 1)); done

pipe_usecs() {	# usecs per round trip of perf bench sched pipe on CPU 0
	taskset -c 0 perf bench sched pipe -l $LOOPS 2>/dev/null |
		sed -n 's/^ *\([0-9.]*\) usecs\/op.*/\1/p'
}

for r in $(seq $ROUNDS); do
	rmmod dtl_pmu 2>/dev/null
	echo "P4 unloaded $(pipe_usecs)"
	insmod $KO
	echo "P4 idle $(pipe_usecs)"
	perf stat -a -e dtl/dispatches/,dtl/wait_ns/ -o /tmp/stat.txt sleep 1000 &
	pid=$!
	sleep 1
	echo "P4 counting $(pipe_usecs)"
	kill -INT $pid
	wait $pid
	grep -q dtl/dispatches/ /tmp/stat.txt || echo "P4 error: perf stat counted nothing"
	# Per task, inherited: dtl against the task-clock software event.
	for ev in dtl/dispatches/ task-clock; do
		u=$(perf stat -e $ev -o /tmp/stat.txt -- taskset -c 0 perf bench sched pipe -l $LOOPS 2>/dev/null |
			sed -n 's/^ *\([0-9.]*\) usecs\/op.*/\1/p')
		echo "P4T $ev $u"
	done
	/dtl/dtl_readcost
done
