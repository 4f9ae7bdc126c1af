#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build perf 6.12 from Debian's linux-source with dtl's decoder and patch
# (tools/perf/util/dtl.c, patches/perf/), lean enough for the guest.
# Incremental: a rebuild after a change in dtl.c takes seconds.
# Prints the path of the perf binary.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree=$DTL_CACHE/tree-$DTL_KREL
out=$DTL_CACHE/build/perf
if [ ! -f "$tree/Makefile" ]; then
	cp -al "$DTL_SRC" "$tree.tmp"
	mv "$tree.tmp" "$tree"
fi
"$DTL_TOP/testbed/overlay.sh" "$tree"
mkdir -p "$out"
# python3-config may be a pyenv shim here: build without Python and the
# other optional libraries the guest does not carry.
make -s -C "$tree/tools/perf" O="$out" -j"$(nproc)" \
	NO_LIBPYTHON=1 NO_LIBPERL=1 NO_LIBLLVM=1 NO_SLANG=1 NO_CAPSTONE=1 \
	NO_LIBBABELTRACE=1 NO_JVMTI=1 NO_GTK2=1 NO_LIBPFM4=1 NO_SDT=1 \
	NO_LIBTRACEEVENT= WERROR=1 >"$out/build.log" 2>&1 ||
	{ grep -E 'error|Error' -A3 "$out/build.log" | head -40; die "perf build failed (log: $out/build.log)"; }
echo "$out/perf"
