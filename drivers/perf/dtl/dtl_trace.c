// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dispatch Trace Log PMU: the per-CPU dispatch log and the trace events
 * that drain it into perf AUX buffers.
 *
 * While a trace event exists every CPU has a log, a ring of
 * dtl_pmu_log_entries * 64 bytes of records in the compact AUX format
 * (include/uapi/linux/perf_dtl.h; how the log is written and read:
 * dtl.h).  Only the CPU itself writes its log, from the sched_switch and
 * sched_migrate_task probes, with interrupts disabled; it never waits for
 * a reader, and the records have consecutive sequence numbers.
 *
 * Each trace event is a reader with its own cursor, so any number of
 * sessions get the same records.  The events started on a CPU are
 * drained by one pinned hrtimer of that CPU, at least every poll period
 * (the event's sample period; sooner when the log fills fast), and each
 * when it stops.  A timer pass is bounded in time for all the events
 * together (see DTL_DRAIN_BUDGET_NS).  A per-task event -- whether perf
 * opened it for one CPU or for any, as "perf record -- cmd" and "perf
 * record --per-thread" do -- reads a window of the log: from the dispatch
 * of its task (the last switch record when perf schedules it in) to the
 * switch-out that schedules it out.  While perf swaps the contexts of an
 * inherited family (equivalent contexts) the window stays open, however
 * many switches between its tasks; the timer drains it as it does a
 * CPU-wide event's, so that the stop, under the runqueue lock, finds what
 * a pass would.  All of it runs on the log's CPU with interrupts disabled,
 * so the log needs no lock.  Records a reader cannot keep -- its AUX buffer is full or gone --
 * are counted and reported in a LOST record as soon as there is room
 * again, with the records the producer overwrote before the reader came
 * (which the filter never saw), and the AUX record that has the gap is
 * flagged PERF_AUX_FLAG_PARTIAL.
 *
 * A timer pass may find only a few records, so a CPU-wide event keeps its
 * AUX transaction open across passes (as the PMUs that trace in hardware
 * keep theirs from pmu::add to pmu::del) and ends it -- one PERF_RECORD_AUX
 * for perf to read -- DTL_HOLD_PERIODS poll periods after it began, when
 * half the buffer is written, at a gap, and when the event stops.  perf allows one open
 * transaction per ring buffer, and events on one CPU may share one
 * (PERF_EVENT_IOC_SET_OUTPUT): a drain first ends the transaction another
 * event holds on its buffer.
 *
 * The hrtimer-to-AUX design follows the powerpc vpa-dtl PMU; the AUX
 * bookkeeping follows drivers/perf/arm_spe_pmu.c.
 */

#define pr_fmt(fmt) "dtl: " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include <trace/events/sched.h>

#include "dtl.h"

unsigned int dtl_pmu_log_entries = 4096;
module_param_named(log_entries, dtl_pmu_log_entries, uint, 0444);
MODULE_PARM_DESC(log_entries,
		 "size of each CPU's dispatch log in long (64-byte) records, a power of 2 in [64, 1048576] (default 4096); it holds up to twice as many short ones");

/* The bytes of a CPU's log. */
static size_t dtl_pmu_log_bytes(void)
{
	return (size_t)dtl_pmu_log_entries * PERF_DTL_ENTRY_SIZE;
}

static_assert(sizeof(struct perf_dtl_entry) == PERF_DTL_ENTRY_SIZE);
static_assert(sizeof(struct perf_dtl_long) == PERF_DTL_ENTRY_SIZE);
static_assert(sizeof(struct perf_dtl_short) == PERF_DTL_SLOT_SIZE);
static_assert(sizeof(struct perf_dtl_header) == PERF_DTL_HEADER_SIZE);
static_assert(offsetof(struct perf_dtl_header, kind) ==
	      offsetof(struct perf_dtl_entry, kind));

#define DTL_LOG_MIN		64
#define DTL_LOG_MAX		BIT(20)
/* A reader that the log lapped resumes at a whole block: two at least. */
static_assert(DTL_LOG_MIN * PERF_DTL_ENTRY_SIZE >= 2 * DTL_LOG_BLOCK);

/*
 * A trace event's AUX buffer, mapped contiguously.  One event at a time
 * writes to it: its events are of one CPU, or one task.
 */
struct dtl_aux {
	void		*base;
	unsigned long	size;		/* bytes, a power of 2 */
	bool		overwrite;	/* snapshot mode */
	/* Written since the last header (ULONG_MAX: none yet), in what format */
	unsigned long	since_header;
	u8		format;
};

/* A trace event's reader state; used only on the event's CPU. */
struct dtl_trace {
	struct perf_event	*event;
	struct dtl_filter	filter;
	u64			period_ns;
	struct dtl_log_cursor	cur;		/* next record to read */
	u64			lost;		/* kept, not delivered: unreported */
	u64			lapped;		/* overwritten unread: unreported */
	u64			last_time;	/* of the last record delivered */
	u64			read_at;	/* local_clock(): last caught up */
	/* Per-task events: the task on the CPU in the window being read. */
	u32			running;
	/*
	 * Of an event that is not inherited, for itself and its inherited
	 * copies: it was started, it got an AUX buffer (perf maps one for
	 * the event it opened, never for a copy), and pmu::add refused it
	 * for having no ring buffer at all.
	 */
	bool			started;
	bool			had_aux;
	bool			unmapped;
	/*
	 * The reader's pid namespace: records name tasks as it sees them.
	 * Outside the initial one, the drain sets @ns_now (local_clock())
	 * and @ns_mono_off (ktime_get_ns() minus it) for dtl_task_in_ns().
	 */
	struct pid_namespace	*ns;
	u64			ns_now;
	u64			ns_mono_off;
	/* Per-task events: do not deliver a record twice on @last_cpu. */
	int			last_cpu;
	struct dtl_log_cursor	last_cur;
	/*
	 * It keeps every record, as the initial pid namespace sees it, in
	 * the compact format: it may copy the log (dtl_trace_copy()).
	 */
	bool			copy;
	/* On dtl_cpu::readers while started. */
	struct list_head	node;
	struct perf_output_handle handle;
	/*
	 * The AUX transaction that @handle holds open across timer passes
	 * (@held_aux, NULL for none), the bytes written in it and when it
	 * is to end (local_clock(): dtl_hold_ns() after it began).
	 */
	struct dtl_aux		*held_aux;
	unsigned long		held_used;
	u64			held_until;
	/*
	 * The open transaction has its header (nothing written before it),
	 * or needs none; the bytes of it before its last header (ULONG_MAX:
	 * it has none).
	 */
	bool			has_header;
	unsigned long		hdr_mark;
	/* The compact format: the open transaction's state. */
	struct dtl_compact	enc;
};

/* A record as it goes into a reader's AUX buffer. */
struct dtl_out {
	const struct perf_dtl_entry *view;	/* as the reader sees it */
	unsigned int		len;		/* in the reader's format */
	bool			pad;		/* after a PAD slot */
	struct perf_dtl_entry	ns_e;
};

/*
 * The logs, the block-time table and the sched_migrate_task probe exist
 * while dtl_trace_users is not 0; its 0 <-> 1 transitions are serialised
 * by dtl_trace_lock.  The logs themselves are allocated and freed under
 * dtl_logs_lock, which the CPU hotplug callback takes with the hotplug
 * lock held: the order is dtl_trace_lock, then cpu_hotplug_lock (also
 * taken by tracepoint registration), then dtl_logs_lock.
 */
static DEFINE_MUTEX(dtl_trace_lock);
static DEFINE_MUTEX(dtl_logs_lock);
static bool dtl_logs_wanted;		/* under dtl_logs_lock */
static atomic_t dtl_trace_users = ATOMIC_INIT(0);
/* Bumped whenever an AUX buffer is freed: its address may come back. */
static atomic_long_t dtl_aux_gen = ATOMIC_LONG_INIT(0);
static enum cpuhp_state dtl_cpuhp_state;
/*
 * The owner of the last trace event that the kernel log said did not run:
 * compared with an event's dtl_user::owner, never dereferenced.
 */
static struct pid *dtl_unmapped_told;

static inline struct dtl_trace *dtl_trace_of(struct perf_event *event)
{
	return ((struct dtl_user *)event->pmu_private)->trace_state;
}

/*
 * sched_migrate_task: @p moves to @dest_cpu.  Called with the runqueue
 * lock or @p's pi_lock held, so with interrupts disabled; logged on the
 * CPU that moves it.
 */
static void dtl_sched_migrate(void *data, struct task_struct *p, int dest_cpu)
{
	struct dtl_cpu *dc = this_cpu_ptr(&dtl_pmu_cpus);
	struct dtl_log *l = &dc->log;
	u8 *log = READ_ONCE(l->buf);
	u8 flags = (p->flags & PF_KTHREAD) ? PERF_DTL_F_PREV_KTHREAD : 0;
	u64 now;

	if (!log)
		return;
	smp_rmb();	/* the log's state was published before the log */

	now = local_clock();
	if (dtl_log_follows_migrate(&l->last, now)) {
		struct perf_dtl_short *r = dtl_log_slot(l, log,
							 PERF_DTL_SLOT_SIZE);

		r->rec = PERF_DTL_REC_SHORT | PERF_DTL_KIND_MIGRATE;
		r->flags = flags;
		r->reserved = 0;
		r->time_delta = now - l->last.time;
		r->prev_pid = task_tgid_nr(p);
		r->prev_tid = task_pid_nr(p);
		r->from_cpu = task_cpu(p);
		r->to_cpu = dest_cpu;
		r->zero[0] = 0;
		r->zero[1] = 0;
		dtl_log_commit(l, PERF_DTL_SLOT_SIZE, now);
	} else {
		struct perf_dtl_long *r = dtl_log_slot(l, log,
							PERF_DTL_ENTRY_SIZE);

		r->rec = PERF_DTL_REC_LONG | PERF_DTL_KIND_MIGRATE;
		r->flags = flags;
		r->cpu = smp_processor_id();
		r->steal_ns = 0;
		r->time = now;
		r->seq = l->head;
		r->prev_pid = task_tgid_nr(p);
		r->prev_tid = task_pid_nr(p);
		r->from_cpu = task_cpu(p);
		r->to_cpu = dest_cpu;
		r->wait_ns = 0;
		r->blocked_ns = 0;
		r->ran_ns = 0;
		dtl_log_commit(l, PERF_DTL_ENTRY_SIZE, now);
	}
}

static void dtl_logs_free(void)
{
	int cpu;

	mutex_lock(&dtl_logs_lock);
	dtl_logs_wanted = false;
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu(dtl_pmu_cpus, cpu).log.buf, NULL);
	/*
	 * The probes run with preemption disabled, and one that read a log
	 * before it was cleared writes to it till it returns (it reads
	 * log.buf once: dtl_log_slot()).
	 */
	synchronize_rcu();
	for_each_possible_cpu(cpu) {
		kvfree(per_cpu(dtl_pmu_cpus, cpu).log_mem);
		per_cpu(dtl_pmu_cpus, cpu).log_mem = NULL;
	}
	mutex_unlock(&dtl_logs_lock);
}

