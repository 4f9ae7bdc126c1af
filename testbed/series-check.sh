#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The checks a maintainer runs on the series of make series, one TAP line
# each:
#   - it applies with git am to the files of linux-source-7.3, and after
#     each patch a linux-source-7.3 tree with the series up to it builds
#     (series-bisect.sh);
#   - each patch is checkpatch.pl --strict clean (FILE_PATH_CHANGES aside:
#     the MAINTAINERS patch of the series covers every new file, which the
#     get_maintainer check below proves; two more are ignored where said);
#   - scripts/kernel-doc -none -Wall is clean on every new kernel file;
#   - make htmldocs of the admin guide has no warning about dtl.rst, and
#     get_abi.py renders and validates the ABI file;
#   - get_maintainer.pl --self-test=patterns finds a file for every F:
#     pattern of dtl's MAINTAINERS entry, and names that entry for every
#     file the series adds.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/dtl-series-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
notok() { n=$((n + 1)) bad=$((bad + 1)); echo "not ok $n $1"; }

echo "TAP version 13"
if ! "$DTL_TOP/testbed/series.sh" "$work/series" >"$work/series.log" 2>&1; then
	cat "$work/series.log"
	notok "make series"
	echo "1..$n"
	exit 1
fi
patches=("$work"/series/00[0-9][0-9]-*.patch)
patches=("${patches[@]:1}")	# not the cover letter
ok "make series wrote ${#patches[@]} patches and a cover letter"

repo=$work/repo
mkdir -p "$repo"
dtl_series_base "$repo" "dtl check <dtl@localhost>" >/dev/null
if git -C "$repo" -c user.name=check -c user.email=check@localhost am -q \
	"${patches[@]}" 2>"$work/am.err"; then
	ok "git am applies all ${#patches[@]} patches to linux-source-7.3 ($DTL_K73_REL)"
	# After every patch the tree builds (series-bisect.sh says what).
	"$DTL_TOP/testbed/series-bisect.sh" "$repo" "$n" >"$work/bisect.out" 2>&1
	rc=$?
	cat "$work/bisect.out"
	n=$((n + $(grep -cE '^(not )?ok ' "$work/bisect.out")))
	failed=$(grep -c '^not ok ' "$work/bisect.out")
	bad=$((bad + failed))
	[ "$rc" = 0 ] || [ "$failed" -gt 0 ] ||
		notok "series-bisect.sh stopped: $(tail -1 "$work/bisect.out")"
else
	cat "$work/am.err"
	notok "git am of the series"
fi

