/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Steal time sources of the Dispatch Trace Log PMU (drivers/perf/dtl/).
 *
 * Built into the kernel, dtl reads steal time with paravirt_steal_clock().
 * A dtl module cannot: pv_steal_clock is not exported.  An architecture
 * that selects HAVE_PERF_DTL_STEAL instead tells dtl where the hypervisor
 * keeps each vCPU's steal time record, and dtl reads the record itself at
 * every context switch.  dtl knows the record formats below; the
 * architecture's code finds the records.
 */
#ifndef __LINUX_PERF_DTL_STEAL_H
#define __LINUX_PERF_DTL_STEAL_H

#include <linux/types.h>

/**
 * enum dtl_pmu_steal_format - the layout of a steal time record
 * @DTL_PMU_STEAL_KVM: x86 KVM steal time (MSR_KVM_STEAL_TIME), as
 *	&struct dtl_pmu_kvm_steal_time
 * @DTL_PMU_STEAL_PV_TIME: Arm paravirtualised stolen time (DEN0057A,
 *	SMCCC PV_TIME_ST), as &struct dtl_pmu_pv_stolen_time
 */
enum dtl_pmu_steal_format {
	DTL_PMU_STEAL_KVM,
	DTL_PMU_STEAL_PV_TIME,
};

/**
 * struct dtl_pmu_kvm_steal_time - the layout of x86 KVM's record
 * @steal: the vCPU's steal time, in ns
 * @version: odd while the host updates the record
 * @flags: not used by dtl
 * @preempted: not used by dtl
 * @pad8: padding
 * @pad: padding
 *
 * The same as the kernel's struct kvm_steal_time (the x86 code checks it),
 * so that dtl's reading of it can be tested on any architecture.
 */
struct dtl_pmu_kvm_steal_time {
	u64	steal;
	u32	version;
	u32	flags;
	u8	preempted;
	u8	pad8[3];
	u32	pad[11];
};

/**
 * struct dtl_pmu_pv_stolen_time - the layout of Arm's stolen time record
 * @revision: 0, the only revision dtl knows
 * @attributes: 0
 * @stolen_time: the vCPU's stolen time, in ns
 * @padding: padding
 *
 * Little endian, the same as the kernel's struct pvclock_vcpu_stolen_time
 * (the arm64 code checks it).
 */
struct dtl_pmu_pv_stolen_time {
	__le32	revision;
	__le32	attributes;
	__le64	stolen_time;
	u8	padding[48];
} __packed;

/**
 * struct dtl_pmu_steal_source - where an architecture finds steal time
 * @name: the source, as dtl's steal_source sysfs file shows it
 * @format: the layout of the records
 * @percpu: the record is a per-CPU variable of the kernel: dtl believes a
 *	record only at the per-CPU offset the first CPU's had
 * @find: the calling CPU's record, or NULL if it has none.  Called on the
 *	CPU, in process context, from its CPU hotplug online callback,
 *	after the kernel set up its own steal accounting on that CPU
 * @release: drop a record that @find returned, from the CPU's CPU hotplug
 *	offline callback or when dtl does not use it; may be NULL
 */
struct dtl_pmu_steal_source {
	const char			*name;
	enum dtl_pmu_steal_format	format;
	bool				percpu;
	void				*(*find)(void);
	void				(*release)(void *rec);
};

#ifdef CONFIG_HAVE_PERF_DTL_STEAL
/**
 * dtl_pmu_arch_steal() - the architecture's steal time source
 *
 * Return: the source, which lives as long as the kernel, or NULL where
 * the architecture has none to offer.
 */
const struct dtl_pmu_steal_source *dtl_pmu_arch_steal(void);
#else
static inline const struct dtl_pmu_steal_source *dtl_pmu_arch_steal(void)
{
	return NULL;
}
#endif

#endif /* __LINUX_PERF_DTL_STEAL_H */
