// SPDX-License-Identifier: GPL-2.0-only
/*
 * Load and unload dtl many times, with counting and trace events opened,
 * used and closed in between; then ask kmemleak (where the kernel has it)
 * whether anything dtl allocated was leaked.
 *
 * DTL_KO names the module (default /dtl/dtl_pmu.ko), DTL_CYCLES the number
 * of cycles (default 100).  dtl is loaded again at the end.
 */
#define _GNU_SOURCE
#include <linux/perf_dtl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "../kselftest_harness.h"
#include "dtl_util.h"

static const char *ko_path(void)
{
	const char *p = getenv("DTL_KO");

	return p ? p : "/dtl/dtl_pmu.ko";
}

static int load(void)
{
	int fd = open(ko_path(), O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(__NR_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return ret;
}

static int unload(void)
{
	return syscall(__NR_delete_module, "dtl_pmu", O_NONBLOCK) ? -errno : 0;
}

/*
 * Count and trace CPU 0 for a moment, with an AUX buffer, then close all.
 * The caller runs on CPU 0, so its sleeps are dispatches there to count.
 */
static int use_dtl(void)
{
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pc;
	int count, trace, i, ret = 0;
	void *aux;

	count = dtl_open("dispatches", -1, 0, -1, 0);
	if (count < 0)
		return count;
	dtl_attr(&attr, "all");
	attr.sample_period = 1000000;
	trace = sys_perf_event_open(&attr, -1, 0, -1, 0);
	if (trace < 0) {
		ret = -errno;
		goto out_count;
	}
	pc = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, trace, 0);
	if (pc == MAP_FAILED) {
		ret = -errno;
		goto out_trace;
	}
	pc->aux_offset = 2 * 4096;
	pc->aux_size = 8 * 4096;
	aux = mmap(NULL, 8 * 4096, PROT_READ, MAP_SHARED, trace, 2 * 4096);
	if (aux == MAP_FAILED) {
		ret = -errno;
		goto out_rb;
	}
	for (i = 0; i < 20; i++)
		usleep(100);
	if (dtl_count(count) <= 0)
		ret = -ENODATA;
	munmap(aux, 8 * 4096);
out_rb:
	munmap(pc, 2 * 4096);
out_trace:
	close(trace);
out_count:
	close(count);
	return ret;
}

/*
 * 100 cycles, each with an RCU grace period or two: more than the default
 * 30 s on a debug kernel under TCG.
 */
FIXTURE(cycle) {};
FIXTURE_SETUP(cycle) {}
FIXTURE_TEARDOWN(cycle) {}

TEST_F_TIMEOUT(cycle, load_use_unload, 600)
{
	const char *env = getenv("DTL_CYCLES");
	int cycles = env ? atoi(env) : 100;
	int i, ret;

	if (geteuid())
		SKIP(return, "needs root to load modules");
	if (access(ko_path(), R_OK))
		SKIP(return, "no module at %s (set DTL_KO)", ko_path());

	ASSERT_EQ(0, dtl_pin_to(0));
	ret = unload();
	ASSERT_TRUE(!ret || ret == -ENOENT)
		TH_LOG("unload before the cycles: %s", strerror(-ret));
	for (i = 0; i < cycles; i++) {
		ret = load();
		ASSERT_EQ(0, ret) TH_LOG("cycle %d: load: %s", i, strerror(-ret));
		ret = use_dtl();
		ASSERT_EQ(0, ret) TH_LOG("cycle %d: use: %s", i, strerror(-ret));
		ASSERT_EQ(0, dtl_hook_users());
		ret = unload();
		ASSERT_EQ(0, ret) TH_LOG("cycle %d: unload: %s", i, strerror(-ret));
		ASSERT_NE(0, access(DTL_SYSFS, F_OK));
	}
	ASSERT_EQ(0, load());
	TH_LOG("%d load/use/unload cycles", cycles);
}

/*
 * Run after the cycles: does kmemleak blame dtl for anything?  A scan
 * took longer than the harness's default 30 s on the PREEMPT_RT debug
 * kernel under TCG.
 */
TEST_F_TIMEOUT(cycle, kmemleak_clean, 300)
{
	static char report[1 << 20];
	ssize_t len = dtl_kmemleak_report(report, sizeof(report));

	if (len == -1)
		SKIP(return, "no kmemleak in this kernel (or it is off)");
	ASSERT_GE(len, 0) TH_LOG("kmemleak scan or read failed");
	TH_LOG("kmemleak: %zd bytes of reports", len);
	EXPECT_EQ(NULL, strstr(report, "dtl_"))
		TH_LOG("kmemleak blames dtl:\n%s", report);
}

TEST_HARNESS_MAIN
