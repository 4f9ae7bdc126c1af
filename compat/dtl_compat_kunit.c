// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the compatibility layer's steal records
 * (compat/dtl_compat_steal.h) and per-task table (compat/dtl_compat_task.h,
 * which the out-of-tree build puts in place of dtl_task.h), built as
 * dtl_compat_kunit.ko by the out-of-tree build only, on any architecture.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "dtl_compat_steal.h"
#include "../drivers/perf/dtl/dtl_task.h"

/* KVM steal time: only an even, unchanged version gives a reading. */
static void dtl_compat_test_kvm_steal(struct kunit *test)
{
	struct dtl_compat_kvm_steal_time st = { .steal = 123456789, .version = 4 };
	u64 ns = 0;

	KUNIT_EXPECT_TRUE(test, dtl_compat_kvm_steal_read(&st, &ns));
	KUNIT_EXPECT_EQ(test, ns, 123456789ULL);

	/* The host is updating it (odd version): no reading, ns untouched. */
	st.version = 5;
	st.steal = 1;
	ns = 42;
	KUNIT_EXPECT_FALSE(test, dtl_compat_kvm_steal_read(&st, &ns));
	KUNIT_EXPECT_EQ(test, ns, 42ULL);

	/* A version that wrapped around is still just a version. */
	st.version = 0;
	st.steal = U64_MAX;
	KUNIT_EXPECT_TRUE(test, dtl_compat_kvm_steal_read(&st, &ns));
	KUNIT_EXPECT_EQ(test, ns, U64_MAX);
}

/* arm64 stolen time: revision 0 only, little endian. */
static void dtl_compat_test_pv_stolen(struct kunit *test)
{
	struct dtl_compat_pv_stolen_time st = {
		.revision = cpu_to_le32(0),
		.stolen_time = cpu_to_le64(0x0102030405060708ULL),
	};
	u64 ns = 0;

	KUNIT_EXPECT_TRUE(test, dtl_compat_pv_stolen_read(&st, &ns));
	KUNIT_EXPECT_EQ(test, ns, 0x0102030405060708ULL);

	st.revision = cpu_to_le32(1);
	ns = 7;
	KUNIT_EXPECT_FALSE(test, dtl_compat_pv_stolen_read(&st, &ns));
	KUNIT_EXPECT_EQ(test, ns, 7ULL);
	KUNIT_EXPECT_EQ(test, sizeof(st), (size_t)64);
}

/*
 * A per-CPU steal record is believed only at the offset the first CPU had:
 * an address that is not the same per-CPU variable is refused.
 */
static void dtl_compat_test_steal_pcpu(struct kunit *test)
{
	struct dtl_compat_steal_pcpu p = {};

	KUNIT_EXPECT_TRUE(test, dtl_compat_steal_pcpu_ok(&p, 0x10040, 0x10000));
	KUNIT_EXPECT_TRUE(test, dtl_compat_steal_pcpu_ok(&p, 0x50040, 0x50000));
	/* Another offset in the same CPU's area, or another CPU's record. */
	KUNIT_EXPECT_FALSE(test, dtl_compat_steal_pcpu_ok(&p, 0x90080, 0x90000));
	KUNIT_EXPECT_FALSE(test, dtl_compat_steal_pcpu_ok(&p, 0x10040, 0x90000));
	/* An area below the record's first CPU: the offset wraps, refused. */
	KUNIT_EXPECT_FALSE(test, dtl_compat_steal_pcpu_ok(&p, 0x40, 0x90000));
	KUNIT_EXPECT_TRUE(test, dtl_compat_steal_pcpu_ok(&p, 0x90040, 0x90000));
}

/* This module's own table, which its calls of the accessors use. */
struct dtl_task_slot dtl_task_table[1 << DTL_TASK_BITS];

static struct task_struct *dtl_compat_task(struct kunit *test, pid_t pid,
					   u64 start)
{
	struct task_struct *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->pid = pid;
	p->start_time = start;
	return p;
}

/*
 * A task finds how it left in its slot while the probe's registration
 * (the generation) is the same, and a task that reuses its pid does not.
 */
