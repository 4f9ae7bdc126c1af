// SPDX-License-Identifier: GPL-2.0-only
/*
 * The steal time source of the Dispatch Trace Log PMU (drivers/perf/dtl/)
 * on arm64: the stolen time record of the paravirtualised time interface
 * (Arm DEN0057A, SMCCC PV_TIME_FEATURES / PV_TIME_ST), which dtl maps for
 * itself.  See include/linux/perf/dtl_steal.h.
 */
#include <linux/arm-smccc.h>
#include <linux/build_bug.h>
#include <linux/export.h>
#include <linux/io.h>
#include <linux/perf/dtl_steal.h>
#include <linux/stddef.h>
#include <asm/pvclock-abi.h>

static_assert(sizeof(struct pvclock_vcpu_stolen_time) ==
	      sizeof(struct dtl_pmu_pv_stolen_time));
static_assert(offsetof(struct pvclock_vcpu_stolen_time, stolen_time) ==
	      offsetof(struct dtl_pmu_pv_stolen_time, stolen_time));

/* The hypervisor answers for the calling vCPU. */
static void *dtl_arm64_steal_find(void)
{
	struct arm_smccc_res res;

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

static void dtl_arm64_steal_release(void *rec)
{
	memunmap(rec);
}

static const struct dtl_pmu_steal_source dtl_arm64_steal = {
	.name		= "pv-time",
	.format		= DTL_PMU_STEAL_PV_TIME,
	.find		= dtl_arm64_steal_find,
	.release	= dtl_arm64_steal_release,
};

/*
 * Exported for the dtl module.  Built into the module itself (out of the
 * tree, for a kernel that lacks it), this object serves that module only.
 */
const struct dtl_pmu_steal_source *dtl_pmu_arch_steal(void)
{
	/* NONE also when the firmware implements SMCCC older than 1.1. */
	if (arm_smccc_1_1_get_conduit() == SMCCC_CONDUIT_NONE)
		return NULL;
	return &dtl_arm64_steal;
}

#ifndef MODULE
EXPORT_SYMBOL_GPL(dtl_pmu_arch_steal);
#endif
