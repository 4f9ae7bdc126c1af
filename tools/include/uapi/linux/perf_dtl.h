/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Dispatch Trace Log PMU: the record formats of its AUX data.
 *
 * A dtl trace event fills its AUX buffer with records of one of two
 * formats, in the CPU's native byte order (a decoder of a recording made
 * with the other byte order swaps each field).  The buffer never holds a
 * partial record, and no record straddles its end.
 *
 * A struct perf_dtl_header names the format of the records after it and,
 * through its magic, their byte order: the stream describes itself, and a
 * reader needs nothing else to decode it.  One begins the first AUX
 * transaction (PERF_RECORD_AUX) written to a buffer, and any transaction
 * that begins PERF_DTL_HEADER_INTERVAL bytes or more after the last one,
 * or that an event of another format than the one before writes; in
 * snapshot mode, where a reader may start anywhere, also before the
 * first record PERF_DTL_HEADER_INTERVAL bytes or more after the last
 * header, within a transaction.  A reader that starts at any transaction,
 * or reads a snapshot of an overwritten buffer, finds one within
 * PERF_DTL_HEADER_INTERVAL bytes and a transaction (a record, in a
 * snapshot).
 *
 * PERF_DTL_FORMAT_ENTRY (1), with attr.config's PERF_DTL_CONFIG_FULL:
 * struct perf_dtl_entry records, PERF_DTL_ENTRY_SIZE bytes each.
 *
 * PERF_DTL_FORMAT_COMPACT (2), the default: records of one or two
 * PERF_DTL_SLOT_SIZE-byte slots, each naming its form in its first byte.
 * A struct perf_dtl_long record has every field of a struct
 * perf_dtl_entry and starts the stream; a struct perf_dtl_short record
 * has only what does not follow from the record before it.  The first
 * record after a header is long, so a decoder can start at any AUX
 * transaction; in snapshot mode (an overwritten buffer) all records are
 * long.  A PERF_DTL_REC_PAD slot, where a long record would
 * straddle the end of the buffer, is skipped.
 *
 * This header is shared by the kernel and perf (tools/include/uapi has a
 * copy that must stay identical).
 */
#ifndef _UAPI_LINUX_PERF_DTL_H
#define _UAPI_LINUX_PERF_DTL_H

#include <linux/types.h>

#define PERF_DTL_FORMAT_ENTRY		1
#define PERF_DTL_FORMAT_COMPACT	2
#define PERF_DTL_ENTRY_SIZE		64
#define PERF_DTL_SLOT_SIZE		32
#define PERF_DTL_HEADER_SIZE		64
#define PERF_DTL_HEADER_INTERVAL	4096
#define PERF_DTL_MAGIC			0x444c5448	/* "DTLH" */
/* struct perf_dtl_header::kind: where a record of format 1 has its kind */
#define PERF_DTL_HEADER_KIND		0xff

/**
 * enum perf_dtl_kind - why the outgoing task left the CPU, or what else a
 *	record says
 * @PERF_DTL_KIND_DISPATCH: prev was the idle task
 * @PERF_DTL_KIND_PREEMPT: prev was still runnable
 * @PERF_DTL_KIND_BLOCK: prev went to sleep
 * @PERF_DTL_KIND_EXIT: prev exited
 * @PERF_DTL_KIND_MIGRATE: a task moved to another CPU
 * @PERF_DTL_KIND_LOST: records this event could not keep
 * @PERF_DTL_KIND_MAX: the number of kinds
 */
enum perf_dtl_kind {
	PERF_DTL_KIND_DISPATCH	= 0,
	PERF_DTL_KIND_PREEMPT	= 1,
	PERF_DTL_KIND_BLOCK		= 2,
	PERF_DTL_KIND_EXIT		= 3,
	PERF_DTL_KIND_MIGRATE	= 4,
	PERF_DTL_KIND_LOST		= 5,
	PERF_DTL_KIND_MAX
};

/* perf_dtl_entry::flags */
#define PERF_DTL_F_PREV_KTHREAD	(1U << 0)	/* prev is a kernel thread */
#define PERF_DTL_F_NEXT_KTHREAD	(1U << 1)	/* next is a kernel thread */
#define PERF_DTL_F_BLOCKED_UNKNOWN	(1U << 2)	/* blocked_ns not known */
#define PERF_DTL_F_STEAL_SATURATED	(1U << 3)	/* steal_ns >= U32_MAX */

