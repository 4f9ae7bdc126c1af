#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""bench/run.sh's "insn" part: where dtl's instructions go on P1's load.

usage: insn.py LABEL GUEST_LOG PLUGIN_OUT [LABEL GUEST_LOG PLUGIN_OUT ...]

GUEST_LOG has bench/guest-insn.sh's "INSN" lines, PLUGIN_OUT the
snapshots of bench/tcg_insn (1: the load alone, 3: while perf-dtl
records, 5 and 7: under perf stat -e context-switches and -e
dtl/dispatches/, 9 and 11: the same with twice the round trips).  Prints, side by side, the instructions per round trip
of the whole guest without and with dtl, and what dtl adds, by function
group: differences of exact counts, so that two builds compare to the
instruction.  Then per-task counting against perf's own
context-switches event: issue 30's goal is no costlier.
"""
import base64
import bisect
import collections
import gzip
import re
import sys

# What dtl adds, by group: the first pattern a function matches.
GROUPS = [
    ("probe: dtl_sched_switch()", r"dtl_sched_switch$"),
    ("probe: steal clock read", r"(__)?(dtl_compat_)?(paravirt_)?steal_clock_read$"),
    ("probe: tracepoint call (__schedule)", r"__schedule$"),
    ("clock reads (local_clock)", r"(local_clock(_noinstr)?|sched_clock(_noinstr|_cpu)?|native_sched_clock)$"),
    ("drain: dtl's code", r"dtl_.*$"),
    ("drain: memcpy", r"(memcpy(_orig|_erms)?|__memcpy)$"),
    ("timer interrupt, hrtimer", r"(.*hrtimer.*|.*apic_timer_interrupt|clockevents_.*|tick_.*|lapic_.*|"
     r"timerqueue_.*|ktime_get.*|irqentry_.*|error_entry|irq_(enter|exit).*|rb_(erase|insert_color)|"
     r"native_write_msr|.*timer_interrupt.*)$"),
    ("perf record: copies to perf.data", r"(rep_movs_alternative|copy_user_.*|_copy_(from|to)_iter|"
     r"copy_mc_.*|copy_page_from_iter.*)$"),
    ("perf record: page clearing", r"(clear_page_.*|clear_highpages.*|memset_orig|memset)$"),
]


def load(log, prof):
    text = open(log, errors="replace").read()
    usecs = {}
    for m in re.finditer(r"^INSN (none|dtl|cs|pertask) ([0-9.]+)$", text, re.M):
        usecs.setdefault(m.group(1), float(m.group(2)))
    m = re.search(r"^INSN loops (\d+)$", text, re.M)
    ks = re.search(r"^INSN kallsyms (\S+)$", text, re.M)
    if len(usecs) != 4 or not m or not ks:
        sys.exit("insn.py: %s: no INSN results" % log)
    loops = int(m.group(1))
    syms = []
    for line in gzip.decompress(base64.b64decode(ks.group(1))).decode().split("\n"):
        p = line.split()
        if len(p) >= 3:
            syms.append((int(p[0], 16), p[2] + (p[3] if len(p) > 3 else "")))
    syms.sort()
    addrs = [a for a, _ in syms]
    snaps, cur = [], None
    entry = {}	# execs of each function's first block
    for line in open(prof):
        if line.startswith("snapshot"):
            cur = collections.Counter()
            snaps.append(cur)
            entry = {}
            snaps[-1].entry = entry
            continue
        a, insns, size = line.split()
        a, insns, size = int(a, 16), int(insns), int(size)
        i = bisect.bisect_right(addrs, a) - 1
        name = "[user]" if a < (1 << 63) or i < 0 else syms[i][1]
        cur[name] += insns
        if i >= 0 and syms[i][0] == a:
            entry[name] = entry.get(name, 0) + insns // size
    if len(snaps) < 12:
        sys.exit("insn.py: %s: %d snapshots, wants 12" % (prof, len(snaps)))
    # Per round trip of the second LOOPS: what perf stat and perf bench
    # cost to start and exit is in both runs, and goes.
    cs, pertask = collections.Counter(snaps[9]), collections.Counter(snaps[11])
    cs.subtract(snaps[5])
    pertask.subtract(snaps[7])
    return usecs, loops, snaps[1], snaps[3], cs, pertask


# P4i: each event's own code, and what it adds to shared code (the
# tracepoint call in __schedule, perf's RCU read sections) over the other.
DTL_OWN = r"(dtl_.*|(__)?(dtl_compat_)?(paravirt_)?steal_clock_read)$"
SW_OWN = r"((___|__)?perf_sw_event|perf_swevent_.*|perf_exclude_event)$"
DTL_SHARED = r"__schedule$"
SW_SHARED = r"__rcu_read_(un)?lock$"


def own_cost(mine, other, own, shared):
    n = 0
    for name in set(mine) | set(other):
        plain = re.sub(r"\[\w+\]$", "", name)
        if re.match(own, plain):
            n += mine[name]
        elif re.match(shared, plain):
            n += max(0, mine[name] - other[name])
    return n


def probe_per_call(snap):
    for name in snap.entry:
        if re.sub(r"\[\w+\]$", "", name) == "dtl_sched_switch":
            return snap[name] / max(1, snap.entry[name])
    return 0.0


def main(argv):
    runs = []
    for i in range(0, len(argv) - 2, 3):
        runs.append((argv[i],) + load(argv[i + 1], argv[i + 2]))
    w = 42
    print("%-*s" % (w, "P1i: instructions per round trip") + "".join("%14s" % r[0] for r in runs))
    rows = collections.OrderedDict()
    rows["whole guest, load alone"] = [sum(n.values()) / l for _, _, l, n, d, _, _ in runs]
    rows["whole guest, perf-dtl recording"] = [sum(d.values()) / l for _, _, l, n, d, _, _ in runs]
    rows["dtl's share (the difference)"] = [(sum(d.values()) - sum(n.values())) / l for _, _, l, n, d, _, _ in runs]
    for k, v in rows.items():
        print("  %-*s" % (w - 2, k) + "".join("%14.1f" % x for x in v))
    groups = [collections.Counter() for _ in runs]
    for j, (_, _, loops, none, dtl, _, _) in enumerate(runs):
        for name in set(none) | set(dtl):
            diff = (dtl[name] - none[name]) / loops
            plain = re.sub(r"\[\w+\]$", "", name)
            for title, pat in GROUPS:
                if re.match(pat, plain):
                    groups[j][title] += diff
                    break
            else:
                groups[j]["the rest"] += diff
    for title in [g for g, _ in GROUPS] + ["the rest"]:
        print("    %-*s" % (w - 4, title) + "".join("%14.1f" % g[title] for g in groups))
    print("  %-*s" % (w - 2, "probe: instructions a call") + "".join(
        "%14.1f" % probe_per_call(d) for _, _, _, _, d, _, _ in runs))
    print("  %-*s" % (w - 2, "us a round trip, load alone -> recording") + "".join(
        "%14s" % ("%.1f->%.1f" % (u["none"], u["dtl"])) for _, u, _, _, _, _, _ in runs))
    print("  (exact counts, by a QEMU TCG plugin: what dtl adds, by function, against the load"
          "\n   alone; under -icount an instruction is 8 ns of guest time)")
    print("%-*s" % (w, "P4i: per task, instructions per round trip") + "".join("%14s" % r[0] for r in runs))
    rows = collections.OrderedDict()
    rows["context-switches: perf's software event"] = [
        own_cost(c, t, SW_OWN, SW_SHARED) / l for _, _, l, _, _, c, t in runs]
    rows["dtl/dispatches/: dtl's probe"] = [
        own_cost(t, c, DTL_OWN, DTL_SHARED) / l for _, _, l, _, _, c, t in runs]
    for k, v in rows.items():
        print("  %-*s" % (w - 2, k) + "".join("%14.1f" % x for x in v))
    sw, dtl = rows.values()
    print("  %-*s" % (w - 2, "dtl / perf's (goal<=1: no costlier)") + "".join(
        "%14s" % ("%.3f %s" % (b / a, "met" if b <= a else "not met")) for a, b in zip(sw, dtl)))
    print("  %-*s" % (w - 2, "whole guest, context-switches") + "".join(
        "%14.1f" % (sum(c.values()) / l) for _, _, l, _, _, c, _ in runs))
    print("  %-*s" % (w - 2, "whole guest, dtl/dispatches/") + "".join(
        "%14.1f" % (sum(t.values()) / l) for _, _, l, _, _, _, t in runs))
    print("  %-*s" % (w - 2, "us a round trip, context-switches, dtl") + "".join(
        "%14s" % ("%.1f, %.1f" % (u["cs"], u["pertask"])) for _, u, _, _, _, _, _ in runs))
    print("  (the second %d round trips less the first; each event's own functions, and what\n"
          "   it adds over the other to __schedule (dtl's tracepoint call) or to RCU read\n"
          "   sections (perf's); the whole guest moves by up to 1 %% from run to run)" % runs[0][2])

if __name__ == "__main__":
    if len(sys.argv) < 4 or (len(sys.argv) - 1) % 3:
        sys.exit(__doc__)
    main(sys.argv[1:])
