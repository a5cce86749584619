/* test_nvml.c -- host/nvml.c against a mock NVML (tests/mock_libnvml.c).
 *
 * What a GPU-less machine can check: the names dlsym()ed are NVML's versioned
 * ABIs (the mock aborts on the legacy ones), the CUDA device is matched by PCI
 * bus id, every value read lands in its JSON field, a query that fails says
 * "not available: <NVML's reason>" without losing the others, and a missing
 * library or a failing nvmlInit gives {"available": false, "reason": ...}.
 * Last, meta.json of a cuda device (the mock driver) carries the NVML state at
 * the start and at the end of the run.
 */
#include "tests/testing.h"

#include "host/device.h"
#include "host/device_registry.h"
#include "host/meta.h"
#include "host/nvml.h"
#include "tests/mock_libnvml.h"

#include <dlfcn.h>

#define assert_contains(text, needle)                                                          \
    do {                                                                                       \
        const char *haystack_ = (text);                                                        \
        if (!strstr(haystack_, (needle)))                                                      \
            fail_msg("\"%s\" lacks \"%s\"", haystack_, (needle));                              \
    } while (0)

typedef struct mock_nvml {
    void *library;
    mock_nvml_state *state;
} mock_nvml;

/* libmocknvml.so next to this test, or GD_MOCK_LIBNVML; NULL if neither. */
static const char *mock_nvml_path(void)
{
    static char path[4096];
    return gd_test_mock_library("GD_MOCK_LIBNVML", "libmocknvml.so", path, sizeof path);
}

static void use_mock_nvml(mock_nvml *mock)
{
    const char *path = mock_nvml_path();
    if (!path)
        GD_SKIP("mock NVML libmocknvml.so not found next to the test (or GD_MOCK_LIBNVML)");
    mock->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!mock->library)
        fail_msg("dlopen %s: %s", path, dlerror());
    mock_nvml_reset_fn reset = (mock_nvml_reset_fn)dlsym(mock->library, MOCK_NVML_RESET_SYMBOL);
    mock_nvml_state_fn state = (mock_nvml_state_fn)dlsym(mock->library, MOCK_NVML_STATE_SYMBOL);
    assert_non_null(reset);
    assert_non_null(state);
    reset();
    mock->state = state();
    setenv(GD_NVML_LIBRARY_ENV, path, 1);
}

static void release_mock_nvml(mock_nvml *mock)
{
    unsetenv(GD_NVML_LIBRARY_ENV);
    dlclose(mock->library);
}

static const char *string_at(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    if (!s)
        fail_msg("no string '%s'", key);
    return s;
}

static void test_symbol_names(void **unused)
{
    (void)unused;
    size_t count = 0;
    const gd_nvml_symbol *table = gd_nvml_symbol_table(&count);
    assert_non_null(table);
    /* nvml.h (R535+): `#define nvmlInit nvmlInit_v2`, `#define
     * nvmlDeviceGetHandleByPciBusId nvmlDeviceGetHandleByPciBusId_v2`; the
     * other entry points used have one ABI and no macro. */
    static const char *const expected[][2] = {
        {"nvmlInit", "nvmlInit_v2"},
        {"nvmlShutdown", "nvmlShutdown"},
        {"nvmlErrorString", "nvmlErrorString"},
        {"nvmlSystemGetDriverVersion", "nvmlSystemGetDriverVersion"},
        {"nvmlDeviceGetHandleByPciBusId", "nvmlDeviceGetHandleByPciBusId_v2"},
        {"nvmlDeviceGetClockInfo", "nvmlDeviceGetClockInfo"},
        {"nvmlDeviceGetMaxClockInfo", "nvmlDeviceGetMaxClockInfo"},
        {"nvmlDeviceGetCurrentClocksThrottleReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"},
        {"nvmlDeviceGetEccMode", "nvmlDeviceGetEccMode"},
        {"nvmlDeviceGetMigMode", "nvmlDeviceGetMigMode"},
        {"nvmlDeviceGetPersistenceMode", "nvmlDeviceGetPersistenceMode"},
        {"nvmlDeviceGetComputeMode", "nvmlDeviceGetComputeMode"},
    };
    assert_int_equal(count, sizeof expected / sizeof expected[0]);
    for (size_t i = 0; i < count; i++) {
        assert_string_equal(table[i].plain_name, expected[i][0]);
        assert_string_equal(table[i].resolved_name, expected[i][1]);
    }
}

