#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check the timeline dlfilter's output for a recording, on the host.

usage: timeline-check.py PERF RECORDING DLFILTER OUTDIR

Writes OUTDIR/timeline.json and OUTDIR/timeline.svg with the dlfilter,
then checks that the JSON loads as the Chrome trace-event format, that
each run the records report (perf script) is a slice of its CPU's track
with the same start, duration and task, that a CPU's slices never
overlap, and that headless Chromium renders the SVG to a screenshot that
is not blank (OUTDIR/timeline.png).  Prints one line per check and exits
1 if any failed.
"""
import json
import os
import re
import struct
import subprocess
import sys
import zlib

CPUS_PID = 4194304
failed = 0


def check(ok, what):
    global failed
    print(('ok: ' if ok else 'FAIL: ') + what)
    failed += not ok


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB/RGBA PNG."""
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat, hdr = 8, b'', None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            hdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    w, h, depth, ctype = hdr[0], hdr[1], hdr[2], hdr[3]
    assert depth == 8 and ctype in (2, 6), 'PNG of depth %d, colour type %d' % (depth, ctype)
    bpp = 3 if ctype == 2 else 4
    raw, rows, prev = zlib.decompress(idat), [], bytearray(w * bpp)
    stride = w * bpp + 1
    for y in range(h):
        f, line = raw[y * stride], bytearray(raw[y * stride + 1:(y + 1) * stride])
        for x in range(len(line)):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 0xff
            elif f == 2:
                line[x] = (line[x] + b) & 0xff
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xff
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pr) & 0xff
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def rendered(svg, png, size):
    """Check that headless Chromium renders @svg to a screenshot @png of
    @size ("W,H") that is not blank: 8 colours at least, 1 % not white."""
    r = subprocess.run(['chromium', '--headless', '--no-sandbox', '--disable-gpu',
                        '--hide-scrollbars', '--screenshot=' + png, '--window-size=' + size,
                        'file://' + svg], capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, 'chromium --headless --screenshot: exit %d' % r.returncode)
    if r.returncode:
        return
    w, h, bpp, rows = png_pixels(png)
    colours, ink = set(), 0
    for row in rows:
        for x in range(0, w * bpp, bpp):
            px = row[x:x + 3]
            colours.add(px)
            ink += px != b'\xff\xff\xff'
    check(len(colours) >= 8 and ink >= w * h // 100,
          '%s: screenshot %dx%d: %d colours, %.1f %% not white' %
          (os.path.basename(svg), w, h, len(colours), 100.0 * ink / (w * h)))


def main():
    perf, rec, dlf, out = sys.argv[1:5]
    js, svg, png = out + '/timeline.json', out + '/timeline.svg', out + '/timeline.png'
    r = subprocess.run([perf, 'script', '-i', rec, '--dlfilter', dlf, '--dlarg', js,
                        '--dlarg', svg], capture_output=True, text=True)
    check(r.returncode == 0, 'perf script --dlfilter %s: %s' % (dlf, r.stderr.strip()))
    events = json.load(open(js))['traceEvents']
    check(len(events) > 0, '%d events in the JSON' % len(events))

    # The runs the records report: cpu, seq -> (tid, start, duration).
    want = {}
    txt = subprocess.run([perf, 'script', '--ns', '-i', rec, '-F', 'cpu,time,event,synth'],
                         capture_output=True, text=True).stdout
    for line in txt.splitlines():
        m = re.match(r'\[(\d+)\]\s+(\d+)\.(\d+):\s+dtl:\s+\w+ seq=(\d+) .*:\d+/(\d+) ran=(\d+) ',
                     line)
        if m and int(m.group(5)) and int(m.group(6)):
            t = int(m.group(2)) * 10**9 + int(m.group(3))
            ran = int(m.group(6))
            want[(int(m.group(1)), int(m.group(4)))] = (int(m.group(5)), t - ran, ran)
    got, slices = {}, {}
    for e in events:
        if e['ph'] != 'X' or e['pid'] != CPUS_PID:
            continue
        ts, dur = round(float(e['ts']) * 1000), round(float(e['dur']) * 1000)
        cpu, seq = e['args']['cpu'], e['args']['seq']
        check_tid = int(e['name'].rsplit(':', 1)[1])
        got[(cpu, seq)] = (check_tid, ts, dur)
        slices.setdefault(cpu, []).append((ts, ts + dur))
    check(len(want) > 0 and want == got,
          '%d runs in the records, %d CPU slices, all the same' % (len(want), len(got)))
    overlaps = sum(1 for s in slices.values() for a, b in zip(sorted(s), sorted(s)[1:])
                   if b[0] < a[1])
    check(overlaps == 0, '%d overlapping slices on a CPU' % overlaps)

    # Headless Chromium renders the SVG: not a blank page.
    rendered(svg, png, '1400,400')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
