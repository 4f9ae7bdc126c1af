/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Dispatch Trace Log PMU: the record format of its AUX data.
 *
 * A dtl trace event fills its AUX buffer with struct perf_dtl_entry records,
 * PERF_DTL_ENTRY_SIZE bytes each, in the CPU's native byte order (a decoder of
 * a recording made with the other byte order swaps each field).  The buffer
 * never holds a partial record.  The PMU's sysfs "identifier" names the
 * format version: "dtl-<PERF_DTL_FORMAT_VERSION>".
 *
 * This header is shared by the kernel and perf (tools/include/uapi has a
 * copy that must stay identical).
 */
#ifndef _UAPI_LINUX_PERF_DTL_H
#define _UAPI_LINUX_PERF_DTL_H

#include <linux/types.h>

#define PERF_DTL_FORMAT_VERSION	1
#define PERF_DTL_ENTRY_SIZE		64

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
 * attr.config of a dtl event: config:0-7 selects the event, 0 being the
 * trace event; for it config:8-15 is a mask of (1 << PERF_DTL_KIND_*) to log (0:
 * all kinds) and config1:0-31 a minimum wait in microseconds (only
 * dispatches that waited at least that long are logged).  attr.sample_period
 * of a trace event is the poll interval in ns (0: the default).
 */
#define PERF_DTL_CONFIG_EVENT_MASK	0xffULL
#define PERF_DTL_CONFIG_KINDS_SHIFT	8
#define PERF_DTL_CONFIG_KINDS_MASK	(0xffULL << PERF_DTL_CONFIG_KINDS_SHIFT)
#define PERF_DTL_CONFIG1_MIN_WAIT_US	0xffffffffULL

#define PERF_DTL_EVENT_TRACE		0x00
#define PERF_DTL_EVENT_DISPATCHES	0x01
#define PERF_DTL_EVENT_PREEMPTIONS	0x02
#define PERF_DTL_EVENT_WAIT_NS	0x03
#define PERF_DTL_EVENT_STEAL_NS	0x04

#define PERF_DTL_POLL_DEFAULT_NS	10000000ULL	/* 10 ms */
#define PERF_DTL_POLL_MIN_NS		100000ULL	/* 100 us */
#define PERF_DTL_POLL_MAX_NS		1000000000ULL	/* 1 s */

#endif /* _UAPI_LINUX_PERF_DTL_H */
