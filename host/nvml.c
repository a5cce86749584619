/* nvml.c -- NVML state of the measured GPU (clocks, throttling, ECC, MIG, MPS,
 * persistence), loaded at run time; see nvml.h.
 *
 * The CUDA toolkit here ships no nvml.h, and gpudissect never links NVML
 * anyway: a binary linked against libnvidia-ml would not start on a machine
 * without a driver.  So this file declares the few entry points it uses itself,
 * from NVML's documented ABI (the "NVML API Reference Guide" and nvml.h of the
 * R535+ drivers; each prototype below names its section), and resolves each by
 * dlsym.  nvml.h, like cuda.h, renames some functions to versioned ABIs with
 * macros (`#define nvmlInit nvmlInit_v2`,
 * `#define nvmlDeviceGetHandleByPciBusId nvmlDeviceGetHandleByPciBusId_v2`)
 * and the library still exports the old names with the old ABI; with no header
 * to expand the macros, the versioned names are spelled out once, in
 * NVML_SYMBOLS, and tests/test_nvml.c checks them against nvml.h's mapping.
 *
 * The CUDA device is matched to its NVML device by PCI bus id (both use
 * "domain:bus:device.function"); NVML's device order need not be CUDA's.
 * Each query that fails (NOT_SUPPORTED on a GeForce, NO_PERMISSION in a
 * container) fills its field with "not available: <nvmlErrorString>" and the
 * rest go on.
 */
#include "host/nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the NVML ABI, declared here (nvml.h is not installed) ----------------- */

typedef int nvml_return;                /* nvmlReturn_t: 0 is NVML_SUCCESS */
typedef struct nvml_device_st *nvml_device; /* nvmlDevice_t: an opaque handle */
#define NVML_SUCCESS 0
#define NVML_FEATURE_ENABLED 1          /* nvmlEnableState_t */
#define NVML_CLOCK_SM 1                 /* nvmlClockType_t: GRAPHICS 0, SM 1, MEM 2 */
#define NVML_CLOCK_MEM 2
#define NVML_DRIVER_VERSION_BYTES 80    /* NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE */

/* Initialization and Cleanup: nvmlInit_v2(void), nvmlShutdown(void). */
typedef nvml_return (*nvml_init_fn)(void);
typedef nvml_return (*nvml_shutdown_fn)(void);
/* Error reporting: const char *nvmlErrorString(nvmlReturn_t result). */
typedef const char *(*nvml_error_string_fn)(nvml_return);
/* System queries: nvmlSystemGetDriverVersion(char *version, unsigned int length). */
typedef nvml_return (*nvml_driver_version_fn)(char *, unsigned);
/* Device queries: nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId,
 * nvmlDevice_t *device). */
typedef nvml_return (*nvml_handle_by_pci_fn)(const char *, nvml_device *);
/* nvmlDeviceGetClockInfo / nvmlDeviceGetMaxClockInfo(nvmlDevice_t,
 * nvmlClockType_t type, unsigned int *clockMHz). */
typedef nvml_return (*nvml_clock_fn)(nvml_device, int, unsigned *);
/* nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t, unsigned long long
 * *reasons) (the R535 name; nvmlDeviceGetCurrentClocksEventReasons is its newer
 * alias, absent from older drivers). */
typedef nvml_return (*nvml_throttle_fn)(nvml_device, unsigned long long *);
/* nvmlDeviceGetEccMode(nvmlDevice_t, nvmlEnableState_t *current,
 * nvmlEnableState_t *pending). */
typedef nvml_return (*nvml_ecc_fn)(nvml_device, int *, int *);
/* nvmlDeviceGetMigMode(nvmlDevice_t, unsigned int *currentMode, unsigned int
 * *pendingMode). */
typedef nvml_return (*nvml_mig_fn)(nvml_device, unsigned *, unsigned *);
/* nvmlDeviceGetPersistenceMode(nvmlDevice_t, nvmlEnableState_t *mode). */
typedef nvml_return (*nvml_persistence_fn)(nvml_device, int *);
/* nvmlDeviceGetComputeMode(nvmlDevice_t, nvmlComputeMode_t *mode). */
typedef nvml_return (*nvml_compute_mode_fn)(nvml_device, int *);

