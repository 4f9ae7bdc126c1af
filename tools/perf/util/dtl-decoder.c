// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dispatch Trace Log: decoding of its AUX records.
 *
 * The kernel writes whole records into the AUX buffer, in one of the
 * formats of include/uapi/linux/perf_dtl.h: 64-byte struct perf_dtl_entry
 * records (format 1), or the compact format 2, whose short records say
 * only what does not follow from the record before them; both decode into
 * a struct perf_dtl_entry.  A struct perf_dtl_header begins every AUX
 * transaction and names the format and, by its magic, the byte order of
 * the records after it; records of a format this decoder does not know
 * are skipped up to the next header.  A record that does not make sense -- an
 * unknown kind or form, a CPU other than its stream's or beyond the
 * recording machine's, time going backwards on a CPU, a short record with
 * no record before it to follow from -- is reported and skipped, never
 * trusted.  Unknown flags are only counted.
 * In snapshot mode successive snapshots may overlap: a CPU's records carry
 * increasing sequence numbers, so the ones seen already are dropped.
 */
#include <byteswap.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "dtl-decoder.h"

#define DTL_KNOWN_FLAGS	(PERF_DTL_F_PREV_KTHREAD | PERF_DTL_F_NEXT_KTHREAD | \
			 PERF_DTL_F_BLOCKED_UNKNOWN | PERF_DTL_F_STEAL_SATURATED)
#define DTL_MAX_CPU	65535

static const char * const dtl_kind_names[PERF_DTL_KIND_MAX] = {
	[PERF_DTL_KIND_DISPATCH]	= "dispatch",
	[PERF_DTL_KIND_PREEMPT]	= "preempt",
	[PERF_DTL_KIND_BLOCK]	= "block",
	[PERF_DTL_KIND_EXIT]		= "exit",
	[PERF_DTL_KIND_MIGRATE]	= "migrate",
	[PERF_DTL_KIND_LOST]		= "lost",
};

const char *dtl_kind_name(unsigned int kind)
{
	return kind < PERF_DTL_KIND_MAX ? dtl_kind_names[kind] : "unknown";
}

bool dtl_format_known(unsigned long long format)
{
	return format == PERF_DTL_FORMAT_ENTRY ||
	       format == PERF_DTL_FORMAT_COMPACT;
}

void dtl_decoder_init(struct dtl_decoder *d, int cpu, unsigned int format)
{
	memset(d, 0, sizeof(*d));
	d->cpu = cpu;
	d->format = format;
	d->cur_size = PERF_DTL_ENTRY_SIZE;
}

/*
 * Skip the record of d->cur_size bytes at @at.  A compact record after it
 * cannot follow on from it: the stream resumes at the next long record.
 */
static int dtl_corrupt(struct dtl_decoder *d, size_t *pos, size_t at,
		       const char *why, unsigned long long val)
{
	snprintf(d->err, sizeof(d->err), "corrupt record at offset %zu: %s %llu",
		 at, why, val);
	d->corrupt++;
	d->c_valid = false;
	d->c_have_next = false;
	*pos = at + d->cur_size;
	return -1;
}

/* The compact format: @e was read; the next short record follows it. */
static void dtl_compact_note(struct dtl_decoder *d, const struct perf_dtl_entry *e)
{
	if (e->kind == PERF_DTL_KIND_LOST) {
		d->c_valid = false;
		d->c_have_next = false;
		return;
	}
	d->c_valid = true;
	d->c_cpu = e->cpu;
	d->c_seq = e->seq;
	d->c_time = e->time;
	if (e->kind != PERF_DTL_KIND_MIGRATE) {
		d->c_have_next = true;
		d->c_next_pid = e->next_pid;
		d->c_next_tid = e->next_tid;
	}
}

/*
 * Records are in the byte order of the machine that wrote them; perf.data
 * says when that is not this one's.  The unions swap alike: all their
 * members are of one size.
 */
