#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The harness's own tests: make check's ways of adding up results
# (testbed/guest/lib.sh in the guest, testbed/results.sh on the host), fed
# made-up output for each way a failure could be lost: a suite that
# crashed, ran nothing, skipped after a failed assertion, or went missing;
# a script or a stage that died on the way; a KUnit skip.  One TAP line
# per case; exits 1 if any failed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dtl-harness.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0
check() {	# check DESCRIPTION WANT GOT
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1: want '$2', got '$3'"
		bad=$((bad + 1))
	fi
}

# The guest's shell: busybox's, as in the guest, where the host has it.
gsh="sh"
command -v busybox >/dev/null && gsh="busybox sh"

# guest SCRIPT-BODY: run lines in the guest's shell with lib.sh sourced,
# in $tmp/tests (as /dtl/tests in the guest); prints what they print.
guest() {
	printf 'dtl_script=made-up\n. %s/testbed/guest/lib.sh\n%s\n' "$DTL_TOP" "$1" >"$tmp/script.sh"
	(cd "$tmp" && DTL_TESTS_DIR=$tmp/tests DTL_TEST_OUT=$tmp/test.out $gsh "$tmp/script.sh" 2>&1)
}
# result_of NAME: the "DTL-RESULT NAME ..." counts in $got.
result_of() {
	sed -n "s|^DTL-RESULT $1 ||p" <<<"$got"
}

mkdir -p "$tmp/tests"
totals='# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0'
# A kselftest program's output: NAME STATUS LINES...
prog() {
	local f=$tmp/tests/$1 rc=$2
	shift 2
	{ echo '#!/bin/sh'; echo "cat <<'EOF'"; printf '%s\n' "$@"; echo EOF
	  echo "exit $rc"; } >"$f"
	chmod +x "$f"
}

# 1. A passing suite counts its tests.
prog good 0 'TAP version 13' '1..3' '#  RUN           t.a ...' 'ok 1 t.a' \
	'#  RUN           t.b ...' 'ok 2 t.b' '#  RUN           t.c ...' \
	'#      SKIP      no CPU 3' 'ok 3 t.c # SKIP no CPU 3' "$(printf "$totals" 2 0 1)"
got=$(guest 'run good 10 ./good')
check "guest: a passing suite counts its tests" "2 0 1" "$(result_of good)"

# 2. A suite that crashes before its totals fails.
{ echo '#!/bin/sh'; echo "echo 'TAP version 13'; echo 1..3; echo 'ok 1 t.a'"
  echo 'kill -SEGV $$'; } >"$tmp/tests/crash"
chmod +x "$tmp/tests/crash"
got=$(guest 'run crash 10 ./crash')
check "guest: a suite that crashed before its totals fails" "0 1 0" "$(result_of crash)"

# 3. A filter that matches nothing: "1..0" and zero totals.
prog empty 0 'TAP version 13' '1..0' "$(printf "$totals" 0 0 0)"
got=$(guest 'run empty 10 ./empty')
check "guest: a suite that ran no test (1..0) fails" "0 1 0" "$(result_of empty)"

# 4. A SKIP() after a failed EXPECT: the harness reports a skip.
prog skipfail 0 'TAP version 13' '1..2' '#  RUN           t.a ...' 'ok 1 t.a' \
	'#  RUN           t.b ...' '# dtl_trace.c:99:b:Expected 5 (5) == n (4)' \
	'#      SKIP      could not wrap' '#            OK  t.b' 'ok 2 t.b # SKIP could not wrap' \
	"$(printf "$totals" 1 0 1)"
got=$(guest 'run skipfail 10 ./skipfail')
check "guest: a skip after a failed assertion fails" "1 1 0" "$(result_of skipfail)"
# ... and a skip before any assertion stays a skip.
check "guest: a skip with no failed assertion stays a skip" "2 0 1" \
	"$(guest 'run good 10 ./good' | sed -n 's/^DTL-RESULT good //p')"

# 5. A non-zero exit with no failed test.
prog exitrc 1 'TAP version 13' '1..1' 'ok 1 t.a' "$(printf "$totals" 1 0 0)"
got=$(guest 'run exitrc 10 ./exitrc')
check "guest: a non-zero exit with no failed test fails" "1 1 0" "$(result_of exitrc)"

