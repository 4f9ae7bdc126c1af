// SPDX-License-Identifier: GPL-2.0-only
/*
 * dlfilter-dtl-runqlat.c: run-queue latency from a dtl recording.
 *
 *   perf record -e dtl/all/ -a -- workload
 *   perf script --dlfilter dlfilter-dtl-runqlat.so [--dlarg ARG]...
 *
 * Each dispatch record of the synthesized "dtl" event is a wait: the time
 * its incoming task was runnable before it got the CPU (wait_ns).  All
 * samples are filtered out of perf script's output; instead the filter
 * prints, after the last sample:
 *
 *  - per task, per CPU and for the whole recording: the number of
 *    dispatches, the mean, p50, p90, p99, p99.9 and maximum wait, and the
 *    time and CPU of the worst wait; then the same for the time the task
 *    slept before the wakeup (blocked_ns) where dtl knows it;
 *  - each LOST record: which CPU, from which sequence number, how many.
 *
 * perf script's own filters select the dispatches: --tid, --pid and
 * --comms name the incoming task, --cpu the CPU, --time the moment.
 *
 * Arguments (--dlarg, any number of them):
 *   hist        log2 histograms of each task's waits, as runqlat draws them
 *   min_wait_us=N (or a bare N)  dispatches that waited less are not counted
 *   who=TID     who delayed TID: for each of its dispatches, the tasks that
 *               ran on its CPU while it waited, and their share of its wait
 *               (what runqslower -P answers)
 *   timehist    instead of the summary, one line per context switch in the
 *               layout of "perf sched timehist": the outgoing task's time
 *               off the CPU before this run (wait time), the part of it
 *               spent runnable (sch delay) and the run
 *
 * Percentiles are nearest-rank, over every counted wait.  Memory grows with
 * the number of tasks and dispatches (16 bytes per dispatch), not with a
 * table sized in advance.
 */
#include "dlfilter-dtl.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NR_SLOTS	32
#define RUNS_KEPT	1024	/* per CPU, for who=TID */
#define NSEC_PER_MSEC	1000000ULL

/* Filled in by perf. */
struct perf_dlfilter_fns perf_dlfilter_fns;

/* A growing array of values: the waits that percentiles are taken over. */
struct values {
	__u64 *v;
	size_t nr, alloc;
};

struct stats {
	struct values wait, blocked;
	__u64 total_wait, max_wait;
	__u64 max_time;		/* when the worst wait ended */
	int max_cpu;
};

struct task {
	__s32 tid, pid;
	char comm[16];
	struct stats st;
	__u64 slots[NR_SLOTS];
	/* timehist: its last dispatch */
	bool dispatched;
	__u64 last_wait, last_off;
	/* who=TID: how long it ran while TID waited on its CPU */
	__u64 delay_ns, delay_runs;
};

struct run {
	__s32 tid;
	__u64 start, end;
};

struct cpu {
	struct stats st;
	struct run runs[RUNS_KEPT];	/* who=TID only */
	unsigned int head, nr_runs;
};

struct lost {
	__u64 time, seq, lost, lapped;
	int cpu;
};

static struct task **tasks;
static size_t nr_tasks, tasks_alloc;	/* open addressing, power of 2 */
static struct cpu **cpus;
static int nr_cpus;
static struct lost *losts;
static size_t nr_losts, losts_alloc;
static __u64 nr_records;
static bool oom;

/* Arguments */
static __u64 min_wait_ns;
static bool show_hist, timehist;
static __s32 who = -1;
static __u64 who_unattributed, who_dispatches, who_wait;

