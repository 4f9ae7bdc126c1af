/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Dispatch Trace Log: decoding of its AUX records, free of the rest of perf
 * so that it can be tested and fuzzed on its own.
 */
#ifndef INCLUDE__PERF_DTL_DECODER_H__
#define INCLUDE__PERF_DTL_DECODER_H__

#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_dtl.h>

/* Decoding state of one stream of records (one CPU's, or one task's). */
struct dtl_decoder {
	int			cpu;		/* the stream's CPU, or -1 */
	/*
	 * PERF_DTL_FORMAT_* of the records: until the stream's first
	 * header, the one perf asked the kernel for; then the header's.
	 */
	unsigned int		format;
	unsigned int		nr_cpus;	/* CPUs of the recording machine, 0: not known */
	bool			swap;		/* recorded with the other byte order */
	unsigned long long	last_time;	/* of the last switch record */
	unsigned long long	last_seq;	/* ... and its number */
	bool			have_seq;
	unsigned long long	dups;		/* seen before: skipped */
	unsigned long long	records;	/* decoded */
	unsigned long long	lost;		/* reported by LOST records */
	unsigned long long	corrupt;	/* skipped */
	unsigned long long	headers;	/* struct perf_dtl_header read */
	/*
	 * Bytes skipped: records of a format this decoder does not know;
	 * the last such format.
	 */
	unsigned long long	unknown_format;
	unsigned int		unknown_format_nr;
	unsigned long long	unknown_flags;	/* records with flags of a newer kernel */
	unsigned int		cur_unknown_flags; /* ... in the record just read */
	unsigned int		cur_size;	/* bytes of the record just read */
	/*
	 * The compact format: what the record before said (see struct
	 * perf_dtl_short), and how many records of each form were read.
	 */
	bool			c_valid;
	bool			c_have_next;
	unsigned int		c_cpu;
	unsigned int		c_next_pid;
	unsigned int		c_next_tid;
	unsigned long long	c_seq;
	unsigned long long	c_time;
	unsigned long long	shorts;
	unsigned long long	pads;
	char			err[128];	/* why the last one was skipped */
};

/* Is @format one that dtl_decoder_next() decodes? */
bool dtl_format_known(unsigned long long format);

void dtl_decoder_init(struct dtl_decoder *d, int cpu, unsigned int format);

/*
 * The record at *@pos of @buf (@len bytes) into @e, in the format that
 * the last header before it named (d->format before the first).  Headers
 * are read on the way, and so is their magic's byte order.  Returns 1 for
 * a record (the caller moves on with dtl_decoder_consume()), 0 when no
 * whole record is left, -1 for a corrupt record, which is skipped (*@pos
 * moves past it) and described in d->err, or for a header of a format
 * this decoder does not know (what follows it is skipped up to the next
 * header), -2 for a record of a CPU's stream already seen (snapshots
 * overlap), skipped too.  PAD slots are skipped.  Flags this decoder does
 * not know are cleared and counted in d->unknown_flags: a newer kernel may
 * add flags, and the record is still good.
 */
int dtl_decoder_next(struct dtl_decoder *d, const void *buf, size_t len,
		     size_t *pos, struct perf_dtl_entry *e);
void dtl_decoder_consume(struct dtl_decoder *d, const struct perf_dtl_entry *e,
			 size_t *pos);

const char *dtl_kind_name(unsigned int kind);

/* One record as text, with the task names (NULL: "-"); as snprintf(). */
int dtl_entry_snprintf(char *s, size_t n, const struct perf_dtl_entry *e,
		       const char *prev_comm, const char *next_comm);

#endif
