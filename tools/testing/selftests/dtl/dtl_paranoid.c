// SPDX-License-Identifier: GPL-2.0-only
/*
 * dtl events opened by an unprivileged user at each perf_event_paranoid
 * level: the errno perf's rules give, and nothing else.
 *
 *   level  task    task     task     kthreadd  CPU     CPU      CPU
 *          count   count:u  trace:u  count:u   count   count:u  trace:u
 *    -1    ok      ok       EACCES   EACCES    ok      EACCES   EACCES
 *     0    ok      ok       EACCES   EACCES    ok      EACCES   EACCES
 *     1    ok      ok       EACCES   EACCES    EACCES  EACCES   EACCES
 *     2    EACCES  ok       EACCES   EACCES    EACCES  EACCES   EACCES
 *
 * At level 2 an event that does not exclude the kernel needs the privilege
 * to profile it: a counter of the user's own task may exclude the kernel
 * (":u", as perf asks for it then).  A trace event names the tasks on both
 * sides of every switch, other users' too, like sched_switch's raw data:
 * it needs CAP_PERFMON (the module cannot read the paranoid level, which
 * perf's tracepoint rule relaxes at -1).  A CPU-wide counter cannot
 * exclude the kernel (EOPNOTSUPP), but perf asks for ":u" at level 2
 * after the kernel refused the CPU-wide event: without CAP_PERFMON that
 * is EACCES, at every level for the same reason, and so is a ":u"
 * count of a kernel thread, which is not the user's to count.  With
 * CAP_PERFMON alone, the same user may open everything else.  A reader
 * in its own pid namespace gets the pids it sees, and nothing of the
 * tasks it does not.
 */
#define _GNU_SOURCE
#include <linux/capability.h>
#include <linux/sched.h>
#include <linux/perf_dtl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "dtl_util.h"

#define PARANOID	"/proc/sys/kernel/perf_event_paranoid"
#define NOBODY		65534

enum {
	TASK_COUNT, TASK_COUNT_U, TASK_TRACE, KTHREAD_COUNT_U, CPU_COUNT,
	CPU_COUNT_U, CPU_TRACE, NR_OPENS
};

static const char * const open_names[NR_OPENS] = {
	"task count", "task count:u", "task trace:u", "kthreadd count:u",
	"CPU count", "CPU count:u", "CPU trace:u",
};

#define KTHREADD	2

static int write_paranoid(int level)
{
	char buf[16];
	int fd, n, ret = 0;

	fd = open(PARANOID, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d", level);
	if (write(fd, buf, n) != n)
		ret = -errno;
	close(fd);
	return ret;
}

/* In a child that has dropped to nobody: 0 or errno of each open. */
static void try_opens(int result_fd)
{
	int err[NR_OPENS];
	int i;

	for (i = 0; i < NR_OPENS; i++) {
		struct perf_event_attr attr;
		bool trace = i == TASK_TRACE || i == CPU_TRACE;
		int fd;

		dtl_attr(&attr, trace ? "all" : "dispatches");
		/* ":u", as perf sets it. */
		attr.exclude_kernel = trace || i == TASK_COUNT_U ||
				      i == KTHREAD_COUNT_U || i == CPU_COUNT_U;
		attr.exclude_hv = attr.exclude_kernel;
		fd = sys_perf_event_open(&attr,
					 i < KTHREAD_COUNT_U ? 0 :
					 i == KTHREAD_COUNT_U ? KTHREADD : -1,
					 i < CPU_COUNT ? -1 : 0, -1, 0);
		err[i] = fd < 0 ? errno : 0;
		if (fd >= 0 && trace) {
			/* The trace must also get its AUX buffer. */
			struct perf_event_mmap_page *pc;
			void *aux;

			pc = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
				  MAP_SHARED, fd, 0);
			if (pc == MAP_FAILED) {
				err[i] = errno;
			} else {
				pc->aux_offset = 2 * 4096;
				pc->aux_size = 4 * 4096;
				aux = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE,
					   MAP_SHARED, fd, 2 * 4096);
				if (aux == MAP_FAILED)
					err[i] = errno;
				else
					munmap(aux, 4 * 4096);
				munmap(pc, 2 * 4096);
			}
		}
		if (fd >= 0)
			close(fd);
	}
	if (write(result_fd, err, sizeof(err)) != sizeof(err))
		_exit(1);
	_exit(0);
}

FIXTURE(paranoid)
{
	int saved;
};

FIXTURE_VARIANT(paranoid)
{
	int level;
	int perfmon;	/* keep CAP_PERFMON */
	int want[NR_OPENS];
};

FIXTURE_VARIANT_ADD(paranoid, minus_1)
{
	.level = -1, .want = { 0, 0, EACCES, EACCES, 0, EACCES, EACCES },
};

