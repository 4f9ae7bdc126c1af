/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the dtl selftests: the PMU's sysfs description, opening
 * events, and the kernel's own per-task scheduler accounting that the dtl
 * counts are checked against.
 */
#ifndef __DTL_UTIL_H
#define __DTL_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <linux/perf_dtl.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define DTL_SYSFS	"/sys/bus/event_source/devices/dtl"
#define DTL_MODULE	"/sys/module/dtl_pmu"
#define DTL_DEBUGFS	"/sys/kernel/debug/dtl"

static inline int dtl_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

/* Write @val to the file @path: 0 or -errno. */
static inline int dtl_write_file(const char *path, const char *val)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? n : 0;
}

#define DTL_KMEMLEAK	"/sys/kernel/debug/kmemleak"

/*
 * A fresh kmemleak report in @buf: objects are reported once they have
 * been unreferenced for 5 s, after two scans.  Returns its length, -1
 * with errno set when there is no kmemleak (or it is off), -2 when a
 * scan or the read failed.
 */
static inline ssize_t dtl_kmemleak_report(char *buf, size_t size)
{
	ssize_t n, len = 0;
	int fd = open(DTL_KMEMLEAK, O_RDWR);

	if (fd < 0)
		return -1;
	/*
	 * Built in but off (kmemleak=off, or DEBUG_KMEMLEAK_DEFAULT_OFF):
	 * any command but "clear" fails with EPERM.  "stack=on" is the
	 * default, and changes nothing where kmemleak is on.
	 */
	if (write(fd, "stack=on", 8) < 0 && errno == EPERM) {
		close(fd);
		return -1;
	}
	sleep(6);
	n = write(fd, "scan", 4) == 4 && write(fd, "scan", 4) == 4;
	close(fd);
	if (!n)
		return -2;
	fd = open(DTL_KMEMLEAK, O_RDONLY);
	if (fd < 0)
		return -2;
	while (len < (ssize_t)size - 1 &&
	       (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	close(fd);
	return n < 0 ? -2 : len;
}

static inline long long dtl_read_ll(const char *path)
{
	char buf[64];

	if (dtl_read_file(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 0);
}

/* The calling thread's context switches so far: nvcsw + nivcsw. */
static inline long thread_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/* The dynamic PMU type, or -1 when dtl is not loaded. */
static inline int dtl_pmu_type(void)
{
	return (int)dtl_read_ll(DTL_SYSFS "/type");
}

/* attr.config of a named event, parsed from events/<name> as perf does. */
static inline int dtl_event_config(const char *name, __u64 *config)
{
	char path[256], buf[128];
	char *p;

	snprintf(path, sizeof(path), DTL_SYSFS "/events/%s", name);
	if (dtl_read_file(path, buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "event=");
	if (!p)
		return -1;
	*config = strtoull(p + 6, NULL, 0);
	/* The trace events of one kind: "kinds=" is config:8-15. */
	p = strstr(buf, "kinds=");
	if (p)
		*config |= strtoull(p + 6, NULL, 0) << 8;
	return 0;
}

static inline int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid,
				      int cpu, int group_fd, unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static inline void dtl_attr(struct perf_event_attr *attr, const char *name)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = dtl_pmu_type();
	if (dtl_event_config(name, &attr->config))
		attr->config = ~0ULL;	/* makes the open fail loudly */
}

/* Open the named dtl counting event; returns the fd or -errno. */
static inline int dtl_open(const char *name, pid_t pid, int cpu, int group_fd,
			   int inherit)
{
	struct perf_event_attr attr;
	int fd;

	dtl_attr(&attr, name);
	attr.inherit = inherit;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = sys_perf_event_open(&attr, pid, cpu, group_fd, 0);
	return fd < 0 ? -errno : fd;
}

static inline int sw_open(uint64_t config, pid_t pid, int cpu, int group_fd,
			  int inherit)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = config,
		.inherit = inherit,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING,
	};
	int fd = sys_perf_event_open(&attr, pid, cpu, group_fd, 0);

	return fd < 0 ? -errno : fd;
}

/*
 * A stream of records of the compact format (PERF_DTL_FORMAT_COMPACT), as
 * a decoder reads it: what the record before said.  A decoder of its own,
 * not perf's, so that the tests check the format against its definition.
 */
struct dtl_stream {
	int valid;		/* a record before, not LOST */
	int have_next;		/* a switch record since the last LOST one */
	uint16_t cpu;
	uint32_t next_pid, next_tid;
	uint64_t seq, time;
	uint64_t shorts, longs, pads, headers;	/* decoded */
};

/*
 * The struct perf_dtl_header at @p (@avail bytes): the format it names (1
 * or 2), 0 if it is not whole, -1 if it is not a header of this kernel in
 * this machine's byte order, or its reserved bytes are not 0.
 */
static inline int dtl_header_check(const void *p, size_t avail)
{
	struct perf_dtl_header h;
	size_t i;

	if (avail < sizeof(h))
		return 0;
	memcpy(&h, p, sizeof(h));
	if (h.rec != PERF_DTL_REC_HEADER || h.size != PERF_DTL_HEADER_SIZE ||
	    h.magic != PERF_DTL_MAGIC || h.kind != PERF_DTL_HEADER_KIND ||
	    (h.format != PERF_DTL_FORMAT_ENTRY &&
	     h.format != PERF_DTL_FORMAT_COMPACT))
		return -1;
	for (i = 0; i < sizeof(h.reserved); i++)
		if (h.reserved[i])
			return -1;
	for (i = 0; i < sizeof(h.reserved2); i++)
		if (h.reserved2[i])
			return -1;
	return h.format;
}

/*
 * Decode the record of @st at @p, with @avail bytes left, into @e.  Returns
 * its size (0: not a whole record), with *@got 0 for a PAD slot; -1 for a
 * record that is not what the format says.
 */
static inline int dtl_stream_decode(struct dtl_stream *st, const void *p,
				    size_t avail, struct perf_dtl_entry *e,
				    int *got)
{
	const uint8_t *b = p;
	unsigned int kind = b[0] & PERF_DTL_REC_KIND_MASK;

	*got = 1;
	if (avail < PERF_DTL_SLOT_SIZE)
		return 0;
	if (b[0] == PERF_DTL_REC_HEADER) {
		int ret = dtl_header_check(p, avail);

		if (ret <= 0)
			return ret;
		if (ret != PERF_DTL_FORMAT_COMPACT)
			return -1;
		/* The record after a header is long. */
		*got = 0;
		st->headers++;
		st->valid = 0;
		st->have_next = 0;
		return PERF_DTL_HEADER_SIZE;
	}
	if (b[0] & ~(PERF_DTL_REC_FORM_MASK | PERF_DTL_REC_KIND_MASK) ||
	    (b[0] & PERF_DTL_REC_FORM_MASK) == 0)
		return -1;
	memset(e, 0, sizeof(*e));
	switch (b[0] & PERF_DTL_REC_FORM_MASK) {
	case PERF_DTL_REC_PAD:
		*got = 0;
		st->pads++;
		return PERF_DTL_SLOT_SIZE;
	case PERF_DTL_REC_LONG: {
		struct perf_dtl_long l;

		if (avail < PERF_DTL_ENTRY_SIZE)
			return 0;
		memcpy(&l, p, sizeof(l));
		e->time = l.time;
		e->seq = l.seq;
		e->prev_pid = l.prev_pid;
		e->prev_tid = l.prev_tid;
		e->next_pid = l.next_pid;
		e->next_tid = l.next_tid;
		e->wait_ns = l.wait_ns;
		e->blocked_ns = l.blocked_ns;
		e->ran_ns = l.ran_ns;
		e->steal_ns = l.steal_ns;
		e->kind = kind;
		e->flags = l.flags;
		e->cpu = l.cpu;
		st->longs++;
		break;
	}
	default: {
		struct perf_dtl_short r;

		memcpy(&r, p, sizeof(r));
		if (!st->valid || kind >= PERF_DTL_KIND_LOST || r.reserved)
			return -1;
		e->time = st->time + r.time_delta;
		e->seq = st->seq + 1;
		e->cpu = st->cpu;
		e->kind = kind;
		e->flags = r.flags;
		if (kind == PERF_DTL_KIND_MIGRATE) {
			if (r.zero[0] || r.zero[1])
				return -1;
			e->prev_pid = r.prev_pid;
			e->prev_tid = r.prev_tid;
			e->from_cpu = r.from_cpu;
			e->to_cpu = r.to_cpu;
		} else {
			if (!st->have_next)
				return -1;
			e->prev_pid = st->next_pid;
			e->prev_tid = st->next_tid;
			e->next_pid = r.next_pid;
			e->next_tid = r.next_tid;
			e->wait_ns = r.wait_ns;
			e->blocked_ns = r.blocked_ns;
			e->ran_ns = r.ran_ns;
			e->steal_ns = r.steal_ns;
		}
		st->shorts++;
		break;
	}
	}
	if (kind >= PERF_DTL_KIND_MAX)
		return -1;
	st->valid = kind != PERF_DTL_KIND_LOST;
	if (kind == PERF_DTL_KIND_LOST)
		st->have_next = 0;
	st->cpu = e->cpu;
	st->seq = e->seq;
	st->time = e->time;
	if (kind < PERF_DTL_KIND_MIGRATE) {
		st->have_next = 1;
		st->next_pid = e->next_pid;
		st->next_tid = e->next_tid;
	}
	return (b[0] & PERF_DTL_REC_FORM_MASK) == PERF_DTL_REC_LONG ?
	       PERF_DTL_ENTRY_SIZE : PERF_DTL_SLOT_SIZE;
}

/* A trace event with its ring buffer and AUX buffer mapped. */
struct dtl_trace_buf {
	int fd;
	struct perf_event_mmap_page *pc;
	size_t rb_size;
	void *aux;
	size_t aux_size;
	int full;		/* PERF_DTL_FORMAT_ENTRY records, as the last header said */
	struct dtl_stream st;	/* else the compact format's */
	unsigned long bad;	/* records that did not decode */
};

/*
 * Open a trace event (disabled) with attr.config @config, config1 @config1
 * (min_wait_us), sample period @period (the poll interval, 0: default)
 * and inherit @inherit, and map a ring buffer and an AUX buffer of
 * @aux_pages pages (none if 0).  Returns 0 or -errno; dtl_trace_close() in any case.
 */
static inline int dtl_trace_open(struct dtl_trace_buf *t, pid_t pid, int cpu,
				 uint64_t config, uint64_t config1,
				 uint64_t period, int inherit, size_t aux_pages)
{
	struct perf_event_attr attr;
	long page = sysconf(_SC_PAGESIZE);

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = dtl_pmu_type();
	attr.config = config;
	attr.config1 = config1;
	attr.sample_period = period;
	attr.disabled = 1;
	attr.inherit = inherit;
	t->full = !!(config & PERF_DTL_CONFIG_FULL);
	t->fd = sys_perf_event_open(&attr, pid, cpu, -1, 0);
	if (t->fd < 0)
		return -errno;
	if (!aux_pages)
		return 0;
	t->rb_size = 9 * page;
	t->pc = mmap(NULL, t->rb_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		     t->fd, 0);
	if (t->pc == MAP_FAILED)
		return -errno;
	t->aux_size = aux_pages * page;
	t->pc->aux_offset = t->rb_size;
	t->pc->aux_size = t->aux_size;
	t->aux = mmap(NULL, t->aux_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      t->fd, t->rb_size);
	if (t->aux == MAP_FAILED)
		return -errno;
	return 0;
}

static inline void dtl_trace_close(struct dtl_trace_buf *t)
{
	if (t->aux && t->aux != MAP_FAILED)
		munmap(t->aux, t->aux_size);
	if (t->pc && t->pc != MAP_FAILED)
		munmap(t->pc, t->rb_size);
	if (t->fd >= 0)
		close(t->fd);
}

/*
 * Take the records between aux_tail and aux_head, in the format the
 * headers name, and consume them.  A record that does not decode is
 * skipped, counted in @t->bad and reported.
 */
static inline size_t dtl_trace_take(struct dtl_trace_buf *t,
				    struct perf_dtl_entry *out, size_t max)
{
	uint64_t head = __atomic_load_n(&t->pc->aux_head, __ATOMIC_ACQUIRE);
	uint64_t tail = t->pc->aux_tail;
	size_t n = 0;
	int len, got, hdr;

	while (tail < head && n < max) {
		const char *p = (char *)t->aux + (tail % t->aux_size);
		size_t avail = t->aux_size - (tail % t->aux_size);

		if (avail > head - tail)
			avail = head - tail;
		/* A header, where a record of the format has its form or kind. */
		if (t->full)
			hdr = avail >= PERF_DTL_HEADER_SIZE &&
			      (uint8_t)p[offsetof(struct perf_dtl_header, kind)] ==
			      PERF_DTL_HEADER_KIND;
		else
			hdr = !p[0];
		if (hdr) {
			len = dtl_header_check(p, avail);
			if (!len)
				break;
			if (len < 0) {
				if (!t->bad++)
					fprintf(stderr, "# AUX offset %llu: a bad header\n",
						(unsigned long long)tail);
			} else {
				t->full = len == PERF_DTL_FORMAT_ENTRY;
				t->st.headers++;
				t->st.valid = 0;
				t->st.have_next = 0;
			}
			tail += PERF_DTL_HEADER_SIZE;
			continue;
		}
		if (t->full) {
			if (avail < PERF_DTL_ENTRY_SIZE)
				break;
			memcpy(&out[n++], p, PERF_DTL_ENTRY_SIZE);
			tail += PERF_DTL_ENTRY_SIZE;
			continue;
		}
		len = dtl_stream_decode(&t->st, p, avail, &out[n], &got);
		if (!len)
			break;
		if (len < 0) {
			if (!t->bad++)
				fprintf(stderr, "# AUX offset %llu: 0x%02x does not decode\n",
					(unsigned long long)tail, (uint8_t)p[0]);
			t->st.valid = 0;
			tail += PERF_DTL_SLOT_SIZE;
			continue;
		}
		n += got;
		tail += len;
	}
	__atomic_store_n(&t->pc->aux_tail, tail, __ATOMIC_RELEASE);
	return n;
}

/* The count of an event opened by dtl_open() or sw_open(), or -1. */
static inline long long dtl_count(int fd)
{
	uint64_t v[3];

	if (read(fd, v, sizeof(v)) != sizeof(v))
		return -1;
	return (long long)v[0];
}

/* The kernel's accounting of one thread: schedstat and context switches. */
struct dtl_sched {
	unsigned long long run_ns;	/* schedstat: time on CPU */
	unsigned long long delay_ns;	/* schedstat: run_delay */
	unsigned long long pcount;	/* schedstat: times dispatched */
	unsigned long long nvcsw;	/* voluntary_ctxt_switches */
	unsigned long long nivcsw;	/* nonvoluntary_ctxt_switches */
};

static inline int dtl_sched_read(pid_t pid, pid_t tid, struct dtl_sched *s)
{
	char path[128], buf[2048];
	char *p;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid);
	if (dtl_read_file(path, buf, sizeof(buf)))
		return -1;
	if (sscanf(buf, "%llu %llu %llu", &s->run_ns, &s->delay_ns,
		   &s->pcount) != 3)
		return -1;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	if (dtl_read_file(path, buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "\nvoluntary_ctxt_switches:");
	if (!p || sscanf(p, "\nvoluntary_ctxt_switches: %llu", &s->nvcsw) != 1)
		return -1;
	p = strstr(buf, "\nnonvoluntary_ctxt_switches:");
	if (!p ||
	    sscanf(p, "\nnonvoluntary_ctxt_switches: %llu", &s->nivcsw) != 1)
		return -1;
	return 0;
}

static inline void dtl_sched_sub(struct dtl_sched *d, const struct dtl_sched *a,
				 const struct dtl_sched *b)
{
	d->run_ns = a->run_ns - b->run_ns;
	d->delay_ns = a->delay_ns - b->delay_ns;
	d->pcount = a->pcount - b->pcount;
	d->nvcsw = a->nvcsw - b->nvcsw;
	d->nivcsw = a->nivcsw - b->nivcsw;
}

static inline void dtl_sched_add(struct dtl_sched *sum,
				 const struct dtl_sched *s)
{
	sum->run_ns += s->run_ns;
	sum->delay_ns += s->delay_ns;
	sum->pcount += s->pcount;
	sum->nvcsw += s->nvcsw;
	sum->nivcsw += s->nivcsw;
}

/*
 * The scheduler's switch-outs of a thread: __schedule() adds one to nvcsw
 * or nivcsw at each.  Between two reads taken while the thread was off the
 * CPU (or running) at both, these are the runs that ended: dtl's
 * dispatches, exactly.
 */
static inline unsigned long long dtl_sched_switches(const struct dtl_sched *d)
{
	return d->nvcsw + d->nivcsw;
}

/*
 * Does pcount agree with @disp dispatches over the runs of @d?  It counts
 * one per dispatch but for one case: a thread preempted after it set a
 * sleeping state, before it called schedule(), is not stamped as queued
 * (sched_info_depart() stamps running threads only), so
 * sched_info_arrive() counts neither its next dispatch in pcount nor that
 * wait in run_delay.  dtl counts the dispatch, with no wait (it reads the
 * same stamp).  Each such dispatch follows a preemption.
 */
static inline int dtl_pcount_agrees(long long disp, const struct dtl_sched *d)
{
	return disp >= (long long)d->pcount &&
	       disp <= (long long)(d->pcount + d->nivcsw);
}

/* The scheduler state letter of a thread ('R', 'S', ...), or 0. */
static inline char dtl_task_state(pid_t pid, pid_t tid)
{
	char path[128], buf[1024];
	char *p;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	if (dtl_read_file(path, buf, sizeof(buf)))
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * Is a sleeping thread off its CPU?  The state letter turns 'S' when the
 * thread sets its state, before it calls schedule(); wchan names a
 * function only once the scheduler has dequeued it (get_wchan() checks
 * on_rq), after which the run is over.  With delayed dequeue that may come
 * a little after the switch-out, when the thread would have been picked
 * again: later, never too early.  Without wchan (no KALLSYMS), the state
 * letter is all there is.
 */
static inline int dtl_off_cpu(pid_t pid, pid_t tid)
{
	char path[128], buf[128];
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/wchan", pid, tid);
	ret = dtl_read_file(path, buf, sizeof(buf));
	if (ret)
		return ret == -ENOENT;
	return strcmp(buf, "0") != 0;
}

/* Wait until a thread is off the CPU (asleep or stopped), so its runs are over. */
static inline int dtl_wait_sleeping(pid_t pid, pid_t tid)
{
	int i;

	for (i = 0; i < 5000; i++) {
		char st = dtl_task_state(pid, tid);

		if ((st == 'S' || st == 'T' || st == 't') &&
		    dtl_off_cpu(pid, tid))
			return 0;
		usleep(1000);
	}
	return -1;
}

#ifdef CPU_SET
static inline int dtl_pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}
#endif

static inline int dtl_ncpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* The last online CPU: where the tests crowd their tasks. */
static inline int dtl_last_cpu(void)
{
	return dtl_ncpus() - 1;
}

/* One CPU's line of debugfs dtl/drain, and the pass record limit. */
struct drain_stat {
	unsigned long passes, cut, pass_max_ns, pass_max_records;
	unsigned long stops, stop_max_ns, stop_max_records;
	unsigned int limit;
};

static inline int drain_read(int cpu, struct drain_stat *st)
{
	char buf[16384], *line;
	unsigned long long budget;
	int c;

	if (dtl_read_file(DTL_DEBUGFS "/drain", buf, sizeof(buf)))
		return -1;
	if (sscanf(buf, "# budget_ns %llu max_records %u", &budget,
		   &st->limit) != 2)
		return -1;
	for (line = strchr(buf, '\n'); line; line = strchr(line + 1, '\n'))
		if (sscanf(line + 1, "%d %lu %lu %lu %lu %lu %lu %lu", &c,
			   &st->passes, &st->cut, &st->pass_max_ns,
			   &st->pass_max_records, &st->stops, &st->stop_max_ns,
			   &st->stop_max_records) == 8 && c == cpu)
			return 0;
	return -1;
}

static inline unsigned long long dtl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * A thread's body: spin as SCHED_FIFO on @cpu until told to stop, 2 s at
 * most.  @ready says it spins; @err why it could not.
 */
struct dtl_fifo_spin {
	int cpu;
	int ready;
	int stop;
	int err;
};

static inline void *dtl_fifo_spin(void *arg)
{
	struct sched_param sp = { .sched_priority = 1 };
	unsigned long long end = dtl_now_ns() + 2000000000ULL;
	struct dtl_fifo_spin *h = arg;

	if (dtl_pin_to(h->cpu) || sched_setscheduler(0, SCHED_FIFO, &sp)) {
		h->err = errno ? errno : EINVAL;
		return NULL;
	}
	__atomic_store_n(&h->ready, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&h->stop, __ATOMIC_SEQ_CST) &&
	       dtl_now_ns() < end)
		;
	return NULL;
}

/* Events that exist now, as the driver reports in debugfs, or -1. */
static inline long long dtl_hook_users(void)
{
	return dtl_read_ll(DTL_DEBUGFS "/hook_users");
}

#endif /* __DTL_UTIL_H */
