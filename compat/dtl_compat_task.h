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

/* 64 bytes: a slot's address is a shift of its index. */
struct dtl_task_slot {
	unsigned long		seq;
	unsigned long		gen;	/* dtl_hook_gen when written */
	u32			pid;
	u64			start;	/* the task's start_time */
	struct dtl_block_info	last;
} __aligned(64);

/* 1 << DTL_TASK_BITS slots, from dtl_task_init() to dtl_task_exit(). */
extern struct dtl_task_slot *dtl_task_table;

static inline void dtl_task_left(struct task_struct *p, unsigned long gen,
				 const struct dtl_block_info *info)
{
	u32 pid = task_pid_nr(p);
	struct dtl_task_slot *s = &dtl_task_table[hash_32(pid, DTL_TASK_BITS)];
	unsigned long seq = READ_ONCE(s->seq);

	/* Another CPU is writing this slot: drop ours, readers see unknown. */
	if ((seq & 1) || !try_cmpxchg(&s->seq, &seq, seq + 1))
		return;
	WRITE_ONCE(s->pid, pid);
	WRITE_ONCE(s->start, p->start_time);
	WRITE_ONCE(s->gen, gen);
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
	unsigned long sgen;
	u64 start;
	u32 spid;

	if (seq & 1)
		return false;
	spid = READ_ONCE(s->pid);
	start = READ_ONCE(s->start);
	sgen = READ_ONCE(s->gen);
	info->blocked = READ_ONCE(s->last.blocked);
	info->time = READ_ONCE(s->last.time);
	info->run_delay = READ_ONCE(s->last.run_delay);
	/* Read the data before checking that no writer changed it. */
	smp_rmb();
	return READ_ONCE(s->seq) == seq && spid == pid &&
	       start == p->start_time && sgen == gen;
}

#endif /* __DRIVERS_PERF_DTL_TASK_H */
