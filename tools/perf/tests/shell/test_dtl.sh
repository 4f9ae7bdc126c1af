#!/bin/sh
# dtl dispatch trace log: record, decode, interleave, loss, pipe mode
# SPDX-License-Identifier: GPL-2.0-only
#
# Records the dtl trace event with sched:sched_switch and checks what perf
# makes of it.  Exit 0 pass, 1 fail, 2 skip (no dtl PMU).

skip() {
	echo "skip: $1"
	exit 2
}

[ -d /sys/bus/event_source/devices/dtl ] || skip "no dtl PMU (load dtl_pmu)"
perf list 2>/dev/null | grep -q 'dtl/all/' || skip "perf does not list dtl/all/"

tmp=$(mktemp -d /tmp/perf_test_dtl.XXXXXX)
cleanup() {
	rm -rf "$tmp"
	trap - EXIT TERM INT
}
trap 'cleanup; exit 1' TERM INT
trap cleanup EXIT

err=0
fail() {
	echo "FAIL: $1"
	err=1
}

# Ten sleeps: each blocks, is woken and dispatched.
cat >"$tmp/workload" <<'WL'
for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.01; done
WL

# 1. Record with a tracepoint, decode, merge in time order.
echo "record: dtl/all/ + sched:sched_switch"
if ! perf record -q -o "$tmp/data" -e dtl/all/ -e sched:sched_switch -a \
	-- sh "$tmp/workload" 2>"$tmp/rec.err"; then
	cat "$tmp/rec.err"
	fail "perf record -e dtl/all/"
fi
perf script -i "$tmp/data" -F comm,tid,cpu,time,event,synth,trace \
	>"$tmp/script" 2>"$tmp/script.err" || fail "perf script"
ndtl=$(grep -c ' dtl: ' "$tmp/script")
nsw=$(grep -c 'sched:sched_switch:' "$tmp/script")
nblock=$(grep -c ' dtl: *block ' "$tmp/script")
echo "script: $ndtl dtl records, $nblock block records, $nsw sched_switch events"
[ "$ndtl" -ge 20 ] || fail "too few dtl records ($ndtl)"
[ "$nblock" -ge 10 ] || fail "too few block records ($nblock): the sleeps block"
# Every record names both tasks and carries its fields.
grep ' dtl: *block ' "$tmp/script" | head -1 |
	grep -Eq 'seq=[0-9]+ .*:[0-9]+/[0-9]+ ran=[0-9]+ steal=[0-9]+ => .*:[0-9]+/[0-9]+ wait=[0-9]+ blocked=' ||
	fail "a block record lacks fields"
grep -q ' dtl: .* => sleep:' "$tmp/script" || fail "no dispatch of a task named sleep"
# Merged in time order: the time column never goes back.
awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0;
	if (t < last) { bad = 1 } last = t; break } } END { exit bad }' "$tmp/script" ||
	fail "perf script output is not in time order"
# Each switch is one sched_switch event and one dtl record (the two events
# start and stop a little apart: allow 10 % and a few).
nswitch=$(grep ' dtl: ' "$tmp/script" | grep -Evc ' dtl: *(migrate|lost) ')
if [ $((nswitch * 10)) -lt $((nsw * 9 - 50)) ] || [ $((nswitch * 9)) -gt $((nsw * 10 + 50)) ]; then
	fail "$nswitch switch records vs $nsw sched_switch events"
fi

# 2. perf report -D dumps raw records.
perf report -D -i "$tmp/data" 2>/dev/null | grep -q '\. \.\.\. DTL data: size' ||
	fail "perf report -D shows no DTL data"

# 3. Pipe mode.
perf record -q -o - -e dtl/all/ -a -- sh "$tmp/workload" 2>/dev/null |
	perf script -i - -F event,synth >"$tmp/pipe" 2>/dev/null
npipe=$(grep -c 'dtl: ' "$tmp/pipe")
echo "pipe mode: $npipe dtl records"
[ "$npipe" -ge 20 ] || fail "pipe mode decoded $npipe records"

# 4. Loss: a 2-page AUX buffer (127 records) drained once a second, under
# 4000 context switches on CPU 0, loses records; perf shows LOST records
# and counts them per CPU.
perf record -q -o "$tmp/lost" -m 64,2 -c 1000000000 -e dtl/all/ -C 0 \
	-- taskset -c 0 perf bench sched pipe -l 2000 >/dev/null 2>&1
