// SPDX-License-Identifier: GPL-2.0-only
/*
 * Steal time: dtl's steal against a steal clock that the test sets.
 *
 * Under QEMU TCG there is no paravirt steal clock, so dtl's steal is 0
 * and nothing tests it.  The test bed's debug kernel has one that a test
 * controls (CONFIG_TESTBED_STEAL, testbed/kernel/): per CPU, a share of
 * elapsed time that its steal clock grows by, and the clock's value, in
 * debugfs.  With a quarter of one CPU's time stolen, a busy task, a
 * ping-pong and the test's own thread share that CPU for a second, and
 * what was injected is compared with dtl's CPU-wide steal_ns, the busy
 * task's own steal_ns, the steal fields of dtl's records of that CPU and
 * the steal column of /proc/stat.  Elsewhere (Debian's kernels, arm64)
 * there is no such clock, and the test says so.
 */
#define _GNU_SOURCE
#include <linux/perf_dtl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "dtl_util.h"

#define STEAL_DIR	"/sys/kernel/debug/testbed_steal"
#define PERMILLE	250
#define RUN_NS		1000000000ULL	/* the measured second */
#define PRE_NS		1000000ULL	/* the sleep that marks its start */
#define MARK_NS		50000000ULL	/* the sleep that marks its end */
#define AUX_PAGES	1024		/* 4 MiB: 131072 compact records */
#define MAX_RECORDS	(AUX_PAGES * 4096 / PERF_DTL_SLOT_SIZE)

static struct perf_dtl_entry recs[MAX_RECORDS];

/* CLOCK_MONOTONIC_RAW, what the steal clock runs on. */
static unsigned long long raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Choose @cpu in the steal clock's files and set its rate: 0 or -errno. */
static int steal_set(int cpu, int permille)
{
	char buf[16];
	int ret;

	snprintf(buf, sizeof(buf), "%d", cpu);
	ret = dtl_write_file(STEAL_DIR "/cpu", buf);
	if (ret)
		return ret;
	snprintf(buf, sizeof(buf), "%d", permille);
	return dtl_write_file(STEAL_DIR "/permille", buf);
}

/* The chosen CPU's steal clock, in ns. */
static long long steal_ns(void)
{
	return dtl_read_ll(STEAL_DIR "/ns");
}

/* The steal column of /proc/stat for @cpu, in ns (USER_HZ ticks). */
static long long proc_stat_steal_ns(int cpu)
{
	char line[512], name[16];
	unsigned long long f[8];
	long long ret = -1;
	FILE *fp = fopen("/proc/stat", "r");

	if (!fp)
		return -1;
	snprintf(name, sizeof(name), "cpu%d", cpu);
	while (fgets(line, sizeof(line), fp)) {
		if (strncmp(line, name, strlen(name)) ||
		    line[strlen(name)] != ' ')
			continue;
		if (sscanf(line + strlen(name), "%llu %llu %llu %llu %llu %llu %llu %llu",
			   &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6],
			   &f[7]) == 8)
			ret = f[7] * (1000000000LL / sysconf(_SC_CLK_TCK));
		break;
	}
	fclose(fp);
	return ret;
}

/* |a - b| in per cent of b, for the log. */
static double pct(long long a, long long b)
{
	if (!b)
		return a ? 100.0 : 0.0;
	return 100.0 * llabs(a - b) / b;
}

/* The CPU's tasks: a busy loop and a ping-pong, until told to stop. */
struct load {
	int cpu;
	int stop;
	int ready;
	pid_t busy_tid;
	int to[2], from[2];
	unsigned long rounds;
};

static void *busy_main(void *arg)
{
	struct load *l = arg;

	dtl_pin_to(l->cpu);
	__atomic_store_n(&l->busy_tid, gettid(), __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&l->stop, __ATOMIC_RELAXED))
		;
	return NULL;
}

static void *ping_main(void *arg)
{
	struct load *l = arg;
	char c = 'x';

	dtl_pin_to(l->cpu);
	while (!__atomic_load_n(&l->stop, __ATOMIC_RELAXED)) {
		if (write(l->to[1], &c, 1) != 1 || read(l->from[0], &c, 1) != 1)
			break;
		__atomic_add_fetch(&l->rounds, 1, __ATOMIC_RELAXED);
	}
	close(l->to[1]);	/* pong reads EOF and ends */
	return NULL;
}

