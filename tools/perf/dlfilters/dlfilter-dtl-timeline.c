// SPDX-License-Identifier: GPL-2.0-only
/*
 * dlfilter-dtl-timeline.c: a dtl recording as a timeline that Perfetto
 * (ui.perfetto.dev) and chrome://tracing open.
 *
 *   perf record -e dtl/all/ -a -- workload
 *   perf script --dlfilter dlfilter-dtl-timeline.so [--dlarg FILE]...
 *
 * writes the Chrome trace-event JSON format to FILE (default
 * dtl-timeline.json), one event per line, and, for an argument that ends
 * in ".svg", a picture of the same tracks to that file, for a short
 * recording (as "perf timechart" draws one).  The JSON has:
 *
 *  - a track per CPU ("CPU n" of the process "CPUs"), with a slice for
 *    each run of a task on it: from the switch-in to the switch-out,
 *    ran_ns long, named "comm:tid"; an instant at each preemption
 *    ("preempt") and each switch away from idle ("dispatch"), and one for
 *    each LOST record; a counter of the steal time of each run;
 *  - a track per task (thread tid of process pid, as perf names them),
 *    with its states: "Running" (ran_ns, and the CPU), "Runnable" (the
 *    wait_ns before a dispatch) and "Sleeping" (the blocked_ns before the
 *    wakeup that queued it, where dtl knows it); an instant at each of
 *    its migrations.
 *
 * Every slice and instant of a record carries its CPU and sequence
 * number in "args".  The idle task (tid 0) and tasks outside the
 * tracer's pid namespace (0 too) get no slices.  All samples are
 * filtered out of perf script's own output.
 */
#include "dlfilter-dtl.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SVG_WIDTH	1200	/* pixels for the time axis */
#define SVG_LABEL	160	/* pixels for the tracks' names */
#define SVG_ROW		18
/* Above any pid (PID_MAX_LIMIT is 4194304): the CPUs' tracks. */
#define CPUS_PID	4194304

/* Filled in by perf. */
struct perf_dlfilter_fns perf_dlfilter_fns;

static FILE *out;
static const char *path = "dtl-timeline.json", *svg_path;
static unsigned long long nr_events;
static bool failed;

/* What the SVG draws: slices of CPU tracks (@row < 0: CPU -@row - 1). */
enum state { RUNNING, RUNNABLE, SLEEPING };

struct svg_slice {
	long long row;		/* CPU -row - 1, or a task's tid */
	__u64 start, dur;
	__u32 tid;		/* CPU slices: the task that ran */
	enum state state;
};

struct svg_row {
	long long id;
	char name[40];
};

static struct svg_slice *svg_slices;
static size_t svg_nr, svg_alloc;
static struct svg_row *svg_rows;
static size_t svg_nr_rows, svg_rows_alloc;
static __u64 svg_min = ~0ULL, svg_max;

/* Ids already named in a metadata event: open addressing, power of 2. */
struct idset {
	long long *v;
	size_t nr, alloc;
};

static struct idset tids_named, pids_named, cpus_named;

/* Add @id; true if it was not there, false if it was (or no memory). */
static bool idset_add(struct idset *s, long long id)
{
	size_t i;

	if (2 * (s->nr + 1) > s->alloc) {
		size_t alloc = s->alloc ? 2 * s->alloc : 64, j;
		long long *v = malloc(alloc * sizeof(*v));

		if (!v) {
			failed = true;
			return false;
		}
		for (j = 0; j < alloc; j++)
			v[j] = -1;
		for (j = 0; j < s->alloc; j++) {
			if (s->v[j] < 0)
				continue;
			i = (size_t)(s->v[j] * 2654435761ULL) & (alloc - 1);
			while (v[i] >= 0)
				i = (i + 1) & (alloc - 1);
			v[i] = s->v[j];
		}
		free(s->v);
		s->v = v;
		s->alloc = alloc;
	}
	i = (size_t)(id * 2654435761ULL) & (s->alloc - 1);
	while (s->v[i] >= 0) {
		if (s->v[i] == id)
			return false;
		i = (i + 1) & (s->alloc - 1);
	}
	s->v[i] = id;
	s->nr++;
	return true;
}

/* A name as a JSON string's contents. */
static void put_name(const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
}

/* ns as the format's microseconds, exactly. */
static void put_us(const char *key, unsigned long long ns)
{
	fprintf(out, ",\"%s\":%llu.%03llu", key, ns / 1000, ns % 1000);
}

/* Begin an event: the first has no comma before it. */
static void begin(const char *ph, long long pid, long long tid)
{
	fprintf(out, "%s{\"ph\":\"%s\",\"pid\":%lld,\"tid\":%lld",
		nr_events++ ? ",\n" : "\n", ph, pid, tid);
}