/*
 * Give @cpu its log, if it has none.  Called with dtl_logs_lock and the
 * CPU hotplug lock held.  Charged to the
 * memory cgroup of the caller: the first tracer, or (for a CPU that comes
 * online later) the task that brings it online.
 */
static int dtl_log_alloc(unsigned int cpu)
{
	size_t bytes = dtl_pmu_log_bytes();
	struct dtl_cpu *dc = per_cpu_ptr(&dtl_pmu_cpus, cpu);
	struct dtl_log *l = &dc->log;
	u8 *log;

	if (dc->log_mem)
		return 0;
	log = kvzalloc_node(bytes + bytes / DTL_LOG_BLOCK * sizeof(*l->keys),
			    GFP_KERNEL_ACCOUNT, cpu_to_node(cpu));
	if (!log)
		return -ENOMEM;
	dc->log_mem = log;
	/* Runs that began before are timed from here (dtl_ran_ns()). */
	dc->log_since = cpu_clock(cpu);
	/*
	 * No record is written while the log is unpublished: its state is
	 * still.  Sequence numbers go on from the last log's.
	 */
	l->keys = (struct dtl_log_cursor *)(log + bytes);
	l->mask = bytes - 1;
	l->pos = 0;
	l->pad = U64_MAX;
	memset(&l->last, 0, sizeof(l->last));
	l->last.cpu = cpu;
	dtl_log_key(l);
	dc->base = l->head;
	dc->last_switch = U64_MAX;	/* none logged yet */
	/* The probe reads them after seeing a log: publish them first. */
	smp_wmb();
	WRITE_ONCE(l->buf, log);
	return 0;
}

/*
 * A log for every online CPU; a CPU that comes online later gets its log
 * from dtl_trace_cpu_prepare().  Called with dtl_trace_lock held.
 */
static int dtl_logs_alloc(void)
{
	int cpu, ret = 0;

	cpus_read_lock();
	mutex_lock(&dtl_logs_lock);
	dtl_logs_wanted = true;
	for_each_online_cpu(cpu) {
		ret = dtl_log_alloc(cpu);
		if (ret)
			break;
	}
	mutex_unlock(&dtl_logs_lock);
	cpus_read_unlock();

	if (ret)
		dtl_logs_free();
	return ret;
}

/*
 * CPU hotplug: a CPU that comes online while dtl traces gets its log
 * before it runs anything, on the CPU that brings it up.  From its first
 * switch a trace event, a per-task one of the kthread that brings it
 * online among them, may start there, and finds the log.
 *
 * Its drain timer may still be armed: a per-task event's stop leaves it
 * so, and when the CPU went offline the timer moved to another CPU.
 * There it finds no reader and ends; but a reader starting here first
 * would find it armed and leave it, and not be drained till it stops.
 * Cancel it, so that the first reader arms it on this CPU.
 */
static int dtl_trace_cpu_prepare(unsigned int cpu)
{
	int ret = 0;

	hrtimer_cancel(&per_cpu(dtl_pmu_cpus, cpu).drain_timer);
	mutex_lock(&dtl_logs_lock);
	if (dtl_logs_wanted)
		ret = dtl_log_alloc(cpu);
	mutex_unlock(&dtl_logs_lock);
	return ret;
}

/*
 * Called in process context, when a trace event is created.  An inherited
 * event never is the first (its parent holds a reference), so it takes no
 * lock here.
 */
int dtl_pmu_trace_get(void)
{
	int ret = 0;

	if (atomic_inc_not_zero(&dtl_trace_users))
		return 0;

	mutex_lock(&dtl_trace_lock);
	if (atomic_read(&dtl_trace_users) == 0) {
		ret = dtl_logs_alloc();
		if (!ret) {
			ret = register_trace_sched_migrate_task(dtl_sched_migrate,
								NULL);
			if (ret)
				dtl_logs_free();
		}
	}
	if (!ret)
		atomic_inc(&dtl_trace_users);
	mutex_unlock(&dtl_trace_lock);

	return ret;
}

