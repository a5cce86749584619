/* node_bind.h -- a child of a node run placed next to its GPU (node_bind.c). */
#ifndef GD_NODE_BIND_H
#define GD_NODE_BIND_H

#include "host/node_run.h"

typedef struct gd_node_binder gd_node_binder;

/* Loads the host topology with its PCI devices (hwloc).  Returns 0, or -1 with
 * err when hwloc cannot load it. */
int gd_node_binder_open(gd_node_binder **out, gd_err *err);
void gd_node_binder_close(gd_node_binder *binder);

/* Decides where `dev` runs: for a device with a PCI bus id that hwloc knows,
 * the cpuset and NUMA nodeset of the PCI device's nearest non-I/O ancestor
 * (bound = 1); otherwise bound = 0 and binding_note says why.  binder may be
 * NULL (no topology: nothing is bound). */
void gd_node_bind_plan(gd_node_binder *binder, gd_node_device *dev);

/* In the child, after fork and before exec (bindings survive exec): binds the
 * process's CPUs and memory to the planned sets.  Returns 0 or -1 with err. */
int gd_node_bind_apply(gd_node_binder *binder, const gd_node_device *dev, gd_err *err);

#endif
