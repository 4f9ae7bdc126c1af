/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hypervisor steal records that compat/dtl_compat_steal.c reads, for a
 * kernel that does not export paravirt_steal_clock_read(): their layouts
 * and how to read them, apart from the code that finds them so that
 * compat/dtl_compat_kunit.c can test them on any architecture.
 */
#ifndef __DTL_COMPAT_STEAL_H
#define __DTL_COMPAT_STEAL_H

#include <linux/compiler.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <asm/byteorder.h>

/* x86 KVM steal time: the kernel's struct kvm_steal_time. */
struct dtl_compat_kvm_steal_time {
	u64	steal;
	u32	version;
	u32	flags;
	u8	preempted;
	u8	pad8[3];
	u32	pad[11];
};

/* Arm PV time (DEN0057A): the kernel's struct pvclock_vcpu_stolen_time. */
struct dtl_compat_pv_stolen_time {
	__le32	revision;
	__le32	attributes;
	__le64	stolen_time;
	u8	padding[48];
} __packed;

/*
 * Read a KVM steal time record: the steal between two reads of an even,
 * unchanged version.  False if the host kept updating it.
 */
static inline bool
dtl_compat_kvm_steal_read(const struct dtl_compat_kvm_steal_time *st, u64 *ns)
{
	int tries;

	for (tries = 0; tries < 4; tries++) {
		u32 v1 = READ_ONCE(st->version);
		u64 steal;

		/* The host writes version, steal, version, with barriers. */
		smp_rmb();
		steal = READ_ONCE(st->steal);
		/* Read steal before checking the version again. */
		smp_rmb();
		if (!(v1 & 1) && READ_ONCE(st->version) == v1) {
			*ns = steal;
			return true;
		}
	}
	return false;
}

/*
 * Read an arm64 stolen time record (revision 0, updated with single-copy
 * atomic 64-bit stores).  False for a revision not known here.
 */
static inline bool
dtl_compat_pv_stolen_read(const struct dtl_compat_pv_stolen_time *st, u64 *ns)
{
	if (le32_to_cpu(READ_ONCE(st->revision)) != 0)
		return false;
	*ns = le64_to_cpu(READ_ONCE(st->stolen_time));
	return true;
}

/*
 * The kernel's own steal record of a CPU, where it is a per-CPU variable
 * (x86 KVM steal_time), sits at the same offset from each CPU's per-CPU
 * area.  A record found at @rec on a CPU whose area starts at @pcpu_base
 * is believed if its offset is the one the first CPU with a record had.
 */
struct dtl_compat_steal_pcpu {
	bool		known;
	unsigned long	off;
};

static inline bool dtl_compat_steal_pcpu_ok(struct dtl_compat_steal_pcpu *p,
					    unsigned long rec,
					    unsigned long pcpu_base)
{
	unsigned long off = rec - pcpu_base;

	if (!p->known) {
		p->known = true;
		p->off = off;
	}
	return off == p->off;
}

#endif /* __DTL_COMPAT_STEAL_H */
