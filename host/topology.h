/* topology.h -- the host machine as hwloc sees it, for results/RUN/meta.json. */
#ifndef GD_TOPOLOGY_H
#define GD_TOPOLOGY_H

#include <jansson.h>

#include "host/device.h"

/* {"cpu_model", "packages", "cores", "pus", "numa_nodes", "hwloc_version",
 *  and, when pci_bus_id names a device hwloc finds, "gpu_pci_bus_id",
 *  "gpu_local_cpuset"}.  Returns a new reference, or NULL with err. */
json_t *gd_topology_describe(const char *pci_bus_id, gd_err *err);

#endif
