#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# checkpatch.pl --strict from the 6.12 tree over the given kernel files.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[ $# -gt 0 ] || die "checkpatch: no files given"
cd "$DTL_TOP"
"$DTL_SRC/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types -f "$@" && echo "checkpatch: $# files, 0 errors, 0 warnings, 0 checks"