static void *pong_main(void *arg)
{
	struct load *l = arg;
	char c;

	dtl_pin_to(l->cpu);
	while (read(l->to[0], &c, 1) == 1)
		if (write(l->from[1], &c, 1) != 1)
			break;
	return NULL;
}

/*
 * A disabled counting event, or with @group_fd a member of its group;
 * @group: read as a group (the leader).
 */
static int open_counter(struct perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd, int group)
{
	attr->disabled = group_fd < 0;
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (group)
		attr->read_format |= PERF_FORMAT_GROUP;
	return sys_perf_event_open(attr, pid, cpu, group_fd, 0);
}

FIXTURE(steal) {
	int cpu;
	int on;
};

FIXTURE_SETUP(steal)
{
	char buf[4096], want[32];
	int ret;

	self->cpu = dtl_last_cpu();
	if (geteuid())
		SKIP(return, "needs root for debugfs");
	if (access(STEAL_DIR, F_OK))
		SKIP(return, "no test-bed steal clock at %s (%s)", STEAL_DIR,
		     "only the test bed's debug kernel has one: CONFIG_TESTBED_STEAL");
	ASSERT_GT(dtl_pmu_type(), 0) TH_LOG("dtl is not loaded");
	ret = steal_set(self->cpu, PERMILLE);
	if (ret == -EBUSY)
		SKIP(return, "the kernel has a hypervisor's steal clock: %s",
		     "the test bed's would go back from it");
	ASSERT_EQ(0, ret) TH_LOG("setting the steal rate: %s", strerror(-ret));
	/*
	 * dtl reads it where it reads the kernel's paravirt steal clock: the
	 * series' export.  The out-of-tree module reads KVM's or arm64's
	 * records itself (compat/dtl_compat_steal.c), not this clock.  (The
	 * teardown runs only after a setup that went through.)
	 */
	buf[0] = '\n';
	buf[1] = '\0';
	ret = dtl_read_file(DTL_SYSFS "/steal_source", buf + 1, sizeof(buf) - 2);
	strcat(buf, "\n");
	snprintf(want, sizeof(want), "\ncpu%d: paravirt\n", self->cpu);
	if (ret || !strstr(buf, want))
		steal_set(self->cpu, 0);
	ASSERT_EQ(0, ret) TH_LOG("no steal_source: %s", strerror(-ret));
	if (!strstr(buf, want))
		SKIP(return, "dtl does not read the kernel's steal clock (%s)",
		     "the out-of-tree module? it finds KVM's and arm64's records only");
	self->on = 1;
}

/* In the parent: the steal clock is off again however the test ended. */
FIXTURE_TEARDOWN_PARENT(steal)
{
	if (self->on)
		EXPECT_EQ(0, steal_set(self->cpu, 0));
}

/*
 * The busy task, the ping-pong and this thread share the last CPU, whose
 * steal clock grows by PERMILLE of elapsed time for the test.  This
 * thread, SCHED_FIFO there, opens and closes the windows: it is what runs
 * on the CPU when it does, and the others run only while it sleeps.
 *
 *	trace on; sleep 1 ms; read /proc/stat, the clock;
 *	CPU-wide count on [A]; task count on; sleep 1 s; task count off;
 *	CPU-wide count off [D]; read the clock, /proc/stat; sleep 50 ms;
 *	trace off
 *
 * What each figure covers, in the CPU's steal clock S:
 * - dtl CPU-wide: S(D) - S(A), charged by dtl at the switches between,
 *   and up to A and D when they happen;
 * - injected: the clock read just before A and just after D, which adds
 *   PERMILLE of the time from the read to A and from D to the read: at
 *   most that of the time this thread measures around them;
 * - dtl per task: the busy task's runs between its count's on and off,
 *   all in the CPU-wide window: PERMILLE of its time on the CPU;
 * - the records: each switch's record has the steal of the run it ends,
 *   from the switch before, so consecutive records add up to S between
 *   their switches.  This thread's dispatch after the 1 ms sleep is
 *   before A, its switch-out into the 1 s sleep after A, its dispatch
 *   after that sleep before D, its switch-out into the 50 ms sleep after
 *   D: the records from the second to the third add up to at most the
 *   CPU-wide count, those from the first to the fourth to at least it;
 * - /proc/stat: the kernel's steal accounting, at each tick of the CPU,
 *   in USER_HZ ticks.
 */
