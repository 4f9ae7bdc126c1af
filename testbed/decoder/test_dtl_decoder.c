// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit test of perf's dtl record decoder (tools/perf/util/dtl-decoder.c):
 * valid streams decode, and truncated or corrupted data is reported with a
 * clear message and skipped.  TAP output.
 */
#include <stdio.h>
#include <string.h>

#include "dtl-decoder.h"

static int tests, failures;
static size_t end_pos;

#define CHECK(cond, ...) do {						\
	tests++;							\
	if (cond) {							\
		printf("ok %d ", tests);				\
	} else {							\
		printf("not ok %d ", tests);				\
		failures++;						\
	}								\
	printf(__VA_ARGS__);						\
	printf("\n");							\
} while (0)

static struct perf_dtl_entry rec(unsigned int kind, unsigned int cpu,
			    unsigned long long seq, unsigned long long time)
{
	struct perf_dtl_entry e;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.cpu = cpu;
	e.seq = seq;
	e.time = time;
	e.prev_pid = e.prev_tid = 10;
	e.next_pid = e.next_tid = 11;
	e.wait_ns = 500;
	e.blocked_ns = 1000;
	e.ran_ns = 2000;
	return e;
}

/*
 * Decode @len bytes of @buf; return records decoded, fill the last error,
 * and the @idx-th record decoded (from 1; 0: none) into @out.
 */
static int decode_nth(struct dtl_decoder *d, const void *buf, size_t len,
		      size_t *end, int idx, struct perf_dtl_entry *out)
{
	struct perf_dtl_entry e;
	size_t pos = 0;
	int ret, n = 0;

	while ((ret = dtl_decoder_next(d, buf, len, &pos, &e))) {
		if (ret < 0)
			continue;
		dtl_decoder_consume(d, &e, &pos);
		if (++n == idx)
			*out = e;
	}
	*end = pos;
	return n;
}

static int decode(struct dtl_decoder *d, const void *buf, size_t len,
		  size_t *end)
{
	return decode_nth(d, buf, len, end, 0, NULL);
}

/* Format 2: @e as a long record at @b; returns its size. */
static size_t put_long(unsigned char *b, const struct perf_dtl_entry *e)
{
	struct perf_dtl_long l;

	memset(&l, 0, sizeof(l));
	l.rec = PERF_DTL_REC_LONG | e->kind;
	l.flags = e->flags;
	l.cpu = e->cpu;
	l.steal_ns = e->steal_ns;
	l.time = e->time;
	l.seq = e->seq;
	l.prev_pid = e->prev_pid;
	l.prev_tid = e->prev_tid;
	l.next_pid = e->next_pid;
	l.next_tid = e->next_tid;
	l.wait_ns = e->wait_ns;
	l.blocked_ns = e->blocked_ns;
	l.ran_ns = e->ran_ns;
	memcpy(b, &l, sizeof(l));
	return sizeof(l);
}

/* @e as a short record after a record at @time. */
static size_t put_short(unsigned char *b, const struct perf_dtl_entry *e,
			unsigned long long time)
{
	struct perf_dtl_short r;

	memset(&r, 0, sizeof(r));
	r.rec = PERF_DTL_REC_SHORT | e->kind;
	r.flags = e->flags;
	r.time_delta = e->time - time;
	if (e->kind == PERF_DTL_KIND_MIGRATE) {
		r.prev_pid = e->prev_pid;
		r.prev_tid = e->prev_tid;
		r.from_cpu = e->from_cpu;
		r.to_cpu = e->to_cpu;
	} else {
		r.next_pid = e->next_pid;
		r.next_tid = e->next_tid;
		r.wait_ns = e->wait_ns;
		r.blocked_ns = e->blocked_ns;
		r.ran_ns = e->ran_ns;
		r.steal_ns = e->steal_ns;
	}
	memcpy(b, &r, sizeof(r));
	return sizeof(r);
}

static size_t put_pad(unsigned char *b)
{
	memset(b, 0, PERF_DTL_SLOT_SIZE);
	b[0] = PERF_DTL_REC_PAD;
	return PERF_DTL_SLOT_SIZE;
}