static void meta(const char *what, long long pid, long long tid,
		 const char *name)
{
	begin("M", pid, tid);
	fprintf(out, ",\"name\":\"%s\",\"args\":{\"name\":\"", what);
	put_name(name);
	fputs("\"}}", out);
}

static void svg_row_add(long long id, const char *name)
{
	size_t i;

	for (i = 0; i < svg_nr_rows; i++)
		if (svg_rows[i].id == id)
			return;
	if (svg_nr_rows == svg_rows_alloc) {
		size_t alloc = svg_rows_alloc ? 2 * svg_rows_alloc : 64;
		struct svg_row *r = realloc(svg_rows, alloc * sizeof(*r));

		if (!r) {
			failed = true;
			return;
		}
		svg_rows = r;
		svg_rows_alloc = alloc;
	}
	svg_rows[svg_nr_rows].id = id;
	snprintf(svg_rows[svg_nr_rows].name, sizeof(svg_rows[0].name), "%s", name);
	svg_nr_rows++;
}

static void svg_add(long long row, __u64 end, __u64 dur, __u32 tid,
		    enum state state)
{
	if (!svg_path)
		return;
	if (svg_nr == svg_alloc) {
		size_t alloc = svg_alloc ? 2 * svg_alloc : 1024;
		struct svg_slice *v = realloc(svg_slices, alloc * sizeof(*v));

		if (!v) {
			failed = true;
			return;
		}
		svg_slices = v;
		svg_alloc = alloc;
	}
	svg_slices[svg_nr++] = (struct svg_slice){ row, end - dur, dur, tid, state };
}

/* The picture spans the records' times: earlier sleeps are cut. */
static void svg_time(__u64 t)
{
	if (t < svg_min)
		svg_min = t;
	if (t > svg_max)
		svg_max = t;
}

static void name_cpu(int cpu)
{
	char name[32];

	if (!cpus_named.nr && idset_add(&pids_named, CPUS_PID))
		meta("process_name", CPUS_PID, CPUS_PID, "CPUs");
	if (!idset_add(&cpus_named, cpu))
		return;
	snprintf(name, sizeof(name), "CPU %d", cpu);
	if (svg_path)
		svg_row_add(-(long long)cpu - 1, name);
	meta("thread_name", CPUS_PID, CPUS_PID + cpu, name);
	/* Sort the CPUs' tracks by number. */
	begin("M", CPUS_PID, CPUS_PID + cpu);
	fprintf(out, ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%d}}",
		cpu);
}

static void name_task(__u32 pid, __u32 tid, const char *comm)
{
	char name[32];

	if (idset_add(&pids_named, pid)) {
		snprintf(name, sizeof(name), "pid %u", pid);
		meta("process_name", pid, pid, name);
	}
	if (idset_add(&tids_named, tid)) {
		if (comm && comm[0])
			snprintf(name, sizeof(name), "%.16s:%u", comm, tid);
		else
			snprintf(name, sizeof(name), "tid %u", tid);
		meta("thread_name", pid, tid, name);
		if (svg_path)
			svg_row_add(tid, name);
	}
}

/* A slice (ph X) of @dur ns ending at @end on the track pid/tid. */
static void slice(long long pid, long long tid, __u64 end, __u64 dur,
		  const char *name, const char *comm, __u32 name_tid,
		  const struct perf_dtl_entry *e)
{
	begin("X", pid, tid);
	put_us("ts", end - dur);
	put_us("dur", dur);
	fputs(",\"name\":\"", out);
	if (comm) {
		put_name(comm);
		fprintf(out, ":%u", name_tid);
	} else {
		put_name(name);
	}
	fprintf(out, "\",\"args\":{\"cpu\":%u,\"seq\":%llu}}", e->cpu,
		(unsigned long long)e->seq);
}

static void instant(long long pid, long long tid, __u64 ts, const char *name,
		    const struct perf_dtl_entry *e)
{
	begin("i", pid, tid);
	put_us("ts", ts);
	fprintf(out, ",\"s\":\"t\",\"name\":\"%s\",\"args\":{\"cpu\":%u,\"seq\":%llu}}",
		name, e->cpu, (unsigned long long)e->seq);
}

