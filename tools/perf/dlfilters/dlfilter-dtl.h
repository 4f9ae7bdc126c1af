/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The raw data of perf's synthesized "dtl" sample, as the dtl dlfilters
 * read it (struct perf_synth_dtl of tools/perf/util/dtl.h, after its
 * first u32): 4 bytes of padding, the record, then the names of the
 * outgoing and the incoming task, which samples written before the names
 * were added do not have.
 */
#ifndef __PERF_DLFILTER_DTL_H
#define __PERF_DLFILTER_DTL_H

#include <perf/perf_dlfilter.h>
#include <string.h>
#include "../../include/uapi/linux/perf_dtl.h"

#define DTL_RAW_PAD	4
#define DTL_COMM_LEN	16

/* The record of @sample, NULL if it is not a dtl sample. */
static inline const struct perf_dtl_entry *
dtl_sample_entry(const struct perf_dlfilter_sample *sample)
{
	if (!sample->event || strcmp(sample->event, "dtl") ||
	    sample->raw_size < DTL_RAW_PAD + sizeof(struct perf_dtl_entry))
		return NULL;
	return (const void *)((const char *)sample->raw_data + DTL_RAW_PAD);
}

/*
 * The name of the outgoing (@which 0) or incoming (1) task of @sample, NULL
 * where the sample has none or perf did not know it.
 */
static inline const char *
dtl_sample_comm(const struct perf_dlfilter_sample *sample, int which)
{
	size_t off = DTL_RAW_PAD + sizeof(struct perf_dtl_entry) +
		     which * DTL_COMM_LEN;
	const char *comm = (const char *)sample->raw_data + off;

	if (sample->raw_size < off + DTL_COMM_LEN || !comm[0] ||
	    strnlen(comm, DTL_COMM_LEN) == DTL_COMM_LEN)
		return NULL;
	return comm;
}

/* Does @sample carry the tasks' names (samples of newer perf do)? */
static inline int dtl_sample_has_comms(const struct perf_dlfilter_sample *sample)
{
	return sample->raw_size >= DTL_RAW_PAD + sizeof(struct perf_dtl_entry) +
				   2 * DTL_COMM_LEN;
}

#endif
