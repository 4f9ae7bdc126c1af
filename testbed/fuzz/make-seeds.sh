#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Records the whole-path fuzzer's seeds in a guest (guest-seeds.sh) and
# writes them to testbed/fuzz/seeds/.  Run by hand after a change of the
# record format; the seeds are committed.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

mkdir -p "$DTL_TOP/testbed/fuzz/seeds"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$DTL_TOP/testbed/vm-run.sh" -s -o "$tmp" "$DTL_TOP/testbed/fuzz/guest-seeds.sh"
python3 - "$tmp/out.log" "$DTL_TOP/testbed/fuzz/seeds" <<'PY'
import base64, os, sys
name, chunks, n = None, [], 0
for line in open(sys.argv[1], errors='replace'):
    line = line.strip()
    if line.startswith('SEED-BEGIN '):
        name, chunks = line.split()[1], []
    elif line == 'SEED-END' and name:
        data = base64.b64decode(''.join(chunks))
        open(os.path.join(sys.argv[2], name), 'wb').write(data)
        print('%s: %d bytes' % (name, len(data)))
        name, n = None, n + 1
    elif name:
        chunks.append(line)
sys.exit(0 if n else 1)
PY
