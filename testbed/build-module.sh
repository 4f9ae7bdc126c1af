#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build dtl out of tree (Kbuild M=) against a kernel build tree, in a copy
# of the files it is built from, at their paths in the tree, under the
# cache (OUTDIR/src) so that the source tree stays clean; the modules are
# linked into OUTDIR.  testbed/module.Kbuild says what the copy adds.
# usage: build-module.sh [KDIR [OUTDIR]]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
kdir=${1:-$DTL_KHEADERS}
out=${2:-$DTL_BUILD/module}
src=$out/src
mkdir -p "$src"
files=(drivers/perf/dtl/ include/uapi/linux/perf_dtl.h compat/)
# -a keeps the files' times: make rebuilds only what changed.  (cp where
# there is no rsync, as on a machine that only builds the module: it puts
# the series' dtl_task.h back, so what includes it is built every time.)
if command -v rsync >/dev/null; then
	(cd "$DTL_TOP" && rsync -aR --delete \
		--exclude '*.o' --exclude '*.ko' --exclude '*.mod*' --exclude '.*' \
		--exclude Module.symvers --exclude modules.order --exclude drivers/perf/dtl/dtl_task.h \
		--filter 'protect *.o' --filter 'protect *.ko' --filter 'protect .*' \
		--filter 'protect *.mod*' --filter 'protect Module.symvers' \
		--filter 'protect modules.order' --filter 'protect Kbuild' \
		"${files[@]}" "$src/")
else
	(cd "$DTL_TOP" && cp -a --parents "${files[@]}" "$src/")
fi
cmp -s "$DTL_TOP/testbed/module.Kbuild" "$src/drivers/perf/dtl/Kbuild" ||
	cp "$DTL_TOP/testbed/module.Kbuild" "$src/drivers/perf/dtl/Kbuild"
# The compatibility layer's per-task accessors in place of the series'
# (dkms.conf does the same; a force-include could not do it: the header
# includes what needs each file's pr_fmt first).
cmp -s "$DTL_TOP/compat/dtl_compat_task.h" "$src/drivers/perf/dtl/dtl_task.h" ||
	cp "$DTL_TOP/compat/dtl_compat_task.h" "$src/drivers/perf/dtl/dtl_task.h"
# With KUnit in the kernel (the debug kernel), dtl's KUnit test too.
kunit=()
grep -qs '^CONFIG_KUNIT=y' "$kdir/.config" && kunit=(CONFIG_PERF_DTL_KUNIT_TEST=m)
make -s -C "$kdir" M="$src/drivers/perf/dtl" CONFIG_PERF_DTL=m "${kunit[@]}" W=1 modules
for ko in "$src"/drivers/perf/dtl/*.ko; do
	ln -f "$ko" "$out/"
done
echo "$out/dtl_pmu.ko"
