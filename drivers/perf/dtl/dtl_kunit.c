// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the pure logic of the Dispatch Trace Log PMU.
 */
#include <kunit/test.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "dtl.h"

static void dtl_attr(struct perf_event_attr *attr, u64 config)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->config = config;
}

static int dtl_parse(const struct perf_event_attr *attr)
{
	struct dtl_filter f;
	u64 period;

	return dtl_parse_attr(attr, &f, &period);
}

static void dtl_test_counter_of_event(struct kunit *test)
{
	struct perf_event_attr attr;

	dtl_attr(&attr, PERF_DTL_EVENT_DISPATCHES);
	KUNIT_EXPECT_EQ(test, dtl_parse(&attr), DTL_CNT_DISPATCHES);
	dtl_attr(&attr, PERF_DTL_EVENT_PREEMPTIONS);
	KUNIT_EXPECT_EQ(test, dtl_parse(&attr), DTL_CNT_PREEMPTIONS);
	dtl_attr(&attr, PERF_DTL_EVENT_WAIT_NS);
	KUNIT_EXPECT_EQ(test, dtl_parse(&attr), DTL_CNT_WAIT_NS);
	dtl_attr(&attr, PERF_DTL_EVENT_STEAL_NS);
	KUNIT_EXPECT_EQ(test, dtl_parse(&attr), DTL_CNT_STEAL_NS);
}

static void dtl_test_bad_config(struct kunit *test)
{
	struct perf_event_attr attr;

	dtl_attr(&attr, PERF_DTL_EVENT_STEAL_NS + 1);
	KUNIT_EXPECT_EQ(test, dtl_parse(&attr), -EINVAL);
	dtl_attr(&attr, PERF_DTL_EVENT_DISPATCHES | BIT_ULL(8));
	KUNIT_EXPECT_EQ(test, dtl_parse(&attr), -EINVAL);
	dtl_attr(&attr, PERF_DTL_EVENT_DISPATCHES | BIT_ULL(63));
	KUNIT_EXPECT_EQ(test, dtl_parse(&attr), -EINVAL);
	dtl_attr(&attr, PERF_DTL_EVENT_DISPATCHES);
	attr.config1 = 1;
	KUNIT_EXPECT_EQ(test, dtl_parse(&attr), -EINVAL);
	dtl_attr(&attr, PERF_DTL_EVENT_DISPATCHES);
	attr.config2 = 1;
	KUNIT_EXPECT_EQ(test, dtl_parse(&attr), -EINVAL);
}

static void dtl_test_unsupported(struct kunit *test)
{
	struct perf_event_attr attr;

	dtl_attr(&attr, PERF_DTL_EVENT_WAIT_NS);
	attr.sample_period = 1000;
	KUNIT_EXPECT_EQ(test, dtl_parse(&attr), -EOPNOTSUPP);
	dtl_attr(&attr, PERF_DTL_EVENT_WAIT_NS);
	attr.freq = 1;
	KUNIT_EXPECT_EQ(test, dtl_parse(&attr), -EOPNOTSUPP);
	dtl_attr(&attr, PERF_DTL_EVENT_WAIT_NS);
	attr.precise_ip = 2;
	KUNIT_EXPECT_EQ(test, dtl_parse(&attr), -EOPNOTSUPP);
	dtl_attr(&attr, PERF_DTL_EVENT_WAIT_NS);
	attr.exclude_user = 1;
	KUNIT_EXPECT_EQ(test, dtl_parse(&attr), -EOPNOTSUPP);
	/* Left to event_init, which knows whether the target is a user task. */
	dtl_attr(&attr, PERF_DTL_EVENT_WAIT_NS);
	attr.exclude_kernel = 1;
	KUNIT_EXPECT_EQ(test, dtl_parse(&attr), DTL_CNT_WAIT_NS);
	dtl_attr(&attr, PERF_DTL_EVENT_WAIT_NS);
	attr.exclude_idle = 1;
	KUNIT_EXPECT_EQ(test, dtl_parse(&attr), -EOPNOTSUPP);
	/* perf's default: accepted. */
	dtl_attr(&attr, PERF_DTL_EVENT_WAIT_NS);
	attr.exclude_guest = 1;
	KUNIT_EXPECT_EQ(test, dtl_parse(&attr), DTL_CNT_WAIT_NS);
	/* perf's ":u", and its fallback at perf_event_paranoid 2. */
	dtl_attr(&attr, PERF_DTL_EVENT_WAIT_NS);
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.exclude_guest = 1;
	KUNIT_EXPECT_EQ(test, dtl_parse(&attr), DTL_CNT_WAIT_NS);
}

static void dtl_test_wait(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, dtl_wait_ns(0, 5000), 0ULL);
	KUNIT_EXPECT_EQ(test, dtl_wait_ns(1000, 5000), 4000ULL);
	KUNIT_EXPECT_EQ(test, dtl_wait_ns(5000, 5000), 0ULL);
	/* A stamp from a CPU whose clock runs a little ahead. */
	KUNIT_EXPECT_EQ(test, dtl_wait_ns(5001, 5000), 0ULL);
	KUNIT_EXPECT_EQ(test, dtl_wait_ns(1, U64_MAX), U64_MAX - 1);
}

/*
 * A record's ran_ns: from the run's start if it began while the CPU had
 * its log, else from when the log appeared (the probe read no clock).
 */
static void dtl_test_ran(struct kunit *test)
{
	/* Timed while the log existed. */
	KUNIT_EXPECT_EQ(test, dtl_ran_ns(9000, 4000, 1000), 5000ULL);
	/* Began with no log (no clock read): since the log appeared. */
	KUNIT_EXPECT_EQ(test, dtl_ran_ns(9000, 0, 6000), 3000ULL);
	/* Timed during an earlier log's life: since this log appeared. */
	KUNIT_EXPECT_EQ(test, dtl_ran_ns(9000, 2000, 6000), 3000ULL);
	/* The log's stamp, from another CPU's clock, is a little ahead. */
	KUNIT_EXPECT_EQ(test, dtl_ran_ns(9000, 0, 9001), 0ULL);
	KUNIT_EXPECT_EQ(test, dtl_ran_ns(9000, 9000, 1000), 0ULL);
}

