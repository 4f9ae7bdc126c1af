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
 * and steal time) that only the sched_switch probe of that CPU writes,
 * while a counting event is added there (dtl_cpu::count_events, which
 * add() and del() keep on that CPU).  An event counts the difference of
 * its CPU's totals between add() and del().
 *
 * A task's run is charged when it ends: the probe for a prev -> next switch
 * first commits prev's run (one dispatch, the wait that preceded it, the
 * steal that accrued during it, and a preemption if prev is still runnable)
 * into the totals and then starts next's run.  perf schedules a task's
 * events out after the probe and in after it, so the run that a task event
 * sees end is exactly the run it was active for.  The same holds for a
 * cgroup event, which perf switches in and out after the probe as the
 * CPU's task enters or leaves the cgroup: it is charged the runs of the
 * cgroup's tasks.  Other CPU-wide events also see the run in progress, so
 * for them a dispatch is charged when it happens.
 *
 * dtl's events are in perf_sw_context, as those of other PMUs that count
 * or trace beside the CPU's own (intel_pt, intel_bts, msr, powerpc's
 * vpa_pmu): perf lets them join a group led by a hardware event, and then
 * puts them in that PMU's context, as it does with software events.
 * Nothing in the counting depends on the context.
 *
 * Equivalent contexts: when perf finds the task contexts of the two sides
 * of a switch equivalent (clones of one parent, same generation), it swaps
 * them between the tasks instead of switching their events out and in.
 * The events keep counting, which is right for an inherited family, whose
 * counts are summed anyway: dtl does nothing at a swap.  It only counts
 * swaps and full switches per CPU for debugfs (dtl_ctx_switch_seen()).
 *
 * Context: the probe runs with the runqueue lock held and interrupts
 * disabled; the pmu callbacks run on the event's CPU with interrupts
 * disabled.  Both only touch the local CPU's state, so no locking is needed
 * beyond that.
 */

#define pr_fmt(fmt) "dtl: " fmt

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/kernel_stat.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/pid_namespace.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/cputime.h>
#include <linux/capability.h>
#include <linux/sysfs.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include <trace/events/sched.h>

#include "dtl.h"
#include "dtl_task.h"

#define DTL_PMU_NAME		"dtl"

DEFINE_PER_CPU(struct dtl_cpu, dtl_pmu_cpus);

/*
 * The sched_switch probe is registered while at least one dtl event exists,
 * and for DTL_HOOK_LINGER after the last one goes: registering it patches
 * the tracepoint's static key (IPIs to every CPU) and starts a run on each
 * CPU (another IPI each), so without the delay any user's loop of opening
 * and closing one event would disturb every CPU at each turn.  While it
 * lingers the probe keeps the runs, which the next event starts from.
 *
 * dtl_hook_users counts events; its 0 <-> 1 transitions, and so the probe
 * registration (dtl_hook_armed), are serialised by dtl_hook_lock.
 * dtl_hook_gen changes on every registration so that each CPU can tell
 * that the run it has on record predates the probe and must not be
 * charged.
 */
#define DTL_HOOK_LINGER		HZ

static DEFINE_MUTEX(dtl_hook_lock);
static atomic_t dtl_hook_users = ATOMIC_INIT(0);
static bool dtl_hook_armed;
static unsigned long dtl_hook_arms;	/* registrations, for debugfs */
static unsigned long dtl_hook_gen;
static void dtl_hook_release(struct work_struct *work);
static DECLARE_DELAYED_WORK(dtl_hook_work, dtl_hook_release);
static struct dentry *dtl_debugfs;

/*
 * This CPU's steal clock, in ns: the kernel's paravirt steal clock (KVM,
 * Xen, VMware, arm64 PV time, ...), read to the ns at every switch, with
 * @ns for the reader to write; else the kernel's steal accounting, which
 * stays 0 on bare metal.  Interrupts are off.
 */
static inline u64 dtl_steal_now(u64 *ns)
{
	if (paravirt_steal_clock_read(smp_processor_id(), ns))
		return *ns;
	return kcpustat_this_cpu->cpustat[CPUTIME_STEAL];
}

/*
 * The run-queue wait of the run in progress on this CPU, without a clock
 * read, its task's sched_info.run_delay being @run_delay: what the
 * scheduler added to it since
 * @dc->run_delay_start (see dtl_sched_switch()): when it dispatched it,
 * rq_clock() at dispatch minus at enqueue, right after the sched_switch
 * probe (sched_info_switch() in prepare_task_switch()), so known from
 * before perf schedules the task's events in; and, when it moved the task
 * while queued, the wait on the queue it left.  The same numbers as
 * schedstat's.  The idle task has none.  On this CPU, with interrupts off
 * or from its events' callbacks.
 */