/* Called in process context, when a trace event is freed. */
void dtl_pmu_trace_put(void)
{
	if (!atomic_dec_and_mutex_lock(&dtl_trace_users, &dtl_trace_lock))
		return;

	WARN_ON_ONCE(unregister_trace_sched_migrate_task(dtl_sched_migrate,
							 NULL));
	dtl_logs_free();
	mutex_unlock(&dtl_trace_lock);
}

/*
 * How far a record's time, on this CPU's local_clock(), may be off once
 * moved to the monotonic clock by the offset of the two when drained:
 * 10 us, and 1/2048 of the record's age, above the most that NTP slews
 * the monotonic clock (500 ppm).
 */
#define DTL_NS_CLOCK_SLACK_NS	10000ULL

/*
 * The task that tid @nr of the initial namespace named in record @e, as
 * @t's pid namespace sees it: its pid and tid there in *@pid and *@tid,
 * false if it sees no such task (outside it, or gone).
 *
 * Records are translated when they are drained, up to a poll period after
 * they were written: by then the task may be gone and its pid given to
 * another, perhaps one the reader sees where it could not see the first.
 * The task that holds the pid now is the one the record names only if it
 * was forked before the record (its start_time, on the monotonic clock);
 * and the task an EXIT record names as leaving is exiting: a thread's pid
 * is freed before its last switch.  Called with interrupts disabled, which
 * is an RCU read-side critical section; the lock says so.
 */
static bool dtl_task_in_ns(const struct dtl_trace *t,
			   const struct perf_dtl_entry *e, u32 nr, bool leaving,
			   u32 *pid, u32 *tid)
{
	u64 age = t->ns_now > e->time ? t->ns_now - e->time : 0;
	u64 latest = e->time + t->ns_mono_off + DTL_NS_CLOCK_SLACK_NS +
		     (age >> 11);
	struct task_struct *p;
	bool ret = false;

	if (!nr)
		return false;
	rcu_read_lock();
	p = pid_task(find_pid_ns(nr, &init_pid_ns), PIDTYPE_PID);
	if (p && p->start_time <= latest &&
	    (!leaving || (p->flags & PF_EXITING))) {
		*tid = task_pid_nr_ns(p, t->ns);
		*pid = task_tgid_nr_ns(p, t->ns);
		ret = *tid;
	}
	rcu_read_unlock();
	return ret;
}

/*
 * The log names tasks in the initial namespace.  A reader in another gets
 * them as it sees them, and 0 for a task it cannot see, whose identity
 * and times it does not get either: @e as @t sees it, in @ns_e.  Out of
 * line, off the drain's path for readers in the initial namespace.
 */
static noinline void dtl_ns_view(const struct dtl_trace *t,
				 const struct perf_dtl_entry *e,
				 struct perf_dtl_entry *ns_e)
{
	*ns_e = *e;
	if (!dtl_task_in_ns(t, e, e->prev_tid, e->kind == PERF_DTL_KIND_EXIT,
			    &ns_e->prev_pid, &ns_e->prev_tid)) {
		ns_e->prev_pid = 0;
		ns_e->prev_tid = 0;
		if (e->kind != PERF_DTL_KIND_MIGRATE) {
			ns_e->ran_ns = 0;
			ns_e->steal_ns = 0;
		}
	}
	if (e->kind != PERF_DTL_KIND_MIGRATE &&
	    !dtl_task_in_ns(t, e, e->next_tid, false, &ns_e->next_pid,
			    &ns_e->next_tid)) {
		ns_e->next_pid = 0;
		ns_e->next_tid = 0;
		ns_e->wait_ns = 0;
		ns_e->blocked_ns = 0;
	}
}

/*
 * Prepare record @e for @t's AUX buffer at offset @off, into @o.  Returns
 * the bytes it takes there: in the compact format a long record that
 * would straddle the end of the buffer comes after a PAD slot.  Inlined,
 * as dtl_aux_put() is, into the drain's loop, which runs with interrupts
 * off.
 */
static __always_inline unsigned int dtl_aux_prepare(struct dtl_trace *t,
						    const struct dtl_aux *aux,
						    unsigned long off,
						    const struct perf_dtl_entry *e,
						    struct dtl_out *o)
{
	o->view = e;
	if (t->ns != &init_pid_ns && e->kind != PERF_DTL_KIND_LOST) {
		dtl_ns_view(t, e, &o->ns_e);
		o->view = &o->ns_e;
	}
	o->pad = false;
	o->len = PERF_DTL_ENTRY_SIZE;
	if (t->filter.full)
		return o->len;
	/* Snapshots start anywhere in the buffer: all records are long. */
	if (!aux->overwrite && dtl_compact_follows(&t->enc, o->view))
		o->len = PERF_DTL_SLOT_SIZE;
	if (o->len > PERF_DTL_SLOT_SIZE &&
	    !((off + PERF_DTL_SLOT_SIZE) & (aux->size - 1))) {
		o->pad = true;
		return o->len + PERF_DTL_SLOT_SIZE;
	}
	return o->len;
}

/*
 * Write @o, prepared for offset @off, to @t's AUX buffer: a compact
 * record is encoded in place (offsets are multiples of 32 bytes).
 */
static __always_inline void dtl_aux_put(struct dtl_trace *t,
					struct dtl_aux *aux, unsigned long off,
					const struct dtl_out *o)
{
	unsigned long mask = aux->size - 1;

	if (o->pad) {
		u8 *slot = aux->base + (off & mask);

		memset(slot, 0, PERF_DTL_SLOT_SIZE);
		slot[0] = PERF_DTL_REC_PAD;
		off += PERF_DTL_SLOT_SIZE;
	}
	if (t->filter.full) {
		memcpy(aux->base + (off & mask), o->view, PERF_DTL_ENTRY_SIZE);
	} else {
		dtl_compact_write(&t->enc, o->view, o->len == PERF_DTL_SLOT_SIZE,
				  aux->base + (off & mask));
		dtl_compact_next(&t->enc, o->view);
	}
	t->last_time = max(t->last_time, o->view->time);
}

/*
 * The room a LOST record may take in @t's AUX buffer, with a PAD slot
 * before it.  None in snapshot mode, where the buffer is overwritten:
 * always room.
 */
static inline unsigned long dtl_lost_room(const struct dtl_trace *t,
					  const struct dtl_aux *aux)
{
	if (aux->overwrite)
		return 0;
	return PERF_DTL_ENTRY_SIZE + (t->filter.full ? 0 : PERF_DTL_SLOT_SIZE);
}

/*
 * The room a drain keeps free after its records: for a LOST record of its
 * own, so that a loss in it is reported, even by the last drain before a
 * stop; and then for the header and LOST record of the next transaction,
 * so that a loss after this drain, while perf has not read the buffer
 * yet, is reported too.  That may be another event's, of the other
 * format: the most either takes.
 */
static inline unsigned long dtl_reserve(const struct dtl_aux *aux)
{
	if (aux->overwrite)
		return 0;
	return 2 * (PERF_DTL_ENTRY_SIZE + PERF_DTL_SLOT_SIZE) +
	       PERF_DTL_HEADER_SIZE;
}

static inline u8 dtl_trace_format(const struct dtl_trace *t)
{
	return t->filter.full ? PERF_DTL_FORMAT_ENTRY : PERF_DTL_FORMAT_COMPACT;
}

