// SPDX-License-Identifier: GPL-2.0-only
/*
 * P3: the cost of reading a dtl counter of the calling task from the perf
 * mmap page (dtl_self_read(), no system call) against read(), in guest
 * time.  Prints "P3 selfread <ns/op>" and "P3 read <ns/op>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "dtl_self.h"

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	long n = argc > 1 ? atol(argv[1]) : 200000, i;
	struct dtl_self_value v;
	unsigned long long sum = 0, val;
	void *pc;
	double t0;
	FILE *f;
	int fd;

	f = fopen("/sys/bus/event_source/devices/dtl/type", "r");
	if (!f || fscanf(f, "%u", &attr.type) != 1)
		return 2;
	fclose(f);
	attr.config = 0x01;	/* dispatches */
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return 1;
	pc = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (pc == MAP_FAILED)
		return 1;

	t0 = now_ns();
	for (i = 0; i < n; i++) {
		dtl_self_read(pc, &v);
		sum += v.value;
	}
	printf("P3 selfread %.1f\n", (now_ns() - t0) / n);

	t0 = now_ns();
	for (i = 0; i < n / 10; i++) {
		if (read(fd, &val, sizeof(val)) != sizeof(val))
			return 1;
		sum += val;
	}
	printf("P3 read %.1f\n", (now_ns() - t0) / (n / 10));
	return sum == 42;	/* keep the loops */
}