static void dtl_compat_test_task_slot(struct kunit *test)
{
	struct dtl_block_info in = {
		.time = 1000, .run_delay = 77, .blocked = true,
	};
	struct task_struct *p = dtl_compat_task(test, 4242, 5000);
	struct task_struct *reuse = dtl_compat_task(test, 4242, 6000);
	struct dtl_block_info out = {};

	dtl_task_left(p, 3, &in);
	KUNIT_ASSERT_TRUE(test, dtl_task_last(p, 3, &out));
	KUNIT_EXPECT_EQ(test, out.time, 1000ULL);
	KUNIT_EXPECT_EQ(test, out.run_delay, 77ULL);
	KUNIT_EXPECT_TRUE(test, out.blocked);

	/* Written under another registration of the probe: unknown. */
	KUNIT_EXPECT_FALSE(test, dtl_task_last(p, 4, &out));
	/* The key keeps the generation's low 32 bits, the top one too. */
	KUNIT_EXPECT_FALSE(test, dtl_task_last(p, 3 + (1UL << 31), &out));
	/* Another task with the same pid. */
	KUNIT_EXPECT_FALSE(test, dtl_task_last(reuse, 3, &out));

	/* Written again: the last write wins. */
	in.blocked = false;
	in.run_delay = 88;
	dtl_task_left(p, 4, &in);
	KUNIT_ASSERT_TRUE(test, dtl_task_last(p, 4, &out));
	KUNIT_EXPECT_EQ(test, out.run_delay, 88ULL);
	KUNIT_EXPECT_FALSE(test, out.blocked);
	KUNIT_EXPECT_FALSE(test, dtl_task_last(p, 3, &out));
}

/*
 * Two pids that share a slot push each other out; a slot that another CPU
 * is writing (odd sequence) is neither read nor written.
 */
static void dtl_compat_test_task_busy(struct kunit *test)
{
	struct dtl_block_info in = { .time = 1, .run_delay = 2 };
	struct task_struct *a = dtl_compat_task(test, 100, 10);
	struct dtl_block_info out = {};
	struct dtl_task_slot *s;
	struct task_struct *b;
	unsigned long seq;
	pid_t pid = 101;

	while (hash_32(pid, DTL_TASK_BITS) != hash_32(100, DTL_TASK_BITS))
		pid++;
	b = dtl_compat_task(test, pid, 20);
	s = &dtl_task_table[hash_32(100, DTL_TASK_BITS)];

	dtl_task_left(a, 1, &in);
	dtl_task_left(b, 1, &in);
	KUNIT_EXPECT_FALSE(test, dtl_task_last(a, 1, &out));
	KUNIT_EXPECT_TRUE(test, dtl_task_last(b, 1, &out));

	/* Another CPU is writing the slot. */
	seq = s->seq;
	KUNIT_ASSERT_EQ(test, seq & 1, 0UL);
	s->seq = seq + 1;
	KUNIT_EXPECT_FALSE(test, dtl_task_last(b, 1, &out));
	dtl_task_left(a, 1, &in);
	KUNIT_EXPECT_EQ(test, s->seq, seq + 1);
	/* It is done: the slot is still b's, a's write was dropped. */
	s->seq = seq + 2;
	KUNIT_EXPECT_TRUE(test, dtl_task_last(b, 1, &out));
	KUNIT_EXPECT_FALSE(test, dtl_task_last(a, 1, &out));
}

static struct kunit_case dtl_compat_cases[] = {
	KUNIT_CASE(dtl_compat_test_kvm_steal),
	KUNIT_CASE(dtl_compat_test_pv_stolen),
	KUNIT_CASE(dtl_compat_test_steal_pcpu),
	KUNIT_CASE(dtl_compat_test_task_slot),
	KUNIT_CASE(dtl_compat_test_task_busy),
	{}
};

static struct kunit_suite dtl_compat_suite = {
	.name = "dtl_compat",
	.test_cases = dtl_compat_cases,
};

kunit_test_suite(dtl_compat_suite);

MODULE_DESCRIPTION("KUnit tests for dtl's compatibility layer");
MODULE_LICENSE("GPL");
