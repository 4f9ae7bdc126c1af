/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Dispatch Trace Log PMU support: recording and decoding of its AUX data.
 */
#ifndef INCLUDE__PERF_DTL_H__
#define INCLUDE__PERF_DTL_H__

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

/* A synthesized "dtl" sample carries one record, after the raw padding. */
struct perf_synth_dtl {
	u32 padding;
	u32 reserved;
	struct dtl_entry entry;
};

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