/* Reverse the bytes of each field of @n fields of sizes @sz at @b. */
static void swap_fields(unsigned char *b, const int *sz, int n)
{
	int f, k;

	for (f = 0; f < n; f++) {
		for (k = 0; k < sz[f] / 2; k++) {
			unsigned char c = b[k];

			b[k] = b[sz[f] - 1 - k];
			b[sz[f] - 1 - k] = c;
		}
		b += sz[f];
	}
}

/* The records of a compact stream, decoded, equal @want (@n of them)? */
static int compact_same(struct dtl_decoder *d, const unsigned char *b,
			size_t len, const struct perf_dtl_entry *want, int n)
{
	struct perf_dtl_entry e;
	size_t pos = 0;
	int ret, i = 0;

	while ((ret = dtl_decoder_next(d, b, len, &pos, &e))) {
		if (ret < 0)
			return 0;
		if (i >= n || memcmp(&e, &want[i], sizeof(e))) {
			printf("# record %d differs: seq %llu, prev %u, next %u, time %llu\n",
			       i, e.seq, e.prev_tid, e.next_tid, e.time);
			return 0;
		}
		dtl_decoder_consume(d, &e, &pos);
		i++;
	}
	return i == n && pos == len;
}

/*
 * The compact format (2): short records decode to what the 64-byte
 * records say, PAD slots are skipped, the other byte order decodes, and
 * a short record with nothing to follow on from is skipped up to the next
 * long one.
 */
