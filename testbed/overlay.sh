#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Lay the repo's kernel and tools files over a Linux tree as the upstream
# patch would, and apply the edits to existing files kept in patches/ (linux:
# the kernel tree, perf: tools/perf), then the test bed's own kernel patches
# in testbed/kernel/ (never part of the series: make series takes patches/
# only; what they add is behind Kconfig options that only
# testbed/debug.config enables).
# The tree may be a hard-linked copy of a pristine one: files are replaced,
# never written through.
# usage: overlay.sh TREE
# Environment: DTL_OVERLAY_SRC, the pristine source (default $DTL_SRC73);
# DTL_OVERLAY_DIRS, the repo's folders to lay over it (default all);
# DTL_OVERLAY_PATCHES, the patches to apply (default patches/*/*.patch, then
# testbed/kernel/*.patch).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
tree=$1
src=${DTL_OVERLAY_SRC:-$DTL_SRC73}
dirs=${DTL_OVERLAY_DIRS:-drivers include arch tools Documentation}
patches=${DTL_OVERLAY_PATCHES:-$(ls "$DTL_TOP"/patches/*/*.patch \
	"$DTL_TOP"/testbed/kernel/*.patch 2>/dev/null || true)}
files=
[ -z "$patches" ] || files=$(sed -n 's|^+++ b/||p' $patches | sort -u)
# A whole overlay puts back what an earlier one laid and this one does not
# (a file the repository dropped, or a patch no longer kept).
if [ -z "${DTL_OVERLAY_DIRS:-}${DTL_OVERLAY_PATCHES:-}" ]; then
	# shellcheck disable=SC2086
	dtl_tree_forget "$tree" "$src" $files \
		$(cd "$DTL_TOP" && for d in $dirs; do
			[ ! -d "$d" ] || find "$d" -type f
		done)
fi
for d in $dirs; do
	[ -d "$DTL_TOP/$d" ] || continue
	rsync -rlp --checksum "$DTL_TOP/$d/" "$tree/$d/"
done
# Apply the patches to pristine copies of the files they touch, then
# replace only the files whose content changed: make sees no new mtimes on
# a second run.
[ -n "$patches" ] || exit 0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for f in $files; do
	mkdir -p "$work/$(dirname "$f")"
	[ -f "$src/$f" ] && cp "$src/$f" "$work/$f"
done
for p in $patches; do
	patch -d "$work" -p1 -s -N --no-backup-if-mismatch <"$p" ||
		die "$(basename "$p") does not apply to $src"
done
for f in $files; do
	if ! cmp -s "$work/$f" "$tree/$f"; then
		mkdir -p "$(dirname "$tree/$f")"
		cp "$work/$f" "$tree/$f.dtl" && mv "$tree/$f.dtl" "$tree/$f"
	fi
done