FIXTURE_VARIANT_ADD(paranoid, level_0)
{
	.level = 0, .want = { 0, 0, EACCES, EACCES, 0, EACCES, EACCES },
};

FIXTURE_VARIANT_ADD(paranoid, level_1)
{
	.level = 1, .want = { 0, 0, EACCES, EACCES, EACCES, EACCES, EACCES },
};

FIXTURE_VARIANT_ADD(paranoid, level_2)
{
	.level = 2, .want = { EACCES, 0, EACCES, EACCES, EACCES, EACCES, EACCES },
};

FIXTURE_VARIANT_ADD(paranoid, level_2_perfmon)
{
	.level = 2, .perfmon = 1,
	.want = { 0, 0, 0, EOPNOTSUPP, 0, EOPNOTSUPP, 0 },
};

/* Become nobody, keeping CAP_PERFMON in the effective set if @perfmon. */
static int drop_to_nobody(int perfmon)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = { 0 };

	if (perfmon && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return -1;
	if (setgid(NOBODY) || setuid(NOBODY))
		return -1;
	if (!perfmon)
		return 0;
	d[CAP_PERFMON / 32].effective = 1U << (CAP_PERFMON % 32);
	d[CAP_PERFMON / 32].permitted = 1U << (CAP_PERFMON % 32);
	return syscall(SYS_capset, &h, d);
}

FIXTURE_SETUP(paranoid)
{
	if (geteuid())
		SKIP(return, "needs root to set " PARANOID);
	ASSERT_GT(dtl_pmu_type(), 0) TH_LOG("dtl PMU not registered");
	self->saved = (int)dtl_read_ll(PARANOID);
	ASSERT_EQ(0, write_paranoid(variant->level));
}

FIXTURE_TEARDOWN(paranoid)
{
	if (!geteuid())
		write_paranoid(self->saved);
	EXPECT_EQ(0, dtl_hook_users());
}

TEST_F(paranoid, unprivileged_opens)
{
	int got[NR_OPENS], p[2], status, i;
	pid_t pid;

	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		if (drop_to_nobody(variant->perfmon))
			_exit(2);
		try_opens(p[1]);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	ASSERT_EQ(sizeof(got), read(p[0], got, sizeof(got)));
	for (i = 0; i < NR_OPENS; i++) {
		int want = variant->want[i];

		if (want != got[i])
			TH_LOG("level %d, %s: want %s, got %s", variant->level,
			       open_names[i], strerror(want), strerror(got[i]));
		EXPECT_EQ(want, got[i]);
	}
}

/*
 * A tracer in its own pid namespace (root, as in a container) gets the
 * tasks of its namespace under the pids it knows them by, and the others
 * as pid 0 with none of their times.
 */
static int ns_child(void)
{
	struct perf_event_mmap_page *pc;
	struct perf_event_attr attr;
	struct dtl_stream st = { 0 };
	struct perf_dtl_entry e;
	uint64_t head, off;
	size_t rb = 2 * 4096, aux_size = 64 * 4096;
	int fd, i, len, got, n = 0, mine = 0, hidden = 0, bad = 0;
	char *aux;

	if (getpid() != 1)
		return 10;
	dtl_attr(&attr, "all");
	attr.disabled = 1;
	attr.sample_period = 1000000;
	/* CPU-wide on CPU 0: every task that runs there. */
	fd = sys_perf_event_open(&attr, -1, 0, -1, 0);
	if (fd < 0)
		return 11;
	pc = mmap(NULL, rb, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pc == MAP_FAILED)
		return 12;
	pc->aux_offset = rb;
	pc->aux_size = aux_size;
	aux = mmap(NULL, aux_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, rb);
	if (aux == MAP_FAILED)
		return 13;
	dtl_pin_to(0);
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		return 14;
	for (i = 0; i < 20; i++)
		usleep(1000);
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0))
		return 15;
	head = __atomic_load_n(&pc->aux_head, __ATOMIC_ACQUIRE);
	if (head > aux_size)
		head = aux_size;
	for (off = 0; off < head; off += len) {
		len = dtl_stream_decode(&st, aux + off, head - off, &e, &got);
		if (len <= 0) {
			bad++;
			break;
		}
		if (!got)
			continue;
		n++;
		if (e.kind == PERF_DTL_KIND_LOST || e.kind == PERF_DTL_KIND_MIGRATE)
			continue;
		/* This namespace holds one task, pid 1: all else is hidden. */
		if (e.prev_tid > 1 || e.next_tid > 1 || e.prev_pid > 1 ||
		    e.next_pid > 1)
			bad++;
		if (e.prev_tid == 1 || e.next_tid == 1)
			mine++;
		if (!e.next_tid && (e.wait_ns || e.blocked_ns))
			bad++;
		if (!e.prev_tid && (e.ran_ns || e.steal_ns))
			bad++;
		if (!e.prev_tid || !e.next_tid)
			hidden++;
	}
	printf("# in a new pid namespace: %d records, %d name pid 1, %d hide a task, %d leak\n",
	       n, mine, hidden, bad);
	printf("# %llu of the records short, %llu long\n",
	       (unsigned long long)st.shorts, (unsigned long long)st.longs);
	if (bad)
		return 16;
	if (mine < 20 || !hidden)
		return 17;
	return 0;
}

