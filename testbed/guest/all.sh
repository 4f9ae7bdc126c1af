#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs in the guest: every test, functional then reliability.  Each script
# reports its own end ("DTL-SCRIPT NAME STATUS", lib.sh), which the host
# requires; the status here is the worse of the two.
sh /dtl/tests/check.sh
rc=$?
sh /dtl/tests/reliability.sh || rc=$?
exit $rc
