#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build (once) the base initramfs of the test guest: busybox, the stock
# perf (perf, Debian's 6.1) and perf 6.12 with dtl's decoder (perf-dtl),
# with their libraries, and the few files the tests expect.  Prints the
# path of the cached cpio archive.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

perf_bin=$(command -v perf) || die "perf not found (run: make setup)"
# perf 6.12 with dtl's decoder, when built (make perf): /usr/bin/perf-dtl.
dtl_perf=$DTL_CACHE/build/perf/perf
bins=(/bin/busybox "$perf_bin")
[ -x "$dtl_perf" ] && bins+=("$dtl_perf" "$DTL_CACHE"/build/perf/dlfilters/dlfilter-dtl-*.so)
key=$( (cat "$0"; sha256sum "${bins[@]}") | sha256sum | cut -c1-16)
out=$DTL_CACHE/initramfs/base-$key.cpio
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$DTL_CACHE/initramfs"
root=$(mktemp -d "$DTL_CACHE/initramfs/root.XXXXXX")
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,root,lib,lib64,run}
cp /bin/busybox "$root/bin/busybox"
for applet in $(/bin/busybox --list); do
	# A link named busybox would point at itself: /init then fails (-ELOOP).
	[ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
done
cp "$perf_bin" "$root/usr/bin/perf"

# The dynamic libraries of perf, and of the test programs built on this
# host (they need no more than perf's libc).
copy_closure() {
	ldd "$1" | awk '/=>/ { print $3 } /^\t\/lib/ { print $1 }' | while read -r lib; do
		[ -f "$lib" ] || continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
copy_closure "$perf_bin"
if [ -x "$dtl_perf" ]; then
	cp "$dtl_perf" "$root/usr/bin/perf-dtl"
	copy_closure "$dtl_perf"
	# Where perf looks for its dlfilters.
	exec_path=$("$dtl_perf" --exec-path)
	mkdir -p "$root$exec_path/dlfilters"
	cp "$DTL_CACHE"/build/perf/dlfilters/dlfilter-dtl-*.so "$root$exec_path/dlfilters/"
	# A directory that makes "perf" mean perf-dtl, for perf's own tests.
	mkdir -p "$root/usr/lib/perf-dtl/bin"
	ln -s /usr/bin/perf-dtl "$root/usr/lib/perf-dtl/bin/perf"
fi
# Programs may also look libraries up under /usr/lib.
[ -e "$root/usr/lib" ] || ln -s ../lib "$root/usr/lib"

cat >"$root/etc/passwd" <<'PW'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
PW
cat >"$root/etc/group" <<'GR'
root:x:0:
nogroup:x:65534:
GR

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
echo "$out"
