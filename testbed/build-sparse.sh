#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# sparse new enough for Linux 7.3 (bookworm's 0.6.4 lacks __typeof_unqual__,
# which 7.3's scripts/checker-valid.sh asks for): built once from Debian's
# source package of $DTL_SPARSE_SUITE (20 s), with apt lists of its own
# under the cache; nothing is installed.  If that version has left the
# suite, the suite's current one.  Prints the path of the sparse binary.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$DTL_CACHE/sparse-$DTL_SPARSE_PKG
if [ ! -x "$out/sparse" ]; then
	apt=$DTL_CACHE/apt-src-$DTL_SPARSE_SUITE
	mkdir -p "$apt/lists/partial"
	echo "deb-src http://deb.debian.org/debian $DTL_SPARSE_SUITE main" >"$apt/sources.list"
	opts=(-o "Dir::Etc::sourcelist=$apt/sources.list" -o Dir::Etc::sourceparts=-
	      -o "Dir::State::Lists=$apt/lists" -o APT::Sandbox::User=root)
	apt-get "${opts[@]}" -qq update || say "apt-get update of $DTL_SPARSE_SUITE sources failed"
	tmp=$(mktemp -d "$DTL_CACHE/sparse.XXXXXX")
	(cd "$tmp" && { apt-get "${opts[@]}" -qq source --download-only "sparse=$DTL_SPARSE_PKG" ||
		{ say "sparse $DTL_SPARSE_PKG not in $DTL_SPARSE_SUITE: taking its current one";
		  apt-get "${opts[@]}" -qq source --download-only sparse; }; }) >/dev/null 2>&1 ||
		die "cannot download sparse's source from $DTL_SPARSE_SUITE"
	tar -C "$tmp" -xzf "$tmp"/sparse_*.orig.tar.gz
	make -s -C "$tmp"/sparse-*/ -j"$(nproc)" sparse HAVE_LLVM=no HAVE_GTK=no \
		HAVE_SQLITE=no >"$tmp/build.log" 2>&1 ||
		{ tail -20 "$tmp/build.log"; die "sparse did not build"; }
	mkdir -p "$out"
	cp "$tmp"/sparse-*/sparse "$out/sparse"
	rm -rf "$tmp"
fi
echo "$out/sparse"
