#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make module: dtl_pmu.ko for the kernel this machine runs, or for the
# kernel build tree KDIR (an installed linux-headers package, or a built
# kernel source tree), out of tree as DKMS builds it
# (testbed/module.Kbuild).  It needs that kernel's headers, make and the
# compiler the kernel was built with; it installs nothing.  Prints where
# the module is and how to load it.
#
# usage: module-local.sh [KDIR]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

running=$(uname -r)
kdir=${1:-/lib/modules/$running/build}
if [ ! -f "$kdir/Makefile" ]; then
	if [ -z "${1:-}" ]; then
		die "no build tree for the running kernel $running at $kdir: install its headers (Debian: apt-get install linux-headers-$running), or give KDIR=/path/to/a/kernel/build/tree"
	fi
	die "KDIR=$kdir is not a kernel build tree (no Makefile)"
fi
command -v make >/dev/null && command -v gcc >/dev/null ||
	die "make and gcc are needed (Debian: apt-get install build-essential)"
rel=$(make -s -C "$kdir" kernelrelease 2>/dev/null) || rel=unknown
out=$DTL_CACHE/build/module-$rel
ko=$("$DTL_TOP/testbed/build-module.sh" "$kdir" "$out") ||
	die "dtl_pmu.ko does not build against $kdir"
echo "dtl_pmu.ko for Linux $rel: $ko"
if [ "$rel" = "$running" ]; then
	echo "load it: insmod $ko    (or install it with DKMS: see README.md)"
else
	echo "(the running kernel is $running: load it on a machine that runs $rel)"
fi
