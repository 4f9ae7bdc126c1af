// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-task dtl counters: self-reads through the perf mmap page, inherited
 * families that perf switches by swapping equivalent contexts, and the
 * ways a task event comes and goes (attach to a running task, ioctl
 * enable/disable, a child exiting, migration, inherit_stat).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "dtl_util.h"
#include "../../../dtl/dtl_self.h"

#define SWITCHES	DTL_DEBUGFS "/switches"

/* Sum of the "ctx_fast" and "ctx_full" columns of debugfs dtl/switches. */
static int ctx_switches(unsigned long long *fast, unsigned long long *full)
{
	unsigned long long sw, fa, fu;
	char line[256];
	FILE *f = fopen(SWITCHES, "r");
	int cpu;

	if (!f)
		return -1;
	*fast = *full = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%d %llu %llu %llu", &cpu, &sw, &fa, &fu) != 4)
			continue;
		*fast += fa;
		*full += fu;
	}
	fclose(f);
	return 0;
}

static void spin_us(long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000L +
		 (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

/*
 * Self-read @pc and this thread's switch-outs (getrusage(): no /proc file,
 * whose read can itself block on PREEMPT_RT's sleeping locks) with no
 * switch-out in between: one there would count in one and not the other.
 */
static int self_read_between(struct perf_event_mmap_page *pc,
			     struct dtl_self_value *v, long *switches)
{
	int i;

	for (i = 0; i < 100; i++) {
		*switches = thread_switches();
		if (dtl_self_read(pc, v))
			return -1;
		if (thread_switches() == *switches)
			return 0;
	}
	return -1;
}

/*
 * A task reading its own counters: the mmap page (no system call) and
 * read() give the same values at every point of a workload that sleeps
 * and runs in turn.
 */
TEST(self_read_matches_read)
{
	static const char * const names[] = {
		"dispatches", "preemptions", "wait_ns"
	};
	struct perf_event_mmap_page *pc[3];
	struct dtl_self_value v, v0;
	int fd[3], i, j, k, same = 0;
	long long r, disp;
	long sw0, sw1;

	for (j = 0; j < 3; j++) {
		fd[j] = dtl_open(names[j], 0, -1, -1, 0);
		ASSERT_GE(fd[j], 0);
		pc[j] = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd[j], 0);
		ASSERT_NE(MAP_FAILED, pc[j]);
	}
	ASSERT_EQ(0, self_read_between(pc[0], &v0, &sw0));
	for (i = 0; i < 50; i++) {
		usleep(500);
		spin_us(i % 7 * 100);
		for (j = 0; j < 3; j++) {
			/*
			 * Both while the task runs: a switch in between (a
			 * timer thread's preemption, on PREEMPT_RT) ends a
			 * run that read() counts; try that pair again.
			 */
			for (k = 0; k < 100; k++) {
				long cs = thread_switches();

				ASSERT_EQ(0, dtl_self_read(pc[j], &v))
					TH_LOG("%s: the page has a counter index",
					       names[j]);
				r = dtl_count(fd[j]);
				if (thread_switches() == cs)
					break;
			}
			ASSERT_LT(k, 100) TH_LOG("a switch in every try");
			ASSERT_EQ((uint64_t)r, v.value)
				TH_LOG("round %d, %s: self-read %llu, read() %lld",
				       i, names[j], (unsigned long long)v.value, r);
			same++;
		}
	}
	ASSERT_EQ(0, self_read_between(pc[0], &v, &sw1));
	disp = v.value - v0.value;
	TH_LOG("%d self-reads equal to read(); +%lld dispatches, switches +%ld",
	       same, disp, sw1 - sw0);
	/*
	 * Both taken while running: the runs that ended in between are the
	 * dispatches in between.  (Not necessarily 50: on a loaded host a
	 * 500 us sleep's timer can expire before the task blocks.)
	 */
	EXPECT_EQ(sw1 - sw0, disp);
	EXPECT_GT(disp, 25);
	for (j = 0; j < 3; j++) {
		munmap(pc[j], 4096);
		close(fd[j]);
	}
}

/*
 * An inherited family ping-ponging on all CPUs: threads and forked
 * children of one process, all in equivalent perf contexts, so perf swaps
 * the contexts between them instead of switching the events, and dtl
 * counts a swap as a fast switch.  The totals still agree with the
 * scheduler's: once every task has played and blocks before it exits,
 * exactly with the family's own switch-outs (nvcsw + nivcsw of each task);
 * at the end exactly with context-switches (minus each task's last run,
 * see dtl_count's inherit_fork), and within the same bounds as there with
 * schedstat.
 */
#define FAMILY_THREADS	2
#define FAMILY_CHILDREN	2
#define FAMILY_ROUNDS	300
/* The root, its children and grandchildren, and the root's threads. */
#define FAMILY_TASKS	(1 + 2 * FAMILY_CHILDREN + FAMILY_THREADS)

struct pp {
	int in, out;
};

/* The family's ends of two pipes: tasks say who they are, then wait. */
static int family_held_fd, family_go_on_fd;

/*
 * Tell the test this task's ids and block until it lets the family go on:
 * while all of them wait here, none runs, so dtl's count and the
 * scheduler's cover the same runs.
 */
static int family_hold(void)
{
	pid_t id[2] = { getpid(), gettid() };
	char c;

	if (write(family_held_fd, id, sizeof(id)) != sizeof(id) ||
	    read(family_go_on_fd, &c, 1) != 1)
		return -1;
	return 0;
}

static void *pp_thread(void *arg)
{
	struct pp *p = arg;
	char c;
	int i;

	for (i = 0; i < FAMILY_ROUNDS; i++)
		if (read(p->in, &c, 1) != 1 || write(p->out, &c, 1) != 1)
			break;
	family_hold();
	return NULL;
}

/* The family's root: forks children and starts threads, all ping-pong. */
static void family_root(int go_fd, int result_fd)
{
	pthread_t th[FAMILY_THREADS];
	struct dtl_sched s;
	struct pp tp[FAMILY_THREADS];
	pid_t kids[FAMILY_CHILDREN];
	int to[2], from[2], i, r;
	char c = 'x';

	if (read(go_fd, &c, 1) != 1)
		_exit(1);
	for (i = 0; i < FAMILY_CHILDREN; i++) {
		if (pipe(to) || pipe(from))
			_exit(1);
		kids[i] = fork();
		if (kids[i] < 0)
			_exit(1);
		if (!kids[i]) {
			/* The grandchild pings, the child pongs. */
			pid_t g = fork();

			if (g < 0)
				_exit(1);
			for (r = 0; r < FAMILY_ROUNDS; r++) {
				if (g) {
					if (read(to[0], &c, 1) != 1 ||
					    write(from[1], &c, 1) != 1)
						break;
				} else {
					if (write(to[1], &c, 1) != 1 ||
					    read(from[0], &c, 1) != 1)
						break;
				}
			}
			if (family_hold())
				_exit(1);
			if (g) {
				struct dtl_sched gs;
				siginfo_t si;

				/* Report the grandchild's stats to the test. */
				if (waitid(P_PID, g, &si, WEXITED | WNOWAIT) ||
				    dtl_sched_read(g, g, &gs))
					_exit(1);
				waitpid(g, NULL, 0);
				if (write(result_fd, &gs, sizeof(gs)) != sizeof(gs))
					_exit(1);
			}
			_exit(0);
		}
		close(to[0]);
		close(to[1]);
		close(from[0]);
		close(from[1]);
	}
	for (i = 0; i < FAMILY_THREADS; i++) {
		int a[2], b[2];

		if (pipe(a) || pipe(b))
			_exit(1);
		tp[i].in = a[0];
		tp[i].out = b[1];
		if (pthread_create(&th[i], NULL, pp_thread, &tp[i]))
			_exit(1);
		for (r = 0; r < FAMILY_ROUNDS; r++)
			if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
				_exit(1);
	}
	if (family_hold())
		_exit(1);
	for (i = 0; i < FAMILY_THREADS; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < FAMILY_CHILDREN; i++) {
		siginfo_t si;

		if (waitid(P_PID, kids[i], &si, WEXITED | WNOWAIT) ||
		    dtl_sched_read(kids[i], kids[i], &s))
			_exit(1);
		waitpid(kids[i], NULL, 0);
		if (write(result_fd, &s, sizeof(s)) != sizeof(s))
			_exit(1);
	}
	_exit(0);
}

/*
 * The switch-outs so far of the tasks in @ids (pid and tid), each once it
 * waits off the CPU; -1 if one cannot be read.
 */
static long long family_switches(pid_t ids[][2], int n)
{
	struct dtl_sched s;
	long long sum = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (dtl_wait_sleeping(ids[i][0], ids[i][1]) ||
		    dtl_sched_read(ids[i][0], ids[i][1], &s))
			return -1;
		sum += dtl_sched_switches(&s);
	}
	return sum;
}

