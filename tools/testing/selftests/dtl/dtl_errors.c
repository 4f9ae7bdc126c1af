// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bad input to the dtl PMU: each gets a clear errno and leaves nothing
 * behind, neither an event (the module's reference count) nor the
 * scheduler hook (the driver's debugfs count of its users).
 */
#define _GNU_SOURCE
#include <sys/ioctl.h>

#include "../kselftest_harness.h"
#include "dtl_util.h"

static long long module_refs(void)
{
	return dtl_read_ll(DTL_MODULE "/refcnt");
}

FIXTURE(bad)
{
	struct perf_event_attr attr;
};

FIXTURE_SETUP(bad)
{
	ASSERT_GT(dtl_pmu_type(), 0) TH_LOG("dtl PMU not registered");
	ASSERT_EQ(0, module_refs()) TH_LOG("dtl events already open");
	ASSERT_EQ(0, dtl_hook_users());
	dtl_attr(&self->attr, "dispatches");
}

FIXTURE_TEARDOWN(bad)
{
	/* Whatever failed, nothing may be left behind. */
	EXPECT_EQ(0, module_refs());
	EXPECT_EQ(0, dtl_hook_users());
}

/* The trace event (config 0) instead of dispatches. */
#define TRACE		(~0ULL)

FIXTURE_VARIANT(bad)
{
	const char *what;
	int err;
	uint64_t config;	/* replaces the dispatches config if non-zero */
	uint64_t config1;
	int exclude;		/* 1 user, 2 kernel, 3 hv, 4 idle, 5 host */
	uint64_t period;
	int freq;
	int precise;
	int cpu;
};

FIXTURE_VARIANT_ADD(bad, unknown_config_bits)
{
	.what = "config bits outside the event field", .err = EINVAL,
	.config = 0x101, .cpu = -1,
};

FIXTURE_VARIANT_ADD(bad, event_unknown)
{
	.what = "event 0x7f (no such event)", .err = EINVAL, .config = 0x7f,
	.cpu = -1,
};

FIXTURE_VARIANT_ADD(bad, config1)
{
	.what = "config1 set", .err = EINVAL, .config1 = 1, .cpu = -1,
};

FIXTURE_VARIANT_ADD(bad, exclude_user)
{
	.what = "exclude_user", .err = EOPNOTSUPP, .exclude = 1, .cpu = -1,
};

FIXTURE_VARIANT_ADD(bad, exclude_kernel_cpu_wide)
{
	.what = "exclude_kernel on a CPU-wide counter", .err = EOPNOTSUPP,
	.exclude = 2, .cpu = 0,
};

FIXTURE_VARIANT_ADD(bad, exclude_idle)
{
	.what = "exclude_idle", .err = EOPNOTSUPP, .exclude = 4, .cpu = -1,
};

FIXTURE_VARIANT_ADD(bad, exclude_host)
{
	.what = "exclude_host", .err = EOPNOTSUPP, .exclude = 5, .cpu = -1,
};

FIXTURE_VARIANT_ADD(bad, sample_period)
{
	.what = "sampling by period", .err = EOPNOTSUPP, .period = 1000,
	.cpu = -1,
};

FIXTURE_VARIANT_ADD(bad, sample_freq)
{
	.what = "sampling by frequency", .err = EOPNOTSUPP, .period = 100,
	.freq = 1, .cpu = -1,
};

FIXTURE_VARIANT_ADD(bad, precise_ip)
{
	.what = "precise_ip", .err = EOPNOTSUPP, .precise = 1, .cpu = -1,
};

FIXTURE_VARIANT_ADD(bad, trace_poll_too_short)
{
	.what = "a trace poll period under 100 us", .err = EINVAL,
	.config = TRACE, .period = 99999, .cpu = -1,
};

FIXTURE_VARIANT_ADD(bad, trace_poll_too_long)
{
	.what = "a trace poll period over 1 s", .err = EINVAL,
	.config = TRACE, .period = 1000000001, .cpu = -1,
};

FIXTURE_VARIANT_ADD(bad, trace_freq)
{
	.what = "a trace poll frequency", .err = EINVAL, .config = TRACE,
	.period = 100, .freq = 1, .cpu = -1,
};

FIXTURE_VARIANT_ADD(bad, trace_unknown_kinds)
{
	.what = "trace kinds bit 7 (no such kind)", .err = EINVAL,
	.config = 0x8000, .cpu = -1,
};

FIXTURE_VARIANT_ADD(bad, trace_config_bit17)
{
	.what = "trace config bit 17, above the format bit", .err = EINVAL,
	.config = 1ULL << 17, .cpu = -1,
};

FIXTURE_VARIANT_ADD(bad, full_on_counter)
{
	.what = "the record format bit on a counting event", .err = EINVAL,
	.config = 0x10001, .cpu = -1,
};

FIXTURE_VARIANT_ADD(bad, trace_config1_high)
{
	.what = "trace config1 above the 32-bit min_wait_us", .err = EINVAL,
	.config = TRACE, .config1 = 1ULL << 32, .cpu = -1,
};

FIXTURE_VARIANT_ADD(bad, trace_exclude_idle)
{
	.what = "exclude_idle on a trace event", .err = EOPNOTSUPP,
	.config = TRACE, .exclude = 4, .period = 10000000, .cpu = -1,
};

FIXTURE_VARIANT_ADD(bad, cpu_out_of_range)
{
	.what = "a CPU that does not exist", .err = EINVAL, .cpu = 4096,
};

TEST_F(bad, open)
{
	struct perf_event_attr *attr = &self->attr;
	int fd;

	if (variant->config == TRACE)
		attr->config = 0;
	else if (variant->config)
		attr->config = variant->config;
	attr->config1 = variant->config1;
	attr->exclude_user = variant->exclude == 1;
	attr->exclude_kernel = variant->exclude == 2;
	attr->exclude_idle = variant->exclude == 4;
	attr->exclude_host = variant->exclude == 5;
	attr->sample_period = variant->period;
	attr->freq = variant->freq;
	attr->precise_ip = variant->precise;

	fd = sys_perf_event_open(attr, variant->cpu == -1 ? 0 : -1,
				 variant->cpu, -1, 0);
	if (fd >= 0)
		close(fd);
	ASSERT_EQ(-1, fd) TH_LOG("%s was accepted", variant->what);
	EXPECT_EQ(variant->err, errno)
		TH_LOG("%s: want %s, got %s", variant->what,
		       strerror(variant->err), strerror(errno));
}

static int set_online(int cpu, int on)
{
	char path[128];
	int fd, ret;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = write(fd, on ? "1" : "0", 1) == 1 ? 0 : -errno;
	close(fd);
	return ret;
}

/* A CPU-wide event on an offline CPU: ENODEV. */
TEST(offline_cpu)
{
	int cpu = (int)sysconf(_SC_NPROCESSORS_CONF) - 1;
	int fd, err, ret;

	if (cpu < 1)
		SKIP(return, "needs a second CPU to take offline");
	ret = set_online(cpu, 0);
	if (ret == -ENOENT)
		SKIP(return, "cpu%d cannot be taken offline here", cpu);
	ASSERT_EQ(0, ret) TH_LOG("offline cpu%d: %s", cpu, strerror(-ret));
	fd = dtl_open("dispatches", -1, cpu, -1, 0);
	err = fd;
	if (fd >= 0)
		close(fd);
	ASSERT_EQ(0, set_online(cpu, 1));
	EXPECT_EQ(-ENODEV, err);
	EXPECT_EQ(0, module_refs());
	EXPECT_EQ(0, dtl_hook_users());
}

/*
 * exclude_kernel on a counter of a user task is accepted, with exclude_hv
 * (perf's ":u", which it also falls back to for users at
 * perf_event_paranoid 2): the count is the same.  The two are a
 * group, enabled and disabled together: the open of the second one may
 * block, which the first one would count alone.
 */
TEST(exclude_kernel_user_task)
{
	struct perf_event_attr attr;
	long long a, b;
	int fd, fdu, i;

	dtl_attr(&attr, "dispatches");
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.disabled = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = 0;
	fdu = sys_perf_event_open(&attr, 0, -1, fd, 0);
	ASSERT_GE(fdu, 0) TH_LOG(":u refused: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
	for (i = 0; i < 20; i++)
		usleep(1000);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP));
	a = dtl_count(fd);
	b = dtl_count(fdu);
	/* Most 1 ms sleeps block (all of them on an idle host). */
	EXPECT_GE(a, 10);
	EXPECT_EQ(a, b);
	close(fd);
	close(fdu);
}

/*
 * perf sets exclude_guest by default: accepted (dtl counts nothing in guest
 * mode).  While any event exists the hook has users; after the last close
 * it has none.
 */
TEST(hook_lifetime)
{
	struct perf_event_attr attr;
	int fd, fd2;

	ASSERT_EQ(0, dtl_hook_users());
	dtl_attr(&attr, "dispatches");
	attr.exclude_guest = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0) TH_LOG("exclude_guest refused: %s", strerror(errno));
	EXPECT_EQ(1, dtl_hook_users());
	EXPECT_EQ(1, module_refs());
	fd2 = dtl_open("wait_ns", -1, 0, -1, 0);
	ASSERT_GE(fd2, 0);
	EXPECT_EQ(2, dtl_hook_users());
	close(fd);
	EXPECT_EQ(1, dtl_hook_users());
	close(fd2);
	EXPECT_EQ(0, dtl_hook_users());
	EXPECT_EQ(0, module_refs());
}

TEST_HARNESS_MAIN
