// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers for the open/close-storm benchmark (bench/guest-p7.sh).
 *
 *   dtl_storm open TYPE CONFIG N   open and close a counting event of the
 *                                  calling thread N times (exclude_kernel:
 *                                  allowed to any user at paranoid 2)
 *   dtl_storm spin START STOP      busy work from START's creation to
 *                                  STOP's; prints the work done per ms
 *   dtl_storm busy MS              busy in user space for MS ms
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "open")) {
		struct perf_event_attr attr;
		long i, n = atol(argv[4]);

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = atoi(argv[2]);
		attr.config = strtoull(argv[3], NULL, 0);
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		for (i = 0; i < n; i++) {
			int fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);

			if (fd < 0) {
				perror("perf_event_open");
				return 1;
			}
			close(fd);
		}
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "spin")) {
		volatile unsigned long x = 0;
		unsigned long long t0, n = 0;
		long i;

		/* Busy from START's creation to STOP's: work done per ms. */
		while (access(argv[2], F_OK))
			for (i = 0; i < 100000; i++)
				x += i;
		t0 = now_ns();
		while (access(argv[3], F_OK)) {
			for (i = 0; i < 2000; i++)
				x += i;
			n++;
		}
		printf("%.3f\n", n * 2000.0 / ((now_ns() - t0) / 1e6));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "busy")) {
		unsigned long long end = now_ns() + atol(argv[2]) * 1000000ULL;

		while (now_ns() < end)
			;
		return 0;
	}
	fprintf(stderr, "usage: dtl_storm open TYPE CONFIG N | spin START STOP | busy MS\n");
	return 2;
}