/*
 * Does @t's transaction, beginning now, need a header?  The first in the
 * buffer does, and then one every PERF_DTL_HEADER_INTERVAL bytes at
 * least, so that a reader that starts anywhere finds one soon; and the
 * first of an event of another format (several may write to a buffer).
 */
static inline bool dtl_needs_header(const struct dtl_trace *t,
				    const struct dtl_aux *aux)
{
	return aux->since_header >= PERF_DTL_HEADER_INTERVAL ||
	       aux->format != dtl_trace_format(t);
}

/*
 * Begin @t's open transaction, at offset @off of its AUX buffer, with the
 * header that names its records' format, before the first record written
 * in it: a transaction with nothing in it stays empty.  Returns the bytes
 * it took (after a PAD slot where it would straddle the end of the
 * buffer), 0 if the transaction has its header already or if @room bytes
 * do not hold it and @reserve more.  A transaction with no room for its
 * header gets no record either.
 */
static __always_inline unsigned int dtl_put_header(struct dtl_trace *t,
						   struct dtl_aux *aux,
						   unsigned long off,
						   unsigned long room,
						   unsigned long reserve)
{
	unsigned long mask = aux->size - 1;
	unsigned int len = PERF_DTL_HEADER_SIZE;
	u8 *slot;

	if (t->has_header)
		return 0;
	/*
	 * Only records of format 2 end at an odd slot.  After one, a PAD
	 * slot comes first where the header would straddle the end of the
	 * buffer, and before a header of format 1: its 64-byte records then
	 * never straddle it (events of both formats may share a buffer).
	 */
	if (!((off + PERF_DTL_SLOT_SIZE) & mask) ||
	    (t->filter.full && (off & PERF_DTL_SLOT_SIZE)))
		len += PERF_DTL_SLOT_SIZE;
	if (room < len + reserve)
		return 0;
	if (len > PERF_DTL_HEADER_SIZE) {
		slot = aux->base + (off & mask);
		memset(slot, 0, PERF_DTL_SLOT_SIZE);
		slot[0] = PERF_DTL_REC_PAD;
		off += PERF_DTL_SLOT_SIZE;
	}
	dtl_header_write(aux->base + (off & mask), dtl_trace_format(t));
	t->has_header = true;
	t->hdr_mark = off - t->handle.head;
	aux->format = dtl_trace_format(t);
	return len;
}

/* The bytes of @aux since its last header, @used of them in @t's transaction. */
static inline unsigned long dtl_since_header(const struct dtl_trace *t,
					     const struct dtl_aux *aux,
					     unsigned long used)
{
	if (t->hdr_mark != ULONG_MAX)
		return used - t->hdr_mark;
	if (aux->since_header == ULONG_MAX)
		return ULONG_MAX;
	return aux->since_header + used;
}

/*
 * Report the records @t lost, all with numbers before @seq, in a LOST
 * record at offset @off of its AUX buffer, if it fits in @room bytes:
 * those its filter kept and the AUX buffer had no room for, and those the
 * log overwrote unread.  Returns the bytes it took, 0 if it did not fit.
 *
 * The LOST record has the time of the record just before @seq, the last
 * of the range it reports (the reader's cursor has it, from the log or
 * from the key it resumed at), else the time it is written: a CPU's
 * records then stay in time order, with the LOST record between the
 * records on either side of the gap.  Never before a record
 * the event has delivered: a task event's buffer has records of the CPUs
 * its task ran on before.
 */
static unsigned int dtl_put_lost(struct dtl_trace *t, struct dtl_aux *aux,
				 unsigned long off, u64 seq, unsigned long room)
{
	struct perf_dtl_entry lost = {
		.time	= local_clock(),
		.seq	= seq,
		.lost	= t->lost,
		.lapped	= t->lapped,
		.kind	= PERF_DTL_KIND_LOST,
		.cpu	= smp_processor_id(),
	};
	unsigned int len, hdr;
	struct dtl_out o __uninitialized;

	/* With a header, the LOST record fits after it. */
	hdr = dtl_put_header(t, aux, off, room, dtl_lost_room(t, aux));
	if (!t->has_header)
		return 0;
	off += hdr;
	room -= hdr;
	/* The reader's cursor has the record before, even if overwritten. */
	if (t->cur.st.valid && t->cur.seq == seq)
		lost.time = t->cur.st.time;
	lost.time = max(lost.time, t->last_time);
	len = dtl_aux_prepare(t, aux, off, &lost, &o);
	if (len > room)
		return 0;
	dtl_aux_put(t, aux, off, &o);
	t->lost = 0;
	t->lapped = 0;
	return hdr + len;
}

static inline bool dtl_trace_per_task(const struct dtl_trace *t)
{
	return t->event->attach_state & PERF_ATTACH_TASK;
}

/* What a timer pass may still do with interrupts off. */
struct dtl_budget {
	u64	now;		/* local_clock() when the pass began */
	u64	deadline;	/* local_clock() */
	u32	records;	/* records it may still read */
	bool	spent;
};

/*
 * Take one record from @b, NULL for no bound: false if the budget is
 * spent.  The clock is read every DTL_DRAIN_CHECK records, from the
 * pass's DTL_DRAIN_CHECK-th on: however slow the machine, a pass reads
 * that many, and the drains keep up.
 */
static inline bool dtl_budget_take(struct dtl_budget *b)
{
	if (!b)
		return true;
	if (!b->spent && !b->records)
		b->spent = true;
	else if (!b->spent && b->records != DTL_DRAIN_MAX_RECORDS &&
		 !(b->records & (DTL_DRAIN_CHECK - 1)) &&
		 local_clock() >= b->deadline)
		b->spent = true;
	if (b->spent)
		return false;
	b->records--;
	return true;
}

/* End the AUX transaction that @t holds open, if it holds one. */
static void dtl_trace_end_held(struct dtl_trace *t)
{
	if (!t->held_aux)
		return;
	t->held_aux->since_header = dtl_since_header(t, t->held_aux,
						     t->held_used);
	perf_aux_output_end(&t->handle, t->held_used);
	t->held_aux = NULL;
	t->held_used = 0;
}

/* The ring buffer that @event writes to: its parent's if inherited. */
static struct perf_buffer *dtl_trace_rb(struct perf_event *event)
{
	if (event->parent)
		event = event->parent;
	return READ_ONCE(event->rb);
}

/*
 * Before @t begins an AUX transaction on this CPU: end the one another
 * event of this CPU holds on the same ring buffer, as perf allows only
 * one.  Events that share a buffer are on the same CPU (perf maps no AUX
 * buffer for an inherited event of any CPU), so only this CPU's readers
 * can hold it.  Returns whether it ended one.
 */
static bool dtl_trace_end_shared(struct dtl_cpu *dc, struct dtl_trace *t)
{
	struct perf_buffer *rb = dtl_trace_rb(t->event);
	struct dtl_trace *o;
	bool ended = false;

	list_for_each_entry(o, &dc->readers, node)
		if (o != t && o->held_aux && o->handle.rb == rb) {
			dtl_trace_end_held(o);
			ended = true;
		}
	return ended;
}

/*
 * Move @t's cursor past what the log overwrote, to the key of the oldest
 * block it still has whole, and count what it skipped.
 */
