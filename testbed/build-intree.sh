#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Compile dtl in the tree (the overlay and patches/linux applied to the
# Linux 7.3 source, CONFIG_PERF_DTL=m in a defconfig) for $DTL_ARCH, with
# W=1, or (7.3) for x86_64, built in, with W=1 and sparse: the upstream
# build path, on an architecture or in a configuration the debug kernel
# does not cover.  The prepared tree is cached; a rerun takes seconds.
#
# usage: build-intree.sh [i386|ppc64le|7.3]: i386 builds for 32-bit x86 with
# the host's compiler (-m32), where u64 division and 64-bit hashes differ:
# dtl depends on 64BIT || COMPILE_TEST, so that build has COMPILE_TEST.
# ppc64le (Debian's powerpc64le cross compiler, ppc64le_defconfig, which
# has the pseries dispatch trace log of asm/dtl.h) builds dtl into the
# kernel next to powerpc's own dtl code, and checks that no global symbol
# of dtl is one that powerpc's dtl objects define.
# arm64 builds dtl into the kernel (CONFIG_PERF_DTL=y) (the module build
# for arm64 is cross-built against Debian's headers by build-module.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$DTL_BUILD/intree-$DTL_K73_REL
karch=x86
want=m
[ "$DTL_ARCH" = arm64 ] && karch=arm64 want=y
cross=$DTL_CROSS
defconfig=defconfig
check=()
extra=()
case "${1:-}" in
7.3)
	# x86_64, built in with its KUnit test, W=1 and sparse (C=2), in
	# Linux 7.3 as the series would put it there.
	want=y
	defconfig="defconfig kvm_guest.config"
	check=(C=2 CHECK="$("$DTL_TOP/testbed/build-sparse.sh")")
	extra=(-e KUNIT -e PERF_DTL_KUNIT_TEST)
	out=$DTL_CACHE/build/intree-x86_64-$DTL_K73_REL
	;;
i386)
	karch=i386
	cross=
	out=$DTL_CACHE/build/intree-i386-$DTL_K73_REL
	;;
ppc64le)
	karch=powerpc
	cross=powerpc64le-linux-gnu-
	want=y
	defconfig=ppc64le_defconfig
	out=$DTL_CACHE/build/intree-ppc64le-$DTL_K73_REL
	command -v ${cross}gcc >/dev/null ||
		die "no ${cross}gcc (apt-get install gcc-powerpc64le-linux-gnu)"
	;;
esac
[ -n "${tree:-}" ] || tree=$(dtl_stage_tree)
mk=(make -s -C "$tree" O="$out" ARCH="$karch" CROSS_COMPILE="$cross")

# SCHEDSTATS for SCHED_INFO, which dtl depends on (arm64's defconfig has
# neither it nor TASK_DELAY_ACCT).
cfg=(-e FTRACE -e PERF_EVENTS -e SCHEDSTATS)
if [ $want = y ]; then cfg+=(-e PERF_DTL); else cfg+=(-m PERF_DTL); fi
[ "$karch" = i386 ] && cfg=(-e COMPILE_TEST "${cfg[@]}")
cfg+=("${extra[@]}")
# The prepared tree is kept for one set of options.
mark=$out/.prepared-$(echo "${cfg[*]}" | sha256sum | cut -c1-8)

mkdir -p "$out"
if [ ! -f "$mark" ]; then
	rm -f "$out"/.prepared*
	"${mk[@]}" $defconfig >/dev/null
	"$tree/scripts/config" --file "$out/.config" "${cfg[@]}"
	"${mk[@]}" olddefconfig >/dev/null
	grep -qx "CONFIG_PERF_DTL=$want" "$out/.config" ||
		die "CONFIG_PERF_DTL=$want did not stick"
	"${mk[@]}" -j"$(nproc)" modules_prepare >"$out/prepare.log" 2>&1 ||
		{ tail -20 "$out/prepare.log"; die "modules_prepare failed"; }
	touch "$mark"
fi
# With the series' core patches: the steal clock reader.
"${mk[@]}" W=1 ${check[@]+"${check[@]}"} drivers/perf/dtl/ kernel/sched/cputime.o \
	>"$out/build.log" 2>&1 ||
	{ cat "$out/build.log"; die "in-tree build of dtl failed"; }
# make only warns when the checker is not up to date, and runs none.
if grep -q 'is not available or not up to date' "$out/build.log"; then
	cat "$out/build.log"
	die "sparse did not run"
fi
# (Not bison's notes on scripts/genksyms, which powerpc builds on first use.)
if grep 'warning:' "$out/build.log" | grep -qv '/scripts/genksyms/'; then
	cat "$out/build.log"
	die "in-tree build of dtl has warnings"
fi
# 32-bit: 64-bit division must go through div_u64() and friends; libgcc's
# helpers are not in the kernel, and without vmlinux modpost cannot say.
if [ "$karch" = i386 ] &&
   nm -u "$out/drivers/perf/dtl/dtl_pmu.o" "$out/$steal" | grep -E '__(u)?(div|mod)di3'; then
	die "dtl divides 64-bit values with libgcc's helpers: use div_u64()"
fi
# powerpc: its dispatch trace log (asm/dtl.h, platforms/pseries) links
# into the same kernel.  Compile those objects and compare global symbols.
if [ "$karch" = powerpc ]; then
	ppc=(arch/powerpc/platforms/pseries/dtl.o arch/powerpc/platforms/pseries/lpar.o
	     arch/powerpc/platforms/pseries/setup.o)
	"${mk[@]}" "${ppc[@]}" >>"$out/build.log" 2>&1 ||
		{ tail -20 "$out/build.log"; die "powerpc's dtl objects did not build"; }
	ours=$("${cross}nm" -g --defined-only "$out/drivers/perf/dtl/built-in.a" |
		awk 'NF == 3 { print $3 }' | sort -u)
	theirs=$(for o in "${ppc[@]}"; do "${cross}nm" -g --defined-only "$out/$o"; done |
		awk 'NF == 3 { print $3 }' | sort -u)
	both=$(comm -12 <(echo "$ours") <(echo "$theirs"))
	[ -z "$both" ] || die "dtl defines symbols powerpc's dtl also defines: $both"
	echo "ppc64le: $(echo "$ours" | wc -l) global symbols of dtl, $(echo "$theirs" | wc -l) of powerpc's dtl objects, none shared" >&2
fi
if [ $want = y ]; then
	echo "$out/drivers/perf/dtl/built-in.a"
else
	echo "$out/drivers/perf/dtl/dtl_pmu.o"
fi