static void dtl_test_trace_attr(struct kunit *test)
{
	struct perf_event_attr attr;
	struct dtl_filter f;
	u64 period;

	dtl_attr(&attr, PERF_DTL_EVENT_TRACE);
	KUNIT_EXPECT_EQ(test, dtl_parse_attr(&attr, &f, &period), DTL_IDX_TRACE);
	KUNIT_EXPECT_EQ(test, f.kinds, (u32)DTL_ALL_KINDS);
	KUNIT_EXPECT_EQ(test, period, PERF_DTL_POLL_DEFAULT_NS);
	KUNIT_EXPECT_EQ(test, f.min_wait_ns, 0ULL);
	KUNIT_EXPECT_FALSE(test, f.full);

	/* dtl/all,full/: records of the 64-byte format */
	dtl_attr(&attr, PERF_DTL_EVENT_TRACE | PERF_DTL_CONFIG_FULL);
	attr.sample_period = PERF_DTL_POLL_DEFAULT_NS;
	KUNIT_EXPECT_EQ(test, dtl_parse_attr(&attr, &f, &period), DTL_IDX_TRACE);
	KUNIT_EXPECT_TRUE(test, f.full);
	dtl_attr(&attr, PERF_DTL_EVENT_DISPATCHES | PERF_DTL_CONFIG_FULL);
	KUNIT_EXPECT_EQ(test, dtl_parse_attr(&attr, &f, &period), -EINVAL);

	/* dtl/trace_block,min_wait_us=200/, polled every millisecond */
	dtl_attr(&attr, PERF_DTL_EVENT_TRACE |
		 (BIT(PERF_DTL_KIND_BLOCK) << PERF_DTL_CONFIG_KINDS_SHIFT));
	attr.config1 = 200;
	attr.sample_period = 1000000;
	KUNIT_EXPECT_EQ(test, dtl_parse_attr(&attr, &f, &period), DTL_IDX_TRACE);
	KUNIT_EXPECT_EQ(test, f.kinds, (u32)(BIT(PERF_DTL_KIND_BLOCK) |
					     BIT(PERF_DTL_KIND_LOST)));
	KUNIT_EXPECT_EQ(test, f.min_wait_ns, 200000ULL);
	KUNIT_EXPECT_EQ(test, period, 1000000ULL);

	/* Poll periods out of range, frequency mode, unknown bits. */
	attr.sample_period = PERF_DTL_POLL_MIN_NS - 1;
	KUNIT_EXPECT_EQ(test, dtl_parse_attr(&attr, &f, &period), -EINVAL);
	attr.sample_period = PERF_DTL_POLL_MAX_NS + 1;
	KUNIT_EXPECT_EQ(test, dtl_parse_attr(&attr, &f, &period), -EINVAL);
	attr.sample_period = 0;
	attr.freq = 1;
	KUNIT_EXPECT_EQ(test, dtl_parse_attr(&attr, &f, &period), -EINVAL);
	dtl_attr(&attr, PERF_DTL_EVENT_TRACE | BIT_ULL(17));
	KUNIT_EXPECT_EQ(test, dtl_parse_attr(&attr, &f, &period), -EINVAL);
	dtl_attr(&attr, PERF_DTL_EVENT_TRACE | (0x80ULL << PERF_DTL_CONFIG_KINDS_SHIFT));
	KUNIT_EXPECT_EQ(test, dtl_parse_attr(&attr, &f, &period), -EINVAL);
	dtl_attr(&attr, PERF_DTL_EVENT_TRACE);
	attr.config1 = BIT_ULL(32);
	KUNIT_EXPECT_EQ(test, dtl_parse_attr(&attr, &f, &period), -EINVAL);
	/* Records carry perf's default clock: another clock is refused. */
	dtl_attr(&attr, PERF_DTL_EVENT_TRACE);
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	KUNIT_EXPECT_EQ(test, dtl_parse_attr(&attr, &f, &period), -EINVAL);
	dtl_attr(&attr, PERF_DTL_EVENT_DISPATCHES);
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	KUNIT_EXPECT_EQ(test, dtl_parse_attr(&attr, &f, &period),
			DTL_CNT_DISPATCHES);
	dtl_attr(&attr, PERF_DTL_EVENT_TRACE);
	attr.sample_period = PERF_DTL_POLL_DEFAULT_NS;
	attr.exclude_user = 1;
	attr.exclude_kernel = 1;
	KUNIT_EXPECT_EQ(test, dtl_parse_attr(&attr, &f, &period), -EOPNOTSUPP);
	attr.exclude_user = 0;
	KUNIT_EXPECT_EQ(test, dtl_parse_attr(&attr, &f, &period), DTL_IDX_TRACE);
}

static void dtl_entry_init(struct perf_dtl_entry *e, u8 kind, u32 prev, u32 next,
			   u8 flags, u64 wait)
{
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->prev_tid = prev;
	e->next_tid = next;
	e->flags = flags;
	e->wait_ns = wait;
}

static void dtl_test_filter(struct kunit *test)
{
	struct dtl_filter f = { .kinds = BIT(PERF_DTL_KIND_PREEMPT) |
					 BIT(PERF_DTL_KIND_LOST) };
	struct perf_dtl_entry e;
	u32 running;

	dtl_entry_init(&e, PERF_DTL_KIND_PREEMPT, 10, 11, 0, 5);
	KUNIT_EXPECT_TRUE(test, dtl_filter_match(&f, &e, NULL));
	dtl_entry_init(&e, PERF_DTL_KIND_BLOCK, 10, 11, 0, 5);
	KUNIT_EXPECT_FALSE(test, dtl_filter_match(&f, &e, NULL));
	dtl_entry_init(&e, PERF_DTL_KIND_LOST, 0, 0, 0, 7);
	KUNIT_EXPECT_TRUE(test, dtl_filter_match(&f, &e, NULL));

	/* Minimum wait. */
	f.min_wait_ns = 6;
	dtl_entry_init(&e, PERF_DTL_KIND_PREEMPT, 10, 11, 0, 5);
	KUNIT_EXPECT_FALSE(test, dtl_filter_match(&f, &e, NULL));
	e.wait_ns = 6;
	KUNIT_EXPECT_TRUE(test, dtl_filter_match(&f, &e, NULL));

	/* exclude_kernel: a switch between kernel threads is dropped. */
	f.min_wait_ns = 0;
	f.no_kthreads = true;
	dtl_entry_init(&e, PERF_DTL_KIND_PREEMPT, 1, 2,
		       PERF_DTL_F_PREV_KTHREAD | PERF_DTL_F_NEXT_KTHREAD, 0);
	KUNIT_EXPECT_FALSE(test, dtl_filter_match(&f, &e, NULL));
	e.flags = PERF_DTL_F_PREV_KTHREAD;
	KUNIT_EXPECT_TRUE(test, dtl_filter_match(&f, &e, NULL));

	/*
	 * A per-task window: every switch is kept whoever it names (the
	 * window holds only switches of the event's tasks), and the task on
	 * the CPU follows the switches, filtered out or not.
	 */
	f.kinds = BIT(PERF_DTL_KIND_MIGRATE) | BIT(PERF_DTL_KIND_PREEMPT);
	f.no_kthreads = false;
	running = 42;
	dtl_entry_init(&e, PERF_DTL_KIND_MIGRATE, 42, 0, 0, 0);
	e.from_cpu = 0;
	e.to_cpu = 1;
	KUNIT_EXPECT_TRUE(test, dtl_filter_match(&f, &e, &running));
	e.prev_tid = 43;
	KUNIT_EXPECT_FALSE(test, dtl_filter_match(&f, &e, &running));
	dtl_entry_init(&e, PERF_DTL_KIND_BLOCK, 42, 43, 0, 0);
	KUNIT_EXPECT_FALSE(test, dtl_filter_match(&f, &e, &running));
	KUNIT_EXPECT_EQ(test, running, 43U);
	dtl_entry_init(&e, PERF_DTL_KIND_MIGRATE, 43, 0, 0, 0);
	KUNIT_EXPECT_TRUE(test, dtl_filter_match(&f, &e, &running));
	dtl_entry_init(&e, PERF_DTL_KIND_PREEMPT, 43, 7, 0, 0);
	KUNIT_EXPECT_TRUE(test, dtl_filter_match(&f, &e, &running));
	KUNIT_EXPECT_EQ(test, running, 7U);
	/* A CPU-wide event keeps every migration. */
	dtl_entry_init(&e, PERF_DTL_KIND_MIGRATE, 99, 0, 0, 0);
	KUNIT_EXPECT_TRUE(test, dtl_filter_match(&f, &e, NULL));
}

