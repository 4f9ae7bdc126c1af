#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Draw make bench's tables as SVG, next to the text they come from.

Usage: plot.py BENCH.TXT OUTDIR

Reads the tables bench/run.sh printed (BENCH.TXT) and writes, for those
present:
  OUTDIR/p1.svg        P1: overhead of each tracer per round trip, a bar
                       each, with dtl's goal marked;
  OUTDIR/sessions.svg  P1: overhead with 1, 2, 4 and 8 dtl sessions at
                       once, against the flat line one producer promises;
  OUTDIR/vcpus.svg     P1 by vCPUs: dtl's overhead at 2, 4 and 8 vCPUs.
Each value is printed on its bar or point: the picture holds the table's
numbers, not only their shape.  Standard library only.
"""

import html
import os
import re
import sys

NUM = r"([0-9]+(?:\.[0-9]+)?)"


def section(lines, title):
    """The rows under the header line that begins with @title."""
    rows, inside = [], False
    for line in lines:
        if line.startswith(title):
            inside = True
            continue
        if inside:
            if not line.startswith("  ") or line.startswith("  ("):
                break
            rows.append(line.strip())
    return rows


def p1_rows(lines):
    """(label, ratio) for each tracer of the P1 table."""
    out = []
    for row in section(lines, "P1: usecs per round trip"):
        m = re.match(r"(.+?)\s+" + NUM + r"\s+" + NUM + r"$", row)
        if m:
            out.append((m.group(1), float(m.group(3))))
    return out


def p1_goal(lines):
    for row in section(lines, "P1: usecs per round trip"):
        m = re.match(r"dtl overhead \(ratio - 1\)\s+" + NUM + r"\s+goal<=" + NUM, row)
        if m:
            return float(m.group(2))
    return None


def session_rows(lines):
    """(sessions, ratio, lost) for each row of the sessions table."""
    out = []
    for row in section(lines, "P1: dtl sessions at once"):
        m = re.match(r"([0-9]+) session\(s\)\s+" + NUM + r"\s+" + NUM +
                     r"\s+" + NUM + r"\s+([0-9]+)$", row)
        if m:
            out.append((int(m.group(1)), float(m.group(3)), int(m.group(5))))
    return out


def vcpu_rows(lines):
    """(vCPUs, overhead %) for each row of the P1-by-vCPUs table."""
    out, inside = [], False
    for line in lines:
        if line.startswith("vCPUs "):
            inside = True
            continue
        if inside:
            m = re.match(r"([0-9]+)\s+" + NUM + r"\s+" + NUM + r"\s+(-?" + NUM[1:-1] + r")%", line)
            if not m:
                break
            out.append((int(m.group(1)), float(m.group(4))))
    return out


class Svg:
    """A small SVG canvas: text, rectangles, lines and polylines."""

    def __init__(self, width, height, title):
        self.width, self.height = width, height
        self.items = ['<rect width="%d" height="%d" fill="white"/>' % (width, height)]
        self.text(width / 2, 22, title, size=15, anchor="middle", weight="bold")

    def text(self, x, y, s, size=12, anchor="start", weight="normal", fill="#222"):
        self.items.append('<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s" '
                          'font-weight="%s" fill="%s">%s</text>'
                          % (x, y, size, anchor, weight, fill, html.escape(s)))

    def rect(self, x, y, w, h, fill, title):
        self.items.append('<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f" '
                          'fill="%s"><title>%s</title></rect>'
                          % (x, y, w, h, fill, html.escape(title)))

    def line(self, x1, y1, x2, y2, stroke="#888", dash=None):
        extra = ' stroke-dasharray="%s"' % dash if dash else ""
        self.items.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"%s/>'
                          % (x1, y1, x2, y2, stroke, extra))

    def polyline(self, pts, stroke, cls):
        self.items.append('<polyline class="%s" fill="none" stroke="%s" stroke-width="2" '
                          'points="%s"/>' % (cls, stroke,
                                             " ".join("%.1f,%.1f" % p for p in pts)))

    def circle(self, x, y, fill, title):
        self.items.append('<circle class="point" cx="%.1f" cy="%.1f" r="4" fill="%s">'
                          '<title>%s</title></circle>' % (x, y, fill, html.escape(title)))

    def save(self, path):
        with open(path, "w") as f:
            f.write('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
                    'viewBox="0 0 %d %d" font-family="sans-serif">\n'
                    % (self.width, self.height, self.width, self.height))
            f.write("\n".join(self.items))
            f.write("\n</svg>\n")


def plot_p1(rows, goal, path):
    """Horizontal bars: overhead in % per round trip, the baseline left out."""
    bars = [(label, (ratio - 1) * 100) for label, ratio in rows if label != "none"]
    top = max([v for _, v in bars] + [(goal or 0) * 100, 1])
    left, right, row_h = 300, 90, 28
    width = 900
    height = 60 + row_h * len(bars) + 40
    svg = Svg(width, height, "P1: overhead per round trip of perf bench sched pipe, recording all CPUs")
    scale = (width - left - right) / top
    y = 50
    for label, v in bars:
        fill = "#2a7ab9" if label == "dtl" else "#b0b0b0"
        svg.text(left - 8, y + row_h * 0.6, label, anchor="end")
        svg.rect(left, y + 4, max(v, 0) * scale, row_h - 8, fill, "%s: +%.1f %%" % (label, v))
        svg.text(left + max(v, 0) * scale + 6, y + row_h * 0.6, "+%.1f %%" % v)
        y += row_h
    svg.line(left, 45, left, y + 4)
    if goal is not None:
        gx = left + goal * 100 * scale
        svg.line(gx, 45, gx, y + 4, stroke="#c0392b", dash="4,3")
        svg.text(gx, y + 20, "dtl's goal: +%g %%" % (goal * 100), anchor="middle", fill="#c0392b")
    svg.save(path)


def plot_lines(points, path, title, xlabel, ylabel, flat=None, notes=None):
    """Points joined by a line, each with its value; optionally a flat
    reference line at @flat (the one-session overhead)."""
    width, height = 700, 380
    left, right, top, bottom = 70, 30, 50, 60
    xs = [x for x, _ in points]
    ymax = max([y for _, y in points] + [flat or 0]) * 1.15 or 1
    svg = Svg(width, height, title)

    def px(x):
        i = xs.index(x)
        return left + (width - left - right) * (i + 0.5) / len(xs)

    def py(y):
        return height - bottom - (height - top - bottom) * y / ymax

    svg.line(left, top, left, height - bottom)
    svg.line(left, height - bottom, width - right, height - bottom)
    for k in range(5):
        v = ymax * k / 4
        svg.text(left - 6, py(v) + 4, "%.0f" % v, size=11, anchor="end")
    svg.text(18, top - 12, ylabel, size=11)
    svg.text((left + width - right) / 2, height - 18, xlabel, anchor="middle", size=11)
    if flat is not None:
        svg.line(left, py(flat), width - right, py(flat), stroke="#27ae60", dash="6,4")
        svg.text(width - right, py(flat) - 6, "flat: one session's overhead", size=11,
                 anchor="end", fill="#27ae60")
    pts = [(px(x), py(y)) for x, y in points]
    svg.polyline(pts, "#2a7ab9", "series")
    for (x, y), (cx, cy) in zip(points, pts):
        note = notes.get(x, "") if notes else ""
        svg.circle(cx, cy, "#2a7ab9", "%s: %.1f %s" % (x, y, note))
        svg.text(cx, cy - 10, "%.1f %%%s" % (y, note), size=11, anchor="middle")
        svg.text(cx, height - bottom + 16, str(x), size=11, anchor="middle")
    svg.save(path)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot.py BENCH.TXT OUTDIR")
    with open(sys.argv[1]) as f:
        lines = f.read().splitlines()
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    written = []
    rows = p1_rows(lines)
    if rows:
        plot_p1(rows, p1_goal(lines), os.path.join(out, "p1.svg"))
        written.append("p1.svg")
    sess = session_rows(lines)
    if sess:
        one = (sess[0][1] - 1) * 100
        plot_lines([(n, (r - 1) * 100) for n, r, _ in sess], os.path.join(out, "sessions.svg"),
                   "P1: dtl's overhead with N sessions recording all CPUs at once",
                   "sessions", "overhead per round trip, %", flat=one,
                   notes={n: (", %d lost" % lost if lost else "") for n, _, lost in sess})
        written.append("sessions.svg")
    vc = vcpu_rows(lines)
    if vc:
        plot_lines(vc, os.path.join(out, "vcpus.svg"),
                   "P1 by vCPUs: dtl's overhead per round trip", "vCPUs",
                   "overhead per round trip, %")
        written.append("vcpus.svg")
    if not written:
        sys.exit("plot.py: no P1 table in %s" % sys.argv[1])
    print("plots: " + " ".join(os.path.join(out, w) for w in written))


if __name__ == "__main__":
    main()
