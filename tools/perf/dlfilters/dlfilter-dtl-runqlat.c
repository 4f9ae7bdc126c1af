// SPDX-License-Identifier: GPL-2.0-only
/*
 * dlfilter-dtl-runqlat.c: wake-to-dispatch latency histograms per task, like
 * runqlat, from a dtl recording:
 *
 *   perf record -e dtl/all/ -a -- workload
 *   perf script --dlfilter dlfilter-dtl-runqlat.so [--dlarg min_wait_us]
 *
 * Each dispatch record of the synthesized "dtl" event adds its incoming
 * task's wait (wait_ns) to that task's log2 histogram in microseconds.  All
 * samples are filtered out of perf script's output; the histograms are
 * printed at the end.  Waits below the optional threshold are not counted.
 */
#include <perf/perf_dlfilter.h>
#include "../../include/uapi/linux/perf_dtl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NR_SLOTS	32
#define TABLE_SIZE	32768U

/* Filled in by perf. */
struct perf_dlfilter_fns perf_dlfilter_fns;

struct task_hist {
	__s32 tid;
	int used;
	char comm[16];
	__u64 count;
	__u64 total_ns;
	__u64 slots[NR_SLOTS];
};

static struct task_hist table[TABLE_SIZE];
static unsigned int nr_tasks, dropped;
static __u64 min_wait_ns;

static struct task_hist *find_task(__s32 tid)
{
	unsigned int pos = (unsigned int)tid & (TABLE_SIZE - 1);
	unsigned int n;

	for (n = 0; n < TABLE_SIZE; n++, pos = (pos + 1) & (TABLE_SIZE - 1)) {
		struct task_hist *t = &table[pos];

		if (t->used && t->tid == tid)
			return t;
		if (!t->used) {
			if (nr_tasks >= TABLE_SIZE / 2)
				return NULL;
			t->used = 1;
			t->tid = tid;
			nr_tasks++;
			return t;
		}
	}
	return NULL;
}

static unsigned int slot_of(__u64 us)
{
	unsigned int slot = 0;

	while (us > 1 && slot < NR_SLOTS - 1) {
		us >>= 1;
		slot++;
	}
	return us ? slot : 0;
}

int start(void **data, void *ctx)
{
	int argc;
	const char **argv = perf_dlfilter_fns.args(ctx, &argc);

	if (argc > 0)
		min_wait_ns = strtoull(argv[0], NULL, 0) * 1000;
	return 0;
}

int filter_event(void *data, const struct perf_dlfilter_sample *sample,
		 void *ctx)
{
	const struct perf_dlfilter_al *al;
	const struct dtl_entry *e;
	struct task_hist *t;

	/* Only the histograms are printed: filter out every sample. */
	if (!sample->event || strcmp(sample->event, "dtl") ||
	    sample->raw_size < 4 + sizeof(*e))
		return 1;

	/* The raw data starts with 4 bytes of padding, then the record. */
	e = (const struct dtl_entry *)((const char *)sample->raw_data + 4);
	if (e->kind == DTL_KIND_MIGRATE || e->kind == DTL_KIND_LOST ||
	    !e->next_tid || e->wait_ns < min_wait_ns)
		return 1;

	t = find_task(e->next_tid);
	if (!t) {
		dropped++;
		return 1;
	}
	/* The latest name: a task named at fork is renamed by exec. */
	al = perf_dlfilter_fns.resolve_ip(ctx);
	if (al && al->comm)
		snprintf(t->comm, sizeof(t->comm), "%s", al->comm);
	else if (!t->comm[0])
		snprintf(t->comm, sizeof(t->comm), "?");
	t->count++;
	t->total_ns += e->wait_ns;
	t->slots[slot_of(e->wait_ns / 1000)]++;
	return 1;
}

static int by_tid(const void *a, const void *b)
{
	const struct task_hist *x = *(const struct task_hist * const *)a;
	const struct task_hist *y = *(const struct task_hist * const *)b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static void print_hist(const struct task_hist *t)
{
	__u64 max = 0;
	int i, last = 0;

	for (i = 0; i < NR_SLOTS; i++) {
		if (t->slots[i] > max)
			max = t->slots[i];
		if (t->slots[i])
			last = i;
	}
	printf("\ntid = %d %s: %llu dispatches, wait avg %llu us\n", t->tid,
	       t->comm, (unsigned long long)t->count,
	       (unsigned long long)(t->total_ns / t->count / 1000));
	printf("%24s : %-8s |%-40s|\n", "usecs", "count", "distribution");
	for (i = 0; i <= last; i++) {
		unsigned long long lo = i ? 1ULL << i : 0;
		unsigned long long hi = (1ULL << (i + 1)) - 1;
		char bar[41];
		int n = max ? (int)(t->slots[i] * 40 / max) : 0;

		memset(bar, '*', n);
		bar[n] = '\0';
		printf("%10llu -> %-10llu : %-8llu |%-40s|\n", lo, hi,
		       (unsigned long long)t->slots[i], bar);
	}
}

int stop(void *data, void *ctx)
{
	struct task_hist **list = calloc(nr_tasks ? nr_tasks : 1, sizeof(*list));
	unsigned int i, n = 0;

	if (!list)
		return -1;
	for (i = 0; i < TABLE_SIZE; i++)
		if (table[i].used && table[i].count)
			list[n++] = &table[i];
	qsort(list, n, sizeof(*list), by_tid);
	printf("dtl wake-to-dispatch latency (wait_ns), %u tasks\n", n);
	for (i = 0; i < n; i++)
		print_hist(list[i]);
	if (dropped)
		printf("\n%u dispatches of tasks beyond %u not counted\n",
		       dropped, TABLE_SIZE / 2);
	free(list);
	return 0;
}

const char *filter_description(const char **long_description)
{
	*long_description = "Argument: the minimum wait in microseconds.";
	return "dtl run-queue latency histograms";
}