/* {documented name, versioned export, field} for every entry point used. */
#define NVML_SYMBOLS(X)                                                                        \
    X(nvmlInit, nvmlInit_v2, init, nvml_init_fn)                                               \
    X(nvmlShutdown, nvmlShutdown, shutdown, nvml_shutdown_fn)                                  \
    X(nvmlErrorString, nvmlErrorString, error_string, nvml_error_string_fn)                    \
    X(nvmlSystemGetDriverVersion, nvmlSystemGetDriverVersion, driver_version,                  \
      nvml_driver_version_fn)                                                                  \
    X(nvmlDeviceGetHandleByPciBusId, nvmlDeviceGetHandleByPciBusId_v2, handle_by_pci,          \
      nvml_handle_by_pci_fn)                                                                   \
    X(nvmlDeviceGetClockInfo, nvmlDeviceGetClockInfo, clock_info, nvml_clock_fn)               \
    X(nvmlDeviceGetMaxClockInfo, nvmlDeviceGetMaxClockInfo, max_clock_info, nvml_clock_fn)     \
    X(nvmlDeviceGetCurrentClocksThrottleReasons, nvmlDeviceGetCurrentClocksThrottleReasons,    \
      throttle_reasons, nvml_throttle_fn)                                                      \
    X(nvmlDeviceGetEccMode, nvmlDeviceGetEccMode, ecc_mode, nvml_ecc_fn)                       \
    X(nvmlDeviceGetMigMode, nvmlDeviceGetMigMode, mig_mode, nvml_mig_fn)                       \
    X(nvmlDeviceGetPersistenceMode, nvmlDeviceGetPersistenceMode, persistence_mode,            \
      nvml_persistence_fn)                                                                     \
    X(nvmlDeviceGetComputeMode, nvmlDeviceGetComputeMode, compute_mode, nvml_compute_mode_fn)

typedef struct nvml_library {
    void *handle;
#define NVML_FIELD(plain, versioned, field, type) type field;
    NVML_SYMBOLS(NVML_FIELD)
#undef NVML_FIELD
} nvml_library;

#define NVML_TABLE_ENTRY(plain, versioned, field, type) {#plain, #versioned},
static const gd_nvml_symbol nvml_symbols[] = {NVML_SYMBOLS(NVML_TABLE_ENTRY)};
#undef NVML_TABLE_ENTRY
#define NVML_OFFSET(plain, versioned, field, type) offsetof(nvml_library, field),
static const size_t nvml_offsets[] = {NVML_SYMBOLS(NVML_OFFSET)};
#undef NVML_OFFSET
#define NVML_SYMBOL_COUNT (sizeof nvml_symbols / sizeof nvml_symbols[0])
_Static_assert(sizeof(void *) == sizeof(void (*)(void)),
               "dlsym results are stored into function pointers");

const gd_nvml_symbol *gd_nvml_symbol_table(size_t *count)
{
    *count = NVML_SYMBOL_COUNT;
    return nvml_symbols;
}

/* clocksThrottleReasons bits, nvml.h "Clocks Event Reasons" (nvmlClocksThrottleReason*). */
static const struct {
    unsigned long long bit;
    const char *name;
} throttle_reason_names[] = {
    {0x1ull, "gpu_idle"},
    {0x2ull, "applications_clocks_setting"},
    {0x4ull, "sw_power_cap"},
    {0x8ull, "hw_slowdown"},
    {0x10ull, "sync_boost"},
    {0x20ull, "sw_thermal_slowdown"},
    {0x40ull, "hw_thermal_slowdown"},
    {0x80ull, "hw_power_brake_slowdown"},
    {0x100ull, "display_clock_setting"},
};

/* nvmlComputeMode_t, nvml.h "Device Enums". */
static const char *const compute_mode_names[] = {"default", "exclusive_thread", "prohibited",
                                                 "exclusive_process"};

/* Where the MPS control daemon listens unless CUDA_MPS_PIPE_DIRECTORY moves it
 * (CUDA "Multi-Process Service" guide, section 5.1). */
#define MPS_DEFAULT_PIPE_DIRECTORY "/tmp/nvidia-mps"