perf script -i "$tmp/lost" -F event,synth >"$tmp/lost.script" 2>"$tmp/lost.err"
nlost=$(grep -c ' lost seq=' "$tmp/lost.script")
echo "loss: $nlost LOST records; $(grep 'records lost' "$tmp/lost.err")"
[ "$nlost" -ge 1 ] || fail "no LOST record with a 2-page AUX buffer"
grep -q 'dtl: cpu 0: [0-9]* records lost' "$tmp/lost.err" ||
	fail "perf script did not report the lost records of cpu 0"

# 5. Snapshot mode: the kernel overwrites the AUX buffer; perf takes a
# snapshot on each SIGUSR2 and on exit (-Se).  Snapshots overlap: the
# decoder drops the records it has seen, so each CPU's sequence numbers
# still only increase.
perf record -q -o "$tmp/snap" -Se -e dtl/all/ -a -- sh "$tmp/workload" 2>"$tmp/snap.err" ||
	fail "perf record -Se: $(cat "$tmp/snap.err")"
perf script -i "$tmp/snap" -F cpu,event,synth >"$tmp/snap.script" 2>"$tmp/snap.serr"
nsnap=$(grep -c 'dtl: ' "$tmp/snap.script")
echo "snapshot on exit: $nsnap dtl records"
[ "$nsnap" -ge 10 ] || fail "snapshot on exit decoded $nsnap records"
perf record -v -o "$tmp/snap2" -S -e dtl/all/ -a -- sleep 5 >/dev/null 2>"$tmp/snap2.rec" &
rec=$!
# perf ignores a SIGUSR2 that comes before it arms its snapshot trigger,
# or while it is still writing the last snapshot, and one that comes before
# it has set up its handler kills it: wait until its trace events are in
# dtl's busy file, then send SIGUSR2 until perf says it took snapshot $1.
snapshot() {
	j=0
	while [ "$(grep -c 'Recording AUX area tracing snapshot' "$tmp/snap2.rec")" -lt "$1" ] &&
	      [ $j -lt 50 ]; do
		kill -USR2 $rec
		sleep 0.1
		j=$((j + 1))
	done
}
i=0
while ! grep -q "tracing pid=$rec " /sys/bus/event_source/devices/dtl/busy && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 0.5
snapshot 1
sh "$tmp/workload"
snapshot 2
kill -INT $rec
wait $rec
perf script -i "$tmp/snap2" -F cpu,event,synth >"$tmp/snap2.script" 2>"$tmp/snap2.err"
nsnap2=$(grep -c 'dtl: ' "$tmp/snap2.script")
echo "two snapshots: $nsnap2 dtl records"
[ "$nsnap2" -ge 10 ] || fail "two snapshots decoded $nsnap2 records"
grep -q corrupt "$tmp/snap.serr" "$tmp/snap2.err" && fail "snapshots decode with corrupt records"
for c in $(sed -n 's/^\[\([0-9]*\)\].*/\1/p' "$tmp/snap2.script" | sort -u); do
	grep "^\[$c\] *dtl: " "$tmp/snap2.script" | grep -v ' lost seq=' |
		sed -n 's/.* seq=\([0-9]*\).*/\1/p' |
		awk 'NR > 1 && $1 <= last { bad = 1 } { last = $1 } END { exit bad }' ||
		fail "cpu $c: sequence numbers repeat or go back across snapshots"
done

# 6. Bad input gets a clear message.
perf record -o "$tmp/bad" -e dtl/dispatches/ -a -- true 2>"$tmp/bad.err" &&
	fail "perf record accepted a counting event"
grep -q 'counting event' "$tmp/bad.err" || fail "no message for a counting event: $(cat "$tmp/bad.err")"
perf record -o "$tmp/bad" -F 100 -e dtl/all/ -a -- true 2>"$tmp/bad.err" &&
	fail "perf record accepted -F for dtl"
grep -q 'use -c' "$tmp/bad.err" || fail "no message for -F: $(cat "$tmp/bad.err")"

# 7. The runqlat-style histogram dlfilter.
dlf=${DTL_DLFILTER:-$(perf --exec-path)/dlfilters/dlfilter-dtl-runqlat.so}
if [ -f "$dlf" ]; then
	perf script -i "$tmp/data" --dlfilter "$dlf" >"$tmp/hist" 2>&1 ||
		fail "perf script --dlfilter $dlf"
	grep -q '^tid = [0-9]* sleep: [0-9]* dispatches' "$tmp/hist" ||
		fail "no histogram for the sleep tasks: $(head -20 "$tmp/hist")"
	grep -q ' dtl: ' "$tmp/hist" && fail "the dlfilter let records through"
else
	fail "dlfilter $dlf not found"
fi

