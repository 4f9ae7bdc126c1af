#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Where the cost of concurrent dtl sessions goes (bench/README.md):
# perf bench sched pipe on CPU 0 recorded by 1, 2, 4 and 8 system-wide
# sessions (started as guest-p1.sh starts them), with the timer passes of
# CPU 0 (/sys/kernel/debug/dtl/drain) and the context switches of the
# run.  In an icount guest with dtl loaded:
#   testbed/vm-run.sh -s -q "-icount shift=3,sleep=off" \
#	-f bench/guest-lib.sh=dtl/guest-lib.sh bench/guest-sessions.sh
# Prints: S <sessions> <usecs per round trip> <passes on CPU 0> <switches>
ROUNDS=${ROUNDS:-2}
LOOPS=${LOOPS:-10000}

. /dtl/guest-lib.sh
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
wait_quiet

passes0() { awk '$1 == 0 { print $2 }' /sys/kernel/debug/dtl/drain; }
cs() { awk '/^ctxt/ { print $2 }' /proc/stat; }

echo "# sessions usecs passes_cpu0 switches"
for r in $(seq "$ROUNDS"); do
	for n in 0 1 2 4 8; do
		bg=""
		i=1
		while [ $i -lt $n ]; do
			record_bg /tmp/bg$i.data || echo "S error: session $i did not start"
			bg="$bg $!"
			i=$((i + 1))
		done
		p0=$(passes0)
		c0=$(cs)
		if [ $n = 0 ]; then
			u=$(pipe_usecs)
		else
			u=$(pipe_usecs perf-dtl record -q -o /tmp/b.data -e dtl/all/ -a --)
		fi
		echo "S $n $u $(($(passes0) - p0)) $(($(cs) - c0))"
		[ -z "$bg" ] || { kill -INT $bg; wait $bg; }
		rm -f /tmp/bg*.data* /tmp/b.data
	done
done
