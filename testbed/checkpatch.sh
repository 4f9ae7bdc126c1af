#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# checkpatch.pl --strict from the 7.3 tree (the newest the driver targets)
# over the given kernel files and
# over patches/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[ $# -gt 0 ] || die "checkpatch: no files given"
cd "$DTL_TOP"
rc=0
# The compatibility layer is version checks by nature: checkpatch's
# LINUX_VERSION_CODE and CONSTANT_COMPARISON (it takes LINUX_VERSION_CODE
# for a constant) are ignored there, and only there.
kernel=() compat=()
for f in "$@"; do
	case $f in
	compat/*) compat+=("$f") ;;
	*) kernel+=("$f") ;;
	esac
done
if "$DTL_SRC73/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types -f "${kernel[@]}" &&
   { [ ${#compat[@]} = 0 ] ||
     "$DTL_SRC73/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
	--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON -f "${compat[@]}"; }; then
	echo "checkpatch: $# files, 0 errors, 0 warnings, 0 checks"
else
	rc=1
fi
# The edits to existing files are git patches: their messages and diffs too.
# checkpatch.pl checks a file that git tracks as a source file (-f), so
# each patch goes in on stdin.
n=0
bad=0
for p in patches/*/*.patch; do
	n=$((n + 1))
	# A Fixes: tag names an upstream commit, which a tree without the
	# kernel's history cannot show: checkpatch checks its form only.
	ignore=
	! grep -q '^Fixes: ' "$p" || ignore=UNKNOWN_COMMIT_ID
	if ! "$DTL_SRC73/scripts/checkpatch.pl" --strict --no-tree --quiet \
		--show-types ${ignore:+--ignore "$ignore"} - < "$p"; then
		echo "checkpatch: in $p"
		bad=$((bad + 1))
	fi
done
if [ "$bad" -eq 0 ]; then
	echo "checkpatch: $n patches, 0 errors, 0 warnings, 0 checks"
else
	echo "checkpatch: $bad of $n patches have problems"
	rc=1
fi
exit $rc