static void test_no_library(void **unused)
{
    (void)unused;
    setenv(GD_NVML_LIBRARY_ENV, "/nonexistent/gpudissect/libnvidia-ml.so.1", 1);
    json_t *o = gd_nvml_describe("0000:65:00.0");
    unsetenv(GD_NVML_LIBRARY_ENV);
    assert_non_null(o);
    assert_true(json_is_false(json_object_get(o, "available")));
    assert_contains(string_at(o, "reason"), "not available: cannot load");
    assert_contains(string_at(o, "reason"), "/nonexistent/gpudissect/libnvidia-ml.so.1");
    json_decref(o);
}

static void test_mock_state(void **unused)
{
    (void)unused;
    mock_nvml mock;
    use_mock_nvml(&mock);
    mock.state->sm_clock_mhz = 1234;
    mock.state->sm_max_clock_mhz = 1725;
    mock.state->mem_clock_mhz = 877;
    mock.state->throttle_reasons = 0x4ull | 0x40ull; /* sw power cap, hw thermal */
    mock.state->ecc_current = 0;
    mock.state->ecc_pending = 1;
    mock.state->fail_mig = MOCK_NVML_ERROR_NOT_SUPPORTED;
    mock.state->persistence = 0;
    mock.state->compute_mode = 3;

    json_t *o = gd_nvml_describe(MOCK_NVML_PCI_BUS_ID);
    assert_non_null(o);
    assert_true(json_is_true(json_object_get(o, "available")));
    assert_string_equal(mock.state->last_pci_bus_id, MOCK_NVML_PCI_BUS_ID);
    assert_string_equal(string_at(o, "driver_version"), MOCK_NVML_DRIVER_VERSION);
    json_t *clocks = json_object_get(o, "clocks_mhz");
    assert_int_equal(json_integer_value(json_object_get(clocks, "sm")), 1234);
    assert_int_equal(json_integer_value(json_object_get(clocks, "sm_max")), 1725);
    assert_int_equal(json_integer_value(json_object_get(clocks, "memory")), 877);
    json_t *reasons = json_object_get(o, "throttle_reasons");
    assert_int_equal(json_array_size(reasons), 2);
    assert_string_equal(json_string_value(json_array_get(reasons, 0)), "sw_power_cap");
    assert_string_equal(json_string_value(json_array_get(reasons, 1)), "hw_thermal_slowdown");
    assert_int_equal(json_integer_value(json_object_get(o, "throttle_reasons_mask")), 0x44);
    json_t *ecc = json_object_get(o, "ecc");
    assert_true(json_is_false(json_object_get(ecc, "current")));
    assert_true(json_is_true(json_object_get(ecc, "pending")));
    assert_string_equal(string_at(o, "mig_mode"), "not available: Not Supported (nvmlReturn_t 3)");
    assert_true(json_is_false(json_object_get(o, "persistence_mode")));
    assert_string_equal(string_at(o, "compute_mode"), "exclusive_process");
    assert_non_null(json_object_get(json_object_get(o, "mps"), "control_daemon_running"));
    json_decref(o);
    /* every nvmlInit_v2 has its nvmlShutdown */
    assert_int_equal(mock.state->init_calls, 1);
    assert_int_equal(mock.state->shutdown_calls, 1);
    assert_int_equal(mock.state->live_inits, 0);

    /* a value changed between two reads is seen (no caching) */
    mock.state->sm_clock_mhz = 585;
    mock.state->fail_mig = 0;
    mock.state->mig_current = 1;
    o = gd_nvml_describe(MOCK_NVML_PCI_BUS_ID);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "clocks_mhz"), "sm")),
                     585);
    assert_true(json_is_true(json_object_get(json_object_get(o, "mig_mode"), "current")));
    json_decref(o);
    release_mock_nvml(&mock);
}

