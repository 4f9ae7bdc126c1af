#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The series is bisectable: after every patch the tree builds.  Called by
# series-check.sh with the repository it applied the series to (branch
# "series", tag "base"); prints one TAP line per patch, numbered from
# FIRST, and one for perf's check-headers.sh on the whole series; exits
# with the number of lines that failed.
#
# usage: series-bisect.sh REPO FIRST
#
# The tree is a hard-linked copy of linux-source-7.3, kept in the cache
# with its build directories, and the compilers run under ccache (its
# files in the cache too), so a second run costs little.  A run first
# puts back the pristine version of each file the series touches (a new
# inode each time: the links to the pristine source are never written
# through), then walks the series, writing each patch's files and
# building what the patch can change:
#   - drivers/, include/ or arch/: make W=1 C=2 drivers/perf/ (C=2:
#     sparse on every file) in an x86_64 defconfig + kvm_guest.config
#     build, dtl and its KUnit test as modules as soon as a Kconfig offers
#     them; no warning allowed; and for arm64, cross-compiled in a
#     defconfig build (+ SCHEDSTATS): drivers/perf/dtl/, W=1 C=1 (an arm64
#     defconfig builds many other drivers/perf/ files, not dtl's to mend);
#   - kernel/ and x86's perf core: the objects of the C files the patch
#     changes, W=1 (the series exports two tracepoints from
#     kernel/sched/core.c and a steal clock reader from
#     kernel/sched/cputime.c, and gives dtl its own slot of perf_ctx_data
#     in kernel/events/core.c and arch/x86/events/intel/lbr.c);
#   - tools/perf/ or tools/include/: perf, with the options of
#     build-perf.sh and WERROR=1;
#   - tools/testing/selftests/dtl/ or tools/dtl/: the selftests and the
#     helper, against the uapi headers of the tree at that patch.
# A patch that touches none of these (Documentation, MAINTAINERS) cannot
# change a build; its line says so.  The whole vmlinux is not linked: the
# series adds nothing to the kernel outside drivers/perf/ but three
# exports and the perf_ctx_data slot, whose objects are built.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

repo=$1 n=$2
tree=$DTL_CACHE/bisect-tree-$DTL_K73_REL
kout=$DTL_CACHE/build/bisect-kernel-$DTL_K73_REL
pout=$DTL_CACHE/build/bisect-perf-$DTL_K73_REL
tout=$DTL_CACHE/build/bisect-tests-$DTL_K73_REL
log=$DTL_CACHE/build/bisect.log
bad=0
mkdir -p "$kout" "$pout" "$tout"
export CCACHE_DIR=$DTL_CACHE/ccache
command -v ccache >/dev/null || die "no ccache (apt-get install ccache)"
# Linux 7.3 wants a newer sparse than bookworm's (build-sparse.sh).
sparse=$("$DTL_TOP/testbed/build-sparse.sh") || die "no sparse for Linux 7.3"

if [ ! -f "$tree/Makefile" ]; then
	rm -rf "$tree.tmp"
	cp -al "$DTL_SRC73" "$tree.tmp" && mv "$tree.tmp" "$tree" ||
		die "cannot copy $DTL_SRC73"
fi

# put FILE...: the pristine version of each file, or none if the series
# adds it.
put_back() {
	local f
	for f in "$@"; do
		rm -f "$tree/$f"
		if [ -f "$DTL_SRC73/$f" ]; then
			cp "$DTL_SRC73/$f" "$tree/$f"
		else
			(cd "$tree" && rmdir -p --ignore-fail-on-non-empty "$(dirname "$f")" 2>/dev/null)
		fi
	done
}
mapfile -t touched < <(git -C "$repo" diff --name-only base HEAD)
# What an earlier series touched and this one does not, too.
dtl_tree_forget "$tree" "$DTL_SRC73" "${touched[@]}"
put_back "${touched[@]}"
# Its objects too: a line below names dtl's objects only if they were built.
rm -rf "$kout/drivers/perf/dtl"

mk=(make -s -C "$tree" O="$kout" ARCH=x86 CC="ccache gcc")
prepared=$kout/.prepared-x86_64-kvm_guest
if [ ! -f "$prepared" ]; then
	"${mk[@]}" defconfig kvm_guest.config >/dev/null &&
	"${mk[@]}" -j"$(nproc)" modules_prepare >"$log" 2>&1 ||
		{ tail -20 "$log"; die "modules_prepare of the pristine tree failed"; }
	touch "$prepared"
fi

akout=$DTL_CACHE/build/bisect-kernel-arm64-$DTL_K73_REL
amk=(make -s -C "$tree" O="$akout" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
     CC="ccache aarch64-linux-gnu-gcc")