static void run_family(struct __test_metadata *_metadata, int inherit_stat)
{
	static const char * const names[] = {
		"dispatches", "preemptions", "wait_ns"
	};
	unsigned long long fast0, full0, fast1, full1;
	struct dtl_sched root0, root1, s, total;
	int go[2], res[2], held[2], go_on[2], fd[3], cs_fd, j, n = 0;
	int ntasks = 1 + 2 * FAMILY_CHILDREN;
	pid_t root, ids[FAMILY_TASKS][2];
	long long v[3], cs, sw, sw_again, mid;
	siginfo_t si;

	if (ctx_switches(&fast0, &full0))
		SKIP(return, "no debugfs " SWITCHES);
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(res));
	ASSERT_EQ(0, pipe(held));
	ASSERT_EQ(0, pipe(go_on));
	family_held_fd = held[1];
	family_go_on_fd = go_on[0];
	root = fork();
	ASSERT_GE(root, 0);
	if (!root)
		family_root(go[0], res[1]);
	close(res[1]);
	close(held[1]);
	close(go_on[0]);

	ASSERT_EQ(0, dtl_wait_sleeping(root, root));
	for (j = 0; j < 3; j++) {
		struct perf_event_attr attr;

		dtl_attr(&attr, names[j]);
		attr.inherit = 1;
		attr.inherit_stat = inherit_stat;
		attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
		fd[j] = sys_perf_event_open(&attr, root, -1, -1, 0);
		ASSERT_GE(fd[j], 0);
	}
	/*
	 * Not with inherit_stat: perf_event_sync_stat() pairs the events of
	 * two contexts by their position in the event lists, and a clone's
	 * list is ordered by PMU, so a context mixing PMUs gets its counts
	 * swapped between different events.
	 */
	cs_fd = -1;
	if (!inherit_stat) {
		cs_fd = sw_open(PERF_COUNT_SW_CONTEXT_SWITCHES, root, -1, -1, 1);
		ASSERT_GE(cs_fd, 0);
	}
	ASSERT_EQ(0, dtl_sched_read(root, root, &root0));
	ASSERT_EQ(0, ctx_switches(&fast0, &full0));

	ASSERT_EQ(1, write(go[1], "g", 1));
	/*
	 * Every task has played and waits in family_hold(): no run is in
	 * progress, and each run that ended since the events were attached
	 * (the root's since root0, the others' since they were created) is
	 * a switch-out the scheduler counted.  Read again after dtl: a task
	 * still on its way into the wait has switched in between.
	 */
	for (j = 0; j < FAMILY_TASKS; j++)
		ASSERT_EQ(sizeof(ids[j]), read(held[0], ids[j], sizeof(ids[j])));
	for (j = 0; j < 100; j++) {
		sw = family_switches(ids, FAMILY_TASKS);
		mid = dtl_count(fd[0]);
		sw_again = family_switches(ids, FAMILY_TASKS);
		if (sw == sw_again)
			break;
	}
	ASSERT_GE(sw, 0);
	sw -= dtl_sched_switches(&root0);
	TH_LOG("%d tasks waiting to exit: dispatches %lld, switch-outs %lld",
	       FAMILY_TASKS, mid, sw);
	EXPECT_EQ(sw, mid);
	for (j = 0; j < FAMILY_TASKS; j++)
		ASSERT_EQ(1, write(go_on[1], "g", 1));

	memset(&total, 0, sizeof(total));
	while (read(res[0], &s, sizeof(s)) == sizeof(s)) {
		dtl_sched_add(&total, &s);
		n++;
	}
	ASSERT_EQ(2 * FAMILY_CHILDREN, n);
	ASSERT_EQ(0, waitid(P_PID, root, &si, WEXITED | WNOWAIT));
	/* The threads' stats are in the process's: read the group leader's. */
	ASSERT_EQ(0, dtl_sched_read(root, root, &root1));
	ASSERT_EQ(0, ctx_switches(&fast1, &full1));
	for (j = 0; j < 3; j++)
		v[j] = dtl_count(fd[j]);
	cs = cs_fd >= 0 ? dtl_count(cs_fd) : -1;
	waitpid(root, NULL, 0);

	TH_LOG("%d processes + %d threads: dispatches %lld cs %lld; fast switches %llu, full %llu",
	       ntasks, FAMILY_THREADS, v[0], cs, fast1 - fast0, full1 - full0);
	/* The optimisation is not dead code. */
	EXPECT_GT(fast1 - fast0, 0);
	/* Each task's last run is charged at its exit; threads included. */
	if (cs_fd >= 0)
		EXPECT_EQ(cs, v[0] - ntasks - FAMILY_THREADS);
	/* Every task ran again after the wait: at least its last run. */
	EXPECT_GE(v[0], mid + FAMILY_TASKS);
	/* Every round trip dispatches both sides. */
	EXPECT_GE(v[0], 2 * FAMILY_ROUNDS * (FAMILY_CHILDREN + FAMILY_THREADS));
	/* Children alone (the root's threads are not in its own schedstat). */
	EXPECT_GE(v[0], (long long)(total.pcount + root1.pcount - root0.pcount));
	for (j = 0; j < 3; j++)
		close(fd[j]);
	if (cs_fd >= 0)
		close(cs_fd);
	close(held[0]);
	close(go_on[1]);
}

