/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Dispatch Trace Log PMU: definitions shared by the driver's files and its
 * KUnit tests.  The inline functions are pure -- they take values and
 * return values, or write only the log they are given -- so the tests
 * exercise them without a running PMU.
 */
#ifndef __DRIVERS_PERF_DTL_H
#define __DRIVERS_PERF_DTL_H

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/perf_event.h>
#include <linux/perf_dtl.h>
#include <linux/types.h>
#include <asm/barrier.h>

enum dtl_counter {
	DTL_CNT_DISPATCHES,
	DTL_CNT_PREEMPTIONS,
	DTL_CNT_WAIT_NS,
	DTL_CNT_STEAL_NS,
	DTL_NR_COUNTERS
};

/* event->hw.idx of a trace event. */
#define DTL_IDX_TRACE		DTL_NR_COUNTERS

#define DTL_ALL_KINDS		(BIT(PERF_DTL_KIND_MAX) - 1)

/* What a trace event keeps of the logs (its filter), and in what format. */
struct dtl_filter {
	u32	kinds;		/* BIT(PERF_DTL_KIND_*) */
	u64	min_wait_ns;	/* switch records: wait_ns at least this */
	bool	no_kthreads;	/* exclude_kernel: a user task must be in it */
	bool	no_user;	/* exclude_user: a kernel thread must be in it */
	bool	full;		/* PERF_DTL_FORMAT_ENTRY, else _COMPACT */
};

/*
 * Check an event's attributes.  Returns the counter index, DTL_IDX_TRACE
 * for the trace event (and fills @filter and @period_ns), -EINVAL for a
 * config dtl does not know or a poll period out of range, -EOPNOTSUPP for
 * a perf feature dtl cannot provide.
 */
static inline int dtl_parse_attr(const struct perf_event_attr *attr,
				 struct dtl_filter *filter, u64 *period_ns)
{
	u64 id = attr->config & PERF_DTL_CONFIG_EVENT_MASK;
	u64 kinds = (attr->config & PERF_DTL_CONFIG_KINDS_MASK) >>
		    PERF_DTL_CONFIG_KINDS_SHIFT;

	if (attr->precise_ip ||
	    (attr->sample_type & PERF_SAMPLE_BRANCH_STACK))
		return -EOPNOTSUPP;

	if (id == PERF_DTL_EVENT_TRACE) {
		if (attr->config & ~(PERF_DTL_CONFIG_EVENT_MASK |
				     PERF_DTL_CONFIG_KINDS_MASK |
				     PERF_DTL_CONFIG_FULL))
			return -EINVAL;
		if ((attr->config1 & ~PERF_DTL_CONFIG1_MIN_WAIT_US) ||
		    attr->config2 || (kinds & ~(u64)DTL_ALL_KINDS))
			return -EINVAL;
		/* The sample period is the poll interval: no frequency. */
		if (attr->freq)
			return -EINVAL;
		/* Records are stamped with perf's default clock only. */
		if (attr->use_clockid)
			return -EINVAL;
		if (attr->sample_period &&
		    (attr->sample_period < PERF_DTL_POLL_MIN_NS ||
		     attr->sample_period > PERF_DTL_POLL_MAX_NS))
			return -EINVAL;
		/* Records are of no privilege level; hv and idle: none. */
		if (attr->exclude_idle || attr->exclude_host ||
		    (attr->exclude_user && attr->exclude_kernel))
			return -EOPNOTSUPP;
		filter->kinds = kinds ? kinds : DTL_ALL_KINDS;
		/* LOST records are always kept. */
		filter->kinds |= BIT(PERF_DTL_KIND_LOST);
		filter->min_wait_ns = attr->config1 * NSEC_PER_USEC;
		filter->no_kthreads = attr->exclude_kernel;
		filter->no_user = attr->exclude_user;
		filter->full = attr->config & PERF_DTL_CONFIG_FULL;
		*period_ns = attr->sample_period ? : PERF_DTL_POLL_DEFAULT_NS;
		return DTL_IDX_TRACE;
	}

	if ((attr->config & ~PERF_DTL_CONFIG_EVENT_MASK) || attr->config1 ||
	    attr->config2)
		return -EINVAL;
	if (id > PERF_DTL_EVENT_STEAL_NS)
		return -EINVAL;

