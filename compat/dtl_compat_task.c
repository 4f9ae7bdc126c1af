// SPDX-License-Identifier: GPL-2.0-only
/*
 * The compatibility layer's per-task table (compat/dtl_compat_task.h, which
 * the out-of-tree build puts in place of drivers/perf/dtl/dtl_task.h):
 * built in place of drivers/perf/dtl/dtl_task.c (testbed/module.Kbuild),
 * with the same interface (dtl.h and dtl_task.h).
 */
#include <linux/perf_event.h>
#include <linux/slab.h>

#include "../drivers/perf/dtl/dtl_task.h"

struct dtl_task_slot *dtl_task_table __read_mostly;

void dtl_task_event_init(struct perf_event *event)
{
}

int dtl_task_init(struct pmu *pmu)
{
	dtl_task_table = kvcalloc(1 << DTL_TASK_BITS, sizeof(*dtl_task_table),
				  GFP_KERNEL);
	return dtl_task_table ? 0 : -ENOMEM;
}

void dtl_task_exit(void)
{
	kvfree(dtl_task_table);
}
