#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build (once) the Debian guest: a Debian 12 root filesystem made with
# mmdebstrap from Debian's packages, with systemd, Debian's 6.12 kernel
# and its headers, dkms, Debian's perf and Performance Co-Pilot; with
# DTL_DEBIAN=13, Debian 13 (trixie) with trixie-backports' 7.3 kernel,
# headers (gcc-14) and linux-perf, as a user of Debian 13 who follows the
# current kernel installs them.  Cached under
# $DTL_CACHE/debian[13]-guest-KEY/ (KEY: a hash of this script and of
# versions.conf): rootfs.img (ext4, raw), vmlinuz and initrd.img.
# Prints that directory.
#
# At boot, dtl-run.service mounts the host's 9p share "dtl" at /dtl, runs
# /dtl/run.sh with its output on the second serial port (/dev/ttyS1) and
# powers the guest off; testbed/debian/vm-run.sh is the host side.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

[ "$DTL_ARCH" = x86_64 ] || die "the Debian guest is x86_64 only"
command -v mmdebstrap >/dev/null || die "mmdebstrap not installed (make setup installs it)"
release=${DTL_DEBIAN:-12}
case $release in
12)
	suite=bookworm kver=$DTL_KVER prefix=debian-guest systemctl=/bin/systemctl
	kpkgs=("linux-image-$kver-unsigned=$DTL_KPKG" "linux-headers-$kver=$DTL_KPKG"
	       "$DTL_STOCK_PERF_PKG")
	;;
13)
	suite=trixie kver=$DTL_K73_KVER prefix=debian13-guest systemctl=/usr/bin/systemctl
	# linux-base too: the image pre-depends on backports' newer one.
	# initramfs-tools, which a Debian 13 system has: backports' image
	# would otherwise bring dracut, whose initrd hung at switch-root here.
	kpkgs=("linux-image-$kver=$DTL_K73_PKG" "linux-headers-$kver=$DTL_K73_PKG"
	       "linux-perf=$DTL_K73_PKG" "linux-base/$DTL_K73_SUITE" initramfs-tools)
	;;
*)
	die "DTL_DEBIAN=$release: 12 or 13"
	;;
esac
pkgs=(
	systemd-sysv udev kmod procps util-linux iproute2 ca-certificates
	"${kpkgs[@]}" dkms make gcc pcp curl
)
key=$( (cat "$0" "$DTL_TOP/testbed/versions.conf"; echo "${pkgs[*]}") | sha256sum | cut -c1-12)
out=$DTL_CACHE/$prefix-$key
if [ -s "$out/rootfs.img" ] && [ -s "$out/vmlinuz" ] && [ -s "$out/initrd.img" ]; then
	echo "$out"
	exit 0
fi

# A killed mmdebstrap may leave /proc, /sys or /dev mounted in its tree:
# never remove a tree with a mount in it.
mounted() { grep -q " $1/" /proc/mounts; }
! mounted "$out.tmp" || die "mounts left in $out.tmp by a killed build: umount -R them first"
rm -rf "$out.tmp"
mkdir -p "$out.tmp"
dir=$out.tmp/root
include=$(IFS=,; echo "${pkgs[*]}")

# pcp's postinst runs "systemctl daemon-reload" and "systemctl start",
# which fail where systemd is not running (the chroot).  While the packages
# install, systemctl (at the path systemd's package lists: /bin in Debian
# 12, /usr/bin in 13) is diverted
# and a stand-in skips those (the guest starts its services at boot) and
# passes anything else on; the customize hook puts the real one back.
cat >"$out.tmp/systemctl" <<'FAKE'
#!/bin/sh
case "$1" in
daemon-reload|daemon-reexec|start|stop|restart|try-restart|reload|reload-or-restart) exit 0 ;;
esac
for real in /usr/bin/systemctl.real /bin/systemctl.real; do
	[ -x $real ] && exec $real "$@"
done
exit 0
FAKE
chmod 755 "$out.tmp/systemctl"
cat >"$out.tmp/essential.sh" <<'HOOK'
#!/bin/sh
set -e
chroot "$1" dpkg-divert --quiet --local --rename --divert "$3.real" --add "$3"
cp "$2" "$1$3"
HOOK
chmod 755 "$out.tmp/essential.sh"

# The guest's configuration, made in the chroot after the packages.
cat >"$out.tmp/customize.sh" <<'HOOK'
#!/bin/sh
set -e
root=$1
rm -f "$root$2"
chroot "$root" dpkg-divert --quiet --local --rename --remove "$2"
echo dtl-guest >"$root/etc/hostname"
# mmdebstrap leaves /etc/hosts empty; without localhost, PCP's tools
# and pmproxy cannot reach pmcd ("No route to host").
printf '127.0.0.1\tlocalhost\n127.0.1.1\tdtl-guest\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' \
	>"$root/etc/hosts"
