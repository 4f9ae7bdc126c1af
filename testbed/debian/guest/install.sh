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

if modprobe dtl_pmu && [ -d /sys/bus/event_source/devices/dtl ]; then
	ok "modprobe dtl_pmu: $(modinfo -F filename dtl_pmu)"
else
	not_ok "modprobe dtl_pmu"
fi

echo dtl_pmu >/etc/modules-load.d/dtl_pmu.conf
ok "dtl_pmu listed in /etc/modules-load.d/dtl_pmu.conf"

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
