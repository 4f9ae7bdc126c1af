#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench: run the benchmarks in one icount guest and print tables.
# Ratios come from alternating repetitions in the same VM run.
set -euo pipefail
. "$(dirname "$0")/../testbed/lib.sh"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "# P4: perf bench sched pipe on one CPU, usecs per round trip (guest time, -icount shift=3)"
ROUNDS=${ROUNDS:-5}
sed "s/^ROUNDS=.*/ROUNDS=$ROUNDS/" "$DTL_TOP/bench/guest-p4.sh" >"$log.sh"
"$DTL_TOP/testbed/vm-run.sh" -s -n -t 1800 -q "-icount shift=3,sleep=off" \
	-f "$DTL_CACHE/build/module/dtl_pmu.ko=dtl/dtl_pmu.ko" "$log.sh" >"$log"
rm -f "$log.sh"
grep -q '^P4 error' "$log" && { grep '^P4 error' "$log"; exit 1; }
awk '
/^P4 (unloaded|idle|counting) [0-9.]+$/ { v[$2, ++n[$2]] = $3 }
function median(c,   i, j, t, a, k) {
	k = n[c]
	for (i = 1; i <= k; i++) a[i] = v[c, i]
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
		if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
function spread(c,   i, lo, hi) {
	lo = hi = v[c, 1]
	for (i = 2; i <= n[c]; i++) { if (v[c, i] < lo) lo = v[c, i]; if (v[c, i] > hi) hi = v[c, i] }
	return sprintf("%.3f-%.3f", lo, hi)
}
END {
	if (!n["unloaded"] || !n["idle"] || !n["counting"]) { print "P4: no results"; exit 1 }
	base = median("unloaded")
	printf "%-34s %6s %12s %14s %8s %6s\n", "condition", "rounds", "median", "range", "ratio", "goal"
	printf "%-34s %6d %12.3f %14s %8.4f %6s\n", "dtl not loaded", n["unloaded"], base, spread("unloaded"), 1, ""
	printf "%-34s %6d %12.3f %14s %8.4f %6s\n", "dtl loaded, no event", n["idle"], median("idle"), spread("idle"), median("idle") / base, "<=1.01"
	printf "%-34s %6d %12.3f %14s %8.4f %6s\n", "perf stat -a dtl/dispatches,wait_ns/", n["counting"], median("counting"), spread("counting"), median("counting") / base, "<=1.05"
}' "$log"