static void dtl_trace_resume(struct dtl_trace *t, const struct dtl_log *l)
{
	u64 block = dtl_log_resume_block(l, l->pos);
	const struct dtl_log_cursor *k = dtl_log_key_of(l, block);

	if (!dtl_log_lapped(l, t->cur.pos, l->pos))
		return;
	/* Every block the log reached has a key, that of this lap. */
	if (WARN_ON_ONCE(k->pos < block || k->pos >= block + DTL_LOG_BLOCK ||
			 k->pos > l->pos)) {
		t->lapped += l->head - t->cur.seq;
		t->cur.pos = l->pos;
		t->cur.seq = l->head;
		t->cur.st = l->last;
		return;
	}
	t->lapped += k->seq - t->cur.seq;
	t->cur = *k;
}

/* Copy the log's bytes [@from, @to) to @dst, across the end of the ring. */
static void dtl_log_copy(const struct dtl_log *l, u64 from, u64 to, u8 *dst)
{
	while (from < to) {
		u64 off = from & l->mask;
		u64 n = min(to - from, l->mask + 1 - off);

		memcpy(dst, l->buf + off, n);
		dst += n;
		from += n;
	}
}

/*
 * The drain's fast path, for a reader that keeps every record as the log
 * has it (dtl_trace::copy) and whose AUX buffer's last record is the
 * log's record before its cursor (dtl_compact_same()): each record after
 * that follows on in the buffer as it does in the log, so the records are
 * copied as they are, leaving out the PAD slot at the end of the ring.
 * Up to @room bytes at offset @off of the buffer, not across its end (a
 * long record that would straddle it is left to the slow path, which
 * pads), within the budget @b.  Returns the bytes copied.
 *
 * The records are copied a block of the log at a time: from the cursor
 * to the next key, whose position, number and record before are known,
 * or to the head, once it is within a block.  So where the records end
 * is never worked out, and the clock is read after each block.
 */
static unsigned long dtl_trace_copy(struct dtl_trace *t,
				    const struct dtl_log *l,
				    struct dtl_aux *aux, unsigned long off,
				    unsigned long room, struct dtl_budget *b)
{
	unsigned long amask = aux->size - 1;
	unsigned long avail = min(room, aux->size - (off & amask));
	u8 *dst = aux->base + (off & amask);
	struct dtl_log_cursor *c = &t->cur;
	struct dtl_log_cursor head;
	unsigned long done = 0;

	while (c->seq < l->head) {
		const struct dtl_log_cursor *to;
		u64 block = ALIGN_DOWN(c->pos, DTL_LOG_BLOCK) + DTL_LOG_BLOCK;
		bool pad;
		u64 n;

		if (l->pos - c->pos <= DTL_LOG_BLOCK) {
			head.pos = l->pos;
			head.seq = l->head;
			head.st = l->last;
			to = &head;
		} else {
			to = dtl_log_key_of(l, block);
			/* Every block the log reached has a key of this lap. */
			if (WARN_ON_ONCE(to->pos < block ||
					 to->pos >= block + DTL_LOG_BLOCK))
				break;
		}
		pad = l->pad >= c->pos && l->pad < to->pos;
		n = to->pos - c->pos - (pad ? PERF_DTL_SLOT_SIZE : 0);
		if (done + n > avail)
			break;
		if (b) {
			if (b->spent || to->seq - c->seq > b->records)
				break;
			b->records -= to->seq - c->seq;
		}
		if (pad) {
			dtl_log_copy(l, c->pos, l->pad, dst + done);
			dtl_log_copy(l, l->pad + PERF_DTL_SLOT_SIZE, to->pos,
				     dst + done + (l->pad - c->pos));
		} else {
			dtl_log_copy(l, c->pos, to->pos, dst + done);
		}
		done += n;
		*c = *to;
		if (b && local_clock() >= b->deadline) {
			b->spent = true;
			break;
		}
	}
	if (done) {
		t->enc = c->st;
		t->last_time = max(t->last_time, c->st.time);
	}
	return done;
}

/*
 * Copy the records of this CPU's log that @t has not read into its AUX
 * buffer, in the transaction that @t holds or a new one: a timer pass
 * (@b, its budget) leaves it open for the next pass (see above), a stop
 * (@b NULL) ends it.  A reader that keeps every record as the log has it
 * copies them (dtl_trace_copy()); the others, and the first record of a
 * transaction, which is long, take the slow path: the records are
 * decoded, filtered, translated to the reader's pid namespace and
 * encoded for its buffer.  Called on the log's CPU with interrupts
 * disabled.  Returns the number of records read.
 */
