# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for the testbed scripts; source it, do not run it.

DTL_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=versions.conf
. "$DTL_TOP/testbed/versions.conf"
DTL_CACHE=${DTL_CACHE:-${HOME:-/root}/.cache/dtl}
DTL_SRC=$DTL_CACHE/linux-source-${DTL_KREL%%+*}

die() { echo "dtl: $*" >&2; exit 1; }
say() { echo "dtl: $*" >&2; }

# apt-get update, tried again after a pause: a Debian mirror in the middle
# of a sync serves index files that do not match their Release file for a
# few minutes ("File has unexpected size ... Mirror sync in progress?").
# Still failing, it goes on with what it has: a package that cannot be
# found then fails where it is needed, by name.
dtl_apt_update() {
	local i
	for i in 1 2 3 4; do
		apt-get update -qq && return 0
		say "apt-get update failed (try $i of 4)"
		[ "$i" = 4 ] || sleep 60
	done
	say "going on with the package lists apt has"
}

# The architecture of the guest and of what is built for it.
DTL_ARCH=${DTL_ARCH:-x86_64}
case $DTL_ARCH in
x86_64)
	DTL_KVER=$DTL_KREL-$DTL_KFLAVOUR
	DTL_KHEADERS=/usr/src/linux-headers-$DTL_KVER
	DTL_DEBKERNEL=$DTL_CACHE/debian-$DTL_KVER
	DTL_IMAGE=$DTL_DEBKERNEL/vmlinux
	DTL_BUILD=$DTL_CACHE/build
	DTL_CROSS=
	;;
arm64)
	DTL_KVER=$DTL_KREL-arm64
	DTL_DEBKERNEL=$DTL_CACHE/debian-$DTL_KVER
	DTL_KHEADERS=$DTL_DEBKERNEL/root/usr/src/linux-headers-$DTL_KVER
	DTL_IMAGE=$DTL_DEBKERNEL/Image
	DTL_BUILD=$DTL_CACHE/build/arm64
	DTL_CROSS=aarch64-linux-gnu-
	;;
*)
	die "DTL_ARCH=$DTL_ARCH: x86_64 or arm64"
	;;
esac

# The staging tree: a hard-linked copy of the pristine source (cheap; the
# overlay replaces files, it never writes through the links) with the
# repo's files and patches laid over it.  Prints its path.
dtl_stage_tree() {
	local tree=$DTL_CACHE/tree-$DTL_KREL

	if [ ! -f "$tree/Makefile" ]; then
		cp -al "$DTL_SRC" "$tree.tmp"
		mv "$tree.tmp" "$tree"
	fi
	"$DTL_TOP/testbed/overlay.sh" "$tree"
	echo "$tree"
}