/* Stop a child and wait until it is stopped: its runs are over. */
static int stop_child(pid_t child)
{
	int i;

	kill(child, SIGSTOP);
	for (i = 0; i < 5000; i++) {
		if (dtl_task_state(child, child) == 'T' &&
		    dtl_off_cpu(child, child))
			return 0;
		usleep(1000);
	}
	return -1;
}

/*
 * Attach to a task that has been running for a while: its runs from then
 * on.  It is stopped (SIGSTOP, so that its runs are over) while the event
 * is attached and at the end, so the counts compare exactly.
 */
TEST(attach_running)
{
	struct dtl_sched s0, s1, delta;
	long long d;
	pid_t child;
	int fd;

	child = fork();
	ASSERT_GE(child, 0);
	if (!child) {
		for (;;)
			usleep(1000);
	}
	usleep(50000);
	ASSERT_EQ(0, stop_child(child));
	fd = dtl_open("dispatches", child, -1, -1, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, dtl_sched_read(child, child, &s0));
	kill(child, SIGCONT);
	usleep(200000);
	ASSERT_EQ(0, stop_child(child));
	ASSERT_EQ(0, dtl_sched_read(child, child, &s1));
	d = dtl_count(fd);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	dtl_sched_sub(&delta, &s1, &s0);
	TH_LOG("attached: %lld dispatches, switches +%llu, pcount +%llu", d,
	       dtl_sched_switches(&delta), delta.pcount);
	EXPECT_EQ(dtl_sched_switches(&delta), d);
	EXPECT_TRUE(dtl_pcount_agrees(d, &delta));
	EXPECT_GT(d, 10);
	close(fd);
}