	/*
	 * Counters have no overflow interrupt and no privilege-level filter.
	 * exclude_guest and exclude_hv are accepted: perf sets the first by
	 * default, and both with ":u" (as its fallback for users at
	 * perf_event_paranoid 2 does), and dtl counts nothing in guest or
	 * hypervisor mode anyway.  exclude_kernel is left to the caller,
	 * which accepts it for per-task events of user tasks only.
	 */
	if (attr->sample_period || attr->freq)
		return -EOPNOTSUPP;
	if (attr->exclude_user || attr->exclude_idle || attr->exclude_host)
		return -EOPNOTSUPP;

	return id - PERF_DTL_EVENT_DISPATCHES;
}

/*
 * Time runnable before a dispatch at @now of a task enqueued at @queued
 * (0: not stamped, as for the idle task).  Clocks of different CPUs may
 * disagree by a little: a stamp in the future counts as no wait.
 */
static inline u64 dtl_wait_ns(u64 queued, u64 now)
{
	if (!queued || now < queued)
		return 0;
	return now - queued;
}

/*
 * The length of a run that ends at @now, for a trace record.  The probe
 * reads the clock only while its CPU has a log, so a run has a known
 * start (@run_start, 0 for none) only if it began while the log existed,
 * since @log_since; a run that began before counts from @log_since, as a
 * run in progress when dtl starts counts from then.  @log_since is read
 * on another CPU's clock: a skew gives 0, not a huge length.
 */
static inline u64 dtl_ran_ns(u64 now, u64 run_start, u64 log_since)
{
	u64 since = max(run_start, log_since);

	return now > since ? now - since : 0;
}

/*
 * Does a trace event with filter @f keep record @e?  @running is NULL for
 * a CPU-wide event.  A per-task event reads the log in windows, from the
 * dispatch of one of its tasks to the switch-out of one of them (perf
 * swaps the contexts of an inherited family in between without stopping
 * the event), so every switch record of a window names one of its tasks;
 * *@running follows the task on the CPU through the window, and a
 * migration is kept if it moves that task.
 */
static inline bool dtl_filter_match(const struct dtl_filter *f,
				    const struct perf_dtl_entry *e, u32 *running)
{
	bool prev_k = e->flags & PERF_DTL_F_PREV_KTHREAD;
	bool next_k = e->flags & PERF_DTL_F_NEXT_KTHREAD;

	if (e->kind == PERF_DTL_KIND_LOST)
		return f->kinds & BIT(PERF_DTL_KIND_LOST);
	if (e->kind == PERF_DTL_KIND_MIGRATE) {
		if (!(f->kinds & BIT(e->kind)))
			return false;
		if (running && e->prev_tid != *running)
			return false;
		return !(f->no_kthreads && prev_k) && !(f->no_user && !prev_k);
	}
	if (running)
		*running = e->next_tid;
	if (!(f->kinds & BIT(e->kind)))
		return false;
	if (e->wait_ns < f->min_wait_ns)
		return false;
	if (f->no_kthreads && prev_k && next_k)
		return false;
	if (f->no_user && !prev_k && !next_k)
		return false;
	return true;
}

/*
 * Write the header that begins an AUX transaction whose records are of
 * @format at @out (PERF_DTL_HEADER_SIZE bytes, 8-byte aligned).
 */
static inline void dtl_header_write(void *out, unsigned int format)
{
	struct perf_dtl_header *hdr = out;

	memset(hdr, 0, sizeof(*hdr));
	hdr->rec = PERF_DTL_REC_HEADER;
	hdr->format = format;
	hdr->size = PERF_DTL_HEADER_SIZE;
	hdr->magic = PERF_DTL_MAGIC;
	hdr->kind = PERF_DTL_HEADER_KIND;
}

/*
 * The compact format (PERF_DTL_FORMAT_COMPACT).  A trace event encodes the
 * records it delivers one AUX transaction at a time, as the decoder will
 * read them: a short record says only what does not follow from the
 * record before it in the buffer.  @valid: that record exists and is not
 * a LOST record; @have_next: a switch record of the transaction after its
 * last LOST record exists, the last one gave @next_pid and @next_tid.
 */
struct dtl_compact {
	bool	valid;
	bool	have_next;
	u16	cpu;
	u32	next_pid;
	u32	next_tid;
	u64	seq;
	u64	time;
};

