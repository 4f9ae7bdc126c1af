// SPDX-License-Identifier: GPL-2.0-only
/*
 * dtl trace events: the dispatch log as it arrives in the AUX buffer, read
 * directly (no perf tool): records of a known workload, loss accounting,
 * concurrent sessions, per-task filtering and the busy file.
 */
#define _GNU_SOURCE
#include <linux/perf_dtl.h>
#include <pthread.h>
#include <dirent.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "dtl_util.h"

/*
 * The PERF_RECORD_AUX records in the ring buffer: how many, how many of
 * them of size 0, and the OR of their flags.
 */
static uint64_t trace_aux_scan(struct dtl_trace_buf *t, unsigned int *count,
			       unsigned int *empty)
{
	uint64_t head = __atomic_load_n(&t->pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = t->pc->data_tail, flags = 0;
	char *data = (char *)t->pc + t->pc->data_offset;
	uint64_t size = t->pc->data_size;

	while (tail < head) {
		struct perf_event_header h;
		uint64_t rec[4];

		memcpy(&h, data + tail % size, sizeof(h));
		if (h.type == PERF_RECORD_AUX && h.size >= sizeof(rec)) {
			size_t i;

			for (i = 0; i < sizeof(rec); i++)
				((char *)rec)[i] = data[(tail + i) % size];
			flags |= rec[3];	/* header, offset, size, flags */
			if (count)
				(*count)++;
			if (empty && !rec[2])
				(*empty)++;
		}
		if (!h.size)
			break;
		tail += h.size;
	}
	return flags;
}

static uint64_t trace_aux_flags(struct dtl_trace_buf *t)
{
	return trace_aux_scan(t, NULL, NULL);
}

/*
 * @main_cs: the context switches of the main thread while the test
 * traces, @pong_cs those of the pong thread in its loop, as the kernel
 * counts them (nvcsw + nivcsw).
 */
struct pingpong {
	int to[2], from[2];
	int cpu, rounds;
	pid_t tid;
	long main_cs, pong_cs;
};

static void *pong_main(void *arg)
{
	struct pingpong *pp = arg;
	long cs = thread_switches();
	char c;
	int i;

	pp->tid = gettid();
	dtl_pin_to(pp->cpu);
	for (i = 0; i < pp->rounds; i++) {
		if (read(pp->to[0], &c, 1) != 1 ||
		    write(pp->from[1], &c, 1) != 1)
			break;
	}
	pp->pong_cs = thread_switches() - cs;
	return NULL;
}

/* Two threads on one CPU hand a byte back and forth @rounds times. */
static int pingpong_run(struct pingpong *pp)
{
	pthread_t t;
	char c = 'x';
	int i;

	if (pipe(pp->to) || pipe(pp->from))
		return -1;
	if (pthread_create(&t, NULL, pong_main, pp))
		return -1;
	dtl_pin_to(pp->cpu);
	for (i = 0; i < pp->rounds; i++) {
		if (write(pp->to[1], &c, 1) != 1 ||
		    read(pp->from[0], &c, 1) != 1)
			return -1;
	}
	pthread_join(t, NULL);
	close(pp->to[0]);
	close(pp->to[1]);
	close(pp->from[0]);
	close(pp->from[1]);
	return 0;
}

#define MAX_RECORDS	65536

static struct perf_dtl_entry recs[MAX_RECORDS], recs2[MAX_RECORDS];

/*
 * A CPU-wide trace of the ping-pong: each thread is dispatched at least
 * once per round, when the other blocks or is preempted by the wakeup,
 * and as often as the kernel counts its context switches (on PREEMPT_RT
 * a woken thread can block on the lock its waker still holds: two a
 * round); sequence numbers are contiguous and time only moves forward.
 *
 * The waits: a thread waits once at a time, so the waits of its
 * dispatches are apart, all within the traced window: their sum is at
 * most the window, as the test measures it.  The idle task never waits.
 * Another task may have waited since before the window (one did for
 * 1.3 s behind the ping-pong on the debug kernel in a CI run), but the
 * scheduler adds that wait to its run_delay at the dispatch: a wait is
 * at most the task's run_delay afterwards, plus the stretch from the
 * scheduler's clock update to the tracepoint where dtl stamps it, which
 * lies within the window.
 */
TEST(pingpong_records)
{
	struct pingpong pp = { .cpu = dtl_last_cpu(), .rounds = 500 };
	unsigned int ping = 0, pong = 0, blocks = 0, preempts = 0, i;
	unsigned long long ping_wait = 0, pong_wait = 0, t0, window;
	pid_t me = gettid();
	struct dtl_trace_buf t;
	struct dtl_sched s;
	size_t n;

	ASSERT_EQ(0, dtl_trace_open(&t, -1, pp.cpu, PERF_DTL_EVENT_TRACE, 0, 1000000, 0, 64))
		TH_LOG("open: %s", strerror(errno));
	t0 = dtl_now_ns();
	ASSERT_EQ(0, ioctl(t.fd, PERF_EVENT_IOC_ENABLE, 0));
	pp.main_cs = thread_switches();
	ASSERT_EQ(0, pingpong_run(&pp));
	pp.main_cs = thread_switches() - pp.main_cs;
	ASSERT_EQ(0, ioctl(t.fd, PERF_EVENT_IOC_DISABLE, 0));
	window = dtl_now_ns() - t0;
	n = dtl_trace_take(&t, recs, MAX_RECORDS);
	TH_LOG("%zu records on cpu %d in %llu us", n, pp.cpu, window / 1000);
	/* Two switches a round at least, and maybe nothing else. */
	ASSERT_GE(n, 2 * pp.rounds);

	for (i = 0; i < n; i++) {
		struct perf_dtl_entry *e = &recs[i];

		ASSERT_NE(PERF_DTL_KIND_LOST, e->kind)
			TH_LOG("%llu records lost", (unsigned long long)e->lost);
		ASSERT_EQ(pp.cpu, e->cpu);
		if (i) {
			ASSERT_EQ(recs[i - 1].seq + 1, e->seq);
			ASSERT_LE(recs[i - 1].time, e->time);
		}
		if (e->kind == PERF_DTL_KIND_MIGRATE)
			continue;
		if (e->next_tid == (uint32_t)me) {
			ping++;
			ping_wait += e->wait_ns;
		} else if (e->next_tid == (uint32_t)pp.tid) {
			pong++;
			pong_wait += e->wait_ns;
		} else if (!e->next_tid && (e->flags & PERF_DTL_F_NEXT_KTHREAD)) {
			EXPECT_EQ(0, e->wait_ns)
				TH_LOG("record %u: the idle task waited %llu ns",
				       i, (unsigned long long)e->wait_ns);
		} else if (e->wait_ns > window &&
			   !dtl_sched_read(e->next_pid, e->next_tid, &s)) {
			/* A task that exited since is not checked. */
			EXPECT_LE(e->wait_ns, s.delay_ns + window)
				TH_LOG("record %u: tid %u waited %llu ns, run_delay %llu ns",
				       i, e->next_tid,
				       (unsigned long long)e->wait_ns, s.delay_ns);
		}
		if (e->prev_tid != (uint32_t)me && e->prev_tid != (uint32_t)pp.tid)
			continue;
		EXPECT_EQ(getpid(), (pid_t)e->prev_pid);
		if (e->kind == PERF_DTL_KIND_BLOCK)
			blocks++;
		else if (e->kind == PERF_DTL_KIND_PREEMPT)
			preempts++;
	}
	TH_LOG("dispatches: main %u, pong %u; blocks %u, preemptions %u",
	       ping, pong, blocks, preempts);
	TH_LOG("switches: main %ld, pong %ld", pp.main_cs, pp.pong_cs);
	TH_LOG("waits: main %llu us, pong %llu us", ping_wait / 1000,
	       pong_wait / 1000);
	EXPECT_LE(ping_wait, window);
	EXPECT_LE(pong_wait, window);
	EXPECT_GE(ping, pp.rounds);
	EXPECT_LE(ping, pp.main_cs + 20);
	EXPECT_GE(pong, pp.rounds);
	EXPECT_LE(pong, pp.pong_cs + 20);
	/* Each thread leaves the CPU once per round, one way or the other. */
	EXPECT_GE(blocks + preempts, 2 * pp.rounds - 2);
	EXPECT_GT(blocks, 0);
	dtl_trace_close(&t);
}

/*
 * Forced loss: a 2-page AUX buffer (127 records) that nobody reads while
 * the workload runs.  After the buffer is consumed, the LOST record says
 * exactly how many records are missing from the sequence, and the AUX
 * record with the gap is flagged PARTIAL.
 */
TEST(forced_loss)
{
	struct pingpong pp = { .cpu = dtl_last_cpu(), .rounds = 500 };
	uint64_t lost = 0, first, last = 0, next;
	struct dtl_trace_buf t;
	size_t n, m, i;
	unsigned int nlost = 0;

	ASSERT_EQ(0, dtl_trace_open(&t, -1, pp.cpu, PERF_DTL_EVENT_TRACE, 0, 1000000, 0, 2))
		TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(t.fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, pingpong_run(&pp));
	n = dtl_trace_take(&t, recs, MAX_RECORDS);
	/* Room again: the next drain reports the loss, then stop. */
	usleep(20000);
	ASSERT_EQ(0, ioctl(t.fd, PERF_EVENT_IOC_DISABLE, 0));
	m = dtl_trace_take(&t, recs + n, MAX_RECORDS - n);
	n += m;
	ASSERT_GT(n, 1);
	ASSERT_NE(PERF_DTL_KIND_LOST, recs[0].kind);
	first = recs[0].seq;
	next = first;
	for (i = 0; i < n; i++) {
		if (recs[i].kind == PERF_DTL_KIND_LOST) {
			/* It accounts for every number up to its own. */
			nlost++;
			lost += recs[i].lost + recs[i].lapped;
			EXPECT_EQ(next + recs[i].lost + recs[i].lapped,
				  recs[i].seq);
			next = recs[i].seq;
			continue;
		}
		/* Otherwise the numbers are contiguous. */
		EXPECT_EQ(next, recs[i].seq);
		last = recs[i].seq;
		next = last + 1;
	}
	TH_LOG("%zu records, seq %llu..%llu, %u LOST records for %llu",
	       n, (unsigned long long)first, (unsigned long long)last, nlost,
	       (unsigned long long)lost);
	EXPECT_GE(nlost, 1);
	EXPECT_GT(lost, 0);
	/* Every sequence number is either delivered or counted lost. */
	EXPECT_EQ(next - first, (n - nlost) + lost);
	EXPECT_TRUE(trace_aux_flags(&t) & PERF_AUX_FLAG_PARTIAL);
	EXPECT_FALSE(trace_aux_flags(&t) & PERF_AUX_FLAG_TRUNCATED);
	dtl_trace_close(&t);
}

/*
 * A reader that stalls with its AUX buffer full (perf record blocked, a
 * debugger) must not have its ring buffer filled with empty
 * PERF_RECORD_AUX records, one a poll period or, for a per-task event,
 * one each time its task leaves a CPU, which push out the records the
 * decoder needs: a drain that writes nothing reports nothing, and the
 * loss is told once there is room again, exactly.
 */
FIXTURE(stalled) {};
FIXTURE_VARIANT(stalled) { int per_task; };
FIXTURE_VARIANT_ADD(stalled, cpu_wide) { .per_task = 0 };
FIXTURE_VARIANT_ADD(stalled, per_task) { .per_task = 1 };
FIXTURE_SETUP(stalled) {}
FIXTURE_TEARDOWN(stalled) {}

TEST_F(stalled, reader)
{
	struct pingpong pp = { .cpu = dtl_last_cpu(), .rounds = 2000 };
	unsigned int naux = 0, empty = 0;
	uint64_t lost = 0, next = 0;
	struct dtl_trace_buf t;
	size_t n, i;

	/*
	 * A 1 ms poll period and 2 AUX pages: full after ~130 rounds.  The
	 * per-task event follows this thread, one side of the ping-pong.
	 */
	ASSERT_EQ(0, dtl_trace_open(&t, variant->per_task ? 0 : -1,
				    variant->per_task ? -1 : pp.cpu,
				    PERF_DTL_EVENT_TRACE, 0, 1000000, 0, 2))
		TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(t.fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, pingpong_run(&pp));
	trace_aux_scan(&t, &naux, &empty);
	TH_LOG("buffer full: %u PERF_RECORD_AUX records, %u of them empty", naux, empty);
	EXPECT_EQ(0, empty);
	EXPECT_GE(naux, 1);

	/* Room again: the next drain reports what was lost, then stop. */
	n = dtl_trace_take(&t, recs, MAX_RECORDS);
	usleep(20000);
	ASSERT_EQ(0, ioctl(t.fd, PERF_EVENT_IOC_DISABLE, 0));
	n += dtl_trace_take(&t, recs + n, MAX_RECORDS - n);
	ASSERT_GT(n, 1);
	next = recs[0].seq;
	for (i = 0; i < n && !variant->per_task; i++) {
		/* A CPU-wide event's sequence numbers are all accounted for. */
		if (recs[i].kind == PERF_DTL_KIND_LOST) {
			lost += recs[i].lost + recs[i].lapped;
			EXPECT_EQ(next + recs[i].lost + recs[i].lapped, recs[i].seq);
			next = recs[i].seq;
			continue;
		}
		EXPECT_EQ(next, recs[i].seq);
		next = recs[i].seq + 1;
	}
	for (i = 0; i < n && variant->per_task; i++)
		if (recs[i].kind == PERF_DTL_KIND_LOST)
			lost += recs[i].lost + recs[i].lapped;
	naux = 0;
	empty = 0;
	trace_aux_scan(&t, &naux, &empty);
	TH_LOG("%zu records, %llu lost; in all %u PERF_RECORD_AUX, %u empty", n,
	       (unsigned long long)lost, naux, empty);
	/* The ping-pong wrote far more than 2 pages hold. */
	EXPECT_GT(lost, 1000);
	EXPECT_EQ(0, empty);
	EXPECT_TRUE(trace_aux_flags(&t) & PERF_AUX_FLAG_PARTIAL);
	EXPECT_EQ(0, t.bad);
	dtl_trace_close(&t);
}

/*
 * Two sessions on the same CPU get the same records: each at least the
 * two switches of every round (the ping-pong may be all the CPU did),
 * with no number missing.
 */
TEST(two_sessions)
{
	struct pingpong pp = { .cpu = dtl_last_cpu(), .rounds = 300 };
	struct dtl_trace_buf a, b;
	size_t na, nb, i, j, same = 0;

	ASSERT_EQ(0, dtl_trace_open(&a, -1, pp.cpu, PERF_DTL_EVENT_TRACE, 0, 1000000, 0, 64));
	ASSERT_EQ(0, dtl_trace_open(&b, -1, pp.cpu, PERF_DTL_EVENT_TRACE, 0, 5000000, 0, 64));
	ASSERT_EQ(0, ioctl(a.fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, ioctl(b.fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, pingpong_run(&pp));
	ASSERT_EQ(0, ioctl(a.fd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, ioctl(b.fd, PERF_EVENT_IOC_DISABLE, 0));
	na = dtl_trace_take(&a, recs, MAX_RECORDS);
	nb = dtl_trace_take(&b, recs2, MAX_RECORDS);
	ASSERT_GE(na, 2 * pp.rounds);
	ASSERT_GE(nb, 2 * pp.rounds);
	for (i = 1; i < na; i++)
		ASSERT_EQ(recs[i - 1].seq + 1, recs[i].seq);
	for (j = 1; j < nb; j++)
		ASSERT_EQ(recs2[j - 1].seq + 1, recs2[j].seq);
	/* Match the overlapping sequence range record by record. */
	for (i = 0, j = 0; i < na && j < nb;) {
		if (recs[i].seq < recs2[j].seq) {
			i++;
		} else if (recs[i].seq > recs2[j].seq) {
			j++;
		} else {
			ASSERT_EQ(0, memcmp(&recs[i], &recs2[j],
					    sizeof(recs[i])))
				TH_LOG("record %llu differs",
				       (unsigned long long)recs[i].seq);
			same++;
			i++;
			j++;
		}
	}
	TH_LOG("sessions: %zu and %zu records, %zu in common", na, nb, same);
	EXPECT_GE(same, 2 * pp.rounds);
	dtl_trace_close(&a);
	dtl_trace_close(&b);
}

/* A thread that moves between @cpu and another CPU until told to stop. */
struct hopper {
	int cpu, other;
	int stop;		/* read and written atomically */
	unsigned int hops;
};

static void *hopper_main(void *arg)
{
	struct hopper *h = arg;

	while (!__atomic_load_n(&h->stop, __ATOMIC_RELAXED)) {
		dtl_pin_to(h->hops & 1 ? h->other : h->cpu);
		h->hops++;
		usleep(200);
	}
	return NULL;
}

/*
 * The compact format says what the 64-byte one does: two sessions on one
 * CPU, one of each format (in different AUX buffers, with different poll
 * periods, so their transactions begin at different records), get the
 * same records.  The compact buffer is small and read between bursts of
 * ping-pong, so it wraps; a thread hopping onto and off the CPU adds
 * migrations.  And the compact one takes fewer bytes a record, with more
 * short records than long ones.  (How many fewer depends on the machine's
 * speed: each AUX transaction begins with a long record, and a slow
 * kernel's drain passes run out of their budget sooner and begin more of
 * them; make bench measures the bytes per switch, P2.)
 */
TEST(compact_matches_full)
{
	struct pingpong pp = { .cpu = dtl_last_cpu(), .rounds = 40 };
	struct hopper h = { .cpu = pp.cpu, .other = 0 };
	size_t nc = 0, nf = 0, i, j, same = 0, migrations = 0;
	unsigned long long bytes_c = 0, bytes_f = 0;
	struct dtl_trace_buf c, f;
	pthread_t hop;
	int burst;

	ASSERT_EQ(0, dtl_trace_open(&c, -1, pp.cpu, PERF_DTL_EVENT_TRACE, 0,
				    1000000, 0, 2));
	ASSERT_EQ(0, dtl_trace_open(&f, -1, pp.cpu, PERF_DTL_EVENT_TRACE |
				    PERF_DTL_CONFIG_FULL, 0, 3000000, 0, 256));
	ASSERT_EQ(0, ioctl(c.fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, ioctl(f.fd, PERF_EVENT_IOC_ENABLE, 0));
	if (pp.cpu == 0)
		h.other = 1;
	ASSERT_EQ(0, pthread_create(&hop, NULL, hopper_main, &h));
	for (burst = 0; burst < 30; burst++) {
		ASSERT_EQ(0, pingpong_run(&pp));
		usleep(5000);
		bytes_c = __atomic_load_n(&c.pc->aux_head, __ATOMIC_ACQUIRE);
		nc += dtl_trace_take(&c, recs + nc, MAX_RECORDS - nc);
	}
	__atomic_store_n(&h.stop, 1, __ATOMIC_RELAXED);
	pthread_join(hop, NULL);
	ASSERT_EQ(0, ioctl(c.fd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, ioctl(f.fd, PERF_EVENT_IOC_DISABLE, 0));
	bytes_c = __atomic_load_n(&c.pc->aux_head, __ATOMIC_ACQUIRE);
	bytes_f = __atomic_load_n(&f.pc->aux_head, __ATOMIC_ACQUIRE);
	nc += dtl_trace_take(&c, recs + nc, MAX_RECORDS - nc);
	nf = dtl_trace_take(&f, recs2, MAX_RECORDS);
	TH_LOG("compact: %zu records in %llu bytes, the buffer wrapped %llu times",
	       nc, bytes_c, bytes_c / c.aux_size);
	TH_LOG("compact: %llu short, %llu long, %llu pad; full: %zu in %llu bytes",
	       (unsigned long long)c.st.shorts, (unsigned long long)c.st.longs,
	       (unsigned long long)c.st.pads, nf, bytes_f);
	EXPECT_EQ(0, c.bad);
	ASSERT_GT(nf, 2 * 30 * pp.rounds);
	EXPECT_GT(bytes_c, 2 * c.aux_size);
	EXPECT_GT(c.st.shorts, c.st.longs);
	/* Match the overlapping sequence range record by record. */
	for (i = 0, j = 0; i < nc && j < nf;) {
		if (recs[i].kind == PERF_DTL_KIND_LOST || recs[i].seq < recs2[j].seq) {
			i++;
		} else if (recs2[j].kind == PERF_DTL_KIND_LOST ||
			   recs[i].seq > recs2[j].seq) {
			j++;
		} else {
			ASSERT_EQ(0, memcmp(&recs[i], &recs2[j], sizeof(recs[i])))
				TH_LOG("record %llu: kind %u/%u prev %u/%u next %u/%u",
				       (unsigned long long)recs[i].seq,
				       recs[i].kind, recs2[j].kind,
				       recs[i].prev_tid, recs2[j].prev_tid,
				       recs[i].next_tid, recs2[j].next_tid);
			migrations += recs[i].kind == PERF_DTL_KIND_MIGRATE;
			same++;
			i++;
			j++;
		}
	}
	TH_LOG("%zu records in common, %zu migrations; %u hops", same,
	       migrations, h.hops);
	EXPECT_GT(same, 2 * 30 * pp.rounds);
	/* Bytes per record, over the records each delivered. */
	TH_LOG("compact: %.1f bytes a record, full: %.1f", (double)bytes_c / nc,
	       (double)bytes_f / nf);
	EXPECT_LT(bytes_c * nf, bytes_f * nc);
	dtl_trace_close(&c);
	dtl_trace_close(&f);
}

/*
 * The AUX transactions of @t (its PERF_RECORD_AUX records) that are not
 * empty, in *@count, those that begin with a header of @format in
 * *@headers, and in *@bad those that break the rule: a header begins the
 * first transaction and those that begin PERF_DTL_HEADER_INTERVAL bytes
 * or more after the last header, and no other; and a transaction holds
 * more than its header.  The buffer must not have wrapped.
 */
static void trace_aux_headers(struct dtl_trace_buf *t, int format,
			      unsigned int *count, unsigned int *headers,
			      unsigned int *bad)
{
	uint64_t head = __atomic_load_n(&t->pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = t->pc->data_tail, last = 0;
	char *data = (char *)t->pc + t->pc->data_offset;
	uint64_t size = t->pc->data_size, rec[4];
	struct perf_event_header h;
	int due, has;
	size_t i;

	*count = *headers = *bad = 0;
	for (; tail < head; tail += h.size) {
		memcpy(&h, data + tail % size, sizeof(h));
		if (!h.size)
			break;
		if (h.type != PERF_RECORD_AUX || h.size < sizeof(rec))
			continue;
		for (i = 0; i < sizeof(rec); i++)
			((char *)rec)[i] = data[(tail + i) % size];
		/* header, offset, size, flags */
		if (!rec[2])
			continue;
		if (rec[1] + rec[2] > t->aux_size) {
			(*bad)++;
			continue;
		}
		due = !*count || rec[1] - last >= PERF_DTL_HEADER_INTERVAL;
		has = dtl_header_check((char *)t->aux + rec[1], rec[2]) == format;
		if (has != due || (has && rec[2] <= PERF_DTL_HEADER_SIZE)) {
			if (!*bad)
				fprintf(stderr, "# AUX at %llu: header %d, due %d, %llu bytes\n",
					(unsigned long long)rec[1], has, due,
					(unsigned long long)rec[2]);
			(*bad)++;
		}
		if (has) {
			(*headers)++;
			last = rec[1];
		}
		(*count)++;
	}
}

/*
 * The stream describes itself: a header names the format of the records
 * after it (2 by default, 1 for dtl/all,full/) and has the magic in this
 * machine's byte order.  One begins the first AUX transaction, then one
 * every PERF_DTL_HEADER_INTERVAL bytes; short polls make many small
 * transactions, most of them without.
 */
TEST(stream_header)
{
	struct pingpong pp = { .cpu = dtl_last_cpu(), .rounds = 20 };
	static const uint64_t configs[] = {
		PERF_DTL_EVENT_TRACE,
		PERF_DTL_EVENT_TRACE | PERF_DTL_CONFIG_FULL,
	};
	unsigned int c, naux, nhdr, bad, burst;
	struct dtl_trace_buf t;
	uint64_t bytes;
	size_t n;

	for (c = 0; c < 2; c++) {
		int format = c ? PERF_DTL_FORMAT_ENTRY : PERF_DTL_FORMAT_COMPACT;

		ASSERT_EQ(0, dtl_trace_open(&t, -1, pp.cpu, configs[c], 0,
					    PERF_DTL_POLL_MIN_NS, 0, 256));
		ASSERT_EQ(0, ioctl(t.fd, PERF_EVENT_IOC_ENABLE, 0));
		for (burst = 0; burst < 10; burst++) {
			ASSERT_EQ(0, pingpong_run(&pp));
			usleep(2000);
		}
		ASSERT_EQ(0, ioctl(t.fd, PERF_EVENT_IOC_DISABLE, 0));
		bytes = __atomic_load_n(&t.pc->aux_head, __ATOMIC_ACQUIRE);
		ASSERT_LT(bytes, t.aux_size);
		trace_aux_headers(&t, format, &naux, &nhdr, &bad);
		n = dtl_trace_take(&t, recs, MAX_RECORDS);
		TH_LOG("format %d: %zu records, %llu bytes, %u AUX records, %u headers, %u bad",
		       format, n, (unsigned long long)bytes, naux, nhdr, bad);
		EXPECT_EQ(0, bad);
		EXPECT_GE(naux, 2);
		EXPECT_GE(nhdr, 1);
		EXPECT_LT(nhdr, naux);
		EXPECT_EQ(nhdr, t.st.headers);
		EXPECT_EQ(0, t.bad);
		EXPECT_GE(n, 2 * 10 * pp.rounds);
		dtl_trace_close(&t);
	}
}

static int by_seq(const void *a, const void *b)
{
	const struct perf_dtl_entry *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * A CPU-wide event keeps its AUX transaction open across timer passes:
 * perf gets one PERF_RECORD_AUX every 10 poll periods (or when the event
 * stops), not one a pass, and still every record.  Bursts of ping-pong
 * run for 4 such spans at the default poll period, 10 ms, in which the
 * timer passes often.
 */
TEST(aux_record_per_hold)
{
	struct pingpong pp = { .cpu = dtl_last_cpu(), .rounds = 50 };
	const unsigned long long period = PERF_DTL_POLL_DEFAULT_NS;
	const unsigned long long hold = 10 * period;
	unsigned long long start, elapsed;
	unsigned int naux = 0, loops = 0, i;
	struct dtl_trace_buf t;
	size_t n;

	ASSERT_EQ(0, dtl_trace_open(&t, -1, pp.cpu, PERF_DTL_EVENT_TRACE, 0,
				    period, 0, 1024));
	ASSERT_EQ(0, ioctl(t.fd, PERF_EVENT_IOC_ENABLE, 0));
	start = dtl_now_ns();
	/* Bursts, so that the log (4096 records) never laps the reader. */
	do {
		ASSERT_EQ(0, pingpong_run(&pp));
		loops++;
		usleep(5000);
	} while (dtl_now_ns() - start < 4 * hold);
	ASSERT_EQ(0, ioctl(t.fd, PERF_EVENT_IOC_DISABLE, 0));
	elapsed = dtl_now_ns() - start;
	n = dtl_trace_take(&t, recs, MAX_RECORDS);
	trace_aux_scan(&t, &naux, NULL);
	TH_LOG("%zu records in %u AUX records over %llu ms (poll period %llu ms)",
	       n, naux, elapsed / 1000000, period / 1000000);
	ASSERT_LT(n, MAX_RECORDS);
	for (i = 0; i < n; i++) {
		ASSERT_NE(PERF_DTL_KIND_LOST, recs[i].kind)
			TH_LOG("record %u: lost %llu, lapped %llu", i,
			       (unsigned long long)recs[i].lost,
			       (unsigned long long)recs[i].lapped);
		if (!i)
			continue;
		ASSERT_EQ(recs[i - 1].seq + 1, recs[i].seq);
	}
	EXPECT_GE(n, 2 * pp.rounds * loops);
	/* One ended while the event ran, and the stop ends the last. */
	EXPECT_GE(naux, 2);
	/* A transaction lasts 10 poll periods at least. */
	EXPECT_LE(naux, elapsed / hold + 2);
	dtl_trace_close(&t);
}

/*
 * Two CPU-wide trace events of one CPU write to one buffer through
 * PERF_EVENT_IOC_SET_OUTPUT ("perf record -a -e dtl/all/ -e dtl/all/"):
 * perf allows one open AUX transaction per buffer, so neither may keep
 * its own open while the other writes.  Every record reaches the buffer
 * twice, once for each event.  The second event asks for the other
 * format: each transaction that follows one of the other event's begins
 * with a header, which the reader follows.
 */
TEST(two_cpu_events_one_buffer)
{
	struct pingpong pp = { .cpu = dtl_last_cpu(), .rounds = 300 };
	unsigned long long lo = 0, hi = 0, twice = 0;
	struct dtl_trace_buf t;
	size_t n, i, j;
	int fd;

	ASSERT_EQ(0, dtl_trace_open(&t, -1, pp.cpu, PERF_DTL_EVENT_TRACE, 0,
				    2000000, 0, 256));
	fd = sys_perf_event_open(&(struct perf_event_attr){
			.size = sizeof(struct perf_event_attr),
			.type = dtl_pmu_type(),
			.config = PERF_DTL_EVENT_TRACE | PERF_DTL_CONFIG_FULL,
			.sample_period = 3000000,
			.disabled = 1 }, -1, pp.cpu, -1, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, t.fd));
	ASSERT_EQ(0, ioctl(t.fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, pingpong_run(&pp));
		usleep(5000);
	}
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, ioctl(t.fd, PERF_EVENT_IOC_DISABLE, 0));
	n = dtl_trace_take(&t, recs, MAX_RECORDS);
	ASSERT_LT(n, MAX_RECORDS);
	ASSERT_GT(n, 0);
	EXPECT_EQ(0, t.bad);
	EXPECT_GT(t.st.headers, 2);
	for (i = 0; i < n; i++) {
		ASSERT_NE(PERF_DTL_KIND_LOST, recs[i].kind)
			TH_LOG("lost %llu, lapped %llu",
			       (unsigned long long)recs[i].lost,
			       (unsigned long long)recs[i].lapped);
	}
	/*
	 * Each record once or twice, in order: twice from the second event's
	 * start to its stop, once before and after.
	 */
	qsort(recs, n, sizeof(recs[0]), by_seq);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && recs[j].seq == recs[i].seq; j++)
			ASSERT_EQ(0, memcmp(&recs[i], &recs[j], sizeof(recs[i])));
		ASSERT_LE(j - i, 2);
		if (i)
			ASSERT_EQ(recs[i - 1].seq + 1, recs[i].seq);
		if (j - i == 2) {
			if (!twice++)
				lo = recs[i].seq;
			hi = recs[i].seq;
		}
	}
	ASSERT_GT(twice, 0);
	TH_LOG("%zu records, seq %llu..%llu, %llu..%llu twice (%llu); %llu headers",
	       n, (unsigned long long)recs[0].seq,
	       (unsigned long long)recs[n - 1].seq, lo, hi, twice,
	       (unsigned long long)t.st.headers);
	EXPECT_EQ(hi - lo + 1, twice);
	EXPECT_GE(twice, 6 * pp.rounds);
	close(fd);
	dtl_trace_close(&t);
}

struct spinner {
	int cpu, stop;
	pid_t tid;
};

static void *spinner_main(void *arg)
{
	struct spinner *sp = arg;

	dtl_pin_to(sp->cpu);
	__atomic_store_n(&sp->tid, gettid(), __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&sp->stop, __ATOMIC_RELAXED))
		;
	usleep(1000);
	return NULL;
}

/*
 * The probe reads the clock only while its CPU has a log, so a run that
 * began before the first trace event created the logs has no start: its
 * record's ran_ns counts from the log's creation.  A thread spins on a
 * CPU while a counting event keeps the probe registered (no clock read),
 * then a trace event opens; the spinner's first switch-out record says
 * it ran at most since the trace event was opened, not since it was
 * dispatched, nor since boot.
 */
TEST(first_record_ran)
{
	struct spinner sp = { .cpu = dtl_last_cpu() };
	unsigned long long t_open, t_end;
	struct dtl_trace_buf t;
	int fd, found = 0;
	pthread_t th;
	size_t n, i;

	if (sp.cpu < 1)
		SKIP(return, "one CPU: the spinner would starve the test");
	dtl_pin_to(0);
	fd = dtl_open("dispatches", -1, sp.cpu, -1, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, pthread_create(&th, NULL, spinner_main, &sp));
	while (!__atomic_load_n(&sp.tid, __ATOMIC_SEQ_CST))
		usleep(1000);
	usleep(300000);
	t_open = dtl_now_ns();
	ASSERT_EQ(0, dtl_trace_open(&t, -1, sp.cpu, PERF_DTL_EVENT_TRACE, 0,
				    1000000, 0, 64));
	ASSERT_EQ(0, ioctl(t.fd, PERF_EVENT_IOC_ENABLE, 0));
	usleep(20000);
	__atomic_store_n(&sp.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	usleep(20000);
	ASSERT_EQ(0, ioctl(t.fd, PERF_EVENT_IOC_DISABLE, 0));
	t_end = dtl_now_ns();
	n = dtl_trace_take(&t, recs, MAX_RECORDS);
	for (i = 0; i < n && !found; i++) {
		if (recs[i].kind == PERF_DTL_KIND_LOST ||
		    recs[i].kind == PERF_DTL_KIND_MIGRATE ||
		    recs[i].prev_tid != (uint32_t)sp.tid)
			continue;
		found = 1;
		TH_LOG("spinner's first switch-out: ran %llu ns; trace open for %llu ns",
		       (unsigned long long)recs[i].ran_ns, t_end - t_open);
		EXPECT_GT(recs[i].ran_ns, 0);
		EXPECT_LE(recs[i].ran_ns, t_end - t_open + 1000000ULL);
	}
	EXPECT_TRUE(found) TH_LOG("%zu records, none of the spinner (tid %d)",
				  n, sp.tid);
	dtl_trace_close(&t);
	close(fd);
}

/*
 * A per-task trace event on the pong thread: only records naming it, one
 * dispatch of it per round.
 */
struct task_trace {
	struct pingpong pp;
	struct dtl_trace_buf t;
	int ready[2], go[2];
};

static void *traced_pong(void *arg)
{
	struct task_trace *tt = arg;
	char c;

	tt->pp.tid = gettid();
	if (write(tt->ready[1], "r", 1) != 1 || read(tt->go[0], &c, 1) != 1)
		return NULL;
	return pong_main(&tt->pp);
}

TEST(per_task)
{
	struct task_trace tt = { .pp = { .cpu = dtl_last_cpu(), .rounds = 300 } };
	unsigned int mine = 0, disp = 0;
	pthread_t th;
	char c = 'x';
	size_t n, i;

	ASSERT_EQ(0, pipe(tt.ready));
	ASSERT_EQ(0, pipe(tt.go));
	ASSERT_EQ(0, pipe(tt.pp.to));
	ASSERT_EQ(0, pipe(tt.pp.from));
	ASSERT_EQ(0, pthread_create(&th, NULL, traced_pong, &tt));
	ASSERT_EQ(1, read(tt.ready[0], &c, 1));
	ASSERT_EQ(0, dtl_trace_open(&tt.t, tt.pp.tid, -1, PERF_DTL_EVENT_TRACE, 0, 0, 0, 64))
		TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(tt.t.fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(1, write(tt.go[1], "g", 1));
	dtl_pin_to(tt.pp.cpu);
	for (i = 0; i < (size_t)tt.pp.rounds; i++) {
		ASSERT_EQ(1, write(tt.pp.to[1], &c, 1));
		ASSERT_EQ(1, read(tt.pp.from[0], &c, 1));
	}
	pthread_join(th, NULL);
	n = dtl_trace_take(&tt.t, recs, MAX_RECORDS);
	for (i = 0; i < n; i++) {
		ASSERT_NE(PERF_DTL_KIND_LOST, recs[i].kind);
		if (recs[i].prev_tid == (uint32_t)tt.pp.tid ||
		    recs[i].next_tid == (uint32_t)tt.pp.tid)
			mine++;
		if (recs[i].kind != PERF_DTL_KIND_MIGRATE &&
		    recs[i].next_tid == (uint32_t)tt.pp.tid)
			disp++;
	}
	TH_LOG("%zu records, %u naming the task, %u dispatches of it, %ld switches",
	       n, mine, disp, tt.pp.pong_cs);
	EXPECT_EQ(n, mine);
	EXPECT_GE(disp, tt.pp.rounds);
	EXPECT_LE(disp, tt.pp.pong_cs + 20);
	dtl_trace_close(&tt.t);
}

static void *spin_main(void *arg)
{
	int *stop = arg;

	dtl_pin_to(dtl_last_cpu());
	while (!__atomic_load_n(stop, __ATOMIC_RELAXED))
		;
	return NULL;
}

/*
 * Filters: dtl/trace_block/ keeps only switches away from a task that went to
 * sleep; dtl/all,min_wait_us=200/ only dispatches that waited 200 us or
 * more.  A CPU hog sharing the CPU with the ping-pong makes long waits.
 */
TEST(filters)
{
	struct pingpong pp = { .cpu = dtl_last_cpu(), .rounds = 300 };
	uint64_t block = PERF_DTL_EVENT_TRACE | (1ULL << PERF_DTL_KIND_BLOCK) << 8;
	struct dtl_trace_buf tb, tw;
	size_t nb, nw, i;
	unsigned int slow = 0;
	pthread_t hog;
	int stop = 0;

	ASSERT_EQ(0, dtl_trace_open(&tb, -1, pp.cpu, block, 0, 1000000, 0, 64));
	/* min_wait_us is config1. */
	ASSERT_EQ(0, dtl_trace_open(&tw, -1, pp.cpu, PERF_DTL_EVENT_TRACE, 200, 1000000, 0, 64));
	ASSERT_EQ(0, ioctl(tb.fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, ioctl(tw.fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, pthread_create(&hog, NULL, spin_main, &stop));
	ASSERT_EQ(0, pingpong_run(&pp));
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(hog, NULL);
	ASSERT_EQ(0, ioctl(tb.fd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, ioctl(tw.fd, PERF_EVENT_IOC_DISABLE, 0));

	nb = dtl_trace_take(&tb, recs, MAX_RECORDS);
	nw = dtl_trace_take(&tw, recs2, MAX_RECORDS);
	TH_LOG("block filter: %zu records; min_wait_us=200: %zu records", nb,
	       nw);
	ASSERT_GT(nb, 0);
	ASSERT_GT(nw, 0);
	for (i = 0; i < nb; i++)
		ASSERT_EQ(PERF_DTL_KIND_BLOCK, recs[i].kind)
			TH_LOG("record %zu is %u", i, recs[i].kind);
	for (i = 0; i < nw; i++) {
		ASSERT_NE(PERF_DTL_KIND_LOST, recs2[i].kind);
		if (recs2[i].kind == PERF_DTL_KIND_MIGRATE)
			continue;
		ASSERT_GE(recs2[i].wait_ns, 200000ULL);
		slow++;
	}
	EXPECT_GT(slow, 0);
	dtl_trace_close(&tb);
	dtl_trace_close(&tw);
}

#define DRAIN_SESSIONS	4
#define DRAIN_BURSTS	5

/*
 * Interrupts-off time: four CPU-wide sessions on one CPU, a burst of
 * thousands of switches between polls.  One timer pass drains all the
 * sessions together and stops at the record limit (or the time budget),
 * to go on shortly after: no pass reads more than the limit, some passes
 * are cut, and no session loses a record.
 */
TEST(drain_bounded)
{
	struct pingpong pp = { .cpu = dtl_last_cpu(), .rounds = 1000 };
	struct dtl_trace_buf t[DRAIN_SESSIONS];
	static struct perf_dtl_entry r[DRAIN_SESSIONS][MAX_RECORDS];
	size_t n[DRAIN_SESSIONS] = { 0 };
	struct drain_stat st;
	int i, b;

	if (access("/sys/kernel/debug/dtl", F_OK))
		SKIP(return, "no debugfs mounted at /sys/kernel/debug (CONFIG_DEBUG_FS)");
	ASSERT_EQ(0, access(DTL_DEBUGFS "/drain", F_OK))
		TH_LOG("no %s: the driver does not account its drains", DTL_DEBUGFS "/drain");
	ASSERT_EQ(0, dtl_write_file(DTL_DEBUGFS "/drain", "0"));

	for (i = 0; i < DRAIN_SESSIONS; i++) {
		ASSERT_EQ(0, dtl_trace_open(&t[i], -1, pp.cpu, PERF_DTL_EVENT_TRACE,
					    0, 100000000, 0, 256));
		ASSERT_EQ(0, ioctl(t[i].fd, PERF_EVENT_IOC_ENABLE, 0));
	}
	for (b = 0; b < DRAIN_BURSTS; b++) {
		ASSERT_EQ(0, pingpong_run(&pp));
		/* Idle past a poll period: the timer finds the burst. */
		usleep(150000);
		for (i = 0; i < DRAIN_SESSIONS; i++)
			n[i] += dtl_trace_take(&t[i], r[i] + n[i],
					       MAX_RECORDS - n[i]);
	}
	for (i = 0; i < DRAIN_SESSIONS; i++) {
		ASSERT_EQ(0, ioctl(t[i].fd, PERF_EVENT_IOC_DISABLE, 0));
		n[i] += dtl_trace_take(&t[i], r[i] + n[i], MAX_RECORDS - n[i]);
	}
	ASSERT_EQ(0, drain_read(pp.cpu, &st));
	TH_LOG("cpu%d: %lu passes, %lu cut, longest %lu ns / %lu records (limit %u)",
	       pp.cpu, st.passes, st.cut, st.pass_max_ns, st.pass_max_records,
	       st.limit);
	TH_LOG("cpu%d: %lu stops, longest %lu ns / %lu records", pp.cpu,
	       st.stops, st.stop_max_ns, st.stop_max_records);

	for (i = 0; i < DRAIN_SESSIONS; i++) {
		size_t j;

		TH_LOG("session %d: %zu records, seq %llu..%llu", i, n[i],
		       n[i] ? (unsigned long long)r[i][0].seq : 0ULL,
		       n[i] ? (unsigned long long)r[i][n[i] - 1].seq : 0ULL);
		ASSERT_GT(n[i], 2 * DRAIN_BURSTS * pp.rounds);
		for (j = 0; j < n[i]; j++) {
			ASSERT_NE(PERF_DTL_KIND_LOST, r[i][j].kind)
				TH_LOG("session %d lost %llu, lapped %llu", i,
				       (unsigned long long)r[i][j].lost,
				       (unsigned long long)r[i][j].lapped);
			if (j)
				ASSERT_EQ(r[i][j - 1].seq + 1, r[i][j].seq);
		}
		dtl_trace_close(&t[i]);
	}
	EXPECT_GT(st.passes, 0);
	EXPECT_GT(st.cut, 0);
	EXPECT_LE(st.pass_max_records, st.limit);
}

/*
 * Interrupts-off time of a per-task stop.  perf swaps the contexts of an
 * inherited family when one of its tasks switches to another, and leaves
 * the event running: a ping-pong between two threads of one process on
 * one CPU keeps a per-task event's window open for as long as nothing
 * else runs there, thousands of switches.  Its stop, under the runqueue
 * lock, must not read all of them: the CPU's timer drains the window
 * meanwhile.  Where guest time follows the instructions (-icount, the
 * icount stage), the timer is on time: a stop finds no more than a pass
 * may read, and nothing is lost (the AUX buffer has room for all of it).
 * Elsewhere a late timer (TCG on a busy host) lets more pile up, but the
 * timer still drained the window, and no stop read the whole log.
 */
#define LONG_WINDOW_ROUNDS	20000

TEST(per_task_stop_bounded)
{
	struct pingpong pp = { .cpu = dtl_last_cpu(), .rounds = LONG_WINDOW_ROUNDS };
	struct dtl_trace_buf t;
	struct drain_stat st0, st;
	long long entries = dtl_read_ll(DTL_MODULE "/parameters/log_entries");
	int go[2], status, lost = 0, mine = 0;
	unsigned long passes;
	size_t n, i;
	pid_t child;
	char c = 'g';

	if (access("/sys/kernel/debug/dtl", F_OK))
		SKIP(return, "no debugfs mounted at /sys/kernel/debug (CONFIG_DEBUG_FS)");
	ASSERT_EQ(0, access(DTL_DEBUGFS "/drain", F_OK))
		TH_LOG("no %s: the driver does not account its drains", DTL_DEBUGFS "/drain");
	/* The reader keeps off the ping-pong's CPU, where it can. */
	if (pp.cpu > 0)
		ASSERT_EQ(0, dtl_pin_to(0));
	ASSERT_EQ(0, pipe(go));
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(pingpong_run(&pp) ? 1 : 0);
	}
	close(go[0]);
	/* Per CPU: perf maps no AUX buffer for an inherited event of any CPU. */
	ASSERT_EQ(0, dtl_trace_open(&t, child, pp.cpu, PERF_DTL_EVENT_TRACE, 0,
				    1000000, 1, 1024))
		TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(t.fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_GT(entries, 0);
	/* A write resets the maxima; the pass count only goes up. */
	ASSERT_EQ(0, dtl_write_file(DTL_DEBUGFS "/drain", "0"));
	ASSERT_EQ(0, drain_read(pp.cpu, &st0));
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(0, drain_read(pp.cpu, &st));
	passes = st.passes - st0.passes;

	n = dtl_trace_take(&t, recs, MAX_RECORDS);
	for (i = 0; i < n; i++) {
		if (recs[i].kind == PERF_DTL_KIND_LOST)
			lost++;
		else if (recs[i].kind != PERF_DTL_KIND_MIGRATE &&
			 recs[i].next_pid == (uint32_t)child)
			mine++;
	}
	TH_LOG("cpu%d: %zu records, %d dispatches of the child's threads, %d LOST",
	       pp.cpu, n, mine, lost);
	TH_LOG("cpu%d: %lu stops, longest %lu ns / %lu records", pp.cpu,
	       st.stops, st.stop_max_ns, st.stop_max_records);
	TH_LOG("cpu%d: %lu passes, longest %lu ns / %lu records", pp.cpu,
	       passes, st.pass_max_ns, st.pass_max_records);
	EXPECT_EQ(0, t.bad);
	/* The timer read the window while it was open ... */
	EXPECT_GT(passes, 0);
	/* ... so no stop read the whole log, as stops alone did. */
	EXPECT_LT(st.stop_max_records, (unsigned long)entries);
	if (getenv("DTL_GUEST_ICOUNT")) {
		EXPECT_LE(st.stop_max_records, st.limit);
		EXPECT_EQ(0, lost);
		EXPECT_GE(mine, 2 * LONG_WINDOW_ROUNDS);
	}
	dtl_trace_close(&t);
	close(go[1]);
	/*
	 * After every assertion, and only if none failed: SKIP() would turn
	 * a failure into a skip.
	 */
	if (!getenv("DTL_GUEST_ICOUNT") && (st.stop_max_records > st.limit || lost) &&
	    _metadata->exit_code != KSFT_FAIL)
		SKIP(return, "late timer (no -icount): a stop read %lu (limit %u), %d LOST",
		     st.stop_max_records, st.limit, lost);
}

/*
 * Eight sessions on a busy CPU, as eight "perf record -a" would be: the
 * default poll period, and a ping-pong that switches without a pause.  A
 * timer pass cannot serve all of them within its budget, so it is cut and
 * resumed; while a session is more than half a log behind it must resume
 * soon enough that the log never laps it.  Nobody reads the AUX buffers
 * during the run, as perf record would: they are large enough for all of
 * it (8 MiB, over 8 compact records a round where the ping-pong makes 2
 * to 4), so that only the log could lose records.
 */
#define KEEP_UP_SESSIONS	8
#define KEEP_UP_ROUNDS		30000
#define KEEP_UP_RECORDS		(9 * KEEP_UP_ROUNDS)
/*
 * Records a timer pass reads at most where the machine is at the drain's
 * floor: a block of the log (the driver's DTL_LOG_BLOCK, 2 KiB) of short
 * records, which a pass copies before it looks at the clock.
 */
#define KEEP_UP_FLOOR		(2048ULL / PERF_DTL_SLOT_SIZE)

FIXTURE(keep_up) {
	struct dtl_trace_buf t[KEEP_UP_SESSIONS];
	struct perf_dtl_entry *r;
	int open;
};

FIXTURE_SETUP(keep_up)
{
	self->open = 0;
	self->r = calloc(KEEP_UP_RECORDS, sizeof(*self->r));
	ASSERT_NE(NULL, self->r);
}

FIXTURE_TEARDOWN(keep_up)
{
	int i;

	for (i = 0; i < self->open; i++)
		dtl_trace_close(&self->t[i]);
	free(self->r);
}

TEST_F_TIMEOUT(keep_up, eight_sessions, 300)
{
	struct pingpong pp = { .cpu = dtl_last_cpu(), .rounds = KEEP_UP_ROUNDS };
	unsigned long long lapped_all = 0, read_all = 0, start, elapsed;
	struct dtl_trace_buf *t = self->t;
	unsigned long passes, cut;
	size_t n[KEEP_UP_SESSIONS] = { 0 };
	struct drain_stat d0, d1;
	int i;

	for (i = 0; i < KEEP_UP_SESSIONS; i++) {
		self->open = i + 1;	/* closed in any case */
		ASSERT_EQ(0, dtl_trace_open(&t[i], -1, pp.cpu, PERF_DTL_EVENT_TRACE,
					    0, 0, 0, 2048))
			TH_LOG("session %d: %s", i, strerror(errno));
	}
	for (i = 0; i < KEEP_UP_SESSIONS; i++)
		ASSERT_EQ(0, ioctl(t[i].fd, PERF_EVENT_IOC_ENABLE, 0));
	/* The drain's statistics, for the log (0 without debugfs). */
	memset(&d0, 0, sizeof(d0));
	memset(&d1, 0, sizeof(d1));
	drain_read(pp.cpu, &d0);
	start = dtl_now_ns();
	ASSERT_EQ(0, pingpong_run(&pp));
	elapsed = dtl_now_ns() - start;
	drain_read(pp.cpu, &d1);
	for (i = 0; i < KEEP_UP_SESSIONS; i++)
		ASSERT_EQ(0, ioctl(t[i].fd, PERF_EVENT_IOC_DISABLE, 0));
	passes = d1.passes - d0.passes;
	cut = d1.cut - d0.cut;
	TH_LOG("cpu %d: %lu drain passes in %llu ms, one every %llu us, %lu of them out of budget",
	       pp.cpu, passes, elapsed / 1000000,
	       passes ? elapsed / passes / 1000 : 0ULL, cut);

	/*
	 * Each session: no LOST record for a full buffer (it is big enough),
	 * and the loss told exactly: between two records, as many numbers
	 * are missing as the LOST records between them count.
	 */
	for (i = 0; i < KEEP_UP_SESSIONS; i++) {
		unsigned long long lost = 0, lapped = 0, pending = 0;
		unsigned long long prev = 0, untold = 0;
		struct perf_dtl_entry *r = self->r;
		bool have_prev = false;
		size_t j;

		n[i] = dtl_trace_take(&t[i], r, KEEP_UP_RECORDS);
		for (j = 0; j < n[i]; j++) {
			if (r[j].kind == PERF_DTL_KIND_LOST) {
				lost += r[j].lost;
				lapped += r[j].lapped;
				pending += r[j].lost + r[j].lapped;
				continue;
			}
			if (have_prev && r[j].seq - prev - 1 != pending)
				untold++;
			have_prev = true;
			prev = r[j].seq;
			pending = 0;
		}
		TH_LOG("session %d: %zu records, seq %llu..%llu, lapped %llu, lost %llu",
		       i, n[i], n[i] ? (unsigned long long)r[0].seq : 0ULL,
		       n[i] ? (unsigned long long)r[n[i] - 1].seq : 0ULL,
		       lapped, lost);
		ASSERT_EQ(0, t[i].bad);
		ASSERT_LT(n[i], KEEP_UP_RECORDS);
		ASSERT_EQ(0, lost);
		/* Gaps whose size the LOST records before them do not give. */
		ASSERT_EQ(0, untold);
		lapped_all += lapped;
		read_all += n[i];
		if (!lapped)
			ASSERT_GE(n[i], 2 * pp.rounds);
	}
	/*
	 * A timer pass copies a block of the log between two looks at the
	 * clock, and stops at the first look past its budget
	 * (DTL_DRAIN_BUDGET_NS, 5 us); while a reader is half a log behind,
	 * the next pass follows 5 us later instead of 50.  Where nearly
	 * every pass was cut and passes read fewer than KEEP_UP_FLOOR
	 * records, the machine copies no more than that in
	 * 5 us, timer interrupts included: QEMU TCG, 10-15 records a pass,
	 * one pass every 115-830 us (the KASAN kernel).  The load outruns
	 * the interrupts-off bound there by design: the lap is told, and
	 * the loss was accounted exactly (above).  Where the catch-up
	 * itself breaks, passes read more: that fails.  make check runs the
	 * test in an -icount guest too (testbed/guest/icount.sh), where no
	 * lap is excused (above).
	 */
	if (getenv("DTL_GUEST_ICOUNT")) {
		/*
		 * Guest time follows the instructions executed (QEMU
		 * -icount): the timer fires on time, no lap is excused.
		 */
		EXPECT_EQ(0, lapped_all);
		return;
	}
	if (lapped_all && passes && cut * 10 >= passes * 9 &&
	    read_all < KEEP_UP_FLOOR * passes)
		SKIP(return, "drain at its floor: %llu records in %lu passes, %llu lapped",
		     read_all, passes, lapped_all);
#ifdef __aarch64__
	/*
	 * Interrupts stay off for at most a pass's budget (P8), so where a
	 * pass reads less than the load writes between two, the load
	 * outruns the drain by design.  The arm64 guest (TCG without
	 * -icount, 2-3 times slower than x86_64's) is there now and then:
	 * lapped by 2300-3000 records a session in some runs, on an idle
	 * host too.  A lap there is told, not failed; x86_64 fails on one.
	 */
	if (lapped_all)
		SKIP(return, "arm64 TCG: %lu of %lu passes out of budget, %llu lapped",
		     cut, passes, lapped_all);
#endif
	EXPECT_EQ(0, lapped_all);
}

/* The log size of @cpu from debugfs dtl/logs: bytes, 0 for none, -1. */
static long log_bytes(int cpu)
{
	char buf[16384], *line;
	long bytes;
	int c;

	if (dtl_read_file(DTL_DEBUGFS "/logs", buf, sizeof(buf)))
		return -1;
	for (line = strchr(buf, '\n'); line; line = strchr(line + 1, '\n'))
		if (sscanf(line + 1, "%d %ld", &c, &bytes) == 2 && c == cpu)
			return bytes;
	return -1;
}

static int set_online(int cpu, int on)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	return dtl_write_file(path, on ? "1" : "0");
}

/*
 * Logs exist for the CPUs that are online: a CPU offline when tracing
 * starts has none, gets one when it comes online, and is traced then.
 */
FIXTURE(hotplug) {
	int cpu;
};

FIXTURE_SETUP(hotplug)
{
	self->cpu = dtl_last_cpu();
}

/* Whatever failed, the CPU comes back. */
FIXTURE_TEARDOWN(hotplug)
{
	if (self->cpu > 0)
		set_online(self->cpu, 1);
}

TEST_F(hotplug, logs_follow_hotplug)
{
	struct pingpong pp = { .cpu = self->cpu, .rounds = 100 };
	struct dtl_trace_buf a, b;
	size_t n, i;

	if (pp.cpu < 1 || set_online(pp.cpu, 1))
		SKIP(return, "needs a CPU that can go offline");
	if (access("/sys/kernel/debug/dtl", F_OK))
		SKIP(return, "no debugfs mounted at /sys/kernel/debug (CONFIG_DEBUG_FS)");
	ASSERT_EQ(0, log_bytes(pp.cpu)) TH_LOG("a log before any trace event, or no %s",
					       DTL_DEBUGFS "/logs");
	ASSERT_EQ(0, set_online(pp.cpu, 0));
	ASSERT_EQ(0, dtl_trace_open(&a, -1, 0, PERF_DTL_EVENT_TRACE, 0, 0, 0, 8));
	EXPECT_GT(log_bytes(0), 0);
	EXPECT_EQ(0, log_bytes(pp.cpu)) TH_LOG("cpu%d is offline", pp.cpu);
	ASSERT_EQ(0, set_online(pp.cpu, 1));
	EXPECT_EQ(log_bytes(0), log_bytes(pp.cpu));

	ASSERT_EQ(0, dtl_trace_open(&b, -1, pp.cpu, PERF_DTL_EVENT_TRACE, 0, 0, 0, 64));
	ASSERT_EQ(0, ioctl(b.fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, pingpong_run(&pp));
	ASSERT_EQ(0, ioctl(b.fd, PERF_EVENT_IOC_DISABLE, 0));
	n = dtl_trace_take(&b, recs, MAX_RECORDS);
	TH_LOG("cpu%d, online again: %zu records", pp.cpu, n);
	EXPECT_GT(n, 2 * pp.rounds);
	for (i = 1; i < n; i++)
		ASSERT_EQ(recs[i - 1].seq + 1, recs[i].seq);
	dtl_trace_close(&b);
	dtl_trace_close(&a);
	EXPECT_EQ(0, log_bytes(0));
	EXPECT_EQ(0, log_bytes(pp.cpu));
}

/* The pid of kthread @name/@cpu (cpuhp/1, migration/1), or -1. */
static pid_t cpu_kthread(const char *name, int cpu)
{
	char path[300], comm[32], want[32];
	struct dirent *d;
	pid_t pid = -1;
	DIR *dir;

	snprintf(want, sizeof(want), "%s/%d", name, cpu);
	dir = opendir("/proc");
	if (!dir)
		return -1;
	while (pid < 0 && (d = readdir(dir))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		if (!dtl_read_file(path, comm, sizeof(comm)) &&
		    !strcmp(comm, want))
			pid = atoi(d->d_name);
	}
	closedir(dir);
	return pid;
}

/*
 * A per-task trace event of the kthread that brings a CPU online starts
 * on that CPU before the CPU's online callbacks run.  The CPU's log must
 * be there: it was allocated by the online callback, and the event's
 * start read the log the last session left at NULL (a general protection
 * fault in dtl_pmu_trace_start(), interrupts disabled).  The last session
 * traces the CPU, then the CPU goes offline, this session begins with
 * the event, and the CPU comes back.
 */
TEST_F(hotplug, task_event_before_log)
{
	struct pingpong pp = { .cpu = self->cpu, .rounds = 100 };
	struct dtl_trace_buf a, b;
	pid_t pid;
	size_t n;

	if (pp.cpu < 1 || set_online(pp.cpu, 1))
		SKIP(return, "needs a CPU that can go offline");
	if (access("/sys/kernel/debug/dtl", F_OK))
		SKIP(return, "no debugfs mounted at /sys/kernel/debug (CONFIG_DEBUG_FS)");
	pid = cpu_kthread("cpuhp", pp.cpu);
	ASSERT_LT(0, pid) TH_LOG("no cpuhp/%d kthread", pp.cpu);
	ASSERT_EQ(0, dtl_trace_open(&a, -1, pp.cpu, PERF_DTL_EVENT_TRACE, 0, 0, 0, 64));
	ASSERT_EQ(0, ioctl(a.fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, pingpong_run(&pp));
	ASSERT_EQ(0, ioctl(a.fd, PERF_EVENT_IOC_DISABLE, 0));
	EXPECT_GT(dtl_trace_take(&a, recs, MAX_RECORDS), 2 * pp.rounds);
	dtl_trace_close(&a);
	ASSERT_EQ(0, log_bytes(pp.cpu));
	ASSERT_EQ(0, dtl_pin_to(0));

	ASSERT_EQ(0, set_online(pp.cpu, 0));
	ASSERT_EQ(0, dtl_trace_open(&b, pid, -1, PERF_DTL_EVENT_TRACE, 0, 0, 0, 64));
	ASSERT_EQ(0, ioctl(b.fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, set_online(pp.cpu, 1));
	EXPECT_EQ(log_bytes(0), log_bytes(pp.cpu));
	ASSERT_EQ(0, ioctl(b.fd, PERF_EVENT_IOC_DISABLE, 0));
	/* Its runs on the CPU it brought up, from the first. */
	n = dtl_trace_take(&b, recs, MAX_RECORDS);
	TH_LOG("cpuhp/%d: %zu records", pp.cpu, n);
	EXPECT_GT(n, 0);
	dtl_trace_close(&b);
	EXPECT_EQ(0, log_bytes(pp.cpu));
}

/*
 * A per-task event's stop leaves its CPU's drain timer armed (its task
 * comes back soon).  When the CPU goes offline the timer moves to
 * another CPU, where it finds no reader and ends.  If the CPU came back
 * before that, its first reader found the timer armed, far enough ahead,
 * and left it: the timer then fired on the other CPU, refused to drain a
 * log not its own, and the reader was drained only at its stop.  Both
 * events poll once a second (the longest period), so that the timer the
 * stop leaves outlives the offline and online.
 */
TEST_F(hotplug, drain_timer_after_online)
{
	struct pingpong pp = { .cpu = self->cpu, .rounds = 50 };
	unsigned long long t0, up, start;
	struct dtl_trace_buf a, b;
	uint64_t head = 0;
	size_t n;

	if (pp.cpu < 1 || set_online(pp.cpu, 1))
		SKIP(return, "needs a CPU that can go offline");
	ASSERT_EQ(0, dtl_pin_to(pp.cpu));
	ASSERT_EQ(0, dtl_trace_open(&a, 0, -1, PERF_DTL_EVENT_TRACE, 0,
				    PERF_DTL_POLL_MAX_NS, 0, 16));
	/* It starts at once, here, and stops when this task leaves. */
	ASSERT_EQ(0, ioctl(a.fd, PERF_EVENT_IOC_ENABLE, 0));
	t0 = dtl_now_ns();
	ASSERT_EQ(0, dtl_pin_to(0));
	ASSERT_EQ(0, ioctl(a.fd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, set_online(pp.cpu, 0));
	ASSERT_EQ(0, set_online(pp.cpu, 1));
	up = dtl_now_ns();
	TH_LOG("cpu%d offline and online %llu ms after the stop", pp.cpu,
	       (up - t0) / 1000000);

	ASSERT_EQ(0, dtl_trace_open(&b, -1, pp.cpu, PERF_DTL_EVENT_TRACE, 0,
				    PERF_DTL_POLL_MAX_NS, 0, 64));
	ASSERT_EQ(0, ioctl(b.fd, PERF_EVENT_IOC_ENABLE, 0));
	/*
	 * Polled each second, its transaction ended at most a second
	 * later: records show in the AUX buffer within 2 s of the start.
	 */
	start = dtl_now_ns();
	while (!head && dtl_now_ns() - start < 4000000000ULL) {
		ASSERT_EQ(0, pingpong_run(&pp));
		usleep(20000);
		head = __atomic_load_n(&b.pc->aux_head, __ATOMIC_ACQUIRE);
	}
	TH_LOG("%llu AUX bytes %llu ms after the start", (unsigned long long)head,
	       (dtl_now_ns() - start) / 1000000);
	EXPECT_GT(head, 0) TH_LOG("not drained while running");
	ASSERT_EQ(0, ioctl(b.fd, PERF_EVENT_IOC_DISABLE, 0));
	n = dtl_trace_take(&b, recs, MAX_RECORDS);
	EXPECT_GT(n, 2 * pp.rounds);
	dtl_trace_close(&b);
	dtl_trace_close(&a);
}

#define TAINT_WARN	0x200L		/* bit 9 of /proc/sys/kernel/tainted */

/*
 * The CPU's stopper thread, migration/N, runs while the CPU goes offline,
 * and the hotplug code moves the CPU's timers to another CPU from it: a
 * per-task trace event of that thread is still started there then, with
 * the drain timer armed.  Polled every 100 us, the timer is due, and
 * fires on the other CPU as soon as it takes interrupts again, which may
 * be before the thread leaves the dying CPU.  It must end there, without
 * a warning (it warned: fatal under panic_on_warn) and without reading
 * the dying CPU's readers.
 */
TEST_F(hotplug, stopper_event_offline)
{
	struct dtl_trace_buf a;
	long t0 = dtl_read_ll("/proc/sys/kernel/tainted");
	int i, rounds = 20;
	pid_t pid;

	if (self->cpu < 1 || set_online(self->cpu, 1))
		SKIP(return, "needs a CPU that can go offline");
	if (t0 & TAINT_WARN)
		SKIP(return, "the kernel warned before: TAINT_WARN tells nothing");
	pid = cpu_kthread("migration", self->cpu);
	ASSERT_LT(0, pid) TH_LOG("no migration/%d kthread", self->cpu);
	ASSERT_EQ(0, dtl_pin_to(0));
	ASSERT_EQ(0, dtl_trace_open(&a, pid, -1, PERF_DTL_EVENT_TRACE, 0,
				    PERF_DTL_POLL_MIN_NS, 0, 64));
	ASSERT_EQ(0, ioctl(a.fd, PERF_EVENT_IOC_ENABLE, 0));
	for (i = 0; i < rounds; i++) {
		ASSERT_EQ(0, set_online(self->cpu, 0));
		ASSERT_EQ(0, set_online(self->cpu, 1));
		usleep(1000);
	}
	ASSERT_EQ(0, ioctl(a.fd, PERF_EVENT_IOC_DISABLE, 0));
	TH_LOG("%d offline/online rounds, %zu records of migration/%d, tainted %lld",
	       rounds, dtl_trace_take(&a, recs, MAX_RECORDS), self->cpu,
	       dtl_read_ll("/proc/sys/kernel/tainted"));
	EXPECT_FALSE(dtl_read_ll("/proc/sys/kernel/tainted") & TAINT_WARN);
	dtl_trace_close(&a);
}

/*
 * The last trace event's close frees the logs while the probes write to
 * them on other CPUs.  A probe that saw a log must write to that log till
 * it returns: it once read the log's address again, found it cleared and
 * wrote at NULL (a general protection fault in dtl_sched_switch(), with
 * the runqueue lock held: the machine hung).  Two threads hand a byte
 * back and forth on CPU 0, so that its probe runs all the time, while the
 * test opens and closes the only trace event, on the last CPU.  Without
 * the fix, 8 runs of 8 oopsed within seconds on the debug kernel under
 * TCG.
 */
struct last_close {
	int to[2], from[2];
	int stop;
	unsigned long rounds;
};

static void *last_close_pong(void *arg)
{
	struct last_close *lc = arg;
	char c;

	dtl_pin_to(0);
	while (read(lc->to[0], &c, 1) == 1 && write(lc->from[1], &c, 1) == 1)
		;
	return NULL;
}

static void *last_close_ping(void *arg)
{
	struct last_close *lc = arg;
	char c = 'x';

	dtl_pin_to(0);
	while (!__atomic_load_n(&lc->stop, __ATOMIC_RELAXED) &&
	       write(lc->to[1], &c, 1) == 1 && read(lc->from[0], &c, 1) == 1)
		__atomic_fetch_add(&lc->rounds, 1, __ATOMIC_RELAXED);
	close(lc->to[1]);	/* the pong thread reads EOF */
	return NULL;
}

/*
 * Up to 150 open/close pairs, for at most 10 s: each pair takes a few
 * hundred ms on the KASAN debug kernel under TCG with other guests
 * beside it, where 150 pairs ran past the harness's 30 s limit.  The
 * claim holds for however many pairs ran, as long as most of them ran
 * beside switches; too few in 10 s is a skip that says how many.
 */
#define LAST_CLOSE_PAIRS	150
#define LAST_CLOSE_NS		10000000000ULL
#define LAST_CLOSE_MIN		20

TEST(last_close_vs_probe)
{
	int cpu = dtl_last_cpu(), i, n;
	unsigned long long end = dtl_now_ns() + LAST_CLOSE_NS;
	unsigned long rounds = 0;
	struct last_close lc = { 0 };
	struct dtl_trace_buf t;
	pthread_t ping, pong;

	if (cpu == 0)
		SKIP(return, "one CPU: no probe runs beside the close");
	ASSERT_EQ(0, pipe(lc.to));
	ASSERT_EQ(0, pipe(lc.from));
	ASSERT_EQ(0, dtl_pin_to(cpu));
	ASSERT_EQ(0, pthread_create(&pong, NULL, last_close_pong, &lc));
	ASSERT_EQ(0, pthread_create(&ping, NULL, last_close_ping, &lc));
	for (i = 0; i < LAST_CLOSE_PAIRS && dtl_now_ns() < end; i++) {
		unsigned long r = __atomic_load_n(&lc.rounds, __ATOMIC_RELAXED);

		ASSERT_EQ(0, dtl_trace_open(&t, -1, cpu, PERF_DTL_EVENT_TRACE,
					    0, 0, 0, 0));
		dtl_trace_close(&t);
		/* Closes beside switches, not after the ping-pong stopped. */
		if (__atomic_load_n(&lc.rounds, __ATOMIC_RELAXED) > r)
			rounds++;
	}
	__atomic_store_n(&lc.stop, 1, __ATOMIC_RELAXED);
	pthread_join(ping, NULL);
	pthread_join(pong, NULL);
	close(lc.to[0]);
	close(lc.from[0]);
	close(lc.from[1]);
	n = i;
	TH_LOG("%d closes, %lu of them beside switches on CPU 0 (%lu round trips)",
	       n, rounds, lc.rounds);
	if (n < LAST_CLOSE_MIN)
		SKIP(return, "only %d open/close pairs in %llu s: this guest is too slow",
		     n, LAST_CLOSE_NS / 1000000000ULL);
	EXPECT_GE(rounds, n / 2);
}

/* The busy file names the CPU, the use and the owner while it lasts. */
TEST(busy_file)
{
	char buf[4096], want[64];
	int cpu = dtl_last_cpu();
	struct dtl_trace_buf t;

	ASSERT_EQ(0, dtl_read_file(DTL_SYSFS "/busy", buf, sizeof(buf)));
	snprintf(want, sizeof(want), "cpu%d: idle", cpu);
	EXPECT_NE(NULL, strstr(buf, want)) TH_LOG("busy: %s", buf);

	ASSERT_EQ(0, dtl_trace_open(&t, -1, cpu, PERF_DTL_EVENT_TRACE, 0, 0, 0, 4));
	ASSERT_EQ(0, dtl_read_file(DTL_SYSFS "/busy", buf, sizeof(buf)));
	snprintf(want, sizeof(want), "cpu%d:\n tracing pid=%d since=", cpu,
		 getpid());
	EXPECT_NE(NULL, strstr(buf, want)) TH_LOG("busy: %s", buf);
	dtl_trace_close(&t);

	ASSERT_EQ(0, dtl_read_file(DTL_SYSFS "/busy", buf, sizeof(buf)));
	snprintf(want, sizeof(want), "cpu%d: idle", cpu);
	EXPECT_NE(NULL, strstr(buf, want)) TH_LOG("busy: %s", buf);
}

/* Bad AUX setups: a counting event, a buffer under 2 pages. */
TEST(bad_aux)
{
	struct dtl_trace_buf t;
	__u64 config;

	ASSERT_EQ(0, dtl_event_config("dispatches", &config));
	EXPECT_EQ(-ENOMEM, dtl_trace_open(&t, 0, -1, config, 0, 0, 0, 4));
	dtl_trace_close(&t);
	EXPECT_EQ(-ENOMEM, dtl_trace_open(&t, 0, -1, PERF_DTL_EVENT_TRACE, 0, 0, 0, 1));
	dtl_trace_close(&t);
	EXPECT_EQ(0, dtl_hook_users());
}

/* Lines of the kernel log from @kmsg's position that contain @msg. */
static int kmsg_count(int kmsg, const char *msg)
{
	char buf[8192];
	int told = 0;
	ssize_t n;

	while ((n = read(kmsg, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		told += !!strstr(buf, msg);
	}
	return told;
}

/*
 * A trace event whose reader maps no ring buffer at all, as "perf stat
 * -e dtl/all/" does, is never scheduled: it reads as perf's "<not
 * counted>" (enabled, never running), not as a count of 0, and its close
 * names the counter in the kernel log, once for the event and its
 * inherited copies.  A CPU-wide dtl/all/ (dtl/dispatches/ meant), and a
 * per-task dtl/trace_preempt/ inherited by a child that runs
 * (dtl/preemptions/ meant).
 */
TEST(no_buffer_not_counted)
{
	struct perf_event_attr attr;
	int kmsg, fd, i, status;
	uint64_t v[3];
	pid_t pid;

	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg < 0)
		SKIP(return, "cannot read /dev/kmsg: %s", strerror(errno));
	ASSERT_LE(0, lseek(kmsg, 0, SEEK_END));
	ASSERT_EQ(0, dtl_pin_to(0));
	dtl_attr(&attr, "all");
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	/* In a process of its own: the log tells once per process. */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		fd = sys_perf_event_open(&attr, -1, 0, -1, 0);
		if (fd < 0)
			_exit(2);
		for (i = 0; i < 20; i++)
			usleep(1000);
		if (read(fd, v, sizeof(v)) != sizeof(v))
			_exit(3);
		printf("# dtl/all/ with no buffer: count %llu, enabled %llu ns, running %llu ns\n",
		       (unsigned long long)v[0], (unsigned long long)v[1],
		       (unsigned long long)v[2]);
		_exit(v[0] || !v[1] || v[2] ? 1 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("not counted as never running (exit %d)",
		       WEXITSTATUS(status));
	EXPECT_EQ(1, kmsg_count(kmsg, "the counter is dtl/dispatches/"));

	dtl_attr(&attr, "trace_preempt");
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.inherit = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0) TH_LOG("per-task open: %s", strerror(errno));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		for (i = 0; i < 20; i++)
			usleep(1000);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(sizeof(v), read(fd, v, sizeof(v)));
	EXPECT_EQ(0, v[0]);
	EXPECT_LT(0, v[1]);
	EXPECT_EQ(0, v[2]);
	close(fd);
	EXPECT_EQ(1, kmsg_count(kmsg, "the counter is dtl/preemptions/"));
	close(kmsg);
	EXPECT_EQ(0, dtl_hook_users());
}

/*
 * A trace event whose reader maps its ring buffer but no AUX buffer, as a
 * perf without dtl's decoder does ("perf record -c"), runs and loses every
 * record with no LOST record to say so: the kernel log says so when the
 * event is closed, once for the event and its inherited copies.  A
 * CPU-wide event, and a per-task event inherited by a child that runs:
 * two lines.
 */
TEST(no_aux_buffer_told)
{
	size_t len = 2 * getpagesize();
	struct perf_event_attr attr;
	int kmsg, fd, i, status;
	void *base;
	pid_t pid;

	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg < 0)
		SKIP(return, "cannot read /dev/kmsg: %s", strerror(errno));
	ASSERT_LE(0, lseek(kmsg, 0, SEEK_END));
	ASSERT_EQ(0, dtl_pin_to(0));
	dtl_attr(&attr, "all");
	attr.sample_period = 1000000;	/* a drain every ms */
	attr.disabled = 1;
	fd = sys_perf_event_open(&attr, -1, 0, -1, 0);
	ASSERT_GE(fd, 0) TH_LOG("CPU-wide open: %s", strerror(errno));
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, base);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	for (i = 0; i < 50; i++)
		usleep(1000);
	munmap(base, len);
	close(fd);

	/* perf maps no buffer for an inherited event of any CPU. */
	attr.inherit = 1;
	fd = sys_perf_event_open(&attr, 0, 0, -1, 0);
	ASSERT_GE(fd, 0) TH_LOG("per-task open: %s", strerror(errno));
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, base) TH_LOG("mmap: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		for (i = 0; i < 20; i++)
			usleep(1000);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	munmap(base, len);
	close(fd);

	EXPECT_EQ(2, kmsg_count(kmsg, "had no AUX buffer: what it logged is lost"));
	close(kmsg);
	EXPECT_EQ(0, dtl_hook_users());
}

/*
 * A reader that reads its full buffer only after the event stopped for
 * good: the records lost since the last LOST record that fitted are
 * counted in the kernel log when the event is closed.  Every switch of
 * the ping-pong (two a round) is delivered, or counted in a LOST record,
 * or in the log.
 */
TEST(loss_told_at_close)
{
	struct pingpong pp = { .cpu = dtl_last_cpu(), .rounds = 2000 };
	unsigned long long told = 0, lost = 0;
	const char *msg = " records lost that no LOST record reports";
	struct dtl_trace_buf t;
	char buf[8192], *p;
	size_t n, i, got = 0;
	int kmsg;
	ssize_t r;

	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg < 0)
		SKIP(return, "cannot read /dev/kmsg: %s", strerror(errno));
	ASSERT_LE(0, lseek(kmsg, 0, SEEK_END));
	ASSERT_EQ(0, dtl_trace_open(&t, -1, pp.cpu, PERF_DTL_EVENT_TRACE, 0,
				    1000000, 0, 2));
	ASSERT_EQ(0, ioctl(t.fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, pingpong_run(&pp));
	ASSERT_EQ(0, ioctl(t.fd, PERF_EVENT_IOC_DISABLE, 0));
	n = dtl_trace_take(&t, recs, MAX_RECORDS);
	for (i = 0; i < n; i++) {
		if (recs[i].kind == PERF_DTL_KIND_LOST)
			lost += recs[i].lost + recs[i].lapped;
		else
			got++;
	}
	dtl_trace_close(&t);
	while ((r = read(kmsg, buf, sizeof(buf) - 1)) > 0) {
		buf[r] = '\0';
		p = strstr(buf, msg);
		if (!p)
			continue;
		while (p > buf && p[-1] >= '0' && p[-1] <= '9')
			p--;
		told += strtoull(p, NULL, 10);
	}
	close(kmsg);
	TH_LOG("%zu records delivered, %llu counted in LOST records, %llu in the kernel log",
	       got, lost, told);
	EXPECT_EQ(0, t.bad);
	EXPECT_GT(told, 0);
	EXPECT_GE(got + lost + told, 2ULL * pp.rounds);
}

TEST_HARNESS_MAIN