static inline u64 dtl_run_wait(const struct dtl_cpu *dc, u64 run_delay)
{
	return run_delay > dc->run_delay_start ? run_delay - dc->run_delay_start : 0;
}

/*
 * Is the run that @dc describes @p's, @p being a live task on this CPU
 * (prev in the probe, or current)?  The run's task is only compared,
 * never dereferenced: a run started when the probe was registered may be
 * that of a task that left the CPU before the probe could see it, and
 * may be gone since.  Its start time tells a new task from an old one
 * whose task_struct it reuses.
 */
static inline bool dtl_run_is_gen(const struct dtl_cpu *dc,
				  const struct task_struct *p,
				  unsigned long gen)
{
	return dc->gen == gen && dc->run_task == p &&
	       dc->run_task_start == p->start_time;
}

static inline bool dtl_run_is(const struct dtl_cpu *dc,
			      const struct task_struct *p)
{
	return dtl_run_is_gen(dc, p, READ_ONCE(dtl_hook_gen));
}

/*
 * How perf switched dtl's task events at the switch before this one, for
 * debugfs "switches": a task event is added when its context is switched
 * in the full way (or enabled), and removed when it is switched out so;
 * when perf swaps equivalent contexts, the events stay.  So if the task
 * that left at the last switch had dtl events on this CPU and none was
 * removed since, perf swapped its context with the next task's.  Called
 * by the probe, before perf's own work for this switch.
 */
static void dtl_ctx_switch_seen(struct dtl_cpu *dc)
{
	dc->ctx_fast += dc->swap_pending;
	dc->swap_pending = dc->task_events > 0;
}

/* How @prev leaves the CPU: PERF_DTL_KIND_*. */
static u8 dtl_switch_kind(bool preempt, struct task_struct *prev,
			  unsigned int prev_state)
{
	if (is_idle_task(prev))
		return PERF_DTL_KIND_DISPATCH;
	if (preempt || prev_state == TASK_RUNNING)
		return PERF_DTL_KIND_PREEMPT;
	if (prev_state == TASK_DEAD)
		return PERF_DTL_KIND_EXIT;
	return PERF_DTL_KIND_BLOCK;
}

/*
 * Called from __schedule() with the runqueue lock held and interrupts
 * disabled, before perf schedules out @prev's events and schedules in
 * @next's.  One function, on the path of every context switch: each value
 * is read or worked out once, and the record is written in place.  Both
 * tasks' sched_info stay still meanwhile: the scheduler updates them
 * after this probe (sched_info_switch()), and @next is on this runqueue,
 * whose lock is held.
 */
