/* mock_libnvml.c -- a fake NVML for testing host/nvml.c without a driver.
 *
 * See mock_libnvml.h.  The prototypes are the ones host/nvml.c declares from
 * NVML's documented ABI (no nvml.h is installed), with plain C types.
 * Single-threaded, like the tests.
 */
#include "tests/mock_libnvml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mock_nvml_device_st {
    int unused;
} *mock_nvml_device;

static struct mock_nvml_device_st the_device;
static mock_nvml_state state;
static int defaults_set;

mock_nvml_state *mock_nvml_get_state(void);
void mock_nvml_reset(void);

void mock_nvml_reset(void)
{
    memset(&state, 0, sizeof state);
    state.sm_clock_mhz = MOCK_NVML_DEFAULT_SM_MHZ;
    state.sm_max_clock_mhz = MOCK_NVML_DEFAULT_SM_MAX_MHZ;
    state.mem_clock_mhz = MOCK_NVML_DEFAULT_MEM_MHZ;
    state.mem_max_clock_mhz = MOCK_NVML_DEFAULT_MEM_MAX_MHZ;
    state.ecc_current = state.ecc_pending = 1;
    state.persistence = 1;
    defaults_set = 1;
}

mock_nvml_state *mock_nvml_get_state(void)
{
    if (!defaults_set)
        mock_nvml_reset();
    return &state;
}

#define NEED_INIT()                                                                            \
    do {                                                                                       \
        if (state.live_inits <= 0)                                                             \
            return 1; /* NVML_ERROR_UNINITIALIZED */                                           \
    } while (0)

static int need_device(mock_nvml_device dev)
{
    if (state.live_inits <= 0)
        return 1;
    return dev == &the_device ? 0 : 2; /* NVML_ERROR_INVALID_ARGUMENT */
}

int nvmlInit_v2(void);
int nvmlInit_v2(void)
{
    mock_nvml_get_state();
    state.init_calls++;
    if (state.fail_init)
        return state.fail_init;
    state.live_inits++;
    return 0;
}

int nvmlShutdown(void);
int nvmlShutdown(void)
{
    NEED_INIT();
    state.shutdown_calls++;
    state.live_inits--;
    return 0;
}

const char *nvmlErrorString(int rc);
const char *nvmlErrorString(int rc)
{
    switch (rc) {
    case 0: return "Success";
    case 1: return "Uninitialized";
    case 2: return "Invalid Argument";
    case MOCK_NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case MOCK_NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case MOCK_NVML_ERROR_NOT_FOUND: return "Not Found";
    case MOCK_NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    default: return "Unknown Error";
    }
}

int nvmlSystemGetDriverVersion(char *version, unsigned length);
int nvmlSystemGetDriverVersion(char *version, unsigned length)
{
    NEED_INIT();
    if (!version || length < sizeof MOCK_NVML_DRIVER_VERSION)
        return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
    snprintf(version, length, "%s", MOCK_NVML_DRIVER_VERSION);
    return 0;
}

int nvmlDeviceGetHandleByPciBusId_v2(const char *pci_bus_id, mock_nvml_device *device);
int nvmlDeviceGetHandleByPciBusId_v2(const char *pci_bus_id, mock_nvml_device *device)
{
    NEED_INIT();
    if (!pci_bus_id || !device)
        return 2;
    snprintf(state.last_pci_bus_id, sizeof state.last_pci_bus_id, "%s", pci_bus_id);
    if (strcmp(pci_bus_id, MOCK_NVML_PCI_BUS_ID) != 0)
        return MOCK_NVML_ERROR_NOT_FOUND;
    *device = &the_device;
    return 0;
}

int nvmlDeviceGetClockInfo(mock_nvml_device dev, int type, unsigned *mhz);
int nvmlDeviceGetClockInfo(mock_nvml_device dev, int type, unsigned *mhz)
{
    int rc = need_device(dev);
    if (rc)
        return rc;
    switch (type) {
    case 1: *mhz = state.sm_clock_mhz; return 0;
    case 2: *mhz = state.mem_clock_mhz; return 0;
    default: return 2;
    }
}

int nvmlDeviceGetMaxClockInfo(mock_nvml_device dev, int type, unsigned *mhz);
int nvmlDeviceGetMaxClockInfo(mock_nvml_device dev, int type, unsigned *mhz)
{
    int rc = need_device(dev);
    if (rc)
        return rc;
    switch (type) {
    case 1: *mhz = state.sm_max_clock_mhz; return 0;
    case 2: *mhz = state.mem_max_clock_mhz; return 0;
    default: return 2;
    }
}

int nvmlDeviceGetCurrentClocksThrottleReasons(mock_nvml_device dev, unsigned long long *reasons);
int nvmlDeviceGetCurrentClocksThrottleReasons(mock_nvml_device dev, unsigned long long *reasons)
{
    int rc = need_device(dev);
    if (rc)
        return rc;
    if (state.fail_throttle)
        return state.fail_throttle;
    *reasons = state.throttle_reasons;
    return 0;
}

int nvmlDeviceGetEccMode(mock_nvml_device dev, int *current, int *pending);
int nvmlDeviceGetEccMode(mock_nvml_device dev, int *current, int *pending)
{
    int rc = need_device(dev);
    if (rc)
        return rc;
    if (state.fail_ecc)
        return state.fail_ecc;
    *current = state.ecc_current;
    *pending = state.ecc_pending;
    return 0;
}

int nvmlDeviceGetMigMode(mock_nvml_device dev, unsigned *current, unsigned *pending);
int nvmlDeviceGetMigMode(mock_nvml_device dev, unsigned *current, unsigned *pending)
{
    int rc = need_device(dev);
    if (rc)
        return rc;
    if (state.fail_mig)
        return state.fail_mig;
    *current = state.mig_current;
    *pending = state.mig_pending;
    return 0;
}

int nvmlDeviceGetPersistenceMode(mock_nvml_device dev, int *mode);
int nvmlDeviceGetPersistenceMode(mock_nvml_device dev, int *mode)
{
    int rc = need_device(dev);
    if (rc)
        return rc;
    *mode = state.persistence;
    return 0;
}

int nvmlDeviceGetComputeMode(mock_nvml_device dev, int *mode);
int nvmlDeviceGetComputeMode(mock_nvml_device dev, int *mode)
{
    int rc = need_device(dev);
    if (rc)
        return rc;
    *mode = state.compute_mode;
    return 0;
}

/* The legacy names, with the old ABI: resolving one is the bug this mock catches. */
void nvmlInit(void);
void nvmlInit(void)
{
    fprintf(stderr, "mock NVML: legacy nvmlInit called (resolve nvmlInit_v2)\n");
    abort();
}
void nvmlDeviceGetHandleByPciBusId(void);
void nvmlDeviceGetHandleByPciBusId(void)
{
    fprintf(stderr, "mock NVML: legacy nvmlDeviceGetHandleByPciBusId called (resolve _v2)\n");
    abort();
}
