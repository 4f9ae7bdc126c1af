#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The arm64 side of the test bed (idempotent): the cross tools and QEMU on
# the host, and Debian's arm64 kernel image, headers, busybox, perf 6.1,
# trinity and the libraries to cross-build perf 7.3 unpacked into the
# cache (downloaded, not installed).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

root=$DTL_CACHE/debian-$DTL_KREL-arm64
kver=$DTL_KREL-arm64

missing=()
for p in qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross binutils-aarch64-linux-gnu; do
	dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	say "installing: ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		-o DPkg::Lock::Timeout=600 "${missing[@]}" >"${TMPDIR:-/tmp}/dtl-apt-arm64.log" 2>&1 ||
		{ tail -20 "${TMPDIR:-/tmp}/dtl-apt-arm64.log"; die "apt-get install failed"; }
fi
# apt-get download of :arm64 packages needs the architecture in dpkg.
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
	dtl_apt_update
fi

if [ ! -f "$root/.done-2" ]; then
	say "fetching Debian's arm64 kernel, headers, busybox, perf and trinity"
	rm -rf "$root"
	mkdir -p "$root/debs" "$root/state/archives/partial" "$root/root"
	touch "$root/state/status"
	(cd "$root/debs" && apt-get download -q \
		"linux-image-$kver-unsigned:arm64=$DTL_KPKG" \
		"linux-headers-$kver:arm64=$DTL_KPKG" busybox-static:arm64 \
		>/dev/null 2>&1) || die "apt-get download of the arm64 kernel failed"
	# perf and trinity with every library they need, and the development
	# files perf 7.3 is cross-built with, for an empty arm64 system: apt
	# resolves the closure, nothing is installed.  The result is both the
	# guest's library tree and the sysroot of the cross build.
	apt-get -q -o APT::Architecture=arm64 -o APT::Architectures::=arm64 \
		-o Dir::State::status="$root/state/status" \
		-o Dir::Cache::archives="$root/state/archives" -o Debug::NoLocking=1 \
		install --download-only -y "$DTL_STOCK_PERF_PKG" trinity libc6-dev \
		libelf-dev libdw-dev libtraceevent-dev zlib1g-dev libzstd-dev \
		libnuma-dev libcap-dev libunwind-dev liblzma-dev libssl-dev \
		libbz2-dev >/dev/null 2>&1 ||
		die "apt-get download of perf, trinity and libraries for arm64 failed"
	for d in "$root"/debs/*.deb "$root"/state/archives/*.deb; do
		dpkg-deb -x "$d" "$root/root"
	done
	# The headers point at the host's kbuild and at the common headers.
	ln -sfn "/usr/lib/linux-kbuild-$DTL_KREL" "$root/root/usr/lib/linux-kbuild-$DTL_KREL"
	ln -sfn "/usr/src/linux-headers-$DTL_KREL-common" \
		"$root/root/usr/src/linux-headers-$DTL_KREL-common"
	cp "$root/root/boot/vmlinuz-$kver" "$root/Image"
	rm -rf "$root/debs" "$root/state"
	touch "$root/.done-2"
fi
[ -d "/usr/src/linux-headers-$DTL_KREL-common" ] ||
	die "the arm64 headers need linux-headers-$DTL_KREL-common (make setup)"
say "arm64 setup done ($root)"
