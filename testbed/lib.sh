# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for the testbed scripts; source it, do not run it.

DTL_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=versions.conf
. "$DTL_TOP/testbed/versions.conf"
DTL_CACHE=${DTL_CACHE:-${HOME:-/root}/.cache/dtl}
DTL_KVER=$DTL_KREL-$DTL_KFLAVOUR
DTL_KHEADERS=/usr/src/linux-headers-$DTL_KVER
DTL_DEBKERNEL=$DTL_CACHE/debian-$DTL_KVER
DTL_SRC=$DTL_CACHE/linux-source-${DTL_KREL%%+*}

die() { echo "dtl: $*" >&2; exit 1; }
say() { echo "dtl: $*" >&2; }