/*
 * blocked_ns: the time off the CPU less the waits since the wakeup, on
 * this run queue and on those the task was moved away from.
 */
static void dtl_test_blocked(struct kunit *test)
{
	struct dtl_block_info last = {
		.time = 1000, .run_delay = 50, .blocked = true,
	};
	u64 ns = 0;

	/* Blocked at 1000, queued at 5000, dispatched at 6000: 4000. */
	KUNIT_EXPECT_TRUE(test, dtl_blocked_ns(&last, 50, 5000, 6000, &ns));
	KUNIT_EXPECT_EQ(test, ns, 4000ULL);
	/* Queued elsewhere at 3000, moved here at 5000: slept 2000. */
	KUNIT_EXPECT_TRUE(test, dtl_blocked_ns(&last, 2050, 5000, 6000, &ns));
	KUNIT_EXPECT_EQ(test, ns, 2000ULL);
	/* Preempted: no sleep, known. */
	last.blocked = false;
	KUNIT_EXPECT_TRUE(test, dtl_blocked_ns(&last, 9999, 0, 6000, &ns));
	KUNIT_EXPECT_EQ(test, ns, 0ULL);
	/* Unknown: no queue stamp, clocks backwards, waits too long. */
	last.blocked = true;
	KUNIT_EXPECT_FALSE(test, dtl_blocked_ns(&last, 50, 0, 6000, &ns));
	KUNIT_EXPECT_FALSE(test, dtl_blocked_ns(&last, 50, 7000, 6000, &ns));
	KUNIT_EXPECT_FALSE(test, dtl_blocked_ns(&last, 50, 500, 900, &ns));
	KUNIT_EXPECT_FALSE(test, dtl_blocked_ns(&last, 40, 5000, 6000, &ns));
	KUNIT_EXPECT_FALSE(test, dtl_blocked_ns(&last, 4550, 5000, 6000, &ns));
}

static void dtl_test_waited(struct kunit *test)
{
	struct dtl_block_info last = {
		.time = 1000, .run_delay = 50, .blocked = true,
	};

	/* Woken and queued here only: the wait on this queue. */
	KUNIT_EXPECT_EQ(test, dtl_waited_ns(&last, 50, 1000, 6000), 1000ULL);
	/* Queued 2000 on a CPU it was moved away from, then 1000 here. */
	KUNIT_EXPECT_EQ(test, dtl_waited_ns(&last, 2050, 1000, 6000), 3000ULL);
	/* run_delay went back: this queue's wait. */
	KUNIT_EXPECT_EQ(test, dtl_waited_ns(&last, 40, 250, 6000), 250ULL);
	/* Preempted at 1000: runnable since, whatever the stamps say. */
	last.blocked = false;
	KUNIT_EXPECT_EQ(test, dtl_waited_ns(&last, 12450, 250, 13650), 12650ULL);
	KUNIT_EXPECT_EQ(test, dtl_waited_ns(&last, 50, 0, 6000), 5000ULL);
	/* ... unless the clocks disagree. */
	KUNIT_EXPECT_EQ(test, dtl_waited_ns(&last, 50, 250, 900), 250ULL);
}

static void dtl_test_drain_interval(struct kunit *test)
{
	const u64 ms = 1000000;

	/* Up to a batch in a period: poll again in a period. */
	KUNIT_EXPECT_EQ(test, dtl_drain_interval(10 * ms, 0, 10 * ms), 10 * ms);
	KUNIT_EXPECT_EQ(test, dtl_drain_interval(10 * ms, DTL_DRAIN_BATCH,
						 10 * ms), 10 * ms);
	/* Four batches in 10 ms: a batch takes 2.5 ms at that rate. */
	KUNIT_EXPECT_EQ(test, dtl_drain_interval(10 * ms, 4 * DTL_DRAIN_BATCH,
						 10 * ms), 2500000ULL);
	/* Never sooner than DTL_DRAIN_RESUME_NS, nor later than the period. */
	KUNIT_EXPECT_EQ(test, dtl_drain_interval(10 * ms, 1000000, 10 * ms),
			DTL_DRAIN_RESUME_NS);
	KUNIT_EXPECT_EQ(test, dtl_drain_interval(PERF_DTL_POLL_MAX_NS * 10,
						 DTL_DRAIN_BATCH + 1,
						 10 * ms), 10 * ms);
	/* A period shorter than the resume delay wins. */
	KUNIT_EXPECT_EQ(test, dtl_drain_interval(ms, 1000000, 20000), 20000ULL);
}

static void dtl_test_drain_resume(struct kunit *test)
{
	/* Up to half a log behind: the usual pause. */
	KUNIT_EXPECT_EQ(test, dtl_drain_resume(0, 4096), DTL_DRAIN_RESUME_NS);
	KUNIT_EXPECT_EQ(test, dtl_drain_resume(2048, 4096), DTL_DRAIN_RESUME_NS);
	/* More: catch up before the log laps the reader. */
	KUNIT_EXPECT_EQ(test, dtl_drain_resume(2049, 4096), DTL_DRAIN_CATCHUP_NS);
	KUNIT_EXPECT_EQ(test, dtl_drain_resume(4096, 4096), DTL_DRAIN_CATCHUP_NS);
	/* Already lapped (the cursor is older than the log): still behind. */
	KUNIT_EXPECT_EQ(test, dtl_drain_resume(1ULL << 40, 4096),
			DTL_DRAIN_CATCHUP_NS);
	/* The smallest log. */
	KUNIT_EXPECT_EQ(test, dtl_drain_resume(32, 64), DTL_DRAIN_RESUME_NS);
	KUNIT_EXPECT_EQ(test, dtl_drain_resume(33, 64), DTL_DRAIN_CATCHUP_NS);
}

