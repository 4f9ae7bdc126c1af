#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs in the guest: the functional tests, each printing TAP.
. /dtl/tests/lib.sh

run dtl_count 300 dtl/dtl_count
run dtl_errors 120 dtl/dtl_errors
run dtl_trace 300 dtl/dtl_trace
run dtl_perf_stat 120 dtl/dtl_perf_stat.sh
perf_shell test_dtl
run dtl_module 60 dtl/dtl_module.sh /dtl/dtl_pmu.ko
for t in mmap remove_on_exec sigtrap_threads watermark_signal; do
	stock $t
done
