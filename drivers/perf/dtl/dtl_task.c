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
 * last event that asked, and an inherited event's with its task, when the
 * task exits (perf swaps equivalent contexts between the tasks of a
 * family, so a task may exit with a sibling's events, and the sibling runs
 * on).  A task without it is unknown:
 * its records say so, and its counters charge the wait on the queue that
 * dispatched it only.  The probe's accessors are in dtl_task.h.
 */
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "dtl_task.h"

static struct kmem_cache *dtl_task_cache;

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