cat >"$root/etc/fstab" <<FSTAB
/dev/vda / ext4 rw,relatime 0 1
dtl /dtl 9p trans=virtio,version=9p2000.L,msize=262144,nofail 0 0
FSTAB
mkdir -p "$root/dtl"
# No password for root on the console (a throwaway test guest).
chroot "$root" passwd -d root >/dev/null
cat >"$root/usr/local/sbin/dtl-run" <<'RUN'
#!/bin/sh
# Run the host's script, its output on the second serial port, then stop:
# the protocol of the busybox guest's /init (testbed/guest/init).
exec >/dev/ttyS1 2>&1 </dev/null
mountpoint -q /dtl || mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 dtl /dtl
echo "DTL-VM: systemd reached its default target $(cut -d' ' -f1 /proc/uptime) s after boot"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
export DTL_GUEST=debian
rc=127
if cd /dtl && [ -f run.sh ]; then
	sh ./run.sh
	rc=$?
fi
echo "DTL-VM-DMESG-BEGIN"
dmesg
echo "DTL-VM-DMESG-END"
echo "DTL-VM-EXIT $rc"
sync
systemctl --no-block poweroff
RUN
chmod 755 "$root/usr/local/sbin/dtl-run"
cat >"$root/etc/systemd/system/dtl-run.service" <<'UNIT'
[Unit]
Description=Run the dtl test bed's script from the host
After=multi-user.target pmcd.service systemd-modules-load.service
Wants=multi-user.target

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/dtl-run
StandardOutput=journal+console

[Install]
WantedBy=default.target
UNIT
chroot "$root" systemctl enable dtl-run.service >/dev/null 2>&1
# Boot faster under TCG: no timers or services the tests do not use.
for u in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
	 man-db.timer dpkg-db-backup.timer pmlogger.service pmie.service \
	 pmlogger_daily.timer pmlogger_check.timer pmlogger_farm.service \
	 pmie_daily.timer pmie_check.timer pmie_farm.service pmproxy.service; do
	chroot "$root" systemctl disable "$u" >/dev/null 2>&1 || true
done
chroot "$root" systemctl mask systemd-timesyncd.service >/dev/null 2>&1 || true
HOOK
chmod 755 "$out.tmp/customize.sh"

# The host's Debian mirrors (deb822 or one-line format) for Debian 12; for
# Debian 13 the same registry's trixie suites, backports included (the
# kernel packages are only there).  Neither touches the host's apt.
if [ "$release" = 12 ]; then
	sources=/etc/apt/sources.list.d/debian.sources
	[ -s "$sources" ] || sources=/etc/apt/sources.list
	[ -s "$sources" ] || die "no apt sources on this host for mmdebstrap"
else
	sources=$out.tmp/sources.list
	cat >"$sources" <<LIST
deb http://deb.debian.org/debian $suite main
deb http://deb.debian.org/debian $suite-updates main
deb http://deb.debian.org/debian $DTL_K73_SUITE main
deb http://deb.debian.org/debian-security $suite-security main
LIST
fi
say "building the Debian $release guest's root filesystem (mmdebstrap, once)"
mmdebstrap --mode=root --variant=minbase --include="$include" \
	--essential-hook="$out.tmp/essential.sh \"\$1\" $out.tmp/systemctl $systemctl" \
	--customize-hook="$out.tmp/customize.sh \"\$1\" $systemctl" \
	"$suite" "$dir" "$sources" \
	>"$out.tmp/mmdebstrap.log" 2>&1 ||
	{ tail -30 "$out.tmp/mmdebstrap.log"; die "mmdebstrap failed"; }
cp -L "$dir/boot/vmlinuz-$kver" "$out.tmp/vmlinuz"
cp -L "$dir/boot/initrd.img-$kver" "$out.tmp/initrd.img"
# Room for DKMS builds and recordings: 1.5 GiB over what the tree uses.
size=$(( $(du -sm "$dir" | cut -f1) + 1536 ))
mkfs.ext4 -q -F -L dtl-root -d "$dir" "$out.tmp/rootfs.img" "${size}M" >&2
rm -rf "$dir"
rm -rf "$out"
mv "$out.tmp" "$out"
# Images of earlier versions of this script or of versions.conf.
for old in "$DTL_CACHE/$prefix"-*; do
	[ "$old" = "$out" ] || mounted "$old" || rm -rf "$old"
done
echo "$out"
