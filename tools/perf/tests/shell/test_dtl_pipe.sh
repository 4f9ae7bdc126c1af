#!/bin/sh
# dtl pipe mode: a million records from perf record -o - to perf script -i -
# SPDX-License-Identifier: GPL-2.0-only
#
# perf script reads a pipe once: each AUX buffer is decoded as it arrives,
# and nothing is dropped or read twice however long the recording.  A
# ping-pong on CPU 0 makes DTL_PIPE_SWITCHES (default 1000000) context
# switches; every CPU's records must be in the output once, in sequence,
# each gap in a CPU's sequence numbers reported by a LOST record of its
# size; at the default sizes there must be no gap.  Exit 0 pass, 1 fail,
# 2 skip (no dtl PMU).

[ -d /sys/bus/event_source/devices/dtl ] || { echo "skip: no dtl PMU"; exit 2; }

n=${DTL_PIPE_SWITCHES:-1000000}
tmp=$(mktemp -d /tmp/perf_test_dtl_pipe.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# perf record writes the pipe format to a file, so that a slow reader
# does not make it lose records; perf script reads it as a pipe.  The
# kernel's own count of the switches is the ctxt line of /proc/stat
# (perf bench sched pipe -l N makes 2N of them with perf 6.12's bench,
# about 1.8N with 7.3's).
ctxt0=$(awk '$1 == "ctxt" { print $2 }' /proc/stat)
perf record -q -o - -e dtl/all/ -a -- \
	taskset -c 0 perf bench sched pipe -l $((n / 2)) >"$tmp/pipe.data" 2>"$tmp/rec.err"
ctxt=$(($(awk '$1 == "ctxt" { print $2 }' /proc/stat) - ctxt0))
perf script -i - -F cpu,event,synth <"$tmp/pipe.data" 2>"$tmp/script.err" |
	awk '
	{ sub(/^\[/, ""); c = $1 + 0 }
	$2 != "dtl:" { next }
	{ for (i = 3; i <= NF; i++) if ($i ~ /^seq=/) { s = substr($i, 5) + 0; break } }
	$3 == "lost" {
		for (i = 4; i <= NF; i++) {
			if ($i ~ /^lost=/) gap[c] += substr($i, 6)
			if ($i ~ /^lapped=/) gap[c] += substr($i, 8)
		}
		losts++; next
	}
	{
		records++
		if ($3 != "migrate") switches++
		if (c in last && s != last[c] + 1 + gap[c]) {
			if (bad++ < 5)
				printf "cpu %d: seq %d after %d, %d reported lost\n",
				    c, s, last[c], gap[c]
		}
		last[c] = s; gap[c] = 0
	}
	END { printf "%d records, %d LOST records, %d out of sequence, %d switches\n",
		records, losts, bad, switches }' \
		>"$tmp/result"

cat "$tmp/result"
err=0
if grep -q . "$tmp/script.err"; then
	echo "perf script: $(head -5 "$tmp/script.err")"
	grep -q -e 'cannot read' -e corrupt -e 'error' "$tmp/script.err" && err=1
fi
read -r _ _ losts _ _ bad _ _ _ switches _ <"$tmp/result"
echo "the kernel counted $ctxt context switches while perf recorded"
# Every switch of the recording's window, which lies within the count's
# (perf's start and exit switch outside it: allow 1 % and 1000).
[ "${switches:-0}" -ge $((n * 4 / 5)) ] && [ $((switches + switches / 100 + 1000)) -ge "$ctxt" ] ||
	{ echo "FAIL: $switches switch records for $ctxt context switches"; err=1; }
[ "${bad:-1}" = 0 ] || { echo "FAIL: records out of sequence"; err=1; }
# The default AUX buffer (1 MiB per CPU) and poll interval keep up with
# the guest's peak switch rate: nothing is lost.
[ "${losts:-1}" = 0 ] || { echo "FAIL: $losts LOST records at the default sizes"; err=1; }
[ $err = 0 ] && echo "test_dtl_pipe: all checks passed"
exit $err
