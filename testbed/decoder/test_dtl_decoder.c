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

static struct dtl_entry rec(unsigned int kind, unsigned int cpu,
			    unsigned long long seq, unsigned long long time)
{
	struct dtl_entry e;

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

/* Decode @len bytes of @buf; return records decoded, fill the last error. */
static int decode(struct dtl_decoder *d, const void *buf, size_t len,
		  size_t *end)
{
	struct dtl_entry e;
	size_t pos = 0;
	int ret, n = 0;

	while ((ret = dtl_decoder_next(d, buf, len, &pos, &e))) {
		if (ret < 0)
			continue;
		dtl_decoder_consume(d, &e, &pos);
		n++;
	}
	*end = pos;
	return n;
}

int main(void)
{
	struct dtl_entry buf[8];
	struct dtl_decoder d;
	char line[256];
	size_t end;
	int n;

	printf("TAP version 13\n1..15\n");

	buf[0] = rec(DTL_KIND_BLOCK, 0, 5, 100);
	buf[1] = rec(DTL_KIND_DISPATCH, 0, 6, 200);
	buf[2] = rec(DTL_KIND_PREEMPT, 0, 7, 300);
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
	buf[1].kind = DTL_KIND_DISPATCH;

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

	buf[1].flags = 0x80;
	dtl_decoder_init(&d, 0);
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 2 && strstr(d.err, "unknown flags 128"),
	      "unknown flags are skipped: \"%s\"", d.err);
	buf[1].flags = 0;

	buf[1] = rec(DTL_KIND_LOST, 0, 20, 50);
	buf[1].lost = 13;
	buf[1].lapped = 7;
	dtl_decoder_init(&d, 0);
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 3 && d.lost == 20 && d.records == 2 && !d.corrupt,
	      "a LOST record counts its lost and lapped records, with the drain's time (lost %llu)",
	      d.lost);

	buf[1] = rec(DTL_KIND_MIGRATE, 0, 6, 200);
	buf[1].from_cpu = 0;
	buf[1].to_cpu = 70000;
	dtl_decoder_init(&d, 0);
	n = decode(&d, buf, 3 * sizeof(buf[0]), &end);
	CHECK(n == 2 && strstr(d.err, "cpu 70000"),
	      "a migration to an impossible CPU is skipped: \"%s\"", d.err);

	/* A second snapshot that overlaps the first: seen records dropped. */
	buf[0] = rec(DTL_KIND_BLOCK, 0, 5, 100);
	buf[1] = rec(DTL_KIND_DISPATCH, 0, 6, 200);
	buf[2] = rec(DTL_KIND_PREEMPT, 0, 7, 300);
	buf[3] = rec(DTL_KIND_BLOCK, 0, 6, 200);
	buf[4] = rec(DTL_KIND_DISPATCH, 0, 7, 300);
	buf[5] = rec(DTL_KIND_PREEMPT, 0, 8, 400);
	dtl_decoder_init(&d, 0);
	n = decode(&d, buf, 6 * sizeof(buf[0]), &end);
	CHECK(n == 4 && d.dups == 2 && !d.corrupt,
	      "overlapping snapshots: %d new records, %llu seen before", n,
	      d.dups);

	dtl_entry_snprintf(line, sizeof(line), &buf[0], "sh", "sleep");
	CHECK(!strcmp(line, "   block seq=5 sh:10/10 ran=2000 steal=0 => sleep:11/11 wait=500 blocked=1000"),
	      "a block record prints all fields: \"%s\"", line);
	buf[0].flags = DTL_F_BLOCKED_UNKNOWN | DTL_F_STEAL_SATURATED;
	dtl_entry_snprintf(line, sizeof(line), &buf[0], NULL, NULL);
	CHECK(strstr(line, "steal=0+") && strstr(line, "blocked=?") &&
	      strstr(line, " -:10/10"),
	      "unknown values and names print as ? and -: \"%s\"", line);
	buf[1] = rec(DTL_KIND_MIGRATE, 0, 6, 200);
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
