// SPDX-License-Identifier: GPL-2.0-only
/*
 * dtl_self_example: a task counts its own dispatches and run-queue wait
 * with libperf and reads them with dtl_self_read(), no system call, while
 * it alternates sleeping and running; each time it checks the self-read
 * against read().
 *
 *   make -C tools/dtl    (builds libperf in tools/lib/perf first)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <perf/core.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>

#include "dtl_self.h"

#define DTL_SYSFS "/sys/bus/event_source/devices/dtl"

/* Scan one value from a sysfs file with @fmt. */
static int sysfs_scan(const char *path, const char *fmt,
		      unsigned long long *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, fmt, v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

static void spin_ms(int ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 +
		 (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv)
{
	static const char * const names[] = { "dispatches", "wait_ns" };
	struct perf_evsel *evsel[2];
	struct perf_thread_map *self;
	unsigned long long type;
	int rounds = argc > 1 ? atoi(argv[1]) : 20, i, j, bad = 0;

	if (sysfs_scan(DTL_SYSFS "/type", "%llu", &type)) {
		fprintf(stderr, "dtl is not loaded\n");
		return 2;
	}
	libperf_init(NULL);
	self = perf_thread_map__new_dummy();
	perf_thread_map__set_pid(self, 0, 0);
	for (j = 0; j < 2; j++) {
		struct perf_event_attr attr = {
			.size = sizeof(attr),
			.type = type,
			/* Unprivileged at perf_event_paranoid 2: user side. */
			.exclude_kernel = geteuid() != 0,
		};
		unsigned long long config;
		char path[256];

		snprintf(path, sizeof(path), DTL_SYSFS "/events/%s", names[j]);
		if (sysfs_scan(path, "event=%llx", &config))
			return 2;
		attr.config = config;
		evsel[j] = perf_evsel__new(&attr);
		if (!evsel[j] || perf_evsel__open(evsel[j], NULL, self) ||
		    perf_evsel__mmap(evsel[j], 0)) {
			fprintf(stderr, "%s: %s\n", names[j], strerror(errno));
			return 1;
		}
	}

	for (i = 0; i < rounds; i++) {
		struct timespec t = { 0, 1000000 };

		nanosleep(&t, NULL);		/* one dispatch */
		spin_ms(i % 3);			/* run */
		for (j = 0; j < 2; j++) {
			void *page = perf_evsel__mmap_base(evsel[j], 0, 0);
			struct perf_counts_values c = { .val = 0 };
			struct dtl_self_value v, after;
			int tries = 0;

			/*
			 * A dispatch between the two reads changes the value:
			 * read() between two self-reads, again if they differ.
			 */
			do {
				if (dtl_self_read(page, &v) ||
				    perf_evsel__read(evsel[j], 0, 0, &c) ||
				    dtl_self_read(page, &after))
					return 1;
			} while (v.value != after.value && ++tries < 10);
			if (v.value != c.val)
				bad++;
			if (i == rounds - 1 || v.value != c.val)
				printf("%-10s self-read %llu  read() %llu%s\n",
				       names[j], (unsigned long long)v.value,
				       (unsigned long long)c.val,
				       v.value == c.val ? "" : "  MISMATCH");
		}
	}
	for (j = 0; j < 2; j++) {
		perf_evsel__munmap(evsel[j]);
		perf_evsel__close(evsel[j]);
		perf_evsel__delete(evsel[j]);
	}
	perf_thread_map__put(self);
	printf("%d rounds, %d mismatches\n", rounds, bad);
	return bad ? 1 : 0;
}
