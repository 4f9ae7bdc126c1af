/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * x86 glue of the Dispatch Trace Log PMU (drivers/perf/dtl), for the
 * module build: the kernel's own KVM steal time record of a vCPU, the
 * per-CPU steal_time that the guest kernel registered with
 * MSR_KVM_STEAL_TIME.  Built into the kernel, dtl asks
 * paravirt_steal_clock() instead, which a module cannot call.
 */
#ifndef _ASM_X86_DTL_STEAL_H
#define _ASM_X86_DTL_STEAL_H

#include <linux/build_bug.h>
#include <linux/kvm_para.h>
#include <linux/mm.h>
#include <linux/stddef.h>
#include <asm/io.h>
#include <asm/msr.h>

#define DTL_ARCH_STEAL_NAME	"kvm-steal-time"

/*
 * The record is the kernel's per-CPU variable steal_time: dtl_core.c
 * checks that what each CPU reports sits at the same offset in each
 * CPU's per-CPU area.
 */
#define DTL_ARCH_STEAL_PERCPU	1

static_assert(sizeof(struct kvm_steal_time) == sizeof(struct dtl_kvm_steal_time));
static_assert(offsetof(struct kvm_steal_time, version) ==
	      offsetof(struct dtl_kvm_steal_time, version));

/*
 * This CPU's record, or NULL.  Called on the CPU, in process context, from
 * its CPU hotplug online callback, which runs after KVM's own (that one
 * registers the record; dtl's state was set up later).
 */
static inline void *dtl_arch_steal_find(void)
{
	void *rec;
	u64 msr;
	phys_addr_t pa;

	/*
	 * The guest kernel enables the MSR only where KVM offers steal time
	 * (kvm_para_has_feature() is not available to modules); elsewhere
	 * the read faults, and the _safe variant says so.
	 */
	if (!kvm_para_available())
		return NULL;
	if (rdmsrl_safe(MSR_KVM_STEAL_TIME, &msr) || !(msr & KVM_MSR_ENABLED))
		return NULL;
	/*
	 * What the guest wrote, as the hypervisor reports it back: use it
	 * only if it is memory of the kernel's direct map, where the
	 * per-CPU areas are.
	 */
	pa = msr & KVM_STEAL_VALID_BITS;
	if (pa != (msr & KVM_STEAL_VALID_BITS))
		return NULL;
	rec = phys_to_virt(pa);
	if (!virt_addr_valid(rec))
		return NULL;
	return rec;
}

/* The kernel's own memory: nothing to undo. */
static inline void dtl_arch_steal_release(void *rec)
{
}

static inline bool dtl_arch_steal_read(const void *rec, u64 *ns)
{
	return dtl_kvm_steal_read(rec, ns);
}

#endif /* _ASM_X86_DTL_STEAL_H */
