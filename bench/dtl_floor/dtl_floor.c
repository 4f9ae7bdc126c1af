// SPDX-License-Identifier: GPL-2.0-only
/*
 * The floor of make bench: a probe on sched_switch that does nothing
 * (clock=0) or only reads the clock into a per-CPU word (clock=1).  What it
 * costs per context switch is the least any tracepoint-based design can
 * cost, against which dtl's overhead is reported.  Not upstream material.
 */
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

static bool clock;
module_param(clock, bool, 0444);
MODULE_PARM_DESC(clock, "read local_clock() in the probe");

static struct tracepoint *floor_tp;
static DEFINE_PER_CPU(u64, floor_stamp);

static void floor_empty(void *data, bool preempt, struct task_struct *prev,
			struct task_struct *next, unsigned int prev_state)
{
}

static void floor_clock(void *data, bool preempt, struct task_struct *prev,
			struct task_struct *next, unsigned int prev_state)
{
	this_cpu_write(floor_stamp, local_clock());
}

static void floor_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		floor_tp = tp;
}

static void *floor_probe(void)
{
	return clock ? (void *)floor_clock : (void *)floor_empty;
}

static int __init floor_init(void)
{
	for_each_kernel_tracepoint(floor_find, NULL);
	if (!floor_tp)
		return -ENODEV;
	return tracepoint_probe_register(floor_tp, floor_probe(), NULL);
}

static void __exit floor_exit(void)
{
	tracepoint_probe_unregister(floor_tp, floor_probe(), NULL);
	tracepoint_synchronize_unregister();
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_DESCRIPTION("An empty sched_switch probe, for dtl's benchmarks");
MODULE_LICENSE("GPL");
