/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dtl's compatibility layer: what the out-of-tree build (testbed/module.Kbuild,
 * dkms.conf) needs to build the driver, written against Linux 7.3, for an
 * older kernel.  The out-of-tree Kbuild force-includes this header before
 * every file; the in-tree build and the upstream series never see it.
 *
 * Each entry maps an API of 7.3 onto the older kernel's, backports-style,
 * so that the driver reads as mainline code.  Kernels supported here:
 * Linux 6.12 (Debian 12 and 13) and 7.3.
 */
#ifndef __DTL_COMPAT_H
#define __DTL_COMPAT_H

#include <linux/version.h>

/*
 * Macros only, and no header but linux/version.h: this header comes before
 * each file's own pr_fmt and includes.
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

#endif /* __DTL_COMPAT_H */
