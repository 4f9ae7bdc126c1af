// SPDX-License-Identifier: GPL-2.0-only
/*
 * A workload for "perf record -e dtl/all/ -- dtl_workload": two threads
 * ping-pong on the first CPU, two forked processes on the last, ROUNDS
 * times each (argv[1], default 300).  Then every worker parks, and the
 * main thread prints, for each, the scheduler's count of its switch-outs
 * (nvcsw + nivcsw) while it is parked:
 *
 *	task <pid> <tid> <switch-outs>
 *
 * Then it sleeps 300 ms and releases the workers, which exit: in a
 * recording, the main thread's dispatch that ends that sleep (250 ms or
 * more blocked) comes before the release.  (What a worker does after that
 * is not all in a recording: perf removes a task's events in do_exit(),
 * before its last switches.)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "dtl_util.h"

#define WORKERS	4

struct shared {
	pid_t pid[WORKERS], tid[WORKERS];
	int n;
	int parked;
};

struct pair {
	int a2b[2], b2a[2];
	int rounds, cpu;
};

static struct shared *sh;
static struct pair threads, procs;
static int park_fd[2];

static void worker(struct pair *p, int side)
{
	int i = __atomic_fetch_add(&sh->n, 1, __ATOMIC_SEQ_CST);
	char c = 'x';

	sh->pid[i] = getpid();
	sh->tid[i] = gettid();
	dtl_pin_to(p->cpu);
	for (int r = 0; r < p->rounds; r++) {
		if (side ? read(p->a2b[0], &c, 1) != 1 || write(p->b2a[1], &c, 1) != 1 :
			   write(p->a2b[1], &c, 1) != 1 || read(p->b2a[0], &c, 1) != 1)
			exit(1);
	}
	__atomic_add_fetch(&sh->parked, 1, __ATOMIC_SEQ_CST);
	if (read(park_fd[0], &c, 1) != 1)
		exit(1);
}

static void *thread_main(void *arg)
{
	worker(&threads, (long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 300;
	pthread_t th[2];
	char go[WORKERS] = "gggg";
	int i;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || pipe(park_fd) || pipe(threads.a2b) ||
	    pipe(threads.b2a) || pipe(procs.a2b) || pipe(procs.b2a))
		return 1;
	threads.rounds = rounds;
	procs.rounds = rounds;
	threads.cpu = 0;
	procs.cpu = dtl_last_cpu();
	for (i = 0; i < 2; i++) {
		if (fork() == 0) {
			worker(&procs, i);
			_exit(0);
		}
		if (pthread_create(&th[i], NULL, thread_main, (void *)(long)i))
			return 1;
	}
	while (__atomic_load_n(&sh->parked, __ATOMIC_SEQ_CST) < WORKERS)
		usleep(1000);
	for (i = 0; i < WORKERS; i++) {
		/* Parked: asleep in read() with nothing left to do. */
		if (dtl_wait_sleeping(sh->pid[i], sh->tid[i]))
			return 1;
		while (dtl_task_state(sh->pid[i], sh->tid[i]) != 'S' ||
		       !dtl_off_cpu(sh->pid[i], sh->tid[i]))
			usleep(1000);
	}
	/* Now that every worker is parked, their counts are final. */
	usleep(20000);
	for (i = 0; i < WORKERS; i++) {
		struct dtl_sched s;

		if (dtl_wait_sleeping(sh->pid[i], sh->tid[i]) ||
		    dtl_sched_read(sh->pid[i], sh->tid[i], &s))
			return 1;
		printf("task %d %d %llu\n", sh->pid[i], sh->tid[i],
		       dtl_sched_switches(&s));
	}
	fflush(stdout);
	usleep(300000);
	if (write(park_fd[1], go, WORKERS) != WORKERS)
		return 1;
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	while (wait(NULL) > 0)
		;
	return 0;
}
