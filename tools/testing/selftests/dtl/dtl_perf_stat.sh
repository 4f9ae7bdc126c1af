#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Every dtl event works with the perf found in PATH (the guest carries
# Debian 12's stock perf 6.1): listed by perf list, counted system wide, on
# one CPU and per task with inheritance, never "<not supported>".

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"

PMU=/sys/bus/event_source/devices/dtl
ktap_print_header
if ! command -v perf >/dev/null; then
	ktap_skip_all "perf not found in PATH"
	exit "$KSFT_SKIP"
fi
if [ ! -d $PMU ]; then
	ktap_skip_all "dtl is not loaded"
	exit "$KSFT_SKIP"
fi
# The counting events; the trace events (event=0x00) are for perf record.
events=$(cd $PMU/events && grep -L 'event=0x00' $(ls | grep -v '\.'))
nev=$(echo "$events" | wc -l)
ktap_set_plan $((2 * nev + 6))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# perf stat -x, prints "value,unit,event,...": the value must be a number.
value_of() {
	awk -F, -v ev="$2" '$3 == ev { print $1 }' "$1"
}
is_number() {
	case "$1" in
	''|*[!0-9]*) return 1 ;;
	*) return 0 ;;
	esac
}

perf list 2>/dev/null >"$tmp/list"
for e in $events; do
	if grep -q "dtl/$e/" "$tmp/list"; then
		ktap_test_pass "perf list shows dtl/$e/"
	else
		ktap_test_fail "perf list shows dtl/$e/"
	fi
done

for e in $events; do
	perf stat -x, -a -e "dtl/$e/" sleep 0.2 2>"$tmp/out"
	v=$(value_of "$tmp/out" "dtl/$e/")
	if is_number "$v"; then
		ktap_test_pass "perf stat -a dtl/$e/ = $v"
	else
		cat "$tmp/out"
		ktap_test_fail "perf stat -a dtl/$e/ gave '$v'"
	fi
done

perf stat -x, -C 0 -e dtl/dispatches/,context-switches sleep 0.2 2>"$tmp/out"
d=$(value_of "$tmp/out" dtl/dispatches/)
if is_number "$d" && [ "$d" -gt 0 ]; then
	ktap_test_pass "perf stat -C 0 dtl/dispatches/ = $d"
else
	cat "$tmp/out"
	ktap_test_fail "perf stat -C 0 dtl/dispatches/ gave '$d'"
fi

# Per task, with inheritance: a shell forking ten sleeps.  Each sleep runs
# at least twice (exec, then wake-up after the sleep), so at least twenty
# dispatches; and not system wide: far fewer than the whole machine's.
perf stat -x, -e dtl/dispatches/,dtl/wait_ns/,dtl/preemptions/ -- \
	sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.01; done' 2>"$tmp/out"
d=$(value_of "$tmp/out" dtl/dispatches/)
w=$(value_of "$tmp/out" dtl/wait_ns/)
if is_number "$d" && is_number "$w" && [ "$d" -ge 20 ]; then
	ktap_test_pass "per task with inherit: dispatches $d, wait_ns $w"
else
	cat "$tmp/out"
	ktap_test_fail "per task with inherit: dispatches '$d', wait_ns '$w'"
fi
perf stat -x, -a -e dtl/dispatches/ -- \
	sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.01; done' 2>"$tmp/all"
a=$(value_of "$tmp/all" dtl/dispatches/)
if is_number "$a" && [ "$a" -gt "$d" ]; then
	ktap_test_pass "per task ($d) counts less than system wide ($a)"
else
	ktap_test_fail "per task ($d) vs system wide ($a)"
fi

# Attached to a running process (-p), per thread (--per-thread): a line
# per thread, each with its own count.
sh -c 'while :; do sleep 0.01; done' &
loop=$!
sleep 0.2
perf stat -x, --per-thread -p $loop -e dtl/dispatches/ -- sleep 0.5 2>"$tmp/out"
perf stat -x, -p $loop -e dtl/dispatches/,dtl/wait_ns/ -- sleep 0.5 2>"$tmp/out2"
kill $loop
n=$(grep -c "dtl/dispatches/" "$tmp/out")
v=$(awk -F, '/dtl\/dispatches\// { print $2 }' "$tmp/out" | head -1)
if [ "$n" -ge 1 ] && is_number "$v" && [ "$v" -gt 10 ]; then
	ktap_test_pass "perf stat --per-thread -p: $n thread line(s), $v dispatches"
else
	cat "$tmp/out"
	ktap_test_fail "perf stat --per-thread -p gave '$v' in $n line(s)"
fi
v=$(value_of "$tmp/out2" dtl/dispatches/)
w=$(value_of "$tmp/out2" dtl/wait_ns/)
if is_number "$v" && [ "$v" -gt 10 ] && is_number "$w"; then
	ktap_test_pass "perf stat -p (attached to a running process): $v dispatches, $w ns waiting"
else
	cat "$tmp/out2"
	ktap_test_fail "perf stat -p gave '$v', '$w'"
fi

# The unit from events/wait_ns.unit reaches perf's output.
perf stat -x, -a -e dtl/wait_ns/ sleep 0.1 2>"$tmp/out"
u=$(awk -F, '$3 == "dtl/wait_ns/" { print $2 }' "$tmp/out")
if [ "$u" = ns ]; then
	ktap_test_pass "perf shows the unit of dtl/wait_ns/ ($u)"
else
	ktap_test_fail "perf shows the unit of dtl/wait_ns/ ('$u')"
fi

ktap_finished
