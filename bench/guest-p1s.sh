#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# P1 by vCPUs (the guest is booted with 2, 4 or 8): perf bench sched pipe
# on CPU 0, not recorded and recorded system-wide by dtl, in alternating
# rounds; then the memory a session holds.  Prints:
#   P1S <vcpus> <none|dtl> <usecs per round trip>
#   MEM <vcpus> <log bytes, all CPUs> <perf_event mappings of one session>
ROUNDS=${ROUNDS:-3}
LOOPS=${LOOPS:-10000}

. /dtl/guest-lib.sh
wait_quiet
n=$(nproc)
for r in $(seq $ROUNDS); do
	echo "P1S $n none $(pipe_usecs)"
	echo "P1S $n dtl $(pipe_usecs perf-dtl record -q -o /tmp/b.data -e dtl/all/ -a --)"
	rm -f /tmp/b.data
done

# What one idle session holds: the per-CPU logs (debugfs) and the ring
# buffers and AUX areas perf record mapped, one of each per CPU.
perf-dtl record -q -o /tmp/b.data -e dtl/all/ -a >/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 100 ] && [ "$(grep -c 'tracing pid=' /sys/bus/event_source/devices/dtl/busy)" -lt "$n" ]; do
	sleep 0.1; i=$((i + 1))
done
sleep 1
logs=$(awk 'NR > 1 { s += $2 } END { print s + 0 }' /sys/kernel/debug/dtl/logs)
maps=0
for range in $(awk '/perf_event/ { print $1 }' /proc/$pid/maps); do
	maps=$((maps + 0x${range#*-} - 0x${range%-*}))
done
echo "MEM $n $logs $maps"
kill -INT $pid; wait $pid
rm -f /tmp/b.data