static u32 dtl_trace_drain(struct dtl_trace *t, struct dtl_budget *b)
{
	struct dtl_cpu *dc = this_cpu_ptr(&dtl_pmu_cpus);
	struct perf_output_handle *h = &t->handle;
	struct dtl_log *l = &dc->log;
	u64 head = l->head, first;
	u32 *running = dtl_trace_per_task(t) ? &t->running : NULL;
	unsigned long room, reserve, used = 0, base = 0, copy_at = 0;
	struct perf_dtl_entry e __uninitialized;
	struct dtl_out o __uninitialized;
	unsigned int len;
	struct dtl_aux *aux;
	bool gap = false, copy, due;

	if (WARN_ON_ONCE(!l->buf))
		return 0;

	dtl_trace_resume(t, l);
	first = t->cur.seq;
	due = b && t->held_aux && b->now >= t->held_until;
	if (first == head && !t->lost && !t->lapped) {
		if (!b || due)
			dtl_trace_end_held(t);
		return 0;
	}
	/*
	 * Ending a transaction is the costliest step of a pass (perf writes
	 * a PERF_RECORD_AUX, and may wake the reader up): a timer pass that
	 * ends one reads nothing more, and the next pass, as for a pass out
	 * of budget, goes on in a new one.
	 */
	if (due) {
		dtl_trace_end_held(t);
		b->spent = true;
		return 0;
	}

	if (t->ns != &init_pid_ns) {
		t->ns_now = local_clock();
		t->ns_mono_off = ktime_get_ns() - t->ns_now;
	}

	aux = t->held_aux;
	if (aux) {
		base = t->held_used;
	} else {
		/* As above: a timer pass that ended one goes on if in budget. */
		if (dtl_trace_end_shared(dc, t) && b &&
		    local_clock() >= b->deadline) {
			b->spent = true;
			return 0;
		}
		aux = perf_aux_output_begin(h, t->event);
		t->held_until = (b ? b->now : local_clock()) +
				dtl_hold_ns(t->period_ns);
		/* A header comes first if due, then a long record. */
		if (aux)
			t->has_header = !dtl_needs_header(t, aux);
		t->hdr_mark = ULONG_MAX;
		memset(&t->enc, 0, sizeof(t->enc));
	}
	if (!aux) {
		/* No buffer, or it is going away: what we have is lost. */
		while (t->cur.seq < head && dtl_budget_take(b)) {
			dtl_log_read(l, &t->cur, &e);
			if (dtl_filter_match(&t->filter, &e, running))
				t->lost++;
		}
		return t->cur.seq - first;
	}

	/*
	 * Per-task events that write a CPU's records to one buffer (an
	 * inherited event writes to its parent's; "perf record -p" shares
	 * one between threads) have windows that meet at a switch from one
	 * of their tasks to another: the record of that switch ends one
	 * window and begins the next.  If it is the last record written to
	 * this buffer, this window begins with it: deliver it once.  Events
	 * active together on the same task, whose windows are the same, are
	 * not affected.
	 */
	if (running && t->cur.seq < head && dc->aux_rb == h->rb &&
	    dc->aux_gen == atomic_long_read(&dtl_aux_gen) &&
	    t->cur.seq == dc->aux_rb_last) {
		dtl_log_read(l, &t->cur, &e);
		dtl_filter_match(&t->filter, &e, running);
	}

	/* In snapshot mode the buffer is overwritten: always room. */
	room = aux->overwrite ? ULONG_MAX : h->size - base;
	reserve = dtl_reserve(aux);
	copy = t->copy && !aux->overwrite && !running;

	if (t->lost || t->lapped) {
		len = dtl_put_lost(t, aux, h->head + base, t->cur.seq, room);
		used += len;
		gap = len;
	}

	while (t->cur.seq < head) {
		if (copy && used >= copy_at && t->has_header &&
		    dtl_compact_same(&t->enc, &t->cur.st)) {
			unsigned long free = room - used, n;

			n = dtl_trace_copy(t, l, aux, h->head + base + used,
					   free > reserve ? free - reserve : 0, b);
			used += n;
			if (t->cur.seq == head || (b && b->spent))
				break;
			/*
			 * The next block does not fit in the room or before
			 * the end of the buffer: the records up to the end
			 * take the slow path, which pads there, without
			 * another try at each of them.
			 */
			if (!n)
				copy_at = used + aux->size -
					  ((h->head + base + used) & (aux->size - 1));
		}
		if (!dtl_budget_take(b))
			break;
		dtl_log_read(l, &t->cur, &e);
		if (!dtl_filter_match(&t->filter, &e, running))
			continue;
		/*
		 * A snapshot may begin anywhere in an overwritten buffer: a
		 * header every PERF_DTL_HEADER_INTERVAL bytes, also within a
		 * transaction.
		 */
		if (unlikely(aux->overwrite) && t->has_header &&
		    dtl_since_header(t, aux, base + used) >=
		    PERF_DTL_HEADER_INTERVAL) {
			t->has_header = false;
			memset(&t->enc, 0, sizeof(t->enc));
		}
		if (unlikely(!t->has_header))
			used += dtl_put_header(t, aux, h->head + base + used,
					       room - used, reserve);
		len = dtl_aux_prepare(t, aux, h->head + base + used, &e, &o);
		if (!t->has_header || room - used < len + reserve) {
			t->lost++;
			gap = true;
			continue;
		}
		dtl_aux_put(t, aux, h->head + base + used, &o);
		used += len;
		if (running) {
			dc->aux_rb = h->rb;
			dc->aux_gen = atomic_long_read(&dtl_aux_gen);
			dc->aux_rb_last = e.seq;
		}
	}

	if (t->lost || t->lapped)
		used += dtl_put_lost(t, aux, h->head + base + used, t->cur.seq,
				     room - used);
	used += base;

	/*
	 * PARTIAL, not TRUNCATED: perf core disables an event whose AUX record
	 * is TRUNCATED, which would end the trace at the first overflow.  And
	 * only on a transaction that wrote something: perf core emits a
	 * PERF_RECORD_AUX for any flag, so a full buffer flagged at every pass
	 * would fill the ring buffer with empty records, and push out the
	 * COMM and MMAP records the decoder needs.  A loss with nothing
	 * written stays counted in @t until a LOST record fits.
	 */
	if (gap && used)
		perf_aux_output_flag(h, PERF_AUX_FLAG_PARTIAL);
	if (b && !gap && !aux->overwrite && used < h->size / 2 &&
	    b->now < t->held_until) {
		t->held_aux = aux;
		t->held_used = used;
		return t->cur.seq - first;
	}
	if (aux->overwrite)
		h->head += used;
	aux->since_header = dtl_since_header(t, aux, used);
	perf_aux_output_end(h, used);
	t->held_aux = NULL;
	t->held_used = 0;
	return t->cur.seq - first;
}

/* Diagnostics: the longest time and most records with interrupts off. */
static void dtl_drain_account(struct dtl_drain_stat *st, u64 ns, u32 records,
			      bool cut)
{
	st->count++;
	st->cut += cut;
	if (ns > st->max_ns)
		WRITE_ONCE(st->max_ns, min_t(u64, ns, U32_MAX));
	if (records > st->max_records)
		WRITE_ONCE(st->max_records, records);
}

/*
 * A CPU's drain timer: one pass over the events started there, all of
 * them within DTL_DRAIN_BUDGET_NS.  Hard interrupt context, also on
 * PREEMPT_RT: what it does is bounded.
 */
static enum hrtimer_restart dtl_drain_timer(struct hrtimer *timer)
{
	struct dtl_cpu *dc = container_of(timer, struct dtl_cpu, drain_timer);
	u64 now = local_clock(), period = PERF_DTL_POLL_MAX_NS, next;
	struct dtl_budget b = {
		.now		= now,
		.deadline	= now + DTL_DRAIN_BUDGET_NS,
		.records	= DTL_DRAIN_MAX_RECORDS,
	};
	struct dtl_trace *t, *tmp;
	struct dtl_trace *resume = NULL, *cut = NULL;
	u64 found = dc->log.head - dc->drain_head, behind = 0;
	unsigned int served = 0;

	/*
	 * Another CPU's timer, which the hotplug code moved here as that
	 * CPU went offline: never drain another CPU's log, nor look at its
	 * readers.  Most are gone by then, but a per-task event of the
	 * dying CPU's stopper thread is still started there when its timers
	 * move; dtl_trace_cpu_prepare() cancels the timer before the CPU
	 * comes back.  No reader: the last one stopped (a per-task event's
	 * stop leaves the timer armed).
	 */
	if (dc != this_cpu_ptr(&dtl_pmu_cpus) || list_empty(&dc->readers))
		return HRTIMER_NORESTART;

	list_for_each_entry_safe(t, tmp, &dc->readers, node) {
		period = min(period, t->period_ns);
		if (b.spent)
			continue;
		/* A reader costs an AUX record too: look at the clock first. */
		if (served++ && local_clock() >= b.deadline) {
			b.spent = true;
			resume = t;
			continue;
		}
		dtl_trace_drain(t, &b);
		if (t->cur.seq == dc->log.head)
			t->read_at = now;
		/* Out of budget, maybe with more to read: its turn comes again. */
		if (b.spent)
			cut = t;
	}
	/*
	 * Round robin: the next pass begins with the first reader this one
	 * did not serve, or after the one it cut, which goes last.
	 */
	if (resume)
		list_rotate_to_front(&resume->node, &dc->readers);
	else if (cut)
		list_move_tail(&cut->node, &dc->readers);

	dtl_drain_account(&dc->pass_stat, local_clock() - now,
			  DTL_DRAIN_MAX_RECORDS - b.records, b.spent);
	/* In bytes: a log holds more short records than long. */
	if (b.spent)
		list_for_each_entry(t, &dc->readers, node)
			behind = max(behind, dc->log.pos - t->cur.pos);
	next = dtl_drain_next(behind, dc->log.mask + 1, now - dc->drain_time,
			      found, period);
	/*
	 * Whatever the pace, a reader with records to read is read within
	 * its period of when it last caught up: a pass cut before it, or
	 * one that only ended its transaction, does not hold its records
	 * back for longer.
	 */
	list_for_each_entry(t, &dc->readers, node)
		if (t->cur.seq != dc->log.head)
			next = min(next, dtl_drain_due(t->read_at + t->period_ns,
						       now));
	dc->drain_head = dc->log.head;
	dc->drain_time = now;
	/* From now, not from the expiry: interrupts get their turn. */
	hrtimer_set_expires(timer, ktime_add_ns(hrtimer_cb_get_time(timer),
						next));
	return HRTIMER_RESTART;
}

