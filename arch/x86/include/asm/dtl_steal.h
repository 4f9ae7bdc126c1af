/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * x86 glue of the Dispatch Trace Log PMU (drivers/perf/dtl): the KVM steal
 * time record of a vCPU, which the guest kernel registered at boot with
 * MSR_KVM_STEAL_TIME.  dtl only reads it.
 */
#ifndef _ASM_X86_DTL_STEAL_H
#define _ASM_X86_DTL_STEAL_H

#include <linux/build_bug.h>
#include <linux/kvm_para.h>
#include <linux/stddef.h>
#include <asm/io.h>
#include <asm/msr.h>

#define DTL_ARCH_STEAL_NAME	"kvm-steal-time"

static_assert(sizeof(struct kvm_steal_time) == sizeof(struct dtl_kvm_steal_time));
static_assert(offsetof(struct kvm_steal_time, version) ==
	      offsetof(struct dtl_kvm_steal_time, version));

/*
 * The physical address of this CPU's record, or 0.  Called on each CPU
 * with interrupts disabled.
 */
static inline phys_addr_t dtl_arch_steal_locate(void)
{
	u64 msr;

	/*
	 * The guest kernel enables the MSR only where KVM offers steal time
	 * (kvm_para_has_feature() is not available to modules); elsewhere
	 * the read faults, and the _safe variant says so.
	 */
	if (!kvm_para_available())
		return 0;
	if (rdmsrl_safe(MSR_KVM_STEAL_TIME, &msr) || !(msr & KVM_MSR_ENABLED))
		return 0;
	return msr & ~(u64)(sizeof(struct kvm_steal_time) - 1);
}

/* The guest registered its own per-CPU memory: it is in the direct map. */
static inline void *dtl_arch_steal_map(phys_addr_t pa)
{
	return phys_to_virt(pa);
}

static inline void dtl_arch_steal_unmap(void *rec)
{
}

static inline bool dtl_arch_steal_read(const void *rec, u64 *ns)
{
	return dtl_kvm_steal_read(rec, ns);
}

#endif /* _ASM_X86_DTL_STEAL_H */
