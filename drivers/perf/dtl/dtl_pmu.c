// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dispatch Trace Log PMU: scheduler dispatch accounting for perf.
 *
 * The idea comes from the powerpc vpa-dtl PMU, which exposes the
 * hypervisor's log of virtual processor dispatches through perf. dtl does
 * the same for the Linux scheduler's own dispatches, on any architecture.
 *
 * Counting events
 * ---------------
 * Every CPU keeps monotonic totals (dispatches, preemptions, run-queue wait
 * and steal time) that only the sched_switch probe of that CPU writes.  An
 * event counts the difference of its CPU's totals between add() and del().
 *
 * A task's run is charged when it ends: the probe for a prev -> next switch
 * first commits prev's run (one dispatch, the wait that preceded it, the
 * steal that accrued during it, and a preemption if prev is still runnable)
 * into the totals and then starts next's run.  perf schedules a task's
 * events out after the probe and in after it, so the run that a task event
 * sees end is exactly the run it was active for.  CPU-wide events also see
 * the run in progress, so for them a dispatch is charged when it happens.
 *
 * Context: the probe runs with the runqueue lock held and interrupts
 * disabled; the pmu callbacks run on the event's CPU with interrupts
 * disabled.  Both only touch the local CPU's state, so no locking is needed
 * beyond that.
 */

#define pr_fmt(fmt) "dtl: " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/kernel_stat.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sysfs.h>
#include <linux/tracepoint.h>

#define DTL_PMU_NAME		"dtl"
#define DTL_IDENTIFIER		"dtl-1"

/* attr.config layout, see the format group below. */
#define DTL_CFG_EVENT		GENMASK_ULL(7, 0)

enum dtl_counter {
	DTL_CNT_DISPATCHES,
	DTL_CNT_PREEMPTIONS,
	DTL_CNT_WAIT_NS,
	DTL_CNT_STEAL_NS,
	DTL_NR_COUNTERS
};

/* Event numbers as user space writes them: counter index + 1. */
#define DTL_EV_DISPATCHES	0x01
#define DTL_EV_PREEMPTIONS	0x02
#define DTL_EV_WAIT_NS		0x03
#define DTL_EV_STEAL_NS		0x04

/*
 * Per-CPU dispatch state.  Written only by the sched_switch probe on the
 * owning CPU and read only on that CPU, both with interrupts disabled.
 */
struct dtl_cpu {
	u64			total[DTL_NR_COUNTERS];
	/* The run in progress, valid when @gen equals dtl_hook_gen. */
	unsigned long		gen;
	struct task_struct	*run_task;	/* compared, never dereferenced */
	u64			run_wait;
	u64			run_steal_start;
};

static DEFINE_PER_CPU(struct dtl_cpu, dtl_cpus);

/*
 * The sched_switch probe is registered while at least one dtl event exists.
 * dtl_hook_users counts events; its 0 <-> 1 transitions, and so the probe
 * registration, are serialised by dtl_hook_lock.  dtl_hook_gen changes on
 * every registration so that each CPU can tell that the run it has on
 * record predates the probe and must not be charged.
 */
static DEFINE_MUTEX(dtl_hook_lock);
static atomic_t dtl_hook_users = ATOMIC_INIT(0);
static unsigned long dtl_hook_gen;
static struct tracepoint *dtl_tp_sched_switch;
static struct dentry *dtl_debugfs;

static inline u64 dtl_steal_now(void)
{
	return kcpustat_this_cpu->cpustat[CPUTIME_STEAL];
}

/* Time @p spent runnable before being dispatched now, from its enqueue stamp. */
static inline u64 dtl_wait_before_dispatch(struct task_struct *p, u64 now)
{
	u64 queued = READ_ONCE(p->sched_info.last_queued);

	if (!queued || now < queued)
		return 0;
	return now - queued;
}

/*
 * Called from __schedule() with the runqueue lock held and interrupts
 * disabled, before perf schedules out @prev's events and schedules in
 * @next's.
 */
static void dtl_sched_switch(void *data, bool preempt,
			     struct task_struct *prev,
			     struct task_struct *next,
			     unsigned int prev_state)
{
	struct dtl_cpu *dc = this_cpu_ptr(&dtl_cpus);
	unsigned long gen = READ_ONCE(dtl_hook_gen);
	u64 steal = dtl_steal_now();

	if (likely(dc->gen == gen)) {
		dc->total[DTL_CNT_DISPATCHES]++;
		dc->total[DTL_CNT_WAIT_NS] += dc->run_wait;
		dc->total[DTL_CNT_STEAL_NS] += steal - dc->run_steal_start;
		/*
		 * Still runnable: preempted, or it yielded.  This is what the
		 * scheduler counts in nivcsw, except for a block aborted by a
		 * pending signal, which it counts as voluntary.
		 */
		if (preempt || prev_state == TASK_RUNNING)
			dc->total[DTL_CNT_PREEMPTIONS]++;
	} else {
		/* First switch since the probe was registered. */
		dc->gen = gen;
	}

	dc->run_task = next;
	dc->run_wait = dtl_wait_before_dispatch(next, local_clock());
	dc->run_steal_start = steal;
}

