#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the guest test scripts: run test programs, print their TAP, and
# after each one a line "DTL-RESULT <name> <pass> <fail> <skip>" for the host.
# The host holds each script to the suites testbed/guest/suites.txt lists
# for it (testbed/results.sh), and to its last line "DTL-SCRIPT <script>
# 0", which the script prints only when it ran to its end: a shell that
# dies on the way reports its status instead, or nothing (killed), and
# either fails the run.  testbed/harness-test.sh runs these functions on
# the host over made-up test output.
cd "${DTL_TESTS_DIR:-/dtl/tests}" || exit 1
out=${DTL_TEST_OUT:-/tmp/dtl-test.out}
dtl_script=${dtl_script:-${0##*/}}
trap 'echo "DTL-SCRIPT $dtl_script $?"' EXIT

totals() {
	sed -n 's/^# Totals: pass:\([0-9]*\) fail:\([0-9]*\) xfail:[0-9]* xpass:[0-9]* skip:\([0-9]*\) error:\([0-9]*\).*/\1 \2 \3 \4/p' "$out" | tail -1
}

# limited NAME SECS CMD...: CMD under timeout(1), its output in $out, its
# exit status in $rc.  A task in an uninterruptible sleep does not die of
# timeout's signal, and timeout then waits for it for ever, until the host
# kills the guest: 30 s after SECS, a watchdog prints why (hang_report).
limited() {
	lname=$1 lsecs=$2
	shift 2
	timeout "$lsecs" "$@" >"$out" 2>&1 &
	lpid=$!
	(sleep $((lsecs + 30)) &
	 spid=$!
	 trap 'kill $spid 2>/dev/null; exit 0' TERM
	 wait $spid
	 kill -0 $lpid 2>/dev/null || exit 0
	 hang_report "$lname" "$lsecs") &
	lwatch=$!
	wait $lpid
	rc=$?
	kill $lwatch 2>/dev/null
	wait $lwatch 2>/dev/null
}

# hang_report NAME SECS: lines "DTL-HANG ..." for the host (check.sh shows
# them first): each task that is running or in an uninterruptible sleep,
# with its kernel stack, then what the test printed last.  The kernel's
# blocked tasks and each CPU's stack go to the console (sysrq w and l).
# Shell builtins first: a hang may keep fork() from returning.
hang_report() {
	echo "DTL-HANG $1: still running 30 s after its $2 s limit"
	echo w >/proc/sysrq-trigger
	echo l >/proc/sysrq-trigger
	read -r me _ </proc/self/stat
	for d in /proc/[0-9]*; do
		[ "${d#/proc/}" != "$me" ] || continue
		read -r st 2>/dev/null <"$d/stat" || continue
		s=${st##*) }
		s=${s%% *}
		case $s in D | R) ;; *) continue ;; esac
		echo "DTL-HANG ${st%%) *}) state $s:"
		n=0
		while [ $n -lt 12 ] && read -r f; do
			echo "DTL-HANG   $f"
			n=$((n + 1))
		done 2>/dev/null <"$d/stack"
	done
	tail -n 20 "$out" | sed 's/^/DTL-HANG out: /'
}

# skipped_after_failure: the tests in $out that failed an EXPECT or
# ASSERT and then reported a skip, one per line.  kselftest_harness.h's
# SKIP() sets the exit code to KSFT_SKIP whatever came before, so a test
# that skips after a failed EXPECT would hide the failure.
skipped_after_failure() {
	awk '/^# +RUN / { failed = 0 }
	     /:Expected / { failed = 1 }
	     /^ok [0-9]+ .* # SKIP/ && failed { print }
	     /^(not )?ok [0-9]+ / { failed = 0 }' "$out"
}

# run NAME TIMEOUT CMD...: a program of ours; its TAP totals are the result.
# A program that prints no totals (it crashed or hung), that ran no test
# (a filter that matches nothing: "1..0"), that exits non-zero with no
# failed test, or whose test skipped after a failed assertion, fails.
run() {
	name=$1 limit=$2
	shift 2
	echo "# ==== $name"
	limited "$name" "$limit" "$@"
	cat "$out"
	skipped_after_failure | sed "s/^/# $name: /; s/\$/ (after a failed assertion: counted as a failure)/"
	saf=$(skipped_after_failure | wc -l)
	set -- $(totals)
	if [ $# -ne 4 ]; then
		echo "# $name: no TAP totals (exit status $rc): counted as one failure"
		echo "DTL-RESULT $name 0 1 0"
	elif [ $(($1 + $2 + $3 + $4)) = 0 ]; then
		echo "# $name: no test ran (exit status $rc): counted as one failure"
		echo "DTL-RESULT $name 0 1 0"
	elif [ $rc -ne 0 ] && [ "$2" = 0 ] && [ "$saf" = 0 ]; then
		echo "# $name: exit status $rc with no failed test: counted as one failure"
		echo "DTL-RESULT $name $1 1 $3"
	else
		echo "DTL-RESULT $name $1 $(($2 + $4 + saf)) $(($3 - saf))"
	fi
}

# perf_shell NAME [SECS]: a perf shell test (tools/perf/tests/shell), run
# with perf-dtl as "perf" for at most SECS (300) seconds; exit 0 pass,
# 2 skip, else fail.
perf_shell() {
	name=$1
	secs=${2:-300}
	echo "# ==== perf shell test $name (perf-dtl)"
	if ! command -v perf-dtl >/dev/null; then
		result "perf/$name" 0 0 1 "no perf-dtl in this guest (perf 7.3 with dtl's decoder is built for x86_64 only)"
		return
	fi
	limited "perf/$name" "$secs" env PATH="/usr/lib/perf-dtl/bin:$PATH" sh "perf/$name.sh"
	cat "$out"
	case $rc in
	0) echo "ok 1 perf/$name"; echo "DTL-RESULT perf/$name 1 0 0" ;;
	2) echo "ok 1 perf/$name # SKIP $(tail -1 "$out")"; echo "DTL-RESULT perf/$name 0 0 1" ;;
	*) echo "not ok 1 perf/$name (exit $rc)"; echo "DTL-RESULT perf/$name 0 1 0" ;;
	esac
}