rm -rf "$akout/drivers/perf/dtl"
aprepared=$akout/.prepared-arm64-ftrace-schedstats
if [ ! -f "$aprepared" ]; then
	command -v aarch64-linux-gnu-gcc >/dev/null ||
		die "no aarch64-linux-gnu-gcc (make setup installs gcc-aarch64-linux-gnu)"
	mkdir -p "$akout"
	# FTRACE for TRACEPOINTS, SCHEDSTATS for SCHED_INFO: dtl depends on
	# both, and arm64's defconfig has neither.
	"${amk[@]}" defconfig >/dev/null &&
	"$tree/scripts/config" --file "$akout/.config" -e FTRACE -e SCHEDSTATS &&
	"${amk[@]}" olddefconfig >/dev/null &&
	"${amk[@]}" -j"$(nproc)" modules_prepare >"$log" 2>&1 ||
		{ tail -20 "$log"; die "arm64 modules_prepare of the pristine tree failed"; }
	touch "$aprepared"
fi

# build_arm64: dtl (a module once a Kconfig offers it), W=1 C=1; sets
# arm64 to what it built.
build_arm64() {
	local what=()
	arm64=''
	if grep -rqs '^config PERF_DTL$' "$tree/drivers/perf/" &&
	   ! grep -qx 'CONFIG_PERF_DTL=m' "$akout/.config"; then
		"$tree/scripts/config" --file "$akout/.config" -m PERF_DTL
	fi
	[ ! -f "$tree/drivers/perf/dtl/Makefile" ] || what+=(drivers/perf/dtl/)
	[ ${#what[@]} -gt 0 ] || return 0
	arm64="arm64 ${what[*]}"
	# The configuration may have changed: bring what arm64's prepare
	# step builds (the vDSO) up to date first, unchecked but with W=1
	# (its command line has the flags: else C=1 would check it again).
	# Then C=1: sparse on what is compiled, dtl's files (removed here).
	"${amk[@]}" olddefconfig >/dev/null &&
	"${amk[@]}" -j"$(nproc)" W=1 modules_prepare >"$log" 2>&1 || return 1
	rm -rf "$akout/drivers/perf/dtl"
	"${amk[@]}" -j"$(nproc)" W=1 C=1 CHECK="$sparse" "${what[@]}" >"$log" 2>&1 &&
	! grep -qE 'warning:|error:' "$log" || return 1
	# Once drivers/perf's Kconfig offers dtl, it is configured and its
	# objects are built.
	if grep -qs '"drivers/perf/dtl/Kconfig"' "$tree/drivers/perf/Kconfig"; then
		grep -qx 'CONFIG_PERF_DTL=m' "$akout/.config" ||
			{ echo "error: arm64: CONFIG_PERF_DTL=m did not stick" >>"$log"; return 1; }
		o=$(cd "$akout/drivers/perf" && ls dtl/*.o 2>/dev/null | xargs)
		[ -n "$o" ] || { echo "error: arm64: no dtl object was built" >>"$log"; return 1; }
		arm64="$arm64 ($o)"
	fi
}

# build_kernel: W=1, and sparse (C=2) on every file of drivers/perf/;
# dtl and its KUnit test as modules once a Kconfig offers them.
build_kernel() {
	if grep -rqs '^config PERF_DTL$' "$tree/drivers/perf/" &&
	   ! grep -qx 'CONFIG_PERF_DTL_KUNIT_TEST=m' "$kout/.config"; then
		"$tree/scripts/config" --file "$kout/.config" \
			-m PERF_DTL -e KUNIT -m PERF_DTL_KUNIT_TEST
	fi
	"${mk[@]}" olddefconfig >/dev/null &&
	# The driver is written against 7.3; on 6.12 it needs the tree's
	# compatibility header, which the series does not carry.
	"${mk[@]}" -j"$(nproc)" W=1 C=2 CHECK="$sparse" \
		drivers/perf/ >"$log" 2>&1 || return 1
	! grep -qE 'warning:|error:' "$log"
}

# build_core: the objects of the patch's C files under kernel/ and
# arch/x86/events/, W=1; sets core to them.
build_core() {
	local f
	core=()
	for f in "${files[@]}"; do
		case $f in kernel/*.c|arch/x86/events/*.c) core+=("${f%.c}.o") ;; esac
	done
	[ ${#core[@]} -gt 0 ] || return 0
	"${mk[@]}" -j"$(nproc)" W=1 "${core[@]}" >"$log" 2>&1 &&
	! grep -qE 'warning:|error:' "$log"
}

# AR=gcc-ar: binutils' ar loads every plugin in /usr/lib/bfd-plugins, and
# bookworm's LLVMgold aborts on an object of perf 7.3's tests ("LLVM
# ERROR: Invalid encoding"); gcc-ar gives it GCC's plugin only.
build_perf() {
	make -s -C "$tree/tools/perf" O="$pout" -j"$(nproc)" CC="ccache gcc" AR=gcc-ar NO_RUST=1 prefix=/usr \
		NO_LIBPYTHON=1 NO_LIBPERL=1 NO_LIBLLVM=1 NO_SLANG=1 NO_CAPSTONE=1 \
		NO_LIBBABELTRACE=1 NO_JVMTI=1 NO_GTK2=1 NO_LIBPFM4=1 NO_SDT=1 \
		WERROR=1 >"$log" 2>&1
}

# build_tests: sets tests to what it built (or tried to).
build_tests() {
	tests=''
	"${mk[@]}" headers >"$log" 2>&1 || return 1
	if [ -d "$tree/tools/dtl" ]; then
		tests=tools/dtl
		make -s -C "$tree/tools/dtl" BUILD="$tout/" >>"$log" 2>&1 || return 1
	fi
	if [ -d "$tree/tools/testing/selftests/dtl" ]; then
		tests="${tests:+$tests, }selftests/dtl"
		make -s -C "$tree/tools/testing/selftests/dtl" OUTPUT="$tout" \
			KHDR_INCLUDES="-isystem $kout/usr/include" >>"$log" 2>&1 || return 1
	fi
}

i=0
for c in $(git -C "$repo" rev-list --reverse base..HEAD); do
	i=$((i + 1)) n=$((n + 1))
	subject=$(git -C "$repo" log -1 --format=%s "$c")
	mapfile -t files < <(git -C "$repo" diff-tree -r --no-commit-id --name-only "$c")
	put_back "${files[@]}"
	for f in "${files[@]}"; do
		git -C "$repo" cat-file -e "$c:$f" 2>/dev/null || continue
		mkdir -p "$tree/$(dirname "$f")"
		git -C "$repo" show "$c:$f" >"$tree/$f"
		[ "$(git -C "$repo" ls-tree "$c" -- "$f" | cut -c1-6)" != 100755 ] ||
			chmod +x "$tree/$f"
	done
	built=() failed=''
	if printf '%s\n' "${files[@]}" | grep -qE '^(drivers|include|arch)/'; then
		if build_kernel; then
			o=$(cd "$kout/drivers/perf" 2>/dev/null &&
				ls dtl/dtl_pmu.o dtl/dtl_kunit.o 2>/dev/null | xargs)
			built+=("drivers/perf/ W=1 C=2${o:+ ($o)}")
		else
			failed="make W=1 C=2 drivers/perf/"
		fi
		if [ -n "$failed" ]; then
			:
		elif build_arm64; then
			[ -z "$arm64" ] || built+=("$arm64 W=1 C=1")
		else
			failed="$arm64 W=1 C=1"
		fi
	fi
	if [ -z "$failed" ] && printf '%s\n' "${files[@]}" | grep -qE '^(kernel|arch/x86/events)/.*\.c$'; then
		if build_core; then
			[ ${#core[@]} -eq 0 ] || built+=("${core[*]} W=1")
		else
			failed="make W=1 ${core[*]}"
		fi
	fi
	if [ -z "$failed" ] && printf '%s\n' "${files[@]}" | grep -qE '^tools/(perf|include)/'; then
		if build_perf; then built+=(perf); else failed=perf; fi
	fi
	if [ -z "$failed" ] &&
	   printf '%s\n' "${files[@]}" | grep -qE '^tools/(testing/selftests/dtl|dtl)/'; then
		if build_tests; then built+=("$tests"); else failed=$tests; fi
	fi
	if [ -n "$failed" ]; then
		bad=$((bad + 1))
		grep -E 'warning:|error:|Error' "$log" | head -20 | sed 's/^/# /'
		echo "not ok $n bisect $i \"$subject\": $failed does not build"
	elif [ ${#built[@]} = 0 ]; then
		echo "ok $n bisect $i \"$subject\": touches no built file"
	else
		what=${built[0]}
		for b in "${built[@]:1}"; do what="$what; $b"; done
		echo "ok $n bisect $i \"$subject\": $what build"
	fi
done

# The tree now holds the whole series: perf's check-headers.sh, which the
# series tells about the tools copy of the record format header, finds it
# equal to the kernel's.  (It lists the other headers 6.12 itself left
# out of sync; only dtl's count here.)
n=$((n + 1))
hdr=include/uapi/linux/perf_dtl.h
out=$(cd "$tree/tools/perf" && ./check-headers.sh 2>&1)
if ! grep -qF "\"$hdr\"" "$tree/tools/perf/check-headers.sh"; then
	bad=$((bad + 1))
	echo "not ok $n perf's check-headers.sh does not check $hdr"
elif grep -qF "$hdr" <<<"$out"; then
	bad=$((bad + 1))
	echo "$out" | sed 's/^/# /'
	echo "not ok $n perf's check-headers.sh: tools/$hdr differs from $hdr"
else
	echo "ok $n perf's check-headers.sh checks tools/$hdr: equal to $hdr"
fi
exit "$bad"
