#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build the guest's test programs: dtl's selftests and the stock
# selftests/perf_events, in a staging copy of the Linux 7.3 tree with the
# repo's files laid over it.  Output: $DTL_CACHE/build/tests, which the guest sees
# as /dtl/tests.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

hdr=$DTL_BUILD/uapi-$DTL_K73_REL
out=$DTL_BUILD/tests

tree=$(dtl_stage_tree)

karch=x86
[ "$DTL_ARCH" = arm64 ] && karch=arm64
if [ ! -f "$hdr/usr/include/linux/perf_event.h" ]; then
	say "installing Linux 7.3 uapi headers for $karch"
	make -s -C "$DTL_SRC73" O="$hdr" ARCH=$karch headers >/dev/null
fi

# Cross-built programs are static: the arm64 guest has only perf's
# libraries.
cc=gcc
[ -n "$DTL_CROSS" ] && cc="${DTL_CROSS}gcc -static"
mkdir -p "$out/kselftest" "$out/dtl" "$out/perf_events" "$out/perf"
for t in dtl perf_events; do
	make -s -C "$tree/tools/testing/selftests/$t" OUTPUT="$out/$t" CC="$cc" \
		KHDR_INCLUDES="-isystem $hdr/usr/include" >/dev/null
done
cp "$tree"/tools/testing/selftests/dtl/*.sh "$tree/tools/testing/selftests/dtl/settings" \
	"$out/dtl/"
cp "$tree/tools/testing/selftests/kselftest/ktap_helpers.sh" "$out/kselftest/"
cp "$tree"/tools/perf/tests/shell/test_dtl.sh "$tree"/tools/perf/tests/shell/test_dtl_pipe.sh \
	"$tree"/tools/perf/tests/shell/test_dtl_python.sh "$out/perf/"
# The self-read example, with libperf built in the staging tree (for the
# host's architecture only: that libperf is shared by the tree).
[ -z "$DTL_CROSS" ] && make -s -C "$tree/tools/dtl" BUILD="$out/" >/dev/null
cp "$DTL_TOP"/testbed/guest/*.sh "$out/"
cp "$DTL_TOP/testbed/expected-perf_events.txt" "$out/"