/**
 * struct perf_dtl_entry - one record of the dispatch trace log
 *
 * DISPATCH, PREEMPT, BLOCK and EXIT records describe a context switch on
 * @cpu from prev to next.  MIGRATE records name the task in @prev_pid and
 * @prev_tid and the CPUs in @from_cpu and @to_cpu; @cpu is the CPU that
 * moved it.  LOST records, of records of this CPU with numbers before @seq
 * that were not delivered, have the @time of the record before @seq (the
 * time the drain found them, if the log no longer had it), so that a CPU's
 * records stay in time order.
 *
 * Pids and tids are those of the tracer's pid namespace (the one of the
 * task that opened the event); a task outside it is 0, and so are the
 * times that belong to it.
 *
 * @time:	perf's clock (local_clock()) at the switch, in ns
 * @seq:	sequence number of the record in @cpu's log; consecutive
 *		records of a CPU have consecutive numbers, so a gap is the
 *		number of records lost (or filtered out by the event)
 * @prev_pid:	process (tgid) of the task that left the CPU, or of the
 *		task that moved (MIGRATE)
 * @prev_tid:	its thread id
 * @next_pid:	process of the task dispatched
 * @next_tid:	its thread id
 * @from_cpu:	MIGRATE: the CPU the task left
 * @to_cpu:	MIGRATE: the CPU the task moved to
 * @wait_ns:	time next was runnable before this dispatch, also on run
 *		queues it was moved away from meanwhile; with
 *		PERF_DTL_F_BLOCKED_UNKNOWN (dtl did not see how next left a
 *		CPU), the wait on this CPU's run queue only
 * @lost:	LOST: records this event would have kept (its filter matched
 *		them) that its AUX buffer was full or missing for
 * @blocked_ns:	time next slept before the wakeup that queued it (0 if it
 *		was preempted; PERF_DTL_F_BLOCKED_UNKNOWN if dtl does not know)
 * @lapped:	LOST: records the log overwrote before this event read them;
 *		its filter never saw them, so some of them it would have
 *		dropped.  Together with the records the filter dropped, they
 *		make up the gap in the sequence numbers.
 * @ran_ns:	length of prev's run that ended here; of its part since
 *		this CPU's log was created if it began before (the first
 *		record of a CPU after the first trace event opened)
 * @steal_ns:	hypervisor steal time during that run (0 without a steal
 *		clock; saturates, see PERF_DTL_F_STEAL_SATURATED)
 * @kind:	an enum perf_dtl_kind
 * @flags:	PERF_DTL_F_* flags
 * @cpu:	the CPU whose log the record is from
 */
struct perf_dtl_entry {
	__u64	time;
	__u64	seq;
	__u32	prev_pid;
	__u32	prev_tid;
	union {
		struct {
			__u32	next_pid;
			__u32	next_tid;
		};
		struct {
			__u32	from_cpu;
			__u32	to_cpu;
		};
	};
	union {
		__u64	wait_ns;
		__u64	lost;
	};
	union {
		__u64	blocked_ns;
		__u64	lapped;
	};
	__u64	ran_ns;
	__u32	steal_ns;
	__u8	kind;
	__u8	flags;
	__u16	cpu;
};

/*
 * Format 2: the first byte of each record (and of a PAD slot) is its form
 * with, for a record, its enum perf_dtl_kind.
 */
#define PERF_DTL_REC_FORM_MASK	0xc0
#define PERF_DTL_REC_LONG		0x40	/* struct perf_dtl_long, 2 slots */
#define PERF_DTL_REC_SHORT		0x80	/* struct perf_dtl_short, 1 slot */
#define PERF_DTL_REC_PAD		0xc0	/* 1 slot, nothing in it */
#define PERF_DTL_REC_HEADER		0x00	/* struct perf_dtl_header */
#define PERF_DTL_REC_KIND_MASK	0x0f	/* bits 4-5 are 0 */

/**
 * struct perf_dtl_long - a record of format 2 with every field
 *
 * The fields of struct perf_dtl_entry, ordered so that the form comes
 * first.  The kernel writes one where a record does not follow on from
 * the one before it in the buffer: at the start of an AUX transaction,
 * after a gap in the CPU's sequence numbers, on another CPU, when a field
 * does not fit a short record, and for every LOST record.
 *
 * @rec:	PERF_DTL_REC_LONG | the record's kind
 * @flags:	PERF_DTL_F_* flags
 * @cpu:	as in struct perf_dtl_entry, and so are the fields below
 * @steal_ns:	steal time during prev's run
 * @time:	time of the switch
 * @seq:	sequence number in @cpu's log
 * @prev_pid:	process of prev (of the task moved, for MIGRATE)
 * @prev_tid:	thread of prev
 * @next_pid:	process of next
 * @next_tid:	thread of next
 * @from_cpu:	MIGRATE: the CPU the task left
 * @to_cpu:	MIGRATE: the CPU it moved to
 * @wait_ns:	next's wait
 * @lost:	LOST: records kept but not delivered
 * @blocked_ns:	next's sleep
 * @lapped:	LOST: records overwritten unread
 * @ran_ns:	prev's run
 */
struct perf_dtl_long {
	__u8	rec;
	__u8	flags;
	__u16	cpu;
	__u32	steal_ns;
	__u64	time;
	__u64	seq;
	__u32	prev_pid;
	__u32	prev_tid;
	union {
		struct {
			__u32	next_pid;
			__u32	next_tid;
		};
		struct {
			__u32	from_cpu;
			__u32	to_cpu;
		};
	};
	union {
		__u64	wait_ns;
		__u64	lost;
	};
	union {
		__u64	blocked_ns;
		__u64	lapped;
	};
	__u64	ran_ns;
};