static void dtl_test_drain_next(struct kunit *test)
{
	const u64 ms = 1000000, log = 64 * DTL_LOG_BLOCK;

	/* Not cut, or cut with less than a block left: at the log's pace. */
	KUNIT_EXPECT_EQ(test, dtl_drain_next(0, log, 10 * ms, 3, 10 * ms),
			10 * ms);
	KUNIT_EXPECT_EQ(test, dtl_drain_next(DTL_LOG_BLOCK - 1, log, 10 * ms,
					     3, 10 * ms), 10 * ms);
	KUNIT_EXPECT_EQ(test, dtl_drain_next(DTL_LOG_BLOCK - 1, log, 10 * ms,
					     4 * DTL_DRAIN_BATCH, 10 * ms),
			2500000ULL);
	/* A block or more: soon, and sooner when the log would lap it. */
	KUNIT_EXPECT_EQ(test, dtl_drain_next(DTL_LOG_BLOCK, log, 10 * ms, 3,
					     10 * ms), DTL_DRAIN_RESUME_NS);
	KUNIT_EXPECT_EQ(test, dtl_drain_next(log / 2 + 1, log, 10 * ms, 3,
					     10 * ms), DTL_DRAIN_CATCHUP_NS);
	/* The smallest log, two blocks: a quarter of it is soon. */
	KUNIT_EXPECT_EQ(test, dtl_drain_next(DTL_LOG_BLOCK / 2, 2 * DTL_LOG_BLOCK,
					     10 * ms, 3, 10 * ms),
			DTL_DRAIN_RESUME_NS);
	KUNIT_EXPECT_EQ(test, dtl_drain_next(DTL_LOG_BLOCK / 2 - 1,
					     2 * DTL_LOG_BLOCK, 10 * ms, 3,
					     10 * ms), 10 * ms);
}

static void dtl_test_drain_due(struct kunit *test)
{
	const u64 ms = 1000000;

	/* A reader's deadline 4 ms away: poll then. */
	KUNIT_EXPECT_EQ(test, dtl_drain_due(14 * ms, 10 * ms), 4 * ms);
	/* Past or nearly: as after a pass out of budget, not at once. */
	KUNIT_EXPECT_EQ(test, dtl_drain_due(10 * ms, 10 * ms),
			DTL_DRAIN_RESUME_NS);
	KUNIT_EXPECT_EQ(test, dtl_drain_due(5 * ms, 10 * ms),
			DTL_DRAIN_RESUME_NS);
	KUNIT_EXPECT_EQ(test, dtl_drain_due(10 * ms + DTL_DRAIN_RESUME_NS,
					    10 * ms), DTL_DRAIN_RESUME_NS);
}

static void dtl_test_hold(struct kunit *test)
{
	const u64 ms = 1000000;

	/* Ten poll periods: 100 ms at the default poll period. */
	KUNIT_EXPECT_EQ(test, dtl_hold_ns(PERF_DTL_POLL_DEFAULT_NS), 100 * ms);
	KUNIT_EXPECT_EQ(test, dtl_hold_ns(PERF_DTL_POLL_MIN_NS), 1 * ms);
	/* No longer than the longest poll period. */
	KUNIT_EXPECT_EQ(test, dtl_hold_ns(200 * ms), PERF_DTL_POLL_MAX_NS);
	KUNIT_EXPECT_EQ(test, dtl_hold_ns(PERF_DTL_POLL_MAX_NS),
			PERF_DTL_POLL_MAX_NS);
}

static void dtl_test_steal_field(struct kunit *test)
{
	u8 flags = 0;

	KUNIT_EXPECT_EQ(test, dtl_steal_field(1234, &flags), 1234U);
	KUNIT_EXPECT_EQ(test, flags, 0);
	KUNIT_EXPECT_EQ(test, dtl_steal_field(U32_MAX - 1ULL, &flags),
			U32_MAX - 1);
	KUNIT_EXPECT_EQ(test, flags, 0);
	KUNIT_EXPECT_EQ(test, dtl_steal_field(1ULL << 40, &flags), U32_MAX);
	KUNIT_EXPECT_EQ(test, flags, PERF_DTL_F_STEAL_SATURATED);
}

static void dtl_test_entry_layout(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct perf_dtl_entry), (size_t)PERF_DTL_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, offsetof(struct perf_dtl_entry, time), (size_t)0);
	KUNIT_EXPECT_EQ(test, offsetof(struct perf_dtl_entry, seq), (size_t)8);
	KUNIT_EXPECT_EQ(test, offsetof(struct perf_dtl_entry, next_pid),
			offsetof(struct perf_dtl_entry, from_cpu));
	KUNIT_EXPECT_EQ(test, offsetof(struct perf_dtl_entry, wait_ns),
			offsetof(struct perf_dtl_entry, lost));
	KUNIT_EXPECT_EQ(test, offsetof(struct perf_dtl_entry, cpu), (size_t)62);
	KUNIT_EXPECT_EQ(test, sizeof(struct perf_dtl_long), (size_t)PERF_DTL_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, sizeof(struct perf_dtl_short), (size_t)PERF_DTL_SLOT_SIZE);
	KUNIT_EXPECT_EQ(test, offsetof(struct perf_dtl_long, time), (size_t)8);
	KUNIT_EXPECT_EQ(test, offsetof(struct perf_dtl_long, ran_ns), (size_t)56);
	KUNIT_EXPECT_EQ(test, offsetof(struct perf_dtl_short, next_pid),
			offsetof(struct perf_dtl_short, prev_pid));
	KUNIT_EXPECT_EQ(test, offsetof(struct perf_dtl_short, steal_ns), (size_t)28);
}

/* A switch record of @cpu, number @seq at @time, from task @prev to @next. */
static void dtl_switch_init(struct perf_dtl_entry *e, u16 cpu, u64 seq,
			    u64 time, u32 prev, u32 next)
{
	dtl_entry_init(e, PERF_DTL_KIND_PREEMPT, prev, next, 0, 1000);
	e->prev_pid = prev;
	e->next_pid = next;
	e->cpu = cpu;
	e->seq = seq;
	e->time = time;
	e->ran_ns = 5000;
	e->steal_ns = 7;
}

/* Encode @e after @s, check its size, and account for it. */
/*
 * The probe's choice of form: short only where the record follows on
 * from the log's record before it, as a reader decodes it, which is what
 * the AUX format asks of a short record (dtl_compact_follows()).
 */
