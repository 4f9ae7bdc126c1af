#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# dkms.conf as a user runs it: dkms add, build and install for Debian's
# 6.12 kernel, in scratch trees (--dkmstree/--sourcetree/--installtree,
# so the host's /usr/src, /var/lib/dkms and /lib/modules stay as they
# are); then the installed module is loaded in a guest, where Debian's
# perf counts with it; then dkms remove leaves nothing behind.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

command -v dkms >/dev/null || die "dkms not installed (make setup installs it)"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$DTL_TOP/dkms.conf")
[ -n "$ver" ] || die "no PACKAGE_VERSION in dkms.conf"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dtl-dkms.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src/dtl_pmu-$ver
mkdir -p "$src" "$tmp/tree" "$tmp/inst/$DTL_KVER"
# What "dkms add ." copies from a checkout (the fuzzer's seeds are not needed).
git -C "$DTL_TOP" ls-files -z | grep -zv '^testbed/fuzz/seeds/' |
	(cd "$DTL_TOP" && xargs -0 cp --parents -t "$src")
dkms() { command dkms --dkmstree "$tmp/tree" --sourcetree "$tmp/src" \
	--installtree "$tmp/inst" "$@"; }

dkms add -m dtl_pmu -v "$ver" >"$tmp/log" 2>&1 &&
dkms build -m dtl_pmu -v "$ver" -k "$DTL_KVER" >>"$tmp/log" 2>&1 &&
dkms install -m dtl_pmu -v "$ver" -k "$DTL_KVER" >>"$tmp/log" 2>&1 ||
	{ cat "$tmp/log"; cat "$tmp/tree/dtl_pmu/$ver/build/make.log" 2>/dev/null; die "dkms failed"; }
status=$(dkms status -m dtl_pmu 2>/dev/null)
echo "dkms status: $status"
[[ "$status" == *"$DTL_KVER"*": installed"* ]] || die "dkms status does not say installed"
ko=$(find "$tmp/inst/$DTL_KVER" -name 'dtl_pmu.ko*' | head -1)
[ -n "$ko" ] || die "dkms install put no dtl_pmu.ko under the install tree"
echo "installed: ${ko#"$tmp/inst/"}"
case "$ko" in
*.xz) xz -dc "$ko" >"$tmp/dtl_pmu.ko" ;;
*.zst) zstd -qdc "$ko" >"$tmp/dtl_pmu.ko" ;;
*) cp "$ko" "$tmp/dtl_pmu.ko" ;;
esac

# Debian's perf 6.1 counts with the module DKMS built.
cat >"$tmp/guest.sh" <<'EOF'
#!/bin/sh
perf stat -x, -a -e '{dtl/dispatches/,context-switches}' -- sleep 1 2>/tmp/stat || exit 1
cat /tmp/stat
d=$(awk -F, '$3 ~ /dtl\/dispatches/ { print $1 }' /tmp/stat)
c=$(awk -F, '$3 ~ /context-switches/ { print $1 }' /tmp/stat)
echo "dkms module: dtl/dispatches $d, context-switches $c"
# Equal on an idle guest; a switch during the group's disable may count
# in one of them only.
[ "${d:-0}" -gt 0 ] && [ "${c:-0}" -gt 0 ] &&
	[ $((d > c ? d - c : c - d)) -le $((c / 100 + 2)) ]
EOF
"$DTL_TOP/testbed/vm-run.sh" -t 180 -m "$tmp/dtl_pmu.ko" "$tmp/guest.sh" ||
	die "the DKMS-built module did not count in the guest"

dkms remove -m dtl_pmu -v "$ver" --all >"$tmp/log" 2>&1 || { cat "$tmp/log"; die "dkms remove failed"; }
left=$(find "$tmp/inst" "$tmp/tree" -name 'dtl_pmu*' | wc -l)
status=$(dkms status -m dtl_pmu 2>/dev/null)
echo "after dkms remove: status '$status', $left files left"
[ -z "$status" ] && [ "$left" = 0 ] || die "dkms remove left dtl_pmu behind"
