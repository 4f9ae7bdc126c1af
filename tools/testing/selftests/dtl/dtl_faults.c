// SPDX-License-Identifier: GPL-2.0-only
/*
 * Allocation failures: every allocation dtl makes on the way to a working
 * event fails in turn, and each time the open (or the AUX mmap) fails
 * with ENOMEM, leaves nothing behind, and the next try works.
 *
 * Fault injection (Documentation/fault-injection/fault-injection.rst):
 * failslab and fail_page_alloc, limited by their stack trace filter to
 * allocations with dtl's code on the stack, and driven by
 * /proc/thread-self/fail-nth: writing N fails the N-th such allocation of
 * this thread.  N goes up from 1 until the open works without a fault.
 * Then kmemleak (where the kernel has it) must not blame dtl.
 */
#define _GNU_SOURCE
#include <linux/perf_dtl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "../kselftest_harness.h"
#include "dtl_util.h"

#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define DEBUGFS		"/sys/kernel/debug"
#define MAX_NTH		200

/* The text of the dtl_pmu module, from /proc/kallsyms: [*lo, *hi). */
static int dtl_text(unsigned long *lo, unsigned long *hi)
{
	char line[512], type, name[256], mod[64];
	unsigned long addr;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return -errno;
	*lo = ~0UL;
	*hi = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %255s [%63[^]]]", &addr, &type, name,
			   mod) != 4 || strcmp(mod, "dtl_pmu") ||
		    (type != 't' && type != 'T') || !addr)
			continue;
		if (addr < *lo)
			*lo = addr;
		if (addr > *hi)
			*hi = addr;
	}
	fclose(f);
	if (!*hi)
		return -ENOENT;
	*hi += 4096;	/* past the start of the last function */
	return 0;
}

static int attr_write(const char *attr, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), DEBUGFS "/%s/%s", attr, file);
	return dtl_write_file(path, val);
}

/* failslab and fail_page_alloc, for allocations under dtl's code only. */
static int inject_setup(struct __test_metadata *_metadata)
{
	static const char * const attrs[] = { "failslab", "fail_page_alloc" };
	unsigned long lo, hi;
	char buf[32];
	size_t i;

	if (dtl_text(&lo, &hi))
		return -1;
	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		/* fail-nth alone decides; sleeping allocations too. */
		if (attr_write(attrs[i], "probability", "0") ||
		    attr_write(attrs[i], "interval", "1") ||
		    attr_write(attrs[i], "times", "-1") ||
		    attr_write(attrs[i], "verbose", "0") ||
		    attr_write(attrs[i], "task-filter", "N") ||
		    attr_write(attrs[i], "ignore-gfp-wait", "N") ||
		    attr_write(attrs[i], "stacktrace-depth", "32"))
			return -1;
		snprintf(buf, sizeof(buf), "%lu", lo);
		if (attr_write(attrs[i], "require-start", buf))
			return -1;
		snprintf(buf, sizeof(buf), "%lu", hi);
		if (attr_write(attrs[i], "require-end", buf))
			return -1;
	}
	attr_write("fail_page_alloc", "ignore-gfp-highmem", "N");
	attr_write("fail_page_alloc", "min-order", "0");
	TH_LOG("dtl text %#lx-%#lx", lo, hi);
	return 0;
}

/* Arm fail-nth; returns the fd to read it back with fail_nth_end(). */
static int fail_nth_begin(int nth)
{
	char buf[16];
	int fd = open(FAIL_NTH, O_RDWR);

	if (fd < 0)
		return -1;
	snprintf(buf, sizeof(buf), "%d", nth);
	if (write(fd, buf, strlen(buf)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Disarm; returns 1 if the fault was injected. */
static int fail_nth_end(int fd)
{
	char buf[16] = "";
	int fired;

	if (pread(fd, buf, sizeof(buf) - 1, 0) < 0)
		buf[0] = '?';
	fired = !strncmp(buf, "0", 1);
	if (write(fd, "0", 1) < 0)
		fired = -1;
	close(fd);
	return fired;
}

/* A counting event of this thread, or a CPU-wide trace event with AUX. */
static int try_open(int trace, int *stage)
{
	struct dtl_trace_buf t;
	int ret, fd;

	if (!trace) {
		*stage = 0;
		fd = dtl_open("dispatches", 0, -1, -1, 0);
		if (fd < 0)
			return fd;
		close(fd);
		return 0;
	}
	ret = dtl_trace_open(&t, -1, 0, PERF_DTL_EVENT_TRACE, 0, 0, 0, 8);
	*stage = t.fd < 0 ? 0 : 1;
	if (!ret)
		ret = ioctl(t.fd, PERF_EVENT_IOC_ENABLE, 0) ? -errno : 0;
	dtl_trace_close(&t);
	return ret;
}

FIXTURE(faults) {};

FIXTURE_SETUP(faults)
{
	if (geteuid())
		SKIP(return, "needs root for fault injection");
	if (access(FAIL_NTH, F_OK) || access(DEBUGFS "/failslab", F_OK) ||
	    access(DEBUGFS "/fail_page_alloc", F_OK) ||
	    access(DEBUGFS "/failslab/require-start", F_OK))
		SKIP(return, "no fault injection here (CONFIG_FAILSLAB, %s)",
		     "FAIL_PAGE_ALLOC, FAULT_INJECTION_{DEBUG_FS,STACKTRACE_FILTER}");
	ASSERT_EQ(0, inject_setup(_metadata))
		TH_LOG("cannot set up fault injection for dtl_pmu (a module?)");
}

FIXTURE_TEARDOWN(faults) {}

static void every_allocation(struct __test_metadata *_metadata, int trace)
{
	int nth, fired, ret, stage, failed = 0;

	for (nth = 1; nth <= MAX_NTH; nth++) {
		int fd = fail_nth_begin(nth);

		ASSERT_GE(fd, 0);
		ret = try_open(trace, &stage);
		fired = fail_nth_end(fd);
		ASSERT_GE(fired, 0);
		if (!fired) {
			/* No allocation left to fail: this one must work. */
			ASSERT_EQ(0, ret) TH_LOG("no fault, yet %s", strerror(-ret));
			break;
		}
		if (ret) {
			EXPECT_EQ(-ENOMEM, ret)
				TH_LOG("allocation %d failed: %s %s", nth,
				       stage ? "AUX mmap/enable" : "open",
				       strerror(-ret));
			failed++;
		}
		/* Nothing is left behind: no event, no probe user. */
		ASSERT_EQ(0, dtl_hook_users()) TH_LOG("after allocation %d", nth);
		/* And it works again. */
		ASSERT_EQ(0, try_open(trace, &stage)) TH_LOG("after allocation %d", nth);
	}
	ASSERT_LE(nth, MAX_NTH) TH_LOG("still failing after %d allocations", MAX_NTH);
	TH_LOG("%d allocations under dtl; %d failed the open or mmap with %s",
	       nth - 1, failed, "ENOMEM, the rest are optional");
	EXPECT_GT(nth - 1, 0);
	EXPECT_GT(failed, 0);
}

TEST_F(faults, counting_event)
{
	every_allocation(_metadata, 0);
}

TEST_F_TIMEOUT(faults, trace_event, 300)
{
	every_allocation(_metadata, 1);
}

/* After the failures: does kmemleak blame dtl for anything? */
TEST_F_TIMEOUT(faults, kmemleak_clean, 120)
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
