// SPDX-License-Identifier: GPL-2.0-only
/*
 * dtl's compatibility layer, the part that is code: built into the module
 * by the out-of-tree build only (testbed/module.Kbuild), never by the
 * kernel's own build or the series.  See compat/dtl_compat.h.
 *
 * A distribution's kernel does not export the sched_switch and
 * sched_migrate_task tracepoints: find them by name among the kernel's
 * tracepoints.  Called where the driver registers or unregisters a probe
 * (process context, rarely: once per session, or a second after the last
 * one), so the walk over the tracepoints is not cached.
 */
#define pr_fmt(fmt) "dtl: " fmt

#include <linux/errno.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

struct dtl_compat_tp {
	const char		*name;
	struct tracepoint	*tp;
};

static void dtl_compat_tp_match(struct tracepoint *tp, void *priv)
{
	struct dtl_compat_tp *f = priv;

	if (!strcmp(tp->name, f->name))
		f->tp = tp;
}

static struct tracepoint *dtl_compat_tp_find(const char *name)
{
	struct dtl_compat_tp f = { .name = name };

	for_each_kernel_tracepoint(dtl_compat_tp_match, &f);
	if (!f.tp)
		pr_err("%s tracepoint not found\n", name);
	return f.tp;
}

int dtl_compat_tracepoint_register(const char *name, void *probe, void *data)
{
	struct tracepoint *tp = dtl_compat_tp_find(name);

	return tp ? tracepoint_probe_register(tp, probe, data) : -ENODEV;
}

int dtl_compat_tracepoint_unregister(const char *name, void *probe,
				     void *data)
{
	struct tracepoint *tp = dtl_compat_tp_find(name);

	return tp ? tracepoint_probe_unregister(tp, probe, data) : -ENODEV;
}