/* The poll interval: the event's sample period, which may change. */
static u64 dtl_trace_period(struct perf_event *event)
{
	return event->attr.sample_period ? : PERF_DTL_POLL_DEFAULT_NS;
}

/* pmu::check_period: PERF_EVENT_IOC_PERIOD sets a new poll interval. */
int dtl_pmu_trace_check_period(struct perf_event *event, u64 value)
{
	if (!dtl_is_trace_event(event))
		return -EINVAL;
	if (value < PERF_DTL_POLL_MIN_NS || value > PERF_DTL_POLL_MAX_NS)
		return -EINVAL;
	return 0;
}

/*
 * pmu::add of a trace event: on the event's CPU, interrupts disabled.
 * An event whose reader mapped no ring buffer ("perf stat -e dtl/all/")
 * has nowhere to write its records and counts nothing: it is not
 * scheduled, as Intel PT's add refuses an event it cannot start, so that
 * perf stat shows "<not counted>" rather than 0 and no drain reads for
 * it.  Its close names the counters in the kernel log.  A buffer mapped
 * later is found at the next add.
 */
int dtl_pmu_trace_add(struct perf_event *event)
{
	if (dtl_trace_rb(event))
		return 0;
	WRITE_ONCE(dtl_trace_of(event->parent ? : event)->unmapped, true);
	return -EINVAL;
}

/*
 * A cursor at the last switch record of this CPU's log, which it has.
 * The record before it may be gone: what a short one needs of it is its
 * time, which is the switch's less the record's delta, and the task it
 * dispatched, which is the switch's prev.
 */
static void dtl_trace_at_last_switch(const struct dtl_cpu *dc,
				     struct dtl_log_cursor *c)
{
	const struct dtl_log *l = &dc->log;
	const u8 *p = l->buf + (dc->last_switch_pos & l->mask);

	c->pos = dc->last_switch_pos;
	c->seq = dc->last_switch;
	c->st = l->last;
	c->st.valid = true;
	c->st.have_next = true;
	c->st.next_pid = dc->last_switch_prev_pid;
	c->st.next_tid = dc->last_switch_prev_tid;
	c->st.seq = dc->last_switch - 1;
	c->st.time = dc->run_start;
	if ((p[0] & PERF_DTL_REC_FORM_MASK) == PERF_DTL_REC_SHORT)
		c->st.time -= ((const struct perf_dtl_short *)p)->time_delta;
}

/* pmu::start of a trace event: on the event's CPU, interrupts disabled. */
void dtl_pmu_trace_start(struct perf_event *event)
{
	struct dtl_cpu *dc = this_cpu_ptr(&dtl_pmu_cpus);
	struct dtl_log *l = &dc->log;
	struct dtl_trace *t = dtl_trace_of(event);
	int cpu = smp_processor_id();

	WRITE_ONCE(dtl_trace_of(event->parent ? : event)->started, true);
	t->period_ns = dtl_trace_period(event);
	if (!dtl_trace_per_task(t)) {
		t->cur.pos = l->pos;
		t->cur.seq = l->head;
		t->cur.st = l->last;
	} else {
		/*
		 * A task event starts as its task is switched in, or is
		 * enabled while it runs: its window opens at the record of
		 * that dispatch, the last switch of this CPU's log, if the
		 * log has it.  Enabled again in the same run, it must not
		 * deliver that record twice.
		 */
		t->running = task_pid_nr(current);
		if (dc->last_switch >= dc->base && dc->last_switch < l->head &&
		    !dtl_log_lapped(l, dc->last_switch_pos, l->pos)) {
			dtl_trace_at_last_switch(dc, &t->cur);
		} else {
			t->cur.pos = l->pos;
			t->cur.seq = l->head;
			t->cur.st = l->last;
		}
		if (t->last_cpu == cpu && t->cur.seq < t->last_cur.seq)
			t->cur = t->last_cur;
	}

	t->read_at = local_clock();
	if (list_empty(&dc->readers)) {
		dc->drain_head = l->head;
		dc->drain_time = t->read_at;
	}
	list_add_tail(&t->node, &dc->readers);
	/*
	 * The timer waits at most the shortest period.  A task event starts
	 * at each switch-in of its task: most find the timer armed, which
	 * its stop left so.
	 */
	if (!hrtimer_active(&dc->drain_timer) ||
	    ktime_to_ns(hrtimer_get_remaining(&dc->drain_timer)) > t->period_ns)
		hrtimer_start(&dc->drain_timer, ns_to_ktime(t->period_ns),
			      HRTIMER_MODE_REL_PINNED_HARD);
}

/* pmu::stop of a trace event: on the event's CPU, interrupts disabled. */
void dtl_pmu_trace_stop(struct perf_event *event)
{
	struct dtl_cpu *dc = this_cpu_ptr(&dtl_pmu_cpus);
	struct dtl_trace *t = dtl_trace_of(event);
	u64 start = local_clock();
	u32 n;

	/*
	 * Unbounded: perf reads the buffer next, a record left is lost.  The
	 * timer drained the rest, up to its last pass.
	 */
	n = dtl_trace_drain(t, NULL);
	dtl_drain_account(&dc->stop_stat, local_clock() - start, n, false);
	t->last_cpu = smp_processor_id();
	t->last_cur = t->cur;
	list_del_init(&t->node);
	/*
	 * The timer is pinned to this CPU, so its callback is not running.
	 * A task event stops at each switch-out of its task, and starts
	 * again soon: leave the timer to find no reader, rather than
	 * reprogram the clock at each switch.
	 */
	if (list_empty(&dc->readers) && !dtl_trace_per_task(t))
		hrtimer_try_to_cancel(&dc->drain_timer);
}