static inline bool dtl_compact_follows(const struct dtl_compact *s,
				       const struct perf_dtl_entry *e)
{
	if (!s->valid || e->kind == PERF_DTL_KIND_LOST || e->cpu != s->cpu ||
	    e->seq != s->seq + 1 || e->time < s->time ||
	    e->time - s->time > U32_MAX)
		return false;
	if (e->kind == PERF_DTL_KIND_MIGRATE)
		return true;
	return s->have_next && e->prev_pid == s->next_pid &&
	       e->prev_tid == s->next_tid && e->wait_ns <= U32_MAX &&
	       e->blocked_ns <= U32_MAX && e->ran_ns <= U32_MAX;
}

/*
 * Write @e at @out (PERF_DTL_ENTRY_SIZE bytes, 8-byte aligned) as a short
 * record (@short_rec: dtl_compact_follows() said it may be) after the
 * record @s describes, or as a long one.  Returns its size.
 */
static inline unsigned int dtl_compact_write(const struct dtl_compact *s,
					     const struct perf_dtl_entry *e,
					     bool short_rec, void *out)
{
	struct perf_dtl_short *r = out;
	struct perf_dtl_long *l = out;

	if (short_rec) {
		r->rec = PERF_DTL_REC_SHORT | e->kind;
		r->flags = e->flags;
		r->reserved = 0;
		r->time_delta = e->time - s->time;
		if (e->kind == PERF_DTL_KIND_MIGRATE) {
			r->prev_pid = e->prev_pid;
			r->prev_tid = e->prev_tid;
			r->from_cpu = e->from_cpu;
			r->to_cpu = e->to_cpu;
			r->zero[0] = 0;
			r->zero[1] = 0;
		} else {
			r->next_pid = e->next_pid;
			r->next_tid = e->next_tid;
			r->wait_ns = e->wait_ns;
			r->blocked_ns = e->blocked_ns;
			r->ran_ns = e->ran_ns;
			r->steal_ns = e->steal_ns;
		}
		return PERF_DTL_SLOT_SIZE;
	}
	l->rec = PERF_DTL_REC_LONG | e->kind;
	l->flags = e->flags;
	l->cpu = e->cpu;
	l->steal_ns = e->steal_ns;
	l->time = e->time;
	l->seq = e->seq;
	l->prev_pid = e->prev_pid;
	l->prev_tid = e->prev_tid;
	l->next_pid = e->next_pid;	/* from_cpu, for MIGRATE */
	l->next_tid = e->next_tid;	/* to_cpu */
	l->wait_ns = e->wait_ns;	/* lost, for LOST */
	l->blocked_ns = e->blocked_ns;	/* lapped */
	l->ran_ns = e->ran_ns;
	return PERF_DTL_ENTRY_SIZE;
}

/*
 * Encode @e, the next record of a transaction whose state is @s, into
 * @out: short if it follows on from the record before and @long_only is
 * false, else long.  Returns its size.  Once it is written,
 * dtl_compact_next() accounts for it in @s.
 */
static inline unsigned int dtl_compact_encode(const struct dtl_compact *s,
					      const struct perf_dtl_entry *e,
					      bool long_only, void *out)
{
	return dtl_compact_write(s, e, !long_only && dtl_compact_follows(s, e),
				 out);
}

/* @e, encoded by dtl_compact_encode(), is in the buffer. */
static inline void dtl_compact_next(struct dtl_compact *s,
				    const struct perf_dtl_entry *e)
{
	if (e->kind == PERF_DTL_KIND_LOST) {
		s->valid = false;
		s->have_next = false;
		return;
	}
	s->valid = true;
	s->cpu = e->cpu;
	s->seq = e->seq;
	s->time = e->time;
	if (e->kind != PERF_DTL_KIND_MIGRATE) {
		s->have_next = true;
		s->next_pid = e->next_pid;
		s->next_tid = e->next_tid;
	}
}

/*
 * The dispatch log.  A CPU's log is a ring of bytes written in the
 * compact format (PERF_DTL_FORMAT_COMPACT), as a trace event delivers it:
 * a switch or migration record is short where it follows on from the
 * record before it in the log, else long; a PAD slot comes before a long
 * record that would straddle the end of the ring.  So the common reader
 * -- one that keeps every record, in the initial pid namespace, whose AUX
 * buffer last got the record before -- copies the log as it is, and only
 * the others decode it (dtl_log_read()).
 *
 * Positions count bytes since the log was created.  Where a record is the
 * first to begin in a DTL_LOG_BLOCK of the ring, the log keeps a key: its
 * position, number, and the record before it as a decoder needs it.  A
 * reader that the log lapped resumes at the key of the oldest block that
 * is still whole (dtl_log_resume_block()), short records and all.
 */
