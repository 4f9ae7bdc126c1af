#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# P7 in the guest (booted with -icount, 2 vCPUs).
#
# P7, the open/close storm: an unprivileged user (nobody, at
# perf_event_paranoid 2) opens and closes a counting event of its own task
# $STORM times on CPU 0 -- a dtl one, or perf's cpu-clock or
# context-switches -- while CPU 1 does busy work, measured only while the
# storm lasts; the bases are CPU 0 busy in user space, and perf's
# cpu-clock storm.  (In single-threaded TCG the vCPUs share one
# host thread: CPU 1 gets as much as CPU 0 leaves when both are busy, so
# the base must keep CPU 0 busy too.)  Prints, per round and event:
#   P7 <event> <opens> <IPIs CPU 1 took> <storm ms> <CPU 1's work per ms>
ROUNDS=${ROUNDS:-3}
STORM=${STORM:-10000}

. /dtl/guest-lib.sh
wait_quiet

D=/sys/bus/event_source/devices/dtl
type=$(cat $D/type)
cfg=$(sed 's/.*event=//' $D/events/dispatches)
chmod 755 /dtl /dtl/dtl_storm
echo 2 >/proc/sys/kernel/perf_event_paranoid
[ -d /sys/kernel/debug/dtl ] || mount -t debugfs none /sys/kernel/debug

# Function-call and TLB-shootdown interrupts of CPU 1.
ipis() { awk '$1 == "CAL:" || $1 == "TLB:" { s += $3 } END { print s + 0 }' /proc/interrupts; }

ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# This shell and what it starts stay on CPU 0; CPU 1 only spins.
taskset -p -c 0 $$ >/dev/null

for r in $(seq $ROUNDS); do
	for ev in busy clock cs dtl; do
		sleep 2		# past dtl's linger: the storm starts disarmed
		rm -f /tmp/go /tmp/stop
		taskset -c 1 /dtl/dtl_storm spin /tmp/go /tmp/stop >/tmp/rate &
		pid=$!
		sleep 0.2
		n=$STORM
		i0=$(ipis) t0=$(ms)
		touch /tmp/go
		case $ev in
		busy)	# the base: CPU 0 as busy, in user space
			n=0
			/dtl/dtl_storm busy 300 ;;
		clock)	# perf's cpu-clock: no static key of its own
			su -s /bin/sh nobody -c "/dtl/dtl_storm open 1 0 $n" ;;
		cs)	# perf's context-switches flips a static key at each
			# open and close, 40 ms each: a tenth of the storm
			n=$((STORM / 10))
			su -s /bin/sh nobody -c "/dtl/dtl_storm open 1 3 $n" ;;
		dtl)	su -s /bin/sh nobody -c "/dtl/dtl_storm open $type $cfg $n" ;;
		esac
		# A storm whose open failed ends at once: no figure to print.
		[ $? -eq 0 ] || echo "P7 error: the $ev storm failed (dtl_storm's message above)"
		touch /tmp/stop
		i1=$(ipis) t1=$(ms)
		wait $pid
		echo "P7 $ev $n $((i1 - i0)) $((t1 - t0)) $(cat /tmp/rate)"
	done
done
