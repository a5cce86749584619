/* topology.c -- host topology through hwloc.
 *
 * What a reader of a result needs to reproduce it: the CPU model, how many
 * packages, cores and NUMA nodes the host has, and for a CUDA device its PCI bus
 * id and the CPUs local to it (where the runner's thread should sit to keep
 * launch latency low).  For a CUDA device hwloc is asked for important I/O
 * objects so that the GPU's PCI device appears in the tree.
 */
#include "host/topology.h"

#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>

static int count_type(hwloc_topology_t topo, hwloc_obj_type_t type)
{
    int n = hwloc_get_nbobjs_by_type(topo, type);
    return n < 0 ? 0 : n;
}

json_t *gd_topology_describe(const char *pci_bus_id, gd_err *err)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) {
        gd_fail(err, "hwloc_topology_init failed");
        return NULL;
    }
    /* PCI discovery only when there is a GPU to place: it is slow, and the
     * libpciaccess behind hwloc's PCI plugin leaks a little on every load */
    int want_pci = pci_bus_id && *pci_bus_id;
    if (want_pci)
        hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        gd_fail(err, "hwloc_topology_load failed");
        return NULL;
    }
    json_t *doc = json_object();
    const char *model = NULL;
    hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
    if (pkg)
        model = hwloc_obj_get_info_by_name(pkg, "CPUModel");
    if (!model)
        model = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topo), "CPUModel");
    json_object_set_new(doc, "cpu_model", model ? json_string(model) : json_null());
    json_object_set_new(doc, "packages", json_integer(count_type(topo, HWLOC_OBJ_PACKAGE)));
    json_object_set_new(doc, "cores", json_integer(count_type(topo, HWLOC_OBJ_CORE)));
    json_object_set_new(doc, "pus", json_integer(count_type(topo, HWLOC_OBJ_PU)));
    json_object_set_new(doc, "numa_nodes", json_integer(count_type(topo, HWLOC_OBJ_NUMANODE)));
    unsigned v = hwloc_get_api_version();
    char version[32];
    snprintf(version, sizeof version, "%u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff);
    json_object_set_new(doc, "hwloc_version", json_string(version));
    if (pci_bus_id && *pci_bus_id) {
        unsigned domain = 0, bus = 0, dev = 0, func = 0;
        json_object_set_new(doc, "gpu_pci_bus_id", json_string(pci_bus_id));
        hwloc_obj_t pci = NULL;
        if (sscanf(pci_bus_id, "%x:%x:%x.%x", &domain, &bus, &dev, &func) == 4)
            pci = hwloc_get_pcidev_by_busid(topo, domain, bus, dev, func);
        hwloc_obj_t near = pci ? hwloc_get_non_io_ancestor_obj(topo, pci) : NULL;
        char *set = NULL;
        if (near && near->cpuset && hwloc_bitmap_list_asprintf(&set, near->cpuset) >= 0) {
            json_object_set_new(doc, "gpu_local_cpuset", json_string(set));
            free(set);
        } else {
            json_object_set_new(doc, "gpu_local_cpuset", json_null());
        }
    }
    hwloc_topology_destroy(topo);
    return doc;
}
