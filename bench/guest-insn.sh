#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/run.sh's "insn" part, in a guest that bench/tcg_insn's plugin
# counts instructions of: MODE=trigger prints the address of ksys_sync(),
# which the plugin snapshots its counts at; MODE=measure runs P1's load
# alone, then while perf-dtl records all CPUs (snapshots 1 and 3), then
# P4's per-task counting, under perf stat -e context-switches and -e
# dtl/dispatches/, LOOPS and 2 * LOOPS round trips each (snapshots 5 and
# 9, 7 and 11: the difference leaves out the start and exit of perf stat
# and perf bench), each between two sync(1).  The recording starts
# before its window and stops after it, as P1 times only the round trips.
. /dtl/guest-lib.sh
MODE=measure
LOOPS=${LOOPS:-10000}

if [ "$MODE" = trigger ]; then
	awk '$3 == "ksys_sync" { print "INSN trigger " $1 }' /proc/kallsyms
	exit 0
fi
wait_quiet
sync; u=$(pipe_usecs); sync
echo "INSN none $u"
record_bg /tmp/b.data || echo "INSN error: perf-dtl record did not start"
pid=$!
sync; u=$(pipe_usecs); sync
echo "INSN dtl $u"
kill -INT $pid && wait $pid
# dtl's probe stays registered for a second after its last event goes:
# 2 s before each run of context-switches.
loops=$LOOPS
for LOOPS in $loops $((2 * loops)); do
	sleep 2
	sync; u=$(pipe_usecs perf stat -o /tmp/s.cs -e context-switches --); sync
	echo "INSN cs $u"
	sync; u=$(pipe_usecs perf stat -o /tmp/s.dtl -e dtl/dispatches/ --); sync
	echo "INSN pertask $u"
done
echo "INSN loops $loops"
# The text symbols, dtl's among them, at this boot's addresses.
echo "INSN kallsyms $(grep -E ' [tTwW] ' /proc/kallsyms | gzip -1 | base64 -w0)"
