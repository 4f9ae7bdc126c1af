#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build perf 7.3 from Debian's linux-source with dtl's decoder and patch
# (tools/perf/util/dtl.c, patches/perf/), lean enough for the guest, with
# Debian's Python for "perf script -s" (mkbase.sh carries its library);
# for DTL_ARCH=arm64 cross-built, without Python (the sysroot has no
# python3-dev); with DTL_PERF_ASAN=1, for the host with ASan and UBSan
# (DEBUG=1: -O0, as perf's Build.txt says), for the fuzzer and the Python
# script test.
# Incremental: a rebuild after a change in dtl.c takes seconds.
# Prints the path of the perf binary.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$DTL_PERF_DIR
tree=$(dtl_stage_tree)
cross=()
python=(PYTHON=/usr/bin/python3 PYTHON_CONFIG=/usr/bin/python3-config)
[ -n "$DTL_CROSS" ] && python=(NO_LIBPYTHON=1)
if [ "${DTL_PERF_ASAN:-0}" = 1 ]; then
	out=$DTL_CACHE/build/perf-asan-$DTL_K73_REL
	cross=(DEBUG=1 EXTRA_CFLAGS="-fno-omit-frame-pointer -fsanitize=address,undefined"
	       LDFLAGS="-fsanitize=address,undefined")
	python=(PYTHON=/usr/bin/python3 PYTHON_CONFIG=/usr/bin/python3-config)
fi
[ "${python[0]}" = NO_LIBPYTHON=1 ] || [ -x /usr/bin/python3-config ] ||
	die "no /usr/bin/python3-config (run: make setup, or apt-get install python3-dev)"

mkdir -p "$out"
if [ -n "$DTL_CROSS" ] && [ "${DTL_PERF_ASAN:-0}" != 1 ]; then
	# Against the arm64 packages that setup-arm64.sh unpacked; the BPF
	# skeletons would need a host bpftool built with the same flags.
	sr=$DTL_DEBKERNEL/root
	cross=(ARCH=arm64 CROSS_COMPILE="$DTL_CROSS" BUILD_BPF_SKEL=0
	       EXTRA_CFLAGS="--sysroot=$sr" LDFLAGS="--sysroot=$sr"
	       PKG_CONFIG_SYSROOT_DIR="$sr"
	       PKG_CONFIG_LIBDIR="$sr/usr/lib/aarch64-linux-gnu/pkgconfig:$sr/usr/share/pkgconfig")
fi
# python3-config may be a pyenv shim here: build with Debian's Python, named,
# and without the other optional libraries the guest does not carry.
# prefix=/usr: dlfilters are looked up in /usr/libexec/perf-core/dlfilters.
# AR: binutils' ar loads every plugin in /usr/lib/bfd-plugins, and
# bookworm's LLVMgold aborts on an object of perf 7.3's tests ("LLVM
# ERROR: Invalid encoding"); gcc-ar gives it GCC's plugin only.
# NO_RUST=1: perf 7.3 builds a Rust test workload wherever it finds
# rustc, which a host may have without the arm64 target.
make -s -C "$tree/tools/perf" O="$out" -j"$(nproc)" "${cross[@]}" AR="${DTL_CROSS}gcc-ar" \
	NO_RUST=1 prefix=/usr \
	"${python[@]}" NO_LIBPERL=1 NO_LIBLLVM=1 NO_SLANG=1 NO_CAPSTONE=1 \
	NO_LIBBABELTRACE=1 NO_JVMTI=1 NO_GTK2=1 NO_LIBPFM4=1 NO_SDT=1 \
	NO_LIBTRACEEVENT= WERROR=1 >"$out/build.log" 2>&1 ||
	{ grep -E 'error|Error' -A3 "$out/build.log" | head -40; die "perf build failed (log: $out/build.log)"; }
echo "$out/perf"
