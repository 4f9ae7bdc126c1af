#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run a shell script in the Debian guest (testbed/debian/mkrootfs.sh):
# Debian 12 with systemd on Debian's 6.12 kernel, in QEMU TCG.  The same
# protocol and exit status as testbed/vm-run.sh; dtl is not loaded: the
# script installs it as a user would.  The root disk is a copy-on-write
# overlay of the cached image, kept with -d so that a second boot sees
# what the first one installed.
#
# usage: debian/vm-run.sh [options] SCRIPT
#   -f SRC=DST  put a file or directory in the guest at /dtl/DST (repeatable)
#   -d DISK     the overlay to boot (created if missing, kept afterwards)
#   -t SECS     kill the guest after SECS seconds (default 600)
#   -o DIR      keep console.log and out.log in DIR, and what the script
#               left in /dtl/out (a folder), in DIR/out
#   -s          quiet: do not stream the script's output
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

timeout=600 outdir="" stream=1 disk=""
extra=()
while getopts "f:d:t:o:s" opt; do
	case $opt in
	f) extra+=("$OPTARG") ;;
	d) disk=$OPTARG ;;
	t) timeout=$OPTARG ;;
	o) outdir=$OPTARG ;;
	s) stream=0 ;;
	*) sed -n 's/^# \{0,1\}//;4,17p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || die "usage: debian/vm-run.sh [options] SCRIPT"
script=$1
[ -f "$script" ] || die "no such script: $script"
img=$("$DTL_TOP/testbed/debian/mkrootfs.sh")

work=$(mktemp -d "${TMPDIR:-/tmp}/dtl-deb.XXXXXX")
qpid=""
cleanup() {
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null || true
	if [ -n "$outdir" ]; then
		mkdir -p "$outdir"
		cp "$work"/*.log "$outdir"/ 2>/dev/null || true
		[ ! -d "$share/out" ] || cp -r "$share/out" "$outdir"/
	fi
	rm -rf "$work"
}
trap cleanup EXIT

share=$work/share
mkdir -p "$share"
cp "$script" "$share/run.sh"
for spec in ${extra[@]+"${extra[@]}"}; do
	src=${spec%%=*}
	dst=$share/${spec#*=}
	[ -e "$src" ] || die "no such file: $src"
	mkdir -p "$(dirname "$dst")"
	cp -rL "$src" "$dst"
done
[ -n "$disk" ] || disk=$work/root.qcow2
[ -f "$disk" ] || qemu-img create -q -f qcow2 -F raw -b "$img/rootfs.img" "$disk"

touch "$work/console.log" "$work/out.log"
append="root=/dev/vda rw console=ttyS0 loglevel=4 panic=-1 nokaslr mitigations=off"
append="$append no_timer_check tsc=reliable systemd.show_status=false ${DTL_APPEND:-}"
qemu-system-x86_64 -machine q35 -cpu max -accel tcg,thread=single -nodefaults \
	-display none -m "${DTL_MEM:-2048}" -smp "${DTL_SMP:-2}" -no-reboot \
	-kernel "$img/vmlinuz" -initrd "$img/initrd.img" -append "$append" \
	-drive "file=$disk,if=virtio,format=qcow2" \
	-virtfs "local,path=$share,mount_tag=dtl,security_model=none,id=dtl" \
	-serial "file:$work/console.log" -serial "file:$work/out.log" \
	</dev/null >"$work/qemu.log" 2>&1 &
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
	sleep 0.5
done
wait $qpid 2>/dev/null || true
qpid=""
wait 2>/dev/null || true
sed -i 's/\r$//' "$work/out.log" "$work/console.log"
[ $stream = 1 ] || sed '/^DTL-VM-DMESG-BEGIN$/,$d' "$work/out.log"

if [ $timed_out = 1 ]; then
	echo "DTL-VM: FAIL: Debian guest killed after ${timeout}s timeout (last console lines below)"
	tail -n 30 "$work/console.log"
	exit 124
fi
rc=$(sed -n 's/^DTL-VM-EXIT \([0-9]*\)$/\1/p' "$work/out.log" | tail -1)
if [ -z "$rc" ]; then
	echo "DTL-VM: FAIL: Debian guest stopped before the script finished (console below)"
	tail -n 40 "$work/console.log"
	cat "$work/qemu.log"
	exit 125
fi
splat='(BUG:|WARNING:|Oops|general protection fault|KASAN|UBSAN|kernel BUG|Kernel panic|sleeping function called from invalid context|rcu_.*detected stall|self-detected stall|INFO: task .* blocked for more than)'
{ cat "$work/console.log"; sed -n '/^DTL-VM-DMESG-BEGIN$/,/^DTL-VM-DMESG-END$/p' "$work/out.log"; } |
	grep -E "$splat" >"$work/splats.log" || true
if [ -s "$work/splats.log" ]; then
	echo "DTL-VM: FAIL: kernel splat in the Debian guest's log:"
	sed -n '/^DTL-VM-DMESG-BEGIN$/,/^DTL-VM-DMESG-END$/p' "$work/out.log" |
		grep -E -B2 -A25 "$splat" | head -n 80
	exit 126
fi
echo "DTL-VM: script exited $rc after $((SECONDS - start))s (Debian guest), no kernel splat"
exit "$rc"
