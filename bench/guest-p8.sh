#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# P8, interrupts-off drains, in a guest booted with -icount and ONE vCPU:
# four "perf record -e dtl/all/ -a" sessions at default settings while
# perf bench sched pipe runs; then the longest drains from
# /sys/kernel/debug/dtl/drain:
#   P8 <pass max ns> <pass max records> <stop max ns> <stop max records>
#
# One vCPU, because with two, single-threaded TCG runs them in turn and
# the guest clock (instructions executed, -icount) also advances while the
# other vCPU runs: a window with interrupts off on one CPU can then be
# charged with the other's whole time slice.  With one, the clock follows
# only the instructions of the CPU being measured.
ROUNDS=${ROUNDS:-3}
LOOPS=${LOOPS:-20000}

. /dtl/guest-lib.sh
wait_quiet
[ -d /sys/kernel/debug/dtl ] || mount -t debugfs none /sys/kernel/debug

for r in $(seq $ROUNDS); do
	echo 0 >/sys/kernel/debug/dtl/drain
	pids=
	for s in 1 2 3 4; do
		record_bg /tmp/p8.$s.data || echo "P8 error: session $s did not start"
		pids="$pids $!"
	done
	perf bench sched pipe -l "$LOOPS" >/dev/null 2>&1
	kill -INT $pids
	wait
	rm -f /tmp/p8.*
	awk 'NR > 2 { if ($4 > a) a = $4; if ($5 > b) b = $5; if ($7 > c) c = $7; if ($8 > d) d = $8 }
	     END { print "P8", a, b, c, d }' /sys/kernel/debug/dtl/drain
done
