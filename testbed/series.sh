#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make series: the patch series a maintainer would take, written with
# git format-patch (numbered, with a cover letter) into a folder.
#
# The series is built in a scratch git repository whose first commit holds
# the linux-source-7.3 files the series edits, exactly as Debian ships
# them; each step then adds the repository's new files at their upstream
# paths, or applies one of the git patches kept in patches/ with git am.
# The new files' commits get the messages below; the patches keep theirs.
#
# usage: series.sh [OUTDIR]   (default: series/ at the top of the tree)
#   DTL_SERIES_FROM="Name <addr>" sets the author and Signed-off-by.
# Prints OUTDIR.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

outdir=${1:-$DTL_TOP/series}
from=${DTL_SERIES_FROM:-dtl developers <dtl@localhost>}
name=${from%% <*}
mail=${from##*<}
mail=${mail%>}

repo=$(mktemp -d "${TMPDIR:-/tmp}/dtl-series.XXXXXX")
trap 'rm -rf "$repo"' EXIT
g() { git -C "$repo" -c user.name="$name" -c user.email="$mail" \
	-c commit.gpgsign=false "$@"; }

dtl_series_base "$repo" "$from"

# stage PATH...: copy the tree's files under PATH into the repository
# and stage them.
stage() {
	local p
	for p in $(git -C "$DTL_TOP" ls-files -- "$@"); do
		mkdir -p "$repo/$(dirname "$p")"
		cp "$DTL_TOP/$p" "$repo/$p"
		g add "$p"
	done
	for p in "$@"; do
		[ -e "$repo/$p" ] || die "series: $p is not in the tree"
	done
}

# add SUBJECT BODY PATH...: a commit of new files, copied from the tree.
add() {
	local subject=$1 body=$2
	shift 2
	stage "$@"
	printf '%s\n\n%s\n\nSigned-off-by: %s\n' "$subject" "$body" "$from" |
		g commit -q -F -
}

# am PATCH: one of the kept git patches, with its own message; the
# author and sign-off become the series'.
am() {
	local p=$DTL_TOP/patches/$1
	[ -f "$p" ] || die "series: no $p"
	sed -e "s/^From: .*/From: $from/" \
	    -e "s/^Signed-off-by: .*/Signed-off-by: $from/" "$p" | g am -q ||
		die "series: $1 does not apply with git am"
}

# am_with PATCH PATH...: a kept git patch of existing files, and new
# files of the tree in the same commit.
am_with() {
	am "$1"
	shift
	stage "$@"
	g commit -q --amend --no-edit
}

# The core changes dtl needs as a module, first.
am linux/0001-sched-Export-the-sched_switch-and-sched_migrate_task-.patch
am linux/0002-perf-Do-not-detach-PMU-specific-data-that-an-event-d.patch
am linux/0003-perf-Give-each-user-of-a-task-s-PMU-specific-data-it.patch
am linux/0004-perf-Keep-an-inherited-event-s-PMU-specific-data-unt.patch
am linux/0005-sched-cputime-Export-a-reader-of-the-paravirt-steal-.patch

add "uapi: perf_dtl: Add the dispatch trace log record format" \
"The dtl PMU writes one record per context switch into the perf AUX
buffer, and a LOST record where its per-CPU log lapped a reader.  Define
the formats once for the kernel and for perf: the 64-byte record that a
decoder fills, written as is in format 1; the compact format 2, the
default, where a record that follows on from the one before takes 32
bytes (native byte order); the header that begins every AUX
transaction and names its records' format and byte order, so that the
stream describes itself; the record kinds and flags, and the PMU's
config bits.

The names carry a perf_dtl_/PERF_DTL_ prefix: powerpc already has a
struct dtl_entry and DTL_* (asm/lppaca.h, asm/dtl.h) for the
hypervisor's dispatch trace log." \
	include/uapi/linux/perf_dtl.h

# The driver in one patch, from the tree's files as they are: its counting
# events and its trace log share the scheduler hook and the per-CPU state,
# and neither builds without the other's half of dtl_core.c.
add "drivers/perf: Add the dtl dispatch trace log PMU" \
"Add dtl, a PMU that reports what the scheduler does to tasks, after the
powerpc vpa-dtl PMU but for the Linux scheduler's own dispatches and on
any architecture.

Counting events, for perf stat: dispatches, preemptions, run-queue wait
ns and steal ns, per CPU, per cgroup and per task with inheritance.
Every CPU keeps monotonic totals that only its sched_switch probe
writes; an event counts the difference between add() and del().  The
wait is what the scheduler adds to the task's sched_info.run_delay from
its last switch-out to the end of its run, so the probe reads no clock
for it, and the count is schedstat's, including the wait on a queue the
task was moved away from.  That takes the task's run_delay at each
switch-out, kept in dtl's own slot of the task's PMU specific data
(perf_ctx_data), which perf core allocates for the event's tasks, or
for every task while a CPU-wide event exists.  A task
can read its own counts from the perf mmap page without a system call.
When perf swaps the equivalent contexts of an inherited family instead
of switching their events, the events keep counting, which is right for
a family whose counts are summed; debugfs shows per CPU how often each
way was taken, so that tests can prove the fast path ran.

The trace event (event=0x00), for perf record -e dtl/all/, records
every context switch of a CPU:

- While a trace event exists, each online CPU has a dispatch log of
  log_entries fixed-size records (module parameter, default 4096), which
  only that CPU's sched_switch and migration probes write, with
  interrupts disabled, never waiting for a reader.  A record names both
  tasks, why the outgoing one left (preempted, blocked, exiting), its
  run time and steal, the incoming one's run-queue wait and the time it
  slept before it was woken, and a per-CPU sequence number.  The probe
  reads the clock only while its CPU has a log.
- Each trace event is a reader with its own cursor, so any number of
  sessions may trace the same CPUs.  The CPU-wide events of a CPU are
  drained into their AUX buffers by one pinned hrtimer of that CPU, a
  bounded number of records per pass (interrupts are off while it
  copies); so are the per-task events while their task runs there, and
  each drains the rest of its task's window when the task is switched
  out.
- Records go to the AUX buffer in the compact format by default (a
  record that follows on from the one before it takes 32 bytes instead
  of 64), or as 64-byte records with the \"full\" format bit.  Each AUX
  transaction begins with a header that names its records' format and
  byte order: the stream describes itself.
- Losses are exact: a reader the log lapped, or whose AUX buffer was
  full, gets a LOST record with the counts, and the AUX record with the
  gap is flagged PERF_AUX_FLAG_PARTIAL.
- Filters: the kinds of records (config:8-15, with an event alias
  trace_<kind> for each), a minimum wait (config1), exclude_kernel and
  exclude_user; the sample period is the poll interval.
- A trace event counts nothing.  One with no ring buffer (perf stat of
  a trace event where a counter was meant) fails pmu::add, as Intel PT's
  add fails for an event it cannot start, so perf shows it \"<not
  counted>\" rather than 0; its close names the counter in the kernel
  log.

Trace events reveal other tasks and need CAP_PERFMON, as vpa-dtl's do,
at every perf_event_paranoid level.  A busy
file in sysfs lists, per CPU, who uses the unit and how.

The scheduler hooks are registered only while a dtl event exists and
for a second after the last one closes, so a loaded but unused driver
costs nothing and an open/close loop flips no static key.

Steal time comes from the kernel's paravirt steal clock, read at every
switch with paravirt_steal_clock_read(), or, where there is none, from
the kernel's steal accounting.

KUnit tests cover the per-task data of dtl and LBR side by side, the
parsing of event attributes, the log producer and
consumer, the sequence and loss arithmetic, the filters, the record
encoding, the drain's timing and the steal arithmetic." \
	drivers/perf/dtl/Kconfig drivers/perf/dtl/Makefile \
	drivers/perf/dtl/dtl.h drivers/perf/dtl/dtl_core.c drivers/perf/dtl/dtl_trace.c \
	drivers/perf/dtl/dtl_task.c drivers/perf/dtl/dtl_task.h drivers/perf/dtl/dtl_kunit.c

am linux/0006-drivers-perf-Build-the-dtl-dispatch-trace-log-PMU.patch

add "Documentation: perf: Document the dtl PMU and its sysfs ABI" \
"Describe the dtl PMU for administrators: its events and their units,
what the trace records hold and how perf decodes them, the privileges
each event needs, the busy file, the module parameters, and the
overhead measured.  Add the sysfs ABI of the PMU's format, events and
busy files." \
	Documentation/admin-guide/perf/dtl.rst \
	Documentation/admin-guide/perf/dtl-timeline.svg \
	Documentation/admin-guide/perf/dtl-datapath.svg \
	Documentation/admin-guide/perf/dtl-perf-timeline.svg \
	Documentation/ABI/testing/sysfs-bus-event_source-devices-dtl

am linux/0007-Documentation-MAINTAINERS-Add-the-dtl-PMU.patch

add "tools/dtl: Add a helper that reads dtl counters without a system call" \
"dtl_self.h reads a dtl counter of the calling task from the perf mmap
page (rdpmc-style, with the seqlock and time fields the kernel fills in),
and falls back to read() where the page says it cannot.  The example
counts its own dispatches with libperf." \
	tools/dtl/Makefile tools/dtl/dtl_self.h tools/dtl/dtl_self_example.c

add "tools/dtl: Add dtl's events for Performance Co-Pilot's perfevent PMDA" \
"Hosts collect their metrics with what they already run.  PCP's perfevent
PMDA opens PMU events by name from the [dynamic] section of its
configuration; this is that section for dtl's four counting events, to
be appended to perfevent.conf.  The admin guide says what the metrics
mean and how pmproxy serves them as OpenMetrics." \
	tools/dtl/pcp/perfevent-dtl.conf

add "selftests/dtl: Test the dtl PMU against the kernel's own counts" \
"kselftest_harness tests that compare every count and record of the dtl
PMU with an independent count the kernel keeps: schedstat run_delay,
nvcsw/nivcsw, sched_switch records.  They cover per-CPU, per-task and
per-cgroup counting, inheritance, groups led by software and hardware
events, the trace and its loss accounting, the busy file, privileges at
each perf_event_paranoid level and in a new pid namespace, CPU hotplug,
allocation failures (fault injection), a cross-check with the timerlat
tracer, and perf stat as users type it." \
	tools/testing/selftests/dtl

add "perf dtl: Add the dispatch trace log decoder and runqlat dlfilter" \
"Add the perf side of the dtl PMU, not yet hooked into perf:

- a copy of the uapi record format header for tools;
- dtl-decoder.c walks a buffer of records, checks each (kind, CPU, time
  order, byte order) and names what it skips;
- dtl.c records the dtl trace event with per-CPU or per-thread AUX
  buffers and decodes them with perf's auxtrace queues and a timestamp
  heap, so that the records interleave with sched:* events, and turns
  each record into a synthesized sample that carries both tasks' names;
- dlfilter-dtl-runqlat summarizes run-queue latency per task;
- dlfilter-dtl-timeline writes the records as CPU and task tracks in the
  Chrome trace-event JSON format (Perfetto, chrome://tracing), and as an
  SVG picture of a short recording." \
	tools/include/uapi/linux/perf_dtl.h \
	tools/perf/util/dtl-decoder.c tools/perf/util/dtl-decoder.h \
	tools/perf/util/dtl.c tools/perf/util/dtl.h \
	tools/perf/dlfilters/dlfilter-dtl.h \
	tools/perf/dlfilters/dlfilter-dtl-runqlat.c \
	tools/perf/dlfilters/dlfilter-dtl-timeline.c

am perf/0001-perf-dtl-Record-and-decode-the-dispatch-trace-log.patch
am perf/0002-perf-session-Keep-exited-threads-for-files-with-synt.patch
am perf/0003-perf-record-Start-a-new-AUX-area-index-in-each-switc.patch
am perf/0004-perf-auxtrace-Ignore-index-entries-outside-the-file-.patch
am perf/0005-perf-auxtrace-Skip-AUX-area-data-with-an-impossible-.patch
am perf/0006-perf-script-Leave-out-the-default-symbol-fields-of-e.patch

add "perf dtl: Add shell tests, a Python script and documentation" \
"Shell tests record dtl with sched:sched_switch and check that perf
script, report, inject, data convert, the dlfilter and pipe mode agree
with the tracepoint, that loss is reported, and that the Python script
sees every record.  perf-dtl.txt documents recording and decoding." \
	tools/perf/tests/shell/test_dtl.sh tools/perf/tests/shell/test_dtl_pipe.sh \
	tools/perf/tests/shell/test_dtl_python.sh \
	tools/perf/scripts/python/dtl-events.py \
	tools/perf/Documentation/perf-dtl.txt

# Every file of the tree that the series should carry, it carries.
missing=$(cd "$DTL_TOP" && git ls-files -- drivers include arch tools Documentation |
	while read -r f; do [ -f "$repo/$f" ] || echo "$f"; done)
[ -z "$missing" ] || die "series: files not in any patch: $missing"

# The cover letter: what dtl is, the numbers of make bench from bench/README.md.
n=$(g rev-list --count base..HEAD)
bench=$(sed -n '/^# P1\/P2\/P5\/P6/,/^P6:/{p;/^P6:/q}' "$DTL_TOP/bench/README.md")
rm -rf "$outdir"
mkdir -p "$outdir"
g format-patch -q --cover-letter --subject-prefix="PATCH" -o "$outdir" base..HEAD
cover=$(ls "$outdir"/0000-cover-letter.patch)
python3 - "$cover" "$n" <<EOF
import sys
p, n = sys.argv[1], sys.argv[2]
s = open(p).read()
s = s.replace('*** SUBJECT HERE ***', 'dtl: a dispatch trace log PMU for every architecture')
blurb = '''dtl is a perf PMU that reports what the scheduler does to tasks: how
often they are dispatched, how often they are preempted, how long they
wait on a run queue, and how much hypervisor steal time they suffer.

The powerpc vpa-dtl PMU (v6.18) exposes the hypervisor's dispatch trace
log of a pseries LPAR's virtual processors through perf.  dtl keeps the
idea and the usage, perf record -e dtl/.../ and perf script, but logs
the Linux scheduler's own dispatches, from the sched_switch tracepoint,
on any architecture and under any hypervisor or none.  It differs from
vpa-dtl in that:

- its records come from the kernel, not from a hypervisor buffer, and
  name both tasks, the wait before the dispatch, the time blocked and
  the steal during the run;
- it has counting events for perf stat, per CPU, per cgroup and per task
  with inheritance, readable from the mmap page without a system call;
- any number of sessions may trace at once, with exact loss accounting.

Its names are prefixed (perf_dtl_*, PERF_DTL_*, dtl_pmu_*) so as not to
collide with powerpc's dtl, and its perf auxtrace type and synthesized
event id come after vpa-dtl's.

Measured with make bench of the dtl tree (QEMU TCG, guest time with
-icount shift=3, perf bench sched pipe on CPU 0 while recording all
CPUs; none = not recording, tracepoints = sched_switch + sched_wakeup,
sched = perf sched record, trace-cmd = trace-cmd 3.1 recording the same
tracepoints, floor = a module whose sched_switch probe does nothing):

$bench

Patches 1-4 are the core changes dtl needs as a module: 1 exports the
two scheduler tracepoints it probes, 2 fixes a detach of PMU specific
data that an event never attached (a fix for v6.15's per-task PMU data,
on its own for stable), 3 gives each user of a task's PMU specific data
its own slot (dtl keeps a task's last switch-out there, beside x86 LBR's
call stacks), 4 exports a reader of the paravirt steal clock to dtl.  5
adds the record format, 6 the driver, 7 builds it, 8-9 add the
documentation and MAINTAINERS, 10 a helper that reads counters without
a system call, 11 dtl's events for Performance Co-Pilot, 12 the
selftests, 13-$n the perf
tools support, its tests and docs.  The series is based on Linux 7.3
(checked with git am on linux-source-7.3, $DTL_K73_REL); after each
patch, the kernel's drivers/perf/ (W=1, sparse), perf and the selftests
build.

checkpatch --strict passes on every patch but for two checks left on
purpose.  BIT_MACRO in tools/include/uapi/linux/perf_dtl.h: the tools
copy is the uapi header byte for byte, as perf's check-headers.sh
requires, and a uapi header cannot use BIT(), which is why checkpatch
exempts include/uapi/ but not its copy.  SPDX_LICENSE_TAG in
tools/perf/tests/shell/test_dtl*.sh: perf test takes a shell test's
description from its second line, so the SPDX line is the third, as in
the other tests there.'''
s = s.replace('*** BLURB HERE ***', blurb)
open(p, 'w').write(s)
EOF
echo "$outdir"
