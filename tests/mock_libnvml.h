/* mock_libnvml.h -- the mock NVML (tests/mock_libnvml.c, built as libmocknvml.so).
 *
 * host/nvml.c loads it through GPUDISSECT_LIBNVML in place of
 * libnvidia-ml.so.1.  It knows one GPU, at the mock CUDA driver's PCI bus id,
 * exports the NVML entry points only under their versioned names (the legacy
 * nvmlInit and nvmlDeviceGetHandleByPciBusId abort: a wrong name dies in the
 * test), and lets a test set every value it reports and make any query fail,
 * through the state that mock_nvml_get_state() returns (dlsym it by
 * MOCK_NVML_STATE_SYMBOL).
 */
#ifndef GD_MOCK_LIBNVML_H
#define GD_MOCK_LIBNVML_H

#define MOCK_NVML_PCI_BUS_ID "0000:65:00.0" /* = MOCK_CUDA_PCI_BUS_ID */
#define MOCK_NVML_DRIVER_VERSION "580.00.mock"

/* nvmlReturn_t values the tests use (nvml.h "nvmlReturn_t"). */
#define MOCK_NVML_SUCCESS 0
#define MOCK_NVML_ERROR_NOT_SUPPORTED 3
#define MOCK_NVML_ERROR_NO_PERMISSION 4
#define MOCK_NVML_ERROR_NOT_FOUND 6
#define MOCK_NVML_ERROR_DRIVER_NOT_LOADED 9

typedef struct mock_nvml_state {
    unsigned sm_clock_mhz, sm_max_clock_mhz, mem_clock_mhz, mem_max_clock_mhz;
    unsigned long long throttle_reasons;
    int ecc_current, ecc_pending;          /* 1: enabled */
    unsigned mig_current, mig_pending;
    int persistence;
    int compute_mode;
    /* nonzero: that query returns this nvmlReturn_t */
    int fail_init, fail_ecc, fail_mig, fail_throttle;
    /* records */
    int init_calls, shutdown_calls, live_inits;
    char last_pci_bus_id[64];
} mock_nvml_state;

#define MOCK_NVML_STATE_SYMBOL "mock_nvml_get_state"
typedef mock_nvml_state *(*mock_nvml_state_fn)(void);
#define MOCK_NVML_RESET_SYMBOL "mock_nvml_reset"
typedef void (*mock_nvml_reset_fn)(void); /* back to the defaults below, records zeroed */

#define MOCK_NVML_DEFAULT_SM_MHZ 1590
#define MOCK_NVML_DEFAULT_SM_MAX_MHZ 1590
#define MOCK_NVML_DEFAULT_MEM_MHZ 5001
#define MOCK_NVML_DEFAULT_MEM_MAX_MHZ 5001

#endif
