#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build dtl out of tree (Kbuild M=) against a kernel build tree, in a copy
# under the cache so that the source tree stays clean.
# usage: build-module.sh [KDIR [OUTDIR]]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
kdir=${1:-$DTL_KHEADERS}
out=${2:-$DTL_BUILD/module}
mkdir -p "$out"
rsync -a --delete --exclude '*.o' --exclude '*.ko' --exclude '*.mod*' \
	--exclude '.*' --exclude uapi --exclude arch --exclude Module.symvers \
	--exclude modules.order \
	--filter 'protect *.o' --filter 'protect *.ko' --filter 'protect .*' \
	--filter 'protect *.mod*' --filter 'protect Module.symvers' \
	--filter 'protect modules.order' --filter 'protect uapi' \
	--filter 'protect arch' \
	"$DTL_TOP/drivers/perf/dtl/" "$out/"
# The record format header and the arch glue headers are not in a distro
# kernel's headers: add them to the include path ($(SRCARCH) is expanded
# by Kbuild, for the arch of $kdir).
mkdir -p "$out/uapi/linux"
cp "$DTL_TOP/include/uapi/linux/perf_dtl.h" "$out/uapi/linux/"
for a in "$DTL_TOP"/arch/*/include/asm/dtl_steal.h; do
	d=$out/arch/$(basename "$(dirname "$(dirname "$(dirname "$a")")")")/include/asm
	mkdir -p "$d"
	cp "$a" "$d/"
done
make -s -C "$kdir" M="$out" CONFIG_PERF_DTL=m W=1 \
	KCFLAGS="-I$out/uapi -I$out/arch/\$(SRCARCH)/include" modules
echo "$out/dtl_pmu.ko"
