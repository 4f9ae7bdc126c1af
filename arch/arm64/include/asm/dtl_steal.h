/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * arm64 glue of the Dispatch Trace Log PMU (drivers/perf/dtl): the
 * paravirtualised stolen time record of a vCPU (Arm DEN0057A, SMCCC
 * PV_TIME_FEATURES / PV_TIME_ST).  dtl maps it read-only for itself.
 */
#ifndef _ASM_ARM64_DTL_STEAL_H
#define _ASM_ARM64_DTL_STEAL_H

#include <linux/arm-smccc.h>
#include <linux/build_bug.h>
#include <linux/io.h>
#include <asm/pvclock-abi.h>

#define DTL_ARCH_STEAL_NAME	"pv-time"

static_assert(sizeof(struct pvclock_vcpu_stolen_time) ==
	      sizeof(struct dtl_pv_stolen_time));

/*
 * The IPA of this CPU's record, or 0: the hypervisor answers for the
 * calling vCPU.  Called on each CPU with interrupts disabled.
 */
static inline phys_addr_t dtl_arch_steal_locate(void)
{
	struct arm_smccc_res res;

	if (arm_smccc_1_1_get_conduit() == SMCCC_CONDUIT_NONE)
		return 0;
	arm_smccc_1_1_invoke(ARM_SMCCC_HV_PV_TIME_FEATURES,
			     ARM_SMCCC_HV_PV_TIME_ST, &res);
	if (res.a0 != SMCCC_RET_SUCCESS)
		return 0;
	arm_smccc_1_1_invoke(ARM_SMCCC_HV_PV_TIME_ST, &res);
	if ((long)res.a0 < 0)
		return 0;
	return res.a0;
}

/* In process context. */
static inline void *dtl_arch_steal_map(phys_addr_t pa)
{
	return memremap(pa, sizeof(struct pvclock_vcpu_stolen_time),
			MEMREMAP_WB);
}

static inline void dtl_arch_steal_unmap(void *rec)
{
	memunmap(rec);
}

static inline bool dtl_arch_steal_read(const void *rec, u64 *ns)
{
	return dtl_pv_stolen_read(rec, ns);
}

#endif /* _ASM_ARM64_DTL_STEAL_H */