#define DTL_LOG_BLOCK		2048

/* A place in a log: the record there, and what comes before it. */
struct dtl_log_cursor {
	u64			pos;	/* byte position of the record */
	u64			seq;	/* its sequence number */
	struct dtl_compact	st;	/* the record before it */
};

/*
 * A CPU's log: @mask + 1 bytes at @buf (a power of 2, at least two
 * DTL_LOG_BLOCKs: a lapped reader resumes at a whole one) and a key per
 * block; @pos and @head, the position and
 * number of the next record to be written; @last, the record before it.
 */
struct dtl_log {
	u8			*buf;
	struct dtl_log_cursor	*keys;
	u64			mask;
	u64			pos;
	u64			head;
	struct dtl_compact	last;
	u64			pad;	/* position of the last PAD slot */
};

/*
 * The probe's choice: may a switch at @time from @prev_pid/@prev_tid,
 * with these times, be written short after the record @s describes?
 * What dtl_compact_follows() asks of a record, less what always holds in
 * a log (one CPU, consecutive numbers).  A @time before @s's wraps to a
 * delta over U32_MAX: one test checks the order and the size.
 */
static inline bool dtl_log_follows(const struct dtl_compact *s, u64 time,
				   u32 prev_pid, u32 prev_tid, u64 wait_ns,
				   u64 blocked_ns, u64 ran_ns)
{
	return s->valid && s->have_next && s->next_tid == prev_tid &&
	       s->next_pid == prev_pid &&
	       ((time - s->time) | wait_ns | blocked_ns | ran_ns) <= U32_MAX;
}

/* The same for a migration record at @time. */
static inline bool dtl_log_follows_migrate(const struct dtl_compact *s,
					   u64 time)
{
	return s->valid && time - s->time <= U32_MAX;
}

/* Keep a key for the record that begins at @l->pos, the first of its block. */
static inline void dtl_log_key(struct dtl_log *l)
{
	struct dtl_log_cursor *k = &l->keys[(l->pos & l->mask) / DTL_LOG_BLOCK];

	k->pos = l->pos;
	k->seq = l->head;
	k->st = l->last;
}

/*
 * Where the next record of @l, of @len bytes, is written: after a PAD
 * slot where a long record would straddle the end of the ring.
 * dtl_log_commit() then accounts for it.  On the log's CPU, with
 * interrupts disabled.  @buf is @l->buf as the probe read it, once: the
 * last tracer's going clears @l->buf at any time, and frees the log only
 * once every probe that saw it is done (dtl_logs_free()).
 */
static inline void *dtl_log_slot(struct dtl_log *l, u8 *buf,
				 unsigned int len)
{
	u64 off = l->pos & l->mask;

	if (unlikely(len > PERF_DTL_SLOT_SIZE &&
		     off == l->mask + 1 - PERF_DTL_SLOT_SIZE)) {
		buf[off] = PERF_DTL_REC_PAD;
		l->pad = l->pos;
		l->pos += PERF_DTL_SLOT_SIZE;
		dtl_log_key(l);
		off = 0;
	}
	return buf + off;
}

/*
 * The record of @len bytes at dtl_log_slot(), of @time, is written; a
 * switch record has set @l->last's next_pid and next_tid (and have_next)
 * already.  The record after it may be the first of a block.
 */
static inline void dtl_log_commit(struct dtl_log *l, unsigned int len,
				  u64 time)
{
	u64 pos = l->pos;

	l->pos = pos + len;
	l->last.valid = true;
	l->last.seq = l->head++;
	l->last.time = time;
	if ((pos ^ l->pos) >= DTL_LOG_BLOCK)
		dtl_log_key(l);
}

/* Has the log, whose next record is at @head, overwritten position @pos? */
static inline bool dtl_log_lapped(const struct dtl_log *l, u64 pos, u64 head)
{
	return head - pos > l->mask + 1;
}

