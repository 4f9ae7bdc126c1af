# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash disable=SC2154
# How make check adds up results; sourced by testbed/check.sh, and by
# testbed/harness-test.sh, which feeds it made-up output.  The caller sets
# $summary (one line per result) and $failures (what failed, and why).

# result NAME PASS FAIL SKIP: one line of the summary.
result() {
	printf '%-36s pass %3d  fail %3d  skip %3d\n' "$1" "$2" "$3" "$4" >>"$summary"
}

# tap_results NAME STATUS OUTPUT: a stage that prints one TAP line per
# check ("ok ..." or "not ok ...") and exits non-zero on a failure.  A
# stage that exits non-zero without a "not ok" line (it died on the way),
# or that printed no TAP line at all, fails once more.
tap_results() {
	local name=$1 rc=$2 out=$3 p f
	p=$(grep -c '^ok ' <<<"$out")
	f=$(grep -c '^not ok ' <<<"$out")
	result "$name" "$p" "$f" 0
	grep '^not ok ' <<<"$out" | sed "s/^/## $name: /" >>"$failures"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		result "$name:exit" 0 1 0
		echo "## $name: exit status $rc with no \"not ok\" line" >>"$failures"
	elif [ $((p + f)) -eq 0 ]; then
		result "$name:empty" 0 1 0
		echo "## $name: no TAP line (exit status $rc)" >>"$failures"
	fi
}

# failed_detail NAME < guest log: for each guest test that failed, its
# failed assertions with the lines logged just before them, gathered for
# the end of the output (CI may show only the tail).
failed_detail() {
	awk -v suite="$1" '
	/^# ==== / { n = 0; next }
	/^DTL-RESULT / {
		if ($4 > 0) {
			print "## " suite ":" $2
			for (i = 0; i < n; i++)
				print buf[i]
		}
		n = 0
		next
	}
	{ hist[h++ % 4] = $0 }
	/:Expected |^not ok|Test terminated|after a failed assertion/ && n < 60 {
		if ($0 ~ /:Expected /)
			for (i = h - 4; i < h - 1; i++)
				if (i >= 0 && n < 60)
					buf[n++] = hist[i % 4]
		buf[n++] = $0
	}'
}

# plan_problems PLAN LOG SCRIPT...: what a guest's output lacks against
# the plan (testbed/guest/suites.txt) for the scripts it ran, one line
# each: a script that did not reach its end, a suite missing, reported
# twice, with another number of tests than planned, or not planned.
plan_problems() {
	local plan=$1 log=$2
	shift 2
	awk -v scripts=" $* " '
	FNR == NR {
		if ($0 ~ /^#/ || NF < 2 || index(scripts, " " $1 " ") == 0)
			next
		want[$2] = NF > 2 ? $3 : -1
		order[n++] = $2
		next
	}
	/^DTL-SCRIPT / { status[$2] = $3; next }
	/^DTL-RESULT / {
		seen[$2]++
		ran[$2] = $3 + $4 + $5
		if (!($2 in want))
			print "suite " $2 ": not in the plan (testbed/guest/suites.txt)"
	}
	END {
		k = split(scripts, s, " ")
		for (i = 1; i <= k; i++)
			if (!(s[i] in status))
				print "script " s[i] ": did not reach its end (no DTL-SCRIPT line)"
			else if (status[s[i]] != 0)
				print "script " s[i] ": ended with status " status[s[i]]
		for (i = 0; i < n; i++) {
			t = order[i]
			if (!seen[t])
				print "suite " t ": missing"
			else if (seen[t] > 1)
				print "suite " t ": reported " seen[t] " times"
			else if (want[t] >= 0 && ran[t] != want[t])
				print "suite " t ": ran " ran[t] " tests, the plan says " want[t]
		}
	}' "$plan" "$log"
}

# guest_results NAME VMRC SCRIPT...: the results of a guest suite, its
# output in $log, held to the plan for SCRIPT... (the guest scripts it
# ran: "check reliability" for all.sh).
guest_results() {
	local name=$1 vmrc=$2 problems
	shift 2
	while read -r _ test p f s; do
		result "$name:$test" "$p" "$f" "$s"
	done < <(grep '^DTL-RESULT ' "$log")
	failed_detail "$name" <"$log" >>"$failures"
	problems=$(plan_problems "$DTL_TOP/testbed/guest/suites.txt" "$log" "$@")
	if [ -n "$problems" ]; then
		echo "# $name: against the plan:"
		sed 's/^/#   /' <<<"$problems"
		result "$name:plan" 0 "$(wc -l <<<"$problems")" 0
		{ echo "## $name:plan"; cat <<<"$problems"; } >>"$failures"
	fi
	# A splat, a timeout or a dead guest fails the run on its own.
	if [ "$vmrc" -ne 0 ]; then
		result "$name:vm" 0 1 0
		{ echo "## $name:vm (exit $vmrc), the guest's last lines:"
		  grep '^# ==== ' "$log" | tail -n 1 |
			sed 's/^# ==== /# the last test it began: /'
		  grep '^DTL-HANG ' "$log" | head -n 14
		  grep '^DTL-SPLAT ' "$log" | head -n 16
		  tail -n 4 "$log"; } >>"$failures"
	fi
}
