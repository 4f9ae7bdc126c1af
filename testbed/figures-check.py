#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check that the benchmark figures the documents quote are the quoted run's.

usage: figures-check.py [TOP]

bench/README.md quotes the whole output of one `make bench` run (the
first fenced block of its "current figures" section with a P1 table);
that run is the reference.  README.md, Documentation/admin-guide/perf/
dtl.rst and the prose of bench/README.md's current section quote figures
from it, rounded.  Each figure is listed below with a regular expression
that captures it in its sentence and how to compute it from the run's
rows; the check rounds the run's value as the quote is rounded (half up)
and compares.  So a figure edited in a document without a new run, or a
run quoted anew without the documents, fails, naming file:line, the
quoted value and the run's.  A regular expression must match exactly
once: a rewording that loses a figure fails too, rather than silently
switching its check off.  Prints TAP-like lines; exits 1 if any failed.
"""
import os
import re
import sys
from decimal import Decimal, ROUND_FLOOR, ROUND_HALF_UP

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = 'bench/README.md'
RST = 'Documentation/admin-guide/perf/dtl.rst'
README = 'README.md'


class Run:
    """The rows of the run bench/README.md quotes."""

    def __init__(self, text):
        lines = text.split('\n')
        start = end = None
        for i, line in enumerate(lines):
            if line.startswith('## The current figures'):
                start = i
            elif start is not None and line.startswith('## '):
                end = i
                break
        if start is None:
            raise LookupError('%s: no "## The current figures" section' % BENCH)
        self.rows = []          # (line number, text)
        inside = False
        block = []
        for i in range(start, end if end is not None else len(lines)):
            if lines[i].startswith('```'):
                if inside and any(t.startswith('P1: usecs per round trip') for _, t in block):
                    self.rows = block
                    break
                inside, block = not inside, []
            elif inside:
                block.append((i + 1, lines[i]))
        if not self.rows:
            raise LookupError('%s: no quoted make bench run (a block with a P1 table) '
                              'in the current section' % BENCH)
        self.used = []

    def _header(self, header):
        for k, (_, t) in enumerate(self.rows):
            if t.startswith(header):
                return k
        raise LookupError('the run has no table "%s"' % header)

    def line(self, header):
        """A one-line table (P6), as text."""
        n, t = self.rows[self._header(header)]
        self.used.append('%s:%d' % (BENCH, n))
        return t

    def fields(self, header, label):
        """The fields after LABEL in its row of the table headed HEADER."""
        k = self._header(header)
        pat = re.compile(r'\s*' + re.escape(label) + r'(?:\s{2,}(.*))?$')
        for n, t in self.rows[k + 1:]:
            if not t.strip() or t.startswith('#') or re.match(r'P\d+\w*:', t):
                break
            m = pat.match(t)
            if m:
                self.used.append('%s:%d' % (BENCH, n))
                return (m.group(1) or '').split()
        raise LookupError('the run has no row "%s" under "%s"' % (label, header))

    def num(self, header, label, col):
        return Decimal(self.fields(header, label)[col])

    def pct(self, header, label, col=-1):
        """(ratio - 1) x 100 of a ratio column."""
        return (self.num(header, label, col) - 1) * 100


# Tables of the run, by the start of their header line.
P4 = '# P4:'
PT = '# per task'
P1 = 'P1: usecs per round trip'
FLOOR = 'P1: the floor'
SESS = 'P1: dtl sessions'
P2 = 'P2: perf.data bytes'
P5 = 'P5: perf script us'
P1K = 'P1k: usecs per round trip'
P2K = 'P2k: perf.data bytes'
P6 = 'P6:'
P8 = 'P8:'
P1I = 'P1i:'
P4I = 'P4i:'


def W(s):
    """Prose pattern: a space matches any white space, line breaks included."""
    return s.replace(' ', r'\s+')


def P6_lost(run, what):
    m = re.search(r'(\d+) ' + re.escape(what), run.line(P6))
    if not m:
        raise LookupError('the run\'s P6 line has no "N %s"' % what)
    return int(m.group(1))


def fifth(run):
    """dtl's bytes a switch over the tracepoints', the larger of 6.12 and 7.3."""
    return max(run.num(P2, 'dtl', 0) / run.num(P2, 'tracepoints', 0),
               run.num(P2K, 'dtl', 0) / run.num(P2K, 'tracepoints', 0))


def issue30_goals(run):
    """'met' if every goal row of the run but issue 15's two says met."""
    bad = []
    for n, t in run.rows:
        if 'not met' in t and not re.match(
                r'(perf stat -a dtl/dispatches,wait_ns/|dtl/dispatches/) ', t):
            bad.append('%s:%d' % (BENCH, n))
    run.used.append('every goal row')
    return 'met' if not bad else 'not met at ' + ', '.join(bad)