static void dtl_test_log_form(struct kunit *test)
{
	struct dtl_compact s = { .valid = true, .have_next = true, .cpu = 1,
				 .next_pid = 10, .next_tid = 11, .seq = 99,
				 .time = 1000 };
	struct perf_dtl_entry e;
	u64 big = (u64)U32_MAX + 1;

	KUNIT_EXPECT_TRUE(test, dtl_log_follows(&s, 2000, 10, 11, 5, 6, 7));
	/* And so does the AUX format, for the same record. */
	dtl_switch_init(&e, 1, 100, 2000, 11, 12);
	e.prev_pid = 10;
	KUNIT_EXPECT_TRUE(test, dtl_compact_follows(&s, &e));
	/* Another prev (a switch the log did not see), or no switch before. */
	KUNIT_EXPECT_FALSE(test, dtl_log_follows(&s, 2000, 10, 12, 5, 6, 7));
	KUNIT_EXPECT_FALSE(test, dtl_log_follows(&s, 2000, 9, 11, 5, 6, 7));
	s.have_next = false;
	KUNIT_EXPECT_FALSE(test, dtl_log_follows(&s, 2000, 10, 11, 5, 6, 7));
	KUNIT_EXPECT_TRUE(test, dtl_log_follows_migrate(&s, 2000));
	s.have_next = true;
	/* A time delta or a field that does not fit 32 bits. */
	KUNIT_EXPECT_FALSE(test, dtl_log_follows(&s, 1000 + big, 10, 11, 5, 6, 7));
	KUNIT_EXPECT_TRUE(test, dtl_log_follows(&s, 1000ULL + U32_MAX, 10, 11, 5, 6, 7));
	KUNIT_EXPECT_FALSE(test, dtl_log_follows(&s, 999, 10, 11, 5, 6, 7));
	KUNIT_EXPECT_FALSE(test, dtl_log_follows(&s, 2000, 10, 11, big, 6, 7));
	KUNIT_EXPECT_FALSE(test, dtl_log_follows(&s, 2000, 10, 11, 5, big, 7));
	KUNIT_EXPECT_FALSE(test, dtl_log_follows(&s, 2000, 10, 11, 5, 6, big));
	KUNIT_EXPECT_FALSE(test, dtl_log_follows_migrate(&s, 1000 + big));
	e.ran_ns = big;
	KUNIT_EXPECT_FALSE(test, dtl_compact_follows(&s, &e));
	/* The log's first record. */
	s.valid = false;
	KUNIT_EXPECT_FALSE(test, dtl_log_follows(&s, 2000, 10, 11, 5, 6, 7));
	KUNIT_EXPECT_FALSE(test, dtl_log_follows_migrate(&s, 2000));
}

/* Write @e to @l as the probes do: in the form dtl_log_follows*() choose. */
static unsigned int dtl_test_log_put(struct dtl_log *l, struct perf_dtl_entry *e)
{
	bool mig = e->kind == PERF_DTL_KIND_MIGRATE;
	bool fits = mig ? dtl_log_follows_migrate(&l->last, e->time) :
			  dtl_log_follows(&l->last, e->time, e->prev_pid,
					  e->prev_tid, e->wait_ns,
					  e->blocked_ns, e->ran_ns);
	unsigned int len = fits ? PERF_DTL_SLOT_SIZE : PERF_DTL_ENTRY_SIZE;
	void *slot = dtl_log_slot(l, l->buf, len);

	e->seq = l->head;
	e->cpu = l->last.cpu;
	dtl_compact_write(&l->last, e, fits, slot);
	if (!mig) {
		l->last.have_next = true;
		l->last.next_pid = e->next_pid;
		l->last.next_tid = e->next_tid;
	}
	dtl_log_commit(l, len, e->time);
	return len;
}

#define DTL_TEST_LOG_RECS	600

/*
 * A log of two blocks, written as the probes write it, read back as the
 * drain reads it: every record as it was written, across the PAD slot
 * at the end of the ring; and a reader that the log lapped resumes at
 * the key of the oldest whole block and decodes on from there.
 */
static void dtl_test_log_rw(struct kunit *test)
{
	const unsigned int bytes = 2 * DTL_LOG_BLOCK;
	struct perf_dtl_entry *in, e;
	struct dtl_log_cursor c, k;
	unsigned int i, shorts = 0, pads = 0, keys = 0, resumes = 0, aligned = 0;
	struct dtl_log l = {};
	u64 block;

	in = kunit_kcalloc(test, DTL_TEST_LOG_RECS, sizeof(*in), GFP_KERNEL);
	l.buf = kunit_kzalloc(test, bytes, GFP_KERNEL);
	l.keys = kunit_kcalloc(test, bytes / DTL_LOG_BLOCK, sizeof(*l.keys),
			       GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, l.buf);
	KUNIT_ASSERT_NOT_NULL(test, l.keys);
	l.mask = bytes - 1;
	l.pad = U64_MAX;
	l.head = 1000;
	l.last.cpu = 2;
	dtl_log_key(&l);
	c.pos = l.pos;
	c.seq = l.head;
	c.st = l.last;

	/* Switches between tasks 1..3, a migration, a long run, now and then. */
	for (i = 0; i < DTL_TEST_LOG_RECS; i++) {
		u64 pos = l.pos;

		if (i % 7 == 3) {
			dtl_entry_init(&in[i], PERF_DTL_KIND_MIGRATE, 50 + i, 0,
				       PERF_DTL_F_PREV_KTHREAD, 0);
			in[i].prev_pid = 50;
			in[i].from_cpu = 2;
			in[i].to_cpu = 1;
		} else {
			u32 prev = i ? in[i - 1 - (i % 7 == 4)].next_tid : 1;

			dtl_switch_init(&in[i], 2, 0, 0, prev, 1 + (i % 3));
			in[i].next_tid = 1 + (i % 3);
			in[i].next_pid = in[i].next_tid;
			in[i].blocked_ns = i;
			/* Long, and a long one in the last slot of the ring. */
			if (i % 50 == 10 ||
			    (l.pos & l.mask) == l.mask + 1 - PERF_DTL_SLOT_SIZE)
				in[i].ran_ns = 5000000000ULL;
		}
		in[i].time = 1000000 + 1000ULL * i;
		if (dtl_test_log_put(&l, &in[i]) == PERF_DTL_SLOT_SIZE)
			shorts++;
		pads += l.pos - pos > PERF_DTL_ENTRY_SIZE;
		/* Read it back, one at a time as the drain may. */
		dtl_log_read(&l, &c, &e);
		KUNIT_EXPECT_EQ(test, memcmp(&e, &in[i], sizeof(e)), 0);
		KUNIT_EXPECT_EQ(test, c.pos, l.pos);
		KUNIT_EXPECT_EQ(test, c.seq, l.head);
		/*
		 * A reader lapped now resumes at a key of this lap, in the
		 * oldest block whole (also with the head at a block's start,
		 * whose key slot is that of the block a log before).
		 */
		block = dtl_log_resume_block(&l, l.pos);
		k = *dtl_log_key_of(&l, block);
		if (l.pos > bytes) {
			resumes++;
			aligned += !(l.pos % DTL_LOG_BLOCK);
			KUNIT_EXPECT_GE(test, block, l.pos - bytes);
			KUNIT_EXPECT_GE(test, k.pos, block);
			KUNIT_EXPECT_LT(test, k.pos, block + DTL_LOG_BLOCK);
		}
		/*
		 * The next record begins a block: its key is where a reader
		 * is after this one, as the drain's copy takes it.
		 */
		k = *dtl_log_key_of(&l, c.pos);
		if (k.pos == c.pos) {
			keys++;
			KUNIT_EXPECT_EQ(test, k.seq, c.seq);
			KUNIT_EXPECT_TRUE(test, dtl_compact_same(&k.st, &c.st));
		}
	}
	KUNIT_EXPECT_GT(test, resumes, 0U);
	KUNIT_EXPECT_GT(test, aligned, 0U);
	/* One key a block, but the few after a PAD slot. */
	KUNIT_EXPECT_GE(test, keys + pads, (unsigned int)(l.pos / DTL_LOG_BLOCK));
	/* Mostly short, and the ring wrapped with a PAD slot at its end. */
	KUNIT_EXPECT_GT(test, shorts, DTL_TEST_LOG_RECS * 3 / 4);
	KUNIT_EXPECT_GE(test, pads, 1U);
	KUNIT_EXPECT_GT(test, l.pos, 2ULL * bytes);

	/* A reader still at the first record was lapped long ago. */
	KUNIT_EXPECT_TRUE(test, dtl_log_lapped(&l, 0, l.pos));
	KUNIT_EXPECT_FALSE(test, dtl_log_lapped(&l, l.pos - bytes, l.pos));
	KUNIT_EXPECT_TRUE(test, dtl_log_lapped(&l, l.pos - bytes - 1, l.pos));
	block = dtl_log_resume_block(&l, l.pos);
	KUNIT_EXPECT_EQ(test, block % DTL_LOG_BLOCK, 0ULL);
	KUNIT_EXPECT_GE(test, block, l.pos - bytes);
	KUNIT_EXPECT_LE(test, block, l.pos - bytes + DTL_LOG_BLOCK);
	k = *dtl_log_key_of(&l, block);
	/* The key is of this lap, the first record of its block. */
	KUNIT_EXPECT_GE(test, k.pos, block);
	KUNIT_EXPECT_LT(test, k.pos, block + PERF_DTL_ENTRY_SIZE);
	KUNIT_ASSERT_GE(test, k.seq, 1000ULL);
	KUNIT_ASSERT_LT(test, k.seq, 1000ULL + DTL_TEST_LOG_RECS);
	/* From it, every record to the end decodes as it was written. */
	for (i = k.seq - 1000; i < DTL_TEST_LOG_RECS; i++) {
		dtl_log_read(&l, &k, &e);
		KUNIT_EXPECT_EQ(test, memcmp(&e, &in[i], sizeof(e)), 0);
	}
	KUNIT_EXPECT_EQ(test, k.pos, l.pos);
	KUNIT_EXPECT_TRUE(test, dtl_compact_same(&k.st, &l.last));
}