static void test_mock_failures(void **unused)
{
    (void)unused;
    mock_nvml mock;
    use_mock_nvml(&mock);
    /* another GPU's bus id: no handle, said with the id */
    json_t *o = gd_nvml_describe("0000:01:00.0");
    assert_true(json_is_false(json_object_get(o, "available")));
    assert_contains(string_at(o, "reason"), "nvmlDeviceGetHandleByPciBusId_v2(0000:01:00.0)");
    assert_contains(string_at(o, "reason"), "Not Found");
    json_decref(o);
    assert_int_equal(mock.state->live_inits, 0);

    /* a device without a bus id (never opened NVML) */
    int inits = mock.state->init_calls;
    o = gd_nvml_describe("");
    assert_true(json_is_false(json_object_get(o, "available")));
    assert_contains(string_at(o, "reason"), "no PCI bus id");
    json_decref(o);
    assert_int_equal(mock.state->init_calls, inits);

    /* nvmlInit fails (the kernel module is not loaded) */
    mock.state->fail_init = MOCK_NVML_ERROR_DRIVER_NOT_LOADED;
    o = gd_nvml_describe(MOCK_NVML_PCI_BUS_ID);
    assert_true(json_is_false(json_object_get(o, "available")));
    assert_contains(string_at(o, "reason"), "nvmlInit_v2 failed: Driver Not Loaded");
    json_decref(o);
    mock.state->fail_init = 0;

    /* no permission for one query: the others still read */
    mock.state->fail_throttle = MOCK_NVML_ERROR_NO_PERMISSION;
    o = gd_nvml_describe(MOCK_NVML_PCI_BUS_ID);
    assert_true(json_is_true(json_object_get(o, "available")));
    assert_contains(string_at(o, "throttle_reasons"), "not available: Insufficient Permissions");
    assert_null(json_object_get(o, "throttle_reasons_mask"));
    assert_true(json_is_integer(json_object_get(json_object_get(o, "clocks_mhz"), "sm")));
    json_decref(o);
    release_mock_nvml(&mock);
}

static void test_meta_json(void **unused)
{
    (void)unused;
    /* a sim device: NVML does not apply */
    gd_device *dev = NULL;
    gd_err err = {{0}};
    if (gd_device_open("sim:tiny", NULL, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    char *argv[] = {"test_nvml"};
    json_t *meta = gd_meta_new(dev, 1, argv, &err);
    assert_non_null(meta);
    json_t *nvml = json_object_get(meta, "nvml");
    assert_true(json_is_false(json_object_get(nvml, "available")));
    assert_contains(string_at(nvml, "reason"), "simulated");
    json_decref(meta);
    gd_device_close(dev);

#ifndef GD_HAVE_CUDA
    GD_SKIP("built without CUDA headers (no cuda device to describe)");
#else
    const char *libcuda = gd_test_mock_libcuda();
    if (!libcuda)
        GD_SKIP("mock driver libmockcuda.so not found");
    mock_nvml mock;
    use_mock_nvml(&mock);
    mock.state->sm_clock_mhz = 1410;
    setenv("GPUDISSECT_LIBCUDA", libcuda, 1);
    setenv("GPUDISSECT_LIBCUPTI", "/nonexistent/libcupti.so", 1); /* test_cupti.c's job */
    if (gd_device_open("cuda:0", NULL, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    /* what gd_meta_new adds for the device (not the host topology: hwloc's
     * PCI discovery leaks inside libpciaccess, see host/topology.c) */
    meta = json_object();
    gd_meta_add_device_state(meta, dev);
    nvml = json_object_get(meta, "nvml");
    assert_true(json_is_true(json_object_get(nvml, "available")));
    assert_true(json_is_false(json_object_get(json_object_get(meta, "watchdog"),
                                              "kernel_exec_timeout")));
    assert_string_equal(string_at(nvml, "pci_bus_id"), MOCK_NVML_PCI_BUS_ID);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(nvml, "clocks_mhz"), "sm")), 1410);
    /* the state at the end of the run is read again */
    char dir[] = "/tmp/gd-test-nvml-XXXXXX";
    assert_non_null(mkdtemp(dir));
    mock.state->sm_clock_mhz = 990;
    if (gd_meta_finish(meta, dev, dir, &err) != 0)
        fail_msg("%s", err.msg);
    json_t *end = json_object_get(meta, "nvml_at_end");
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(end, "clocks_mhz"), "sm")), 990);
    char path[256];
    snprintf(path, sizeof path, "%s/meta.json", dir);
    json_t *written = json_load_file(path, 0, NULL);
    assert_non_null(written);
    assert_non_null(json_object_get(written, "nvml_at_end"));
    assert_non_null(strstr(json_string_value(json_object_get(written, "cupti")),
                           "counters unavailable: cannot load /nonexistent/libcupti.so"));
    json_decref(written);
    unlink(path);
    rmdir(dir);
    json_decref(meta);
    gd_device_close(dev);
    unsetenv("GPUDISSECT_LIBCUDA");
    unsetenv("GPUDISSECT_LIBCUPTI");
    release_mock_nvml(&mock);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_symbol_names), cmocka_unit_test(test_no_library),
        cmocka_unit_test(test_mock_state),   cmocka_unit_test(test_mock_failures),
        cmocka_unit_test(test_meta_json),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
