#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# First boot of the Debian guest: install dtl as a user would (DKMS from
# the source tree in /dtl/src), load it by name, have it loaded at every
# boot, and count with Debian's perf.  TAP on stdout.
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
not_ok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n $*"; }
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' /dtl/src/dkms.conf)
kver=$(uname -r)
echo "# Debian $(cat /etc/debian_version), kernel $kver, dtl_pmu $ver"

# "dkms add" of a copy in /usr/src, as a tarball or a checkout would be.
rm -rf "/usr/src/dtl_pmu-$ver"
cp -r /dtl/src "/usr/src/dtl_pmu-$ver"
if dkms add -m dtl_pmu -v "$ver" >/tmp/dkms.log 2>&1 &&
   dkms build -m dtl_pmu -v "$ver" -k "$kver" >>/tmp/dkms.log 2>&1 &&
   dkms install -m dtl_pmu -v "$ver" -k "$kver" >>/tmp/dkms.log 2>&1 &&
   dkms status -m dtl_pmu | grep -q "$kver.*: installed"; then
	ok "dkms add, build, install for $kver: $(dkms status -m dtl_pmu)"
else
	cat /tmp/dkms.log /var/lib/dkms/dtl_pmu/"$ver"/build/make.log 2>/dev/null | tail -30
	not_ok "dkms add, build, install for $kver"
fi

# The module DKMS built, uncompressed, for the host: make check boots this
# kernel with it in the busybox guest and runs the selftest suites there
# when the debug kernel is not built yet (a cold make check).
mkdir -p /dtl/out
ko=$(find "/var/lib/dkms/dtl_pmu/$ver/$kver" -name 'dtl_pmu.ko*' | head -n 1)
case $ko in
*.xz) xz -dc "$ko" >/dtl/out/dtl_pmu.ko ;;
*.zst) zstd -qdc "$ko" >/dtl/out/dtl_pmu.ko ;;
*.gz) gzip -dc "$ko" >/dtl/out/dtl_pmu.ko ;;
?*) cp "$ko" /dtl/out/dtl_pmu.ko ;;
esac
echo "# the module DKMS built: ${ko:-none}"

if modprobe dtl_pmu && [ -d /sys/bus/event_source/devices/dtl ]; then
	ok "modprobe dtl_pmu: $(modinfo -F filename dtl_pmu)"
else
	not_ok "modprobe dtl_pmu"
fi

# systemd-modules-load reads each *.conf there, a module name a line.
conf=/etc/modules-load.d/dtl_pmu.conf
if echo dtl_pmu >"$conf" && [ "$(grep -v '^[#;]' "$conf")" = dtl_pmu ] &&
   modprobe -n dtl_pmu; then
	ok "dtl_pmu listed in $conf"
else
	cat "$conf"
	not_ok "dtl_pmu listed in $conf"
fi

# Debian's perf (6.1 on Debian 12, 7.3 on Debian 13 with backports) counts
# with it: equal to the kernel's own switch count.
perf stat -x, -a -e '{dtl/dispatches/,context-switches}' -- sleep 2 2>/tmp/stat
d=$(awk -F, '$3 ~ /dtl\/dispatches/ { print $1 }' /tmp/stat)
c=$(awk -F, '$3 ~ /context-switches/ { print $1 }' /tmp/stat)
if [ "${d:-0}" -gt 0 ] && [ $((d > c ? d - c : c - d)) -le $((c / 100 + 2)) ]; then
	ok "perf $(perf version | cut -d' ' -f3) stat -a: dtl/dispatches $d, context-switches $c"
else
	cat /tmp/stat
	not_ok "perf stat -a: dtl/dispatches ${d:-none}, context-switches ${c:-none}"
fi
echo "# install: $n tests, $fail failed"
[ $fail = 0 ]