/*
 * The header that begins each AUX transaction stands out in either
 * format: where a format 2 record has its form, and where a format 1
 * record has its kind, it has values no record has.
 */
static void dtl_test_header(struct kunit *test)
{
	union {
		struct perf_dtl_header	hdr;
		struct perf_dtl_entry	e;
		struct perf_dtl_long	l;
		u8			b[PERF_DTL_HEADER_SIZE];
	} u;
	unsigned int format, i;

	for (format = PERF_DTL_FORMAT_ENTRY;
	     format <= PERF_DTL_FORMAT_COMPACT; format++) {
		memset(&u, 0xa5, sizeof(u));
		dtl_header_write(&u, format);
		KUNIT_EXPECT_EQ(test, u.hdr.format, format);
		KUNIT_EXPECT_EQ(test, u.hdr.size, PERF_DTL_HEADER_SIZE);
		KUNIT_EXPECT_EQ(test, u.hdr.magic, PERF_DTL_MAGIC);
		/* Format 2: no record form; format 1: no record kind. */
		KUNIT_EXPECT_EQ(test, u.l.rec & PERF_DTL_REC_FORM_MASK, 0);
		KUNIT_EXPECT_GE(test, u.e.kind, PERF_DTL_KIND_MAX);
		KUNIT_EXPECT_EQ(test, u.e.kind, PERF_DTL_HEADER_KIND);
		for (i = 0; i < sizeof(u.hdr.reserved); i++)
			KUNIT_EXPECT_EQ(test, u.hdr.reserved[i], 0);
		for (i = 0; i < sizeof(u.hdr.reserved2); i++)
			KUNIT_EXPECT_EQ(test, u.hdr.reserved2[i], 0);
	}
}

static unsigned int dtl_enc(struct kunit *test, struct dtl_compact *s,
			    const struct perf_dtl_entry *e, bool long_only,
			    void *out, unsigned int want)
{
	unsigned int len = dtl_compact_encode(s, e, long_only, out);

	KUNIT_EXPECT_EQ(test, len, want);
	dtl_compact_next(s, e);
	return len;
}

/*
 * The compact format: a record that follows on from the one before is
 * short and carries what does not follow; anything else is long.
 */