/**
 * struct perf_dtl_short - a record of format 2 that follows on from the
 *	record before it
 *
 * A switch or MIGRATE record of the same CPU as the record before it in
 * the buffer, which is not a LOST record, with the next sequence number.
 * Its time is that record's plus @time_delta.  A switch's prev_pid and
 * prev_tid are the next_pid and next_tid of the last switch record before
 * it in the buffer, which is after the last LOST record (the kernel writes
 * a long record where there is none).  The other fields are those of
 * struct perf_dtl_entry; the kernel writes a short record only when they
 * fit in 32 bits.
 *
 * @rec:	PERF_DTL_REC_SHORT | the record's kind, not LOST
 * @flags:	PERF_DTL_F_* flags
 * @reserved:	0
 * @time_delta:	ns since the record before
 * @next_pid:	a switch: as in struct perf_dtl_entry, and so are the
 *		fields below
 * @next_tid:	thread of next
 * @wait_ns:	next's wait
 * @blocked_ns:	next's sleep
 * @ran_ns:	prev's run
 * @steal_ns:	steal time during prev's run
 * @prev_pid:	MIGRATE: process of the task moved
 * @prev_tid:	MIGRATE: its thread
 * @from_cpu:	MIGRATE: the CPU it left
 * @to_cpu:	MIGRATE: the CPU it moved to
 * @zero:	MIGRATE: 0
 */
struct perf_dtl_short {
	__u8	rec;
	__u8	flags;
	__u16	reserved;
	__u32	time_delta;
	union {
		struct {	/* a switch */
			__u32	next_pid;
			__u32	next_tid;
			__u32	wait_ns;
			__u32	blocked_ns;
			__u32	ran_ns;
			__u32	steal_ns;
		};
		struct {	/* MIGRATE */
			__u32	prev_pid;
			__u32	prev_tid;
			__u32	from_cpu;
			__u32	to_cpu;
			__u32	zero[2];
		};
	};
};

/**
 * struct perf_dtl_header - what the records after it are
 *
 * A header stands out in either format: its first byte, where a record of
 * format 2 has its form, is PERF_DTL_REC_HEADER, which no record has; and
 * its @kind, where a record of format 1 has its kind, is
 * PERF_DTL_HEADER_KIND, no record's kind.  It is PERF_DTL_HEADER_SIZE
 * bytes, so that records stay 64-byte aligned where they are all 64
 * bytes long (format 1 and snapshot mode); in format 2 a PAD slot comes
 * before one that would straddle the end of the buffer.
 *
 * @rec:	PERF_DTL_REC_HEADER
 * @format:	PERF_DTL_FORMAT_* of the records after it, up to the next
 *		header
 * @size:	bytes of the header, PERF_DTL_HEADER_SIZE or, from a newer
 *		kernel, more (a multiple of PERF_DTL_SLOT_SIZE): the records
 *		begin @size bytes after it
 * @magic:	PERF_DTL_MAGIC in the byte order of the records
 * @reserved:	0; readers ignore it
 * @kind:	PERF_DTL_HEADER_KIND
 * @reserved2:	0; readers ignore it
 */
struct perf_dtl_header {
	__u8	rec;
	__u8	format;
	__u16	size;
	__u32	magic;
	__u8	reserved[52];
	__u8	kind;
	__u8	reserved2[3];
};

/*
 * attr.config of a dtl event: config:0-7 selects the event, 0 being the
 * trace event; for it config:8-15 is a mask of (1 << PERF_DTL_KIND_*) to log (0:
 * all kinds), config:16 (PERF_DTL_CONFIG_FULL) asks for records of
 * PERF_DTL_FORMAT_ENTRY rather than PERF_DTL_FORMAT_COMPACT, and
 * config1:0-31 is a minimum wait in microseconds (only dispatches that
 * waited at least that long are logged).  attr.sample_period
 * of a trace event is the poll interval in ns (0: the default).
 */
#define PERF_DTL_CONFIG_EVENT_MASK	0xffULL
#define PERF_DTL_CONFIG_KINDS_SHIFT	8
#define PERF_DTL_CONFIG_KINDS_MASK	(0xffULL << PERF_DTL_CONFIG_KINDS_SHIFT)
#define PERF_DTL_CONFIG_FULL		(1ULL << 16)
#define PERF_DTL_CONFIG1_MIN_WAIT_US	0xffffffffULL

#define PERF_DTL_EVENT_TRACE		0x00
#define PERF_DTL_EVENT_DISPATCHES	0x01
#define PERF_DTL_EVENT_PREEMPTIONS	0x02
#define PERF_DTL_EVENT_WAIT_NS	0x03
#define PERF_DTL_EVENT_STEAL_NS	0x04

#define PERF_DTL_POLL_DEFAULT_NS	10000000ULL	/* 10 ms */
#define PERF_DTL_POLL_MIN_NS		100000ULL	/* 100 us */
#define PERF_DTL_POLL_MAX_NS		1000000000ULL	/* 1 s */

/* The smallest AUX buffer a trace event takes, in pages. */
#define PERF_DTL_AUX_MIN_PAGES		2

#endif /* _UAPI_LINUX_PERF_DTL_H */
