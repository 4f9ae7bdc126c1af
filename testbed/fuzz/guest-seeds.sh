#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs in the guest (make-seeds.sh): the fuzzer's seeds, small dtl
# recordings of each shape perf reads -- CPU-wide, with a tracepoint,
# per-task, per-thread, with LOST records, a snapshot, pipe mode -- each
# printed as base64 between "SEED-BEGIN <name>" and "SEED-END".
set -e
cd /tmp
wl='for i in 1 2 3 4 5 6 7 8; do sleep 0.01; done'
rec() {
	perf-dtl record -q -m ,4 --no-buildid "$@"
}
# Each shape with the stream headers of today's kernels, in the compact
# format 2 (header-NAME.data) and, CPU-wide, in format 1
# (header-full-cpu.data).  The seeds recorded before headers, in format 1
# (NAME.data) and 2 (compact-NAME.data), stay as they are: perf still
# decodes those recordings.
p=header-
ev=dtl/all/
rec -o ${p}full-cpu.data -e dtl/all,full/ -a -- sh -c "$wl"
rec -o ${p}cpu.data -e $ev -a -- sh -c "$wl"
rec -o ${p}task.data -e $ev -- sh -c "$wl"
# perf record stopped while 1000 switches fill a 2-page buffer.
perf-dtl record -q -m 64,2 --no-buildid -o ${p}lost.data -e $ev -C 0 -- sh -c \
	'kill -STOP $PPID; taskset -c 0 perf-dtl bench sched pipe -l 500 >/dev/null; kill -CONT $PPID'
perf-dtl record -q -m ,2 --no-buildid -o ${p}snap.data -Se -e $ev -a -- sh -c "$wl"
rec -o - -e $ev -a -- sh -c "$wl" >${p}pipe.data
for f in *.data; do
	echo "SEED-BEGIN $f"
	base64 "$f"
	echo "SEED-END"
done
