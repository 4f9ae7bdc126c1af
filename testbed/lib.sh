# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for the testbed scripts; source it, do not run it.

DTL_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=versions.conf
. "$DTL_TOP/testbed/versions.conf"
DTL_CACHE=${DTL_CACHE:-${HOME:-/root}/.cache/dtl}
DTL_SRC73=$DTL_CACHE/linux-source-$DTL_K73_REL

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

# dtl_trixie_download DIR PKG=VER...: download Debian 13 packages into DIR
# with apt lists and state of their own under the cache; the host's
# sources and dpkg database are not touched.
dtl_trixie_download() {
	local dir=$1 apt=$DTL_CACHE/apt-$DTL_K73_SUITE i
	shift
	mkdir -p "$apt/lists/partial" "$dir"
	echo "deb http://deb.debian.org/debian $DTL_K73_SUITE main" >"$apt/sources.list"
	local opts=(-o "Dir::Etc::sourcelist=$apt/sources.list" -o Dir::Etc::sourceparts=-
		    -o "Dir::State::Lists=$apt/lists" -o APT::Sandbox::User=root)
	for i in 1 2 3; do
		apt-get "${opts[@]}" -qq update && break
		say "apt-get update of $DTL_K73_SUITE failed (try $i of 3)"
		[ "$i" = 3 ] || sleep 30
	done
	(cd "$dir" && apt-get "${opts[@]}" -qq download "$@") ||
		die "apt-get download from $DTL_K73_SUITE failed: $*"
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
# perf with dtl's decoder, built from Linux 7.3's tools/perf (build-perf.sh).
DTL_PERF_DIR=$DTL_BUILD/perf-$DTL_K73_REL

# The staging tree: a hard-linked copy of the pristine Linux 7.3 source
# (cheap; the overlay replaces files, it never writes through the links)
# with the repo's files and patches laid over it, as the series puts them
# there.  Prints its path.
dtl_stage_tree() {
	local tree=$DTL_CACHE/tree-$DTL_K73_REL

	if [ ! -f "$tree/Makefile" ]; then
		cp -al "$DTL_SRC73" "$tree.tmp"
		mv "$tree.tmp" "$tree"
	fi
	DTL_OVERLAY_SRC=$DTL_SRC73 "$DTL_TOP/testbed/overlay.sh" "$tree"
	echo "$tree"
}

# dtl_tree_forget TREE SRC FILE...: FILE... are the files about to be laid
# over TREE, a hard-linked copy of SRC (paths relative to both).  A file
# laid over it before but not now (one that the repository or a patch no
# longer has) gets SRC's version back, as a new file so that make rebuilds
# what used it, or goes where SRC has none.  Before is TREE/.dtl-laid, the
# list this writes; the first time, every source file of TREE that is no
# longer a hard link (overlay.sh and put_back replace files, never write
# through them; build outputs are left out).
dtl_tree_forget() {
	local tree=$1 src=$2 f
	shift 2
	{
		if [ -f "$tree/.dtl-laid" ]; then
			cat "$tree/.dtl-laid"
		else
			(cd "$tree" && find . -type f -links 1 ! -name '*.o' \
				! -name '*.a' ! -name '.*' ! -name '*.d' \
				! -name '*.so*' -printf '%P\n')
		fi
	} | sort -u | comm -23 - <(printf '%s\n' "$@" | sort -u) |
	while read -r f; do
		rm -f "$tree/$f"
		if [ -f "$src/$f" ]; then
			cp "$src/$f" "$tree/$f"
		else
			(cd "$tree" && rmdir -p --ignore-fail-on-non-empty \
				"$(dirname "$f")" 2>/dev/null) || :
		fi
	done
	printf '%s\n' "$@" | sort -u >"$tree/.dtl-laid"
}

# dtl_series_base DIR "Name <addr>": a git repository in DIR (branch
# "series", tag "base") whose one commit holds the files of linux-source-7.3
# that the patches in patches/ edit, as Debian ships them: the base the
# series is written on (series.sh) and applied to (series-check.sh).
dtl_series_base() {
	local repo=$1 from=$2 f
	git -C "$repo" init -q -b series
	for f in $(sed -n 's|^+++ b/||p' "$DTL_TOP"/patches/*/*.patch | sort -u); do
		[ -f "$DTL_SRC73/$f" ] || die "$f: not in $DTL_SRC73"
		mkdir -p "$repo/$(dirname "$f")"
		cp "$DTL_SRC73/$f" "$repo/$f"
	done
	git -C "$repo" add -A
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
	git -C "$repo" -c user.name="${from%% <*}" -c user.email="dtl@localhost" \
		-c commit.gpgsign=false commit -q \
		-m "Linux $DTL_K73_REL (the files of linux-source-7.3 that dtl edits)"
	git -C "$repo" tag base
}
