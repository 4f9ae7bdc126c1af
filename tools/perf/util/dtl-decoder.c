// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dispatch Trace Log: decoding of its AUX records.
 *
 * The kernel writes whole PERF_DTL_ENTRY_SIZE-byte records (struct perf_dtl_entry,
 * include/uapi/linux/perf_dtl.h) into the AUX buffer.  A record that does
 * not make sense -- an unknown kind, a CPU other than its stream's or
 * beyond the recording machine's, time going backwards on a CPU -- is
 * reported and skipped, never trusted.  Unknown flags are only counted.
 * In snapshot mode successive snapshots may overlap: a CPU's records carry
 * increasing sequence numbers, so the ones seen already are dropped.
 */
#include <byteswap.h>
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

void dtl_decoder_init(struct dtl_decoder *d, int cpu)
{
	memset(d, 0, sizeof(*d));
	d->cpu = cpu;
}

static int dtl_corrupt(struct dtl_decoder *d, size_t *pos, size_t at,
		       const char *why, unsigned long long val)
{
	snprintf(d->err, sizeof(d->err), "corrupt record at offset %zu: %s %llu",
		 at, why, val);
	d->corrupt++;
	*pos = at + PERF_DTL_ENTRY_SIZE;
	return -1;
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

int dtl_decoder_next(struct dtl_decoder *d, const void *buf, size_t len,
		     size_t *pos, struct perf_dtl_entry *e)
{
	unsigned int max_cpu = d->nr_cpus ? d->nr_cpus - 1 : DTL_MAX_CPU;
	unsigned int unknown;
	size_t at = *pos;

	if (at > len || len - at < PERF_DTL_ENTRY_SIZE)
		return 0;
	memcpy(e, (const char *)buf + at, sizeof(*e));
	if (d->swap)
		dtl_entry_swap(e);

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
		*pos = at + PERF_DTL_ENTRY_SIZE;
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
	*pos += PERF_DTL_ENTRY_SIZE;
	d->unknown_flags += !!d->cur_unknown_flags;
	d->cur_unknown_flags = 0;
	if (e->kind == PERF_DTL_KIND_LOST) {
		d->lost += e->lost + e->lapped;
		return;
	}
	d->records++;
	d->last_time = e->time;
	d->last_seq = e->seq;
	d->have_seq = true;
}

int dtl_entry_snprintf(char *s, size_t n, const struct perf_dtl_entry *e,
		       const char *prev_comm, const char *next_comm)
{
	char blocked[24];

	if (!prev_comm)
		prev_comm = "-";
	if (!next_comm)
		next_comm = "-";

	switch (e->kind) {
	case PERF_DTL_KIND_LOST:
		return snprintf(s, n, "%8s seq=%llu lost=%llu lapped=%llu", "lost",
				e->seq, e->lost, e->lapped);
	case PERF_DTL_KIND_MIGRATE:
		return snprintf(s, n, "%8s seq=%llu %s:%u/%u cpu %u -> %u",
				"migrate", e->seq, prev_comm, e->prev_pid,
				e->prev_tid, e->from_cpu, e->to_cpu);
	default:
		break;
	}

	if (e->flags & PERF_DTL_F_BLOCKED_UNKNOWN)
		snprintf(blocked, sizeof(blocked), "?");
	else
		snprintf(blocked, sizeof(blocked), "%llu", e->blocked_ns);
	return snprintf(s, n,
			"%8s seq=%llu %s:%u/%u ran=%llu steal=%u%s => %s:%u/%u wait=%llu blocked=%s",
			dtl_kind_name(e->kind), e->seq, prev_comm, e->prev_pid,
			e->prev_tid, e->ran_ns, e->steal_ns,
			e->flags & PERF_DTL_F_STEAL_SATURATED ? "+" : "",
			next_comm, e->next_pid, e->next_tid, e->wait_ns,
			blocked);
}