static json_t *unavailable(const char *what)
{
    char line[256];
    snprintf(line, sizeof line, "not available: %s", what);
    return json_string(line);
}

static json_t *nvml_unavailable(const nvml_library *nvml, nvml_return rc)
{
    const char *text = nvml->error_string ? nvml->error_string(rc) : NULL;
    char why[160];
    snprintf(why, sizeof why, "%s (nvmlReturn_t %d)", text ? text : "NVML error", rc);
    return unavailable(why);
}

static json_t *not_available_doc(const char *fmt, const char *a, const char *b)
{
    char reason[512];
    snprintf(reason, sizeof reason, fmt, a, b);
    json_t *o = json_object();
    json_object_set_new(o, "available", json_false());
    json_object_set_new(o, "reason", json_string(reason));
    return o;
}

static json_t *clock_mhz(const nvml_library *nvml, nvml_device dev, nvml_clock_fn fn, int type)
{
    unsigned mhz = 0;
    nvml_return rc = fn(dev, type, &mhz);
    return rc == NVML_SUCCESS ? json_integer(mhz) : nvml_unavailable(nvml, rc);
}

static json_t *mps_state(void)
{
    /* NVML has no MPS query; a client of a running MPS server finds the daemon
     * by its control pipe, so that is what is looked for. */
    const char *dir = getenv("CUDA_MPS_PIPE_DIRECTORY");
    if (!dir || !*dir)
        dir = MPS_DEFAULT_PIPE_DIRECTORY;
    char control[1024];
    snprintf(control, sizeof control, "%s/control", dir);
    json_t *o = json_object();
    json_object_set_new(o, "pipe_directory", json_string(dir));
    json_object_set_new(o, "control_daemon_running", json_boolean(access(control, F_OK) == 0));
    json_object_set_new(o, "source", json_string("MPS control pipe (NVML has no MPS query)"));
    return o;
}

static json_t *device_state(const nvml_library *nvml, nvml_device dev)
{
    json_t *o = json_object();
    json_object_set_new(o, "available", json_true());

    char version[NVML_DRIVER_VERSION_BYTES] = "";
    nvml_return rc = nvml->driver_version(version, sizeof version);
    version[sizeof version - 1] = '\0';
    json_object_set_new(o, "driver_version",
                        rc == NVML_SUCCESS ? json_string(version) : nvml_unavailable(nvml, rc));

    json_t *clocks = json_object();
    json_object_set_new(clocks, "sm", clock_mhz(nvml, dev, nvml->clock_info, NVML_CLOCK_SM));
    json_object_set_new(clocks, "sm_max",
                        clock_mhz(nvml, dev, nvml->max_clock_info, NVML_CLOCK_SM));
    json_object_set_new(clocks, "memory", clock_mhz(nvml, dev, nvml->clock_info, NVML_CLOCK_MEM));
    json_object_set_new(clocks, "memory_max",
                        clock_mhz(nvml, dev, nvml->max_clock_info, NVML_CLOCK_MEM));
    json_object_set_new(o, "clocks_mhz", clocks);

    unsigned long long reasons = 0;
    rc = nvml->throttle_reasons(dev, &reasons);
    if (rc == NVML_SUCCESS) {
        json_t *names = json_array();
        unsigned long long known = 0;
        for (size_t i = 0; i < sizeof throttle_reason_names / sizeof throttle_reason_names[0];
             i++) {
            known |= throttle_reason_names[i].bit;
            if (reasons & throttle_reason_names[i].bit)
                json_array_append_new(names, json_string(throttle_reason_names[i].name));
        }
        if (reasons & ~known)
            json_array_append_new(names, json_string("unknown_bits"));
        json_object_set_new(o, "throttle_reasons", names);
        json_object_set_new(o, "throttle_reasons_mask", json_integer((json_int_t)reasons));
    } else {
        json_object_set_new(o, "throttle_reasons", nvml_unavailable(nvml, rc));
    }

    int ecc_current = 0, ecc_pending = 0;
    rc = nvml->ecc_mode(dev, &ecc_current, &ecc_pending);
    if (rc == NVML_SUCCESS) {
        json_t *ecc = json_object();
        json_object_set_new(ecc, "current", json_boolean(ecc_current == NVML_FEATURE_ENABLED));
        json_object_set_new(ecc, "pending", json_boolean(ecc_pending == NVML_FEATURE_ENABLED));
        json_object_set_new(o, "ecc", ecc);
    } else {
        json_object_set_new(o, "ecc", nvml_unavailable(nvml, rc));
    }

    unsigned mig_current = 0, mig_pending = 0;
    rc = nvml->mig_mode(dev, &mig_current, &mig_pending);
    if (rc == NVML_SUCCESS) {
        json_t *mig = json_object();
        json_object_set_new(mig, "current", json_boolean(mig_current == NVML_FEATURE_ENABLED));
        json_object_set_new(mig, "pending", json_boolean(mig_pending == NVML_FEATURE_ENABLED));
        json_object_set_new(o, "mig_mode", mig);
    } else {
        json_object_set_new(o, "mig_mode", nvml_unavailable(nvml, rc));
    }

    int persistence = 0;
    rc = nvml->persistence_mode(dev, &persistence);
    json_object_set_new(o, "persistence_mode",
                        rc == NVML_SUCCESS ? json_boolean(persistence == NVML_FEATURE_ENABLED)
                                           : nvml_unavailable(nvml, rc));

    int compute_mode = -1;
    rc = nvml->compute_mode(dev, &compute_mode);
    if (rc != NVML_SUCCESS)
        json_object_set_new(o, "compute_mode", nvml_unavailable(nvml, rc));
    else if (compute_mode >= 0 &&
             compute_mode < (int)(sizeof compute_mode_names / sizeof compute_mode_names[0]))
        json_object_set_new(o, "compute_mode", json_string(compute_mode_names[compute_mode]));
    else
        json_object_set_new(o, "compute_mode", json_integer(compute_mode));
    json_object_set_new(o, "mps", mps_state());
    return o;
}

