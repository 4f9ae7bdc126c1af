// SPDX-License-Identifier: GPL-2.0-only
/*
 * dtl's per-task state: how each task last left a CPU (struct
 * dtl_block_info), kept in the task's PMU specific data, dtl's own slot of
 * task_struct::perf_ctx_data.
 *
 * perf core allocates it when a dtl event asks (PERF_ATTACH_TASK_DATA, set
 * by dtl_task_event_init()): for the event's task and each child an
 * inherited event follows; for a CPU-wide or cgroup event, for every task,
 * and every task forked while such an event exists.  It frees it with the
 * last event that asked, or with the task.  A task without it, or whose
 * state was written while an earlier registration of the probe was in
 * place (@gen), is unknown: its records say so, and its counters charge
 * the wait on the queue that dispatched it only.
 *
 * Written by the sched_switch probe on the CPU that @p leaves, and read by
 * the probe on the CPU that next dispatches @p: the scheduler orders the
 * two, as it dispatches a task only after the switch that took it off a
 * CPU is done.  Both run with interrupts disabled, which holds off the
 * grace period that perf core waits for before it frees the data.
 */
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "dtl.h"

struct dtl_task {
	unsigned long		gen;	/* dtl_hook_gen when @last was written */
	struct dtl_block_info	last;
};

static struct kmem_cache *dtl_task_cache;

static struct dtl_task *dtl_task_of(struct task_struct *p)
{
	struct perf_ctx_data *cd;

	cd = rcu_dereference_sched(p->perf_ctx_data[perf_ctx_data_dtl]);
	return cd ? cd->data : NULL;
}

void dtl_task_left(struct task_struct *p, unsigned long gen,
		   const struct dtl_block_info *info)
{
	struct dtl_task *t = dtl_task_of(p);

	if (t) {
		t->last = *info;
		t->gen = gen;
	}
}

bool dtl_task_last(struct task_struct *p, unsigned long gen,
		   struct dtl_block_info *info)
{
	struct dtl_task *t = dtl_task_of(p);

	if (!t || t->gen != gen)
		return false;
	*info = t->last;
	return true;
}

/* Called at the end of a successful event_init. */
void dtl_task_event_init(struct perf_event *event)
{
	event->attach_state |= PERF_ATTACH_TASK_DATA;
}

int dtl_task_init(struct pmu *pmu)
{
	dtl_task_cache = KMEM_CACHE(dtl_task, 0);
	if (!dtl_task_cache)
		return -ENOMEM;
	pmu->task_ctx_cache = dtl_task_cache;
	pmu->task_ctx_user = perf_ctx_data_dtl;
	return 0;
}

/* No event is left; perf core frees the last tasks' data after a grace period. */
void dtl_task_exit(void)
{
	rcu_barrier();
	kmem_cache_destroy(dtl_task_cache);
}
