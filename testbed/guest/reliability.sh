#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs in the guest after check.sh: KUnit, privilege, hotplug, fuzzing and
# load/unload with kmemleak.  Meant for the debug kernel (KASAN, lockdep,
# kmemleak, KUnit); what a kernel lacks is skipped with the reason.
dtl_script=reliability
. /dtl/tests/lib.sh

# kunit MODULE SUITE: the KUnit suite SUITE of /dtl/MODULE.ko; its KTAP
# subtests are the result.  dtl_kunit.ko is the driver's (in the kernel's
# tree); dtl_compat_kunit.ko, where given, the out-of-tree build's
# compatibility layer's.
kunit() {
	echo "# ==== KUnit: $2"
	if [ ! -d /sys/kernel/debug/kunit ]; then
		result "kunit/$2" 0 0 1 "this kernel has no KUnit"
		return
	fi
	if [ ! -f "/dtl/$1.ko" ]; then
		result "kunit/$2" 0 0 1 "no $1.ko in this guest (built for the debug kernel only)"
		return
	fi
	if ! insmod "/dtl/$1.ko"; then
		result "kunit/$2" 0 1 0 "insmod $1.ko failed"
		return
	fi
	cp "/sys/kernel/debug/kunit/$2/results" /tmp/kunit.ktap
	rmmod "$1"
	cat /tmp/kunit.ktap
	kunit_results /tmp/kunit.ktap "$2"
}

# kunit_results KTAP SUITE: the result of a KUnit suite from its KTAP: a
# case that passed, failed or was skipped ("ok N name # SKIP reason") is
# counted as such; a suite that did not pass as a whole, or ran no case,
# is a failure.
kunit_results() {
	p=$(grep -c "^ *ok [0-9]* $2_test_[^ ]*\$" "$1")
	s=$(grep -c "^ *ok [0-9]* $2_test_[^ ]* # SKIP" "$1")
	f=$(grep -c "^ *not ok [0-9]* $2_test_" "$1")
	grep "^ *ok [0-9]* $2_test_[^ ]* # SKIP" "$1" | sed 's/^ */# skipped: /'
	if [ $((p + s)) -gt 0 ] && grep -q "^ok [0-9]* $2\( # SKIP.*\)\{0,1\}\$" "$1"; then
		result "kunit/$2" "$p" "$f" "$s" "$p KUnit cases passed, $s skipped"
	else
		result "kunit/$2" "$p" $((f + 1)) "$s" "the $2 suite did not pass"
	fi
}

# A bounded trinity run over perf_event_open/ioctl/read/close/mmap, which
# picks PMU types from sysfs, dtl's among them; then dtl must unload.
# arm64 under TCG runs it 2-3 times slower than the 6.12 x86_64 debug
# kernel did (3000 calls took 481-540 s of the 900 s limit), and so does
# the Linux 7.3 debug kernel (KASAN: 3000 calls in 534 s, a seventh of
# make check's time): both make 1000 calls.
fuzz() {
	if [ "$(uname -m)" = aarch64 ] || grep -q ' kasan_report$' /proc/kallsyms; then
		n=${DTL_FUZZ_SYSCALLS:-1000}
	else
		n=${DTL_FUZZ_SYSCALLS:-3000}
	fi
	seed=${DTL_FUZZ_SEED:-42}
	echo "# ==== trinity: $n syscalls, seed $seed"
	if ! command -v trinity >/dev/null; then
		result fuzz/trinity 0 0 1 "trinity is not in this guest"
		return
	fi
	mkdir -p /tmp/trinity && chmod 777 /tmp/trinity
	# On the PREEMPT_RT debug kernel 3000 calls took 773 s.
	limit=900
	uname -v | grep -q PREEMPT_RT && limit=1800
	start=$(cut -d. -f1 /proc/uptime)
	(cd /tmp/trinity && timeout $limit trinity --dangerous -q -C 2 -N "$n" -s "$seed" \
		-c perf_event_open -c ioctl -c read -c close -c mmap \
		--enable-fds=perf -l off) >/tmp/trinity.out 2>&1
	rc=$?
	secs=$(($(cut -d. -f1 /proc/uptime) - start))
	tail -n 5 /tmp/trinity.out
	if [ $rc -ne 0 ]; then
		result fuzz/trinity 0 1 0 "trinity exited $rc after ${secs}s"
	elif ! rmmod dtl_pmu; then
		result fuzz/trinity 0 1 0 "dtl does not unload after fuzzing"
	else
		insmod /dtl/dtl_pmu.ko
		result fuzz/trinity 1 0 0 "$n syscalls in ${secs}s, dtl unloads afterwards"
	fi
}

kunit dtl_kunit dtl
kunit dtl_compat_kunit dtl_compat
run dtl_paranoid 120 dtl/dtl_paranoid
run dtl_hotplug 600 dtl/dtl_hotplug.sh
run dtl_timerlat 300 dtl/dtl_timerlat
# The test bed's steal clock (testbed/kernel/, the debug kernel only):
# dtl's steal per CPU, per task and in the records against what it
# injected and /proc/stat; a skip that says why elsewhere.
run dtl_steal 120 dtl/dtl_steal
fuzz
run dtl_faults 600 dtl/dtl_faults
run dtl_cycle 900 dtl/dtl_cycle
exit 0
