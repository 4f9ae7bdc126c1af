#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run a shell script in a QEMU TCG guest with dtl loaded and exit with the
# script's status.  Any kernel splat in the guest's log fails the run.
#
# usage: vm-run.sh [options] SCRIPT
#   -k IMAGE    kernel to boot (default: Debian's 6.12 for $DTL_ARCH)
#   -m KO       dtl module to load (default: the out-of-tree build)
#   -f SRC=DST  add a file or directory to the guest at /DST (repeatable)
#   -n          do not load dtl before the script
#   -t SECS     kill the guest after SECS seconds (default 300)
#   -q ARGS     extra QEMU arguments (e.g. "-icount shift=3,sleep=off")
#   -o DIR      keep console.log and out.log in DIR
#   -s          quiet: do not stream the script's output
#
# Environment: DTL_ARCH (x86_64 or arm64), DTL_SMP (vCPUs, default 2),
# DTL_MEM (MiB, default 1024).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=${DTL_KERNEL:-$DTL_IMAGE}
ko=${DTL_KO:-$DTL_BUILD/module/dtl_pmu.ko}
load=1 timeout=300 qextra="" outdir="" stream=1
extra=()
while getopts "k:m:f:nt:q:o:s" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	m) ko=$OPTARG ;;
	f) extra+=("$OPTARG") ;;
	n) load=0 ;;
	t) timeout=$OPTARG ;;
	q) qextra=$OPTARG ;;
	o) outdir=$OPTARG ;;
	s) stream=0 ;;
	*) sed -n 's/^# \{0,1\}//;4,18p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || die "usage: vm-run.sh [options] SCRIPT (see the header of $0)"
script=$1
[ -f "$script" ] || die "no such script: $script"
[ -f "$kernel" ] || die "no kernel at $kernel (run: make setup)"
[ $load = 0 ] || [ -f "$ko" ] || die "no module at $ko (run: make guest-module)"