/*
 * Where a reader that the log lapped resumes, the log's next record being
 * at @head: the key of the oldest block whose records and key are all
 * still there (a key has the position of the block's first record).  Not
 * the block at @head less the log's size, whose key slot is @head's.
 */
static inline u64 dtl_log_resume_block(const struct dtl_log *l, u64 head)
{
	return ALIGN(head - l->mask, DTL_LOG_BLOCK);
}

static inline const struct dtl_log_cursor *
dtl_log_key_of(const struct dtl_log *l, u64 block)
{
	return &l->keys[(block & l->mask) / DTL_LOG_BLOCK];
}

/*
 * Decode the record at @c of the log @l into @e, and move @c past it.
 * A short record is decoded with the record before it, which @c has.
 */
static inline void dtl_log_read(const struct dtl_log *l,
				struct dtl_log_cursor *c,
				struct perf_dtl_entry *e)
{
	const u8 *p = l->buf + (c->pos & l->mask);

	if ((p[0] & PERF_DTL_REC_FORM_MASK) == PERF_DTL_REC_PAD) {
		c->pos += PERF_DTL_SLOT_SIZE;
		p = l->buf + (c->pos & l->mask);
	}
	e->kind = p[0] & PERF_DTL_REC_KIND_MASK;
	if ((p[0] & PERF_DTL_REC_FORM_MASK) == PERF_DTL_REC_LONG) {
		const struct perf_dtl_long *r = (const void *)p;

		e->flags = r->flags;
		e->cpu = r->cpu;
		e->steal_ns = r->steal_ns;
		e->time = r->time;
		e->seq = r->seq;
		e->prev_pid = r->prev_pid;
		e->prev_tid = r->prev_tid;
		e->next_pid = r->next_pid;	/* from_cpu, for MIGRATE */
		e->next_tid = r->next_tid;	/* to_cpu */
		e->wait_ns = r->wait_ns;
		e->blocked_ns = r->blocked_ns;
		e->ran_ns = r->ran_ns;
		c->pos += PERF_DTL_ENTRY_SIZE;
	} else {
		const struct perf_dtl_short *r = (const void *)p;

		e->flags = r->flags;
		e->cpu = c->st.cpu;
		e->time = c->st.time + r->time_delta;
		e->seq = c->st.seq + 1;
		if (e->kind == PERF_DTL_KIND_MIGRATE) {
			e->prev_pid = r->prev_pid;
			e->prev_tid = r->prev_tid;
			e->from_cpu = r->from_cpu;
			e->to_cpu = r->to_cpu;
			e->wait_ns = 0;
			e->blocked_ns = 0;
			e->ran_ns = 0;
			e->steal_ns = 0;
		} else {
			e->prev_pid = c->st.next_pid;
			e->prev_tid = c->st.next_tid;
			e->next_pid = r->next_pid;
			e->next_tid = r->next_tid;
			e->wait_ns = r->wait_ns;
			e->blocked_ns = r->blocked_ns;
			e->ran_ns = r->ran_ns;
			e->steal_ns = r->steal_ns;
		}
		c->pos += PERF_DTL_SLOT_SIZE;
	}
	c->seq++;
	dtl_compact_next(&c->st, e);
}

/*
 * Is the record before an AUX buffer's next one, @enc, the one before a
 * log's, @st?  Then the log's next records may be copied as they are.
 */
static inline bool dtl_compact_same(const struct dtl_compact *enc,
				    const struct dtl_compact *st)
{
	return enc->valid && st->valid && enc->cpu == st->cpu &&
	       enc->seq == st->seq && enc->time == st->time &&
	       enc->have_next == st->have_next &&
	       (!st->have_next || (enc->next_pid == st->next_pid &&
				   enc->next_tid == st->next_tid));
}

/*
 * Interrupts-off time.  A drain runs with interrupts disabled.  A timer
 * pass reads for at most DTL_DRAIN_BUDGET_NS and DTL_DRAIN_MAX_RECORDS
 * records, whatever the number of sessions, checking the clock every
 * DTL_DRAIN_CHECK records it decodes and after each block of the log it
 * copies (at most DTL_LOG_BLOCK bytes), and leaves the rest, if a block or
 * more, to a pass DTL_DRAIN_RESUME_NS later, or DTL_DRAIN_CATCHUP_NS later
 * while a reader is more than half a log behind (many sessions on a busy
 * CPU: the log would lap it).  Under emulation a decoded record takes
 * microseconds: DTL_DRAIN_CHECK is small.  The drain of an event
 * that stops must read all that is left -- perf reads the buffer right
 * after -- so the timer polls often enough that each pass finds about
 * DTL_DRAIN_BATCH records: that is what a stop finds.
 */
