#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# checkpatch.pl --strict from the 6.12 tree over the given kernel files and
# over patches/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[ $# -gt 0 ] || die "checkpatch: no files given"
cd "$DTL_TOP"
rc=0
if "$DTL_SRC/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types -f "$@"; then
	echo "checkpatch: $# files, 0 errors, 0 warnings, 0 checks"
else
	rc=1
fi
# The edits to existing files are git patches: their messages and diffs too.
patches=(patches/*/*.patch)
if "$DTL_SRC/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types "${patches[@]}"; then
	echo "checkpatch: ${#patches[@]} patches, 0 errors, 0 warnings, 0 checks"
else
	rc=1
fi
exit $rc