def both_met(run):
    f = run.fields(P4I, "dtl / perf's (goal<=1: no costlier)")
    return 'both met' if f[1] == 'met' and f[3] == 'met' else 'not both met: ' + ' '.join(f)


def tp_pct(run):
    return [run.pct(P1, 'tracepoints'), run.pct(P1K, 'tracepoints')]


# (file, what, pattern, group, compute(run) -> Decimal or str, rounding)
FIGS = []


def fig(file, what, pattern, compute, group=1, rounding=ROUND_HALF_UP):
    FIGS.append((file, what, pattern, group, compute, rounding))


# README.md, "What dtl answers"
fig(README, 'P1k dtl overhead %', W(r'Recording every switch of a busy CPU costs ([\d.]+) % of a'),
    lambda r: r.pct(P1K, 'dtl'))
fig(README, 'P1 dtl overhead %', W(r'\(([\d.]+) % with the out-of-tree module'),
    lambda r: r.pct(P1, 'dtl'))
fig(README, 'tracepoints overhead %, lower (P1k/P1)',
    W(r'against (\d+)-(\d+) % for perf\'s scheduler tracepoints'),
    lambda r: min(tp_pct(r)))
fig(README, 'tracepoints overhead %, upper (P1k/P1)',
    W(r'against (\d+)-(\d+) % for perf\'s scheduler tracepoints'),
    lambda r: max(tp_pct(r)), group=2)
fig(README, 'bytes a switch against the tracepoints\' (P2/P2k)',
    W(r'in under (a fifth) of the bytes'),
    lambda r: 'a fifth' if fifth(r) < Decimal(1) / 5 else 'not under a fifth: %.3f' % fifth(r))
fig(README, '8 sessions\' overhead / one\'s', W(r'eight sessions at once cost ([\d.]+) times one'),
    lambda r: r.num(SESS, "8 sessions' overhead / one session's", 0))

# README.md, "Overhead": P1, P2 and P5 of the 6.12 run
fig(README, 'rounds', W(r'median of (\d+) rounds of `make bench`'),
    lambda r: Decimal(re.search(r'in (\d+) runs', r.line(P6)).group(1)))
for doc, run_label, cols in (
        ('none', 'none', 2),
        ('dtl', 'dtl', 4),
        ('sched_switch \\+ sched_wakeup', 'tracepoints', 4),
        ('perf sched record', 'sched', 4),
        (r'trace-cmd \(same tracepoints\)', 'trace-cmd (same tracepoints)', 4),
        (r'bpftrace runqlat\.bt \(no records\)',
         'bpftrace runqlat.bt (histogram, no records)', 2)):
    pat = r'^\| ' + doc + r' +' + r'\| ([\d.]+) +' * cols + r'\|'
    name = re.sub(r'\\', '', doc)
    fig(README, 'P1 %s us a round trip' % name, pat,
        lambda r, l=run_label: r.num(P1, l, 0))
    fig(README, 'P1 %s ratio' % name, pat,
        lambda r, l=run_label: r.num(P1, l, 1), group=2)
    if cols == 4:
        fig(README, 'P2 %s bytes a switch' % name, pat,
            lambda r, l=run_label: r.num(P2, l, 0), group=3)
        fig(README, 'P5 %s us a switch' % name, pat,
            lambda r, l=run_label: r.num(P5, l, 0), group=4)
fig(README, 'P4 CPU-wide counting %', W(r'Counting costs ([\d.]+) % CPU-wide'),
    lambda r: r.pct(P4, 'perf stat -a dtl/dispatches,wait_ns/', 3))
fig(README, 'P4i dtl / perf\'s, 6.12', W(r'dtl\'s code costs ([\d.]+) times what perf\'s own'),
    lambda r: r.num(P4I, "dtl / perf's (goal<=1: no costlier)", 0))
fig(README, 'P4i dtl / perf\'s, 7.3', W(r'\(([\d.]+) with the series\)'),
    lambda r: r.num(P4I, "dtl / perf's (goal<=1: no costlier)", 2))

# The admin guide, "Overhead"
fig(RST, 'rounds', W(r'the conditions alternate in each of (\d+) rounds'),
    lambda r: r.num(P4, 'dtl not loaded', 0))
fig(RST, 'P4 dtl loaded, no event', r'^dtl loaded, no event +([\d.]+)$',
    lambda r: r.num(P4, 'dtl loaded, no event', 3))
fig(RST, 'P4 CPU-wide counting', r'^``perf stat -a -e dtl/dispatches/,dtl/wait_ns/`` +([\d.]+)$',
    lambda r: r.num(P4, 'perf stat -a dtl/dispatches,wait_ns/', 3))
fig(RST, 'P4 per task against task-clock',
    W(r'costs ([\d.]+) times what the same with ``-e task-clock`` costs'),
    lambda r: r.num(PT, 'dtl/dispatches/', 3))