static void dtl_test_compact(struct kunit *test)
{
	struct dtl_compact s = {};
	struct perf_dtl_long l;
	struct perf_dtl_short r;
	struct perf_dtl_entry e;

	/* A transaction's first record is long and has every field. */
	dtl_switch_init(&e, 3, 100, 1000000, 10, 20);
	e.blocked_ns = 6000000000ULL;
	dtl_enc(test, &s, &e, false, &l, PERF_DTL_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, l.rec, PERF_DTL_REC_LONG | PERF_DTL_KIND_PREEMPT);
	KUNIT_EXPECT_EQ(test, l.cpu, 3);
	KUNIT_EXPECT_EQ(test, l.seq, 100ULL);
	KUNIT_EXPECT_EQ(test, l.time, 1000000ULL);
	KUNIT_EXPECT_EQ(test, l.prev_tid, 10U);
	KUNIT_EXPECT_EQ(test, l.next_tid, 20U);
	KUNIT_EXPECT_EQ(test, l.wait_ns, 1000ULL);
	KUNIT_EXPECT_EQ(test, l.blocked_ns, 6000000000ULL);
	KUNIT_EXPECT_EQ(test, l.ran_ns, 5000ULL);
	KUNIT_EXPECT_EQ(test, l.steal_ns, 7U);

	/* The next switch, from the task dispatched: short. */
	dtl_switch_init(&e, 3, 101, 1002500, 20, 30);
	e.flags = PERF_DTL_F_NEXT_KTHREAD;
	e.kind = PERF_DTL_KIND_BLOCK;
	e.blocked_ns = 42;
	dtl_enc(test, &s, &e, false, &r, PERF_DTL_SLOT_SIZE);
	KUNIT_EXPECT_EQ(test, r.rec, PERF_DTL_REC_SHORT | PERF_DTL_KIND_BLOCK);
	KUNIT_EXPECT_EQ(test, r.flags, PERF_DTL_F_NEXT_KTHREAD);
	KUNIT_EXPECT_EQ(test, r.reserved, 0);
	KUNIT_EXPECT_EQ(test, r.time_delta, 2500U);
	KUNIT_EXPECT_EQ(test, r.next_pid, 30U);
	KUNIT_EXPECT_EQ(test, r.next_tid, 30U);
	KUNIT_EXPECT_EQ(test, r.wait_ns, 1000U);
	KUNIT_EXPECT_EQ(test, r.blocked_ns, 42U);
	KUNIT_EXPECT_EQ(test, r.ran_ns, 5000U);
	KUNIT_EXPECT_EQ(test, r.steal_ns, 7U);

	/* A migration: short, and the next switch still follows on. */
	memset(&e, 0, sizeof(e));
	e.kind = PERF_DTL_KIND_MIGRATE;
	e.cpu = 3;
	e.seq = 102;
	e.time = 1002600;
	e.prev_pid = 40;
	e.prev_tid = 41;
	e.from_cpu = 3;
	e.to_cpu = 1;
	dtl_enc(test, &s, &e, false, &r, PERF_DTL_SLOT_SIZE);
	KUNIT_EXPECT_EQ(test, r.rec, PERF_DTL_REC_SHORT | PERF_DTL_KIND_MIGRATE);
	KUNIT_EXPECT_EQ(test, r.time_delta, 100U);
	KUNIT_EXPECT_EQ(test, r.prev_pid, 40U);
	KUNIT_EXPECT_EQ(test, r.prev_tid, 41U);
	KUNIT_EXPECT_EQ(test, r.from_cpu, 3U);
	KUNIT_EXPECT_EQ(test, r.to_cpu, 1U);
	KUNIT_EXPECT_EQ(test, r.zero[0] | r.zero[1], 0U);
	dtl_switch_init(&e, 3, 103, 1002700, 30, 50);
	dtl_enc(test, &s, &e, false, &r, PERF_DTL_SLOT_SIZE);

	/* What does not follow on is long: a gap, another CPU, another task. */
	dtl_switch_init(&e, 3, 105, 1002800, 50, 60);
	dtl_enc(test, &s, &e, false, &l, PERF_DTL_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, l.seq, 105ULL);
	dtl_switch_init(&e, 2, 106, 1002900, 60, 70);
	dtl_enc(test, &s, &e, false, &l, PERF_DTL_ENTRY_SIZE);
	dtl_switch_init(&e, 2, 107, 1003000, 61, 70);
	dtl_enc(test, &s, &e, false, &l, PERF_DTL_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, l.prev_tid, 61U);

	/* Values of 32 bits fit; more do not, nor does time going back. */
	dtl_switch_init(&e, 2, 108, 1003000ULL + U32_MAX, 70, 80);
	e.wait_ns = U32_MAX;
	dtl_enc(test, &s, &e, false, &r, PERF_DTL_SLOT_SIZE);
	KUNIT_EXPECT_EQ(test, r.time_delta, U32_MAX);
	KUNIT_EXPECT_EQ(test, r.wait_ns, U32_MAX);
	dtl_switch_init(&e, 2, 109, 1003000ULL + U32_MAX, 80, 90);
	e.ran_ns = BIT_ULL(32);
	dtl_enc(test, &s, &e, false, &l, PERF_DTL_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, l.ran_ns, BIT_ULL(32));
	dtl_switch_init(&e, 2, 110, 1003000ULL + U32_MAX, 90, 91);
	e.wait_ns = BIT_ULL(32);
	dtl_enc(test, &s, &e, false, &l, PERF_DTL_ENTRY_SIZE);
	dtl_switch_init(&e, 2, 111, 1003000ULL + U32_MAX, 91, 92);
	e.blocked_ns = BIT_ULL(32);
	dtl_enc(test, &s, &e, false, &l, PERF_DTL_ENTRY_SIZE);
	dtl_switch_init(&e, 2, 112, 1003000ULL + U32_MAX * 2ULL + 1, 92, 93);
	dtl_enc(test, &s, &e, false, &l, PERF_DTL_ENTRY_SIZE);
	dtl_switch_init(&e, 2, 113, 1003000, 93, 94);
	dtl_enc(test, &s, &e, false, &l, PERF_DTL_ENTRY_SIZE);
	/* Snapshot mode: long only. */
	dtl_switch_init(&e, 2, 114, 1003001, 94, 95);
	dtl_enc(test, &s, &e, true, &l, PERF_DTL_ENTRY_SIZE);

	/* A LOST record is long, and the record after it too. */
	memset(&e, 0, sizeof(e));
	e.kind = PERF_DTL_KIND_LOST;
	e.cpu = 2;
	e.seq = 115;
	e.time = 1003002;
	e.lost = 3;
	e.lapped = 4;
	dtl_enc(test, &s, &e, false, &l, PERF_DTL_ENTRY_SIZE);
	KUNIT_EXPECT_EQ(test, l.rec, PERF_DTL_REC_LONG | PERF_DTL_KIND_LOST);
	KUNIT_EXPECT_EQ(test, l.lost, 3ULL);
	KUNIT_EXPECT_EQ(test, l.lapped, 4ULL);
	dtl_switch_init(&e, 2, 116, 1003003, 95, 96);
	dtl_enc(test, &s, &e, false, &l, PERF_DTL_ENTRY_SIZE);
	/* After it a migration follows on, a switch does not: no prev yet. */
	memset(&s, 0, sizeof(s));
	dtl_switch_init(&e, 2, 117, 1003004, 96, 97);
	e.kind = PERF_DTL_KIND_MIGRATE;
	dtl_enc(test, &s, &e, false, &l, PERF_DTL_ENTRY_SIZE);
	e.seq = 118;
	dtl_enc(test, &s, &e, false, &r, PERF_DTL_SLOT_SIZE);
	dtl_switch_init(&e, 2, 119, 1003005, 96, 97);
	dtl_enc(test, &s, &e, false, &l, PERF_DTL_ENTRY_SIZE);
}

static void dtl_test_steal_delta(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, dtl_steal_delta(100, 350), 250ULL);
	KUNIT_EXPECT_EQ(test, dtl_steal_delta(100, 100), 0ULL);
	/* The record was registered again and restarted lower. */
	KUNIT_EXPECT_EQ(test, dtl_steal_delta(5000, 10), 0ULL);
	KUNIT_EXPECT_EQ(test, dtl_steal_delta(0, U64_MAX), U64_MAX);
}

#if IS_ENABLED(CONFIG_PERF_DTL)
/*
 * perf_ctx_data keeps one object per user: a PMU that fills Intel LBR's
 * slot and one that fills dtl's, each with its own kmem cache, as LBR call
 * stacks and dtl would run together (QEMU has no LBR to test the real
 * one).  Each event gets its own user's object from its own cache, for a
 * task and system-wide, and freeing one leaves the other.  The objects in
 * LBR's slot are larger than LBR's own context, which an LBR call stack
 * user on real hardware may save into while this test runs.  (The slot
 * exists in kernels configured with dtl; the out-of-tree build's kernels
 * have none, and dtl keeps its own table there.)
 */
struct dtl_kunit_pmu {
	struct pmu		pmu;
	const char		*name;
	struct perf_event	*event;
	bool			registered;
};

static int dtl_kunit_pmu_init(struct perf_event *event)
{
	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	event->attach_state |= PERF_ATTACH_TASK_DATA;
	return 0;
}

static int dtl_kunit_pmu_add(struct perf_event *event, int flags)
{
	return 0;
}

static void dtl_kunit_pmu_nop(struct perf_event *event, int flags)
{
}

static void dtl_kunit_pmu_read(struct perf_event *event)
{
}