/* The part of the run in progress on this CPU that counter @idx will charge. */
static u64 dtl_run_pending(struct dtl_cpu *dc, int idx)
{
	if (dc->gen != READ_ONCE(dtl_hook_gen))
		return 0;

	switch (idx) {
	case DTL_CNT_DISPATCHES:
		return 1;
	case DTL_CNT_WAIT_NS:
		return dc->run_wait;
	case DTL_CNT_STEAL_NS:
		return dtl_steal_now() - dc->run_steal_start;
	default:
		return 0;
	}
}

static inline bool dtl_is_task_event(struct perf_event *event)
{
	return event->attach_state & PERF_ATTACH_TASK;
}

/*
 * This CPU's total for @event.  Task events see completed runs only, except
 * when the task is exiting: perf removes its events before its last
 * switch-out, so that last run is charged here.  The check on run_task
 * keeps a switch-out of an exiting task (when the probe has already
 * started the next run) from charging the next task's run.
 */
static u64 dtl_event_total(struct perf_event *event, bool removing)
{
	struct dtl_cpu *dc = this_cpu_ptr(&dtl_cpus);
	int idx = event->hw.idx;
	u64 total = dc->total[idx];

	if (!dtl_is_task_event(event) ||
	    (removing && (current->flags & PF_EXITING) &&
	     dc->run_task == current))
		total += dtl_run_pending(dc, idx);

	return total;
}

static void dtl_event_update(struct perf_event *event, bool removing)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 now = dtl_event_total(event, removing);
	u64 prev = local64_xchg(&hwc->prev_count, now);

	local64_add(now - prev, &event->count);
}

static void dtl_event_start(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	local64_set(&hwc->prev_count, dtl_event_total(event, false));
	hwc->state = 0;
}

static void __dtl_event_stop(struct perf_event *event, bool removing)
{
	struct hw_perf_event *hwc = &event->hw;

	if (hwc->state & PERF_HES_STOPPED)
		return;

	dtl_event_update(event, removing);
	hwc->state |= PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static void dtl_event_stop(struct perf_event *event, int flags)
{
	__dtl_event_stop(event, false);
}

static int dtl_event_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		dtl_event_start(event, flags);
	return 0;
}

static void dtl_event_del(struct perf_event *event, int flags)
{
	__dtl_event_stop(event, true);
}

static void dtl_event_read(struct perf_event *event)
{
	if (!(event->hw.state & PERF_HES_STOPPED))
		dtl_event_update(event, false);
}

static int dtl_hook_get(void)
{
	int ret = 0;

	if (atomic_inc_not_zero(&dtl_hook_users))
		return 0;

	mutex_lock(&dtl_hook_lock);
	if (atomic_read(&dtl_hook_users) == 0) {
		WRITE_ONCE(dtl_hook_gen, dtl_hook_gen + 1);
		ret = tracepoint_probe_register(dtl_tp_sched_switch,
						dtl_sched_switch, NULL);
	}
	if (!ret)
		atomic_inc(&dtl_hook_users);
	mutex_unlock(&dtl_hook_lock);

	return ret;
}

static void dtl_hook_put(void)
{
	if (!atomic_dec_and_mutex_lock(&dtl_hook_users, &dtl_hook_lock))
		return;

	WARN_ON_ONCE(tracepoint_probe_unregister(dtl_tp_sched_switch,
						 dtl_sched_switch, NULL));
	mutex_unlock(&dtl_hook_lock);
}

static void dtl_event_destroy(struct perf_event *event)
{
	dtl_hook_put();
}

static bool dtl_has_exclude(struct perf_event_attr *attr)
{
	/* exclude_guest is accepted: dtl counts nothing in guest mode. */
	return attr->exclude_user || attr->exclude_kernel || attr->exclude_hv ||
	       attr->exclude_idle || attr->exclude_host;
}

static int dtl_event_init(struct perf_event *event)
{
	struct perf_event_attr *attr = &event->attr;
	u64 id = attr->config & DTL_CFG_EVENT;
	int ret;

	if (attr->type != event->pmu->type)
		return -ENOENT;

	if ((attr->config & ~DTL_CFG_EVENT) || attr->config1 || attr->config2)
		return -EINVAL;
	if (id < DTL_EV_DISPATCHES || id > DTL_EV_STEAL_NS)
		return -EINVAL;

	/* Counters have no overflow interrupt and no privilege-level filter. */
	if (is_sampling_event(event) || attr->precise_ip ||
	    has_branch_stack(event) || dtl_has_exclude(attr))
		return -EOPNOTSUPP;

	if (event->cpu >= 0 && !cpu_online(event->cpu))
		return -ENODEV;

	ret = dtl_hook_get();
	if (ret)
		return ret;

	event->hw.idx = id - 1;
	event->destroy = dtl_event_destroy;
	return 0;
}