# 8. "perf record -- cmd": an inherited per-task event on every CPU.  The
# workload's threads and processes ping-pong on two CPUs, park, and print
# what the scheduler counted of each while parked; every switch-out and
# dispatch of each up to then is in the recording once.  300 ms later the
# workers are released (a gap of 200 ms or more before a worker's next
# dispatch) and exit; from do_exit() on a task has no events, so what
# follows the release is not compared.
wl=${DTL_WORKLOAD:-$(dirname "$0")/../dtl/dtl_workload}
if [ -x "$wl" ]; then
	perf record -q -o "$tmp/wl" -e dtl/all/ -- "$wl" 300 >"$tmp/wl.out" 2>"$tmp/wl.err" ||
		fail "perf record -- dtl_workload: $(cat "$tmp/wl.err")"
	perf script -i "$tmp/wl" -F time,synth >"$tmp/wl.script" 2>"$tmp/wl.serr" ||
		fail "perf script of perf record -- cmd"
	grep -q 'records lost' "$tmp/wl.serr" && fail "perf record -- cmd lost records: $(cat "$tmp/wl.serr")"
	[ "$(grep -c '^task ' "$tmp/wl.out")" = 4 ] || fail "dtl_workload printed no counts: $(cat "$tmp/wl.out")"
	while read -r _ _ tid n; do
		# switch-outs and dispatches of $tid until its release
		counts=$(awk -v t="/$tid " '
			done || $2 == "migrate" || $2 == "lost" { next }
			{ tm = $1 + 0; p = index($4 " ", t); q = index($(NF - 2) " ", t) }
			q && seen && tm - last >= 0.2 { done = 1; next }
			p && ($2 == "preempt" || $2 == "block") { out++ }
			q { inn++ }
			p || q { seen = 1; last = tm }
			END { print out + 0, inn + 0 }' "$tmp/wl.script")
		out=${counts% *}
		in=${counts#* }
		echo "perf record -- cmd: task $tid: $out switch-outs, $in dispatches recorded; the scheduler counted $n switch-outs"
		[ "$out" = "$n" ] && [ "$in" = "$n" ] ||
			fail "task $tid: $out switch-outs and $in dispatches recorded for $n switch-outs"
	done <"$tmp/wl.out"
else
	echo "perf record -- cmd: skipped, no dtl_workload (set DTL_WORKLOAD)"
fi

# 9. Attached to a running task: -p (all its threads) and -t (one).  The
# task waits on a FIFO until perf record runs the command, which lets it
# go; it blocks 20 times in sleeps and waits on a second FIFO, and the
# command ends when it is there.  Its switch-outs, counted by the
# scheduler while it waits on either FIFO, are all in the recording.
for how in -p -t; do
	rm -f "$tmp/go" "$tmp/park" "$tmp/done"
	mkfifo "$tmp/go" "$tmp/park"
	sh -c "read x <'$tmp/go'; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do sleep 0.01; done; touch '$tmp/done'; read x <'$tmp/park'" &
	task=$!
	while ! grep -q -e wait_for_partner -e fifo "/proc/$task/wchan" 2>/dev/null; do sleep 0.05; done
	before=$(awk '/^(non)?voluntary_ctxt_switches/ { s += $2 } END { print s }' /proc/$task/status)
	perf record -q -o "$tmp/att" -e dtl/all/ $how $task -- \
		sh -c "echo >'$tmp/go'; while [ ! -e '$tmp/done' ]; do sleep 0.05; done
		       while ! grep -q -e wait_for_partner -e fifo /proc/$task/wchan; do sleep 0.05; done" 2>"$tmp/att.err" ||
		fail "perf record $how: $(cat "$tmp/att.err")"
	after=$(awk '/^(non)?voluntary_ctxt_switches/ { s += $2 } END { print s }' /proc/$task/status)
	echo >"$tmp/park"
	wait $task
	out=$(perf script -i "$tmp/att" -F synth 2>/dev/null |
		awk -v t="/$task " '($1 == "preempt" || $1 == "block") && index($3 " ", t) { c++ } END { print c + 0 }')
	echo "perf record $how: $out switch-outs of $task recorded, $((after - before)) counted"
	[ "$out" = $((after - before)) ] && [ "$out" -ge 20 ] ||
		fail "perf record $how $task: $out switch-outs recorded for $((after - before))"
done

# 10. Records carry perf's clock: -k is refused with a reason.
perf record -o "$tmp/bad" -k mono -e dtl/all/ -a -- true 2>"$tmp/bad.err" &&
	fail "perf record accepted -k for dtl"
grep -q 'dtl: .*clock' "$tmp/bad.err" || fail "no message for -k: $(cat "$tmp/bad.err")"

[ $err = 0 ] && echo "test_dtl: all checks passed"
exit $err
