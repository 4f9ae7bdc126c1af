#!/bin/sh
# dtl: perf script -s dtl-events.py sees every field of every record
# SPDX-License-Identifier: GPL-2.0-only
#
# The sample script prints each dtl record from the sample's raw data
# (raw_buf); its lines must be those of "perf script -F cpu,time,synth"
# for the same file, field for field, the task names aside.  The file is
# $DTL_DATA if set (a recording made elsewhere), else a recording of ten
# sleeps.  Exit 0 pass, 1 fail, 2 skip.

skip() {
	echo "skip: $1"
	exit 2
}

perf version --build-options | grep -q 'libpython: *\[ on' ||
	skip "perf is built without libpython"
script=$(dirname "$0")/../../scripts/python/dtl-events.py
[ -f "$script" ] || script=$(perf --exec-path)/scripts/python/dtl-events.py
[ -f "$script" ] || skip "no dtl-events.py"

tmp=$(mktemp -d /tmp/perf_test_dtl_python.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

data=${DTL_DATA:-}
if [ -z "$data" ]; then
	[ -d /sys/bus/event_source/devices/dtl ] || skip "no dtl PMU (load dtl_pmu), no DTL_DATA"
	data=$tmp/data
	perf record -q -o "$data" -e dtl/all/ -a -- \
		sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.01; done' 2>/dev/null ||
		{ echo "FAIL: perf record"; exit 1; }
fi

# One line per dtl record, blanks squeezed, task names kept; the other
# events of the file (sched:*) print only "[cpu] time:".
normal() {
	awk 'NF > 2 { $1 = $1; print }'
}
perf script -i "$data" --ns -F cpu,time,synth 2>/dev/null | normal >"$tmp/synth"
perf script -i "$data" -s "$script" 2>"$tmp/py.err" >"$tmp/py.out" ||
	{ cat "$tmp/py.err"; echo "FAIL: perf script -s"; exit 1; }
sed '/^$/,$d' "$tmp/py.out" | normal >"$tmp/py"
n=$(wc -l <"$tmp/synth")
echo "perf script: $n records; dtl-events.py: $(wc -l <"$tmp/py") records"
[ "$n" -ge 10 ] || { echo "FAIL: only $n records in $data"; exit 1; }
if ! cmp -s "$tmp/synth" "$tmp/py"; then
	diff "$tmp/synth" "$tmp/py" | head -10
	echo "FAIL: dtl-events.py and perf script differ"
	exit 1
fi
# The summary: one row per task that got a CPU, its dispatches summed.
disp=$(grep -Evc ' (migrate|lost) ' "$tmp/synth")
sum=$(sed '1,/^$/d' "$tmp/py.out" | awk 'NR > 1 { s += $3 } END { print s + 0 }')
echo "summary: $sum dispatches of $disp switch records"
[ "$sum" = "$disp" ] || { echo "FAIL: the summary counts $sum dispatches, not $disp"; exit 1; }
echo "test_dtl_python: all checks passed"