fig(RST, 'P4 per task against context-switches',
    W(r'and ([\d.]+) times what it costs with ``-e context-switches``'),
    lambda r: r.num(PT, 'dtl/dispatches/ / context-switches', 0))
fig(RST, 'P4i dtl / perf\'s, 7.3', W(r'dtl\'s code costs ([\d.]+) times perf\'s software event'),
    lambda r: r.num(P4I, "dtl / perf's (goal<=1: no costlier)", 2))
fig(RST, 'P4i dtl / perf\'s, 6.12', W(r'in the kernel\'s tree, ([\d.]+) times out of tree'),
    lambda r: r.num(P4I, "dtl / perf's (goal<=1: no costlier)", 0))
fig(RST, 'P1 none ratio', r'^none +([\d.]+)$', lambda r: r.num(P1, 'none', 1))
for doc, run_label in ((r'dtl \(``-e dtl/all/``\)', 'dtl'),
                       ('sched_switch \\+ sched_wakeup tracepoints', 'tracepoints'),
                       ('``perf sched record``', 'sched'),
                       ('trace-cmd 3\\.1, the same tracepoints', 'trace-cmd (same tracepoints)')):
    pat = '^' + doc + r' +([\d.]+) +([\d.]+) +(\d+) us$'
    name = re.sub(r'\\', '', doc)
    fig(RST, 'P1 %s ratio' % name, pat, lambda r, l=run_label: r.num(P1, l, 1))
    fig(RST, 'P2 %s bytes' % name, pat, lambda r, l=run_label: r.num(P2, l, 0), group=2)
    fig(RST, 'P5 %s us' % name, pat, lambda r, l=run_label: r.num(P5, l, 0), group=3)
fig(RST, 'P1 bpftrace ratio',
    r'^bpftrace 0\.17 ``runqlat\.bt`` \(a histogram, no records\) +([\d.]+)$',
    lambda r: r.num(P1, 'bpftrace runqlat.bt (histogram, no records)', 1))
fig(RST, 'P1 floor ratio', r'^an empty sched_switch probe \(the floor\) +([\d.]+)$',
    lambda r: r.num(FLOOR, 'floor: empty sched_switch probe', 1))
# "about 47": half of P1's round trip without recording (95.3 us), rounded down.
fig(RST, 'P1 none us a switch (round trip / 2)', W(r'a switch costs about (\d+) us'),
    lambda r: r.num(P1, 'none', 0) / 2, rounding=ROUND_FLOOR)
fig(RST, 'second session\'s share of the first\'s overhead',
    W(r'session tracing the same CPUs costs ([\d.]+) of the first one\'s overhead'),
    lambda r: r.num(SESS, '2 session(s)', 2) - 1)
fig(RST, '4 sessions\' overhead / one\'s', W(r'4 sessions cost ([\d.]+) times one session\'s'),
    lambda r: r.num(SESS, '4 session(s)', 2))
fig(RST, '8 sessions\' overhead / one\'s', W(r'overhead and 8 sessions ([\d.]+) times'),
    lambda r: r.num(SESS, '8 session(s)', 2))
fig(RST, 'P1k none us a round trip', W(r'whose load takes (\d+) us a round trip'),
    lambda r: r.num(P1K, 'none', 0))
fig(RST, 'P1k dtl ratio', W(r'dtl costs ([\d.]+) \(``make bench``\'s P1k\)'),
    lambda r: r.num(P1K, 'dtl', 1))
fig(RST, 'P6 records lost by 8 sessions', W(r'at their default sizes lose (no) record'),
    lambda r: 'no' if P6_lost(r, 'with 8 sessions') == 0 else str(P6_lost(r, 'with 8 sessions')))

# bench/README.md, the prose of the current section
fig(BENCH, 'issue 30\'s goals', W(r'every goal of issue 30 (met)'), issue30_goals)
fig(BENCH, 'P1 dtl overhead %', W(r'\*\*P1 on 6\.12: \+([\d.]+) %, met\*\*'),
    lambda r: r.pct(P1, 'dtl'))
fig(BENCH, 'P1 goal', W(r'\*\*P1 on 6\.12: \+[\d.]+ %, (met)\*\*'),
    lambda r: ' '.join(r.fields(P1, 'dtl overhead (ratio - 1)')[2:]))
fig(BENCH, 'P1 goal %', W(r'\(goal (\d+) %; the build before'),
    lambda r: Decimal(r.fields(P1, 'dtl overhead (ratio - 1)')[1].split('<=')[1]) * 100)
fig(BENCH, 'P1 the build before\'s overhead %',
    W(r'the build before \+([\d.]+) % in the same rounds'),
    lambda r: r.pct(P1, 'dtl, the build before (DTL_BENCH_BEFORE)'))
