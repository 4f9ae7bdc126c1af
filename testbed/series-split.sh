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
#                                 first and second steps (see unapply:
#                                 .rej files where a hunk did not come
#                                 out; fix those by hand)
#   series-split.sh save DIR      write the two patches again from DIR/1,
#                                 DIR/2 and the tree's files, with their
#                                 commit messages
#   series-split.sh refresh       both, in a scratch folder, when extract
#                                 needs no hand
#
# Either step's files may also be edited on purpose this way (a fix that
# belongs in an earlier patch).  make series then checks that every step
# builds (series-bisect.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kept=$DTL_TOP/patches/linux/driver
files="Kconfig Makefile dtl.h dtl_core.c dtl_kunit.c"
usage() { die "usage: series-split.sh extract|save DIR, or refresh"; }
if [ "${1:-}" = refresh ] && [ $# -eq 1 ]; then
	tmpd=$(mktemp -d "${TMPDIR:-/tmp}/dtl-refresh.XXXXXX")
	"$0" extract "$tmpd" >/dev/null || die "series-split: refresh needs a hand: $0 extract DIR"
	"$0" save "$tmpd"
	rm -rf "$tmpd"
	exit 0
fi
[ $# -eq 2 ] || usage
dir=$2
patches=("$kept"/0001-*.patch "$kept"/0002-*.patch)
[ -f "${patches[0]}" ] && [ -f "${patches[1]}" ] || die "no patches in $kept"

# unapply DIR PATCH: take PATCH out of the driver's files in DIR.  A hunk
# whose lines are still in the file as the patch left them comes out as
# patch -R would take it; one whose added lines were edited since (the
# usual case: a change inside code that only a later patch adds) comes
# out by its context: what lies between the hunk's unchanged lines before
# and after its change, found once each, in that order, is put back as
# it was before the patch.  A hunk that fits neither way goes to
# FILE.rej.
unapply() {
	python3 - "$1" "$2" <<'PY'
import os, re, sys
d, patch = sys.argv[1], sys.argv[2]
# The patch without format-patch's signature (from its last "-- " line).
text = open(patch).read().rsplit('\n-- \n', 1)[0] + '\n'
ok = True
for fdiff in re.split(r'^diff --git ', text, flags=re.M)[1:]:
    name = os.path.basename(re.search(r'^\+\+\+ b/(\S+)', fdiff, re.M).group(1))
    path = os.path.join(d, name)
    cur = open(path).read().split('\n')
    rej = []
    for h in re.split(r'^(?=@@ )', fdiff, flags=re.M)[1:]:
        lines = h.split('\n')[1:]
        while lines and lines[-1] == '':
            lines.pop()
        lines = [l for l in lines if not l.startswith('\\')]
        before = [l[1:] for l in lines if l[:1] in (' ', '-')]
        after = [l[1:] for l in lines if l[:1] in (' ', '+')]
        def find(seq, start=0):
            hits = [i for i in range(start, len(cur) - len(seq) + 1)
                    if cur[i:i + len(seq)] == seq]
            return hits
        hits = find(after)
        if len(hits) == 1:
            i = hits[0]
            cur[i:i + len(after)] = before
            continue
        # By context: the unchanged lines around one run of changes.
        kinds = ''.join(l[:1] for l in lines)
        m = re.fullmatch(r'( *)([-+]+)( *)', kinds)
        if m and m.group(1) and m.group(3):
            lead = before[:len(m.group(1))]
            trail = before[len(before) - len(m.group(3)):]
            old = before[len(lead):len(before) - len(trail)]
            hl = find(lead)
            if len(hl) == 1:
                ht = find(trail, hl[0] + len(lead))
                if ht:
                    cur[hl[0] + len(lead):ht[0]] = old
                    continue
        rej.append(h)
    open(path, 'w').write('\n'.join(cur))
    if rej:
        ok = False
        open(path + '.rej', 'w').write(''.join(rej))
        print('series-split: %s: %d hunk(s) in %s.rej' % (patch, len(rej), path),
              file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}

case $1 in
extract)
	rm -rf "$dir/1" "$dir/2"
	mkdir -p "$dir/2"
	for f in $files; do
		cp "$DTL_TOP/drivers/perf/dtl/$f" "$dir/2/$f"
	done
	rc=0
	unapply "$dir/2" "${patches[1]}" || rc=1
	cp -r "$dir/2" "$dir/1"
	rm -f "$dir"/1/*.rej
	unapply "$dir/1" "${patches[0]}" || rc=1
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
			# Its date too: a patch saved again unchanged is the same.
			{ sed -n 's/^Subject: //p' "$tmp/info"; echo
			  cat "$tmp/msg"; } |
			GIT_AUTHOR_DATE=$(sed -n 's/^Date: //p' "$tmp/info") \
				g commit -q -F -
		else
			g commit -q -m base
		fi
	}
	step "$dir/1" ""
	step "$dir/2" "${patches[0]}"
	step "$DTL_TOP/drivers/perf/dtl" "${patches[1]}"
	g format-patch -q --zero-commit -o "$tmp/out" HEAD~2..HEAD
	rm -f "$kept"/0001-*.patch "$kept"/0002-*.patch
	mv "$tmp"/out/*.patch "$kept/"
	ls "$kept"/*.patch
	;;
*)
	usage
	;;
esac