work=$(mktemp -d "${TMPDIR:-/tmp}/dtl-vm.XXXXXX")
qpid=""
cleanup() {
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null || true
	if [ -n "$outdir" ]; then
		mkdir -p "$outdir"
		cp "$work"/*.log "$outdir"/ 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# The base image (busybox, stock perf and the libraries) is cached; the
# payload with this run's files is a second cpio archive appended to it.
base=$("$DTL_TOP/testbed/mkbase.sh")

mkdir -p "$work/root/dtl"
cp "$DTL_TOP/testbed/guest/init" "$work/root/init"
chmod 755 "$work/root/init"
cp "$script" "$work/root/dtl/run.sh"
[ $load = 0 ] || cp "$ko" "$work/root/dtl/dtl_pmu.ko"
out_dev=/dev/ttyS1
[ "$DTL_ARCH" = arm64 ] && out_dev=/dev/hvc0
printf 'DTL_LOAD=%s\nDTL_OUT=%s\n' "$load" "$out_dev" >"$work/root/dtl/env"
for spec in ${extra[@]+"${extra[@]}"}; do
	src=${spec%%=*}
	dst=$work/root/${spec#*=}
	[ -e "$src" ] || die "no such file: $src"
	mkdir -p "$(dirname "$dst")"
	cp -a "$src" "$dst"
done
(cd "$work/root" && find . -print0 | cpio --null -o -H newc --quiet) >"$work/payload.cpio"
cat "$base" "$work/payload.cpio" >"$work/initrd.cpio"

touch "$work/console.log" "$work/out.log"
# An oops panics, and the guest stops (panic=-1 with -no-reboot): a kernel
# that oopsed, with a lock held, can hang until the time limit and say
# nothing more.
# Single-threaded TCG: multi-threaded TCG has oopsed here on cross-CPU code
# patching when perf flips static keys.
append="loglevel=4 oops=panic panic=-1 nokaslr ${DTL_APPEND:-}"
if [ "$DTL_ARCH" = arm64 ]; then
	# virt has one UART: the script's output goes to a virtio console.
	# pauth emulation would make TCG 2.5x slower.
	qemu=(qemu-system-aarch64 -machine virt -cpu max,pauth=off
	      -serial "file:$work/console.log"
	      -device virtio-serial-pci -chardev "file,id=out,path=$work/out.log"
	      -device virtconsole,chardev=out)
	append="console=ttyAMA0 $append"
else
	qemu=(qemu-system-x86_64 -machine q35 -cpu max
	      -serial "file:$work/console.log" -serial "file:$work/out.log")
	append="console=ttyS0 mitigations=off no_timer_check tsc=reliable $append"
fi
# shellcheck disable=SC2086
"${qemu[@]}" -accel tcg,thread=single -nodefaults -display none \
	-m "${DTL_MEM:-1024}" -smp "${DTL_SMP:-2}" -no-reboot \
	-kernel "$kernel" -initrd "$work/initrd.cpio" -append "$append" \
	$qextra </dev/null >"$work/qemu.log" 2>&1 &
qpid=$!

start=$SECONDS
if [ $stream = 1 ]; then
	tail -n +1 -f --pid=$qpid "$work/out.log" | sed -u 's/\r$//; /^DTL-VM-DMESG-BEGIN$/,$d' &
fi
timed_out=0
while kill -0 $qpid 2>/dev/null; do
	if [ $((SECONDS - start)) -ge "$timeout" ]; then
		timed_out=1
		kill $qpid 2>/dev/null || true
		break
	fi
	sleep 0.2
done
wait $qpid 2>/dev/null || true
qpid=""
wait 2>/dev/null || true
# The guest's serial port ends lines with CR LF.
sed -i 's/\r$//' "$work/out.log" "$work/console.log"
[ $stream = 1 ] || sed '/^DTL-VM-DMESG-BEGIN$/,$d' "$work/out.log"

# Kernel splats: BUG, WARNING, Oops, KASAN, lockdep, might_sleep, RCU stalls.
splat='(BUG:|WARNING:|Oops|general protection fault|KASAN|UBSAN|kernel BUG|Kernel panic|possible recursive locking|circular locking dependency|inconsistent lock state|sleeping function called from invalid context|rcu_.*detected stall|self-detected stall|INFO: task .* blocked for more than|unreferenced object)'

# splat_digest: "DTL-SPLAT" lines, for a report that shows only its last
# lines (CI's): the first line of each of the guest's first two splats,
# its RIP and the first reliable frames of its call trace.
splat_digest() {
	{ cat "$work/console.log"
	  sed -n '/^DTL-VM-DMESG-BEGIN$/,/^DTL-VM-DMESG-END$/p' "$work/out.log"; } |
	awk -v re="$splat" '
		left > 0 { left-- }
		left > 0 && !rip && / RIP: / { rip = 1; print; next }
		left > 0 && / Call Trace:/ { trace = 1; next }
		left > 0 && / <\/TASK>/ { trace = 0 }
		left > 0 && trace && frames < 6 && /\] +[A-Za-z0-9_.]+\+0x/ {
			frames++; print; next
		}
		left == 0 && $0 ~ re {
			if (++n > 2)
				exit
			left = 40; rip = 0; trace = 0; frames = 0
			print
		}' | sed 's/^/DTL-SPLAT /'
}

if [ $timed_out = 1 ]; then
	echo "DTL-VM: FAIL: guest killed after ${timeout}s timeout (last console lines below)"
	splat_digest
	tail -n 20 "$work/console.log"
	exit 124
fi
rc=$(sed -n 's/^DTL-VM-EXIT \([0-9]*\)$/\1/p' "$work/out.log" | tail -1)
if [ -z "$rc" ]; then
	echo "DTL-VM: FAIL: guest stopped before the script finished (console below)"
	splat_digest
	tail -n 40 "$work/console.log"
	cat "$work/qemu.log"
	exit 125
fi

{ cat "$work/console.log"; sed -n '/^DTL-VM-DMESG-BEGIN$/,/^DTL-VM-DMESG-END$/p' "$work/out.log"; } |
	grep -E "$splat" >"$work/splats.log" || true
if [ -s "$work/splats.log" ]; then
	echo "DTL-VM: FAIL: kernel splat in the guest log:"
	splat_digest
	sed -n '/^DTL-VM-DMESG-BEGIN$/,/^DTL-VM-DMESG-END$/p' "$work/out.log" |
		grep -E -B2 -A25 "$splat" | head -n 80
	exit 126
fi
echo "DTL-VM: script exited $rc after $((SECONDS - start))s, no kernel splat"
exit "$rc"