#define DTL_DRAIN_BUDGET_NS	5000ULL
#define DTL_DRAIN_MAX_RECORDS	512
#define DTL_DRAIN_CHECK		2
#define DTL_DRAIN_RESUME_NS	50000ULL
#define DTL_DRAIN_CATCHUP_NS	DTL_DRAIN_BUDGET_NS
#define DTL_DRAIN_BATCH		64

/*
 * A CPU-wide trace event ends its AUX transaction DTL_HOLD_PERIODS poll
 * periods after it began (at most PERF_DTL_POLL_MAX_NS), if nothing ended
 * it before.  The poll period is how long records may wait in the log,
 * which must not lap them; perf record reads the buffer when perf wakes
 * it up (half of it written), not at each transaction's end, and every
 * end costs a PERF_RECORD_AUX, a header and a long record in the stream.
 */
#define DTL_HOLD_PERIODS	10

static inline u64 dtl_hold_ns(u64 period_ns)
{
	return min(period_ns * DTL_HOLD_PERIODS, PERF_DTL_POLL_MAX_NS);
}

/*
 * When to poll next, after a pass found @found records written in
 * @elapsed ns: in @period_ns, or as soon as the log will have
 * DTL_DRAIN_BATCH records again at the same rate, but not sooner than
 * DTL_DRAIN_RESUME_NS.
 */
static inline u64 dtl_drain_interval(u64 elapsed, u64 found, u64 period_ns)
{
	u64 next;

	if (found <= DTL_DRAIN_BATCH)
		return period_ns;
	/* elapsed is at most PERF_DTL_POLL_MAX_NS: no overflow. */
	next = div64_u64(min(elapsed, PERF_DTL_POLL_MAX_NS) * DTL_DRAIN_BATCH, found);
	return clamp(next, min(DTL_DRAIN_RESUME_NS, period_ns), period_ns);
}

/*
 * When to go on after a pass that ran out of budget, the reader furthest
 * behind being @behind bytes behind the head of a log of @entries bytes: in
 * DTL_DRAIN_RESUME_NS, or in DTL_DRAIN_CATCHUP_NS while that reader is
 * more than half a log behind.  Interrupts then stay enabled between two
 * passes for at least a pass's budget.
 */
static inline u64 dtl_drain_resume(u64 behind, u64 entries)
{
	return behind > entries / 2 ? DTL_DRAIN_CATCHUP_NS : DTL_DRAIN_RESUME_NS;
}

/*
 * When to poll next after a pass: as after a pass out of budget
 * (dtl_drain_resume()) while the reader furthest behind, of a pass that
 * ran out of budget, is @behind >= a block behind (a quarter of the log,
 * if less: the smallest log is two blocks); else as after one that read
 * everything (dtl_drain_interval()).  A pass cut with less left --
 * many sessions, each with a few records -- is no reason to come back
 * soon: on an idle CPU the passes would follow each other all the time.
 * Each reader's own deadline caps it (dtl_drain_due()).
 */
static inline u64 dtl_drain_next(u64 behind, u64 entries, u64 elapsed,
				 u64 found, u64 period_ns)
{
	if (behind >= min_t(u64, DTL_LOG_BLOCK, entries / 4))
		return dtl_drain_resume(behind, entries);
	return dtl_drain_interval(elapsed, found, period_ns);
}

/*
 * When to poll for a reader that has records to read and must read them
 * by @deadline (local_clock()), it being @now: then, or after
 * DTL_DRAIN_RESUME_NS if it is overdue or nearly.
 */
static inline u64 dtl_drain_due(u64 deadline, u64 now)
{
	if (deadline < now + DTL_DRAIN_RESUME_NS)
		return DTL_DRAIN_RESUME_NS;
	return deadline - now;
}