int start(void **data, void *ctx)
{
	int argc, i;
	char **argv = perf_dlfilter_fns.args(ctx, &argc);

	for (i = 0; i < argc; i++) {
		size_t len = strlen(argv[i]);

		if (len > 4 && !strcmp(argv[i] + len - 4, ".svg"))
			svg_path = argv[i];
		else
			path = argv[i];
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
	return 0;
}

static void add_switch(const struct perf_dtl_entry *e, const char *prev_comm,
		       const char *next_comm)
{
	long long cpu_tid = CPUS_PID + e->cpu;
	__u64 t = e->time;

	name_cpu(e->cpu);
	svg_time(t - (e->ran_ns <= t ? e->ran_ns : 0));
	svg_time(t);
	if (e->prev_tid && e->ran_ns && e->ran_ns <= t) {
		name_task(e->prev_pid, e->prev_tid, prev_comm);
		slice(CPUS_PID, cpu_tid, t, e->ran_ns, NULL,
		      prev_comm ? prev_comm : "?", e->prev_tid, e);
		slice(e->prev_pid, e->prev_tid, t, e->ran_ns, "Running", NULL,
		      0, e);
		svg_add(-(long long)e->cpu - 1, t, e->ran_ns, e->prev_tid, RUNNING);
		svg_add(e->prev_tid, t, e->ran_ns, e->prev_tid, RUNNING);
	}
	if (e->steal_ns) {
		begin("C", CPUS_PID, cpu_tid);
		put_us("ts", t - (e->ran_ns <= t ? e->ran_ns : 0));
		fprintf(out, ",\"name\":\"steal CPU %u\",\"args\":{\"steal_ns\":%u}}",
			e->cpu, e->steal_ns);
		begin("C", CPUS_PID, cpu_tid);
		put_us("ts", t);
		fprintf(out, ",\"name\":\"steal CPU %u\",\"args\":{\"steal_ns\":0}}",
			e->cpu);
	}
	if (e->kind == PERF_DTL_KIND_PREEMPT)
		instant(CPUS_PID, cpu_tid, t, "preempt", e);
	else if (e->kind == PERF_DTL_KIND_DISPATCH)
		instant(CPUS_PID, cpu_tid, t, "dispatch", e);
	if (!e->next_tid)
		return;
	name_task(e->next_pid, e->next_tid, next_comm);
	if (e->wait_ns && e->wait_ns <= t) {
		slice(e->next_pid, e->next_tid, t, e->wait_ns, "Runnable", NULL,
		      0, e);
		svg_add(e->next_tid, t, e->wait_ns, e->next_tid, RUNNABLE);
	}
	if (!(e->flags & PERF_DTL_F_BLOCKED_UNKNOWN) && e->blocked_ns &&
	    e->wait_ns + e->blocked_ns <= t) {
		slice(e->next_pid, e->next_tid, t - e->wait_ns, e->blocked_ns,
		      "Sleeping", NULL, 0, e);
		svg_add(e->next_tid, t - e->wait_ns, e->blocked_ns, e->next_tid,
			SLEEPING);
	}
}

int filter_event(void *data, const struct perf_dlfilter_sample *sample,
		 void *ctx)
{
	const struct perf_dtl_entry *e;
	const char *prev_comm, *next_comm;
	char name[64];

	e = dtl_sample_entry(sample);
	if (!e || failed)
		return 1;
	prev_comm = dtl_sample_comm(sample, 0);
	next_comm = dtl_sample_comm(sample, 1);

	switch (e->kind) {
	case PERF_DTL_KIND_LOST:
		name_cpu(e->cpu);
		snprintf(name, sizeof(name), "lost %llu",
			 (unsigned long long)(e->lost + e->lapped));
		instant(CPUS_PID, CPUS_PID + e->cpu, e->time, name, e);
		break;
	case PERF_DTL_KIND_MIGRATE:
		if (!e->prev_tid)
			break;
		name_task(e->prev_pid, e->prev_tid, prev_comm);
		snprintf(name, sizeof(name), "migrate %u -> %u", e->from_cpu,
			 e->to_cpu);
		instant(e->prev_pid, e->prev_tid, e->time, name, e);
		break;
	case PERF_DTL_KIND_DISPATCH:
	case PERF_DTL_KIND_PREEMPT:
	case PERF_DTL_KIND_BLOCK:
	case PERF_DTL_KIND_EXIT:
		add_switch(e, prev_comm, next_comm);
		break;
	default:
		break;
	}
	if (ferror(out))
		failed = true;
	return 1;
}

/* A task's colour on the CPU tracks: a hue of its tid. */
static void svg_colour(FILE *f, __u32 tid, enum state state)
{
	if (state == RUNNABLE)
		fputs("#e4572e", f);
	else if (state == SLEEPING)
		fputs("#cfe3f5", f);
	else
		fprintf(f, "hsl(%u,55%%,55%%)", 90 + (tid * 137) % 240);
}

/* The picture: a row per CPU, then per task, time from left to right. */
static int svg_write(void)
{
	__u64 span = svg_max > svg_min ? svg_max - svg_min : 1;
	unsigned int height = (svg_nr_rows + 2) * SVG_ROW;
	size_t i, r, *pos;
	FILE *f;

	/* The CPUs' rows first, by number; then the tasks', as they came. */
	pos = calloc(svg_nr_rows ? svg_nr_rows : 1, sizeof(*pos));
	if (!pos)
		return -1;
	for (i = 0, r = 0; i < svg_nr_rows; i++)
		if (svg_rows[i].id < 0)
			r++;
	for (i = 0; i < svg_nr_rows; i++) {
		size_t before = 0, k;

		for (k = 0; k < svg_nr_rows; k++) {
			if (svg_rows[i].id < 0 && svg_rows[k].id < 0)
				before += svg_rows[k].id > svg_rows[i].id;
			else if (svg_rows[i].id >= 0 && svg_rows[k].id >= 0)
				before += k < i;
		}
		pos[i] = (svg_rows[i].id < 0 ? 0 : r) + before;
	}

	f = fopen(svg_path, "w");
	if (!f) {
		perror(svg_path);
		free(pos);
		return -1;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" font-family=\"sans-serif\" font-size=\"11\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		SVG_LABEL + SVG_WIDTH + 10, height);
	fprintf(f, "<text x=\"4\" y=\"%u\">dtl: %llu.%06llu s; %s</text>\n",
		SVG_ROW - 5, span / 1000000000ULL, span / 1000 % 1000000,
		"running (by task), runnable (red), sleeping (blue)");
	for (r = 0; r < svg_nr_rows; r++) {
		unsigned int y = (pos[r] + 1) * SVG_ROW;

		fprintf(f, "<text x=\"4\" y=\"%u\">", y + SVG_ROW - 5);
		for (i = 0; svg_rows[r].name[i]; i++) {
			char c = svg_rows[r].name[i];

			if (c == '<')
				fputs("&lt;", f);
			else if (c == '&')
				fputs("&amp;", f);
			else if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
				fputc('?', f);	/* not valid XML as it is */
			else
				fputc(c, f);
		}
		fputs("</text>", f);
		fprintf(f, "<line x1=\"%u\" x2=\"%u\" y1=\"%u\" y2=\"%u\" stroke=\"#eee\"/>\n",
			SVG_LABEL, SVG_LABEL + SVG_WIDTH, y + SVG_ROW, y + SVG_ROW);
	}
	for (i = 0; i < svg_nr; i++) {
		const struct svg_slice *s = &svg_slices[i];
		__u64 start = s->start > svg_min ? s->start : svg_min;
		__u64 end = s->start + s->dur;
		double x, w;

		if (end <= start)
			continue;
		x = SVG_LABEL + (double)(start - svg_min) * SVG_WIDTH / span;
		w = (double)(end - start) * SVG_WIDTH / span;
		for (r = 0; r < svg_nr_rows && svg_rows[r].id != s->row; r++)
			;
		if (r == svg_nr_rows)
			continue;
		fprintf(f, "<rect x=\"%.2f\" y=\"%zu\" width=\"%.2f\" height=\"%u\" fill=\"",
			x, (pos[r] + 1) * SVG_ROW + 2, w < 0.5 ? 0.5 : w, SVG_ROW - 4);
		svg_colour(f, s->tid, s->state);
		fprintf(f, "\"><title>%u: %llu ns</title></rect>\n", s->tid,
			(unsigned long long)s->dur);
	}
	fputs("</svg>\n", f);
	free(pos);
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "dlfilter-dtl-timeline: %s: write error\n", svg_path);
		return -1;
	}
	fprintf(stderr, "dlfilter-dtl-timeline: %zu slices in %zu rows in %s\n",
		svg_nr, svg_nr_rows, svg_path);
	return 0;
}

int stop(void *data, void *ctx)
{
	int ret = 0;

	/* perf calls stop() after a start() that failed too. */
	if (!out)
		return 0;
	if (svg_path && !failed && svg_write())
		ret = -1;
	free(svg_slices);
	free(svg_rows);
	fputs("\n]}\n", out);
	if (failed || ferror(out)) {
		fprintf(stderr, "dlfilter-dtl-timeline: %s: the timeline is incomplete (%s)\n",
			path, ferror(out) ? "write error" : "out of memory");
		ret = -1;
	}
	if (fclose(out))
		ret = -1;
	else
		fprintf(stderr, "dlfilter-dtl-timeline: %llu events in %s\n",
			nr_events, path);
	free(tids_named.v);
	free(pids_named.v);
	free(cpus_named.v);
	return ret;
}

const char *filter_description(const char **long_description)
{
	*long_description =
		"Arguments: the JSON file (default dtl-timeline.json), for ui.perfetto.dev or chrome://tracing; a FILE.svg for a picture.";
	return "dtl timeline: CPU and task tracks in the Chrome trace-event JSON format";
}