static void test_compact(void)
{
	static const int long_sz[] = { 1, 1, 2, 4, 8, 8, 4, 4, 4, 4, 8, 8, 8 };
	static const int short_sz[] = { 1, 1, 2, 4, 4, 4, 4, 4, 4, 4 };
	struct perf_dtl_entry want[8];
	unsigned char b[512];
	struct dtl_decoder d;
	size_t len = 0;
	int n;

	want[0] = rec(PERF_DTL_KIND_PREEMPT, 2, 100, 1000);
	want[0].blocked_ns = 0;
	want[1] = rec(PERF_DTL_KIND_BLOCK, 2, 101, 3500);
	want[1].prev_pid = want[1].prev_tid = 11;
	want[1].next_pid = 20;
	want[1].next_tid = 21;
	want[1].flags = PERF_DTL_F_NEXT_KTHREAD;
	want[1].steal_ns = 77;
	want[2] = rec(PERF_DTL_KIND_MIGRATE, 2, 102, 3600);
	want[2].prev_pid = 30;
	want[2].prev_tid = 31;
	want[2].next_pid = 2;	/* from_cpu */
	want[2].next_tid = 0;	/* to_cpu */
	want[2].wait_ns = want[2].blocked_ns = want[2].ran_ns = 0;
	want[3] = rec(PERF_DTL_KIND_DISPATCH, 2, 103, 3700);
	want[3].prev_pid = 20;
	want[3].prev_tid = 21;
	want[3].blocked_ns = 7000000000ULL;	/* too long for a short record */
	want[4] = rec(PERF_DTL_KIND_EXIT, 2, 104, 3800);
	want[4].prev_pid = want[4].prev_tid = 11;
	want[4].next_pid = 40;
	want[4].next_tid = 41;

	len += put_long(b + len, &want[0]);
	len += put_short(b + len, &want[1], want[0].time);
	len += put_short(b + len, &want[2], want[1].time);
	len += put_pad(b + len);
	len += put_long(b + len, &want[3]);
	len += put_short(b + len, &want[4], want[3].time);
	dtl_decoder_init(&d, 2, PERF_DTL_FORMAT_COMPACT);
	CHECK(compact_same(&d, b, len, want, 5) && !d.corrupt && d.shorts == 3 &&
	      d.pads == 1,
	      "compact: long, short switch, short migration, PAD, long, short decode to the full records (%llu short, %llu pad)",
	      d.shorts, d.pads);

	dtl_decoder_init(&d, 2, PERF_DTL_FORMAT_COMPACT);
	n = decode(&d, b, len - 8, &end_pos);
	CHECK(n == 4 && end_pos == len - PERF_DTL_SLOT_SIZE,
	      "compact: a truncated record is left (%d decoded, %zu of %zu bytes)",
	      n, end_pos, len - 8);
	dtl_decoder_init(&d, 2, PERF_DTL_FORMAT_COMPACT);
	n = decode(&d, b, 32, &end_pos);
	CHECK(n == 0 && end_pos == 0 && !d.corrupt,
	      "compact: half a long record is not a record");

	/* Started after the long record: nothing to follow on from. */
	dtl_decoder_init(&d, 2, PERF_DTL_FORMAT_COMPACT);
	n = decode(&d, b + 64, len - 64, &end_pos);
	CHECK(n == 2 && d.corrupt == 2 && strstr(d.err, "no record to follow on from"),
	      "compact: short records with no long one before are skipped up to the next long one (%d, \"%s\")",
	      n, d.err);

	/* A LOST record: the record after it must be long. */
	len = 0;
	len += put_long(b + len, &want[0]);
	want[5] = rec(PERF_DTL_KIND_LOST, 2, 110, 3500);
	want[5].prev_pid = want[5].prev_tid = want[5].next_pid = want[5].next_tid = 0;
	want[5].ran_ns = 0;
	want[5].lost = 3;
	want[5].lapped = 6;
	len += put_long(b + len, &want[5]);
	want[6] = rec(PERF_DTL_KIND_PREEMPT, 2, 110, 3600);
	want[6].prev_pid = want[6].prev_tid = 11;
	len += put_short(b + len, &want[6], want[5].time);
	dtl_decoder_init(&d, 2, PERF_DTL_FORMAT_COMPACT);
	n = decode(&d, b, len, &end_pos);
	CHECK(n == 2 && d.corrupt == 1 && d.lost == 9,
	      "compact: a short record after a LOST one is skipped (%d, lost %llu, \"%s\")",
	      n, d.lost, d.err);
	len -= PERF_DTL_SLOT_SIZE;
	len += put_long(b + len, &want[6]);
	dtl_decoder_init(&d, 2, PERF_DTL_FORMAT_COMPACT);
	CHECK(compact_same(&d, b, len, (struct perf_dtl_entry[]){ want[0], want[5], want[6] }, 3),
	      "compact: ... a long one decodes");

	/* Forms and fields the format does not have. */
	len = put_long(b, &want[0]);
	len += put_short(b + len, &want[1], want[0].time);
	b[len - PERF_DTL_SLOT_SIZE + 2] = 1;	/* reserved */
	dtl_decoder_init(&d, 2, PERF_DTL_FORMAT_COMPACT);
	n = decode(&d, b, len, &end_pos);
	CHECK(n == 1 && d.corrupt == 1 && strstr(d.err, "reserved bits 1"),
	      "compact: a short record with reserved bits is skipped: \"%s\"", d.err);
	b[len - PERF_DTL_SLOT_SIZE + 2] = 0;
	len += put_long(b + len, &want[3]);
	b[PERF_DTL_ENTRY_SIZE] = PERF_DTL_REC_HEADER;
	dtl_decoder_init(&d, 2, PERF_DTL_FORMAT_COMPACT);
	n = decode(&d, b, len, &end_pos);
	CHECK(n == 2 && d.corrupt == 1 && strstr(d.err, "a header with magic 2500"),
	      "compact: a slot of no form is a header, and without the magic skipped: \"%s\"",
	      d.err);
	len -= PERF_DTL_ENTRY_SIZE;
	b[len - PERF_DTL_SLOT_SIZE] = PERF_DTL_REC_SHORT | PERF_DTL_KIND_LOST;
	dtl_decoder_init(&d, 2, PERF_DTL_FORMAT_COMPACT);
	n = decode(&d, b, len, &end_pos);
	CHECK(n == 1 && d.corrupt == 1 && strstr(d.err, "short record of kind 5"),
	      "compact: a short LOST record is skipped: \"%s\"", d.err);

	/* The other byte order. */
	len = put_long(b, &want[0]);
	len += put_short(b + len, &want[1], want[0].time);
	len += put_short(b + len, &want[2], want[1].time);
	swap_fields(b, long_sz, 13);
	swap_fields(b + 64, short_sz, 10);
	swap_fields(b + 96, short_sz, 10);
	dtl_decoder_init(&d, 2, PERF_DTL_FORMAT_COMPACT);
	d.swap = true;
	CHECK(compact_same(&d, b, len, want, 3),
	      "compact: records of the other byte order decode to the same fields");
}

