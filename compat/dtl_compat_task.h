/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dtl's per-task state for a kernel without a perf_ctx_data slot of its
 * own (Linux 6.12, or a 7.3 kernel without the series' "perf: Give each
 * user of a task's PMU specific data its own"): the out-of-tree build
 * (testbed/build-module.sh, dkms.conf) puts this file in place of
 * drivers/perf/dtl/dtl_task.h, with the same inline accessors, and builds
 * compat/dtl_compat_task.c in place of dtl_task.c (testbed/module.Kbuild).
 *
 * A lossy, lock-free table from a task's pid to how it last left a CPU.
 * A slot names its task by pid and start time, so a reused pid finds
 * nothing of its predecessor.  A slot is owned by whoever moves its
 * sequence from even to odd; readers retry nothing, they accept
 * "unknown", as do writers that find the slot busy.  Two tasks whose pids
 * share a slot push each other out: each is then unknown at its next
 * dispatch, where the series' per-task data always knows it (see
 * Documentation/admin-guide/perf/dtl.rst, "Kernels and accuracy").
 */
#ifndef __DRIVERS_PERF_DTL_TASK_H
#define __DRIVERS_PERF_DTL_TASK_H

#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/sched.h>

#include "dtl.h"

#define DTL_TASK_BITS		13

/*
 * 64 bytes: a slot's address is a shift of its index.  @key is the task's
 * pid and, above it, the low half of dtl_hook_gen when written: a slot
 * written under an earlier registration of the probe names no task (the
 * half wraps after 2^32 registrations, each a second apart at least:
 * DTL_HOOK_LINGER).  One word, compared at once.
 */
struct dtl_task_slot {
	unsigned long		seq;
	u64			key;
	u64			start;	/* the task's start_time */
	struct dtl_block_info	last;
} __aligned(64);

extern struct dtl_task_slot dtl_task_table[1 << DTL_TASK_BITS];

static inline u64 dtl_task_key(u32 pid, unsigned long gen)
{
	return (u64)lower_32_bits(gen) << 32 | pid;
}

static inline void dtl_task_left(struct task_struct *p, unsigned long gen,
				 const struct dtl_block_info *info)
{
	u32 pid = task_pid_nr(p);
	struct dtl_task_slot *s = &dtl_task_table[hash_32(pid, DTL_TASK_BITS)];
	/* If another CPU is writing the slot (odd), the cmpxchg fails. */
	unsigned long seq = READ_ONCE(s->seq) & ~1UL;

	/* The slot is busy: drop ours, readers see unknown. */
	if (!try_cmpxchg(&s->seq, &seq, seq + 1))
		return;
	WRITE_ONCE(s->key, dtl_task_key(pid, gen));
	WRITE_ONCE(s->start, p->start_time);
	WRITE_ONCE(s->last.blocked, info->blocked);
	WRITE_ONCE(s->last.time, info->time);
	WRITE_ONCE(s->last.run_delay, info->run_delay);
	/* Pairs with smp_load_acquire() in dtl_task_last(): data, then seq. */
	smp_store_release(&s->seq, seq + 2);
}

static inline bool dtl_task_last(struct task_struct *p, unsigned long gen,
				 struct dtl_block_info *info)
{
	u32 pid = task_pid_nr(p);
	struct dtl_task_slot *s = &dtl_task_table[hash_32(pid, DTL_TASK_BITS)];
	/* Pairs with smp_store_release() in dtl_task_left(). */
	unsigned long seq = smp_load_acquire(&s->seq);
	u64 key, start;

	if (seq & 1)
		return false;
	key = READ_ONCE(s->key);
	start = READ_ONCE(s->start);
	info->blocked = READ_ONCE(s->last.blocked);
	info->time = READ_ONCE(s->last.time);
	info->run_delay = READ_ONCE(s->last.run_delay);
	/* Read the data before checking that no writer changed it. */
	smp_rmb();
	return READ_ONCE(s->seq) == seq && key == dtl_task_key(pid, gen) &&
	       start == p->start_time;
}

#endif /* __DRIVERS_PERF_DTL_TASK_H */
