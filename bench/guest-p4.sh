#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# P4, in the guest (booted with -icount so that guest time follows executed
# instructions): the cost of a context-switch-heavy load with dtl not
# loaded, loaded but unused, and counting CPU wide, in alternating rounds.
ROUNDS=${ROUNDS:-5}
LOOPS=${LOOPS:-20000}
KO=/dtl/dtl_pmu.ko

. /dtl/guest-lib.sh
wait_quiet

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
	# Per task, inherited: dtl against the task-clock software event, and
	# against context-switches, perf's own count of the same switches.
	for ev in dtl/dispatches/ task-clock context-switches; do
		echo "P4T $ev $(pipe_usecs perf stat -e $ev -o /tmp/stat.txt --)"
	done
	/dtl/dtl_readcost
done