for p in "${patches[@]}"; do
	name=${p##*/}
	ignore=FILE_PATH_CHANGES why=''
	# The tools copy of the uapi header is the header, byte for byte;
	# checkpatch exempts include/uapi/ from BIT(), which uapi cannot use,
	# but not its copy.
	if grep -q '^+++ b/tools/include/uapi/' "$p"; then
		ignore=$ignore,BIT_MACRO why="$why, BIT_MACRO (the tools uapi copy)"
	fi
	# perf test reads a shell test's description from its line 2, as in
	# every tools/perf/tests/shell script: SPDX comes on line 3.
	if grep -q '^+++ b/tools/perf/tests/shell/' "$p"; then
		ignore=$ignore,SPDX_LICENSE_TAG why="$why, SPDX_LICENSE_TAG (perf test's line 2)"
	fi
	# A Fixes: tag names an upstream commit, which the base (a source
	# package, no history) cannot show: checkpatch checks its form only.
	if grep -q '^Fixes: ' "$p"; then
		ignore=$ignore,UNKNOWN_COMMIT_ID why="$why, UNKNOWN_COMMIT_ID (Fixes: an upstream commit)"
	fi
	if "$DTL_SRC73/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
		--ignore "$ignore" - <"$p" >"$work/cp.out" 2>&1; then
		ok "checkpatch --strict: $name ($(grep -c '' "$p") lines${why:+; ignored${why#,}})"
	else
		sed 's/^/# /' "$work/cp.out"
		notok "checkpatch --strict: $name"
	fi
done

kfiles=$(git -C "$repo" diff --name-only --diff-filter=A base HEAD -- \
	drivers include arch | grep -E '\.[ch]$')
if out=$(cd "$repo" && "$DTL_SRC73/scripts/kernel-doc" -none -Wall $kfiles 2>&1) &&
   [ -z "$out" ]; then
	ok "kernel-doc -none -Wall: $(echo $kfiles | wc -w) new kernel files, no warning"
else
	echo "$out" | sed 's/^/# /'
	notok "kernel-doc -none -Wall"
fi

# make htmldocs of the admin guide from the tree with dtl laid over it:
# no warning that names dtl.rst or the ABI file, which 7.3's admin guide
# renders.  (The guide has warnings of its own.)
tree=$(dtl_stage_tree)
if PATH=/usr/bin:$PATH make -s -C "$tree" O="$work/docs" SPHINXDIRS=admin-guide \
	SPHINXOPTS=-j1 PYTHON3=/usr/bin/python3 htmldocs >"$work/docs.log" 2>&1 &&
   [ -f "$work/docs/Documentation/output/admin-guide/perf/dtl.html" ]; then
	html=$work/docs/Documentation/output/admin-guide/perf/dtl.html
	if grep -E 'WARNING|ERROR' "$work/docs.log" | grep -E 'dtl\.rst|devices-dtl|dtl-[a-z]*\.svg'; then
		notok "make htmldocs warns about dtl's documentation"
	elif ! grep -q 'dtl-timeline\.svg' "$html" || ! grep -q 'dtl-datapath\.svg' "$html" ||
	     ! grep -q 'dtl-perf-timeline\.svg' "$html"; then
		notok "make htmldocs: dtl.html lacks its figures (dtl-timeline.svg, dtl-datapath.svg, dtl-perf-timeline.svg)"
	else
		ok "make SPHINXDIRS=admin-guide htmldocs: dtl.rst and its three figures without warnings"
	fi
else
	tail -20 "$work/docs.log"
	notok "make SPHINXDIRS=admin-guide htmldocs"
fi

# The ABI file as tools/docs/get_abi.py renders it for the documentation:
# every What: of it, and nothing it warns about.
abi=Documentation/ABI/testing/sysfs-bus-event_source-devices-dtl
whats=$(grep -c '^What:' "$tree/$abi")
(cd "$tree" && python3 tools/docs/get_abi.py -D Documentation/ABI/testing rest --enable-lineno) \
	>"$work/abi.rst" 2>"$work/abi.err"
(cd "$tree" && python3 tools/docs/get_abi.py -D Documentation/ABI validate) >>"$work/abi.err" 2>&1
got=$(grep -c "^\.\. LINENO $abi#" "$work/abi.rst")
if [ "$whats" -gt 0 ] && [ "$got" = "$whats" ] && ! grep -q 'devices-dtl' "$work/abi.err"; then
	ok "get_abi.py renders the $whats entries of the dtl ABI file and validates it"
else
	grep 'devices-dtl' "$work/abi.err" | sed 's/^/# /'
	notok "get_abi.py: $got of $whats entries of the dtl ABI file rendered"
fi

# get_maintainer.pl checks patterns against the repository's files: in
# this repository those of the series and of the base, so only the
# warnings about dtl's entry count.
entry='DTL (DISPATCH TRACE LOG) PMU DRIVER'
first=$(grep -n "^$entry\$" "$repo/MAINTAINERS" | cut -d: -f1)
last=$(awk -v f="$first" 'NR > f && /^$/ { print NR; exit }' "$repo/MAINTAINERS")
if [ -z "$first" ] || [ -z "$last" ]; then
	notok "MAINTAINERS has an entry '$entry'"
else
	(cd "$repo" && "$DTL_SRC73/scripts/get_maintainer.pl" --self-test=patterns) \
		>"$work/gm.out" 2>&1
	grep -q 'warning: no file matches' "$work/gm.out" ||
		echo "# get_maintainer.pl --self-test=patterns did not run: $(head -1 "$work/gm.out")"
	ours=$(awk -F: -v f="$first" -v l="$last" \
		'$1 ~ /MAINTAINERS$/ && $2 > f && $2 < l' "$work/gm.out")
	if [ -z "$ours" ] && grep -q 'warning: no file matches' "$work/gm.out"; then
		ok "get_maintainer --self-test=patterns: every F: of dtl's entry (lines $first-$last) matches a file"
	else
		echo "$ours" | sed 's/^/# /'
		notok "get_maintainer --self-test=patterns on dtl's entry"
	fi
	# get_maintainer.pl -f wants to see the top of a kernel tree.
	for f in COPYING CREDITS Kbuild Makefile README; do
		[ -e "$repo/$f" ] || touch "$repo/$f"
	done
	for d in Documentation arch include drivers fs init ipc kernel lib scripts; do
		mkdir -p "$repo/$d"
	done
	missing=''
	for f in $(git -C "$repo" diff --name-only --diff-filter=A base HEAD); do
		(cd "$repo" && "$DTL_SRC73/scripts/get_maintainer.pl" --no-git \
			--no-rolestats -f "$f" 2>/dev/null) | grep -q '<dtl@localhost>' ||
			missing="$missing $f"
	done
	if [ -z "$missing" ]; then
		ok "get_maintainer names dtl's maintainers for every file the series adds"
	else
		notok "get_maintainer: no dtl maintainer for:$missing"
	fi
fi
echo "1..$n"
echo "# series: $((n - bad)) passed, $bad failed"
[ "$bad" = 0 ]
