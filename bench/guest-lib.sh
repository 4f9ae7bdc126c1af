#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the guest benchmarks.

# The percentage of idle time over the next 2 s, from /proc/stat.
idle_pct() {
	set -- $(head -1 /proc/stat); t1=$(($2+$3+$4+$5+$6+$7+$8)); i1=$5
	sleep 2
	set -- $(head -1 /proc/stat); t2=$(($2+$3+$4+$5+$6+$7+$8)); i2=$5
	echo $(( (i2 - i1) * 100 / (t2 - t1 + 1) ))
}

# Wait for the boot-time crypto self-tests to finish: 2 s of an idle CPU.
wait_quiet() {
	n=0
	while [ "$(idle_pct)" -lt 95 ] && [ $n -lt 60 ]; do n=$((n + 1)); done
}

# usecs per round trip of perf bench sched pipe on CPU 0, run by "$@".
pipe_usecs() {
	"$@" taskset -c 0 perf bench sched pipe -l $LOOPS 2>/dev/null |
		sed -n 's/^ *\([0-9.]*\) usecs\/op.*/\1/p'
}

# Start a background "perf-dtl record -q -o $1 -e dtl/all/ -a" and return
# once it records ($! is its pid).  perf record enables its events only
# after it has synthesized the records of every task, seconds in an
# icount guest, while the busy file lists them from when they are opened:
# so it starts them disabled (-D -1), and the ack to "enable" on its
# control fifo says they are enabled.  Returns 1 if it does not ack.
record_bg() {
	rm -f "$1.ctl" "$1.ack"
	mkfifo "$1.ctl" "$1.ack"
	perf-dtl record -q -D -1 --control "fifo:$1.ctl,$1.ack" -o "$1" \
		-e dtl/all/ -a >/dev/null 2>&1 &
	timeout 300 sh -c "echo enable >'$1.ctl' && read ack <'$1.ack'"
}
