#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Compile dtl in the tree (the overlay and patches/linux applied to the
# 6.12 source, CONFIG_PERF_DTL=m in a defconfig) for $DTL_ARCH, with W=1:
# the upstream build path, on an architecture the debug kernel does not
# cover.  The prepared tree is cached; a rerun takes seconds.
#
# usage: build-intree.sh [i386]: i386 builds for 32-bit x86 with the
# host's compiler (-m32), where u64 division and 64-bit hashes differ:
# dtl depends on 64BIT || COMPILE_TEST, so that build has COMPILE_TEST.
# arm64 builds dtl into the kernel (CONFIG_PERF_DTL=y): the one build
# that compiles its built-in steal source, the kernel's paravirt steal
# clock (the module build for arm64 is cross-built against Debian's
# headers by build-module.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree=$(dtl_stage_tree)
out=$DTL_BUILD/intree
karch=x86
want=m
[ "$DTL_ARCH" = arm64 ] && karch=arm64 want=y
cross=$DTL_CROSS
if [ "${1:-}" = i386 ]; then
	karch=i386
	cross=
	out=$DTL_CACHE/build/intree-i386
fi
mk=(make -s -C "$tree" O="$out" ARCH=$karch CROSS_COMPILE="$cross")

cfg=(-e FTRACE -e PERF_EVENTS)
if [ $want = y ]; then cfg+=(-e PERF_DTL); else cfg+=(-m PERF_DTL); fi
[ "$karch" = i386 ] && cfg=(-e COMPILE_TEST "${cfg[@]}")
# The prepared tree is kept for one set of options.
mark=$out/.prepared-$(echo "${cfg[*]}" | sha256sum | cut -c1-8)

mkdir -p "$out"
if [ ! -f "$mark" ]; then
	rm -f "$out"/.prepared*
	"${mk[@]}" defconfig >/dev/null
	"$tree/scripts/config" --file "$out/.config" "${cfg[@]}"
	"${mk[@]}" olddefconfig >/dev/null
	grep -qx "CONFIG_PERF_DTL=$want" "$out/.config" ||
		die "CONFIG_PERF_DTL=$want did not stick"
	"${mk[@]}" -j"$(nproc)" modules_prepare >"$out/prepare.log" 2>&1 ||
		{ tail -20 "$out/prepare.log"; die "modules_prepare failed"; }
	touch "$mark"
fi
"${mk[@]}" W=1 drivers/perf/dtl/ >"$out/build.log" 2>&1 ||
	{ cat "$out/build.log"; die "in-tree build of dtl failed"; }
if grep -q 'warning:' "$out/build.log"; then
	cat "$out/build.log"
	die "in-tree build of dtl has warnings"
fi
# 32-bit: 64-bit division must go through div_u64() and friends; libgcc's
# helpers are not in the kernel, and without vmlinux modpost cannot say.
if [ "$karch" = i386 ] &&
   nm -u "$out/drivers/perf/dtl/dtl_pmu.o" | grep -E '__(u)?(div|mod)di3'; then
	die "dtl divides 64-bit values with libgcc's helpers: use div_u64()"
fi
if [ $want = y ]; then
	echo "$out/drivers/perf/dtl/built-in.a"
else
	echo "$out/drivers/perf/dtl/dtl_pmu.o"
fi