int dtl_pmu_trace_init(struct perf_event *event, const struct dtl_filter *f,
		       u64 period_ns)
{
	struct dtl_user *u = event->pmu_private;
	struct dtl_trace *t;

	t = kzalloc_obj(*t, GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->event = event;
	t->filter = *f;
	t->period_ns = period_ns;
	/* An inherited event reads for its parent's reader. */
	if (event->parent)
		t->ns = get_pid_ns(dtl_trace_of(event->parent)->ns);
	else
		t->ns = get_pid_ns(task_active_pid_ns(current));
	t->last_cpu = -1;
	t->copy = !f->full && f->kinds == DTL_ALL_KINDS && !f->min_wait_ns &&
		  !f->no_kthreads && !f->no_user && t->ns == &init_pid_ns &&
		  !(event->attach_state & PERF_ATTACH_TASK);
	INIT_LIST_HEAD(&t->node);
	u->trace_state = t;
	return 0;
}

void dtl_pmu_trace_fini(struct perf_event *event)
{
	struct dtl_user *u = event->pmu_private;
	struct dtl_trace *t = u->trace_state;

	/*
	 * An event that ran without ever getting an AUX buffer (a perf
	 * without dtl's decoder maps none) delivered nothing, and had no
	 * buffer for a LOST record to say so: the kernel log says it,
	 * once for the event and its inherited copies, which are gone by
	 * now.  Process context, unlike the drains.
	 */
	if (!event->parent && READ_ONCE(t->started) && !READ_ONCE(t->had_aux))
		pr_notice_ratelimited("a trace event of %s had no AUX buffer: what it logged is lost (perf records dtl with dtl's decoder only)\n",
				      u->comm);
	/*
	 * Never run for want of a buffer: most likely "perf stat" of a trace
	 * event meant for a counter.  Name the counter, once for the events
	 * of a process in a row ("perf stat -a" has one on each CPU).
	 */
	else if (!event->parent && READ_ONCE(t->unmapped) &&
		 !READ_ONCE(t->started) &&
		 xchg(&dtl_unmapped_told, u->owner) != u->owner)
		pr_notice_ratelimited("a trace event of %s did not run: it writes records to an AUX buffer (perf record) and had none; the counter is dtl/%s/\n",
				      u->comm,
				      t->filter.kinds == (BIT(PERF_DTL_KIND_PREEMPT) |
							  BIT(PERF_DTL_KIND_LOST)) ?
				      "preemptions" : "dispatches");
	/*
	 * A loss that no LOST record reported: the buffer stayed too full
	 * for one until the event stopped for good (perf read it too late,
	 * or not at all).  Nothing is lost without a word.  The copies of
	 * an event that never had a buffer are told of by it, above.
	 */
	else if ((t->lost || t->lapped) &&
		 READ_ONCE(dtl_trace_of(event->parent ? : event)->had_aux))
		pr_notice_ratelimited("a trace event of %s ended with %llu records lost that no LOST record reports: its AUX buffer stayed full\n",
				      u->comm, t->lost + t->lapped);

	/* Stopped, so off its CPU's list: the drain timer cannot see it. */
	WARN_ON_ONCE(!list_empty(&t->node));
	WARN_ON_ONCE(t->held_aux);
	put_pid_ns(t->ns);
	kfree(t);
	u->trace_state = NULL;
}

void *dtl_pmu_setup_aux(struct perf_event *event, void **pages, int nr_pages,
			bool overwrite)
{
	int node = event->cpu < 0 ? NUMA_NO_NODE : cpu_to_node(event->cpu);
	struct page **pglist;
	struct dtl_aux *aux;
	int i;

	if (!dtl_is_trace_event(event)) {
		pr_info_ratelimited("a counting event has no AUX buffer: use a trace event such as dtl/all/\n");
		return NULL;
	}
	if (nr_pages < PERF_DTL_AUX_MIN_PAGES) {
		pr_info_ratelimited("AUX buffer of %d page(s) is too small: %d at least\n",
				    nr_pages, PERF_DTL_AUX_MIN_PAGES);
		return NULL;
	}

	dtl_pmu_user_transient(event, "aux-setup");
	aux = kzalloc_node(sizeof(*aux), GFP_KERNEL, node);
	pglist = kcalloc(nr_pages, sizeof(*pglist), GFP_KERNEL);
	if (!aux || !pglist)
		goto err;
	for (i = 0; i < nr_pages; i++)
		pglist[i] = virt_to_page(pages[i]);
	aux->base = vmap(pglist, nr_pages, VM_MAP, PAGE_KERNEL);
	if (!aux->base)
		goto err;
	aux->size = (unsigned long)nr_pages << PAGE_SHIFT;
	aux->overwrite = overwrite;
	aux->since_header = ULONG_MAX;
	kfree(pglist);
	WRITE_ONCE(dtl_trace_of(event->parent ? : event)->had_aux, true);
	dtl_pmu_user_transient(event, NULL);
	return aux;

err:
	kfree(pglist);
	kfree(aux);
	dtl_pmu_user_transient(event, NULL);
	return NULL;
}

void dtl_pmu_free_aux(void *data)
{
	struct dtl_aux *aux = data;

	atomic_long_inc(&dtl_aux_gen);
	vunmap(aux->base);
	kfree(aux);
}

static int dtl_drain_show(struct seq_file *m, void *v)
{
	int cpu;

	seq_printf(m, "# budget_ns %llu max_records %u\n",
		   DTL_DRAIN_BUDGET_NS, DTL_DRAIN_MAX_RECORDS);
	seq_puts(m, "cpu passes cut pass_max_ns pass_max_records stops stop_max_ns stop_max_records\n");
	for_each_possible_cpu(cpu) {
		struct dtl_cpu *dc = per_cpu_ptr(&dtl_pmu_cpus, cpu);
		const struct dtl_drain_stat *p = &dc->pass_stat;
		const struct dtl_drain_stat *st = &dc->stop_stat;

		/* Racy snapshots, good enough for diagnostics. */
		seq_printf(m, "%d %lu %lu %u %u %lu %u %u\n", cpu,
			   READ_ONCE(p->count), READ_ONCE(p->cut),
			   READ_ONCE(p->max_ns), READ_ONCE(p->max_records),
			   READ_ONCE(st->count), READ_ONCE(st->max_ns),
			   READ_ONCE(st->max_records));
	}
	return 0;
}

static int dtl_drain_open(struct inode *inode, struct file *file)
{
	return single_open(file, dtl_drain_show, inode->i_private);
}

/* Any write starts the maxima again. */
static ssize_t dtl_drain_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct dtl_cpu *dc = per_cpu_ptr(&dtl_pmu_cpus, cpu);

		WRITE_ONCE(dc->pass_stat.max_ns, 0);
		WRITE_ONCE(dc->pass_stat.max_records, 0);
		WRITE_ONCE(dc->stop_stat.max_ns, 0);
		WRITE_ONCE(dc->stop_stat.max_records, 0);
	}
	return count;
}

static const struct file_operations dtl_drain_fops = {
	.owner		= THIS_MODULE,
	.open		= dtl_drain_open,
	.read		= seq_read,
	.write		= dtl_drain_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* Which CPUs have a log, and how large (0: none). */
static int dtl_logs_show(struct seq_file *m, void *v)
{
	size_t bytes = dtl_pmu_log_bytes();
	int cpu;

	seq_puts(m, "cpu log_bytes\n");
	mutex_lock(&dtl_logs_lock);
	for_each_possible_cpu(cpu)
		seq_printf(m, "%d %zu\n", cpu,
			   per_cpu(dtl_pmu_cpus, cpu).log_mem ? bytes : 0);
	mutex_unlock(&dtl_logs_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dtl_logs);

void dtl_pmu_trace_debugfs(struct dentry *dir)
{
	debugfs_create_file("drain", 0600, dir, NULL, &dtl_drain_fops);
	debugfs_create_file("logs", 0444, dir, NULL, &dtl_logs_fops);
}

int dtl_pmu_trace_module_init(void)
{
	int cpu, ret;

	if (dtl_pmu_log_entries < DTL_LOG_MIN || dtl_pmu_log_entries > DTL_LOG_MAX ||
	    !is_power_of_2(dtl_pmu_log_entries)) {
		pr_err("log_entries=%u: must be a power of 2 in [%u, %u]\n",
		       dtl_pmu_log_entries, DTL_LOG_MIN, (unsigned int)DTL_LOG_MAX);
		return -EINVAL;
	}
	/* Before the hotplug callback, which cancels the timer. */
	for_each_possible_cpu(cpu) {
		struct dtl_cpu *dc = per_cpu_ptr(&dtl_pmu_cpus, cpu);

		INIT_LIST_HEAD(&dc->readers);
		hrtimer_setup(&dc->drain_timer, dtl_drain_timer, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
	}
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "perf/dtl:prepare",
					dtl_trace_cpu_prepare, NULL);
	if (ret < 0)
		return ret;
	dtl_cpuhp_state = ret;
	return 0;
}

void dtl_pmu_trace_module_exit(void)
{
	int cpu;

	/* No trace event is left: the logs are already gone. */
	WARN_ON_ONCE(atomic_read(&dtl_trace_users));
	cpuhp_remove_state_nocalls(dtl_cpuhp_state);
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu(dtl_pmu_cpus, cpu).drain_timer);
}