json_t *gd_nvml_describe(const char *pci_bus_id)
{
    const char *path = getenv(GD_NVML_LIBRARY_ENV);
    if (!path || !*path)
        path = GD_NVML_DEFAULT_LIBRARY;
    if (!pci_bus_id || !*pci_bus_id)
        return not_available_doc("not available: the device has no PCI bus id%s%s", "", "");

    nvml_library nvml;
    memset(&nvml, 0, sizeof nvml);
    dlerror();
    nvml.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!nvml.handle) {
        const char *why = dlerror();
        return not_available_doc("not available: cannot load %s (%s)", path,
                                 why ? why : "unknown error");
    }
    for (size_t i = 0; i < NVML_SYMBOL_COUNT; i++) {
        void *symbol = dlsym(nvml.handle, nvml_symbols[i].resolved_name);
        if (!symbol) {
            dlclose(nvml.handle);
            return not_available_doc("not available: %s has no %s (driver too old)", path,
                                     nvml_symbols[i].resolved_name);
        }
        memcpy((char *)&nvml + nvml_offsets[i], &symbol, sizeof symbol);
    }

    json_t *out = NULL;
    nvml_return rc = nvml.init();
    if (rc != NVML_SUCCESS) {
        char why[256];
        const char *text = nvml.error_string(rc);
        snprintf(why, sizeof why, "nvmlInit_v2 failed: %s (nvmlReturn_t %d)",
                 text ? text : "NVML error", rc);
        out = not_available_doc("not available: %s%s", why, "");
        dlclose(nvml.handle);
        return out;
    }
    nvml_device dev = NULL;
    rc = nvml.handle_by_pci(pci_bus_id, &dev);
    if (rc != NVML_SUCCESS) {
        char why[256];
        const char *text = nvml.error_string(rc);
        snprintf(why, sizeof why, "%s (nvmlReturn_t %d)", text ? text : "NVML error", rc);
        out = not_available_doc("not available: nvmlDeviceGetHandleByPciBusId_v2(%s) failed: %s",
                                pci_bus_id, why);
    } else {
        out = device_state(&nvml, dev);
        json_object_set_new(out, "library", json_string(path));
        json_object_set_new(out, "pci_bus_id", json_string(pci_bus_id));
    }
    nvml.shutdown();
    dlclose(nvml.handle);
    return out;
}
