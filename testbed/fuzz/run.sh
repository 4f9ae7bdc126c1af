#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The whole-path fuzzer: perf 7.3 with dtl's decoder, built with ASan and
# UBSan, reads mutants of the dtl recordings in testbed/fuzz/seeds (made in
# the guest by testbed/fuzz/guest-seeds.sh) for DTL_FUZZ_SECONDS (default
# 60; "make fuzz" runs 600).  Inputs that failed once are kept in
# testbed/fuzz/crashers and replayed first, every run.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

secs=${DTL_FUZZ_SECONDS:-60}
perf=$(DTL_PERF_ASAN=1 "$DTL_TOP/testbed/build-perf.sh")
exec python3 "$DTL_TOP/testbed/fuzz/perf_data_fuzz.py" "$perf" "$secs" \
	"$DTL_TOP/testbed/fuzz/seeds" "$DTL_TOP/testbed/fuzz/crashers" \
	"$DTL_CACHE/build/perf-asan/fuzz"
