// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the compatibility layer's steal records
 * (compat/dtl_compat_steal.h), built as dtl_compat_kunit.ko by the
 * out-of-tree build only, on any architecture.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "dtl_compat_steal.h"

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

static struct kunit_case dtl_compat_cases[] = {
	KUNIT_CASE(dtl_compat_test_kvm_steal),
	KUNIT_CASE(dtl_compat_test_pv_stolen),
	KUNIT_CASE(dtl_compat_test_steal_pcpu),
	{}
};

static struct kunit_suite dtl_compat_suite = {
	.name = "dtl_compat",
	.test_cases = dtl_compat_cases,
};

kunit_test_suite(dtl_compat_suite);

MODULE_DESCRIPTION("KUnit tests for dtl's compatibility layer");
MODULE_LICENSE("GPL");
