// SPDX-License-Identifier: GPL-2.0-only
/*
 * dtl events opened by an unprivileged user at each perf_event_paranoid
 * level: the errno perf's rules give, and nothing else.
 *
 *   level  task count  task count:u  task trace:u  CPU count  CPU trace:u
 *    -1       ok          ok            ok            ok          ok
 *     0       ok          ok            ok            ok          ok
 *     1       ok          ok            ok          EACCES      EACCES
 *     2     EACCES        ok            ok          EACCES      EACCES
 *
 * At level 2 an event that does not exclude the kernel needs the privilege
 * to profile it: a counter of the user's own task may exclude the kernel
 * (":u", as perf asks for it then), and so may a trace event (records of
 * user tasks only).
 */
#define _GNU_SOURCE
#include <linux/perf_dtl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "dtl_util.h"

#define PARANOID	"/proc/sys/kernel/perf_event_paranoid"
#define NOBODY		65534

enum { TASK_COUNT, TASK_COUNT_U, TASK_TRACE, CPU_COUNT, CPU_TRACE, NR_OPENS };

static const char * const open_names[NR_OPENS] = {
	"task count", "task count:u", "task trace:u", "CPU count", "CPU trace:u",
};

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
		attr.exclude_kernel = trace || i == TASK_COUNT_U;
		fd = sys_perf_event_open(&attr, i < CPU_COUNT ? 0 : -1,
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
	int want[NR_OPENS];
};

FIXTURE_VARIANT_ADD(paranoid, minus_1)
{
	.level = -1, .want = { 0, 0, 0, 0, 0 },
};

FIXTURE_VARIANT_ADD(paranoid, level_0)
{
	.level = 0, .want = { 0, 0, 0, 0, 0 },
};

FIXTURE_VARIANT_ADD(paranoid, level_1)
{
	.level = 1, .want = { 0, 0, 0, EACCES, EACCES },
};

FIXTURE_VARIANT_ADD(paranoid, level_2)
{
	.level = 2, .want = { EACCES, 0, 0, EACCES, EACCES },
};

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
		if (setgid(NOBODY) || setuid(NOBODY))
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

TEST_HARNESS_MAIN
