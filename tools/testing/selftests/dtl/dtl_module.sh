#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Module rules: rmmod is refused while a dtl event is open and works once
# it is closed, also while a task that inherited dtl events runs on; the
# module loads again and the PMU comes back.
#
# usage: dtl_module.sh [path/to/dtl_pmu.ko]  (default: /dtl/dtl_pmu.ko)

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"

KO=${1:-/dtl/dtl_pmu.ko}
PMU=/sys/bus/event_source/devices/dtl
ktap_print_header
if [ ! -d $PMU ] || [ ! -f "$KO" ]; then
	ktap_skip_all "needs dtl loaded from $KO"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 5

# perf opens its event once it has started, which takes seconds on a slow
# kernel (see dtl_hotplug.sh): wait for that, up to 30 s.
perf stat -a -e dtl/dispatches/ sleep 2 >/dev/null 2>&1 &
pid=$!
i=0
while [ "$(cat /sys/module/dtl_pmu/refcnt)" = 0 ] && [ $i -lt 600 ]; do
	sleep 0.05
	i=$((i + 1))
done
if [ "$(cat /sys/module/dtl_pmu/refcnt)" = 0 ]; then
	ktap_test_fail "rmmod refused while an event is open: perf opened no event in 30 s"
elif rmmod dtl_pmu 2>/dev/null; then
	ktap_test_fail "rmmod refused while an event is open"
	insmod "$KO"
else
	refcnt=$(cat /sys/module/dtl_pmu/refcnt)
	ktap_test_pass "rmmod refused while an event is open (refcnt $refcnt)"
fi
wait $pid

if rmmod dtl_pmu && [ ! -d $PMU ]; then
	ktap_test_pass "rmmod after the last close removes the PMU"
else
	ktap_test_fail "rmmod after the last close removes the PMU"
fi

if insmod "$KO" && [ -d $PMU ]; then
	ktap_test_pass "insmod registers the PMU again"
else
	ktap_test_fail "insmod registers the PMU again"
fi

if perf stat -a -e dtl/dispatches/ sleep 0.1 >/dev/null 2>&1 &&
   rmmod dtl_pmu && insmod "$KO"; then
	ktap_test_pass "count, unload and reload in a row"
else
	ktap_test_fail "count, unload and reload in a row"
fi

# A task that inherited dtl events outlives them: perf stat's workload
# leaves a child behind.  perf core keeps an inherited event's per-task
# data with its task until the task exits, and must free it when dtl
# goes, before dtl's kmem cache (an object left in it is a "Slab cache
# still has objects" warning, which fails the run).
bgfile=/tmp/dtl_module.bg
perf stat -e dtl/dispatches/ -- sh -c "sleep 60 & echo \$! >$bgfile" >/dev/null 2>&1
bg=$(cat $bgfile 2>/dev/null)
if [ -n "$bg" ] && kill -0 "$bg" 2>/dev/null && rmmod dtl_pmu &&
   insmod "$KO" && [ -d $PMU ]; then
	ktap_test_pass "unload and reload while a task that inherited dtl events runs"
else
	ktap_test_fail "unload and reload while a task that inherited dtl events runs"
fi
[ -z "$bg" ] || kill "$bg" 2>/dev/null
rm -f $bgfile

ktap_finished
