/* node_bind.h -- a child of a node run placed next to its GPU (node_bind.c). */
#ifndef GD_NODE_BIND_H
#define GD_NODE_BIND_H

#include "host/device.h"

typedef struct gd_node_binder gd_node_binder;

/* Where a child runs, or why it is not bound. */
typedef struct gd_node_binding {
    int bound;
    char cpuset[128], nodeset[128]; /* hwloc list syntax, "0-7"; "" when not bound */
    char note[256];                 /* "bound to the CPUs 0-7 ..." or "not bound: ..." */
} gd_node_binding;

/* Loads the host topology with its PCI devices (hwloc).  Returns 0, or -1 with
 * err when hwloc cannot load it. */
int gd_node_binder_open(gd_node_binder **out, gd_err *err);
void gd_node_binder_close(gd_node_binder *binder);

/* Decides where the device `spec` with PCI bus id `pci_bus_id` ("" for none)
 * runs: for a bus id hwloc knows, the cpuset and NUMA nodeset of the PCI
 * device's nearest non-I/O ancestor (bound = 1); otherwise bound = 0 and the
 * note says why.  binder may be NULL (no topology: nothing is bound). */
void gd_node_bind_plan(gd_node_binder *binder, const char *spec, const char *pci_bus_id,
                       gd_node_binding *out);

/* In the child, after fork and before exec (bindings survive exec): binds the
 * process's CPUs and memory to the planned sets.  Returns 0 or -1 with err. */
int gd_node_bind_apply(gd_node_binder *binder, const gd_node_binding *binding, gd_err *err);

#endif