# 6. A suite that hangs past its limit.
{ echo '#!/bin/sh'; echo "echo 'TAP version 13'; echo 1..1; sleep 30"; } >"$tmp/tests/hang"
chmod +x "$tmp/tests/hang"
got=$(guest 'run hang 1 ./hang')
check "guest: a suite that hangs past its limit fails" "0 1 0" "$(result_of hang)"

# 7. KUnit: a skipped case is a skip, not a pass; a failed suite fails.
cat >"$tmp/kunit.ktap" <<'EOF'
KTAP version 1
1..1
    KTAP version 1
    # Subtest: dtl
    1..3
    ok 1 dtl_test_a
    ok 2 dtl_test_b # SKIP this task has data in slot 1 already
    ok 3 dtl_test_c
ok 1 dtl
EOF
got=$(guest "$(sed -n '/^kunit_results()/,/^}/p' "$DTL_TOP/testbed/guest/reliability.sh")
kunit_results $tmp/kunit.ktap dtl")
check "guest: a KUnit case's skip counts as a skip" "2 0 1" "$(result_of kunit/dtl)"
sed -i 's/^    ok 3 dtl_test_c/    not ok 3 dtl_test_c/; s/^ok 1 dtl/not ok 1 dtl/' "$tmp/kunit.ktap"
got=$(guest "$(sed -n '/^kunit_results()/,/^}/p' "$DTL_TOP/testbed/guest/reliability.sh")
kunit_results $tmp/kunit.ktap dtl")
check "guest: a failed KUnit case fails" "1 2 1" "$(result_of kunit/dtl)"

# 8. A stock perf_events selftest: as recorded passes, otherwise fails; a
# known flake passes as a skip only with its own failing test.
{ echo 'x86_64 mmap 6 0 0'; echo 'aarch64 mmap 6 0 0'
  echo 'x86_64 sigtrap_threads 5 0 0'; echo 'aarch64 sigtrap_threads 5 0 0'; } \
	>"$tmp/tests/expected-perf_events.txt"
mkdir -p "$tmp/tests/perf_events"
stockprog() {	# NAME PASS FAIL FAILING-TEST
	{ echo '#!/bin/sh'; echo "echo 'TAP version 13'"
	  [ -z "$4" ] || echo "echo '#  RUN           $4 ...'; echo '# x.c:1:$4:Expected 0 (0) == r (1)'; echo 'not ok 1 $4'"
	  echo "printf '$totals\\n' $2 $3 0"; } >"$tmp/tests/perf_events/$1"
	chmod +x "$tmp/tests/perf_events/$1"
}
stockprog mmap 6 0 ''
got=$(guest 'stock mmap')
check "guest: a stock selftest as recorded passes" "1 0 0" "$(result_of stock/mmap)"
stockprog mmap 5 1 'mmap.aux'
got=$(guest 'stock mmap')
check "guest: a stock selftest with a new failure fails" "0 1 0" "$(result_of stock/mmap)"
stockprog sigtrap_threads 4 1 'sigtrap_threads.signal_stress_with_disable'
got=$(guest 'stock sigtrap_threads "4 1 0" signal_stress_with_disable "a known flake"')
check "guest: a known flake with its own failing test is a skip" "0 0 1" \
	"$(result_of stock/sigtrap_threads)"
stockprog sigtrap_threads 4 1 'sigtrap_threads.remain_disabled'
got=$(guest 'stock sigtrap_threads "4 1 0" signal_stress_with_disable "a known flake"')
check "guest: a flake's result with another failing test fails" "0 1 0" \
	"$(result_of stock/sigtrap_threads)"
{ echo '#!/bin/sh'; echo "echo 'TAP version 13'; exit 124"; } >"$tmp/tests/perf_events/sigtrap_threads"
got=$(guest 'stock sigtrap_threads "4 1 0" signal_stress_with_disable "a known flake"')
check "guest: a known flake's suite that hangs fails" "0 1 0" "$(result_of stock/sigtrap_threads)"

# 9. perf shell tests: exit 2 is a skip, anything else but 0 a failure.
mkdir -p "$tmp/tests/perf" "$tmp/bin"
printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/perf-dtl"
chmod +x "$tmp/bin/perf-dtl"
printf 'echo "no dtl PMU"\nexit 1\n' >"$tmp/tests/perf/t1.sh"
got=$(PATH=$tmp/bin:$PATH guest 'perf_shell t1 10')
check "guest: a perf shell test that exits 1 fails" "0 1 0" "$(result_of perf/t1)"

# 10. A guest script reports how it ended.
got=$(guest 'run good 10 ./good
exit 0')
check "guest: a script that ran to its end says so" "1" "$(grep -c '^DTL-SCRIPT made-up 0$' <<<"$got")"
got=$(guest 'run good 10 ./good
if then fi')
check "guest: a script that dies on a syntax error says so" "0" \
	"$(grep -c '^DTL-SCRIPT made-up 0$' <<<"$got")"

# The host side: testbed/results.sh.
. "$DTL_TOP/testbed/results.sh"
summary=$tmp/summary failures=$tmp/failures log=$tmp/log
# failed LOG-SETUP...: the number of failures results.sh counts.
fails() {
	awk '{ f += $5 } END { print f + 0 }' "$summary"
}
reset() {
	: >"$summary"
	: >"$failures"
}
cat >"$tmp/plan" <<'EOF'
# script suite [tests]
one a
one b 2
two c
EOF
complete='DTL-RESULT a 3 0 0
DTL-RESULT b 1 0 1
DTL-SCRIPT one 0
DTL-RESULT c 1 0 0
DTL-SCRIPT two 0'
check "host: a complete log has no problem against its plan" "" \
	"$(plan_problems "$tmp/plan" <(echo "$complete") one two)"
check "host: a missing suite is a problem" "suite b: missing" \
	"$(plan_problems "$tmp/plan" <(grep -v ' b ' <<<"$complete") one two)"
check "host: a suite reported twice is a problem" "suite a: reported 2 times" \
	"$(plan_problems "$tmp/plan" <(echo "$complete"; echo 'DTL-RESULT a 3 0 0') one two)"
check "host: a suite with fewer tests than planned is a problem" "suite b: ran 1 tests, the plan says 2" \
	"$(plan_problems "$tmp/plan" <(sed 's/^DTL-RESULT b 1 0 1/DTL-RESULT b 1 0 0/' <<<"$complete") one two)"
check "host: a suite not in the plan is a problem" \
	"suite z: not in the plan (testbed/guest/suites.txt)" \
	"$(plan_problems "$tmp/plan" <(echo "$complete"; echo 'DTL-RESULT z 1 0 0') one two)"
check "host: a script that did not reach its end is a problem" \
	"script two: did not reach its end (no DTL-SCRIPT line)" \
	"$(plan_problems "$tmp/plan" <(grep -v 'SCRIPT two' <<<"$complete") one two)"
check "host: a script that exited non-zero is a problem" "script one: ended with status 2" \
	"$(plan_problems "$tmp/plan" <(sed 's/SCRIPT one 0/SCRIPT one 2/' <<<"$complete") one two)"
check "host: a shell that died half way loses no suite" \
	"script one: did not reach its end (no DTL-SCRIPT line)
suite b: missing" \
	"$(plan_problems "$tmp/plan" <(head -1 <<<"$complete") one)"

# guest_results with the real plan: a log with every planned suite of
# check and reliability passes; one without the last suite fails.
awk '$1 == "check" || $1 == "reliability" { print "DTL-RESULT " $2 " 1 0 0" }' \
	"$DTL_TOP/testbed/guest/suites.txt" >"$log"
printf 'DTL-SCRIPT check 0\nDTL-SCRIPT reliability 0\n' >>"$log"
reset
guest_results g 0 check reliability >/dev/null
check "host: a guest log with every planned suite passes" "0" "$(fails)"
sed -i '/^DTL-RESULT dtl_cycle /d; /^DTL-SCRIPT reliability/d' "$log"
reset
guest_results g 0 check reliability >/dev/null
check "host: a guest whose shell died before its last suite fails" "2" "$(fails)"
reset
guest_results g 125 check reliability >/dev/null
check "host: a guest that stopped (exit 125) fails" "3" "$(fails)"

# Stages that print TAP.
reset
tap_results s 0 $'ok 1 - a\nok 2 - b'
check "host: a TAP stage that passed passes" "0" "$(fails)"
reset
tap_results s 1 $'ok 1 - a\nok 2 - b'
check "host: a TAP stage that exits non-zero with no \"not ok\" fails" "1" "$(fails)"
reset
tap_results s 0 'building...'
check "host: a TAP stage that printed no TAP line fails" "1" "$(fails)"
reset
tap_results s 1 $'ok 1 - a\nnot ok 2 - b'
check "host: a TAP stage's \"not ok\" fails once" "1" "$(fails)"

echo "1..$n"
echo "# harness: $((n - bad)) passed, $bad failed"
[ "$bad" = 0 ]
