#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check bench/plot.py against a table make bench printed.

Usage: bench-plot-check.py BENCH.TXT OUTDIR

BENCH.TXT is make bench's output (bench/README.md quotes one: the first
block of it with a P1 table is used).  The check reads the table itself,
runs plot.py, and checks that p1.svg has a bar for each tracer but the
baseline, each labelled with its overhead ((ratio - 1) x 100), lengths in
proportion to it, and sessions.svg a point for each session count with
its overhead; that bench/p1.svg and bench/sessions.svg, which
bench/README.md shows, are those pictures; then that headless Chromium
renders both to a screenshot that is not blank.  TAP-like lines; exit 0 if all pass.
"""

import importlib.util
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SVG = '{http://www.w3.org/2000/svg}'
spec = importlib.util.spec_from_file_location('timeline_check',
                                              os.path.join(HERE, 'timeline-check.py'))
tc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tc)


def table(text):
    """The first block of make bench output with a P1 table."""
    blocks = re.split(r'^```.*$', text, flags=re.M)
    for b in blocks:
        if 'P1: usecs per round trip' in b:
            return b.splitlines()
    return text.splitlines()


def rows_after(lines, title):
    out, inside = [], False
    for line in lines:
        if line.startswith(title):
            inside = True
        elif inside and line.startswith('  ') and not line.startswith('  ('):
            out.append(line.split())
        elif inside:
            break
    return out


def main():
    src, out = sys.argv[1], sys.argv[2]
    lines = table(open(src).read())
    os.makedirs(out, exist_ok=True)
    fixture = os.path.join(out, 'bench.txt')
    with open(fixture, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    r = subprocess.run([sys.executable, os.path.join(HERE, '..', 'bench', 'plot.py'),
                        fixture, out], capture_output=True, text=True)
    tc.check(r.returncode == 0, 'plot.py: %s' % (r.stdout + r.stderr).strip())
    if r.returncode:
        return 1

    # The tracers of the P1 table (label words, median, ratio), but the
    # baseline and the summary rows, whose second-last field is no number.
    want = {}
    for f in rows_after(lines, 'P1: usecs per round trip'):
        if len(f) >= 3 and re.match(r'^[0-9.]+$', f[-1]) and re.match(r'^[0-9.]+$', f[-2]) \
           and f[0] != 'none':
            want[' '.join(f[:-2])] = (float(f[-1]) - 1) * 100
    bars = {}
    for rect in ET.parse(os.path.join(out, 'p1.svg')).getroot().iter(SVG + 'rect'):
        if rect.get('class') != 'bar':
            continue
        label, value = rect.find(SVG + 'title').text.rsplit(': ', 1)
        bars[label] = (float(value.strip('+ %')), float(rect.get('width')))
    tc.check(set(bars) == set(want) and
             all(abs(bars[k][0] - want[k]) < 0.05 for k in want),
             'p1.svg: %d bars, each the overhead of its row (%s)' %
             (len(bars), ', '.join('%s %+.1f %%' % (k, v) for k, v in want.items())))
    per = [w / v for v, w in bars.values() if v > 0]
    tc.check(per and max(per) - min(per) < 0.01 * max(per),
             'p1.svg: bar lengths in proportion to the overheads')

    sess = {}
    for f in rows_after(lines, 'P1: dtl sessions at once'):
        # The session rows ("N session(s) ..."), not the goal line after them.
        if len(f) > 3 and f[1] == 'session(s)':
            sess[int(f[0])] = (float(f[3]) - 1) * 100
    pts = {}
    for c in ET.parse(os.path.join(out, 'sessions.svg')).getroot().iter(SVG + 'circle'):
        n, v = c.find(SVG + 'title').text.split(': ')
        pts[int(n)] = float(v.split()[0])
    tc.check(sess and set(pts) == set(sess) and
             all(abs(pts[k] - sess[k]) < 0.05 for k in sess),
             'sessions.svg: %d points, each the overhead of its row' % len(pts))

    # The pictures bench/README.md shows are these, drawn from its table.
    for name in ('p1', 'sessions'):
        shown = os.path.join(HERE, '..', 'bench', name + '.svg')
        same = os.path.exists(shown) and \
            open(shown).read() == open(os.path.join(out, name + '.svg')).read()
        tc.check(same, 'bench/%s.svg is drawn from the table bench/README.md quotes%s' %
                 (name, '' if same else ' (refresh: testbed/bench-plot-check.py bench/README.md '
                  'DIR, then copy DIR/%s.svg)' % name))
    for name in ('p1', 'sessions'):
        tc.rendered(os.path.join(out, name + '.svg'), os.path.join(out, name + '.png'),
                    '900,420')
    return 1 if tc.failed else 0


if __name__ == '__main__':
    sys.exit(main())
