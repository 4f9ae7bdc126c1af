#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Lay the repo's kernel and tools files over a Linux tree as the upstream
# patch would, and apply the edits to existing files kept in patches/linux.
# The tree may be a hard-linked copy of a pristine one: files are replaced,
# never written through.
# usage: overlay.sh TREE
set -euo pipefail
. "$(dirname "$0")/lib.sh"
tree=$1
for d in drivers include arch tools Documentation; do
	[ -d "$DTL_TOP/$d" ] || continue
	rsync -rlpt --checksum "$DTL_TOP/$d/" "$tree/$d/"
done
for p in "$DTL_TOP"/patches/linux/*.patch; do
	[ -e "$p" ] || continue
	if patch -d "$tree" -p1 -R -s -f --dry-run <"$p" >/dev/null 2>&1; then
		continue	# already applied
	fi
	for f in $(sed -n 's|^+++ b/||p' "$p"); do
		[ -f "$tree/$f" ] && cp "$tree/$f" "$tree/$f.dtl" && mv "$tree/$f.dtl" "$tree/$f"
	done
	patch -d "$tree" -p1 -s -N <"$p" || die "$(basename "$p") does not apply to $tree"
done
