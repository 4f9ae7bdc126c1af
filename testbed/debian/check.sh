#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The Debian guest stage: dtl installed with DKMS and collected with PCP in
# Debian 12 with systemd, or with DTL_DEBIAN=13 in Debian 13 with
# trixie-backports' 7.3 kernel (testbed/debian/mkrootfs.sh builds each
# once).  Two
# boots of one disk: install.sh (dkms add/build/install, modprobe,
# modules-load.d, Debian's perf stat), then boot.sh (loaded at boot, PCP
# perfevent against perf stat, pmproxy's OpenMetrics, dkms remove).  Each
# test prints a TAP line.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

[ "$DTL_ARCH" = x86_64 ] || die "the Debian guest is x86_64 only"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dtl-debian.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src
mkdir -p "$src"
# What "dkms add" would get from a checkout (the fuzzer's seeds are not needed).
git -C "$DTL_TOP" ls-files -z | grep -zv '^testbed/fuzz/' |
	(cd "$DTL_TOP" && xargs -0 cp --parents -t "$src")

t0=$SECONDS
img=$("$DTL_TOP/testbed/debian/mkrootfs.sh")
echo "# Debian guest image: $img ($((SECONDS - t0)) s)"
rc=0
# DTL_DEBIAN_OUT=DIR: the first boot's logs and the module DKMS built
# (DIR/out/dtl_pmu.ko), and the guest's kernel (DIR/vmlinuz), kept.
"$DTL_TOP/testbed/debian/vm-run.sh" -d "$tmp/root.qcow2" -t 900 -f "$src=src" \
	${DTL_DEBIAN_OUT:+-o "$DTL_DEBIAN_OUT"} "$DTL_TOP/testbed/debian/guest/install.sh" || rc=$?
[ -z "${DTL_DEBIAN_OUT:-}" ] || cp "$img/vmlinuz" "$DTL_DEBIAN_OUT/vmlinuz"
if [ $rc = 0 ]; then
	"$DTL_TOP/testbed/debian/vm-run.sh" -d "$tmp/root.qcow2" -t 900 -f "$src=src" \
		"$DTL_TOP/testbed/debian/guest/boot.sh" || rc=$?
else
	echo "not ok - second boot not run: the first one failed"
fi
exit $rc
