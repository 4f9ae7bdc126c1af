#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build (once) the base initramfs of the test guest for $DTL_ARCH: busybox,
# Debian's stock perf 6.1 ("perf") and, on x86_64, perf 7.3 with dtl's
# decoder ("perf-dtl"), trinity, with their libraries, and the few files
# the tests expect.  Prints the path of the cached cpio archive.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dtl_perf=
if [ "$DTL_ARCH" = arm64 ]; then
	# Unpacked from Debian's arm64 packages by setup-arm64.sh.
	sys=$DTL_DEBKERNEL/root
	busybox=$sys/bin/busybox
	perf_bin=$sys/usr/bin/perf
	trinity_bin=$sys/usr/bin/trinity
	[ -x "$busybox" ] || die "no arm64 busybox (run: testbed/setup-arm64.sh)"
	[ -x "$DTL_PERF_DIR/perf" ] && dtl_perf=$DTL_PERF_DIR/perf
else
	sys=
	busybox=/bin/busybox
	perf_bin=$(command -v perf) || die "perf not found (run: make setup)"
	trinity_bin=$(command -v trinity || true)
	[ -x "$DTL_PERF_DIR/perf" ] && dtl_perf=$DTL_PERF_DIR/perf
fi
bins=("$busybox" "$perf_bin")
[ -n "$trinity_bin" ] && bins+=("$trinity_bin")
[ -n "$dtl_perf" ] && bins+=("$dtl_perf" "$DTL_PERF_DIR"/dlfilters/dlfilter-dtl-*.so
			    "$DTL_TOP/tools/perf/scripts/python/dtl-events.py")
key=$( (cat "$0"; echo "$DTL_ARCH"; sha256sum "${bins[@]}") | sha256sum | cut -c1-16)
out=$DTL_CACHE/initramfs/base-$DTL_ARCH-$key.cpio
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$DTL_CACHE/initramfs"
root=$(mktemp -d "$DTL_CACHE/initramfs/root.XXXXXX")
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,root,lib,lib64,run}
cp "$busybox" "$root/bin/busybox"
for applet in $(/bin/busybox --list); do
	# A link named busybox would point at itself: /init then fails (-ELOOP).
	[ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
done

# The dynamic libraries of a program, copied to the same paths.  On x86_64
# ldd finds them on this host; for arm64 they are looked up in the
# unpacked Debian packages, following each library's NEEDED entries.
copy_closure() {
	local bin=$1 lib need dir
	if [ -z "$sys" ]; then
		ldd "$bin" | awk '/=>/ { print $3 } /^\t\/lib/ { print $1 }' | while read -r lib; do
			[ -f "$lib" ] || continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
		return
	fi
	for need in $(${DTL_CROSS}readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		for dir in lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu; do
			lib=$sys/$dir/$need
			[ -e "$lib" ] || continue
			[ -e "$root/$dir/$need" ] && break
			mkdir -p "$root/$dir"
			cp -L "$lib" "$root/$dir/$need"
			copy_closure "$root/$dir/$need"
			break
		done
	done
}

cp "$perf_bin" "$root/usr/bin/perf"
copy_closure "$perf_bin"
if [ -n "$trinity_bin" ]; then
	cp "$trinity_bin" "$root/usr/bin/trinity"
	copy_closure "$trinity_bin"
fi
if [ -n "$sys" ]; then
	# The program interpreter, where the binaries look for it.
	cp -L "$sys/lib/ld-linux-aarch64.so.1" "$root/lib/ld-linux-aarch64.so.1"
fi
if [ -n "$dtl_perf" ]; then
	cp "$dtl_perf" "$root/usr/bin/perf-dtl"
	copy_closure "$dtl_perf"
	# Where perf looks for its dlfilters: build-perf.sh uses prefix=/usr
	# (asked of the binary where it runs on this host).
	exec_path=/usr/libexec/perf-core
	[ -z "$sys" ] && exec_path=$("$dtl_perf" --exec-path)
	mkdir -p "$root$exec_path/dlfilters"
	cp "$DTL_PERF_DIR"/dlfilters/dlfilter-dtl-*.so "$root$exec_path/dlfilters/"
	# perf script -s: the Python library perf-dtl was linked with (in
	# /usr/lib, as its prefix is /usr), without the packages no perf
	# script needs, and dtl's script where perf lists its scripts.
	py=
	[ -n "$sys" ] || py=$(ldd "$dtl_perf" | sed -n 's/.*libpython\(3\.[0-9]*\)\.so.*/\1/p')
	if [ -n "$py" ]; then
		tar -C / -cf - --exclude=__pycache__ \
			$(for d in test idlelib tkinter ensurepip lib2to3 pydoc_data distutils \
				   turtledemo site-packages dist-packages unittest asyncio email \
				   xml multiprocessing sqlite3 curses venv "config-$py-*"; do
				echo "--exclude=usr/lib/python$py/$d"; done) \
			"usr/lib/python$py" | tar -C "$root" -xf -
		mkdir -p "$root$exec_path/scripts/python"
		cp "$DTL_TOP/tools/perf/scripts/python/dtl-events.py" "$root$exec_path/scripts/python/"
	fi
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
