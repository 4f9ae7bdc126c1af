// SPDX-License-Identifier: GPL-2.0-only
/*
 * The compatibility layer's per-task table (compat/dtl_compat_task.h, which
 * the out-of-tree build puts in place of drivers/perf/dtl/dtl_task.h):
 * built in place of drivers/perf/dtl/dtl_task.c (testbed/module.Kbuild),
 * with the same interface (dtl.h and dtl_task.h).
 */
#include <linux/perf_event.h>

#include "../drivers/perf/dtl/dtl_task.h"

/*
 * Static, 512 KiB of the module's bss: the probe finds a slot without
 * loading the table's address first.
 */
struct dtl_task_slot dtl_task_table[1 << DTL_TASK_BITS];

void dtl_task_event_init(struct perf_event *event)
{
}

int dtl_task_init(struct pmu *pmu)
{
	return 0;
}

void dtl_task_exit(void)
{
}
