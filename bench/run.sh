#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench: run the benchmarks in one icount guest and print tables.
# Ratios come from alternating repetitions in the same VM run.  The tables
# are also written to $DTL_BENCH_OUT/bench.txt (default bench/out/) and
# drawn beside them (bench/plot.py: p1.svg, sessions.svg, vcpus.svg).
set -euo pipefail
. "$(dirname "$0")/../testbed/lib.sh"

if [ -z "${DTL_BENCH_TEE:-}" ]; then
	out=${DTL_BENCH_OUT:-$DTL_TOP/bench/out}
	mkdir -p "$out"
	rc=0
	DTL_BENCH_TEE=1 "$0" "$@" | tee "$out/bench.txt" || rc=$?
	[ "$rc" = 0 ] || exit "$rc"
	python3 "$DTL_TOP/bench/plot.py" "$out/bench.txt" "$out" || true
	exit 0
fi

log=$(mktemp)
trap 'rm -rf "$log" "$log.sh" "$log.fl" "$log.so" "$log".6.12* "$log".7.3*' EXIT
ROUNDS=${ROUNDS:-5}
# PARTS: which guest runs, of p4 (counting), p1 (tracing), p1k (tracing on
# Linux 7.3 with the series, the in-tree dtl: its kernel is built first if
# not cached, DTL_FLAVOUR=bench), p1s (tracing at 2, 4 and 8 vCPUs,
# memory), p7 (storm, drains), insn (P1's instructions by function, on
# both kernels: bench/tcg_insn).
PARTS=${PARTS:-p4 p1 p1k p1s p7 insn}
want() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
if want p4; then
echo "# P4: perf bench sched pipe on one CPU, usecs per round trip (guest time, -icount shift=3)"
sed "s/^ROUNDS=.*/ROUNDS=$ROUNDS/" "$DTL_TOP/bench/guest-p4.sh" >"$log.sh"
cc -O2 -Wall -I"$DTL_TOP/tools/dtl" -o "$log.rc" "$DTL_TOP/bench/dtl_readcost.c"
"$DTL_TOP/testbed/vm-run.sh" -s -n -t 1800 -q "-icount shift=3,sleep=off" \
	-f "$DTL_CACHE/build/module/dtl_pmu.ko=dtl/dtl_pmu.ko" \
	-f "$log.rc=dtl/dtl_readcost" -f "$DTL_TOP/bench/guest-lib.sh=dtl/guest-lib.sh" \
	"$log.sh" >"$log"