/* Disabled with ioctl, the counter stops; enabled, it goes on. */
TEST(ioctl_enable_disable)
{
	long long a, b, c;
	int fd, i;

	fd = dtl_open("dispatches", 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	for (i = 0; i < 20; i++)
		usleep(500);
	a = dtl_count(fd);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	for (i = 0; i < 20; i++)
		usleep(500);
	b = dtl_count(fd);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	for (i = 0; i < 20; i++)
		usleep(500);
	c = dtl_count(fd);
	TH_LOG("enabled %lld, disabled +%lld, enabled again +%lld", a, b - a,
	       c - b);
	/* Most 500 us sleeps block (all of them on an idle host). */
	EXPECT_GE(a, 10);
	/* The run that was in progress at the disable is not counted. */
	EXPECT_LE(b - a, 1);
	EXPECT_GE(c - b, 10);
	close(fd);
}

/*
 * A child that exits while its parent's inherited counter goes on.  The
 * child reads its own switch-outs just before it exits: those runs and the
 * one in progress (charged when perf removes its events at exit) must be
 * in the total, next to the parent's own runs, which the parent counts
 * with getrusage() inside the window of its two reads.  The exit path can
 * block again after perf removed the child's events (on PREEMPT_RT, on its
 * sleeping locks): those runs are in the zombie's counts only, which bound
 * the total from above.
 */
TEST(child_exits_parent_counts)
{
	struct dtl_sched last, zombie;
	long long before, after, sw[4];
	siginfo_t si;
	pid_t child;
	int fd, i, p[2];

	fd = dtl_open("dispatches", 0, -1, -1, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, pipe(p));
	sw[0] = thread_switches();
	before = dtl_count(fd);
	sw[1] = thread_switches();
	child = fork();
	ASSERT_GE(child, 0);
	if (!child) {
		for (i = 0; i < 30; i++)
			usleep(500);
		if (dtl_sched_read(getpid(), getpid(), &last) ||
		    write(p[1], &last, sizeof(last)) != sizeof(last))
			_exit(1);
		_exit(0);
	}
	ASSERT_EQ(sizeof(last), read(p[0], &last, sizeof(last)));
	ASSERT_EQ(0, waitid(P_PID, child, &si, WEXITED | WNOWAIT));
	ASSERT_EQ(0, dtl_sched_read(child, child, &zombie));
	waitpid(child, NULL, 0);
	sw[2] = thread_switches();
	after = dtl_count(fd);
	sw[3] = thread_switches();
	TH_LOG("+%lld dispatches; parent +%lld..%lld, child %llu before exit, %llu at exit",
	       after - before, sw[2] - sw[1], sw[3] - sw[0],
	       dtl_sched_switches(&last), dtl_sched_switches(&zombie));
	EXPECT_EQ(0, si.si_status);
	EXPECT_GE(after - before,
		  sw[2] - sw[1] + (long long)dtl_sched_switches(&last) + 1);
	EXPECT_LE(after - before,
		  sw[3] - sw[0] + (long long)dtl_sched_switches(&zombie) + 1);
	close(p[0]);
	close(p[1]);
	close(fd);
}

#define MOVER_ROUNDS	100

struct mover {
	pid_t tid;
	int go[2];
	int done[2];
	int park[2];
};

static void *mover_main(void *arg)
{
	struct mover *m = arg;
	int i = 0;
	char c;

	m->tid = gettid();
	/* Asleep while the counters are set up. */
	if (read(m->go[0], &c, 1) != 1)
		return NULL;
	/* A number of moves, not a time: a slow guest makes them all. */
	for (i = 0; i < MOVER_ROUNDS; i++) {
		dtl_pin_to(i % dtl_ncpus());
		usleep(500);
	}
	/* Sleep until told, so that its runs are over when it is read. */
	if (write(m->done[1], &c, 1) != 1 || read(m->park[0], &c, 1) != 1)
		return NULL;
	return NULL;
}

/* A task that keeps moving between CPUs: all its runs, on every CPU. */
TEST(migrating_task)
{
	struct mover m = { 0 };
	struct dtl_sched s0, s1, delta;
	pthread_t th;
	long long d, cs;
	int fd, cs_fd;
	char c;

	if (dtl_ncpus() < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, pipe(m.go));
	ASSERT_EQ(0, pipe(m.park));
	ASSERT_EQ(0, pipe(m.done));
	ASSERT_EQ(0, pthread_create(&th, NULL, mover_main, &m));
	while (!__atomic_load_n(&m.tid, __ATOMIC_RELAXED))
		usleep(100);
	ASSERT_EQ(0, dtl_wait_sleeping(getpid(), m.tid));
	fd = dtl_open("dispatches", m.tid, -1, -1, 0);
	ASSERT_GE(fd, 0);
	cs_fd = sw_open(PERF_COUNT_SW_CONTEXT_SWITCHES, m.tid, -1, -1, 0);
	ASSERT_GE(cs_fd, 0);
	ASSERT_EQ(0, dtl_sched_read(getpid(), m.tid, &s0));
	ASSERT_EQ(1, write(m.go[1], "g", 1));
	ASSERT_EQ(1, read(m.done[0], &c, 1));
	ASSERT_EQ(0, dtl_wait_sleeping(getpid(), m.tid));
	usleep(20000);
	ASSERT_EQ(0, dtl_wait_sleeping(getpid(), m.tid));
	ASSERT_EQ(0, dtl_sched_read(getpid(), m.tid, &s1));
	d = dtl_count(fd);
	cs = dtl_count(cs_fd);
	ASSERT_EQ(1, write(m.park[1], "p", 1));
	pthread_join(th, NULL);
	dtl_sched_sub(&delta, &s1, &s0);
	TH_LOG("moving thread: %lld dispatches, cs %lld, switches +%llu, pcount +%llu",
	       d, cs, dtl_sched_switches(&delta), delta.pcount);
	/*
	 * Each move to another CPU ends a run: the thread waits for the
	 * stopper that moves it (all rounds but maybe the first move it).
	 */
	EXPECT_GE(d, MOVER_ROUNDS - 1);
	/* Asleep at both ends: every run is over and counted by all. */
	EXPECT_EQ(cs, d);
	EXPECT_EQ(dtl_sched_switches(&delta), d);
	EXPECT_TRUE(dtl_pcount_agrees(d, &delta));
	close(fd);
	close(cs_fd);
}

#define TAINT_WARN	0x200L		/* bit 9 of /proc/sys/kernel/tainted */

/*
 * A swap right after an event of the family was closed: closing bumps
 * the context's generation without switching it in, so the cookie dtl
 * took at the last full switch-in is stale when perf swaps the parent's
 * context with a child's cloned after the close.  perf has proved them
 * equivalent: dtl must swap, not WARN (which an unprivileged user could
 * trigger at will).  Each child starts on an idle CPU (a full switch-in,
 * with the new generation), moves to its parent's CPU and wakes the
 * parent there; the two then share the CPU, and the switches between
 * them are swaps.  The WARN shows as the kernel's TAINT_WARN.
 */
TEST(swap_after_close)
{
	unsigned long long fast0, full0, fast1, full1;
	long t0 = dtl_read_ll("/proc/sys/kernel/tainted");
	int i, j, cpu, fd1, fd2, status, here[2];
	cpu_set_t all;
	pid_t pid;
	char c;

	if (dtl_ncpus() < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_GE(t0, 0);
	if (t0 & TAINT_WARN)
		SKIP(return, "the kernel already has a WARN taint: a new one would not show");
	ASSERT_EQ(0, ctx_switches(&fast0, &full0));
	CPU_ZERO(&all);
	for (i = 0; i < dtl_ncpus(); i++)
		CPU_SET(i, &all);
	for (i = 0; i < 20; i++) {
		/* Free to fork the child anywhere; this CPU stays allowed. */
		ASSERT_EQ(0, sched_setaffinity(0, sizeof(all), &all));
		fd1 = dtl_open("dispatches", 0, -1, -1, 1);
		ASSERT_GE(fd1, 0);
		fd2 = dtl_open("dispatches", 0, -1, -1, 1);
		ASSERT_GE(fd2, 0);
		close(fd2);
		ASSERT_EQ(0, pipe(here));
		cpu = sched_getcpu();
		pid = fork();
		ASSERT_GE(pid, 0);
		if (!pid) {
			dtl_pin_to(cpu);
			/* On the parent's CPU now: wake it there. */
			if (write(here[1], "h", 1) != 1)
				_exit(1);
			spin_us(2000);
			_exit(0);
		}
		/* Stay here (no balancing away from the child): a no-op pin. */
		dtl_pin_to(cpu);
		/*
		 * Wait until the child runs on this CPU (waiting for it by
		 * time alone missed it on arm64 under TCG: 0 swaps), then
		 * both are runnable here and every switch between the two
		 * is a swap: the wakeup's or the yields'.
		 */
		ASSERT_EQ(1, read(here[0], &c, 1));
		for (j = 0; j < 10; j++) {
			spin_us(1000);
			sched_yield();
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		close(here[0]);
		close(here[1]);
		close(fd1);
	}
	ASSERT_EQ(0, ctx_switches(&fast1, &full1));
	TH_LOG("%llu swaps, %llu full switches; taint %ld -> %lld",
	       fast1 - fast0, full1 - full0, t0,
	       dtl_read_ll("/proc/sys/kernel/tainted"));
	EXPECT_GT(fast1 - fast0, 0);
	EXPECT_FALSE(dtl_read_ll("/proc/sys/kernel/tainted") & TAINT_WARN);
}

TEST(family_fast_path)
{
	run_family(_metadata, 0);
}

/*
 * inherit_stat: on each swap perf also swaps the counts of the equivalent
 * events (reading the active ones through dtl), so that counts follow
 * tasks.  The family's totals must not change.  (6.12 no longer reports a
 * child's count at its exit: ctx->task is TASK_TOMBSTONE before
 * sync_child_event() would emit the PERF_RECORD_READ.)
 */
TEST(family_fast_path_inherit_stat)
{
	run_family(_metadata, 1);
}

TEST_HARNESS_MAIN
