# SPDX-License-Identifier: GPL-2.0-only
# dtl-events.py: print the records of the dtl PMU's dispatch trace log,
# and at the end how long each task waited for a CPU.
#
# Usage:
#	perf record -e dtl/all/ -a -- sleep 1
#	perf script -s $(perf --exec-path)/scripts/python/dtl-events.py
#
# Each record is printed with its CPU, time and fields, as "perf script -F
# cpu,time,synth" prints them, the tasks' names included (samples written
# by an older perf carry no names: then pid/tid only).  The summary lists,
# per task that
# got a CPU, under its name at its last dispatch, the number of
# dispatches, the total, mean and longest wait (ns), and the time of the
# longest.  See tools/perf/Documentation/perf-dtl.txt.

import struct
import sys

# struct perf_dtl_entry (include/uapi/linux/perf_dtl.h) after the u32 that
# follows the padding of struct perf_synth_dtl.
ENTRY = struct.Struct('=IQQIIIIQQQIBBH')
# Then the names of the outgoing and the incoming task, NUL-terminated.
COMMS = struct.Struct('16s16s')
KINDS = ('dispatch', 'preempt', 'block', 'exit', 'migrate', 'lost')
F_BLOCKED_UNKNOWN = 1 << 2
F_STEAL_SATURATED = 1 << 3

waits = {}	# (pid, tid) -> [count, total, max, time of max, comm]
unknown = 0


def comm_of(b):
	"""A name from the sample, '-' where perf did not know it."""
	if b'\0' not in b or b[0] == 0:
		return '-'
	return b.split(b'\0', 1)[0].decode('utf-8', 'replace')


def task(comms, i, pid, tid):
	if comms is None:
		return '%d/%d' % (pid, tid)
	return '%s:%d/%d' % (comm_of(comms[i]), pid, tid)


def record_line(sample, e, comms):
	(_, time, seq, prev_pid, prev_tid, next_pid, next_tid, wait, blocked,
	 ran, steal, kind, flags, cpu) = e
	head = '[%03d] %d.%09d: %8s seq=%d ' % (sample['cpu'], time // 10**9,
						 time % 10**9, KINDS[kind], seq)
	if kind == 5:
		return head + 'lost=%d lapped=%d' % (wait, blocked)
	if kind == 4:
		return head + '%s cpu %d -> %d' % (task(comms, 0, prev_pid, prev_tid),
						    next_pid, next_tid)
	return head + '%s ran=%d steal=%d%s => %s wait=%d blocked=%s' % (
		task(comms, 0, prev_pid, prev_tid), ran, steal,
		'+' if flags & F_STEAL_SATURATED else '',
		task(comms, 1, next_pid, next_tid),
		wait, '?' if flags & F_BLOCKED_UNKNOWN else blocked)


def process_event(param_dict):
	global unknown

	if param_dict['ev_name'] != 'dtl':
		return
	raw = param_dict['raw_buf']
	if len(raw) < ENTRY.size:
		return
	e = ENTRY.unpack_from(raw)
	kind = e[11]
	if kind >= len(KINDS):
		unknown += 1
		return
	comms = None
	if len(raw) >= ENTRY.size + COMMS.size:
		comms = COMMS.unpack_from(raw, ENTRY.size)
	sample = param_dict['sample']
	print(record_line(sample, e, comms))
	if kind in (4, 5):
		return
	key = (e[5], e[6])
	w = waits.setdefault(key, [0, 0, 0, 0, param_dict['comm']])
	# The task's name at its last dispatch (a child that exec()s has two).
	name = comm_of(comms[1]) if comms is not None else '-'
	if name != '-':
		w[4] = name
	w[0] += 1
	w[1] += e[7]
	if e[7] >= w[2]:
		w[2] = e[7]
		w[3] = e[1]


def trace_end():
	if unknown:
		print('%d records of an unknown kind skipped' % unknown, file=sys.stderr)
	print('\n%-16s %7s/%-7s %10s %14s %12s %12s %18s' % (
		'comm', 'pid', 'tid', 'dispatches', 'wait ns', 'mean ns',
		'max ns', 'at'))
	for (pid, tid), w in sorted(waits.items(), key=lambda kv: -kv[1][1]):
		print('%-16s %7d/%-7d %10d %14d %12d %12d %8d.%09d' % (
			w[4], pid, tid, w[0], w[1], w[1] // w[0], w[2],
			w[3] // 10**9, w[3] % 10**9))