static void dtl_entry_swap(struct perf_dtl_entry *e)
{
	e->time = bswap_64(e->time);
	e->seq = bswap_64(e->seq);
	e->prev_pid = bswap_32(e->prev_pid);
	e->prev_tid = bswap_32(e->prev_tid);
	e->next_pid = bswap_32(e->next_pid);
	e->next_tid = bswap_32(e->next_tid);
	e->wait_ns = bswap_64(e->wait_ns);
	e->blocked_ns = bswap_64(e->blocked_ns);
	e->ran_ns = bswap_64(e->ran_ns);
	e->steal_ns = bswap_32(e->steal_ns);
	e->cpu = bswap_16(e->cpu);
}

static void dtl_long_swap(struct perf_dtl_long *l)
{
	l->cpu = bswap_16(l->cpu);
	l->steal_ns = bswap_32(l->steal_ns);
	l->time = bswap_64(l->time);
	l->seq = bswap_64(l->seq);
	l->prev_pid = bswap_32(l->prev_pid);
	l->prev_tid = bswap_32(l->prev_tid);
	l->next_pid = bswap_32(l->next_pid);
	l->next_tid = bswap_32(l->next_tid);
	l->wait_ns = bswap_64(l->wait_ns);
	l->blocked_ns = bswap_64(l->blocked_ns);
	l->ran_ns = bswap_64(l->ran_ns);
}

/* Both variants of the short record are 32-bit words after the delta. */
static void dtl_short_swap(struct perf_dtl_short *r)
{
	r->reserved = bswap_16(r->reserved);
	r->time_delta = bswap_32(r->time_delta);
	r->next_pid = bswap_32(r->next_pid);
	r->next_tid = bswap_32(r->next_tid);
	r->wait_ns = bswap_32(r->wait_ns);
	r->blocked_ns = bswap_32(r->blocked_ns);
	r->ran_ns = bswap_32(r->ran_ns);
	r->steal_ns = bswap_32(r->steal_ns);
}

static void dtl_from_long(const struct perf_dtl_long *l, struct perf_dtl_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->time = l->time;
	e->seq = l->seq;
	e->prev_pid = l->prev_pid;
	e->prev_tid = l->prev_tid;
	e->next_pid = l->next_pid;
	e->next_tid = l->next_tid;
	e->wait_ns = l->wait_ns;
	e->blocked_ns = l->blocked_ns;
	e->ran_ns = l->ran_ns;
	e->steal_ns = l->steal_ns;
	e->kind = l->rec & PERF_DTL_REC_KIND_MASK;
	e->flags = l->flags;
	e->cpu = l->cpu;
}

/* A short record: what follows from the record before, and its fields. */
static int dtl_from_short(struct dtl_decoder *d, const struct perf_dtl_short *r,
			  struct perf_dtl_entry *e, size_t *pos, size_t at)
{
	unsigned int kind = r->rec & PERF_DTL_REC_KIND_MASK;

	if (!d->c_valid)
		return dtl_corrupt(d, pos, at,
				   "a short record with no record to follow on from, kind", kind);
	if (kind >= PERF_DTL_KIND_LOST)
		return dtl_corrupt(d, pos, at, "a short record of kind", kind);
	if (r->reserved)
		return dtl_corrupt(d, pos, at, "a short record with reserved bits",
				   r->reserved);
	memset(e, 0, sizeof(*e));
	e->time = d->c_time + r->time_delta;
	e->seq = d->c_seq + 1;
	e->cpu = d->c_cpu;
	e->kind = kind;
	e->flags = r->flags;
	if (kind == PERF_DTL_KIND_MIGRATE) {
		if (r->zero[0] || r->zero[1])
			return dtl_corrupt(d, pos, at, "a short migration with bits set in zero[]",
					   r->zero[0] | r->zero[1]);
		e->prev_pid = r->prev_pid;
		e->prev_tid = r->prev_tid;
		e->from_cpu = r->from_cpu;
		e->to_cpu = r->to_cpu;
		return 1;
	}
	if (!d->c_have_next)
		return dtl_corrupt(d, pos, at,
				   "a short switch record with no switch before it, kind", kind);
	e->prev_pid = d->c_next_pid;
	e->prev_tid = d->c_next_tid;
	e->next_pid = r->next_pid;
	e->next_tid = r->next_tid;
	e->wait_ns = r->wait_ns;
	e->blocked_ns = r->blocked_ns;
	e->ran_ns = r->ran_ns;
	e->steal_ns = r->steal_ns;
	return 1;
}

