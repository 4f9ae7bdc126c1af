#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The demo, in the guest: dtl with Debian's stock perf.
set -e
show() { echo; echo "\$ $*"; "$@"; }
# Two CPU hogs sharing CPU 0, each counting to $1 thousand.
cat >/tmp/hogs <<'HOGS'
#!/bin/sh
hog() { i=0; while [ $i -lt $(($1 * 1000)) ]; do i=$((i + 1)); done; }
taskset -p -c 0 $$ >/dev/null
hog $1 & hog $1
wait
HOGS
chmod +x /tmp/hogs

echo "== dtl on $(uname -r), perf $(perf --version | cut -d' ' -f3)"
show ls /sys/bus/event_source/devices/dtl/events
show sh -c 'perf list 2>/dev/null | grep dtl/'

echo; echo "== System wide for one second while two shell loops share CPU 0:"
/tmp/hogs 80 &
show perf stat -a -e dtl/dispatches/,dtl/preemptions/,dtl/wait_ns/,dtl/steal_ns/,context-switches sleep 1
wait

echo; echo "== Per task, with inheritance: each hog waits about half of the time:"
show perf stat -e dtl/dispatches/,dtl/preemptions/,dtl/wait_ns/,task-clock -- /tmp/hogs 40

echo; echo "== perf record (6.12 with dtl's decoder, perf-dtl here): the dispatch log with sched_switch:"
show perf-dtl record -q -o /tmp/dtl.data -e dtl/all/ -e sched:sched_switch -a -- sh -c 'sleep 0.01; /tmp/hogs 5'
show sh -c 'perf-dtl script -i /tmp/dtl.data -F comm,tid,cpu,time,event,synth,trace 2>/dev/null | grep -m1 -A7 "=> sleep:"'

echo; echo "== Who is using dtl right now (the busy file), while perf records CPU 1 and counts CPU 0:"
perf-dtl record -q -o /tmp/busy.data -e dtl/all/ -C 1 -- sleep 2 &
perf stat -e dtl/dispatches/ -C 0 -o /tmp/stat.txt -- sleep 2 &
i=0
while ! grep -q tracing /sys/bus/event_source/devices/dtl/busy && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
show cat /sys/bus/event_source/devices/dtl/busy
wait

echo; echo "== Wake-to-dispatch latency per task, like runqlat (a dlfilter over the recording):"
show sh -c "perf-dtl script -i /tmp/dtl.data --dlfilter \$(perf-dtl --exec-path)/dlfilters/dlfilter-dtl-runqlat.so | grep -A12 ' sleep: '"

echo; echo "== Counters sampled with cpu-clock every 10 ms (stock perf record), perf script shows the deltas:"
/tmp/hogs 40 &
show perf record -q -o /tmp/cnt.data -e '{cpu-clock,dtl/dispatches/,dtl/wait_ns/}:S' -c 10000000 -C 0 -- sleep 0.5
wait
show sh -c 'perf script -i /tmp/cnt.data -F cpu,time,event,period | head -n 6'
