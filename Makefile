# SPDX-License-Identifier: GPL-2.0-only
#
# dtl: the one entry point.  Kernel and tools files sit where they would in
# a Linux 7.3 tree; this Makefile and testbed/ are the build and test glue.
#
#   make help         this list
#   make module       dtl_pmu.ko for the running kernel (KDIR=: another's
#                     build tree), with its headers and a compiler only
#   make perf         perf 7.3 with dtl's decoder; prints where it is
#   make setup        install packages, fetch the kernel under test (idempotent)
#   make demo         build, boot, load dtl, perf stat + perf record + perf script
#   make check        every test (TAP), ends with "N passed, N failed, N skipped"
#   make check-rt     build the PREEMPT_RT debug kernel once (~20 min), then make check
#   make checkpatch   checkpatch.pl --strict from the 7.3 tree over our files
#   make series       the git format-patch series with a cover letter, in series/
#   make bench        benchmarks: prints tables, writes them and their plots
#                     (SVG) to bench/out/
#   make fuzz         perf script/report (ASan) over mutated dtl recordings, 10 min
#   make vm-run SCRIPT=path   run any script in the guest with dtl loaded
#                     (GUEST=debian: in Debian 12 with systemd, without dtl;
#                     GUEST=debian13: Debian 13 with backports' 7.3 kernel)
#
# KERNEL=path/to/vmlinux boots another kernel (default: Debian's 6.12).
# ARCH=arm64 runs vm-run in an arm64 guest (make check runs both);
# GUEST=debian in the Debian 12 guest with systemd (testbed/debian/).

include testbed/versions.conf

SHELL		:= /bin/bash
CACHE		?= $(or $(DTL_CACHE),$(HOME)/.cache/dtl)
export DTL_CACHE := $(CACHE)
KVER		:= $(DTL_KREL)-$(DTL_KFLAVOUR)
# The guest's kernel (Debian's 6.12), which the test bed builds dtl for.
GUEST_KDIR	?= /usr/src/linux-headers-$(KVER)
KERNEL		?=
export DTL_KERNEL := $(KERNEL)
ARCH		?= x86_64
TB		:= testbed

KERNEL_FILES	:= $(shell git ls-files 'drivers/*.c' 'drivers/*.h' 'include/*.h' \
			'arch/*.c' 'arch/*.h' 'tools/*.c' 'tools/*.h' 'compat/*.h' 'compat/*.c' 2>/dev/null | \
			grep -v '^tools/include/')

.PHONY: all help setup module guest-module selftests perf demo check check-rt checkpatch series bench fuzz vm-run clean

all: module

help:
	@sed -n '/^#   make/,/^#$$/{/^#$$/q;s/^# //;p}' Makefile

setup:
	@$(TB)/setup.sh

# For the machine it runs on: no package is installed, no QEMU.
module:
	@$(TB)/module-local.sh $(KDIR)

# For the test bed's guest (Debian's 6.12 headers, which setup installs).
guest-module: setup
	@$(TB)/build-module.sh $(GUEST_KDIR) $(CACHE)/build/module >/dev/null

selftests: setup
	@$(TB)/build-tests.sh

perf:
	@$(TB)/setup.sh perf
	@p=$$($(TB)/build-perf.sh) && echo "perf with dtl's decoder: $$p" && \
		echo "(its dlfilters: $$(dirname $$p)/dlfilters/dlfilter-dtl-runqlat.so, dlfilter-dtl-timeline.so)"

demo: guest-module selftests perf
	@$(TB)/demo.sh

check: guest-module selftests perf
	@$(TB)/check.sh

# Build the PREEMPT_RT debug kernel (~20 min), then run "make check",
# which runs the guest suite on it too from then on.
check-rt: setup
	@DTL_FLAVOUR=rt $(TB)/build-debug-kernel.sh >/dev/null
	@$(MAKE) --no-print-directory check

checkpatch: setup
	@$(TB)/checkpatch.sh $(KERNEL_FILES)

# DTL_SERIES_FROM="Name <addr>" sets the author and Signed-off-by.
series: setup
	@$(TB)/series.sh

bench: guest-module selftests perf
	@bench/run.sh

# make check runs it for 60 s.
fuzz: setup
	@DTL_FUZZ_SECONDS=$${DTL_FUZZ_SECONDS:-600} $(TB)/fuzz/run.sh

ifneq ($(filter debian debian13,$(GUEST)),)
vm-run: setup
	@test -n "$(SCRIPT)" || { echo "usage: make vm-run SCRIPT=path/to/script.sh GUEST=debian|debian13" >&2; exit 2; }
	@DTL_DEBIAN=$(if $(filter debian13,$(GUEST)),13,12) $(TB)/debian/vm-run.sh $(SCRIPT)
else ifeq ($(ARCH),arm64)
vm-run: setup
	@test -n "$(SCRIPT)" || { echo "usage: make vm-run SCRIPT=path/to/script.sh [ARCH=arm64]" >&2; exit 2; }
	@export DTL_ARCH=arm64; $(TB)/setup-arm64.sh && $(TB)/build-module.sh >/dev/null && \
		$(TB)/build-perf.sh >/dev/null && $(TB)/build-tests.sh && \
		$(TB)/vm-run.sh -f $(CACHE)/build/arm64/tests=dtl/tests $(SCRIPT)
else
vm-run: guest-module selftests perf
	@test -n "$(SCRIPT)" || { echo "usage: make vm-run SCRIPT=path/to/script.sh [ARCH=arm64]" >&2; exit 2; }
	@$(TB)/vm-run.sh -f $(CACHE)/build/tests=dtl/tests $(SCRIPT)
endif

clean:
	rm -rf $(CACHE)/build