/*
 * The compact format's record at *@pos (not a PAD slot nor a header): 1,
 * 0 or -1 as dtl_decoder_next().  d->cur_size gets its size.
 */
static int dtl_read_compact(struct dtl_decoder *d, const unsigned char *buf,
			    size_t len, size_t *pos, struct perf_dtl_entry *e)
{
	size_t at = *pos;
	union {
		struct perf_dtl_long	l;
		struct perf_dtl_short	s;
	} r;
	unsigned int form = buf[at] & PERF_DTL_REC_FORM_MASK;

	d->cur_size = PERF_DTL_SLOT_SIZE;
	if (buf[at] & ~(PERF_DTL_REC_FORM_MASK | PERF_DTL_REC_KIND_MASK))
		return dtl_corrupt(d, pos, at, "unknown record form", buf[at]);
	if (form == PERF_DTL_REC_SHORT) {
		memcpy(&r.s, buf + at, sizeof(r.s));
		if (d->swap)
			dtl_short_swap(&r.s);
		return dtl_from_short(d, &r.s, e, pos, at);
	}
	d->cur_size = PERF_DTL_ENTRY_SIZE;
	if (len - at < PERF_DTL_ENTRY_SIZE)
		return 0;
	memcpy(&r.l, buf + at, sizeof(r.l));
	if (d->swap)
		dtl_long_swap(&r.l);
	dtl_from_long(&r.l, e);
	return 1;
}

/*
 * Is there a header at @b (@avail bytes)?  It says so where a record of
 * d->format has its form (format 2) or its kind (format 1).  In a format
 * this decoder does not know, its magic says so too.
 */
static bool dtl_is_header(const struct dtl_decoder *d, const unsigned char *b,
			  size_t avail)
{
	const size_t kind = offsetof(struct perf_dtl_header, kind);
	unsigned int magic;

	if (d->format == PERF_DTL_FORMAT_COMPACT)
		return b[0] == PERF_DTL_REC_HEADER;
	if (avail < PERF_DTL_HEADER_SIZE || b[kind] != PERF_DTL_HEADER_KIND)
		return false;
	if (d->format == PERF_DTL_FORMAT_ENTRY)
		return true;
	memcpy(&magic, b + offsetof(struct perf_dtl_header, magic), sizeof(magic));
	return b[0] == PERF_DTL_REC_HEADER &&
	       (magic == PERF_DTL_MAGIC || magic == bswap_32(PERF_DTL_MAGIC));
}

/*
 * The header at *@pos: 1 when read, 0 when it is not whole, -1 when it is
 * corrupt or names a format this decoder does not know (records up to the
 * next header are then skipped).
 */
static int dtl_read_header(struct dtl_decoder *d, const unsigned char *buf,
			   size_t len, size_t *pos)
{
	size_t at = *pos;
	struct perf_dtl_header h;
	unsigned int size;
	bool swap;

	d->cur_size = d->format == PERF_DTL_FORMAT_ENTRY ? PERF_DTL_ENTRY_SIZE :
							   PERF_DTL_SLOT_SIZE;
	if (len - at < PERF_DTL_HEADER_SIZE)
		return 0;
	memcpy(&h, buf + at, sizeof(h));
	if (h.magic == PERF_DTL_MAGIC)
		swap = false;
	else if (h.magic == bswap_32(PERF_DTL_MAGIC))
		swap = true;
	else
		return dtl_corrupt(d, pos, at, "a header with magic", h.magic);
	/* With the magic, a header: skip all of it if it is not right. */
	d->cur_size = PERF_DTL_HEADER_SIZE;
	size = swap ? bswap_16(h.size) : h.size;
	if (h.rec != PERF_DTL_REC_HEADER || h.kind != PERF_DTL_HEADER_KIND ||
	    size < PERF_DTL_HEADER_SIZE || size % PERF_DTL_SLOT_SIZE)
		return dtl_corrupt(d, pos, at, "a header of size", size);
	/* Headers and records never straddle a buffer: a lie about its size. */
	if (len - at < size)
		return dtl_corrupt(d, pos, at, "a header longer than the data left:", size);
	*pos = at + size;
	d->headers++;
	d->swap = swap;
	d->format = h.format;
	/* The first record after a header is long. */
	d->c_valid = false;
	d->c_have_next = false;
	if (dtl_format_known(h.format))
		return 1;
	d->unknown_format_nr = h.format;
	snprintf(d->err, sizeof(d->err),
		 "header at offset %zu: records of format %u, which this perf does not decode (it decodes %d and %d), skipped",
		 at, h.format, PERF_DTL_FORMAT_ENTRY, PERF_DTL_FORMAT_COMPACT);
	d->corrupt++;
	return -1;
}

