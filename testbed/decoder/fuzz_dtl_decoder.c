// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for perf's dtl record decoder: any bytes, as the AUX
 * data of a CPU's stream (the first byte picks the CPU, or a per-task
 * stream, and the record format), must decode without a crash or a
 * sanitizer report.
 */
#include <stddef.h>
#include <stdint.h>

#include "dtl-decoder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dtl_decoder d;
	struct perf_dtl_entry e;
	char line[256];
	size_t pos = 0;
	int ret;

	if (!size)
		return 0;
	/*
	 * The first byte: the stream's CPU (0xff: any), the CPUs known, the
	 * byte order and the format.
	 */
	dtl_decoder_init(&d, data[0] == 0xff ? -1 : data[0] % 4,
			 data[0] & 0x80 ? PERF_DTL_FORMAT_COMPACT :
					  PERF_DTL_FORMAT_ENTRY);
	d.nr_cpus = (data[0] >> 2) % 8;
	d.swap = data[0] & 0x40;
	data++;
	size--;
	while ((ret = dtl_decoder_next(&d, data, size, &pos, &e))) {
		if (ret < 0)
			continue;
		dtl_entry_snprintf(line, sizeof(line), &e, "a", NULL);
		dtl_decoder_consume(&d, &e, &pos);
	}
	return 0;
}
