/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dtl's compatibility layer: what the out-of-tree build (testbed/module.Kbuild,
 * dkms.conf) needs to build the driver, written against Linux 7.3, for an
 * older kernel.  The out-of-tree Kbuild force-includes this header before
 * every file; the in-tree build and the upstream series never see it.
 *
 * Each entry maps an API of 7.3, or one that the series' core patches add
 * (exported scheduler tracepoints, a paravirt steal clock reader), onto
 * what the older kernel or a distribution's kernel has, backports-style,
 * so that the driver reads as mainline code; the series' per-task
 * perf_ctx_data slot has compat/dtl_compat_task.c and dtl_compat_task.h in
 * its place (see testbed/module.Kbuild and testbed/build-module.sh).
 * Kernels supported here: Linux 6.12 (Debian 12 and 13) and 7.3.
 */
#ifndef __DTL_COMPAT_H
#define __DTL_COMPAT_H

#include <linux/compiler.h>
#include <linux/types.h>
#include <linux/version.h>

/*
 * Macros and prototypes of basic types only, and no header but
 * linux/types.h and linux/version.h: this header comes before each file's
 * own pr_fmt and includes.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
/* hrtimer_setup() (6.13) replaced hrtimer_init() and the .function store. */
#define hrtimer_setup(timer, fn, clock_id, mode)			\
	do {								\
		struct hrtimer *__dtl_t = (timer);			\
									\
		hrtimer_init(__dtl_t, clock_id, mode);			\
		__dtl_t->function = (fn);				\
	} while (0)
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 16, 0)
/* rdmsrl_safe() became rdmsrq_safe() in 6.16. */
#define rdmsrq_safe(msr, p)	rdmsrl_safe(msr, p)
#endif

/*
 * The sched_switch and sched_migrate_task tracepoints, which the driver
 * probes, are exported to modules by a patch of the series ("sched:
 * Export the sched_switch and sched_migrate_task tracepoints"); a
 * distribution's kernel does not export them.  Here the module finds them
 * by name (compat/dtl_compat.c) and leaves out <trace/events/sched.h>,
 * whose register functions name the unexported symbols.
 */
#define _TRACE_SCHED_H
int dtl_compat_tracepoint_register(const char *name, void *probe, void *data);
int dtl_compat_tracepoint_unregister(const char *name, void *probe,
				     void *data);
#define register_trace_sched_switch(probe, data)			\
	dtl_compat_tracepoint_register("sched_switch", (void *)(probe), data)
#define unregister_trace_sched_switch(probe, data)			\
	dtl_compat_tracepoint_unregister("sched_switch", (void *)(probe), data)
#define register_trace_sched_migrate_task(probe, data)			\
	dtl_compat_tracepoint_register("sched_migrate_task",		\
				       (void *)(probe), data)
#define unregister_trace_sched_migrate_task(probe, data)		\
	dtl_compat_tracepoint_unregister("sched_migrate_task",		\
					 (void *)(probe), data)

/*
 * paravirt_steal_clock_read() is exported by a patch of the series
 * ("sched/cputime: Export a reader of the paravirt steal clock").  Here
 * compat/dtl_compat_steal.c reads the hypervisor's steal records itself,
 * found by a CPU hotplug state that it sets up around the PMU's
 * registration: hence its perf_pmu_register() and perf_pmu_unregister().
 */
extern bool dtl_compat_steal_found;
bool __dtl_compat_steal_clock_read(int cpu, u64 *ns);

/* Inline: the probe reads it at every switch, and most machines have none. */
static inline bool dtl_compat_steal_clock_read(int cpu, u64 *ns)
{
	return READ_ONCE(dtl_compat_steal_found) &&
	       __dtl_compat_steal_clock_read(cpu, ns);
}

#define paravirt_steal_clock_read(cpu, ns)				\
	dtl_compat_steal_clock_read(cpu, ns)
#ifndef DTL_COMPAT_KUNIT	/* dtl_kunit.ko's test PMUs: the kernel's */
#define perf_pmu_register	dtl_compat_pmu_register
#define perf_pmu_unregister	dtl_compat_pmu_unregister
#endif

#endif /* __DTL_COMPAT_H */