static int values_add(struct values *a, __u64 x)
{
	if (a->nr == a->alloc) {
		size_t n = a->alloc ? a->alloc * 2 : 16;
		__u64 *v = realloc(a->v, n * sizeof(*v));

		if (!v)
			return -1;
		a->v = v;
		a->alloc = n;
	}
	a->v[a->nr++] = x;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the smallest value with at least p per mille at or below. */
static __u64 percentile(const struct values *a, unsigned int per_mille)
{
	size_t rank = (a->nr * per_mille + 999) / 1000;

	return a->v[rank ? rank - 1 : 0];
}

static size_t tid_hash(__s32 tid, size_t size)
{
	return ((__u32)tid * 2654435761U) & (size - 1);
}

static int tasks_grow(void)
{
	size_t n = tasks_alloc ? tasks_alloc * 2 : 1024, i;
	struct task **t = calloc(n, sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i < tasks_alloc; i++) {
		size_t pos;

		if (!tasks[i])
			continue;
		for (pos = tid_hash(tasks[i]->tid, n); t[pos];
		     pos = (pos + 1) & (n - 1))
			;
		t[pos] = tasks[i];
	}
	free(tasks);
	tasks = t;
	tasks_alloc = n;
	return 0;
}

static struct task *task_find(__s32 tid, bool create)
{
	size_t pos;

	if (!tasks_alloc && (!create || tasks_grow()))
		return NULL;
	for (pos = tid_hash(tid, tasks_alloc); tasks[pos];
	     pos = (pos + 1) & (tasks_alloc - 1))
		if (tasks[pos]->tid == tid)
			return tasks[pos];
	if (!create)
		return NULL;
	if (2 * (nr_tasks + 1) > tasks_alloc) {
		if (tasks_grow())
			return NULL;
		return task_find(tid, true);
	}
	tasks[pos] = calloc(1, sizeof(**tasks));
	if (!tasks[pos])
		return NULL;
	tasks[pos]->tid = tid;
	tasks[pos]->pid = -1;
	nr_tasks++;
	return tasks[pos];
}

static struct cpu *cpu_find(int cpu)
{
	if (cpu >= nr_cpus) {
		struct cpu **c = realloc(cpus, (cpu + 1) * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + nr_cpus, 0, (cpu + 1 - nr_cpus) * sizeof(*c));
		cpus = c;
		nr_cpus = cpu + 1;
	}
	if (!cpus[cpu])
		cpus[cpu] = calloc(1, sizeof(**cpus));
	return cpus[cpu];
}

static const char *task_name(__s32 tid, char *buf, size_t len)
{
	struct task *t = task_find(tid, false);

	if (!tid)
		snprintf(buf, len, "<idle>");
	else if (t && t->comm[0])
		snprintf(buf, len, "%s", t->comm);
	else
		snprintf(buf, len, "?");
	return buf;
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

/* Count @e's wait (and sleep, if known) in @st. */
static int stats_add(struct stats *st, const struct perf_dtl_entry *e)
{
	if (!st->wait.nr || e->wait_ns > st->max_wait) {
		st->max_wait = e->wait_ns;
		st->max_time = e->time;
		st->max_cpu = e->cpu;
	}
	st->total_wait += e->wait_ns;
	if (values_add(&st->wait, e->wait_ns))
		return -1;
	if (!(e->flags & PERF_DTL_F_BLOCKED_UNKNOWN) && e->blocked_ns &&
	    values_add(&st->blocked, e->blocked_ns))
		return -1;
	return 0;
}

int start(void **data, void *ctx)
{
	int argc, i;
	char **argv = perf_dlfilter_fns.args(ctx, &argc);

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		char *end;

		if (!strcmp(a, "hist")) {
			show_hist = true;
		} else if (!strcmp(a, "timehist")) {
			timehist = true;
		} else if (!strncmp(a, "who=", 4)) {
			who = strtol(a + 4, &end, 0);
			if (end == a + 4 || *end || who <= 0)
				goto bad;
		} else {
			if (!strncmp(a, "min_wait_us=", 12))
				a += 12;
			min_wait_ns = strtoull(a, &end, 0) * 1000;
			if (end == a || *end)
				goto bad;
		}
	}
	if (timehist) {
		printf("%15s %6s  %-30s  %9s  %9s  %9s\n", "time", "cpu",
		       "task name", "wait time", "sch delay", "run time");
		printf("%15s %-6s  %-30s  %9s  %9s  %9s\n", "", "",
		       "[tid/pid]", "(msec)", "(msec)", "(msec)");
	}
	return 0;
bad:
	fprintf(stderr, "dlfilter-dtl-runqlat: bad argument \"%s\"\n", argv[i]);
	fprintf(stderr, "  expected hist, timehist, who=TID or min_wait_us=N\n");
	return -1;
}

static void print_msecs(__u64 ns)
{
	printf("%6llu.%03llu ", ns / NSEC_PER_MSEC, ns % NSEC_PER_MSEC / 1000);
}

/*
 * One row of timehist: @e ends the run of its outgoing task, named
 * @prev_comm by the sample (NULL: by its last dispatch).
 */
static void timehist_row(const struct perf_dtl_entry *e, const char *prev_comm)
{
	struct task *t = e->prev_tid ? task_find(e->prev_tid, false) : NULL;
	char name[40], comm[16];

	if (e->prev_tid && prev_comm)
		snprintf(comm, sizeof(comm), "%s", prev_comm);
	else
		task_name(e->prev_tid, comm, sizeof(comm));
	if (!e->prev_tid)
		snprintf(name, sizeof(name), "%s", comm);
	else if (e->prev_tid != e->prev_pid)
		snprintf(name, sizeof(name), "%s[%u/%u]", comm, e->prev_tid,
			 e->prev_pid);
	else
		snprintf(name, sizeof(name), "%s[%u]", comm, e->prev_tid);
	printf("%8llu.%06llu [%04u]  %-30s  ", e->time / 1000000000ULL,
	       e->time % 1000000000ULL / 1000, e->cpu, name);
	/* Its dispatch is not in the recording: nothing known, as timehist. */
	print_msecs(t && t->dispatched ? t->last_off : 0);
	print_msecs(t && t->dispatched ? t->last_wait : 0);
	print_msecs(e->ran_ns);
	printf("\n");
}

/*
 * who=TID was dispatched by @e on @c after waiting e->wait_ns: charge the
 * runs on @c that overlap the wait to their tasks.  The rest of the wait
 * (queued on another CPU before a migration, before the runs kept, or
 * where no other task's run was seen) is shown as "(no other task)".
 */
static void who_delayed(struct cpu *c, const struct perf_dtl_entry *e)
{
	__u64 from = e->time - e->wait_ns, covered = 0;
	unsigned int i;

	for (i = 0; i < c->nr_runs; i++) {
		const struct run *r = &c->runs[(c->head + RUNS_KEPT - 1 - i) % RUNS_KEPT];
		__u64 lo = r->start > from ? r->start : from;
		__u64 hi = r->end < e->time ? r->end : e->time;
		struct task *t;

		if (r->end <= from)
			break;
		/*
		 * Its own run ends where its wait starts, but the wait's
		 * start is stamped a little earlier (run_delay's stamp).
		 */
		if (hi <= lo || r->tid == who)
			continue;
		t = task_find(r->tid, true);
		if (!t) {
			oom = true;
			return;
		}
		t->delay_ns += hi - lo;
		t->delay_runs++;
		covered += hi - lo;
	}
	who_dispatches++;
	who_wait += e->wait_ns;
	who_unattributed += e->wait_ns - (covered < e->wait_ns ? covered : e->wait_ns);
}

static void add_lost(const struct perf_dtl_entry *e)
{
	if (nr_losts == losts_alloc) {
		size_t n = losts_alloc ? losts_alloc * 2 : 16;
		struct lost *l = realloc(losts, n * sizeof(*l));

		if (!l) {
			oom = true;
			return;
		}
		losts = l;
		losts_alloc = n;
	}
	losts[nr_losts++] = (struct lost){
		.time = e->time, .seq = e->seq, .lost = e->lost,
		.lapped = e->lapped, .cpu = e->cpu,
	};
}

static void add_dispatch(struct cpu *c, const struct perf_dtl_entry *e,
			 const char *next_comm, void *ctx)
{
	const struct perf_dlfilter_al *al;
	struct task *t = task_find(e->next_tid, true);

	if (!t) {
		oom = true;
		return;
	}
	/*
	 * The latest name: a task named at fork is renamed by exec.  The
	 * sample carries it; older samples need resolve_ip(), which makes
	 * perf load the kernel's symbols once (seconds under emulation).
	 */
	if (next_comm) {
		if (next_comm[0])
			snprintf(t->comm, sizeof(t->comm), "%s", next_comm);
	} else {
		al = perf_dlfilter_fns.resolve_ip(ctx);
		if (al && al->comm)
			snprintf(t->comm, sizeof(t->comm), "%s", al->comm);
	}
	t->pid = e->next_pid;
	t->dispatched = true;
	t->last_wait = e->wait_ns;
	t->last_off = e->wait_ns;
	if (!(e->flags & PERF_DTL_F_BLOCKED_UNKNOWN))
		t->last_off += e->blocked_ns;
	if (timehist || e->wait_ns < min_wait_ns)
		return;
	if (stats_add(&t->st, e) || stats_add(&c->st, e))
		oom = true;
	t->slots[slot_of(e->wait_ns / 1000)]++;
	if ((__s32)e->next_tid == who)
		who_delayed(c, e);
}

/* A name the sample carries after its record (empty: not known). */
int filter_event(void *data, const struct perf_dlfilter_sample *sample,
		 void *ctx)
{
	const char *prev_comm, *next_comm;
	const struct perf_dtl_entry *e;
	struct cpu *c;

	/* Only the summary is printed: filter out every sample. */
	e = dtl_sample_entry(sample);
	if (!e || oom)
		return 1;

	prev_comm = dtl_sample_comm(sample, 0);
	next_comm = dtl_sample_comm(sample, 1);
	/* A sample too short for names: resolve_ip() as before. */
	if (!dtl_sample_has_comms(sample))
		next_comm = NULL;
	else if (!next_comm)
		next_comm = "";
	nr_records++;
	if (e->kind == PERF_DTL_KIND_LOST) {
		add_lost(e);
		return 1;
	}
	if (e->kind == PERF_DTL_KIND_MIGRATE || e->kind >= PERF_DTL_KIND_MAX)
		return 1;

	c = cpu_find(e->cpu);
	if (!c) {
		oom = true;
		return 1;
	}
	if (who >= 0) {
		struct run *r = &c->runs[c->head];

		r->tid = e->prev_tid;
		r->end = e->time;
		r->start = e->time - (e->ran_ns < e->time ? e->ran_ns : e->time);
		c->head = (c->head + 1) % RUNS_KEPT;
		if (c->nr_runs < RUNS_KEPT)
			c->nr_runs++;
	}
	if (timehist)
		timehist_row(e, prev_comm);
	if (e->next_tid)
		add_dispatch(c, e, next_comm, ctx);
	return 1;
}

static void print_values(const char *what, struct values *a)
{
	__u64 sum = 0;
	size_t i;

	if (!a->nr)
		return;
	qsort(a->v, a->nr, sizeof(*a->v), cmp_u64);
	for (i = 0; i < a->nr; i++)
		sum += a->v[i];
	printf("  %-7s %9zu %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f\n", what,
	       a->nr, sum / 1000.0 / a->nr, percentile(a, 500) / 1000.0,
	       percentile(a, 900) / 1000.0, percentile(a, 990) / 1000.0,
	       percentile(a, 999) / 1000.0, a->v[a->nr - 1] / 1000.0);
}

static void print_stats(const char *title, struct stats *st)
{
	printf("\n%s\n", title);
	printf("  %-7s %9s %10s %10s %10s %10s %10s %10s\n", "us", "count",
	       "mean", "p50", "p90", "p99", "p99.9", "max");
	print_values("wait", &st->wait);
	print_values("blocked", &st->blocked);
	printf("  worst wait %.1f us, ended at %llu.%06llu on cpu %d\n",
	       st->max_wait / 1000.0, st->max_time / 1000000000ULL,
	       st->max_time % 1000000000ULL / 1000, st->max_cpu);
}

static void print_hist(const struct task *t)
{
	__u64 max = 0;
	int i, last = 0;

	for (i = 0; i < NR_SLOTS; i++) {
		if (t->slots[i] > max)
			max = t->slots[i];
		if (t->slots[i])
			last = i;
	}
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

static int by_tid(const void *a, const void *b)
{
	const struct task *x = *(const struct task * const *)a;
	const struct task *y = *(const struct task * const *)b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int by_delay(const void *a, const void *b)
{
	const struct task *x = *(const struct task * const *)a;
	const struct task *y = *(const struct task * const *)b;

	if (x->delay_ns != y->delay_ns)
		return x->delay_ns < y->delay_ns ? 1 : -1;
	return by_tid(a, b);
}

static void print_who(struct task **list, size_t n)
{
	char comm[16];
	size_t i;

	printf("\nwho delayed tid %d (%s): %llu dispatches, waited %.3f ms\n",
	       who, task_name(who, comm, sizeof(comm)),
	       (unsigned long long)who_dispatches, who_wait / 1e6);
	if (!who_wait)
		return;
	printf("  %8s  %-16s %8s %12s %7s\n", "tid", "comm", "runs", "ms", "share");
	qsort(list, n, sizeof(*list), by_delay);
	for (i = 0; i < n && list[i]->delay_ns; i++)
		printf("  %8d  %-16s %8llu %12.3f %6.1f%%\n", list[i]->tid,
		       task_name(list[i]->tid, comm, sizeof(comm)),
		       (unsigned long long)list[i]->delay_runs,
		       list[i]->delay_ns / 1e6,
		       100.0 * list[i]->delay_ns / who_wait);
	printf("  %8s  %-16s %8s %12.3f %6.1f%%\n", "-", "(no other task)", "",
	       who_unattributed / 1e6, 100.0 * who_unattributed / who_wait);
}

int stop(void *data, void *ctx)
{
	struct task **list = calloc(nr_tasks ? nr_tasks : 1, sizeof(*list));
	struct stats all = { 0 };
	size_t i, n = 0;
	int cpu;

	if (!list)
		return -1;
	if (oom)
		fprintf(stderr, "dlfilter-dtl-runqlat: out of memory: %s\n",
			"the results cover only the records before");
	if (timehist)
		goto out;

	for (i = 0; i < tasks_alloc; i++)
		if (tasks[i] && tasks[i]->st.wait.nr)
			list[n++] = tasks[i];
	qsort(list, n, sizeof(*list), by_tid);
	printf("dtl run-queue latency: %llu records, %zu tasks dispatched",
	       (unsigned long long)nr_records, n);
	if (min_wait_ns)
		printf(", waits of %llu us or more", min_wait_ns / 1000);
	printf("\n");
	for (i = 0; i < n; i++) {
		char title[64];

		snprintf(title, sizeof(title), "tid %d %s (pid %d)", list[i]->tid,
			 list[i]->comm[0] ? list[i]->comm : "?", list[i]->pid);
		print_stats(title, &list[i]->st);
		if (show_hist)
			print_hist(list[i]);
	}

	/* The whole recording: every CPU's values together. */
	all.max_cpu = -1;
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		struct stats *st = cpus[cpu] ? &cpus[cpu]->st : NULL;
		char title[32];

		if (!st || !st->wait.nr)
			continue;
		snprintf(title, sizeof(title), "cpu %d", cpu);
		print_stats(title, st);
		for (i = 0; i < st->wait.nr; i++)
			if (values_add(&all.wait, st->wait.v[i]))
				oom = true;
		for (i = 0; i < st->blocked.nr; i++)
			if (values_add(&all.blocked, st->blocked.v[i]))
				oom = true;
		all.total_wait += st->total_wait;
		if (all.max_cpu < 0 || st->max_wait > all.max_wait) {
			all.max_wait = st->max_wait;
			all.max_time = st->max_time;
			all.max_cpu = st->max_cpu;
		}
	}
	if (all.wait.nr)
		print_stats("all cpus", &all);

	if (who >= 0) {
		for (n = 0, i = 0; i < tasks_alloc; i++)
			if (tasks[i])
				list[n++] = tasks[i];
		print_who(list, n);
	}
out:
	for (i = 0; i < nr_losts; i++) {
		printf("%scpu %d: LOST before seq %llu at %llu.%06llu: ",
		       i ? "" : "\n", losts[i].cpu,
		       (unsigned long long)losts[i].seq,
		       losts[i].time / 1000000000ULL,
		       losts[i].time % 1000000000ULL / 1000);
		printf("%llu records lost, %llu overwritten\n",
		       (unsigned long long)losts[i].lost,
		       (unsigned long long)losts[i].lapped);
	}
	free(list);
	free(all.wait.v);
	free(all.blocked.v);
	for (i = 0; i < tasks_alloc; i++) {
		if (!tasks[i])
			continue;
		free(tasks[i]->st.wait.v);
		free(tasks[i]->st.blocked.v);
		free(tasks[i]);
	}
	free(tasks);
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		if (!cpus[cpu])
			continue;
		free(cpus[cpu]->st.wait.v);
		free(cpus[cpu]->st.blocked.v);
		free(cpus[cpu]);
	}
	free(cpus);
	free(losts);
	return 0;
}

const char *filter_description(const char **long_description)
{
	*long_description =
		"Arguments: hist, timehist, who=TID, min_wait_us=N (see the source).";
	return "dtl run-queue latency: percentiles, histograms, who delayed a task, timehist";
}