int dtl_decoder_next(struct dtl_decoder *d, const void *buf, size_t len,
		     size_t *pos, struct perf_dtl_entry *e)
{
	unsigned int max_cpu = d->nr_cpus ? d->nr_cpus - 1 : DTL_MAX_CPU;
	unsigned int unknown;
	size_t at;
	int ret;

	/* Headers, PAD slots and records of a format not known. */
	while (1) {
		const unsigned char *b = (const unsigned char *)buf + *pos;

		at = *pos;
		if (at > len || len - at < PERF_DTL_SLOT_SIZE)
			return 0;
		if (dtl_is_header(d, b, len - at)) {
			ret = dtl_read_header(d, buf, len, pos);
			if (ret <= 0)
				return ret;
			continue;
		}
		if (!dtl_format_known(d->format)) {
			d->unknown_format += PERF_DTL_SLOT_SIZE;
			*pos = at + PERF_DTL_SLOT_SIZE;
			continue;
		}
		if (d->format != PERF_DTL_FORMAT_COMPACT ||
		    (b[0] & PERF_DTL_REC_FORM_MASK) != PERF_DTL_REC_PAD)
			break;
		d->pads++;
		*pos = at + PERF_DTL_SLOT_SIZE;
	}

	if (d->format == PERF_DTL_FORMAT_COMPACT) {
		ret = dtl_read_compact(d, buf, len, pos, e);
		if (ret <= 0)
			return ret;
	} else {
		d->cur_size = PERF_DTL_ENTRY_SIZE;
		if (len - at < PERF_DTL_ENTRY_SIZE)
			return 0;
		memcpy(e, (const char *)buf + at, sizeof(*e));
		if (d->swap)
			dtl_entry_swap(e);
	}

	if (e->kind >= PERF_DTL_KIND_MAX)
		return dtl_corrupt(d, pos, at, "unknown kind", e->kind);
	if (d->cpu >= 0 && e->cpu != d->cpu)
		return dtl_corrupt(d, pos, at, "in this CPU's data, a record of cpu",
				   e->cpu);
	if (e->cpu > max_cpu)
		return dtl_corrupt(d, pos, at, "a record of a CPU the machine did not have: cpu",
				   e->cpu);
	if (e->kind == PERF_DTL_KIND_MIGRATE &&
	    (e->from_cpu > max_cpu || e->to_cpu > max_cpu))
		return dtl_corrupt(d, pos, at, "migration to or from cpu",
				   e->from_cpu > max_cpu ? e->from_cpu : e->to_cpu);
	unknown = e->flags & ~DTL_KNOWN_FLAGS;
	e->flags &= DTL_KNOWN_FLAGS;
	/* Snapshots of an overwritten buffer overlap: drop what was seen. */
	if (e->kind != PERF_DTL_KIND_LOST && d->cpu >= 0 && d->have_seq &&
	    e->seq <= d->last_seq) {
		d->dups++;
		dtl_compact_note(d, e);
		*pos = at + d->cur_size;
		return -2;
	}
	/*
	 * A CPU logs in time order.  LOST records are not checked: they have
	 * the time of the gap they report, or of the drain that found it.
	 */
	if (e->kind != PERF_DTL_KIND_LOST && d->cpu >= 0 && e->time < d->last_time)
		return dtl_corrupt(d, pos, at, "time going back to", e->time);
	/* Counted when consumed: a record may be read more than once. */
	d->cur_unknown_flags = unknown;
	return 1;
}