TEST(pid_namespace)
{
	int status;
	pid_t pid;

	if (geteuid())
		SKIP(return, "needs root to make a pid namespace");
	ASSERT_EQ(0, unshare(CLONE_NEWPID)) TH_LOG("unshare: %s", strerror(errno));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		fflush(stdout);
		_exit(ns_child());
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("the tracer in the namespace failed at step %d",
		       WEXITSTATUS(status));
}

/*
 * A pid given to a task of the namespace before the reader's first drain.
 * A task the reader cannot see (of the initial namespace) sleeps and
 * wakes on a CPU and exits; a task forked in the namespace gets its pid
 * in the initial namespace (clone3() with set_tid, which needs
 * CAP_CHECKPOINT_RESTORE but not CONFIG_CHECKPOINT_RESTORE, unlike
 * ns_last_pid); only then, before any timer
 * pass (the poll period is a second), does the reader drain.  The first
 * task's records must not name the second, nor anything else the reader
 * sees: only the second task's own switches name it, and those do.
 */
#define REUSE_SLEEPS	50
#define REUSE_TRIES	5

struct reuse_report {
	int	err;		/* the step that failed in the namespace, or 0 */
	pid_t	v;		/* the new task, as the namespace sees it */
	int	records;
	int	naming_v;	/* records that name it */
	int	hidden;		/* switch records that hide a task */
};

static struct perf_dtl_entry reuse_recs[65536];

/* Fork a child with pid 2 in this namespace and @nr in its parent. */
static pid_t fork_as(pid_t nr)
{
	pid_t set_tid[2] = { 2, nr };
	struct clone_args args = {
		.exit_signal = SIGCHLD,
		.set_tid = (uintptr_t)set_tid,
		.set_tid_size = 2,
	};

	return syscall(__NR_clone3, &args, sizeof(args));
}

/* pid 1 of a new namespace: the reader, and the parent of the new task. */
static int reuse_reader(int cpu, int cmd, int res)
{
	struct reuse_report r = { 0 };
	struct dtl_trace_buf t;
	int hold[2], i, n;
	pid_t v, nr;
	char c;

	if (dtl_trace_open(&t, -1, cpu, PERF_DTL_EVENT_TRACE, 0,
			   PERF_DTL_POLL_MAX_NS, 0, 512))
		r.err = 1;
	else if (ioctl(t.fd, PERF_EVENT_IOC_ENABLE, 0))
		r.err = 2;
	if (write(res, &r, sizeof(r)) != sizeof(r) || r.err)
		return 1;
	if (read(cmd, &nr, sizeof(nr)) != sizeof(nr) || pipe(hold))
		return 1;
	/* The new task runs on the traced CPU: its own switches are shown. */
	dtl_pin_to(cpu);
	v = fork_as(nr);
	if (!v) {
		/* Blocks until the reader is done. */
		close(hold[1]);
		_exit(read(hold[0], &c, 1) < 0);
	}
	close(hold[0]);
	r.v = v;
	if (v < 0)
		r.err = 3;
	if (write(res, &r, sizeof(r)) != sizeof(r) || r.err)
		return 1;
	/* The test checks the pid, then asks for the drain. */
	if (read(cmd, &c, 1) != 1)
		return 1;
	if (ioctl(t.fd, PERF_EVENT_IOC_DISABLE, 0))
		r.err = 4;
	n = dtl_trace_take(&t, reuse_recs, 65536);
	r.records = n;
	for (i = 0; i < n; i++) {
		const struct perf_dtl_entry *e = &reuse_recs[i];

		if (e->kind == PERF_DTL_KIND_LOST)
			continue;
		if (e->prev_tid == (uint32_t)v || e->prev_pid == (uint32_t)v ||
		    (e->kind != PERF_DTL_KIND_MIGRATE &&
		     (e->next_tid == (uint32_t)v || e->next_pid == (uint32_t)v)))
			r.naming_v++;
		if (e->kind != PERF_DTL_KIND_MIGRATE &&
		    (!e->prev_tid || !e->next_tid))
			r.hidden++;
	}
	close(hold[1]);
	waitpid(v, NULL, 0);
	dtl_trace_close(&t);
	return write(res, &r, sizeof(r)) != sizeof(r);
}

