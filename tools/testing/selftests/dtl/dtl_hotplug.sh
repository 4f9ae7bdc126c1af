#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# CPU hotplug while dtl counts and traces: the last CPU goes offline and
# online again five times.  The CPU that stays online keeps counting every
# switch (as many dispatches as context-switches), and its trace has no
# gap; the hotplugged CPU's count is exact up to its first offline, where
# perf removes its events; once back online, dtl counts and traces its
# switches again.  The steal source of the hotplugged CPU goes with it and
# comes back the same.  The guest harness fails the run on any splat.
# Counting uses "perf", tracing "perf-dtl" (perf with dtl's decoder).

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"

ktap_print_header
cpu=$(($(nproc) - 1))
online=/sys/devices/system/cpu/cpu$cpu/online
if [ "$cpu" -lt 1 ] || [ ! -w "$online" ]; then
	ktap_skip_all "needs a CPU that can go offline"
	exit "$KSFT_SKIP"
fi
if [ ! -d /sys/bus/event_source/devices/dtl ]; then
	ktap_skip_all "dtl is not loaded"
	exit "$KSFT_SKIP"
fi
tracer=$(command -v perf-dtl)
ktap_set_plan 7
tmp=$(mktemp -d)
trap 'echo 1 >"$online" 2>/dev/null; rm -rf "$tmp"' EXIT

# The sessions last until the flips are done (at most 5 minutes): perf
# takes seconds to start on a slow kernel, and must not be done before
# the others have started.  dtl/dispatches/ and context-switches are one
# group: perf enables, disables and (at an offline) removes the two in the
# same cross-call on the CPU, so they see the same switches.
now() { cut -d. -f1 /proc/uptime; }
until_stop="i=0; while [ ! -e '$tmp/stop' ] && [ \$i -lt 3000 ]; do sleep 0.1; i=\$((i + 1)); done"
perf stat -x, -C 0 -e '{dtl/dispatches/,context-switches}' -o "$tmp/stat0" -- \
	sh -c "$until_stop" &
p0=$!
perf stat -x, -C "$cpu" -e '{dtl/dispatches/,context-switches}' -e dtl/wait_ns/ \
	-o "$tmp/stat1" -- sh -c "$until_stop" &
p1=$!
if [ -n "$tracer" ]; then
	$tracer record -q -o "$tmp/trace" -e dtl/all/ -C "0,$cpu" -- sh -c "$until_stop" &
	p2=$!
fi
# Start flipping once everybody is on the CPU, as the busy file shows: a
# line per session (perf stat's, with its two events, and perf-dtl's).
busy=/sys/bus/event_source/devices/dtl/busy
want=1
[ -n "$tracer" ] && want=2
# (perf-dtl took 59 s to open its events on the KASAN kernel beside
# another guest: 180 s.)
deadline=$(($(now) + 180))
until [ "$(sed -n "/^cpu$cpu:/,/^cpu[0-9]*:\|^task:/p" $busy | grep -c ' pid=')" -ge $want ]; do
	if [ "$(now)" -ge $deadline ]; then
		cat $busy
		# End the sessions before the exit trap removes the stop file:
		# events left behind would hold the module for the next tests.
		touch "$tmp/stop"
		wait
		ktap_test_fail "the sessions on cpu$cpu never all showed in $busy in 180 s"
		ktap_exit_fail_msg "cannot test hotplug under load"
	fi
	sleep 0.2
done
cat $busy
# The busy file lists a session once perf opened an event; perf enables
# them all right after.
sleep 1
steal=/sys/bus/event_source/devices/dtl/steal_source
src0=$(grep "^cpu$cpu: " $steal)
flips=0 src_off=
for i in 1 2 3 4 5; do
	echo 0 >"$online" && src_off=$src_off$(grep "^cpu$cpu: " $steal || :) &&
		sleep 0.2 && echo 1 >"$online" && sleep 0.2 &&
		flips=$((flips + 1))
done
src1=$(grep "^cpu$cpu: " $steal)
# Back online, while the sessions on cpu0 still trace (the CPU got its
# log as it came up): a workload pinned to it is counted and traced there.
ten_sleeps='for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.01; done'
perf stat -x, -C "$cpu" -e '{dtl/dispatches/,context-switches}' -o "$tmp/stat2" -- \
	taskset -c "$cpu" sh -c "$ten_sleeps"
