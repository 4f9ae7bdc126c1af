// SPDX-License-Identifier: GPL-2.0-only
/*
 * The steal time source of the Dispatch Trace Log PMU (drivers/perf/dtl/)
 * on x86: the KVM steal time record that the guest kernel registered for
 * each vCPU with MSR_KVM_STEAL_TIME, its per-CPU variable steal_time.
 * See include/linux/perf/dtl_steal.h.
 */
#include <linux/build_bug.h>
#include <linux/export.h>
#include <linux/kvm_para.h>
#include <linux/mm.h>
#include <linux/perf/dtl_steal.h>
#include <linux/stddef.h>
#include <asm/io.h>
#include <asm/msr.h>

static_assert(sizeof(struct kvm_steal_time) ==
	      sizeof(struct dtl_pmu_kvm_steal_time));
static_assert(offsetof(struct kvm_steal_time, steal) ==
	      offsetof(struct dtl_pmu_kvm_steal_time, steal));
static_assert(offsetof(struct kvm_steal_time, version) ==
	      offsetof(struct dtl_pmu_kvm_steal_time, version));

static void *dtl_x86_steal_find(void)
{
	phys_addr_t pa;
	void *rec;
	u64 msr;

	/*
	 * The kernel enables the MSR only where KVM offers steal time; on
	 * other hypervisors, and on bare metal, the read faults, and the
	 * _safe variant says so.
	 */
	if (rdmsrq_safe(MSR_KVM_STEAL_TIME, &msr) || !(msr & KVM_MSR_ENABLED))
		return NULL;
	/*
	 * What the kernel wrote, as the hypervisor reports it back: use it
	 * only if it is memory of the direct map, where per-CPU areas are.
	 */
	pa = msr & KVM_STEAL_VALID_BITS;
	if (pa != (msr & KVM_STEAL_VALID_BITS))
		return NULL;
	rec = phys_to_virt(pa);
	if (!virt_addr_valid(rec))
		return NULL;
	return rec;
}

/* The kernel's own memory: nothing to release. */
static const struct dtl_pmu_steal_source dtl_x86_steal = {
	.name	= "kvm-steal-time",
	.format	= DTL_PMU_STEAL_KVM,
	.percpu	= true,
	.find	= dtl_x86_steal_find,
};

/*
 * Exported for the dtl module.  Built into the module itself (out of the
 * tree, for a kernel that lacks it), this object serves that module only.
 */
const struct dtl_pmu_steal_source *dtl_pmu_arch_steal(void)
{
	return kvm_para_available() ? &dtl_x86_steal : NULL;
}

#ifndef MODULE
EXPORT_SYMBOL_GPL(dtl_pmu_arch_steal);
#endif
