/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Dispatch Trace Log PMU support: recording and decoding of its AUX data.
 */
#ifndef INCLUDE__PERF_DTL_H__
#define INCLUDE__PERF_DTL_H__

#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include <linux/perf_dtl.h>

#define DTL_PMU_NAME "dtl"

enum {
	DTL_PMU_TYPE,
	DTL_FORMAT,
	DTL_AUXTRACE_PRIV_MAX,
};

#define DTL_AUXTRACE_PRIV_SIZE (DTL_AUXTRACE_PRIV_MAX * sizeof(u64))

/*
 * A synthesized "dtl" sample carries one record, after the raw padding, and
 * the names of its tasks as the decoding session knew them: a dlfilter or
 * an injected file then needs no thread lookup (empty where unknown, and
 * for LOST; next_comm is empty for MIGRATE).  Samples written before the
 * names were added end after the record: readers check the raw size.
 */
struct perf_synth_dtl {
	u32 padding;
	u32 reserved;
	struct perf_dtl_entry entry;
	char prev_comm[16];
	char next_comm[16];
};

/* The raw size of a sample that carries the record but no names. */
#define PERF_SYNTH_DTL_ENTRY_RAW_SIZE \
	(offsetof(struct perf_synth_dtl, prev_comm) - sizeof(u32))

union perf_event;
struct auxtrace_record;
struct evlist;
struct machine;
struct perf_sample;
struct perf_session;

int dtl_process_auxtrace_info(union perf_event *event,
			      struct perf_session *session);
struct auxtrace_record *dtl_recording_init(struct evlist *evlist, int *err);
int perf_sample__fprintf_synth_dtl(struct perf_sample *sample,
				   struct machine *machine, FILE *fp);

#endif
