// SPDX-License-Identifier: GPL-2.0-only
/*
 * paravirt_steal_clock_read() for a kernel that does not export it (the
 * series' "sched/cputime: Export a reader of the paravirt steal clock"):
 * Linux 6.12, or a distribution's 7.3.  Built by the out-of-tree build
 * only (testbed/module.Kbuild); see compat/dtl_compat.h.
 *
 * The kernel's paravirt steal clock reads a per-vCPU record that the
 * hypervisor updates.  Here each CPU's record is found again as the CPU
 * comes online: on x86 the KVM steal time record that the kernel
 * registered with MSR_KVM_STEAL_TIME (its per-CPU steal_time), on arm64
 * the PV time stolen time record (SMCCC PV_TIME_ST), mapped a second time.
 * Elsewhere, or where there is none, the reader says so and dtl uses the
 * kernel's steal accounting.  The CPU hotplug state that finds the
 * records is set up before dtl registers its PMU and removed after it
 * unregisters it: compat/dtl_compat.h maps perf_pmu_register() and
 * perf_pmu_unregister() onto the two functions at the end.
 */
#define pr_fmt(fmt) "dtl: " fmt

#include <linux/build_bug.h>
#include <linux/cpuhotplug.h>
#include <linux/irqflags.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>
#include <linux/stddef.h>
#ifdef CONFIG_X86
#include <linux/kvm_para.h>
#include <linux/mm.h>
#include <asm/io.h>
#include <asm/msr.h>
#endif
#ifdef CONFIG_ARM64
#include <linux/arm-smccc.h>
#include <linux/io.h>
#include <asm/pvclock-abi.h>
#endif

#include "dtl_compat_steal.h"

#ifdef CONFIG_X86
static_assert(sizeof(struct kvm_steal_time) ==
	      sizeof(struct dtl_compat_kvm_steal_time));
static_assert(offsetof(struct kvm_steal_time, steal) ==
	      offsetof(struct dtl_compat_kvm_steal_time, steal));
static_assert(offsetof(struct kvm_steal_time, version) ==
	      offsetof(struct dtl_compat_kvm_steal_time, version));

/* The record is the kernel's per-CPU variable: check its offset. */
#define DTL_COMPAT_STEAL_PERCPU	true

static bool dtl_compat_steal_offered(void)
{
	return kvm_para_available();
}

static void *dtl_compat_steal_find(void)
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
static void dtl_compat_steal_release(void *rec)
{
}

static bool dtl_compat_steal_rec_read(const void *rec, u64 *ns)
{
	return dtl_compat_kvm_steal_read(rec, ns);
}
#elif defined(CONFIG_ARM64)
static_assert(sizeof(struct pvclock_vcpu_stolen_time) ==
	      sizeof(struct dtl_compat_pv_stolen_time));
static_assert(offsetof(struct pvclock_vcpu_stolen_time, stolen_time) ==
	      offsetof(struct dtl_compat_pv_stolen_time, stolen_time));

#define DTL_COMPAT_STEAL_PERCPU	false

static bool dtl_compat_steal_offered(void)
{
	/* NONE also when the firmware implements SMCCC older than 1.1. */
	return arm_smccc_1_1_get_conduit() != SMCCC_CONDUIT_NONE;
}

/* The hypervisor answers for the calling vCPU. */
static void *dtl_compat_steal_find(void)
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

static void dtl_compat_steal_release(void *rec)
{
	memunmap(rec);
}

static bool dtl_compat_steal_rec_read(const void *rec, u64 *ns)
{
	return dtl_compat_pv_stolen_read(rec, ns);
}
#else
#define DTL_COMPAT_STEAL_PERCPU	false

static bool dtl_compat_steal_offered(void)
{
	return false;
}

static void *dtl_compat_steal_find(void)
{
	return NULL;
}

static void dtl_compat_steal_release(void *rec)
{
}

static bool dtl_compat_steal_rec_read(const void *rec, u64 *ns)
{
	return false;
}
#endif

/*
 * Each CPU's record, and its last good reading (a read that keeps failing
 * repeats it).  A record is found when its CPU first comes online and kept
 * until the PMU is unregistered, so that the clock never jumps between the
 * record and the kernel's steal accounting.  Set on the CPU with
 * interrupts off; read by dtl's probe and counters on the CPU, and by its
 * steal_source file on any CPU (which updates no reading).
 */
static DEFINE_PER_CPU(void *, dtl_compat_steal_rec);
static DEFINE_PER_CPU(u64, dtl_compat_steal_last);
static DEFINE_PER_CPU(void *, dtl_compat_steal_gone);	/* at exit */
/*
 * Whether any CPU has a record: on bare metal, and under a hypervisor
 * that offers no steal time, the probe's read tests this and no more.
 * Set when a CPU's record is found, cleared when they are dropped.
 */