rm -f "$log.rc"
rm -f "$log.sh"
grep -q '^P4 error' "$log" && { grep '^P4 error' "$log"; exit 1; }
awk '
/^P4 (unloaded|idle|counting) [0-9.]+$/ { v[$2, ++n[$2]] = $3 }
/^P4T [^ ]+ [0-9.]+$/ { v[$2, ++n[$2]] = $3 }
/^P3 (selfread|read) [0-9.]+$/ { v[$2, ++n[$2]] = $3 }
function median(c,   i, j, t, a, k) {
	k = n[c]
	for (i = 1; i <= k; i++) a[i] = v[c, i]
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
		if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
function ok(c) { return c ? "met" : "not met" }
function spread(c,   i, lo, hi) {
	lo = hi = v[c, 1]
	for (i = 2; i <= n[c]; i++) { if (v[c, i] < lo) lo = v[c, i]; if (v[c, i] > hi) hi = v[c, i] }
	return sprintf("%.3f-%.3f", lo, hi)
}
END {
	if (!n["unloaded"] || !n["idle"] || !n["counting"]) { print "P4: no results"; exit 1 }
	base = median("unloaded")
	printf "%-36s %6s %12s %14s %8s %7s\n", "condition", "rounds", "median", "range", "ratio", "goal"
	printf "%-36s %6d %12.3f %14s %8.4f\n", "dtl not loaded", n["unloaded"], base, spread("unloaded"), 1
	x = median("idle") / base
	printf "%-36s %6d %12.3f %14s %8.4f %7s %s\n", "dtl loaded, no event", n["idle"], median("idle"), spread("idle"), x, "<=1.005", ok(x <= 1.005)
	x = median("counting") / base
	printf "%-36s %6d %12.3f %14s %8.4f %7s %s\n", "perf stat -a dtl/dispatches,wait_ns/", n["counting"], median("counting"), spread("counting"), x, "<=1.01", ok(x <= 1.01)
	if (n["task-clock"]) {
		printf "\n# per task, inherited (perf stat -e EVENT -- perf bench sched pipe): usecs per round trip\n"
		tc = median("task-clock")
		printf "%-36s %6d %12.3f %14s %8.4f\n", "task-clock", n["task-clock"], tc, spread("task-clock"), 1
		if (n["context-switches"])
			printf "%-36s %6d %12.3f %14s %8.4f\n", "context-switches", n["context-switches"], median("context-switches"), spread("context-switches"), median("context-switches") / tc
		x = median("dtl/dispatches/") / tc
		printf "%-36s %6d %12.3f %14s %8.4f %7s %s\n", "dtl/dispatches/", n["dtl/dispatches/"], median("dtl/dispatches/"), spread("dtl/dispatches/"), x, "<=1.0", ok(x <= 1.0)
		if (n["context-switches"])
			printf "%-36s %6s %12s %14s %8.4f\n", "dtl/dispatches/ / context-switches", "", "", "", median("dtl/dispatches/") / median("context-switches")
	}
	if (n["selfread"]) {
		printf "\n# P3: reading a dtl counter of the calling task, ns per read (guest time)\n"
		printf "%-36s %6d %12.1f\n", "read() system call", n["read"], median("read")
		printf "%-36s %6d %12.1f %14s %8.1f %6s\n", "self-read from the mmap page", n["selfread"], median("selfread"), "x cheaper:", median("read") / median("selfread"), ">=10"
	}
}' "$log"
fi

# P1 runs on Debian's 6.12 with the out-of-tree build (p1, the module of
# DTL_KO or make guest-module), and on Linux 7.3 with the series applied
# and dtl built in its tree (p1k): what the series itself costs, with
# perf_ctx_data for the per-task state where the out-of-tree build has
# the compatibility layer's table.  p1k records with that out-of-tree
# build too, on the same kernel, in the "before" row.
lanes=()
want p1 && lanes+=(p1)
want p1k && lanes+=(p1k)
for lane in ${lanes[@]+"${lanes[@]}"}; do
echo
p1vm=()
if [ "$lane" = p1k ]; then
	kb=$(DTL_FLAVOUR=bench "$DTL_TOP/testbed/build-debug-kernel.sh")
	p1vm=(-k "$kb/vmlinux" -m "$kb/drivers/perf/dtl/dtl_pmu.ko"
	      -f "$DTL_CACHE/build/module-bench/dtl_pmu.ko=dtl/dtl_before.ko")
	fkdir=$kb
	echo "# P1k/P2/P5/P6: the same on Linux $DTL_K73_REL with the series, dtl in its tree (guest time, -icount shift=3)"
	sed "s/^ROUNDS=.*/ROUNDS=$ROUNDS/; s/^LINEAR_LOOPS=.*/LINEAR_LOOPS=0/; s/^SESSIONS=.*/SESSIONS=0/" \
		"$DTL_TOP/bench/guest-p1.sh" >"$log.sh"
else
	fkdir=$DTL_KHEADERS
	echo "# P1/P2/P5/P6: perf bench sched pipe on CPU 0 while recording all CPUs (guest time, -icount shift=3)"
	sed "s/^ROUNDS=.*/ROUNDS=$ROUNDS/" "$DTL_TOP/bench/guest-p1.sh" >"$log.sh"
fi
# The floor: an empty sched_switch probe, built in a scratch copy.
rm -rf "$log.fl" && cp -r "$DTL_TOP/bench/dtl_floor" "$log.fl"
make -s -C "$fkdir" M="$log.fl" W=1 modules
# Debian's trace-cmd, a peer, with its libraries at their paths.
tc=()
if tcbin=$(command -v trace-cmd); then
	tc=(-f "$tcbin=usr/bin/trace-cmd")
	for lib in $(ldd "$tcbin" | awk '/=>/ { print $3 }'); do
		tc+=(-f "$(readlink -f "$lib")=${lib#/}")
	done
fi
# Debian's bpftrace 0.17 running its runqlat.bt, another peer: 200 MB of
# libraries (LLVM, clang) in the guest, which then needs 2 GiB.
if ! command -v bpftrace >/dev/null; then
	echo "bench: installing Debian's bpftrace for the runqlat.bt row" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends bpftrace >/dev/null ||
		echo "bench: no bpftrace (apt-get install bpftrace failed): no runqlat.bt row" >&2
fi
if bt=$(command -v bpftrace) && [ -f /usr/sbin/runqlat.bt ]; then
	tc+=(-f "$bt=usr/bin/bpftrace" -f "/usr/sbin/runqlat.bt=dtl/runqlat.bt")
	for lib in $(ldd "$bt" | awk '/=>/ { print $3 }'); do
		tc+=(-f "$(readlink -f "$lib")=${lib#/}")
	done
fi
# DTL_BENCH_BEFORE=path/to/dtl_pmu.ko: another build of dtl (for the
# guest's kernel), recorded with in the same rounds (the "before" row).
if [ -n "${DTL_BENCH_BEFORE:-}" ] && [ "$lane" = p1 ]; then
	[ -f "$DTL_BENCH_BEFORE" ] || die "DTL_BENCH_BEFORE=$DTL_BENCH_BEFORE: no such module"
	tc+=(-f "$DTL_BENCH_BEFORE=dtl/dtl_before.ko")
fi
DTL_MEM=2048 "$DTL_TOP/testbed/vm-run.sh" -s -t 7200 -q "-icount shift=3,sleep=off" \
	${p1vm[@]+"${p1vm[@]}"} \
	-f "$log.fl/dtl_floor.ko=dtl/dtl_floor.ko" ${tc[@]+"${tc[@]}"} \
	-f "$DTL_TOP/bench/guest-lib.sh=dtl/guest-lib.sh" "$log.sh" >"$log"
rm -rf "$log.fl"
cp "$log" "$DTL_CACHE/bench-$lane.out"	# the raw lines, kept for a second look
grep -q '^P1 error' "$log" && { grep '^P1 error' "$log"; exit 1; }
awk -v lane="$lane" '
function median(key, n,   i, j, t, a) {
	for (i = 1; i <= n; i++) a[i] = v[key, i]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function ok(c) { return c ? "met" : "not met" }
function label(k) { return (k in name) ? name[k] : k }
/^P1 [a-z0-9]+ [0-9.]+$/ { v["p1" $2, ++n1[$2]] = $3 }
/^P2 [a-z]+ [0-9]+ [0-9]+$/ { v["p2" $2, ++n2[$2]] = $3 / ($4 ? $4 : 1) }
/^P5 [a-z]+ [0-9]+ [0-9]+$/ { v["p5" $2, ++n5[$2]] = $3 * 10000000 / ($4 ? $4 : 1) }
/^P6 dtl [0-9]+$/ { lost += $3; n6++ }
/^P6 dtlbefore [0-9]+$/ { blost += $3 }
/^P6 dtl[248] [0-9]+$/ { glost[$2] += $3 }
/^P5L [a-z]+ [0-9]+ [0-9]+ [0-9]+$/ { l[$2, $3] = $4 * 10000 / ($5 ? $5 : 1); ls[$3] = $5 }
END {
	if (!n1["none"] || !n1["dtl"] || !n1["tracepoints"]) { print "P1: no results"; exit 1 }
	base = median("p1none", n1["none"])
	printf "%-44s %10s %8s\n", "P1: usecs per round trip", "median", "ratio"
	split("none dtl tracepoints sched tracecmd bpftrace dtlbefore", m, " ")
	name["tracecmd"] = "trace-cmd (same tracepoints)"
	name["bpftrace"] = "bpftrace runqlat.bt (histogram, no records)"
	name["dtlbefore"] = "dtl, the build before (DTL_BENCH_BEFORE)"
	if (lane == "p1k")
		name["dtlbefore"] = "dtl, out-of-tree build (compat layer)"
	for (i = 1; i <= 7; i++) if (n1[m[i]]) {
		x = median("p1" m[i], n1[m[i]]); r[m[i]] = x / base - 1
		printf "  %-42s %10.3f %8.4f\n", label(m[i]), x, x / base
	}
	printf "  %-42s %10.3f %8s %s\n", "dtl overhead (ratio - 1)", r["dtl"], "goal<=0.08", ok(r["dtl"] <= 0.08)
	if (n1["dtlbefore"] && lane == "p1k")
		printf "  %-42s %10.3f %8s\n", "out-of-tree build overhead / in-tree", (r["dtl"] > 0 ? r["dtlbefore"] / r["dtl"] : 0), "compat"
	else if (n1["dtlbefore"])
		printf "  %-42s %10.3f %8s\n", "dtl overhead / the build before\47s", (r["dtlbefore"] > 0 ? r["dtl"] / r["dtlbefore"] : 0), "after/before"
	if (n1["tracecmd"])
		printf "  %-42s %10.3f %8s %s\n", "dtl overhead / trace-cmd overhead", r["dtl"] / r["tracecmd"], "goal<1", ok(r["dtl"] < r["tracecmd"])
	else
		printf "  (no trace-cmd in the guest: make setup installs it)\n"
	printf "  %-42s %10.3f %8s %s\n", "dtl overhead / tracepoint overhead", r["dtl"] / r["tracepoints"], "goal<=0.25", ok(r["dtl"] / r["tracepoints"] <= 0.25)
	if (n1["bpftrace"])
		printf "  %-42s %10.3f\n", "dtl overhead / bpftrace runqlat overhead", r["dtl"] / r["bpftrace"]
	else
		printf "  (no bpftrace row: %s)\n", (lane == "p1k" ? "it needs BTF or kernel headers, which the bench kernel has not" : "apt-get install bpftrace")
	if (n1["floor"] && n1["clockprobe"]) {
		printf "%-44s %10s %8s %8s\n", "P1: the floor (dtl loaded, no event)", "median", "ratio", "dtl/it"
		split("floor clockprobe", fl, " ")
		name["floor"] = "floor: empty sched_switch probe"
		name["clockprobe"] = "probe reading local_clock()"
		for (i = 1; i <= 2; i++) {
			x = median("p1" fl[i], n1[fl[i]]); r[fl[i]] = x / base - 1
			printf "  %-42s %10.3f %8.4f %8.2f\n", name[fl[i]], x, x / base, (r[fl[i]] > 0 ? r["dtl"] / r[fl[i]] : 0)
		}
		x = r["floor"] > 0 ? r["dtl"] / r["floor"] : 0
		printf "  %-42s %10s %8s %8.2f\n", "dtl overhead / floor overhead", "", "", x
	}
	if (n1["dtl8"]) {
		printf "%-44s %10s %8s %8s %6s\n", "P1: dtl sessions at once (all CPUs each)", "median", "ratio", "vs 1", "lost"
		split("dtl dtl2 dtl4 dtl8", g, " ")
		for (i = 1; i <= 4; i++) {
			x = median("p1" g[i], n1[g[i]])
			printf "  %-42s %10.3f %8.4f %8.2f %6d\n", (i == 1 ? 1 : substr(g[i], 4)) " session(s)", x, x / base, (x / base - 1) / r["dtl"], (i == 1 ? lost : glost[g[i]])
		}
		x8 = (median("p1dtl8", n1["dtl8"]) / base - 1) / r["dtl"]
		printf "  %-42s %10s %8s %8.2f %s %s\n", "8 sessions\47 overhead / one session\47s", "", "", x8, "goal<=8", ok(x8 <= 8 && !glost["dtl8"])
		printf "  (one producer, many readers: the overhead should stay flat; lost: by the measured session)\n"
	}
	printf "%-44s %10s %8s\n", "P2: perf.data bytes per context switch", "median", "vs dtl"
	for (i = 2; i <= 5; i++) if (n2[m[i]]) {
		b[m[i]] = median("p2" m[i], n2[m[i]])
		printf "  %-42s %10.1f %8.2f\n", label(m[i]), b[m[i]], b[m[i]] / b["dtl"]
	}
	if (n2["dtlbefore"])
		printf "  %-42s %10.1f %8.2f\n", label("dtlbefore"), median("p2dtlbefore", n2["dtlbefore"]), median("p2dtlbefore", n2["dtlbefore"]) / b["dtl"]
	if (b["dtl"])
		printf "  %-42s %10.1f %8s %s\n", "dtl bytes per switch", b["dtl"], "goal<=33", ok(b["dtl"] <= 33)
	if (b["dtl"] && b["tracepoints"])
		printf "  %-42s %10s %8.2f %s %s\n", "tracepoints / dtl", "", b["tracepoints"] / b["dtl"], "goal>=4", ok(b["tracepoints"] >= 4 * b["dtl"])
	printf "%-44s %10s %8s\n", "P5: perf script us per context switch", "median", "vs dtl"
	for (i = 2; i <= 5; i++) if (n5[m[i]]) {
		c[m[i]] = median("p5" m[i], n5[m[i]]) / 1000
		printf "  %-42s %10.2f %8.2f\n", label(m[i]), c[m[i]], c[m[i]] / c["dtl"]
	}
	if (c["dtl"] && c["tracepoints"])
		printf "  %-42s %10s %8.2f %s %s\n", "tracepoints / dtl", "", c["tracepoints"] / c["dtl"], "goal>=8", ok(c["tracepoints"] >= 8 * c["dtl"])
	printf "P6: dtl records lost at default settings: %d in %d runs", lost, n6
	if (n1["dtl8"])
		printf ", %d with 8 sessions", glost["dtl8"]
	if (n1["dtlbefore"])
		printf ", %d with the %s", blost, (lane == "p1k" ? "out-of-tree build" : "build before")
	printf " (goal 0: %s)\n", (lost + glost["dtl8"] ? "not met" : "met")
	if (ls[1]) {
		printf "%-44s %10s %10s %10s %8s\n", "P5: dtl decode us per switch, by size", "1x", "4x", "16x", "16x/1x"
		printf "  %-42s %10d %10d %10d\n", "context switches recorded", ls[1], ls[4], ls[16]
		split("script report summary", tl, " ")
		name["script"] = "perf script"; name["report"] = "perf report --sort comm,pid"
		name["summary"] = "perf script --dlfilter (summary)"
		for (i = 1; i <= 3; i++)
			printf "  %-42s %10.1f %10.1f %10.1f %8.2f\n", name[tl[i]], l[tl[i], 1], l[tl[i], 4], l[tl[i], 16], l[tl[i], 16] / (l[tl[i], 1] ? l[tl[i], 1] : 1)
		printf "  (linear decoding keeps us per switch flat: 16x/1x near 1)\n"
	}
}' "$log" | if [ "$lane" = p1k ]; then sed 's/^P\([1-6]\):/P\1k:/'; else cat; fi
done

if want p1s; then
echo
echo "# P1 by vCPUs: perf bench sched pipe on CPU 0, recorded by dtl on all CPUs (guest time, -icount shift=3)"
sed "s/^ROUNDS=.*/ROUNDS=$ROUNDS/" "$DTL_TOP/bench/guest-p1s.sh" >"$log.sh"
: >"$log"
for n in 2 4 8; do
	DTL_SMP=$n "$DTL_TOP/testbed/vm-run.sh" -s -t 3600 -q "-icount shift=3,sleep=off" \
		-f "$DTL_TOP/bench/guest-lib.sh=dtl/guest-lib.sh" "$log.sh" >>"$log"
done
cp "$log" "$DTL_CACHE/bench-p1s.out"
awk '
function median(key, n,   i, j, t, a) {
	for (i = 1; i <= n; i++) a[i] = v[key, i]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
/^P1S [0-9]+ (none|dtl) [0-9.]+$/ { k = $2 " " $3; v[k, ++n[k]] = $4; cpus[$2] = 1 }
/^MEM [0-9]+ [0-9]+ [0-9]+$/ { logs[$2] = $3; maps[$2] = $4 }
END {
	if (!n["2 none"]) { print "P1 by vCPUs: no results"; exit 1 }
	printf "%-10s %12s %12s %10s %8s %14s %16s\n", "vCPUs", "none us", "dtl us", "overhead", "vs 2", "logs KiB/CPU", "session KiB/CPU"
	for (c = 2; c <= 8; c *= 2) {
		if (!n[c " none"]) continue
		o = median(c " dtl", n[c " dtl"]) / median(c " none", n[c " none"]) - 1
		if (c == 2) o2 = o
		printf "%-10d %12.3f %12.3f %9.2f%% %8.2f %14d %16d\n", c, median(c " none", n[c " none"]), median(c " dtl", n[c " dtl"]), o * 100, o / o2, logs[c] / c / 1024, maps[c] / c / 1024
	}
	printf "  (overhead per switch should not grow with CPUs; memory: dtl'"'"'s per-CPU log, and the ring buffer and\n   AUX area one perf record -a session maps on each CPU)\n"
}' "$log"
fi

if want p7; then
echo
echo "# P7/P8: open/close storm (2 vCPUs) and interrupts-off drains (1 vCPU: see guest-p8.sh), guest time, -icount shift=3"
sed "s/^ROUNDS=.*/ROUNDS=$ROUNDS/" "$DTL_TOP/bench/guest-p7.sh" >"$log.sh"
cc -O2 -Wall -o "$log.st" "$DTL_TOP/bench/dtl_storm.c"
"$DTL_TOP/testbed/vm-run.sh" -s -t 1800 -q "-icount shift=3,sleep=off" \
	-f "$log.st=dtl/dtl_storm" -f "$DTL_TOP/bench/guest-lib.sh=dtl/guest-lib.sh" \
	"$log.sh" >"$log"
rm -f "$log.st"
sed "s/^ROUNDS=.*/ROUNDS=${P8_ROUNDS:-5}/" "$DTL_TOP/bench/guest-p8.sh" >"$log.sh"
DTL_SMP=1 "$DTL_TOP/testbed/vm-run.sh" -s -t 1800 -q "-icount shift=3,sleep=off" \
	-f "$DTL_TOP/bench/guest-lib.sh=dtl/guest-lib.sh" "$log.sh" >>"$log"
grep -q '^P[78] error' "$log" && { grep -B3 '^P[78] error' "$log"; exit 1; }
awk '
function median(key, n,   i, j, t, a) {
	for (i = 1; i <= n; i++) a[i] = v[key, i]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function ok(c) { return c ? "met" : "not met" }
/^P7 (busy|clock|cs|dtl) [0-9]+ [0-9]+ [0-9]+ [0-9.]+$/ { n7[$2]++; opens[$2] = $3; v["ipi" $2, n7[$2]] = $4; v["ms" $2, n7[$2]] = $5; v["rate" $2, n7[$2]] = $6 }
/^P8 [0-9]+ [0-9]+ [0-9]+ [0-9]+$/ {
	n8++
	if ($2 > pns) pns = $2; if ($3 > prec) prec = $3
	if ($4 > sns) sns = $4; if ($5 > srec) srec = $5
	v["p8", n8] = $2
}
END {
	if (!n7["busy"] || !n7["clock"] || !n7["cs"] || !n7["dtl"] || !n8) { print "P7/P8: no results"; exit 1 }
	printf "%-44s %6s %9s %9s %13s %13s\n", "P7: open+close storm by nobody on CPU 0", "opens", "CPU1 IPIs", "storm ms", "CPU1 vs busy", "vs cpu-clock"
	busy = median("ratebusy", n7["busy"]); clock = median("rateclock", n7["clock"])
	split("busy clock cs dtl", e, " ")
	name["busy"] = "none: CPU 0 busy in user space"
	name["clock"] = "perf cpu-clock"
	name["cs"] = "perf context-switches (flips a static key)"
	name["dtl"] = "dtl/dispatches/ (goal: slowed <= 1%)"
	for (i = 1; i <= 4; i++) {
		x = median("rate" e[i], n7[e[i]])
		printf "  %-42s %6d %9d %9d %+12.2f%% %+12.2f%%\n", name[e[i]], opens[e[i]], median("ipi" e[i], n7[e[i]]), median("ms" e[i], n7[e[i]]), (x / busy - 1) * 100, (x / clock - 1) * 100
	}
	x = median("ratedtl", n7["dtl"]) / busy - 1
	printf "  %-42s %6s %9s %9s %12.2f%% %13s\n", "CPU 1 slowed by the dtl storm", "", "", "", (x < 0 ? -x * 100 : 0), "goal<=1% " ok(x >= -0.01)
	printf "  (CPU 1 work rate while the storm lasts, change against the base: + is more work, - is\n   slowed; single-threaded TCG shares one host thread between the vCPUs, so CPU 1 gets\n   what CPU 0 leaves)\n"
	printf "%-44s %10s %10s %10s\n", "P8: longest interrupts-off drain, 4 sessions, 1 vCPU", "us", "records", "goal"
	printf "  %-42s %10.1f %10d %10s %s\n", "timer pass (all sessions of a CPU)", pns / 1000, prec, "<=20us", ok(pns <= 20000)
	printf "  %-42s %10.1f %10d %10s %s\n", "stop drain (an event stopping)", sns / 1000, srec, "<=20us", ok(sns <= 20000)
	printf "  (worst of %d rounds; median pass %.1f us)\n", n8, median("p8", n8) / 1000
}' "$log"
fi

if want insn; then
echo
echo "# P1i: P1's instructions by function, 10000 round trips (exact: a QEMU TCG plugin, -icount shift=3)"
cc -O2 -Wall -shared -fPIC -o "$log.so" "$DTL_TOP/bench/tcg_insn/tcg_insn.c"
args=()
for lane in 6.12 7.3; do
	vm=()
	label="$lane compat"
	if [ $lane = 7.3 ]; then
		kb=$(DTL_FLAVOUR=bench "$DTL_TOP/testbed/build-debug-kernel.sh")
		vm=(-k "$kb/vmlinux" -m "$kb/drivers/perf/dtl/dtl_pmu.ko")
		label="$lane series"
	fi
	# The plugin snapshots its counts where the kernel syncs: find it.
	sed "s/^MODE=.*/MODE=trigger/" "$DTL_TOP/bench/guest-insn.sh" >"$log.sh"
	trig=$("$DTL_TOP/testbed/vm-run.sh" -s -n -t 600 ${vm[@]+"${vm[@]}"} \
		-f "$DTL_TOP/bench/guest-lib.sh=dtl/guest-lib.sh" "$log.sh" |
		sed -n 's/^INSN trigger //p')
	[ -n "$trig" ] || die "insn: no ksys_sync in the $lane guest's kallsyms"
	sed "s/^MODE=.*/MODE=measure/" "$DTL_TOP/bench/guest-insn.sh" >"$log.sh"
	"$DTL_TOP/testbed/vm-run.sh" -s -t 1200 ${vm[@]+"${vm[@]}"} \
		-q "-icount shift=3,sleep=off -plugin $log.so,arg=trigger=$trig,arg=out=$log.$lane.prof" \
		-f "$DTL_TOP/bench/guest-lib.sh=dtl/guest-lib.sh" "$log.sh" >"$log.$lane"
	if grep '^INSN error' "$log.$lane"; then exit 1; fi
	args+=("$label" "$log.$lane" "$log.$lane.prof")
done
python3 "$DTL_TOP/bench/insn.py" "${args[@]}"
rm -f "$log.so" "$log".6.12* "$log".7.3*
fi