TEST_F_TIMEOUT(steal, against_injected, 120)
{
	const long long tick = 1000000000LL / sysconf(_SC_CLK_TCK);
	struct sched_param fifo = { .sched_priority = 1 };
	pthread_t busy, ping, pong;
	struct load l = { .cpu = self->cpu };
	struct perf_event_attr attr;
	struct dtl_trace_buf t;
	struct { uint64_t nr, enabled, running, v[3]; } g;
	unsigned long long v0, u0, u1, u2, u3, v3, bound, ran_sum = 0;
	long long inj0, inj1, inj, stat0, stat1, stat, cpu_steal, task_steal;
	long long task_clock, task_disp, share, run_steal = 0, max_dev = 0;
	long long skew;
	long long inner = 0, outer = 0, task_inner = 0, task_outer = 0;
	unsigned long long task_ran = 0;
	pid_t me = gettid();
	int cpu_fd, lead, task_fd, disp_fd, first = 1;
	ssize_t b = -1, a = -1, w = -1, d = -1, last_out = -1;
	size_t n, i;

	ASSERT_EQ(0, dtl_pin_to(self->cpu));
	ASSERT_EQ(0, pipe(l.to));
	ASSERT_EQ(0, pipe(l.from));
	ASSERT_EQ(0, pthread_create(&busy, NULL, busy_main, &l));
	ASSERT_EQ(0, pthread_create(&pong, NULL, pong_main, &l));
	ASSERT_EQ(0, pthread_create(&ping, NULL, ping_main, &l));
	while (!__atomic_load_n(&l.busy_tid, __ATOMIC_SEQ_CST) ||
	       __atomic_load_n(&l.rounds, __ATOMIC_RELAXED) < 100)
		usleep(1000);
	/* The others stay SCHED_OTHER. */
	ASSERT_EQ(0, sched_setscheduler(0, SCHED_FIFO, &fifo))
		TH_LOG("SCHED_FIFO: %s", strerror(errno));

	dtl_attr(&attr, "steal_ns");
	cpu_fd = open_counter(&attr, -1, self->cpu, -1, 0);
	ASSERT_GE(cpu_fd, 0) TH_LOG("CPU-wide steal_ns: %s", strerror(errno));
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	lead = open_counter(&attr, l.busy_tid, -1, -1, 1);
	ASSERT_GE(lead, 0) TH_LOG("task-clock: %s", strerror(errno));
	dtl_attr(&attr, "steal_ns");
	task_fd = open_counter(&attr, l.busy_tid, -1, lead, 1);
	ASSERT_GE(task_fd, 0) TH_LOG("per-task steal_ns: %s", strerror(errno));
	dtl_attr(&attr, "dispatches");
	disp_fd = open_counter(&attr, l.busy_tid, -1, lead, 1);
	ASSERT_GE(disp_fd, 0) TH_LOG("per-task dispatches: %s", strerror(errno));
	ASSERT_EQ(0, dtl_trace_open(&t, -1, self->cpu, PERF_DTL_EVENT_TRACE,
				    0, 0, 0, AUX_PAGES))
		TH_LOG("trace: %s", strerror(errno));

	ASSERT_EQ(0, ioctl(t.fd, PERF_EVENT_IOC_ENABLE, 0));
	usleep(PRE_NS / 1000);
	v0 = raw_ns();
	stat0 = proc_stat_steal_ns(self->cpu);
	u0 = raw_ns();
	inj0 = steal_ns();
	ASSERT_EQ(0, ioctl(cpu_fd, PERF_EVENT_IOC_ENABLE, 0));
	u1 = raw_ns();
	ASSERT_EQ(0, ioctl(lead, PERF_EVENT_IOC_ENABLE, 0));
	usleep(RUN_NS / 1000);
	ASSERT_EQ(0, ioctl(lead, PERF_EVENT_IOC_DISABLE, 0));
	u2 = raw_ns();
	ASSERT_EQ(0, ioctl(cpu_fd, PERF_EVENT_IOC_DISABLE, 0));
	inj1 = steal_ns();
	u3 = raw_ns();
	stat1 = proc_stat_steal_ns(self->cpu);
	v3 = raw_ns();
	usleep(MARK_NS / 1000);
	ASSERT_EQ(0, ioctl(t.fd, PERF_EVENT_IOC_DISABLE, 0));

	__atomic_store_n(&l.stop, 1, __ATOMIC_RELAXED);
	pthread_join(ping, NULL);
	pthread_join(pong, NULL);
	pthread_join(busy, NULL);
	/* Off before the checks; the teardown does it too if one fails. */
	EXPECT_EQ(0, steal_set(self->cpu, 0));

	ASSERT_GE(stat0, 0);
	ASSERT_GE(stat1, 0);
	ASSERT_GE(inj0, 0);
	ASSERT_GE(inj1, inj0);
	inj = inj1 - inj0;
	stat = stat1 - stat0;
	cpu_steal = dtl_count(cpu_fd);
	ASSERT_GE(cpu_steal, 0);
	ASSERT_EQ(sizeof(g), read(lead, &g, sizeof(g)));
	ASSERT_EQ(3, g.nr);
	task_clock = g.v[0];
	task_steal = g.v[1];
	task_disp = g.v[2];
	n = dtl_trace_take(&t, recs, MAX_RECORDS);
	TH_LOG("cpu %d at %d per mille: %lu ping-pong rounds, %zu records",
	       self->cpu, PERMILLE, l.rounds, n);
	TH_LOG("busy task: %lld dispatches, %lld ns task-clock", task_disp,
	       task_clock);

	/*
	 * The clock itself: read between u0 and u1 and between u2 and u3,
	 * it grew by PERMILLE of the time between the reads (rounded down).
	 */
	EXPECT_GE(inj + 1, (long long)((u2 - u1) * PERMILLE / 1000))
		TH_LOG("injected %lld ns in %llu to %llu ns", inj, u2 - u1,
		       u3 - u0);
	EXPECT_LE(inj, (long long)((u3 - u0) * PERMILLE / 1000 + 1));

	/*
	 * dtl's CPU-wide count is what was injected less the steal from
	 * the first read to A and from D to the second: PERMILLE of at most
	 * u1 - u0 and u3 - u2, and a ns of rounding down at each end.
	 */
	bound = (u1 - u0 + u3 - u2) * PERMILLE / 1000 + 2;
	TH_LOG("steal: dtl %lld ns, injected %lld ns (%.2f %%)", cpu_steal,
	       inj, pct(cpu_steal, inj));
	TH_LOG("the reads around A and D took %llu and %llu ns: %llu ns apart at most",
	       u1 - u0, u3 - u2, bound);
	EXPECT_LE(cpu_steal, inj);
	EXPECT_LE(inj - cpu_steal, (long long)bound);

	/*
	 * /proc/stat: each read is short of the kernel's steal by less than a
	 * USER_HZ tick (it truncates ns to ticks), and the kernel's is short
	 * of the clock by the steal since the CPU's last scheduler tick
	 * (PERMILLE of a ms, or of more where TCG runs the other vCPU); and
	 * it was read PERMILLE of u0 - v0 and v3 - u3 from the clock.  So the
	 * two agree within two USER_HZ ticks and that.
	 */
	bound = 2 * tick + (u0 - v0 + v3 - u3) * PERMILLE / 1000;
	TH_LOG("steal: /proc/stat %lld ns, injected %lld ns (%.2f %%)", stat,
	       inj, pct(stat, inj));
	EXPECT_LE(llabs(stat - inj), (long long)bound);
	TH_LOG("steal: dtl %lld ns, /proc/stat %lld ns (%.2f %%)", cpu_steal,
	       stat, pct(cpu_steal, stat));
	EXPECT_LE(llabs(cpu_steal - stat),
		  (long long)(bound + (u1 - u0 + u3 - u2) * PERMILLE / 1000 + 2));

	/*
	 * The records, all of them, in order: find this thread's dispatch
	 * after the 1 ms sleep (b), its switch-out into the 1 s sleep (a),
	 * its dispatch after it (w), and its switch-out into the 50 ms sleep
	 * (d), by how long it was away.
	 */
	ASSERT_GT(n, 0);
	ASSERT_EQ(0, t.bad);
	for (i = 0; i < n; i++) {
		struct perf_dtl_entry *e = &recs[i];

		ASSERT_NE(PERF_DTL_KIND_LOST, e->kind)
			TH_LOG("%llu records lost", (unsigned long long)e->lost);
		ASSERT_EQ(0, e->flags & PERF_DTL_F_STEAL_SATURATED);
		if (i)
			ASSERT_EQ(recs[i - 1].seq + 1, e->seq);
		if (e->kind == PERF_DTL_KIND_MIGRATE)
			continue;
		if (e->next_tid == (uint32_t)me && b < 0)
			b = i;
		if (e->next_tid == (uint32_t)me && last_out >= 0) {
			unsigned long long away = e->time - recs[last_out].time;

			if (a < 0 && away >= RUN_NS / 2) {
				a = last_out;
				w = i;
			} else if (w >= 0 && d < 0 && away >= MARK_NS / 2) {
				d = last_out;
			}
		}
		if (e->prev_tid == (uint32_t)me)
			last_out = i;
	}
	ASSERT_GE(b, 0) TH_LOG("no record of the 1 ms sleep");
	ASSERT_GE(a, 0) TH_LOG("no record of the 1 s sleep");
	ASSERT_GE(d, 0) TH_LOG("no record of the 50 ms sleep");
	for (i = 0; i <= (size_t)d; i++) {
		struct perf_dtl_entry *e = &recs[i];
		int busy_run = e->prev_tid == (uint32_t)l.busy_tid;

		if (e->kind == PERF_DTL_KIND_MIGRATE)
			continue;
		if (i > (size_t)b)
			outer += e->steal_ns;
		task_outer += busy_run ? e->steal_ns : 0;
		if (i > (size_t)a && i <= (size_t)w) {
			inner += e->steal_ns;
			task_inner += busy_run ? e->steal_ns : 0;
			task_ran += busy_run ? e->ran_ns : 0;
		}
		/* The first run began before the trace: its ran_ns did not. */
		if (!first) {
			long long dev = e->steal_ns -
					(long long)(e->ran_ns * PERMILLE / 1000);

			ran_sum += e->ran_ns;
			run_steal += e->steal_ns;
			if (llabs(dev) > llabs(max_dev))
				max_dev = dev;
		}
		first = 0;
	}
	TH_LOG("steal: dtl %lld ns, records %lld ns (%.2f %%)", cpu_steal,
	       inner, pct(inner, cpu_steal));
	TH_LOG("records: %lld ns across the 1 s sleep, %lld ns from the 1 ms to the 50 ms one",
	       inner, outer);
	EXPECT_LE(inner, cpu_steal);
	EXPECT_GE(outer, cpu_steal);
	/*
	 * Their runs, one after the other: PERMILLE of the time from the
	 * first switch to the last, which the records' clock (local_clock())
	 * measures.  The probe reads that clock just after the steal clock:
	 * where TCG runs the other vCPU in between (for up to 100 ms), a
	 * run's ran_ns is longer than its steal says by that time and the
	 * next one's shorter, and the records show a run off by PERMILLE of
	 * it.  Over runs one after the other that cancels but at the ends:
	 * allow the largest a run is off at each end, and 0.1 % for the two
	 * clocks' rates.
	 */
	skew = 2 * llabs(max_dev) + 2;
	share = ran_sum * PERMILLE / 1000;
	TH_LOG("steal: records %lld ns, injected over their runs %lld ns (%.2f %%)",
	       run_steal, share, pct(run_steal, share));
	TH_LOG("records: a run off by %lld ns at most", max_dev);
	EXPECT_LE(llabs(run_steal - share), share / 1000 + skew);

	/*
	 * Per task: exactly the records of its runs, between those of the
	 * 1 s sleep (this thread is SCHED_FIFO: the busy task runs only while
	 * it sleeps) and all up to the 50 ms one.  And so PERMILLE of the
	 * time it ran there, as the records say, but for what TCG moves
	 * from a run to the next (above), which does not cancel over runs
	 * that are not one after the other: 2 %, and the largest a run is
	 * off at each end.
	 */
	share = task_ran * PERMILLE / 1000;
	TH_LOG("steal: dtl per task %lld ns, records of its runs %lld ns (%.2f %%)",
	       task_steal, task_inner, pct(task_steal, task_inner));
	TH_LOG("steal: dtl per task %lld ns, injected share %lld ns (%.2f %%)",
	       task_steal, share, pct(task_steal, share));
	EXPECT_GT(task_steal, 0);
	EXPECT_LE(task_steal, cpu_steal);
	EXPECT_LE(task_inner, task_steal);
	EXPECT_GE(task_outer, task_steal);
	EXPECT_LE(llabs(task_steal - share), share / 50 + skew);
	/*
	 * perf's task-clock (the group's leader) agrees with its time on the
	 * CPU but for the time from the probe to perf's switch of the task's
	 * context at each end of a run, which a time slice that TCG gives
	 * the other vCPU may stretch by up to 100 ms: not compared.
	 */
	TH_LOG("busy task: task-clock %lld ns, runs in the records %llu ns (%.2f %%)",
	       task_clock, task_ran, pct(task_clock, task_ran));

	dtl_trace_close(&t);
	close(disp_fd);
	close(task_fd);
	close(lead);
	close(cpu_fd);
}

TEST_HARNESS_MAIN
