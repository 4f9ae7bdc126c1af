// SPDX-License-Identifier: GPL-2.0-only
/*
 * The busy file: one line per session, escaped comms, pids as the reader
 * sees them, for root only, at most a page; and the scheduler
 * probe, which outlives the last event by a second so that opening and
 * closing events in a loop does not disturb every CPU each time.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "dtl_util.h"

#define BUSY		DTL_SYSFS "/busy"
#define NOBODY		65534

static char busy[8192];

static int read_busy(void)
{
	int fd = open(BUSY, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, busy, sizeof(busy) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	busy[n] = '\0';
	return n;
}

/* Lines of the busy file that begin with @prefix. */
static int count_lines(const char *prefix)
{
	const char *p = busy;
	int n = 0;

	while (p && *p) {
		if (!strncmp(p, prefix, strlen(prefix)))
			n++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

/* A child that opens @events counting events on @cpu, then waits. */
static pid_t holder(int cpu, int events, const char *comm, int *ready)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid)  {
		char c;

		close(p[1]);
		*ready = read(p[0], &c, 1) == 1 && c == 'y';
		close(p[0]);
		return pid;
	}
	if (comm)
		prctl(PR_SET_NAME, comm, 0, 0, 0);
	for (int i = 0; i < events; i++)
		if (dtl_open("dispatches", -1, cpu, -1, 0) < 0) {
			if (write(p[1], "n", 1) < 0)
				_exit(1);
			_exit(1);
		}
	if (write(p[1], "y", 1) < 0)
		_exit(1);
	pause();
	_exit(0);
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* perf stat -a -e a,b,c,d opens four events per CPU: one line. */
TEST(one_line_per_session)
{
	int cpu = dtl_last_cpu(), ready;
	char want[64];
	pid_t pid;

	pid = holder(cpu, 4, "dtl-four", &ready);
	ASSERT_TRUE(ready);
	ASSERT_GT(read_busy(), 0);
	TH_LOG("busy:\n%s", busy);
	snprintf(want, sizeof(want), " counting pid=%d since=", pid);
	EXPECT_NE(NULL, strstr(busy, want));
	EXPECT_NE(NULL, strstr(busy, " events=4 comm=dtl-four\n"));
	EXPECT_EQ(1, count_lines(" counting pid="));
	reap(pid);
}

/* An inherited per-task event of each child adds no line. */
TEST(inherited_events_not_listed)
{
	int fd, i, n;
	pid_t kids[20];

	fd = dtl_open("dispatches", 0, -1, -1, 1);
	ASSERT_GE(fd, 0);
	for (i = 0; i < 20; i++) {
		kids[i] = fork();
		if (!kids[i]) {
			pause();
			_exit(0);
		}
	}
	usleep(10000);
	ASSERT_GT(read_busy(), 0);
	n = count_lines(" counting pid=");
	TH_LOG("20 children: %d lines", n);
	EXPECT_EQ(1, n) TH_LOG("busy:\n%s", busy);
	for (i = 0; i < 20; i++)
		reap(kids[i]);
	close(fd);
}

/* A comm cannot forge lines: it is escaped. */
TEST(comm_escaped)
{
	int ready;
	pid_t pid;

	pid = holder(0, 1, "x\ncpu0: idle", &ready);
	ASSERT_TRUE(ready);
	ASSERT_GT(read_busy(), 0);
	EXPECT_EQ(1, count_lines("cpu0:")) TH_LOG("busy:\n%s", busy);
	EXPECT_EQ(0, count_lines("cpu0: idle")) TH_LOG("busy:\n%s", busy);
	EXPECT_NE(NULL, strstr(busy, "comm=x\\ncpu0: idle\n"))
		TH_LOG("busy:\n%s", busy);
	reap(pid);
}

/*
 * Tests that start and end hundreds of sessions: 30 s (the harness's
 * default) was not enough for them on the PREEMPT_RT debug kernel.
 */
FIXTURE(many) {
	int unused;
};

FIXTURE_SETUP(many)
{
}

FIXTURE_TEARDOWN(many)
{
}

/* More sessions than a page holds: a page, and how many lines were left. */
TEST_F_TIMEOUT(many, bounded, 300)
{
	pid_t pids[150];
	int i, ready, n;
	char *more;

	for (i = 0; i < 150; i++) {
		pids[i] = holder(0, 1, "dtl-many-sessions", &ready);
		ASSERT_TRUE(ready);
	}
	n = read_busy();
	ASSERT_GT(n, 0) TH_LOG("read: %s", strerror(-n));
	TH_LOG("150 sessions: %d bytes", n);
	EXPECT_LE(n, 4096);
	more = strstr(busy, " more lines not shown)\n");
	ASSERT_NE(NULL, more) TH_LOG("busy ends:\n%s", busy + (n > 200 ? n - 200 : 0));
	while (more > busy && more[-1] != '(')
		more--;
	n = count_lines(" counting pid=");
	TH_LOG("%d session lines shown, %d lines left out", n, atoi(more));
	/* What was left out is the other sessions, and some headers. */
	EXPECT_GE(n + atoi(more), 150);
	EXPECT_LE(n + atoi(more), 150 + dtl_ncpus() + 1);
	for (i = 0; i < 150; i++)
		reap(pids[i]);
}

/*
 * The file names other users' processes: root reads it, another user
 * cannot open it (EACCES), even while the PMU is in use.
 */
TEST(root_only)
{
	int ready, status;
	pid_t pid, reader;

	if (geteuid())
		SKIP(return, "needs root to read the busy file");
	pid = holder(0, 1, "dtl-secret", &ready);
	ASSERT_TRUE(ready);
	ASSERT_GT(read_busy(), 0);
	EXPECT_NE(NULL, strstr(busy, "dtl-secret"));
	reader = fork();
	if (!reader) {
		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		_exit(read_busy() == -EACCES ? 0 : 1);
	}
	ASSERT_EQ(reader, waitpid(reader, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("nobody %s the busy file",
		       WEXITSTATUS(status) == 1 ? "could open" : "could not become");
	reap(pid);
}

/* A reader in another pid namespace sees its own pids, and not ours. */
TEST(pid_namespace_reader)
{
	int ready, p[2], status;
	char out[512] = "";
	pid_t pid, reader;

	if (geteuid())
		SKIP(return, "needs root to make a pid namespace");
	pid = holder(0, 1, "dtl-outside", &ready);
	ASSERT_TRUE(ready);
	ASSERT_EQ(0, pipe(p));
	reader = fork();
	if (!reader) {
		if (unshare(CLONE_NEWPID))
			_exit(1);
		if (fork() == 0) {
			/* pid 1 here: its own event is listed as pid=1. */
			int fd = dtl_open("dispatches", -1, 0, -1, 0);
			char *a, *b;

			if (fd < 0 || read_busy() <= 0)
				_exit(1);
			a = strstr(busy, " counting pid=1 ");
			b = strstr(busy, "dtl-outside");
			if (dprintf(p[1], "%s %s", a ? "own" : "-", b ? "leak" : "-") < 0)
				_exit(1);
			_exit(0);
		}
		wait(&status);
		_exit(WEXITSTATUS(status));
	}
	ASSERT_EQ(reader, waitpid(reader, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_GT(read(p[0], out, sizeof(out) - 1), 0);
	EXPECT_STREQ("own -", out);
	reap(pid);
}

/* A debugfs number, or a bool as 1 (Y) or 0 (N); -1 if unreadable. */
static long long debugfs_ll(const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), DTL_DEBUGFS "/%s", name);
	if (dtl_read_file(path, buf, sizeof(buf)))
		return -1;
	if (buf[0] == 'Y' || buf[0] == 'N')
		return buf[0] == 'Y';
	return strtoll(buf, NULL, 0);
}

/*
 * The probe lingers: a loop that opens and closes an event arms it once,
 * and it is disarmed a second after the last event is gone.  Measured on
 * the clock: on a slow kernel a 10 ms poll takes much longer than 10 ms.
 */
TEST_F_TIMEOUT(many, probe_lingers, 300)
{
	unsigned long long t0, ms;
	long long arms;
	int i, fd;

	for (i = 0; i < 300 && debugfs_ll("hook_armed") != 0; i++)
		usleep(10000);
	ASSERT_EQ(0, debugfs_ll("hook_armed"));
	arms = debugfs_ll("hook_arms");
	ASSERT_GE(arms, 0);
	for (i = 0; i < 1000; i++) {
		fd = dtl_open("dispatches", 0, -1, -1, 0);
		ASSERT_GE(fd, 0);
		close(fd);
	}
	TH_LOG("1000 opens and closes: the probe was registered %lld time(s)",
	       debugfs_ll("hook_arms") - arms);
	EXPECT_EQ(arms + 1, debugfs_ll("hook_arms"));
	EXPECT_EQ(1, debugfs_ll("hook_armed"));
	EXPECT_EQ(0, dtl_hook_users());
	t0 = dtl_now_ns();
	while (debugfs_ll("hook_armed") != 0 && dtl_now_ns() - t0 < 30000000000ULL)
		usleep(10000);
	ms = (dtl_now_ns() - t0) / 1000000;
	EXPECT_EQ(0, debugfs_ll("hook_armed"));
	TH_LOG("disarmed %llu ms after the last close", ms);
	/* HZ after the last close, which came a little before t0. */
	EXPECT_GE(ms, 500);
}

/* Fork short busy children on @cpu until killed: tasks come and go there. */
static pid_t churn_on(int cpu)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	/* Gone with the test, however it ends. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	dtl_pin_to(cpu);
	for (;;) {
		pid_t c = fork();

		if (!c) {
			unsigned long long t0 = dtl_now_ns();

			while (dtl_now_ns() - t0 < 200000)
				;
			_exit(0);
		}
		if (c > 0)
			waitpid(c, NULL, 0);
	}
}

/*
 * Arming the probe starts, on every CPU, a run of the task then current,
 * and the probe is registered after that.  A task that left its CPU (and
 * exited) in between must not be read by the probe's first switch there:
 * it may be freed by then (KASAN: a use-after-free read of its
 * sched_info).  Re-arm the probe several times while short-lived tasks
 * come and go on every CPU; nothing may taint the kernel, and counting
 * still works.
 */
TEST_F_TIMEOUT(many, rearm_while_tasks_exit, 300)
{
	long tainted = dtl_read_ll("/proc/sys/kernel/tainted");
	int i, cpu, ncpu = dtl_ncpus(), fd;
	pid_t churn[64];
	long long n;

	ASSERT_GE(tainted, 0);
	ASSERT_LE(ncpu, 64);
	for (cpu = 0; cpu < ncpu; cpu++) {
		churn[cpu] = churn_on(cpu);
		ASSERT_GT(churn[cpu], 0);
	}
	for (i = 0; i < 6; i++) {
		int j;

		/* Disarmed: the next open registers the probe again. */
		for (j = 0; j < 500 && debugfs_ll("hook_armed") != 0; j++)
			usleep(10000);
		ASSERT_EQ(0, debugfs_ll("hook_armed"));
		fd = dtl_open("dispatches", -1, 0, -1, 0);
		ASSERT_GE(fd, 0);
		usleep(50000);
		n = dtl_count(fd);
		close(fd);
		EXPECT_GT(n, 0) TH_LOG("cycle %d: %lld dispatches on cpu 0", i, n);
	}
	for (cpu = 0; cpu < ncpu; cpu++) {
		kill(churn[cpu], SIGKILL);
		waitpid(churn[cpu], NULL, 0);
	}
	TH_LOG("6 re-arms with tasks exiting on %d CPUs; taint %ld -> %lld", ncpu,
	       tainted, dtl_read_ll("/proc/sys/kernel/tainted"));
	EXPECT_EQ(tainted, dtl_read_ll("/proc/sys/kernel/tainted"));
}

TEST_HARNESS_MAIN