/* sysfs */

static ssize_t dtl_event_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct perf_pmu_events_attr *pmu_attr =
		container_of(attr, struct perf_pmu_events_attr, attr);

	return sysfs_emit(buf, "event=0x%02llx\n", pmu_attr->id);
}

#define DTL_EVENT_ATTR(_name, _id)					\
	PMU_EVENT_ATTR_ID(_name, dtl_event_show, _id)

/* perf reads "<event>.unit" and "<event>.scale" next to each event. */
PMU_EVENT_ATTR_STRING(wait_ns.unit, dtl_attr_wait_ns_unit, "ns");
PMU_EVENT_ATTR_STRING(wait_ns.scale, dtl_attr_wait_ns_scale, "1");
PMU_EVENT_ATTR_STRING(steal_ns.unit, dtl_attr_steal_ns_unit, "ns");
PMU_EVENT_ATTR_STRING(steal_ns.scale, dtl_attr_steal_ns_scale, "1");

static struct attribute *dtl_events_attrs[] = {
	DTL_EVENT_ATTR(dispatches, DTL_EV_DISPATCHES),
	DTL_EVENT_ATTR(preemptions, DTL_EV_PREEMPTIONS),
	DTL_EVENT_ATTR(wait_ns, DTL_EV_WAIT_NS),
	DTL_EVENT_ATTR(steal_ns, DTL_EV_STEAL_NS),
	&dtl_attr_wait_ns_unit.attr.attr,
	&dtl_attr_wait_ns_scale.attr.attr,
	&dtl_attr_steal_ns_unit.attr.attr,
	&dtl_attr_steal_ns_scale.attr.attr,
	NULL
};

static const struct attribute_group dtl_events_group = {
	.name = "events",
	.attrs = dtl_events_attrs,
};

PMU_FORMAT_ATTR(event, "config:0-7");

static struct attribute *dtl_format_attrs[] = {
	&format_attr_event.attr,
	NULL
};

static const struct attribute_group dtl_format_group = {
	.name = "format",
	.attrs = dtl_format_attrs,
};

static ssize_t identifier_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", DTL_IDENTIFIER);
}
static DEVICE_ATTR_RO(identifier);

/*
 * No "cpumask" attribute: perf treats a PMU that has one as an uncore PMU
 * and opens CPU-wide events even for "perf stat -- cmd", which would turn
 * every per-task count into a system-wide one.  dtl works on every CPU.
 */
static struct attribute *dtl_pmu_attrs[] = {
	&dev_attr_identifier.attr,
	NULL
};

static const struct attribute_group dtl_pmu_group = {
	.attrs = dtl_pmu_attrs,
};

static const struct attribute_group *dtl_attr_groups[] = {
	&dtl_events_group,
	&dtl_format_group,
	&dtl_pmu_group,
	NULL
};

static struct pmu dtl_pmu = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_sw_context,
	.attr_groups	= dtl_attr_groups,
	.capabilities	= PERF_PMU_CAP_NO_INTERRUPT,
	.event_init	= dtl_event_init,
	.add		= dtl_event_add,
	.del		= dtl_event_del,
	.start		= dtl_event_start,
	.stop		= dtl_event_stop,
	.read		= dtl_event_read,
};

static void dtl_find_tracepoint(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		dtl_tp_sched_switch = tp;
}

static int __init dtl_init(void)
{
	int ret;

	for_each_kernel_tracepoint(dtl_find_tracepoint, NULL);
	if (!dtl_tp_sched_switch) {
		pr_err("sched_switch tracepoint not found\n");
		return -ENODEV;
	}

	ret = perf_pmu_register(&dtl_pmu, DTL_PMU_NAME, -1);
	if (ret) {
		pr_err("failed to register the %s PMU: %d\n", DTL_PMU_NAME, ret);
		return ret;
	}

	/* Diagnostics for tests and developers; failure is not fatal. */
	dtl_debugfs = debugfs_create_dir("dtl", NULL);
	debugfs_create_atomic_t("hook_users", 0444, dtl_debugfs,
				&dtl_hook_users);
	return 0;
}

static void __exit dtl_exit(void)
{
	debugfs_remove_recursive(dtl_debugfs);
	perf_pmu_unregister(&dtl_pmu);
	/* No event is left, so the probe is gone: wait for its last callers. */
	tracepoint_synchronize_unregister();
}

module_init(dtl_init);
module_exit(dtl_exit);

MODULE_DESCRIPTION("Dispatch Trace Log PMU");
MODULE_LICENSE("GPL");