static void dtl_sched_switch(void *data, bool preempt,
			     struct task_struct *prev,
			     struct task_struct *next,
			     unsigned int prev_state)
{
	struct dtl_cpu *dc = this_cpu_ptr(&dtl_pmu_cpus);
	u8 *log = READ_ONCE(dc->log.buf);
	unsigned long gen = READ_ONCE(dtl_hook_gen);
	u8 kind = dtl_switch_kind(preempt, prev, prev_state);
	u64 prev_delay = READ_ONCE(prev->sched_info.run_delay);
	u64 next_delay = READ_ONCE(next->sched_info.run_delay);
	u64 steal = dtl_steal_now(&dc->steal_read), now = 0, wait = 0, queued = 0;
	u64 run_steal = 0;
	/* Written by dtl_task_last(), read only where it said so. */
	struct dtl_block_info last __uninitialized;
	bool known = false;

	/*
	 * The counters need no clock (dtl_run_wait()); the records do, and
	 * the wait they carry is until now, as the scheduler's is about to
	 * be.
	 */
	if (log) {
		now = local_clock();
		queued = READ_ONCE(next->sched_info.last_queued);
		wait = dtl_wait_ns(queued, now);
	}

	dtl_ctx_switch_seen(dc);
	dc->switches++;
	/* The generation as read above, the same for the per-task state. */
	if (likely(dtl_run_is_gen(dc, prev, gen))) {
		run_steal = dtl_steal_delta(dc->run_steal_start, steal);
		/*
		 * The totals, only while a counting event is added here: an
		 * event reads them from its start to its stop, both on this
		 * CPU (dtl_event_total()), and the run in progress is kept
		 * whatever the count.
		 */
		if (dc->count_events) {
			dc->total[DTL_CNT_DISPATCHES]++;
			dc->total[DTL_CNT_WAIT_NS] += dtl_run_wait(dc, prev_delay);
			dc->total[DTL_CNT_STEAL_NS] += run_steal;
			/*
			 * Still runnable: preempted, or it yielded.  This is
			 * what the scheduler counts in nivcsw, except for a
			 * block aborted by a pending signal, which it counts
			 * as voluntary.  The idle task is always runnable:
			 * leaving it is no preemption.
			 */
			if (kind == PERF_DTL_KIND_PREEMPT)
				dc->total[DTL_CNT_PREEMPTIONS]++;
		}
	} else {
		/*
		 * A CPU that was offline when the probe was registered, or
		 * whose task left it before the probe was in place: no event
		 * had started yet, the run is nobody's.
		 */
		dc->gen = gen;
		dc->run_start = now;
		dc->run_steal_start = steal;
	}

	/*
	 * Keep how @prev leaves, for its next dispatch, which may be on
	 * another CPU: the scheduler dispatches a task only after this
	 * switch is done (finish_task() releases its on_cpu), so that
	 * dispatch reads what is written here.
	 */
	if (kind == PERF_DTL_KIND_PREEMPT || kind == PERF_DTL_KIND_BLOCK) {
		struct dtl_block_info left = {
			.time		= now,
			.run_delay	= prev_delay,
			.blocked	= kind == PERF_DTL_KIND_BLOCK,
		};

		dtl_task_left(prev, gen, &left);
	}
	if (!is_idle_task(next))
		known = dtl_task_last(next, gen, &last);

	if (log) {
		struct dtl_compact *s = &dc->log.last;
		u32 prev_pid = task_tgid_nr(prev), prev_tid = task_pid_nr(prev);
		u32 next_pid = task_tgid_nr(next), next_tid = task_pid_nr(next);
		u64 blocked = 0, ran;
		unsigned int len;
		u32 steal_ns;
		u8 flags = 0;

		smp_rmb();	/* log_since was published before the log */
		ran = dtl_ran_ns(now, dc->run_start, dc->log_since);
		steal_ns = dtl_steal_field(run_steal, &flags);
		if (prev->flags & PF_KTHREAD)
			flags |= PERF_DTL_F_PREV_KTHREAD;
		if (next->flags & PF_KTHREAD)
			flags |= PERF_DTL_F_NEXT_KTHREAD;
		/*
		 * Where dtl saw @next leave a CPU with a log to stamp it, its
		 * wait is the whole time it was runnable since, on any run
		 * queue (dtl_waited_ns()); else (flagged blocked unknown) only
		 * the wait on this CPU's queue is known.
		 */
		if (!is_idle_task(next)) {
			if (known && last.time &&
			    dtl_blocked_ns(&last, next_delay, queued, now,
					   &blocked))
				wait = dtl_waited_ns(&last, next_delay, wait, now);
			else
				flags |= PERF_DTL_F_BLOCKED_UNKNOWN;
		}

		/* The record, in the form a reader delivers it (dtl.h). */
		if (dtl_log_follows(s, now, prev_pid, prev_tid, wait, blocked,
				    ran)) {
			struct perf_dtl_short *r = dtl_log_slot(&dc->log, log,
							       PERF_DTL_SLOT_SIZE);

			r->rec = PERF_DTL_REC_SHORT | kind;
			r->flags = flags;
			r->reserved = 0;
			r->time_delta = now - s->time;
			r->next_pid = next_pid;
			r->next_tid = next_tid;
			r->wait_ns = wait;
			r->blocked_ns = blocked;
			r->ran_ns = ran;
			r->steal_ns = steal_ns;
			len = PERF_DTL_SLOT_SIZE;
		} else {
			struct perf_dtl_long *r = dtl_log_slot(&dc->log, log,
							      PERF_DTL_ENTRY_SIZE);

			r->rec = PERF_DTL_REC_LONG | kind;
			r->flags = flags;
			r->cpu = smp_processor_id();
			r->steal_ns = steal_ns;
			r->time = now;
			r->seq = dc->log.head;
			r->prev_pid = prev_pid;
			r->prev_tid = prev_tid;
			r->next_pid = next_pid;
			r->next_tid = next_tid;
			r->wait_ns = wait;
			r->blocked_ns = blocked;
			r->ran_ns = ran;
			len = PERF_DTL_ENTRY_SIZE;
		}
		dc->last_switch = dc->log.head;
		dc->last_switch_pos = dc->log.pos;
		dc->last_switch_prev_pid = prev_pid;
		dc->last_switch_prev_tid = prev_tid;
		s->have_next = true;
		s->next_pid = next_pid;
		s->next_tid = next_tid;
		dtl_log_commit(&dc->log, len, now);
	}

	/*
	 * The wait @next's run will charge: what run_delay grows by from
	 * when @next last left a CPU, if dtl saw it, to the end of the run.
	 * That is the wait before this dispatch, which the scheduler adds to
	 * run_delay right after this probe (sched_info_switch()), and the
	 * waits on run queues @next was moved away from while queued, which
	 * it added when it moved it (sched_info_dequeue()).  At @next's first
	 * dispatch (the scheduler has counted none: pcount), from 0: all its
	 * run_delay is wait before this dispatch.  Else from now: this
	 * dispatch's wait only.
	 */
	if (known && last.run_delay <= next_delay)
		next_delay = last.run_delay;
	else if (!is_idle_task(next) && !READ_ONCE(next->sched_info.pcount))
		next_delay = 0;

	dc->run_task = next;
	dc->run_task_start = next->start_time;
	dc->run_delay_start = next_delay;
	dc->run_start = now;
	dc->run_steal_start = steal;
}

