#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs in a guest booted with -icount (make check's icount stage): guest
# time follows the instructions executed, so the drain timer fires on time
# whatever the host's load.  The tests whose claim is that the drain keeps
# up run here with DTL_GUEST_ICOUNT=1, where a lap is a failure, not a
# skip: eight sessions on a CPU that switches as fast as it can lose
# nothing, and no pass or stop reads more than a pass may.
dtl_script=icount
. /dtl/tests/lib.sh
export DTL_GUEST_ICOUNT=1
run keep_up 300 dtl/dtl_trace -f keep_up
run drain 300 dtl/dtl_trace -t drain_bounded -t per_task_stop_bounded
exit 0