# stock NAME [RESULT TESTS WHY]: a stock perf_events selftest; it passes
# when its totals are the ones recorded in expected-perf_events.txt.  A
# known failure of this guest, where given, is a skip that says WHY: the
# totals RESULT ("pass fail skip") with only tests whose names match the
# extended regular expression TESTS failed.  Any other result fails, a
# hang included.
stock() {
	name=$1 alt=${2:-} alttest=${3:-} why=${4:-}
	echo "# ==== stock perf_events/$name"
	(cd perf_events && timeout 120 "./$name") >"$out" 2>&1
	# Indented, so that a subtest failing as recorded (remove_on_exec on
	# a kernel without hardware events) is not read as a "not ok" line.
	grep -E '^(not )?ok|# SKIP|^# Totals|Expected|terminated by timeout' "$out" |
		sed 's/^/#   /'
	set -- $(totals)
	got="$(uname -m) $name ${1:-?} ${2:-?} ${3:-?}"
	want=$(grep "^$(uname -m) $name " expected-perf_events.txt)
	# Subtests that failed only by the harness's fixed 30 s limit, on a
	# kernel slow enough for it (the debug kernel's stress tests).
	tmo=$(grep -c 'Test terminated by timeout' "$out")
	# The failed tests other than the known flake's.
	others=$(grep '^not ok ' "$out" | grep -cEv "^not ok [0-9]+ [^ ]*($alttest)\$")
	set -- $want
	if [ "$got" = "$want" ]; then
		echo "ok 1 stock perf_events/$name as recorded (pass fail skip: ${got#* * })"
		echo "DTL-RESULT stock/$name 1 0 0"
	elif [ "$tmo" -gt 0 ] && [ $# = 5 ] &&
	     [ "$got" = "$1 $2 $(($3 - tmo)) $(($4 + tmo)) $5" ]; then
		echo "ok 1 stock perf_events/$name # SKIP $tmo subtest(s) hit the harness's fixed 30 s timeout on this kernel, the rest as recorded"
		echo "DTL-RESULT stock/$name 0 0 1"
	elif [ -n "$alt" ] && [ "$got" = "$(uname -m) $name $alt" ] && [ "$others" = 0 ]; then
		echo "ok 1 stock perf_events/$name # SKIP got '$got', recorded '$want': $why"
		echo "DTL-RESULT stock/$name 0 0 1"
	else
		echo "not ok 1 stock perf_events/$name: got '$got', recorded '$want'"
		echo "DTL-RESULT stock/$name 0 1 0"
	fi
}

# hw_event EVENT: perf can count the hardware event EVENT here ("cycles",
# "instructions"): TCG's x86_64 has no PMU; arm64's counts cycles, and
# instructions only with -icount shift=0.
hw_event() {
	perf stat -x, -e "$1:u" true 2>&1 | grep -q "^[0-9][0-9]*,[^,]*,$1"
}

# result NAME PASS FAIL SKIP REASON: a check done by the script itself.
result() {
	if [ "$3" != 0 ]; then
		echo "not ok 1 $1 # $5"
	elif [ "$4" != 0 ]; then
		echo "ok 1 $1 # SKIP $5"
	else
		echo "ok 1 $1 # $5"
	fi
	echo "DTL-RESULT $1 $2 $3 $4"
}