/* The part of the run in progress on this CPU that counter @idx will charge. */
static u64 dtl_run_pending(struct dtl_cpu *dc, int idx)
{
	u64 steal;

	if (!dtl_run_is(dc, current))
		return 0;

	switch (idx) {
	case DTL_CNT_DISPATCHES:
		return 1;
	case DTL_CNT_WAIT_NS:
		return dtl_run_wait(dc, READ_ONCE(current->sched_info.run_delay));
	case DTL_CNT_STEAL_NS:
		return dtl_steal_delta(dc->run_steal_start, dtl_steal_now(&steal));
	default:
		return 0;
	}
}

static inline bool dtl_is_task_event(struct perf_event *event)
{
	return event->attach_state & PERF_ATTACH_TASK;
}

static inline bool dtl_is_cgroup_event(struct perf_event *event)
{
#ifdef CONFIG_CGROUP_PERF
	return event->cgrp;
#else
	return false;
#endif
}

/*
 * This CPU's total for @event.  Task and cgroup events see completed runs
 * only, except when the task is exiting: perf removes its events before
 * its last switch-out, so that last run is charged here.
 * dtl_run_pending() charges a run only if it is current's: a switch-out
 * of an exiting task, when the probe has already started the next run,
 * does not charge the next task's run.
 */
static u64 dtl_event_total(struct perf_event *event, bool removing)
{
	struct dtl_cpu *dc = this_cpu_ptr(&dtl_pmu_cpus);
	int idx = event->hw.idx;
	u64 total = dc->total[idx];

	if (!dtl_is_task_event(event) && !dtl_is_cgroup_event(event))
		total += dtl_run_pending(dc, idx);
	else if (dtl_is_task_event(event) && removing &&
		 (current->flags & PF_EXITING))
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

	hwc->state = 0;
	if (dtl_is_trace_event(event)) {
		dtl_pmu_trace_start(event);
		return;
	}
	local64_set(&hwc->prev_count, dtl_event_total(event, false));
}