/* Is @nr of the initial namespace the task @v of a child namespace? */
static int holds(pid_t nr, pid_t v)
{
	char path[64], buf[4096], want[64], *l;

	snprintf(path, sizeof(path), "/proc/%d/status", nr);
	if (dtl_read_file(path, buf, sizeof(buf)))
		return 0;
	l = strstr(buf, "\nNSpid:");
	snprintf(want, sizeof(want), "\nNSpid:\t%d\t%d\n", nr, v);
	return l && !strncmp(l, want, strlen(want));
}

TEST(pid_namespace_reuse)
{
	int cpu = dtl_last_cpu(), tries, cmd[2], res[2], status, i, reused;
	struct reuse_report r;
	struct drain_stat st0, st;
	struct dtl_sched vs;
	unsigned long long vsw;
	pid_t p, h;

	if (geteuid())
		SKIP(return, "needs root to make a pid namespace");
	if (access(DTL_DEBUGFS "/drain", F_OK))
		SKIP(return, "no %s (debugfs): cannot tell a timer pass from the drain",
		     DTL_DEBUGFS "/drain");
	for (tries = 1; tries <= REUSE_TRIES; tries++) {
		ASSERT_EQ(0, pipe(cmd));
		ASSERT_EQ(0, pipe(res));
		p = fork();
		ASSERT_GE(p, 0);
		if (!p) {
			pid_t c;

			if (unshare(CLONE_NEWPID))
				_exit(1);
			c = fork();
			if (!c)
				_exit(reuse_reader(cpu, cmd[0], res[1]));
			_exit(c < 0 || waitpid(c, &status, 0) != c ||
			      !WIFEXITED(status) || WEXITSTATUS(status));
		}
		ASSERT_EQ(sizeof(r), read(res[0], &r, sizeof(r)));
		ASSERT_EQ(0, r.err) TH_LOG("the reader failed at step %d", r.err);
		/* Its timer passes: the CPU's count goes up (writes reset the maxima only). */
		ASSERT_EQ(0, drain_read(cpu, &st0));

		/* The hidden task. */
		h = fork();
		ASSERT_GE(h, 0);
		if (!h) {
			dtl_pin_to(cpu);
			for (i = 0; i < REUSE_SLEEPS; i++)
				usleep(200);
			_exit(0);
		}
		ASSERT_EQ(h, waitpid(h, &status, 0));
		ASSERT_EQ(sizeof(h), write(cmd[1], &h, sizeof(h)));
		ASSERT_EQ(sizeof(r), read(res[0], &r, sizeof(r)));
		ASSERT_EQ(0, r.err) TH_LOG("the reader failed at step %d (clone3 as pid %d)",
					   r.err, h);
		reused = holds(h, r.v);
		/* The new task's own switches, blocked as it is now. */
		ASSERT_EQ(0, dtl_sched_read(h, h, &vs));
		vsw = vs.nvcsw + vs.nivcsw;
		ASSERT_EQ(0, drain_read(cpu, &st));
		ASSERT_EQ(1, write(cmd[1], "d", 1));
		ASSERT_EQ(sizeof(r), read(res[0], &r, sizeof(r)));
		ASSERT_EQ(0, r.err) TH_LOG("the reader failed at step %d", r.err);
		ASSERT_EQ(p, waitpid(p, &status, 0));
		ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
		close(cmd[0]);
		close(cmd[1]);
		close(res[0]);
		close(res[1]);
		TH_LOG("try %d: pid %d reused as %d: %s; %lu timer passes before the drain",
		       tries, h, r.v, reused ? "yes" : "no", st.passes - st0.passes);
		TH_LOG("%d records, %d name %d, which switched %llu times, %d hide a task",
		       r.records, r.naming_v, r.v, vsw, r.hidden);
		ASSERT_TRUE(reused) TH_LOG("pid %d is not the namespace's %d", h, r.v);
		/* A pass would have read the records before the reuse. */
		if (st.passes != st0.passes)
			continue;
		EXPECT_GE(r.hidden, REUSE_SLEEPS);
		/*
		 * Its own dispatches and switch-outs (one more dispatch if
		 * the drain came while it ran), and at least the first of
		 * each, new as it is.
		 */
		EXPECT_LE(r.naming_v, 2 * vsw + 2);
		EXPECT_GE(r.naming_v, 2);
		return;
	}
	ASSERT_TRUE(0) TH_LOG("in %d tries, a timer pass came before the reuse", REUSE_TRIES);
}

TEST_HARNESS_MAIN
