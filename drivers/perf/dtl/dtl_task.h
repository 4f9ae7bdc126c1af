/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dtl's per-task state: how each task last left a CPU (struct
 * dtl_block_info), kept in the task's PMU specific data, dtl's own slot of
 * task_struct::perf_ctx_data (dtl_task.c sets it up).  The sched_switch
 * probe writes and reads it at every context switch, so its two
 * accessors are inline.
 *
 * Written by the sched_switch probe on the CPU that @p leaves, and read by
 * the probe on the CPU that next dispatches @p: the scheduler orders the
 * two, as it dispatches a task only after the switch that took it off a
 * CPU is done.  Both run with interrupts disabled, which holds off the
 * grace period that perf core waits for before it frees the data.  A task
 * without it, or whose state was written while an earlier registration of
 * the probe was in place (@gen), is unknown.
 */
#ifndef __DRIVERS_PERF_DTL_TASK_H
#define __DRIVERS_PERF_DTL_TASK_H

#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>

#include "dtl.h"

struct dtl_task {
	unsigned long		gen;	/* dtl_hook_gen when @last was written */
	struct dtl_block_info	last;
};

static inline struct dtl_task *dtl_task_of(struct task_struct *p)
{
	struct perf_ctx_data *cd;

	cd = rcu_dereference_sched(p->perf_ctx_data[perf_ctx_data_dtl]);
	return cd ? cd->data : NULL;
}

/* @p leaves the CPU while dtl_hook_gen is @gen. */
static inline void dtl_task_left(struct task_struct *p, unsigned long gen,
				 const struct dtl_block_info *info)
{
	struct dtl_task *t = dtl_task_of(p);

	/* Field by field: a struct copy goes through the stack, padding too. */
	if (t) {
		t->last.time = info->time;
		t->last.run_delay = info->run_delay;
		t->last.blocked = info->blocked;
		t->gen = gen;
	}
}

/* How @p last left a CPU, if it did while dtl_hook_gen was @gen. */
static inline bool dtl_task_last(struct task_struct *p, unsigned long gen,
				 struct dtl_block_info *info)
{
	struct dtl_task *t = dtl_task_of(p);

	if (!t || t->gen != gen)
		return false;
	info->time = t->last.time;
	info->run_delay = t->last.run_delay;
	info->blocked = t->last.blocked;
	return true;
}

#endif /* __DRIVERS_PERF_DTL_TASK_H */