static void __dtl_event_stop(struct perf_event *event, bool removing)
{
	struct hw_perf_event *hwc = &event->hw;

	if (hwc->state & PERF_HES_STOPPED)
		return;

	if (dtl_is_trace_event(event)) {
		dtl_pmu_trace_stop(event);
	} else {
		dtl_event_update(event, removing);
		/*
		 * A task event's count changes only here, as its task leaves
		 * the CPU: publish it in the mmap page for self-reads.
		 */
		if (dtl_is_task_event(event))
			perf_event_update_userpage(event);
	}
	hwc->state |= PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static void dtl_event_stop(struct perf_event *event, int flags)
{
	__dtl_event_stop(event, false);
}

/* Called on the event's CPU with its context locked, interrupts off. */
static int dtl_event_add(struct perf_event *event, int flags)
{
	struct dtl_cpu *dc = this_cpu_ptr(&dtl_pmu_cpus);
	int ret;

	if (dtl_is_trace_event(event)) {
		ret = dtl_pmu_trace_add(event);
		if (ret)
			return ret;
	}
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (!dtl_is_trace_event(event))
		dc->count_events++;
	if (dtl_is_task_event(event)) {
		dc->task_events++;
		/* One full switch-in per context switch, however many events. */
		if (dc->last_full != dc->switches) {
			dc->last_full = dc->switches;
			dc->ctx_full++;
		}
	}
	if (flags & PERF_EF_START)
		dtl_event_start(event, flags);
	return 0;
}

static void dtl_event_del(struct perf_event *event, int flags)
{
	struct dtl_cpu *dc = this_cpu_ptr(&dtl_pmu_cpus);

	__dtl_event_stop(event, true);
	if (!dtl_is_trace_event(event))
		dc->count_events--;
	if (dtl_is_task_event(event)) {
		dc->task_events--;
		dc->swap_pending = false;
	}
}

static void dtl_event_read(struct perf_event *event)
{
	/* A trace event's count stays 0: its data is in the AUX buffer. */
	if (!(event->hw.state & PERF_HES_STOPPED) && !dtl_is_trace_event(event))
		dtl_event_update(event, false);
}

/* Start accounting the run in progress on this CPU; an IPI callback. */
static void dtl_cpu_start_run(void *info)
{
	struct dtl_cpu *dc = this_cpu_ptr(&dtl_pmu_cpus);
	u64 steal;

	dc->gen = READ_ONCE(dtl_hook_gen);
	dc->run_task = current;
	dc->run_task_start = current->start_time;
	/* It began before dtl looked: no wait. */
	dc->run_delay_start = READ_ONCE(current->sched_info.run_delay);
	dc->run_start = local_clock();
	dc->run_steal_start = dtl_steal_now(&steal);
}

static int dtl_hook_get(void)
{
	int ret = 0;

	if (atomic_inc_not_zero(&dtl_hook_users))
		return 0;

	mutex_lock(&dtl_hook_lock);
	if (atomic_read(&dtl_hook_users) == 0 && !dtl_hook_armed) {
		/*
		 * Each online CPU starts the run in progress with the new
		 * generation, so that its end counts; no event has started
		 * yet, so switches before the probe is in place count for
		 * nobody.  A CPU that comes online later starts at its first
		 * switch.
		 */
		WRITE_ONCE(dtl_hook_gen, dtl_hook_gen + 1);
		on_each_cpu(dtl_cpu_start_run, NULL, 1);
		ret = register_trace_sched_switch(dtl_sched_switch, NULL);
		dtl_hook_armed = !ret;
		dtl_hook_arms += dtl_hook_armed;
	}
	if (!ret)
		atomic_inc(&dtl_hook_users);
	mutex_unlock(&dtl_hook_lock);

	return ret;
}

/* The last event is gone: disarm the probe later, if none comes by then. */
static void dtl_hook_put(void)
{
	if (!atomic_dec_and_mutex_lock(&dtl_hook_users, &dtl_hook_lock))
		return;
	mod_delayed_work(system_wq, &dtl_hook_work, DTL_HOOK_LINGER);
	mutex_unlock(&dtl_hook_lock);
}

static void dtl_hook_disarm(void)
{
	lockdep_assert_held(&dtl_hook_lock);
	if (dtl_hook_armed && !atomic_read(&dtl_hook_users)) {
		WARN_ON_ONCE(unregister_trace_sched_switch(dtl_sched_switch,
							   NULL));
		dtl_hook_armed = false;
	}
}

static void dtl_hook_release(struct work_struct *work)
{
	mutex_lock(&dtl_hook_lock);
	dtl_hook_disarm();
	mutex_unlock(&dtl_hook_lock);
}

/* The users of the PMU, for the "busy" file; see struct dtl_user. */
static LIST_HEAD(dtl_users);
static DEFINE_SPINLOCK(dtl_users_lock);

static struct dtl_user *dtl_user_add(struct perf_event *event, bool trace)
{
	struct dtl_user *u = kzalloc_obj(*u, GFP_KERNEL);

	if (!u)
		return NULL;
	u->cpu = event->cpu;
	u->trace = trace;
	/*
	 * An inherited event is created in the parent of a new task, before
	 * the task has a pid: the event it was inherited from is listed.
	 */
	u->listed = !event->parent;
	u->owner = get_pid(task_tgid(current));
	if (u->listed && event->hw.target)
		u->target = get_pid(task_pid(event->hw.target));
	get_task_comm(u->comm, current);
	u->since = local_clock();

	/* Inherited events stay off the list, which busy_show() walks. */
	INIT_LIST_HEAD(&u->node);
	if (u->listed) {
		spin_lock(&dtl_users_lock);
		list_add_tail(&u->node, &dtl_users);
		spin_unlock(&dtl_users_lock);
	}
	return u;
}

static void dtl_user_del(struct dtl_user *u)
{
	if (u->listed) {
		spin_lock(&dtl_users_lock);
		list_del(&u->node);
		spin_unlock(&dtl_users_lock);
	}
	put_pid(u->owner);
	put_pid(u->target);
	kfree(u);
}

/* Mark a transient state of an event's use (NULL: none), for "busy". */
void dtl_pmu_user_transient(struct perf_event *event, const char *what)
{
	struct dtl_user *u = event->pmu_private;

	spin_lock(&dtl_users_lock);
	u->transient = what;
	spin_unlock(&dtl_users_lock);
}

static void dtl_event_destroy(struct perf_event *event)
{
	if (dtl_is_trace_event(event)) {
		dtl_pmu_trace_fini(event);
		dtl_pmu_trace_put();
	}
	dtl_user_del(event->pmu_private);
	dtl_hook_put();
}

/*
 * May the caller open a trace event?  Its records name the tasks on both
 * sides of every switch on the CPU and how they ran, as the raw data of
 * sched:sched_switch do: CAP_PERFMON, as vpa-dtl asks, built in or as a
 * module (which could not read perf_event_paranoid for perf's tracepoint
 * rule anyway).
 *
 * May the caller open a CPU-wide event that excludes the kernel?  perf
 * core decides who may open a CPU-wide event, but only after event_init
 * (in find_get_context()), and dtl refuses such an event (see
 * dtl_event_init()): a user without the right to it must hear EACCES, as
 * perf core would answer, not EOPNOTSUPP.  dtl cannot read
 * perf_event_paranoid either, so it asks for CAP_PERFMON, which gives
 * that right at every level.
 */
static int dtl_allow_privileged(void)
{
	return perfmon_capable() ? 0 : -EACCES;
}

static int dtl_event_init(struct perf_event *event)
{
	struct dtl_filter filter;
	u64 period_ns = 0;
	int idx, ret;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;

	idx = dtl_parse_attr(&event->attr, &filter, &period_ns);
	if (idx < 0)
		return idx;

	/*
	 * How often and how long a task waited is no secret from its owner,
	 * who can read /proc/<pid>/schedstat: a counting event of a user task
	 * may exclude the kernel (as perf does for users at
	 * perf_event_paranoid 2); it changes nothing in what is counted.
	 * A counter with no task (CPU-wide or cgroup) counts kernel threads
	 * too, and one of a kernel thread counts nothing else: neither can
	 * exclude the kernel.  But perf asks for that (":u") when the kernel
	 * refused a user the event that did not exclude it, and perf core
	 * checks the right to a CPU or to another's task only after
	 * event_init: a user who lacks it must hear EACCES, as perf core
	 * would answer, not EOPNOTSUPP.  (Only CAP_PERFMON gives the right to
	 * count a kernel thread here: ptrace_may_access() is not exported.)
	 */
	if (idx < DTL_NR_COUNTERS && event->attr.exclude_kernel) {
		if (!event->hw.target) {
			ret = dtl_allow_privileged();
			return ret ? : -EOPNOTSUPP;
		}
		if (event->hw.target->flags & PF_KTHREAD)
			return perfmon_capable() ? -EOPNOTSUPP : -EACCES;
	}

	if (event->cpu >= 0 && !cpu_online(event->cpu))
		return -ENODEV;

	/* An inherited event was allowed with its parent. */
	if (idx == DTL_IDX_TRACE && !event->parent) {
		ret = dtl_allow_privileged();
		if (ret)
			return ret;
	}

	event->hw.idx = idx;
	event->pmu_private = dtl_user_add(event, idx == DTL_IDX_TRACE);
	if (!event->pmu_private)
		return -ENOMEM;

	ret = dtl_hook_get();
	if (ret)
		goto err_user;

	if (idx == DTL_IDX_TRACE) {
		ret = dtl_pmu_trace_get();
		if (ret)
			goto err_hook;
		ret = dtl_pmu_trace_init(event, &filter, period_ns);
		if (ret)
			goto err_trace;
	}

	event->destroy = dtl_event_destroy;
	dtl_task_event_init(event);
	return 0;

err_trace:
	dtl_pmu_trace_put();
err_hook:
	dtl_hook_put();
err_user:
	dtl_user_del(event->pmu_private);
	event->pmu_private = NULL;
	return ret;
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

#define DTL_TRACE_ATTR(_name, _kinds)					\
	PMU_EVENT_ATTR_STRING(_name, dtl_attr_##_name,			\
			      "event=0x00,kinds=" __stringify(_kinds))

/*
 * The trace events that log one kind of record are "trace_<kind>": no
 * name is a counter's name with a letter missing ("dispatch" was a trace
 * event beside the counter "dispatches"), and none begins another event's
 * name, which Performance Co-Pilot's perfevent PMDA would open with it.
 */
DTL_TRACE_ATTR(all, 0x00);
DTL_TRACE_ATTR(trace_dispatch, 0x01);
DTL_TRACE_ATTR(trace_preempt, 0x02);
DTL_TRACE_ATTR(trace_block, 0x04);
DTL_TRACE_ATTR(trace_exit, 0x08);
DTL_TRACE_ATTR(trace_migrate, 0x10);

static struct attribute *dtl_events_attrs[] = {
	DTL_EVENT_ATTR(dispatches, PERF_DTL_EVENT_DISPATCHES),
	DTL_EVENT_ATTR(preemptions, PERF_DTL_EVENT_PREEMPTIONS),
	DTL_EVENT_ATTR(wait_ns, PERF_DTL_EVENT_WAIT_NS),
	DTL_EVENT_ATTR(steal_ns, PERF_DTL_EVENT_STEAL_NS),
	&dtl_attr_all.attr.attr,
	&dtl_attr_trace_dispatch.attr.attr,
	&dtl_attr_trace_preempt.attr.attr,
	&dtl_attr_trace_block.attr.attr,
	&dtl_attr_trace_exit.attr.attr,
	&dtl_attr_trace_migrate.attr.attr,
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
PMU_FORMAT_ATTR(kinds, "config:8-15");
PMU_FORMAT_ATTR(full, "config:16");
PMU_FORMAT_ATTR(min_wait_us, "config1:0-31");

static struct attribute *dtl_format_attrs[] = {
	&format_attr_event.attr,
	&format_attr_kinds.attr,
	&format_attr_full.attr,
	&format_attr_min_wait_us.attr,
	NULL
};

static const struct attribute_group dtl_format_group = {
	.name = "format",
	.attrs = dtl_format_attrs,
};

/*
 * No "cpumask" attribute: perf treats a PMU that has one as an uncore PMU
 * and opens CPU-wide events even for "perf stat -- cmd", which would turn
 * every per-task count into a system-wide one.  dtl works on every CPU.
 */
/*
 * The "busy" file's reader: root only (the file is 0400), but maybe in
 * a pid namespace, which sees only its own tasks.
 */
struct dtl_busy_reader {
	struct pid_namespace	*ns;
};

/* Do two events belong on one line: the same session, use and target? */
static bool dtl_same_session(const struct dtl_user *a, const struct dtl_user *b)
{
	return a->owner == b->owner && a->trace == b->trace &&
	       a->target == b->target && a->cpu == b->cpu;
}

/*
 * One session's line: who, since when, and for a per-task session the
 * task.  Pids are the reader's view (none if it cannot see the task, nor
 * its comm), and the comm, which any task can set, comes last and escaped.
 */
static void dtl_busy_line(struct seq_buf *s, const struct dtl_user *u,
			  unsigned int events, u64 now,
			  const struct dtl_busy_reader *r)
{
	pid_t owner = pid_nr_ns(u->owner, r->ns);
	bool show = owner;
	u32 rem;
	u64 secs = div_u64_rem(now - u->since, NSEC_PER_SEC, &rem);

	seq_buf_printf(s, " %s", u->trace ? "tracing" : "counting");
	if (show)
		seq_buf_printf(s, " pid=%d", owner);
	else
		seq_buf_puts(s, " pid=-");
	seq_buf_printf(s, " since=%llu.%06us", secs, rem / (u32)NSEC_PER_USEC);
	if (u->target) {
		pid_t target = show ? pid_nr_ns(u->target, r->ns) : 0;

		if (target)
			seq_buf_printf(s, " task=%d", target);
		else
			seq_buf_puts(s, " task=-");
	}
	if (events > 1)
		seq_buf_printf(s, " events=%u", events);
	if (u->transient)
		seq_buf_printf(s, " state=%s", u->transient);
	if (show)
		seq_buf_printf(s, " comm=%*pE", (int)strnlen(u->comm, sizeof(u->comm)),
			       u->comm);
	else
		seq_buf_puts(s, " comm=-");
	seq_buf_putc(s, '\n');
}

/* Room kept at the end of the page to say how many lines were left out. */
#define DTL_BUSY_TAIL	48

/*
 * Print the sessions of one CPU (@cpu) or the per-task ones (-1) after
 * @header, or "<header> idle".  Lines that do not fit are counted in
 * *@omitted.
 */
static void dtl_busy_section(struct seq_buf *s, const char *header, int cpu,
			     u64 now, const struct dtl_busy_reader *r,
			     unsigned int *omitted)
{
	struct dtl_user *u, *first = NULL;
	unsigned int events = 0;
	bool any = false;
	size_t len;

	list_for_each_entry(u, &dtl_users, node) {
		if (!u->listed || u->cpu != cpu)
			continue;
		if (first && dtl_same_session(first, u)) {
			events++;
			continue;
		}
		if (first) {
			len = s->len;
			dtl_busy_line(s, first, events, now, r);
			if (seq_buf_has_overflowed(s)) {
				s->len = len;
				(*omitted)++;
			}
		} else if (!any) {
			len = s->len;
			seq_buf_printf(s, "%s\n", header);
			if (seq_buf_has_overflowed(s)) {
				s->len = len;
				(*omitted)++;
			}
		}
		any = true;
		first = u;
		events = 1;
	}
	len = s->len;
	if (first)
		dtl_busy_line(s, first, events, now, r);
	else
		seq_buf_printf(s, "%s idle\n", header);
	if (seq_buf_has_overflowed(s)) {
		s->len = len;
		(*omitted)++;
	}
}

/*
 * One line per online CPU: "cpuN: idle", or "cpuN:" and one indented line
 * per session on it; then "task:" and the per-task sessions.  At most a
 * page: what does not fit is counted in a last line.
 */
static ssize_t busy_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct dtl_busy_reader r = {
		.ns = task_active_pid_ns(current),
	};
	unsigned int omitted = 0;
	char header[16];
	struct seq_buf s;
	u64 now = local_clock();
	int cpu;

	seq_buf_init(&s, buf, PAGE_SIZE - DTL_BUSY_TAIL);
	spin_lock(&dtl_users_lock);
	for_each_online_cpu(cpu) {
		snprintf(header, sizeof(header), "cpu%d:", cpu);
		dtl_busy_section(&s, header, cpu, now, &r, &omitted);
	}
	dtl_busy_section(&s, "task:", -1, now, &r, &omitted);
	spin_unlock(&dtl_users_lock);

	if (omitted) {
		s.size = PAGE_SIZE;
		seq_buf_printf(&s, "(%u more lines not shown)\n", omitted);
	}
	return seq_buf_used(&s);
}

/* Root only: it names other users' processes. */
static DEVICE_ATTR_ADMIN_RO(busy);

/* Per online CPU, where steal_ns comes from. */
static ssize_t steal_source_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	int cpu, len = 0;
	u64 ns;

	cpus_read_lock();
	for_each_online_cpu(cpu)
		len += sysfs_emit_at(buf, len, "cpu%d: %s\n", cpu,
				     paravirt_steal_clock_read(cpu, &ns) ?
				     "paravirt" :
				     "kernel (no paravirt steal clock)");
	cpus_read_unlock();
	return len;
}
static DEVICE_ATTR_RO(steal_source);

static struct attribute *dtl_pmu_attrs[] = {
	&dev_attr_busy.attr,
	&dev_attr_steal_source.attr,
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
	.setup_aux	= dtl_pmu_setup_aux,
	.free_aux	= dtl_pmu_free_aux,
	.event_init	= dtl_event_init,
	.add		= dtl_event_add,
	.del		= dtl_event_del,
	.start		= dtl_event_start,
	.stop		= dtl_event_stop,
	.read		= dtl_event_read,
	.check_period	= dtl_pmu_trace_check_period,
};

static int dtl_switches_show(struct seq_file *m, void *v)
{
	int cpu;

	seq_puts(m, "cpu switches ctx_fast ctx_full\n");
	for_each_possible_cpu(cpu) {
		struct dtl_cpu *dc = per_cpu_ptr(&dtl_pmu_cpus, cpu);

		/* Racy snapshots of monotonic counters: good enough here. */
		seq_printf(m, "%d %llu %llu %llu\n", cpu,
			   READ_ONCE(dc->switches), READ_ONCE(dc->ctx_fast),
			   READ_ONCE(dc->ctx_full));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dtl_switches);

static int __init dtl_init(void)
{
	int ret;

	ret = dtl_pmu_trace_module_init();
	if (ret)
		return ret;

	ret = dtl_task_init(&dtl_pmu);
	if (ret)
		goto err_trace;

	ret = perf_pmu_register(&dtl_pmu, DTL_PMU_NAME, -1);
	if (ret) {
		pr_err("failed to register the %s PMU: %d\n", DTL_PMU_NAME, ret);
		goto err_task;
	}

	/* Diagnostics for tests and developers; failure is not fatal. */
	dtl_debugfs = debugfs_create_dir("dtl", NULL);
	debugfs_create_atomic_t("hook_users", 0444, dtl_debugfs,
				&dtl_hook_users);
	debugfs_create_bool("hook_armed", 0444, dtl_debugfs, &dtl_hook_armed);
	debugfs_create_ulong("hook_arms", 0444, dtl_debugfs, &dtl_hook_arms);
	debugfs_create_file("switches", 0444, dtl_debugfs, NULL,
			    &dtl_switches_fops);
	dtl_pmu_trace_debugfs(dtl_debugfs);
	return 0;

err_task:
	dtl_task_exit();
err_trace:
	dtl_pmu_trace_module_exit();
	return ret;
}

static void __exit dtl_exit(void)
{
	debugfs_remove_recursive(dtl_debugfs);
	perf_pmu_unregister(&dtl_pmu);
	/* No event is left: disarm the probe now, and wait for its callers. */
	cancel_delayed_work_sync(&dtl_hook_work);
	mutex_lock(&dtl_hook_lock);
	dtl_hook_disarm();
	mutex_unlock(&dtl_hook_lock);
	tracepoint_synchronize_unregister();
	dtl_task_exit();
	dtl_pmu_trace_module_exit();
}

module_init(dtl_init);
module_exit(dtl_exit);

MODULE_DESCRIPTION("Dispatch Trace Log PMU");
MODULE_LICENSE("GPL");