bool dtl_compat_steal_found;
static enum cpuhp_state dtl_compat_steal_cpuhp;
/* Guarded by the hotplug lock, which serialises the callbacks. */
static struct dtl_compat_steal_pcpu dtl_compat_steal_pcpu;

/* As paravirt_steal_clock_read(), from the CPU's record, if one was found. */
bool __dtl_compat_steal_clock_read(int cpu, u64 *ns)
{
	void *rec;
	int this;
	u64 v;

	rec = READ_ONCE(per_cpu(dtl_compat_steal_rec, cpu));
	this = get_cpu();

	if (rec && cpu == this && dtl_compat_steal_rec_read(rec, &v))
		this_cpu_write(dtl_compat_steal_last, v);
	put_cpu();
	if (!rec)
		return false;
	*ns = READ_ONCE(per_cpu(dtl_compat_steal_last, cpu));
	return true;
}

static int dtl_compat_steal_cpu_online(unsigned int cpu)
{
	unsigned long flags;
	void *rec;
	u64 ns;

	if (this_cpu_read(dtl_compat_steal_rec))
		return 0;
	rec = dtl_compat_steal_find();
	if (!rec)
		return 0;
	if (DTL_COMPAT_STEAL_PERCPU &&
	    !dtl_compat_steal_pcpu_ok(&dtl_compat_steal_pcpu,
				      (unsigned long)rec, per_cpu_offset(cpu))) {
		pr_warn("cpu%u: the steal record is not the kernel's per-CPU one, not used\n",
			cpu);
		dtl_compat_steal_release(rec);
		return 0;
	}
	if (!dtl_compat_steal_rec_read(rec, &ns)) {
		dtl_compat_steal_release(rec);
		return 0;
	}
	local_irq_save(flags);
	this_cpu_write(dtl_compat_steal_last, ns);
	this_cpu_write(dtl_compat_steal_rec, rec);
	local_irq_restore(flags);
	WRITE_ONCE(dtl_compat_steal_found, true);
	return 0;
}

/*
 * The kernel's own perf_pmu_register() and perf_pmu_unregister(), which
 * compat/dtl_compat.h renamed (perf_pmu_unregister() returns an int since
 * Linux 6.15).
 */
#undef perf_pmu_register
#undef perf_pmu_unregister
int perf_pmu_register(struct pmu *pmu, const char *name, int type);

/*
 * Drop the records.  dtl's probe may still run (it lingers): it reads a
 * record with interrupts off, so once no CPU has one, a grace period
 * passes before they are released.
 */
static void dtl_compat_steal_exit(void)
{
	void *rec;
	int cpu;

	if (dtl_compat_steal_cpuhp)
		cpuhp_remove_state_nocalls(dtl_compat_steal_cpuhp);
	dtl_compat_steal_cpuhp = 0;
	for_each_possible_cpu(cpu)
		if (per_cpu(dtl_compat_steal_rec, cpu))
			break;
	if (cpu >= nr_cpu_ids)
		return;
	WRITE_ONCE(dtl_compat_steal_found, false);
	for_each_possible_cpu(cpu)
		per_cpu(dtl_compat_steal_gone, cpu) =
			xchg(per_cpu_ptr(&dtl_compat_steal_rec, cpu), NULL);
	synchronize_rcu();
	for_each_possible_cpu(cpu) {
		rec = per_cpu(dtl_compat_steal_gone, cpu);
		per_cpu(dtl_compat_steal_gone, cpu) = NULL;
		if (rec)
			dtl_compat_steal_release(rec);
	}
}

int dtl_compat_pmu_register(struct pmu *pmu, const char *name, int type)
{
	int ret;

	if (dtl_compat_steal_offered()) {
		ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "perf/dtl:steal",
					dtl_compat_steal_cpu_online, NULL);
		if (ret < 0)
			return ret;
		dtl_compat_steal_cpuhp = ret;
	}
	ret = perf_pmu_register(pmu, name, type);
	if (ret)
		dtl_compat_steal_exit();
	return ret;
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 15, 0)
int perf_pmu_unregister(struct pmu *pmu);

int dtl_compat_pmu_unregister(struct pmu *pmu)
{
	int ret = perf_pmu_unregister(pmu);

	if (!ret)
		dtl_compat_steal_exit();
	return ret;
}
#else
void perf_pmu_unregister(struct pmu *pmu);

void dtl_compat_pmu_unregister(struct pmu *pmu)
{
	perf_pmu_unregister(pmu);
	dtl_compat_steal_exit();
}
#endif
