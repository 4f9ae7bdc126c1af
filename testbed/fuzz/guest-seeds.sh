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
# Each shape in format 1 (dtl/all,full/: NAME.data) and in the compact
# format 2 (compact-NAME.data).
for fmt in full compact; do
	if [ $fmt = full ]; then
		p='' ev=dtl/all,full/
	else
		p=compact- ev=dtl/all/
	fi
	rec -o ${p}cpu.data -e $ev -a -- sh -c "$wl"
	rec -o ${p}sched.data -e sched:sched_switch -e $ev -a -- sh -c "$wl"
	rec -o ${p}task.data -e $ev -- sh -c "$wl"
	rec -o ${p}thread.data --per-thread -e $ev -- sh -c "$wl"
	# perf record stopped while 1000 switches fill a 2-page buffer.
	perf-dtl record -q -m 64,2 --no-buildid -o ${p}lost.data -e $ev -C 0 -- sh -c \
		'kill -STOP $PPID; taskset -c 0 perf-dtl bench sched pipe -l 500 >/dev/null; kill -CONT $PPID'
	perf-dtl record -q -m ,2 --no-buildid -o ${p}snap.data -Se -e $ev -a -- sh -c "$wl"
	rec -o - -e $ev -a -- sh -c "$wl" >${p}pipe.data
done
for f in *.data; do
	echo "SEED-BEGIN $f"
	base64 "$f"
	echo "SEED-END"
done
