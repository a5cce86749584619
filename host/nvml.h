/* nvml.h -- what NVML says about a GPU's clocks and modes, for meta.json.
 *
 * A latency in SM cycles moves with the SM clock (an L2 or DRAM round trip is
 * fixed in nanoseconds, so its cycle count grows with boost), and a card that
 * throttles, runs with ECC on or off, is split by MIG or shared through MPS
 * measures differently.  NVML (libnvidia-ml.so.1, part of every NVIDIA driver
 * install) knows all of these.  host/nvml.c loads it at run time with dlopen,
 * as the CUDA backend loads libcuda, finds the CUDA device's NVML handle by
 * its PCI bus id and reads the state into a JSON object.
 *
 * No GPU-less machine has NVML, so the answer is often {"available": false,
 * "reason": "..."}; that is a description, not an error.
 */
#ifndef GD_NVML_H
#define GD_NVML_H

#include <stddef.h>

#include <jansson.h>

/* Which library is opened: GPUDISSECT_LIBNVML if set (the tests' mock), else
 * this name (the driver's). */
#define GD_NVML_LIBRARY_ENV "GPUDISSECT_LIBNVML"
#define GD_NVML_DEFAULT_LIBRARY "libnvidia-ml.so.1"

/* The NVML state of the GPU at `pci_bus_id` ("0000:65:00.0", as
 * cuDeviceGetPCIBusId writes it): a new object, never NULL unless out of
 * memory.  {"available": true, "library": ..., "driver_version": ...,
 * "clocks_mhz": {"sm", "sm_max", "memory", "memory_max"}, "throttle_reasons":
 * [names], "throttle_reasons_mask": n, "ecc": {"current", "pending"},
 * "mig_mode": {"current", "pending"}, "persistence_mode": bool, "compute_mode":
 * name, "mps": {...}} -- a field NVML could not read holds "not available:
 * <why>" -- or {"available": false, "reason": "..."}. */
json_t *gd_nvml_describe(const char *pci_bus_id);

/* The NVML entry points, {documented name, versioned name gd_nvml_describe
 * dlsym()s}, in resolution order; sets *count.  The tests check each against
 * nvml.h's mapping. */
typedef struct gd_nvml_symbol {
    const char *plain_name;
    const char *resolved_name;
} gd_nvml_symbol;
const gd_nvml_symbol *gd_nvml_symbol_table(size_t *count);

#endif
