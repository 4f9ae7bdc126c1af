#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build the guest's test programs: dtl's selftests and the stock
# selftests/perf_events, in a staging copy of the 6.12 tree with the repo's
# files laid over it.  Output: $DTL_CACHE/build/tests, which the guest sees
# as /dtl/tests.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree=$DTL_CACHE/tree-$DTL_KREL
hdr=$DTL_CACHE/build/uapi-$DTL_KREL
out=$DTL_CACHE/build/tests

# A hard-linked copy of the source: cheap, and rsync below replaces files
# (new inode) rather than writing through the links into the pristine tree.
if [ ! -f "$tree/Makefile" ]; then
	cp -al "$DTL_SRC" "$tree.tmp"
	mv "$tree.tmp" "$tree"
fi
"$DTL_TOP/testbed/overlay.sh" "$tree"

if [ ! -f "$hdr/usr/include/linux/perf_event.h" ]; then
	say "installing 6.12 uapi headers"
	make -s -C "$DTL_SRC" O="$hdr" headers >/dev/null
fi

mkdir -p "$out/kselftest" "$out/dtl" "$out/perf_events" "$out/perf"
for t in dtl perf_events; do
	make -s -C "$tree/tools/testing/selftests/$t" OUTPUT="$out/$t" \
		KHDR_INCLUDES="-isystem $hdr/usr/include" >/dev/null
done
cp "$tree"/tools/testing/selftests/dtl/*.sh "$tree/tools/testing/selftests/dtl/settings" \
	"$out/dtl/"
cp "$tree/tools/testing/selftests/kselftest/ktap_helpers.sh" "$out/kselftest/"
cp "$tree"/tools/perf/tests/shell/test_dtl.sh "$out/perf/"
# The self-read example, with libperf built in the staging tree.
make -s -C "$tree/tools/dtl" BUILD="$out/" >/dev/null
cp "$DTL_TOP"/testbed/guest/*.sh "$out/"
cp "$DTL_TOP/testbed/expected-perf_events.txt" "$out/"
