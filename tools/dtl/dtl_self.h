/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dtl_self.h: read a dtl counting event of the calling task without a
 * system call, from the event's perf mmap page.
 *
 * For a dtl event the kernel keeps the whole count in the page's "offset"
 * field and sets "index" to 0: there is no hardware counter to add.  The
 * count is updated whenever the task is switched out, which is also when
 * read() would see it change, so for a task reading its own event the two
 * agree at every moment.  The page's "lock" is a seqlock: retry while it
 * changes (the kernel updates it on the task's own CPU, so a compiler
 * barrier is enough between the loads).  Map the event's first page
 * (PROT_READ) after opening it, with perf_event_open() or libperf's
 * perf_evsel__mmap().
 */
#ifndef __DTL_SELF_H
#define __DTL_SELF_H

#include <stdint.h>
#include <linux/perf_event.h>

/* The page changes under the reader: load each field once. */
#define DTL_LOAD(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)

struct dtl_self_value {
	uint64_t value;		/* the count */
	uint64_t enabled;	/* time enabled, ns, at the last update */
	uint64_t running;	/* time running, ns, at the last update */
};

/*
 * Read @pc, the mmap page of a dtl counting event.  Returns 0, or -1 if
 * the page is not one of a dtl counter (a hardware counter index is set).
 */
static inline int dtl_self_read(const struct perf_event_mmap_page *pc,
				struct dtl_self_value *v)
{
	uint32_t seq, idx;

	do {
		seq = DTL_LOAD(pc->lock);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		idx = DTL_LOAD(pc->index);
		v->value = DTL_LOAD(pc->offset);
		v->enabled = DTL_LOAD(pc->time_enabled);
		v->running = DTL_LOAD(pc->time_running);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	} while (DTL_LOAD(pc->lock) != seq);

	return idx ? -1 : 0;
}

#endif /* __DTL_SELF_H */
