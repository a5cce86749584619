/* node_bind.c -- where a node run's child runs: next to its GPU.
 *
 * A GPU's launches and copies go through the CPU that drives it; on a host with
 * several sockets or NUMA nodes, a driver thread on the far socket adds its
 * interconnect hop to every launch and every copy.  So each child of `--device
 * cuda:all` is bound, before it execs, to the cores and memory nearest its GPU:
 *
 *   PCI bus id (from the driver, gd_device_info.pci_bus_id)
 *     -> hwloc's PCI device object (hwloc_get_pcidev_by_busid)
 *     -> its first non-I/O ancestor (a NUMA node's package, group or machine)
 *     -> that ancestor's cpuset and nodeset
 *     -> hwloc_set_cpubind + hwloc_set_membind for the whole process.
 *
 * hwloc's own CUDA helper (hwloc/cuda.h) needs the CUDA runtime's headers and
 * library, which this tool does not use; the bus id gives the same object.
 * Sim devices have no PCI device and are not bound (their status says so); a
 * bus id hwloc does not find (a mock driver's, a VM that hides the PCI tree)
 * is not bound either, with the reason.  What was bound goes to the device's
 * status.json and meta.json.
 */
#include "host/node_bind.h"

#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gd_node_binder {
    hwloc_topology_t topology;
};

int gd_node_binder_open(gd_node_binder **out, gd_err *err)
{
    gd_node_binder *b = calloc(1, sizeof *b);
    if (!b)
        return gd_fail(err, "out of memory");
    if (hwloc_topology_init(&b->topology) != 0) {
        free(b);
        return gd_fail(err, "hwloc_topology_init failed");
    }
    hwloc_topology_set_io_types_filter(b->topology, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(b->topology) != 0) {
        hwloc_topology_destroy(b->topology);
        free(b);
        return gd_fail(err, "hwloc_topology_load failed");
    }
    *out = b;
    return 0;
}

void gd_node_binder_close(gd_node_binder *binder)
{
    if (!binder)
        return;
    hwloc_topology_destroy(binder->topology);
    free(binder);
}

void gd_node_bind_plan(gd_node_binder *binder, const char *spec, const char *pci_bus_id,
                       gd_node_binding *out)
{
    memset(out, 0, sizeof *out);
    if (!pci_bus_id || !pci_bus_id[0]) {
        snprintf(out->note, sizeof out->note,
                 strncmp(spec, "sim:", 4)
                     ? "not bound: the driver gave no PCI bus id"
                     : "not bound: a sim device has no PCI device (it runs where the OS puts it)");
        return;
    }
    if (!binder) {
        snprintf(out->note, sizeof out->note, "not bound: hwloc could not load the host topology");
        return;
    }
    unsigned domain = 0, bus = 0, device = 0, func = 0;
    hwloc_obj_t pci = NULL;
    if (sscanf(pci_bus_id, "%x:%x:%x.%x", &domain, &bus, &device, &func) == 4)
        pci = hwloc_get_pcidev_by_busid(binder->topology, domain, bus, device, func);
    hwloc_obj_t near = pci ? hwloc_get_non_io_ancestor_obj(binder->topology, pci) : NULL;
    if (!near || !near->cpuset || hwloc_bitmap_iszero(near->cpuset)) {
        snprintf(out->note, sizeof out->note, "not bound: hwloc finds no PCI device %s on this host",
                 pci_bus_id);
        return;
    }
    hwloc_bitmap_list_snprintf(out->cpuset, sizeof out->cpuset, near->cpuset);
    if (near->nodeset)
        hwloc_bitmap_list_snprintf(out->nodeset, sizeof out->nodeset, near->nodeset);
    out->bound = 1;
    snprintf(out->note, sizeof out->note,
             "bound to the CPUs %s and NUMA nodes %s of the %s nearest PCI %s", out->cpuset,
             out->nodeset[0] ? out->nodeset : "(none)", hwloc_obj_type_string(near->type),
             pci_bus_id);
}

int gd_node_bind_apply(gd_node_binder *binder, const gd_node_binding *b, gd_err *err)
{
    if (!binder || !b->bound)
        return 0;
    hwloc_bitmap_t cpus = hwloc_bitmap_alloc(), nodes = hwloc_bitmap_alloc();
    int rc = -1;
    if (!cpus || !nodes) {
        gd_fail(err, "out of memory");
        goto out;
    }
    if (hwloc_bitmap_list_sscanf(cpus, b->cpuset) != 0 ||
        hwloc_set_cpubind(binder->topology, cpus, HWLOC_CPUBIND_PROCESS) != 0) {
        gd_fail(err, "hwloc_set_cpubind(%s) failed", b->cpuset);
        goto out;
    }
    /* memory binding is best effort: a kernel without NUMA support refuses it,
     * and the CPU binding alone already keeps first-touch pages local */
    if (b->nodeset[0] && hwloc_bitmap_list_sscanf(nodes, b->nodeset) == 0)
        hwloc_set_membind(binder->topology, nodes, HWLOC_MEMBIND_BIND,
                          HWLOC_MEMBIND_PROCESS | HWLOC_MEMBIND_BYNODESET);
    rc = 0;
out:
    hwloc_bitmap_free(cpus);
    hwloc_bitmap_free(nodes);
    return rc;
}