/* Saturating conversion of a run's steal time to the record's field. */
static inline u32 dtl_steal_field(u64 steal_ns, u8 *flags)
{
	if (steal_ns >= U32_MAX) {
		*flags |= PERF_DTL_F_STEAL_SATURATED;
		return U32_MAX;
	}
	/* (A mask, not a cast: sparse evaluates the inlined dead branch too.) */
	return lower_32_bits(steal_ns);
}

/*
 * Steal during a run, from two readings of a steal clock.  A clock whose
 * record was registered again (a vCPU hot-plugged, a guest migrated) may
 * restart lower: that run's steal is not known, count none.
 */
static inline u64 dtl_steal_delta(u64 start, u64 now)
{
	return now >= start ? now - start : 0;
}

/*
 * How a task last left a CPU, kept per task (dtl_task_left()): the
 * counters' wait starts from @run_delay, the records' block time from
 * @time.
 */
struct dtl_block_info {
	u64	time;		/* when it left the CPU; 0: no log to read then */
	u64	run_delay;	/* its sched_info.run_delay then */
	bool	blocked;	/* it blocked; else it was preempted */
};

/*
 * How long did a task dispatched at @now sleep before the wakeup that
 * queued it?  @last left the CPU at @last.time, blocked or preempted;
 * since then the task waited @run_delay - @last.run_delay on run queues it
 * was moved away from (the scheduler adds a queued task's wait to
 * run_delay when it migrates) and @now - @queued on this one.  What is
 * left of the time off the CPU is sleep.  False if it cannot be known:
 * no queue stamp, or clocks that disagree.
 */
static inline bool dtl_blocked_ns(const struct dtl_block_info *last,
				  u64 run_delay, u64 queued, u64 now, u64 *ns)
{
	u64 waited;

	if (!last->blocked) {
		*ns = 0;
		return true;
	}
	if (!queued || now < queued || now < last->time ||
	    run_delay < last->run_delay)
		return false;
	waited = run_delay - last->run_delay + (now - queued);
	if (now - last->time < waited)
		return false;
	*ns = now - last->time - waited;
	return true;
}

/*
 * The whole wait of a task dispatched at @now after @last left a CPU.
 * Preempted, it was runnable from then on, on whichever run queues.  Woken
 * after a block, it waited on the run queues it was moved away from
 * (@run_delay - @last.run_delay: the scheduler adds a queued task's wait to
 * run_delay when it migrates) and @wait on this one.  @wait alone if the
 * clocks disagree.
 *
 * For a preempted task this is also right where the scheduler's enqueue
 * stamp is not: a task preempted after it set a sleeping state is not
 * stamped (sched_info_depart() stamps running tasks only), and one whose
 * preemption skipped the clock update is stamped with the clock of the
 * wakeup that preempted it.
 */
static inline u64 dtl_waited_ns(const struct dtl_block_info *last,
				u64 run_delay, u64 wait, u64 now)
{
	if (!last->blocked)
		return now >= last->time ? now - last->time : wait;
	if (run_delay < last->run_delay)
		return wait;
	return wait + (run_delay - last->run_delay);
}

/* Interface between the files of the driver. */
struct dtl_cpu;
struct dtl_trace;
struct dentry;

/* Who uses the PMU, one per event, for the "busy" file. */
struct dtl_user {
	struct list_head	node;
	int			cpu;		/* -1: a per-task event */
	bool			trace;
	bool			listed;		/* not an inherited event */
	struct pid		*owner;		/* tgid of who opened it */
	struct pid		*target;	/* per-task: the task */
	char			comm[TASK_COMM_LEN];
	u64			since;		/* local_clock() at open */
	const char		*transient;	/* a setup in progress */
	struct dtl_trace	*trace_state;	/* trace events only */
};

static inline bool dtl_is_trace_event(struct perf_event *event)
{
	return event->hw.idx == DTL_IDX_TRACE;
}

void dtl_pmu_user_transient(struct perf_event *event, const char *what);

int dtl_pmu_trace_get(void);
void dtl_pmu_trace_put(void);

/*
 * Per-task state, how a task last left a CPU (dtl_task.c, and the probe's
 * accessors in dtl_task.h; in the out-of-tree build of older kernels, the
 * compatibility layer's table).
 */
int dtl_task_init(struct pmu *pmu);
void dtl_task_exit(void);
void dtl_task_event_init(struct perf_event *event);
int dtl_pmu_trace_init(struct perf_event *event, const struct dtl_filter *f,
		       u64 period_ns);
