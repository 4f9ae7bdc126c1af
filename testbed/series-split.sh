#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The driver reaches the series in three patches: counting events, then
# per-task context objects, then the dispatch trace log.  The tree holds
# the last step only (drivers/perf/dtl/); patches/linux/driver/ keeps the
# two later steps as git patches of the driver's files (dtl_trace.c, new
# in the third step, is taken from the tree):
#   0001-*: counting -> per-task context objects
#   0002-*: per-task context objects -> trace log (all but dtl_trace.c)
# series.sh takes both out of the tree's files, last first (git apply -R),
# to get the first step, and applies them again with git am.
#
# An edit of the driver near their lines can keep them from applying in
# reverse; series.sh then fails and says to refresh them:
#
#   series-split.sh extract DIR   DIR/1, DIR/2: the driver's files at the
#                                 first and second steps (with patch's
#                                 fuzz; .rej files where it failed: fix
#                                 those steps by hand)
#   series-split.sh save DIR      write the two patches again from DIR/1,
#                                 DIR/2 and the tree's files, with their
#                                 commit messages
#
# Either step's files may also be edited on purpose this way (a fix that
# belongs in an earlier patch).  make series then checks that every step
# builds (series-bisect.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kept=$DTL_TOP/patches/linux/driver
files="Kconfig Makefile dtl.h dtl_core.c dtl_kunit.c"
usage() { die "usage: series-split.sh extract|save DIR"; }
[ $# -eq 2 ] || usage
dir=$2
patches=("$kept"/0001-*.patch "$kept"/0002-*.patch)
[ -f "${patches[0]}" ] && [ -f "${patches[1]}" ] || die "no patches in $kept"

case $1 in
extract)
	rm -rf "$dir/1" "$dir/2"
	mkdir -p "$dir/2"
	for f in $files; do
		cp "$DTL_TOP/drivers/perf/dtl/$f" "$dir/2/$f"
	done
	rc=0
	patch -s -R -p4 -d "$dir/2" <"${patches[1]}" || rc=1
	cp -r "$dir/2" "$dir/1"
	rm -f "$dir"/1/*.rej "$dir"/1/*.orig
	patch -s -R -p4 -d "$dir/1" <"${patches[0]}" || rc=1
	rm -f "$dir"/*/*.orig
	if [ "$rc" -ne 0 ]; then
		echo "series-split: fix the .rej files in $dir/1 and $dir/2, then: $0 save $dir" >&2
		exit 1
	fi
	echo "$dir/1 $dir/2"
	;;
save)
	ls "$dir"/*/*.rej >/dev/null 2>&1 && die "$dir has .rej files left"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/dtl-split.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	repo=$tmp/repo
	g() { git -C "$repo" -c user.name="dtl developers" \
		-c user.email=dtl@localhost -c commit.gpgsign=false "$@"; }
	mkdir -p "$repo/drivers/perf/dtl"
	g init -q
	step() {
		local f
		for f in $files; do
			cp "$1/$f" "$repo/drivers/perf/dtl/$f"
		done
		g add -A
		if [ -n "$2" ]; then
			# The kept patch's message.
			git mailinfo "$tmp/msg" /dev/null <"$2" >"$tmp/info"
			{ sed -n 's/^Subject: //p' "$tmp/info"; echo
			  cat "$tmp/msg"; } | g commit -q -F -
		else
			g commit -q -m base
		fi
	}
	step "$dir/1" ""
	step "$dir/2" "${patches[0]}"
	step "$DTL_TOP/drivers/perf/dtl" "${patches[1]}"
	g format-patch -q -o "$tmp/out" HEAD~2..HEAD
	rm -f "$kept"/0001-*.patch "$kept"/0002-*.patch
	mv "$tmp"/out/*.patch "$kept/"
	ls "$kept"/*.patch
	;;
*)
	usage
	;;
esac
