#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The demo, in the guest: dtl with Debian's stock perf, and the perf with
# dtl's decoder (perf-dtl).  Each step shows a command and its output as a
# user would see them, then checks what it showed against a fact it knows
# independently (a pid, a file, the other counters of the same run); the
# first check that fails ends the demo with "DEMO FAILED: ..." and status 1.
# make check runs it as a stage, so the README's first command cannot break
# unseen.
set -eu
show() { echo; echo "\$ $*"; "$@"; }
fail() { echo "DEMO FAILED: $*"; exit 1; }
# count FILE EVENT: the count perf stat printed for EVENT (after the count,
# and the unit if the event has one).
count() {
	awk -v ev="$2" '$2 == ev || $3 == ev { gsub(",", "", $1); print $1; exit }' "$1"
}
# atleast WHAT VALUE MIN: VALUE is an integer of at least MIN.
atleast() {
	case $2 in
	'' | *[!0-9]*) fail "$1: '$2' is not a count" ;;
	esac
	[ "$2" -ge "$3" ] || fail "$1 is $2, expected at least $3"
}

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
for e in dispatches preemptions wait_ns steal_ns all; do
	[ -e "/sys/bus/event_source/devices/dtl/events/$e" ] || fail "no event $e in sysfs"
done
show sh -c 'perf list 2>/dev/null | grep dtl/'
perf list 2>/dev/null | grep -q 'dtl/dispatches/' || fail "perf list does not name dtl/dispatches/"

echo; echo "== System wide for one second while two shell loops share CPU 0:"
/tmp/hogs 80 &
show perf stat -o /tmp/stat-a.txt -a \
	-e dtl/dispatches/,dtl/preemptions/,dtl/wait_ns/,dtl/steal_ns/,context-switches sleep 1
wait
cat /tmp/stat-a.txt
# The two hogs preempt each other on CPU 0 all second: dispatches and
# preemptions there, and a wait of a good part of the second.
atleast "system-wide dispatches" "$(count /tmp/stat-a.txt dtl/dispatches/)" 10
atleast "system-wide preemptions" "$(count /tmp/stat-a.txt dtl/preemptions/)" 2
atleast "system-wide wait_ns" "$(count /tmp/stat-a.txt dtl/wait_ns/)" 100000000
atleast "context-switches" "$(count /tmp/stat-a.txt context-switches)" 10

echo; echo "== Per task, with inheritance: each hog waits about as long as the other runs:"
show perf stat -o /tmp/stat-t.txt \
	-e dtl/dispatches/,dtl/preemptions/,dtl/wait_ns/,task-clock -- /tmp/hogs 40
cat /tmp/stat-t.txt
atleast "per-task dispatches" "$(count /tmp/stat-t.txt dtl/dispatches/)" 2
atleast "per-task preemptions" "$(count /tmp/stat-t.txt dtl/preemptions/)" 2
# Two hogs on one CPU: each waits while the other runs, so the family's
# wait is about its run time (task-clock, in ms); a quarter of it at least.
tc_ms=$(awk '$2 == "msec" && $3 == "task-clock" { print int($1); exit }' /tmp/stat-t.txt)
atleast "task-clock (ms)" "$tc_ms" 10
atleast "per-task wait_ns" "$(count /tmp/stat-t.txt dtl/wait_ns/)" $((tc_ms * 1000000 / 4))

echo; echo "== perf record (7.3 with dtl's decoder, perf-dtl here): the dispatch log with sched_switch:"
show perf-dtl record -q -o /tmp/dtl.data -e dtl/all/ -e sched:sched_switch -a -- \
	sh -c 'sleep 0.01 & echo $! >/tmp/sleep.pid; wait; /tmp/hogs 5'
tid=$(cat /tmp/sleep.pid)
perf-dtl script -i /tmp/dtl.data -F comm,tid,cpu,time,event,synth,trace >/tmp/dtl.txt 2>/dev/null
show grep -m1 -A7 "=> sleep:$tid/" /tmp/dtl.txt
# The sleep ran (a dispatch record names it), and exited (an exit record).
grep -q "=> sleep:$tid/$tid " /tmp/dtl.txt ||
	fail "no dispatch record of sleep ($tid) in the recording"
grep -q "exit seq=.* sleep:$tid/$tid " /tmp/dtl.txt ||
	fail "no exit record of sleep ($tid) in the recording"

echo; echo "== Who is using dtl right now (the busy file), while perf records CPU 1 and counts CPU 0:"
perf-dtl record -q -o /tmp/busy.data -e dtl/all/ -C 1 -- sleep 2 &
rec=$!
perf stat -e dtl/dispatches/ -C 0 -o /tmp/stat.txt -- sleep 2 &
i=0
while ! grep -q tracing /sys/bus/event_source/devices/dtl/busy && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
show cat /sys/bus/event_source/devices/dtl/busy
grep -q "tracing pid=$rec " /sys/bus/event_source/devices/dtl/busy ||
	fail "the busy file does not list the recording perf ($rec)"
wait

echo; echo "== Wake-to-dispatch latency per task, like runqlat (a dlfilter over the recording):"
filter=$(perf-dtl --exec-path)/dlfilters/dlfilter-dtl-runqlat.so
show sh -c "perf-dtl script -i /tmp/dtl.data --dlfilter $filter >/tmp/runqlat.txt; grep -A4 'tid $tid sleep' /tmp/runqlat.txt"
grep -q "^tid $tid sleep (pid $tid)" /tmp/runqlat.txt ||
	fail "the latency summary has no section for sleep ($tid)"
echo; echo "\$ ... --dlfilter $filter --dlarg who=$tid"
perf-dtl script -i /tmp/dtl.data --dlfilter "$filter" --dlarg "who=$tid" >/tmp/who.txt
sed -n '/^who delayed/,$p' /tmp/who.txt
n=$(sed -n "s/^who delayed tid $tid (sleep): \([0-9]*\) dispatches.*/\1/p" /tmp/who.txt)
atleast "dispatches of sleep ($tid) in who=" "$n" 1

echo; echo "== The same recording in Python: perf script -s dtl-events.py, its per-task summary:"
py=$(perf-dtl --exec-path)/scripts/python/dtl-events.py
show sh -c "perf-dtl script -i /tmp/dtl.data -s $py 2>/dev/null >/tmp/py.txt; sed -n '/^comm /p; / $tid\/$tid /p' /tmp/py.txt"
# Its dispatches of the sleep, named as it last ran, are the switch
# records perf script printed with the sleep's tid coming in (before its
# exec() as sh too).
n=$(awk -v t="$tid/$tid" '$1 == "sleep" && $2 == t { print $3 }' /tmp/py.txt)
want=$(grep -c "dtl: .* => [^ ]*:$tid/$tid " /tmp/dtl.txt)
[ "$n" = "$want" ] ||
	fail "dtl-events.py counts '$n' dispatches of sleep ($tid), perf script $want"

echo; echo "== Counters sampled with cpu-clock every 10 ms (stock perf record), perf script shows the deltas:"
/tmp/hogs 40 &
show perf record -q -o /tmp/cnt.data -e '{cpu-clock,dtl/dispatches/,dtl/wait_ns/}:S' -c 10000000 -C 0 -- sleep 0.5
wait
show sh -c 'perf script -i /tmp/cnt.data -F cpu,time,event,period | head -n 6'
n=$(perf script -i /tmp/cnt.data -F event 2>/dev/null | grep -c 'dtl/dispatches/' || true)
atleast "dtl/dispatches/ samples read with cpu-clock" "$n" 10

echo; echo "DEMO OK"