void dtl_pmu_trace_fini(struct perf_event *event);
int dtl_pmu_trace_add(struct perf_event *event);
void dtl_pmu_trace_start(struct perf_event *event);
int dtl_pmu_trace_check_period(struct perf_event *event, u64 value);
void dtl_pmu_trace_stop(struct perf_event *event);
void dtl_pmu_trace_debugfs(struct dentry *dir);
void *dtl_pmu_setup_aux(struct perf_event *event, void **pages, int nr_pages,
			bool overwrite);
void dtl_pmu_free_aux(void *aux);
int dtl_pmu_trace_module_init(void);
void dtl_pmu_trace_module_exit(void);

/* How long drains kept interrupts off, for debugfs. */
struct dtl_drain_stat {
	unsigned long		count;
	unsigned long		cut;		/* out of budget */
	u32			max_ns;
	u32			max_records;
};

/*
 * Per-CPU state, written by that CPU's sched_switch probe, and by the
 * callbacks of events on that CPU, interrupts disabled.
 */
struct dtl_cpu {
	/* The counters' totals, kept while @count_events is not 0. */
	u64			total[DTL_NR_COUNTERS];
	/* Counting events added here: pmu::add and pmu::del keep it. */
	unsigned int		count_events;
	/*
	 * Context switches, and how perf switched dtl's task events: swaps
	 * of equivalent contexts and full switches (dtl_ctx_switch_seen()).
	 * @task_events: dtl task events added on this CPU; @swap_pending:
	 * the task that left at the last switch had some, and none was
	 * removed since; @last_full: @switches at the last full switch-in.
	 */
	u64			switches;
	u64			ctx_fast;
	u64			ctx_full;
	u64			last_full;
	unsigned int		task_events;
	bool			swap_pending;
	/* The run in progress, valid when @gen equals dtl_hook_gen. */
	unsigned long		gen;
	/* Its task, compared only (dtl_run_is()), and that task's start_time. */
	struct task_struct	*run_task;
	u64			run_task_start;
	u64			run_delay_start;	/* its sched_info.run_delay */
	u64			run_start;	/* local_clock(), 0 if not read */
	u64			run_steal_start;
	/*
	 * Where paravirt_steal_clock_read() puts the steal clock for the
	 * probe (dtl_steal_now()), not on its stack: a local variable whose
	 * address is taken would give the probe a stack canary and, with
	 * CONFIG_INIT_STACK_ALL_ZERO, a store at every switch.  The probe's
	 * only: an event read, which an NMI may do within the probe (a
	 * group's sample), reads into a variable of its own.
	 */
	u64			steal_read;
	/*
	 * The dispatch log, while a trace event exists (@log.buf is not
	 * NULL).  @base: the sequence of its first record.  The last switch
	 * record: its position, number, and prev (the record has it only if
	 * long); its time is @run_start.
	 */
	struct dtl_log		log;
	u64			base;
	u64			last_switch;
	u64			last_switch_pos;
	u32			last_switch_prev_pid;
	u32			last_switch_prev_tid;
	u64			log_since;	/* cpu_clock() at publication */
	void			*log_mem;	/* @log.buf while it is published */
	/*
	 * The AUX buffer that per-task events last wrote this CPU's records
	 * to, while dtl_aux_gen was @aux_gen, and the last record written
	 * there: the windows of two events that share a buffer meet at a
	 * switch between their tasks, whose record both would deliver.
	 * Compared, never dereferenced.
	 */
	const void		*aux_rb;
	unsigned long		aux_gen;
	u64			aux_rb_last;
	/*
	 * The trace events started on this CPU (CPU-wide ones, and per-task
	 * ones while their task is here), and the timer that drains them;
	 * both used only on this CPU with interrupts disabled.
	 * @drain_head and @drain_time: the log's head and the time at the
	 * last pass.
	 */
	struct list_head	readers;
	struct hrtimer		drain_timer;
	u64			drain_head;
	u64			drain_time;
	/* Diagnostics (debugfs "drain"): timer passes and stop drains. */
	struct dtl_drain_stat	pass_stat;
	struct dtl_drain_stat	stop_stat;
};

DECLARE_PER_CPU(struct dtl_cpu, dtl_pmu_cpus);
extern unsigned int dtl_pmu_log_entries;

#endif /* __DRIVERS_PERF_DTL_H */
