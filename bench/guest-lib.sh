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
