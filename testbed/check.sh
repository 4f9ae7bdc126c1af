#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make check: host-side checks, then every guest test in one VM boot.
# Ends with one line "N passed, N failed, N skipped"; exits 1 on a failure.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

pass=0 fail=0 skip=0
result() {	# result NAME PASS FAIL SKIP
	pass=$((pass + $2)) fail=$((fail + $3)) skip=$((skip + $4))
	printf '%-32s pass %3d  fail %3d  skip %3d\n' "$1" "$2" "$3" "$4" >>"$summary"
}
summary=$(mktemp)
log=$(mktemp)
trap 'rm -f "$summary" "$log"' EXIT

echo "# ==== host: checkpatch --strict"
if (cd "$DTL_TOP" && make -s checkpatch); then
	result host/checkpatch 1 0 0
else
	result host/checkpatch 0 1 0
fi

echo "# ==== host: tools copy of the record format header"
if cmp "$DTL_TOP/include/uapi/linux/perf_dtl.h" "$DTL_TOP/tools/include/uapi/linux/perf_dtl.h"; then
	result host/uapi-header-copy 1 0 0
else
	result host/uapi-header-copy 0 1 0
fi

echo "# ==== host: module build with W=1 against $DTL_KHEADERS"
if out=$("$DTL_TOP/testbed/build-module.sh" "$DTL_KHEADERS" "$DTL_CACHE/build/module-w1" 2>&1) &&
   ! grep -q 'warning:' <<<"$out"; then
	result host/build-W=1 1 0 0
else
	echo "$out"
	result host/build-W=1 0 1 0
fi

echo "# ==== guest: $(basename "${DTL_KERNEL:-$DTL_DEBKERNEL/vmlinux}")"
"$DTL_TOP/testbed/vm-run.sh" -t 900 -f "$DTL_CACHE/build/tests=dtl/tests" \
	"$DTL_TOP/testbed/guest/check.sh" | tee "$log"
vmrc=${PIPESTATUS[0]}
while read -r _ name p f s; do
	result "$name" "$p" "$f" "$s"
done < <(grep '^DTL-RESULT ' "$log")
if [ "$vmrc" -ne 0 ]; then
	# A splat, a timeout or a dead guest fails the run on its own.
	result guest/vm 0 1 0
fi

echo
echo "# ==== summary"
cat "$summary"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
