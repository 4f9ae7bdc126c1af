#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Install everything the testbed needs from Debian's packages and unpack the
# kernel under test into the cache.  Idempotent: a second run only checks.
#
# usage: setup.sh [perf]: "perf" installs only what building perf with
# dtl's decoder needs (a compiler, perf's libraries, Linux 7.3's source):
# no QEMU, no guest kernel, no test tools.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:-all}
case $mode in
all|perf) ;;
*) die "usage: setup.sh [perf]" ;;
esac

perf_pkgs=(
	build-essential bc flex bison pkg-config libelf-dev libssl-dev python3 zstd rsync patch
	libtraceevent-dev libtracefs-dev libdw-dev libzstd-dev libcap-dev
	libnuma-dev libunwind-dev
)
pkgs=(
	qemu-system-x86 busybox-static cpio zstd rsync python3 python3-dev file trinity trace-cmd mmdebstrap qemu-utils
	build-essential bc flex bison pkg-config libelf-dev libssl-dev
	clang libclang-rt-14-dev
	"linux-headers-$DTL_KVER=$DTL_KPKG"
	"$DTL_STOCK_PERF_PKG"
	libtraceevent-dev libtracefs-dev libdw-dev libzstd-dev libcap-dev
	libnuma-dev libunwind-dev
	dkms gcc-powerpc64le-linux-gnu gcc-aarch64-linux-gnu python3-sphinx python3-sphinx-rtd-theme ccache sparse
	chromium
)

[ "$mode" = all ] || pkgs=("${perf_pkgs[@]}")
missing=()
for p in "${pkgs[@]}"; do
	name=${p%%=*}
	want=${p#*=}
	have=$(dpkg-query -W -f='${db:Status-Abbrev}${Version}' "$name" 2>/dev/null || true)
	case "$have" in
	"ii "*) [ "$name" = "$p" ] || [ "${have#ii }" = "$want" ] || missing+=("$p") ;;
	*) missing+=("$p") ;;
	esac
done

if [ ${#missing[@]} -gt 0 ]; then
	say "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	dtl_apt_update
	apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 \
		"${missing[@]}" >"${TMPDIR:-/tmp}/dtl-apt.log" 2>&1 ||
		{ tail -20 "${TMPDIR:-/tmp}/dtl-apt.log"; die "apt-get install failed"; }
fi
mkdir -p "$DTL_CACHE"
[ "$mode" = perf ] || [ -d "$DTL_KHEADERS" ] || die "headers not found at $DTL_KHEADERS"

# The kernel image is unpacked, not installed: nothing on the host boots it.
if [ "$mode" = all ] && [ ! -s "$DTL_DEBKERNEL/vmlinux" ]; then
	say "fetching linux-image-$DTL_KVER-unsigned $DTL_KPKG"
	tmp=$(mktemp -d "$DTL_CACHE/dl.XXXXXX")
	(cd "$tmp" && apt-get download -q \
		"linux-image-$DTL_KVER-unsigned=$DTL_KPKG" >/dev/null 2>&1) ||
		die "apt-get download of linux-image-$DTL_KVER-unsigned failed"
	rm -rf "$tmp/x" && dpkg-deb -x "$tmp"/linux-image-*.deb "$tmp/x"
	mkdir -p "$DTL_DEBKERNEL"
	cp "$tmp/x/boot/vmlinuz-$DTL_KVER" "$tmp/x/boot/config-$DTL_KVER" \
		"$DTL_DEBKERNEL/"
	# QEMU boots an uncompressed vmlinux through its PVH note, skipping the
	# decompressor: unpack the zstd stream embedded in the bzImage.
	off=$(LC_ALL=C grep -obUaP '\x28\xb5\x2f\xfd' "$DTL_DEBKERNEL/vmlinuz-$DTL_KVER" |
		head -1 | cut -d: -f1)
	[ -n "$off" ] || die "no zstd stream in vmlinuz-$DTL_KVER"
	tail -c +$((off + 1)) "$DTL_DEBKERNEL/vmlinuz-$DTL_KVER" |
		zstd -dcq 2>/dev/null >"$DTL_DEBKERNEL/vmlinux.tmp" || true
	file "$DTL_DEBKERNEL/vmlinux.tmp" | grep -q 'ELF 64-bit' ||
		die "could not unpack vmlinux from vmlinuz-$DTL_KVER"
	mv "$DTL_DEBKERNEL/vmlinux.tmp" "$DTL_DEBKERNEL/vmlinux"
	rm -rf "$tmp"
fi

# Linux 7.3's source (Debian 13 backports): the base the repo's files and
# patches are laid over (the series, the debug kernel, perf, the selftests).
if [ ! -f "$DTL_SRC73/Makefile" ]; then
	say "fetching linux-source-${DTL_K73_REL%.*} $DTL_K73_PKG from $DTL_K73_SUITE"
	tmp=$(mktemp -d "$DTL_CACHE/src73.XXXXXX")
	dtl_trixie_download "$tmp" "linux-source-${DTL_K73_REL%.*}=$DTL_K73_PKG"
	dpkg-deb --fsys-tarfile "$tmp"/linux-source-*.deb |
		tar -C "$tmp" -x ./usr/src/ || die "cannot unpack linux-source-${DTL_K73_REL%.*}"
	tar -C "$tmp" -xf "$tmp"/usr/src/linux-source-*.tar.xz
	grep -q "^SUBLEVEL = ${DTL_K73_REL##*.}\$" "$tmp"/linux-source-*/Makefile ||
		die "linux-source-${DTL_K73_REL%.*} is not $DTL_K73_REL"
	mv "$tmp"/linux-source-*/ "$DTL_SRC73"
	rm -rf "$tmp"
fi
if [ "$mode" = perf ]; then
	say "setup for perf done (Linux $DTL_K73_REL's source, cache $DTL_CACHE)"
else
	say "setup done (kernel $DTL_KVER, cache $DTL_CACHE)"
fi
