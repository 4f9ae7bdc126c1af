#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make demo: boot Debian's 6.12 in QEMU with dtl loaded and use it with perf.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
exec "$DTL_TOP/testbed/vm-run.sh" -t 300 "$DTL_TOP/testbed/guest/demo.sh"
