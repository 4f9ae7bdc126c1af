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

int main(void)
{
	struct perf_dtl_entry buf[8], e;
	struct dtl_decoder d;
	char line[256];
	size_t end;
	int n;

	printf("TAP version 13\n1..21\n");

	buf[0] = rec(PERF_DTL_KIND_BLOCK, 0, 5, 100);
	buf[1] = rec(PERF_DTL_KIND_DISPATCH, 0, 6, 200);
	buf[2] = rec(PERF_DTL_KIND_PREEMPT, 0, 7, 300);
	dtl_decoder_init(&d, 0);
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 3 && !d.corrupt && end == 3 * sizeof(buf[0]),
	      "three valid records decode (%d, %llu corrupt)", n, d.corrupt);

	dtl_decoder_init(&d, 0);
	n = decode(&d, buf, 3 * sizeof(buf[0]) - 8, &end);
	CHECK(n == 2 && end == 2 * sizeof(buf[0]),
	      "a truncated record is left, not decoded (%d decoded, %zu of %zu bytes)",
	      n, end, 3 * sizeof(buf[0]) - 8);

	buf[1].kind = 99;
	dtl_decoder_init(&d, 0);
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 2 && d.corrupt == 1, "a record of unknown kind is skipped");
	CHECK(strstr(d.err, "unknown kind 99") && strstr(d.err, "offset 64"),
	      "and named: \"%s\"", d.err);
	buf[1].kind = PERF_DTL_KIND_DISPATCH;

	buf[2].cpu = 5;
	dtl_decoder_init(&d, 0);
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 2 && strstr(d.err, "record of cpu 5"),
	      "a record of another CPU is skipped: \"%s\"", d.err);
	dtl_decoder_init(&d, -1);
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 3, "in a per-task stream records of any CPU are valid");
	buf[2].cpu = 0;

	buf[2].time = 150;
	dtl_decoder_init(&d, 0);
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 2 && strstr(d.err, "time going back to 150"),
	      "time going back on a CPU is skipped: \"%s\"", d.err);
	buf[2].time = 300;

	buf[1].flags = 0x80 | PERF_DTL_F_NEXT_KTHREAD;
	dtl_decoder_init(&d, 0);
	n = decode_nth(&d, buf, 3 * sizeof(buf[0]), &end, 2, &e);
	CHECK(n == 3 && !d.corrupt && d.unknown_flags == 1 &&
	      e.flags == PERF_DTL_F_NEXT_KTHREAD,
	      "unknown flags are counted and cleared, the record kept (%d, flags %u)",
	      n, e.flags);
	dtl_decoder_init(&d, 0);
	end = sizeof(buf[0]);
	n = dtl_decoder_next(&d, buf, 3 * sizeof(buf[0]), &end, &e);
	n += dtl_decoder_next(&d, buf, 3 * sizeof(buf[0]), &end, &e);
	dtl_decoder_consume(&d, &e, &end);
	CHECK(n == 2 && d.unknown_flags == 1,
	      "a record read twice (perf peeks) counts once (%llu)", d.unknown_flags);
	buf[1].flags = 0;

	/* Nothing beyond the recording machine's CPUs is trusted. */
	buf[1].cpu = 4;
	dtl_decoder_init(&d, -1);
	d.nr_cpus = 4;
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 2 && strstr(d.err, "did not have: cpu 4"),
	      "in a per-task stream, a record of cpu 4 of 4 is skipped: \"%s\"", d.err);
	dtl_decoder_init(&d, -1);
	d.nr_cpus = 5;
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 3, "... and one of cpu 4 of 5 decodes");
	buf[1] = rec(PERF_DTL_KIND_MIGRATE, 0, 6, 200);
	buf[1].from_cpu = 0;
	buf[1].to_cpu = 2;
	dtl_decoder_init(&d, 0);
	d.nr_cpus = 2;
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 2 && strstr(d.err, "to or from cpu 2"),
	      "a migration to cpu 2 of 2 is skipped: \"%s\"", d.err);

	buf[1] = rec(PERF_DTL_KIND_LOST, 0, 20, 50);
	buf[1].lost = 13;
	buf[1].lapped = 7;
	dtl_decoder_init(&d, 0);
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 3 && d.lost == 20 && d.records == 2 && !d.corrupt,
	      "a LOST record counts its lost and lapped records, at any time (lost %llu)",
	      d.lost);

	buf[1] = rec(PERF_DTL_KIND_MIGRATE, 0, 6, 200);
	buf[1].from_cpu = 0;
	buf[1].to_cpu = 70000;
	dtl_decoder_init(&d, 0);
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
	dtl_decoder_init(&d, 0);
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
		dtl_decoder_init(&d, 3);
		d.swap = true;
		n = decode_nth(&d, &buf[6], sizeof(buf[0]), &end, 1, &e);
		CHECK(n == 1 && !memcmp(&e, &want, sizeof(e)),
		      "a record of the other byte order decodes to the same fields (%d, seq %#llx, cpu %u)",
		      n, e.seq, e.cpu);
		dtl_decoder_init(&d, 3);
		n = decode(&d, &buf[6], sizeof(buf[0]), &end);
		CHECK(n == 0 && d.corrupt == 1,
		      "... and is not trusted unswapped: \"%s\"", d.err);
	}

	dtl_entry_snprintf(line, sizeof(line), &buf[0], "sh", "sleep");
	CHECK(!strcmp(line, "   block seq=5 sh:10/10 ran=2000 steal=0 => sleep:11/11 wait=500 blocked=1000"),
	      "a block record prints all fields: \"%s\"", line);
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

	printf("# %d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