void dtl_decoder_consume(struct dtl_decoder *d, const struct perf_dtl_entry *e,
			 size_t *pos)
{
	*pos += d->cur_size;
	d->shorts += d->cur_size == PERF_DTL_SLOT_SIZE;
	d->unknown_flags += !!d->cur_unknown_flags;
	d->cur_unknown_flags = 0;
	dtl_compact_note(d, e);
	if (e->kind == PERF_DTL_KIND_LOST) {
		d->lost += e->lost + e->lapped;
		return;
	}
	d->records++;
	d->last_time = e->time;
	d->last_seq = e->seq;
	d->have_seq = true;
}

/*
 * The text of a record, built without the printf machinery: perf script
 * prints one line per context switch, and formatting a dozen numbers
 * with snprintf() took a third of its time.  snprintf() semantics: at
 * most @n - 1 characters and a NUL, the length the text would have.
 */
struct dtl_text {
	char	*s;
	size_t	n;
	size_t	len;
};

static void dtl_put_mem(struct dtl_text *t, const char *p, size_t l)
{
	if (t->len + 1 < t->n) {
		size_t room = t->n - 1 - t->len;

		memcpy(t->s + t->len, p, l < room ? l : room);
	}
	t->len += l;
}

static void dtl_put_str(struct dtl_text *t, const char *p)
{
	dtl_put_mem(t, p, strlen(p));
}

static void dtl_put_u64(struct dtl_text *t, unsigned long long v)
{
	char b[20];
	int i = sizeof(b);

	do {
		b[--i] = '0' + v % 10;
		v /= 10;
	} while (v);
	dtl_put_mem(t, b + i, sizeof(b) - i);
}

/* "=<v>" after @name */
static void dtl_put_field(struct dtl_text *t, const char *name,
			  unsigned long long v)
{
	dtl_put_str(t, name);
	dtl_put_u64(t, v);
}

/* "<comm>:<pid>/<tid>" */
static void dtl_put_task(struct dtl_text *t, const char *comm,
			 unsigned int pid, unsigned int tid)
{
	dtl_put_str(t, comm ? comm : "-");
	dtl_put_mem(t, ":", 1);
	dtl_put_u64(t, pid);
	dtl_put_mem(t, "/", 1);
	dtl_put_u64(t, tid);
}

static int dtl_text_end(struct dtl_text *t)
{
	if (t->n)
		t->s[t->len < t->n ? t->len : t->n - 1] = '\0';
	return t->len;
}

int dtl_entry_snprintf(char *s, size_t n, const struct perf_dtl_entry *e,
		       const char *prev_comm, const char *next_comm)
{
	struct dtl_text t = { .s = s, .n = n };
	const char *name = dtl_kind_name(e->kind);
	size_t l = strlen(name);

	/* The kind, right-aligned in 8 columns. */
	if (l < 8)
		dtl_put_mem(&t, "        ", 8 - l);
	dtl_put_mem(&t, name, l);
	dtl_put_field(&t, " seq=", e->seq);

	switch (e->kind) {
	case PERF_DTL_KIND_LOST:
		dtl_put_field(&t, " lost=", e->lost);
		dtl_put_field(&t, " lapped=", e->lapped);
		return dtl_text_end(&t);
	case PERF_DTL_KIND_MIGRATE:
		dtl_put_mem(&t, " ", 1);
		dtl_put_task(&t, prev_comm, e->prev_pid, e->prev_tid);
		dtl_put_field(&t, " cpu ", e->from_cpu);
		dtl_put_field(&t, " -> ", e->to_cpu);
		return dtl_text_end(&t);
	default:
		break;
	}

	dtl_put_mem(&t, " ", 1);
	dtl_put_task(&t, prev_comm, e->prev_pid, e->prev_tid);
	dtl_put_field(&t, " ran=", e->ran_ns);
	dtl_put_field(&t, " steal=", e->steal_ns);
	if (e->flags & PERF_DTL_F_STEAL_SATURATED)
		dtl_put_mem(&t, "+", 1);
	dtl_put_mem(&t, " => ", 4);
	dtl_put_task(&t, next_comm, e->next_pid, e->next_tid);
	dtl_put_field(&t, " wait=", e->wait_ns);
	if (e->flags & PERF_DTL_F_BLOCKED_UNKNOWN)
		dtl_put_str(&t, " blocked=?");
	else
		dtl_put_field(&t, " blocked=", e->blocked_ns);
	return dtl_text_end(&t);
}
