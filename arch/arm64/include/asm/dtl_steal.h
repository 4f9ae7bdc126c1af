/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * arm64 glue of the Dispatch Trace Log PMU (drivers/perf/dtl), for the
 * module build: the paravirtualised stolen time record of a vCPU (Arm
 * DEN0057A, SMCCC PV_TIME_FEATURES / PV_TIME_ST), which dtl maps for
 * itself.  Built into the kernel, dtl asks paravirt_steal_clock()
 * instead, which a module cannot call.
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
 * This CPU's record, or NULL: the hypervisor answers for the calling
 * vCPU.  Called on the CPU, in process context, from its CPU hotplug
 * online callback.
 */
static inline void *dtl_arch_steal_find(void)
{
	struct arm_smccc_res res;

	/* NONE also when the firmware implements SMCCC older than 1.1. */
	if (arm_smccc_1_1_get_conduit() == SMCCC_CONDUIT_NONE)
		return NULL;
	/* Discovery as the kernel does it (has_pv_steal_clock()). */
	arm_smccc_1_1_invoke(ARM_SMCCC_ARCH_FEATURES_FUNC_ID,
			     ARM_SMCCC_HV_PV_TIME_FEATURES, &res);
	if (res.a0 != SMCCC_RET_SUCCESS)
		return NULL;
	arm_smccc_1_1_invoke(ARM_SMCCC_HV_PV_TIME_FEATURES,
			     ARM_SMCCC_HV_PV_TIME_ST, &res);
	if (res.a0 != SMCCC_RET_SUCCESS)
		return NULL;
	arm_smccc_1_1_invoke(ARM_SMCCC_HV_PV_TIME_ST, &res);
	if ((long)res.a0 < 0)
		return NULL;
	return memremap(res.a0, sizeof(struct pvclock_vcpu_stolen_time),
			MEMREMAP_WB);
}

static inline void dtl_arch_steal_release(void *rec)
{
	memunmap(rec);
}

static inline bool dtl_arch_steal_read(const void *rec, u64 *ns)
{
	return dtl_pv_stolen_read(rec, ns);
}

#endif /* _ASM_ARM64_DTL_STEAL_H */