if [ -n "$tracer" ]; then
	$tracer record -q -o "$tmp/after" -e dtl/all/ -C "$cpu" -- \
		taskset -c "$cpu" sh -c "$ten_sleeps" 2>"$tmp/after.err"
fi
touch "$tmp/stop"
if [ $flips = 5 ]; then
	ktap_test_pass "cpu$cpu went offline and online 5 times while dtl counted and traced"
else
	ktap_test_fail "cpu$cpu offline/online: $flips of 5 flips worked"
fi

if [ -n "$src0" ] && [ -z "$src_off" ] && [ "$src1" = "$src0" ]; then
	ktap_test_pass "steal source of cpu$cpu across the hotplug: '$src1'"
else
	ktap_test_fail "steal source of cpu$cpu: '$src0' before, '$src_off' offline, '$src1' after"
fi

# count FILE EVENT: the count perf stat -x, wrote for EVENT, if a number.
count() {
	awk -F, -v ev="$2" '$3 == ev && $1 ~ /^[0-9]+$/ { print $1 }' "$1"
}

wait $p0
d0=$(count "$tmp/stat0" dtl/dispatches/)
c0=$(count "$tmp/stat0" context-switches)
if [ -n "$d0" ] && [ "$d0" -gt 0 ] && [ "$d0" = "$c0" ]; then
	ktap_test_pass "cpu0 kept counting: $d0 dispatches, $c0 context-switches"
else
	cat "$tmp/stat0"
	ktap_test_fail "cpu0 across the hotplug: '$d0' dispatches, '$c0' context-switches"
fi

# The session on the hotplugged CPU is there for the flips only: perf
# removes its events at the first offline, and in the guests its group
# had often not been scheduled in before that (enabled time 0), so its
# counts say nothing; what the CPU counts after it is back is checked
# below.
wait $p1

# Ten sleeps pinned to the CPU: each dispatched at least twice there.
d2=$(count "$tmp/stat2" dtl/dispatches/)
c2=$(count "$tmp/stat2" context-switches)
if [ -n "$d2" ] && [ "$d2" -ge 20 ] && [ "$d2" = "$c2" ]; then
	ktap_test_pass "cpu$cpu back online: $d2 dispatches, $c2 context-switches"
else
	cat "$tmp/stat2"
	ktap_test_fail "cpu$cpu back online: '$d2' dispatches, '$c2' context-switches"
fi

if [ -z "$tracer" ]; then
	ktap_test_skip "no perf-dtl: the trace across the hotplug is not checked"
	ktap_test_skip "no perf-dtl: the trace across the hotplug is not checked"
	ktap_test_skip "no perf-dtl: the trace after the hotplug is not checked"
else
	wait $p2
	$tracer script -i "$tmp/trace" -F cpu,event,synth 2>"$tmp/script.err" >"$tmp/script"
	n0=$(grep -c '^\[000\] *dtl: ' "$tmp/script")
	if [ "$n0" -gt 10 ]; then
		ktap_test_pass "cpu0 trace across the hotplug: $n0 records"
	else
		ktap_test_fail "cpu0 trace across the hotplug: $n0 records"
	fi
	# Contiguous sequence numbers on cpu0, and no LOST record.
	if [ "$n0" -gt 0 ] &&
	   grep '^\[000\] *dtl: ' "$tmp/script" | sed -n 's/.* seq=\([0-9]*\).*/\1/p' |
	   awk 'NR > 1 && $1 != last + 1 { bad = 1 } { last = $1 } END { exit bad }' &&
	   ! grep -q '^\[000\] *dtl: *lost ' "$tmp/script"; then
		ktap_test_pass "cpu0 trace has no gap"
	else
		ktap_test_fail "cpu0 trace has a gap"
	fi
	# The records of the CPU back online: the sleeps' switches there.
	$tracer script -i "$tmp/after" -F cpu,event,synth 2>>"$tmp/after.err" >"$tmp/after.script"
	c=$(printf '%03d' "$cpu")
	n=$(grep -c "^\[$c\] *dtl: " "$tmp/after.script")
	ns=$(grep "^\[$c\] *dtl: " "$tmp/after.script" | grep -c ' => sleep:')
	if [ "$n" -ge 20 ] && [ "$ns" -ge 10 ]; then
		ktap_test_pass "cpu$cpu trace back online: $n records, $ns dispatches of sleep"
	else
		cat "$tmp/after.err"
		ktap_test_fail "cpu$cpu trace back online: $n records, $ns dispatches of sleep"
	fi
fi
ktap_finished
