#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs in the guest: every test, functional then reliability.
sh /dtl/tests/check.sh
sh /dtl/tests/reliability.sh
