#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Host tests of perf's dtl decoder: the unit test, then libFuzzer (ASan,
# UBSan) for DTL_FUZZ_SECONDS (default 60) from a corpus of valid streams.
# Prints the unit test's TAP and a "fuzz: N runs in S s" line.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

src=$DTL_TOP/tools/perf/util
out=$DTL_CACHE/build/decoder
secs=${DTL_FUZZ_SECONDS:-60}
mkdir -p "$out/corpus"
inc=(-I"$src" -I"$DTL_TOP/tools/include/uapi")

cc -Wall -Wextra -Werror -O1 -g -fsanitize=address,undefined "${inc[@]}" \
	-o "$out/test_dtl_decoder" "$DTL_TOP/testbed/decoder/test_dtl_decoder.c" "$src/dtl-decoder.c"
"$out/test_dtl_decoder"

clang -Wall -Werror -O1 -g -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined "${inc[@]}" \
	-o "$out/fuzz_dtl_decoder" "$DTL_TOP/testbed/decoder/fuzz_dtl_decoder.c" "$src/dtl-decoder.c"
# Seeds: CPU byte 0, then valid records of each kind.
python3 - "$out/corpus" <<'PY'
import struct, sys
for kind in range(6):
    recs = b''
    for i in range(4):
        recs += struct.pack('<QQIIIIQQQIBBH', 1000 * (i + 1), 7 + i, 10, 10, 11, 11,
                            500, 1000, 2000, 0, kind, 0, 0)
    open(f"{sys.argv[1]}/seed{kind}", 'wb').write(b'\0' + recs)
# The compact format (first byte 0x80): a long record, short ones, a PAD.
for kind in range(5):
    recs = struct.pack('<BBHIQQIIIIQQQ', 0x40 | kind, 0, 0, 0, 1000, 7, 10, 10, 11, 11,
                       500, 1000, 2000)
    for i in range(3):
        recs += struct.pack('<BBHIIIIIII', 0x80 | kind, 0, 0, 100, 11, 11, 500, 1000, 2000, 0)
    recs += b'\xc0' + b'\0' * 31
    open(f"{sys.argv[1]}/compact{kind}", 'wb').write(b'\x80' + recs)
    # The same after a stream header (rec 0, format 2, size 64, magic,
    # kind 0xff at byte 60), and a format 1 stream after its own.
    def hdr(fmt):
        return struct.pack('<BBHI52sB3s', 0, fmt, 64, 0x444c5448, b'', 0xff, b'')
    open(f"{sys.argv[1]}/header{kind}", 'wb').write(b'\x80' + hdr(2) + recs)
    open(f"{sys.argv[1]}/header-full{kind}", 'wb').write(
        b'\0' + hdr(1) + struct.pack('<QQIIIIQQQIBBH', 1000, 7, 10, 10, 11, 11,
                                   500, 1000, 2000, 0, kind, 0, 0))
PY
"$out/fuzz_dtl_decoder" -max_total_time="$secs" -max_len=4096 -print_final_stats=1 \
	"$out/corpus" >"$out/fuzz.log" 2>&1 || { tail -40 "$out/fuzz.log"; die "the decoder fuzzer found a failure"; }
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/fuzz.log")
echo "fuzz: $runs runs in ${secs} s, no crash, no sanitizer report"