/* A header of @format and @size bytes at @b; returns @size. */
static size_t put_header(unsigned char *b, unsigned int format, size_t size)
{
	struct perf_dtl_header h;

	memset(b, 0, size);
	memset(&h, 0, sizeof(h));
	h.rec = PERF_DTL_REC_HEADER;
	h.format = format;
	h.size = size;
	h.magic = PERF_DTL_MAGIC;
	h.kind = PERF_DTL_HEADER_KIND;
	memcpy(b, &h, sizeof(h));
	return size;
}

/*
 * Headers: each names the format and byte order of the records after it,
 * whatever the decoder assumed before; a format it does not know is
 * skipped up to the next header; a header that is not whole is left.
 */
static void test_header(void)
{
	static const int long_sz[] = { 1, 1, 2, 4, 8, 8, 4, 4, 4, 4, 8, 8, 8 };
	static const int short_sz[] = { 1, 1, 2, 4, 4, 4, 4, 4, 4, 4 };
	static const int hdr_sz[] = { 1, 1, 2, 4 };
	struct perf_dtl_entry want[4], e;
	unsigned char b[1024];
	struct dtl_decoder d;
	size_t len = 0;
	int n;

	want[0] = rec(PERF_DTL_KIND_PREEMPT, 1, 100, 1000);
	want[1] = rec(PERF_DTL_KIND_BLOCK, 1, 101, 2000);
	want[1].prev_pid = want[1].prev_tid = 11;
	want[2] = rec(PERF_DTL_KIND_PREEMPT, 1, 102, 3000);
	want[3] = rec(PERF_DTL_KIND_BLOCK, 1, 103, 4000);
	want[3].prev_pid = want[3].prev_tid = 11;

	/* Format 2 after a header, read by a decoder told format 1. */
	len += put_header(b + len, PERF_DTL_FORMAT_COMPACT, PERF_DTL_HEADER_SIZE);
	len += put_long(b + len, &want[0]);
	len += put_short(b + len, &want[1], want[0].time);
	len += put_pad(b + len);
	len += put_header(b + len, PERF_DTL_FORMAT_COMPACT, PERF_DTL_HEADER_SIZE);
	len += put_long(b + len, &want[2]);
	len += put_short(b + len, &want[3], want[2].time);
	dtl_decoder_init(&d, 1, PERF_DTL_FORMAT_ENTRY);
	CHECK(compact_same(&d, b, len, want, 4) && !d.corrupt && d.headers == 2 &&
	      d.pads == 1 && d.format == PERF_DTL_FORMAT_COMPACT,
	      "header: two transactions of format 2 decode, whatever format was assumed (%llu headers)",
	      d.headers);

	/* A short record right after a header has nothing to follow on. */
	len = put_long(b, &want[0]);
	len += put_header(b + len, PERF_DTL_FORMAT_COMPACT, PERF_DTL_HEADER_SIZE);
	len += put_short(b + len, &want[1], want[0].time);
	dtl_decoder_init(&d, 1, PERF_DTL_FORMAT_COMPACT);
	n = decode(&d, b, len, &end_pos);
	CHECK(n == 1 && d.corrupt == 1 && strstr(d.err, "no record to follow on from"),
	      "header: a short record after a header is not trusted: \"%s\"", d.err);

	/* Format 1 after a header, read by a decoder told format 2. */
	len = put_header(b, PERF_DTL_FORMAT_ENTRY, PERF_DTL_HEADER_SIZE);
	memcpy(b + len, &want[0], sizeof(want[0]));
	len += sizeof(want[0]);
	len += put_header(b + len, PERF_DTL_FORMAT_ENTRY, PERF_DTL_HEADER_SIZE);
	memcpy(b + len, &want[1], sizeof(want[1]));
	len += sizeof(want[1]);
	dtl_decoder_init(&d, 1, PERF_DTL_FORMAT_COMPACT);
	CHECK(compact_same(&d, b, len, want, 2) && d.headers == 2 &&
	      d.format == PERF_DTL_FORMAT_ENTRY,
	      "header: records of format 1 decode after their headers");

	/* A newer kernel's longer header: the records begin after it. */
	len = put_header(b, PERF_DTL_FORMAT_COMPACT, 3 * PERF_DTL_SLOT_SIZE);
	len += put_long(b + len, &want[0]);
	dtl_decoder_init(&d, 1, PERF_DTL_FORMAT_COMPACT);
	CHECK(compact_same(&d, b, len, want, 1) && d.headers == 1,
	      "header: a 96-byte header is skipped whole");
	len = put_header(b, PERF_DTL_FORMAT_COMPACT, PERF_DTL_HEADER_SIZE);
	len += put_long(b + len, &want[0]);
	b[2] = 40;	/* size 40: not a multiple of a slot */
	dtl_decoder_init(&d, 1, PERF_DTL_FORMAT_COMPACT);
	n = decode(&d, b, len, &end_pos);
	CHECK(n == 1 && d.corrupt == 1 && strstr(d.err, "a header of size 40"),
	      "header: a header of a bad size is skipped: \"%s\"", d.err);

	/* The other byte order, which the magic tells. */
	len = put_header(b, PERF_DTL_FORMAT_COMPACT, PERF_DTL_HEADER_SIZE);
	swap_fields(b, hdr_sz, 4);
	len += put_long(b + len, &want[0]);
	swap_fields(b + PERF_DTL_HEADER_SIZE, long_sz, 13);
	len += put_short(b + len, &want[1], want[0].time);
	swap_fields(b + 2 * PERF_DTL_HEADER_SIZE, short_sz, 10);
	dtl_decoder_init(&d, 1, PERF_DTL_FORMAT_COMPACT);
	CHECK(compact_same(&d, b, len, want, 2) && d.swap,
	      "header: records of the other byte order decode, as its magic says");

	/* A format this decoder does not know: skipped to the next header. */
	len = put_header(b, 9, PERF_DTL_HEADER_SIZE);
	memset(b + len, 0x5a, 3 * PERF_DTL_SLOT_SIZE);
	len += 3 * PERF_DTL_SLOT_SIZE;
	len += put_header(b + len, PERF_DTL_FORMAT_COMPACT, PERF_DTL_HEADER_SIZE);
	len += put_long(b + len, &want[0]);
	dtl_decoder_init(&d, 1, PERF_DTL_FORMAT_COMPACT);
	n = decode_nth(&d, b, len, &end_pos, 1, &e);
	CHECK(n == 1 && d.corrupt == 1 && d.unknown_format == 96 &&
	      strstr(d.err, "format 9") && e.seq == 100 && end_pos == len,
	      "header: 96 bytes of format 9 are skipped up to the next header: \"%s\"",
	      d.err);

	/* Half a header is left for the data that comes next. */
	len = put_header(b, PERF_DTL_FORMAT_COMPACT, PERF_DTL_HEADER_SIZE);
	dtl_decoder_init(&d, 1, PERF_DTL_FORMAT_COMPACT);
	n = decode(&d, b, PERF_DTL_SLOT_SIZE, &end_pos);
	CHECK(n == 0 && end_pos == 0 && !d.corrupt && !d.headers,
	      "header: half a header is not read");
}

