#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build the debug kernel (KASAN, lockdep, kmemleak, KUnit, timerlat) from
# Linux 7.3's source (linux-source-7.3 of Debian 13's backports), the
# kernel the driver is written for, with dtl in the tree as the series
# puts it there (dtl_stage_tree), plus dtl and its KUnit test as
# modules built against it out of tree (testbed/build-module.sh, W=1).
#
# The build directory is keyed by the kernel version and the hash of the
# config fragment: a cached build is only brought up to date (seconds, or
# ~40 s when a dtl file changed); a fresh one takes ~20 min on 2 cores.
# Prints the build directory.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# DTL_FLAVOUR=rt: the same with PREEMPT_RT (testbed/rt.config on top).
# DTL_FLAVOUR=bench: no checkers (testbed/bench.config alone), for
# bench/run.sh's measurement of the series' own kernel.
flavour=${DTL_FLAVOUR:-debug}
frags=("$DTL_TOP/testbed/debug.config")
case $flavour in
debug) ;;
rt) frags+=("$DTL_TOP/testbed/rt.config") ;;
bench) frags=("$DTL_TOP/testbed/bench.config") ;;
*) die "DTL_FLAVOUR=$flavour: debug, rt or bench" ;;
esac
key=$( (echo "$DTL_K73_REL"; cat "${frags[@]}") | sha256sum | cut -c1-12)
out=$DTL_CACHE/kbuild-$flavour-$key
jobs=$(nproc)

[ -f "$DTL_SRC73/Makefile" ] || die "no Linux 7.3 source at $DTL_SRC73 (run: make setup)"
tree=$(dtl_stage_tree)

# DTL_CACHED_ONLY=1: print the build directory if it is built, else fail.
if [ "${DTL_CACHED_ONLY:-0}" = 1 ]; then
	[ -f "$out/vmlinux" ] && [ -f "$DTL_CACHE/build/module-$flavour/dtl_pmu.ko" ] ||
		exit 3
	"$DTL_TOP/testbed/build-module.sh" "$out" "$DTL_CACHE/build/module-$flavour" >/dev/null
	echo "$out"
	exit 0
fi

mkdir -p "$out"
frag=$out/fragment.config
cat "${frags[@]}" >"$frag"
if [ ! -f "$out/.config.done" ]; then
	say "configuring the $flavour kernel in $out"
	make -s -C "$tree" O="$out" x86_64_defconfig >/dev/null
	make -s -C "$tree" O="$out" kvm_guest.config >/dev/null
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag" >/dev/null
	make -s -C "$tree" O="$out" olddefconfig >/dev/null
	# Every option of the fragment must have survived olddefconfig.
	bad=0
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=n) opt=${line%%=*}
			grep -q "^$opt=" "$out/.config" && { say "$opt still set"; bad=1; } ;;
		CONFIG_*) grep -qx "$line" "$out/.config" || { say "not in .config: $line"; bad=1; } ;;
		esac
	done <"$frag"
	[ $bad = 0 ] || die "the $flavour config fragment did not apply"
	touch "$out/.config.done"
fi

say "building the $flavour kernel (make -j$jobs vmlinux modules) in $out"
make -s -C "$tree" O="$out" -j"$jobs" vmlinux modules >"$out/build.log" 2>&1 ||
	{ tail -30 "$out/build.log"; die "$flavour kernel build failed (log: $out/build.log)"; }
# dtl out of tree, W=1: no warning allowed on the kernel it is written for.
mlog=$("$DTL_TOP/testbed/build-module.sh" "$out" "$DTL_CACHE/build/module-$flavour" 2>&1) ||
	{ echo "$mlog"; die "dtl does not build against Linux $DTL_K73_REL"; }
if grep -q 'warning:' <<<"$mlog"; then
	echo "$mlog"
	die "dtl builds with warnings against Linux $DTL_K73_REL (W=1)"
fi
echo "$out"