fig(BENCH, 'P1i probe instructions a call, 7.3',
    W(r'the probe went from [\d.]+ to ([\d.]+) a call'),
    lambda r: r.num(P1I, 'probe: instructions a call', 1))
fig(BENCH, 'P4i dtl\'s probe instructions, 7.3', W(r'and P4i from [\d.]+ to ([\d.]+)\.'),
    lambda r: r.num(P4I, "dtl/dispatches/: dtl's probe", 1))
fig(BENCH, 'P8 longest timer pass us', W(r'within P8\'s \d+ us \(([\d.]+) here;'),
    lambda r: r.num(P8, 'timer pass (all sessions of a CPU)', 0))
fig(BENCH, 'P8 goal us', W(r'within P8\'s (\d+) us \([\d.]+ here;'),
    lambda r: Decimal(re.match(r'<=(\d+)us', r.fields(P8, 'timer pass (all sessions of a CPU)')[2])
                      .group(1)))
P4I_BOLD = W(r'\*\*P4i, per-task counting against perf\'s `context-switches`: ([\d.]+) out of '
             r'tree, ([\d.]+) with the series, (both met)\*\*')
fig(BENCH, 'P4i dtl / perf\'s, 6.12', P4I_BOLD,
    lambda r: r.num(P4I, "dtl / perf's (goal<=1: no costlier)", 0))
fig(BENCH, 'P4i dtl / perf\'s, 7.3', P4I_BOLD,
    lambda r: r.num(P4I, "dtl / perf's (goal<=1: no costlier)", 2), group=2)
fig(BENCH, 'P4i goals', P4I_BOLD, both_met, group=3)
fig(BENCH, 'P4 CPU-wide counting, not met', W(r'CPU-wide counting ([\d.]+) \(issue 15\'s'),
    lambda r: r.num(P4, 'perf stat -a dtl/dispatches,wait_ns/', 3)
    if r.fields(P4, 'perf stat -a dtl/dispatches,wait_ns/')[-2:] == ['not', 'met'] else 'met')
fig(BENCH, 'P4 per task against task-clock, not met',
    W(r'per-task counting against `task-clock` ([\d.]+) \(issue 15\'s'),
    lambda r: r.num(PT, 'dtl/dispatches/', 3)
    if r.fields(PT, 'dtl/dispatches/')[-2:] == ['not', 'met'] else 'met')


def prose(file, text):
    """TEXT with fenced blocks blanked (offsets kept), and the span to search."""
    masked = re.sub(r'^```.*?^```', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text,
                    flags=re.M | re.S)
    if file != BENCH:
        return masked, 0, len(text)
    s = re.search(r'^## The current figures', text, re.M)
    e = re.search(r'^## ', text[s.end():], re.M) if s else None
    return masked, s.start() if s else 0, s.end() + e.start() if e else len(text)


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(HERE)
    texts = {f: open(os.path.join(top, f), encoding='utf-8').read()
             for f in (README, RST, BENCH)}
    try:
        run = Run(texts[BENCH])
    except LookupError as e:
        print('not ok 1 - %s' % e)
        return 1
    spans = {f: prose(f, t) for f, t in texts.items()}
    failed = 0
    for n, (file, what, pattern, group, compute, rounding) in enumerate(FIGS, 1):
        text, lo, hi = spans[file]
        found = list(re.compile(pattern, re.M).finditer(text, lo, hi))
        if len(found) != 1:
            lines = ', '.join(str(text.count('\n', 0, m.start()) + 1) for m in found)
            print('not ok %d - %s: %s: the pattern %s %s' % (
                n, file, what, "'%s'" % pattern,
                'matches nothing' if not found
                else 'matches %d times (lines %s)' % (len(found), lines)))
            failed += 1
            continue
        m = found[0]
        where = '%s:%d' % (file, text.count('\n', 0, m.start(group)) + 1)
        quoted = m.group(group)
        run.used = []
        try:
            value = compute(run)
        except (LookupError, ArithmeticError, IndexError, ValueError, AttributeError) as e:
            print('not ok %d - %s: %s %s: the run: %s' % (n, where, what, quoted, e))
            failed += 1
            continue
        src = ', '.join(run.used)
        if isinstance(value, str):
            ok, shown = value == quoted, value
        else:
            q = Decimal(quoted)
            rounded = value.quantize(Decimal(1).scaleb(q.as_tuple().exponent), rounding=rounding)
            ok = rounded == q
            shown = '%s (%s)' % (rounded, format(value.normalize(), 'f'))
        if ok:
            print('ok %d - %s: %s %s' % (n, where, what, quoted))
        else:
            print('not ok %d - %s: %s: quoted %s, the run\'s %s at %s' % (
                n, where, what, quoted, shown, src))
            failed += 1
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
