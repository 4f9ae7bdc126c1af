#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Whole-path fuzzer of perf's dtl support.

Mutates the parts of dtl perf.data files (seeds) that dtl's code reads --
the AUX payloads, the AUXTRACE events' idx/tid/cpu, the AUXTRACE_INFO
private words, the PERF_RECORD_AUX flags -- and runs "perf script" and
"perf report" (built with ASan and UBSan) over each mutant.  The rest of
the file is left alone: perf's own parsing of a corrupt header is not
dtl's to fix.

A crash, a sanitizer report or a hang (10 s) is a failure; the mutant is
kept in the crashers directory, to be replayed by every later run before
any new mutant.

usage: perf_data_fuzz.py PERF SECONDS SEEDDIR CRASHDIR WORKDIR
Prints "perf.data fuzz: N runs in S s, M mutants, no failure" or the
failures, and exits 1 on a failure.
"""
import os
import random
import struct
import subprocess
import sys
import time

RECORD_AUX = 11
RECORD_AUXTRACE_INFO = 70
RECORD_AUXTRACE = 71

SUPP = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'ubsan.supp')
ENV = dict(os.environ,
           ASAN_OPTIONS='detect_leaks=0:abort_on_error=1:allocator_may_return_null=1',
           UBSAN_OPTIONS='print_stacktrace=1:halt_on_error=1:suppressions=' + SUPP,
           PERF_PAGER='cat')
COMMANDS = (
    ['script', '-F', 'comm,tid,cpu,time,event,synth'],
    ['report', '--stdio', '--sort', 'comm,pid,cpu'],
    ['script', '-D'],
)
INTERESTING = (0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0xffff, 0x7fffffff,
               0xffffffff, 1 << 63, (1 << 64) - 1)


def regions(data):
    """(offset, length, kind) of the bytes dtl's code reads."""
    if data[:8] != b'PERFILE2':
        raise ValueError('not a perf.data file')
    hsize = struct.unpack_from('<Q', data, 8)[0]
    if hsize == 16:		# pipe mode: events follow the header
        pos, end = 16, len(data)
    else:
        pos, size = struct.unpack_from('<QQ', data, 40)
        end = min(pos + size, len(data))
    out = []
    while pos + 8 <= end:
        typ, _misc, size = struct.unpack_from('<IHH', data, pos)
        if size < 8:
            break
        if typ == RECORD_AUXTRACE and pos + 48 <= end:
            aux = struct.unpack_from('<Q', data, pos + 8)[0]
            out.append((pos + 32, 12, 'idx/tid/cpu'))
            out.append((pos + size, aux, 'aux'))
            pos += size + aux
            continue
        if typ == RECORD_AUXTRACE_INFO and size > 16:
            out.append((pos + 16, size - 16, 'info'))
        elif typ == RECORD_AUX and size >= 32:
            out.append((pos + 24, 8, 'flags'))
        pos += size
    return [r for r in out if r[1] > 0 and r[0] + r[1] <= len(data)]


def mutate(data, regs, rng):
    buf = bytearray(data)
    for _ in range(rng.choice((1, 1, 2, 4, 8))):
        off, length, kind = rng.choice(regs)
        op = rng.randrange(5)
        if op == 0:		# flip a bit
            i = off + rng.randrange(length)
            buf[i] ^= 1 << rng.randrange(8)
        elif op == 1:		# a random byte
            buf[off + rng.randrange(length)] = rng.randrange(256)
        elif op in (2, 3) and length >= 8:	# an interesting aligned word
            width = rng.choice((2, 4, 8))
            i = off + rng.randrange(length // width) * width
            v = rng.choice(INTERESTING) & ((1 << (8 * width)) - 1)
            buf[i:i + width] = v.to_bytes(width, 'little')
        elif kind == 'aux' and length >= 128:	# swap two 64-byte records
            n = length // 64
            a, b = off + rng.randrange(n) * 64, off + rng.randrange(n) * 64
            buf[a:a + 64], buf[b:b + 64] = buf[b:b + 64], buf[a:a + 64]
        else:
            buf[off + rng.randrange(length)] = 0xff
    return bytes(buf)


def run(perf, path, cmd):
    """None if perf survived, else what went wrong."""
    args = [perf] + cmd + ['-i', path]
    try:
        p = subprocess.run(args, env=ENV, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=10)
    except subprocess.TimeoutExpired:
        return 'hang (10 s): perf ' + ' '.join(cmd)
    err = p.stderr.decode(errors='replace')
    for sign in ('ERROR: AddressSanitizer', 'runtime error:',
                 'ERROR: LeakSanitizer'):
        if sign in err:
            i = err.index(sign)
            return 'perf %s: %s' % (' '.join(cmd), err[max(0, i - 200):i + 1500])
    # perf exits with a negative errno (e.g. 234 for -EINVAL) when it
    # refuses a file: that is an answer.  Only a signal is a crash.
    if p.returncode < 0:
        return 'perf %s: killed by signal %d\n%s' % (' '.join(cmd),
                                                      -p.returncode, err[-1500:])
    return None


def main():
    perf, secs, seeddir, crashdir, workdir = sys.argv[1:6]
    secs = float(secs)
    os.makedirs(workdir, exist_ok=True)
    os.makedirs(crashdir, exist_ok=True)
    failures = 0
    runs = 0

    # Regression inputs first, then the seeds as they are: both clean.
    fixed = [os.path.join(crashdir, f) for f in sorted(os.listdir(crashdir))
             if f.endswith('.data')]
    seeds = [os.path.join(seeddir, f) for f in sorted(os.listdir(seeddir))
             if f.endswith('.data')]
    if not seeds:
        print('perf.data fuzz: no seeds in ' + seeddir)
        return 1
    for path in fixed + seeds:
        for cmd in COMMANDS:
            runs += 1
            why = run(perf, path, cmd)
            if why:
                failures += 1
                print('FAIL %s: %s' % (os.path.basename(path), why))

    pool = []
    for path in seeds:
        data = open(path, 'rb').read()
        regs = regions(data)
        if not any(r[2] == 'aux' for r in regs):
            print('perf.data fuzz: %s has no AUX data' % path)
            return 1
        pool.append((os.path.basename(path), data, regs))

    seed = int(os.environ.get('DTL_FUZZ_SEED', time.time()))
    print('perf.data fuzz: seed %d (DTL_FUZZ_SEED=%d makes the same mutants)'
          % (seed, seed), flush=True)
    rng = random.Random(seed)
    mutant = os.path.join(workdir, 'mutant.data')
    start = time.monotonic()
    mutants = 0
    while time.monotonic() - start < secs and failures < 5:
        name, data, regs = rng.choice(pool)
        with open(mutant, 'wb') as f:
            f.write(mutate(data, regs, rng))
        mutants += 1
        for cmd in COMMANDS:
            runs += 1
            why = run(perf, mutant, cmd)
            if why:
                failures += 1
                keep = os.path.join(crashdir, 'crash-%s-%d.data' % (
                    name[:-5], int(time.time() * 1000) % 10**9))
                os.replace(mutant, keep)
                print('FAIL mutant %d (of %s), kept as %s: %s'
                      % (mutants, name, keep, why))
                break
    took = time.monotonic() - start
    if failures:
        print('perf.data fuzz: %d failures in %d runs' % (failures, runs))
        return 1
    print('perf.data fuzz: %d runs in %.0f s, %d mutants of %d seeds, %d regression inputs, no failure'
          % (runs, took, mutants, len(pool), len(fixed)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