int main(void)
{
	struct perf_dtl_entry buf[8], e;
	struct dtl_decoder d;
	char line[256];
	size_t end;
	int n;

	printf("TAP version 13\n1..40\n");

	buf[0] = rec(PERF_DTL_KIND_BLOCK, 0, 5, 100);
	buf[1] = rec(PERF_DTL_KIND_DISPATCH, 0, 6, 200);
	buf[2] = rec(PERF_DTL_KIND_PREEMPT, 0, 7, 300);
	dtl_decoder_init(&d, 0, PERF_DTL_FORMAT_ENTRY);
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 3 && !d.corrupt && end == 3 * sizeof(buf[0]),
	      "three valid records decode (%d, %llu corrupt)", n, d.corrupt);

	dtl_decoder_init(&d, 0, PERF_DTL_FORMAT_ENTRY);
	n = decode(&d, buf, 3 * sizeof(buf[0]) - 8, &end);
	CHECK(n == 2 && end == 2 * sizeof(buf[0]),
	      "a truncated record is left, not decoded (%d decoded, %zu of %zu bytes)",
	      n, end, 3 * sizeof(buf[0]) - 8);

	buf[1].kind = 99;
	dtl_decoder_init(&d, 0, PERF_DTL_FORMAT_ENTRY);
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 2 && d.corrupt == 1, "a record of unknown kind is skipped");
	CHECK(strstr(d.err, "unknown kind 99") && strstr(d.err, "offset 64"),
	      "and named: \"%s\"", d.err);
	buf[1].kind = PERF_DTL_KIND_DISPATCH;

	buf[2].cpu = 5;
	dtl_decoder_init(&d, 0, PERF_DTL_FORMAT_ENTRY);
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 2 && strstr(d.err, "record of cpu 5"),
	      "a record of another CPU is skipped: \"%s\"", d.err);
	dtl_decoder_init(&d, -1, PERF_DTL_FORMAT_ENTRY);
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 3, "in a per-task stream records of any CPU are valid");
	buf[2].cpu = 0;

	buf[2].time = 150;
	dtl_decoder_init(&d, 0, PERF_DTL_FORMAT_ENTRY);
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 2 && strstr(d.err, "time going back to 150"),
	      "time going back on a CPU is skipped: \"%s\"", d.err);
	buf[2].time = 300;

	buf[1].flags = 0x80 | PERF_DTL_F_NEXT_KTHREAD;
	dtl_decoder_init(&d, 0, PERF_DTL_FORMAT_ENTRY);
	n = decode_nth(&d, buf, 3 * sizeof(buf[0]), &end, 2, &e);
	CHECK(n == 3 && !d.corrupt && d.unknown_flags == 1 &&
	      e.flags == PERF_DTL_F_NEXT_KTHREAD,
	      "unknown flags are counted and cleared, the record kept (%d, flags %u)",
	      n, e.flags);
	dtl_decoder_init(&d, 0, PERF_DTL_FORMAT_ENTRY);
	end = sizeof(buf[0]);
	n = dtl_decoder_next(&d, buf, 3 * sizeof(buf[0]), &end, &e);
	n += dtl_decoder_next(&d, buf, 3 * sizeof(buf[0]), &end, &e);
	dtl_decoder_consume(&d, &e, &end);
	CHECK(n == 2 && d.unknown_flags == 1,
	      "a record read twice (perf peeks) counts once (%llu)", d.unknown_flags);
	buf[1].flags = 0;

	/* Nothing beyond the recording machine's CPUs is trusted. */
	buf[1].cpu = 4;
	dtl_decoder_init(&d, -1, PERF_DTL_FORMAT_ENTRY);
	d.nr_cpus = 4;
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 2 && strstr(d.err, "did not have: cpu 4"),
	      "in a per-task stream, a record of cpu 4 of 4 is skipped: \"%s\"", d.err);
	dtl_decoder_init(&d, -1, PERF_DTL_FORMAT_ENTRY);
	d.nr_cpus = 5;
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 3, "... and one of cpu 4 of 5 decodes");
	buf[1] = rec(PERF_DTL_KIND_MIGRATE, 0, 6, 200);
	buf[1].from_cpu = 0;
	buf[1].to_cpu = 2;
	dtl_decoder_init(&d, 0, PERF_DTL_FORMAT_ENTRY);
	d.nr_cpus = 2;
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 2 && strstr(d.err, "to or from cpu 2"),
	      "a migration to cpu 2 of 2 is skipped: \"%s\"", d.err);

	buf[1] = rec(PERF_DTL_KIND_LOST, 0, 20, 50);
	buf[1].lost = 13;
	buf[1].lapped = 7;
	dtl_decoder_init(&d, 0, PERF_DTL_FORMAT_ENTRY);
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 3 && d.lost == 20 && d.records == 2 && !d.corrupt,
	      "a LOST record counts its lost and lapped records, at any time (lost %llu)",
	      d.lost);

	buf[1] = rec(PERF_DTL_KIND_MIGRATE, 0, 6, 200);
	buf[1].from_cpu = 0;
	buf[1].to_cpu = 70000;
	dtl_decoder_init(&d, 0, PERF_DTL_FORMAT_ENTRY);
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 2 && strstr(d.err, "cpu 70000"),
	      "a migration to an impossible CPU is skipped: \"%s\"", d.err);

	/* A second snapshot that overlaps the first: seen records dropped. */
	buf[0] = rec(PERF_DTL_KIND_BLOCK, 0, 5, 100);
	buf[1] = rec(PERF_DTL_KIND_DISPATCH, 0, 6, 200);
	buf[2] = rec(PERF_DTL_KIND_PREEMPT, 0, 7, 300);
	buf[3] = rec(PERF_DTL_KIND_BLOCK, 0, 6, 200);
	buf[4] = rec(PERF_DTL_KIND_DISPATCH, 0, 7, 300);
	buf[5] = rec(PERF_DTL_KIND_PREEMPT, 0, 8, 400);
	dtl_decoder_init(&d, 0, PERF_DTL_FORMAT_ENTRY);
	n = decode(&d, buf, 6 * sizeof(buf[0]), &end);
	CHECK(n == 4 && d.dups == 2 && !d.corrupt,
	      "overlapping snapshots: %d new records, %llu seen before", n,
	      d.dups);

	/* Written with the other byte order: the same records. */
	{
		unsigned char *b = (unsigned char *)&buf[6];
		struct perf_dtl_entry want = rec(PERF_DTL_KIND_BLOCK, 3, 0x0102030405060708ULL, 5000);

		want.flags = PERF_DTL_F_NEXT_KTHREAD;
		want.steal_ns = 0x11223344;
		memcpy(b, &want, sizeof(want));
		/* Reverse each field: u64 time, seq; 4 u32; 3 u64; u32; u8 u8; u16. */
		{
			static const int sz[] = { 8, 8, 4, 4, 4, 4, 8, 8, 8, 4, 1, 1, 2 };
			int f, k, off = 0;

			for (f = 0; f < 13; f++) {
				for (k = 0; k < sz[f] / 2; k++) {
					unsigned char c = b[off + k];

					b[off + k] = b[off + sz[f] - 1 - k];
					b[off + sz[f] - 1 - k] = c;
				}
				off += sz[f];
			}
		}
		dtl_decoder_init(&d, 3, PERF_DTL_FORMAT_ENTRY);
		d.swap = true;
		n = decode_nth(&d, &buf[6], sizeof(buf[0]), &end, 1, &e);
		CHECK(n == 1 && !memcmp(&e, &want, sizeof(e)),
		      "a record of the other byte order decodes to the same fields (%d, seq %#llx, cpu %u)",
		      n, e.seq, e.cpu);
		dtl_decoder_init(&d, 3, PERF_DTL_FORMAT_ENTRY);
		n = decode(&d, &buf[6], sizeof(buf[0]), &end);
		CHECK(n == 0 && d.corrupt == 1,
		      "... and is not trusted unswapped: \"%s\"", d.err);
	}

	dtl_entry_snprintf(line, sizeof(line), &buf[0], "sh", "sleep");
	CHECK(!strcmp(line, "   block seq=5 sh:10/10 ran=2000 steal=0 => sleep:11/11 wait=500 blocked=1000"),
	      "a block record prints all fields: \"%s\"", line);
	{
		char small[10] = "xxxxxxxxx";
		int full = strlen(line);

		n = dtl_entry_snprintf(small, sizeof(small), &buf[0], "sh", "sleep");
		CHECK(n == full && strlen(small) == 9 && !strncmp(small, line, 9) &&
		      dtl_entry_snprintf(NULL, 0, &buf[0], "sh", "sleep") == full,
		      "a record cut to fit ends in a NUL and returns its length, as snprintf (%d)",
		      n);
	}
	buf[0].flags = PERF_DTL_F_BLOCKED_UNKNOWN | PERF_DTL_F_STEAL_SATURATED;
	dtl_entry_snprintf(line, sizeof(line), &buf[0], NULL, NULL);
	CHECK(strstr(line, "steal=0+") && strstr(line, "blocked=?") &&
	      strstr(line, " -:10/10"),
	      "unknown values and names print as ? and -: \"%s\"", line);
	buf[1] = rec(PERF_DTL_KIND_MIGRATE, 0, 6, 200);
	buf[1].from_cpu = 0;
	buf[1].to_cpu = 1;
	dtl_entry_snprintf(line, sizeof(line), &buf[1], "kworker", NULL);
	CHECK(!strcmp(line, " migrate seq=6 kworker:10/10 cpu 0 -> 1"),
	      "a migration prints the CPUs: \"%s\"", line);
	CHECK(!strcmp(dtl_kind_name(200), "unknown"),
	      "an unknown kind has a name");

	test_compact();
	test_header();

	printf("# %d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