/* Undo what the test set up, whatever assertion stopped it. */
static void dtl_kunit_pmu_free(void *data)
{
	struct dtl_kunit_pmu *p = data;

	if (p->event)
		perf_event_release_kernel(p->event);
	if (p->registered)
		perf_pmu_unregister(&p->pmu);
	/* perf core frees the objects after a grace period. */
	rcu_barrier();
	kmem_cache_destroy(p->pmu.task_ctx_cache);
}

static void dtl_kunit_release(struct dtl_kunit_pmu *p)
{
	perf_event_release_kernel(p->event);
	p->event = NULL;
}

static struct perf_event *dtl_kunit_event(struct kunit *test,
					  struct dtl_kunit_pmu *p, int cpu,
					  struct task_struct *task)
{
	struct perf_event_attr attr = {
		.size		= sizeof(attr),
		.type		= p->pmu.type,
		.disabled	= 1,
	};
	struct perf_event *event;

	event = perf_event_create_kernel_counter(&attr, cpu, task, NULL, NULL);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(event), "%s: %ld", p->name,
			       PTR_ERR(event));
	p->event = event;
	return event;
}

static struct perf_ctx_data *dtl_kunit_ctx_data(enum perf_ctx_data_user user)
{
	struct perf_ctx_data *cd;

	rcu_read_lock();
	cd = rcu_dereference(current->perf_ctx_data[user]);
	rcu_read_unlock();
	return cd;
}

static void dtl_test_ctx_data_per_user(struct kunit *test)
{
	static const char * const names[2] = { "dtl_kunit_lbr", "dtl_kunit_dtl" };
	const enum perf_ctx_data_user user[2] = {
		perf_ctx_data_lbr, perf_ctx_data_dtl,
	};
	struct dtl_kunit_pmu *p[2];
	struct perf_ctx_data *cd[2];
	int i, ret;

	/* A system-wide event of either user would share its slot. */
	for (i = 0; i < 2; i++)
		if (dtl_kunit_ctx_data(user[i]))
			kunit_skip(test, "this task has data in slot %d already",
				   user[i]);

	for (i = 0; i < 2; i++) {
		p[i] = kunit_kzalloc(test, sizeof(*p[i]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		p[i]->name = names[i];
		p[i]->pmu = (struct pmu) {
			.task_ctx_nr	= perf_sw_context,
			.capabilities	= PERF_PMU_CAP_NO_INTERRUPT,
			.event_init	= dtl_kunit_pmu_init,
			.add		= dtl_kunit_pmu_add,
			.del		= dtl_kunit_pmu_nop,
			.start		= dtl_kunit_pmu_nop,
			.stop		= dtl_kunit_pmu_nop,
			.read		= dtl_kunit_pmu_read,
			.task_ctx_user	= user[i],
			.task_ctx_cache	= kmem_cache_create(names[i],
							    i ? 64 : SZ_4K,
							    0, 0, NULL),
		};
		KUNIT_ASSERT_NOT_NULL(test, p[i]->pmu.task_ctx_cache);
		ret = kunit_add_action_or_reset(test, dtl_kunit_pmu_free, p[i]);
		KUNIT_ASSERT_EQ(test, 0, ret);
		KUNIT_ASSERT_EQ(test, 0, perf_pmu_register(&p[i]->pmu,
							   names[i], -1));
		p[i]->registered = true;
	}

	/* One event of each for this task: two objects, each its own. */
	for (i = 0; i < 2; i++)
		dtl_kunit_event(test, p[i], -1, current);
	for (i = 0; i < 2; i++) {
		cd[i] = dtl_kunit_ctx_data(user[i]);
		KUNIT_ASSERT_NOT_NULL(test, cd[i]);
		KUNIT_EXPECT_PTR_EQ(test, cd[i]->ctx_cache,
				    p[i]->pmu.task_ctx_cache);
		KUNIT_EXPECT_FALSE(test, cd[i]->global);
	}
	KUNIT_EXPECT_PTR_NE(test, cd[0]->data, cd[1]->data);

	/* dtl's goes with its event; LBR's stays. */
	dtl_kunit_release(p[1]);
	KUNIT_EXPECT_NULL(test, dtl_kunit_ctx_data(user[1]));
	KUNIT_EXPECT_PTR_EQ(test, dtl_kunit_ctx_data(user[0]), cd[0]);

	/* A CPU-wide dtl event gives every task dtl's, LBR's untouched. */
	dtl_kunit_event(test, p[1], raw_smp_processor_id(), NULL);
	cd[1] = dtl_kunit_ctx_data(user[1]);
	KUNIT_ASSERT_NOT_NULL(test, cd[1]);
	KUNIT_EXPECT_TRUE(test, cd[1]->global);
	KUNIT_EXPECT_PTR_EQ(test, cd[1]->ctx_cache, p[1]->pmu.task_ctx_cache);
	KUNIT_EXPECT_PTR_EQ(test, dtl_kunit_ctx_data(user[0]), cd[0]);

	dtl_kunit_release(p[0]);
	KUNIT_EXPECT_NULL(test, dtl_kunit_ctx_data(user[0]));
	KUNIT_EXPECT_NOT_NULL(test, dtl_kunit_ctx_data(user[1]));
	dtl_kunit_release(p[1]);
	KUNIT_EXPECT_NULL(test, dtl_kunit_ctx_data(user[1]));
}
#endif

static struct kunit_case dtl_count_cases[] = {
	KUNIT_CASE(dtl_test_counter_of_event),
	KUNIT_CASE(dtl_test_bad_config),
	KUNIT_CASE(dtl_test_unsupported),
	KUNIT_CASE(dtl_test_wait),
	KUNIT_CASE(dtl_test_ran),
	KUNIT_CASE(dtl_test_trace_attr),
	KUNIT_CASE(dtl_test_filter),
	KUNIT_CASE(dtl_test_blocked),
	KUNIT_CASE(dtl_test_waited),
	KUNIT_CASE(dtl_test_drain_interval),
	KUNIT_CASE(dtl_test_drain_resume),
	KUNIT_CASE(dtl_test_drain_next),
	KUNIT_CASE(dtl_test_drain_due),
	KUNIT_CASE(dtl_test_hold),
	KUNIT_CASE(dtl_test_steal_field),
	KUNIT_CASE(dtl_test_entry_layout),
	KUNIT_CASE(dtl_test_compact),
	KUNIT_CASE(dtl_test_log_form),
	KUNIT_CASE(dtl_test_log_rw),
	KUNIT_CASE(dtl_test_header),
	KUNIT_CASE(dtl_test_steal_delta),
#if IS_ENABLED(CONFIG_PERF_DTL)
	KUNIT_CASE(dtl_test_ctx_data_per_user),
#endif
	{}
};

static struct kunit_suite dtl_count_suite = {
	.name = "dtl",
	.test_cases = dtl_count_cases,
};

kunit_test_suite(dtl_count_suite);

MODULE_DESCRIPTION("KUnit tests for the Dispatch Trace Log PMU");
MODULE_LICENSE("GPL");
