/* cupti.c -- CUPTI's range profiler for cuda:N counters (cupti.h).
 *
 * The sequence (CUPTI 12.6+ "range profiler" API, the one the CUDA 13 headers
 * document; the older cuptiProfiler* session API is deprecated):
 *
 *   cuptiProfilerInitialize
 *   cuptiDeviceGetChipName, cuptiProfilerGetCounterAvailability   what the chip has
 *   cuptiProfilerHostInitialize/ConfigAddMetrics/GetConfigImage   the config image
 *   cuptiRangeProfilerEnable(ctx)                                 the profiler object
 *   cuptiRangeProfilerGetCounterDataSize/CounterDataImageInitialize
 *   cuptiRangeProfilerSetConfig(auto range, kernel replay)        every launch a range
 *   cuptiRangeProfilerStart ... launches ... cuptiRangeProfilerStop
 *   cuptiRangeProfilerDecodeData, GetCounterDataInfo (ranges),
 *   cuptiProfilerHostEvaluateToGpuValues per range
 *
 * Kernel replay: CUPTI saves and restores device memory and replays a launch
 * until every pass of the metrics is collected, so a probe's launch may run
 * several times while profiled -- harmless for the counters, and the runner's
 * samples come from the probe's own buffers, which CUPTI restores.
 *
 * Each entry point is resolved with dlsym by the name the CUPTI headers' macros
 * make of it (GD_CU_STR, as for the driver) and called through a pointer of the
 * header's exact type.  A failing call becomes "counters unavailable: <call>:
 * <cuptiGetResultString>", with the two causes a user meets most named plainly
 * (no permission to the GPU performance counters; a MIG instance).
 */
#include "host/cupti.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cuda_symbols.h"

/* Counter name -> CUPTI metric.  Sectors and requests of global loads through
 * L1TEX (what the simulator's coalescer counts), L1 and L2 lookups of those
 * sectors, DRAM sectors, and the global load/store instructions the runner
 * divides by for requests and sectors per instruction (Nsight Compute's metric
 * names; "Kernel Profiling Guide", metrics structure and L1TEX/LTS sections). */
static const gd_cupti_metric cupti_metrics[] = {
    {"smsp__inst_executed_op_global_ld.sum", "global.loads", 0},
    {"smsp__inst_executed_op_global_st.sum", "global.stores", 0},
    {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "coalesce.requests", 0},
    {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "coalesce.sectors", 0},
    {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", "l1d.hits", 0},
    {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum", "l1d.misses", 0},
    {"lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", "l2.hits", 0},
    {"lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum", "l2.misses", 0},
    {"dram__sectors_read.sum", "dram.reads", 0},
    {"dram__sectors_write.sum", "dram.writes", 0},
    {"l1tex__t_sector_hit_rate.pct", "l1d.sector_hit_rate_pct", 1},
};
#define CUPTI_METRIC_COUNT (sizeof cupti_metrics / sizeof cupti_metrics[0])

const gd_cupti_metric *gd_cupti_metrics(size_t *count)
{
    *count = CUPTI_METRIC_COUNT;
    return cupti_metrics;
}

#if !defined(GD_HAVE_CUDA) || !__has_include(<cupti_range_profiler.h>)

struct gd_cupti {
    int unused;
};

const gd_cupti_symbol *gd_cupti_symbol_table(size_t *count)
{
    *count = 0;
    return NULL;
}

int gd_cupti_open(void *cu_context, int device_index, gd_cupti **out, gd_err *err)
{
    (void)cu_context, (void)device_index;
    *out = NULL;
    return gd_fail(err, "counters unavailable: this gpudissect was built without the CUPTI "
                        "headers (CUDA toolkit include/cupti_range_profiler.h)");
}

int gd_cupti_collect(gd_cupti *c, gd_counter_list *out, gd_err *err)
{
    (void)c, (void)out;
    return gd_fail(err, "counters unavailable");
}

const char *gd_cupti_library(const gd_cupti *c)
{
    (void)c;
    return "";
}

void gd_cupti_close(gd_cupti *c)
{
    free(c);
}

#else

#include <cuda.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include "host/cupti_host_abi.h"

#define GD_CUPTI_SYMBOLS(X)                                                                    \
    X(cuptiGetResultString)                                                                    \
    X(cuptiProfilerInitialize)                                                                 \
    X(cuptiProfilerDeInitialize)                                                               \
    X(cuptiDeviceGetChipName)                                                                  \
    X(cuptiProfilerGetCounterAvailability)                                                     \
    X(cuptiProfilerHostInitialize)                                                             \
    X(cuptiProfilerHostDeinitialize)                                                           \
    X(cuptiProfilerHostConfigAddMetrics)                                                       \
    X(cuptiProfilerHostGetConfigImageSize)                                                     \
    X(cuptiProfilerHostGetConfigImage)                                                         \
    X(cuptiProfilerHostEvaluateToGpuValues)                                                    \
    X(cuptiRangeProfilerEnable)                                                                \
    X(cuptiRangeProfilerDisable)                                                               \
    X(cuptiRangeProfilerGetCounterDataSize)                                                    \
    X(cuptiRangeProfilerCounterDataImageInitialize)                                            \
    X(cuptiRangeProfilerSetConfig)                                                             \
    X(cuptiRangeProfilerStart)                                                                 \
    X(cuptiRangeProfilerStop)                                                                  \
    X(cuptiRangeProfilerDecodeData)                                                            \
    X(cuptiRangeProfilerGetCounterDataInfo)

#define CUPTI_SYMBOL_ENTRY(name) {#name, GD_CU_STR(name)},
static const gd_cupti_symbol cupti_symbols[] = {GD_CUPTI_SYMBOLS(CUPTI_SYMBOL_ENTRY)};
#undef CUPTI_SYMBOL_ENTRY
#define CUPTI_SYMBOL_COUNT (sizeof cupti_symbols / sizeof cupti_symbols[0])

const gd_cupti_symbol *gd_cupti_symbol_table(size_t *count)
{
    *count = CUPTI_SYMBOL_COUNT;
    return cupti_symbols;
}

/* Ranges (launches) one collection holds; the runner collects before and
 * after every point, and a point makes few launches -- a watchdog split at
 * most GD_WATCHDOG_MAX_LAUNCHES, which collects early when this fills. */
#define CUPTI_MAX_RANGES 64

typedef struct cupti_api {
#define CUPTI_FIELD(name) __typeof__(&name) name;
    GD_CUPTI_SYMBOLS(CUPTI_FIELD)
#undef CUPTI_FIELD
} cupti_api;

#define CUPTI_OFFSET(name) offsetof(cupti_api, name),
static const size_t cupti_offsets[] = {GD_CUPTI_SYMBOLS(CUPTI_OFFSET)};
#undef CUPTI_OFFSET

struct gd_cupti {
    void *library;
    char library_name[256];
    cupti_api api;
    int initialized;
    CUpti_Profiler_Host_Object *host;
    CUpti_RangeProfiler_Object *profiler;
    uint8_t *config;
    size_t config_bytes;
    uint8_t *counter_data;
    size_t counter_data_bytes;
    int started;
    double totals[CUPTI_METRIC_COUNT]; /* running totals since open */
    double last_gauge[CUPTI_METRIC_COUNT];
};

static const char *cupti_metric_names[CUPTI_METRIC_COUNT];

/* "counters unavailable: CALL failed: CUPTI_ERROR_X (text)[: why]" */
static int cupti_fail(const gd_cupti *c, CUptiResult rc, const char *call, gd_err *err)
{
    const char *text = NULL;
    if (!c->api.cuptiGetResultString || c->api.cuptiGetResultString(rc, &text) != CUPTI_SUCCESS)
        text = NULL;
    const char *why = "";
    if (rc == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        why = ": no permission to the GPU performance counters (run as root, or load the "
              "nvidia module with NVreg_RestrictProfilingToAdminUsers=0)";
    else if (rc == CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED)
        why = ": the device is a MIG instance, which CUPTI cannot profile";
    return gd_fail(err, "counters unavailable: %s failed: CUptiResult %d (%s)%s", call, (int)rc,
                   text ? text : "no description", why);
}
#define CUPTI_CALL(c, fn, params, err)                                                         \
    do {                                                                                       \
        CUptiResult rc_ = (c)->api.fn(params);                                                 \
        if (rc_ != CUPTI_SUCCESS)                                                              \
            return cupti_fail((c), rc_, GD_CU_STR(fn), (err));                                 \
    } while (0)

static int cupti_load(gd_cupti *c, gd_err *err)
{
    const char *env = getenv(GD_CUPTI_LIBRARY_ENV);
    static const char *const names[] = GD_CUPTI_LIBRARY_NAMES;
    char tried[512] = "";
    if (env && *env) {
        c->library = dlopen(env, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        snprintf(c->library_name, sizeof c->library_name, "%s", env);
        if (!c->library) {
            const char *why = dlerror();
            return gd_fail(err, "counters unavailable: cannot load %s (%s)", env,
                           why ? why : "unknown error");
        }
    } else {
        for (size_t i = 0; i < sizeof names / sizeof names[0] && !c->library; i++) {
            c->library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
            snprintf(c->library_name, sizeof c->library_name, "%s", names[i]);
            size_t n = strlen(tried);
            snprintf(tried + n, sizeof tried - n, "%s%s", n ? ", " : "", names[i]);
        }
        if (!c->library)
            return gd_fail(err, "counters unavailable: no CUPTI library (tried %s; install the "
                                "CUDA toolkit's libcupti or set " GD_CUPTI_LIBRARY_ENV ")",
                           tried);
    }
    for (size_t i = 0; i < CUPTI_SYMBOL_COUNT; i++) {
        void *symbol = dlsym(c->library, cupti_symbols[i].resolved_name);
        if (!symbol)
            return gd_fail(err, "counters unavailable: %s has no %s (older than the CUPTI "
                                "headers gpudissect was built with)",
                           c->library_name, cupti_symbols[i].resolved_name);
        memcpy((char *)&c->api + cupti_offsets[i], &symbol, sizeof symbol);
    }
    return 0;
}

/* The config image for our metrics on this chip. */
static int cupti_configure(gd_cupti *c, CUcontext ctx, int device_index, gd_err *err)
{
    CUpti_Profiler_Initialize_Params init = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL};
    CUPTI_CALL(c, cuptiProfilerInitialize, &init, err);
    c->initialized = 1;

    CUpti_Device_GetChipName_Params chip = {CUpti_Device_GetChipName_Params_STRUCT_SIZE, NULL,
                                            (size_t)device_index, NULL};
    CUPTI_CALL(c, cuptiDeviceGetChipName, &chip, err);

    CUpti_Profiler_GetCounterAvailability_Params avail = {
        CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE, NULL, ctx, 0, NULL};
    CUPTI_CALL(c, cuptiProfilerGetCounterAvailability, &avail, err);
    uint8_t *availability = malloc(avail.counterAvailabilityImageSize ? avail.counterAvailabilityImageSize : 1);
    if (!availability)
        return gd_fail(err, "counters unavailable: out of memory");
    avail.pCounterAvailabilityImage = availability;
    CUptiResult rc = c->api.cuptiProfilerGetCounterAvailability(&avail);
    if (rc != CUPTI_SUCCESS) {
        free(availability);
        return cupti_fail(c, rc, GD_CU_STR(cuptiProfilerGetCounterAvailability), err);
    }

    CUpti_Profiler_Host_Initialize_Params host = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE,
                                                  NULL, CUPTI_PROFILER_TYPE_RANGE_PROFILER,
                                                  chip.pChipName, availability, NULL};
    rc = c->api.cuptiProfilerHostInitialize(&host);
    free(availability);
    if (rc != CUPTI_SUCCESS)
        return cupti_fail(c, rc, GD_CU_STR(cuptiProfilerHostInitialize), err);
    c->host = host.pHostObject;

    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE, NULL, c->host,
        cupti_metric_names, CUPTI_METRIC_COUNT};
    CUPTI_CALL(c, cuptiProfilerHostConfigAddMetrics, &add, err);
    CUpti_Profiler_Host_GetConfigImageSize_Params size = {
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE, NULL, c->host, 0};
    CUPTI_CALL(c, cuptiProfilerHostGetConfigImageSize, &size, err);
    c->config_bytes = size.configImageSize;
    c->config = malloc(c->config_bytes ? c->config_bytes : 1);
    if (!c->config)
        return gd_fail(err, "counters unavailable: out of memory");
    CUpti_Profiler_Host_GetConfigImage_Params image = {
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE, NULL, c->host, c->config_bytes,
        c->config};
    CUPTI_CALL(c, cuptiProfilerHostGetConfigImage, &image, err);
    return 0;
}

/* A fresh counter data image, the config, and Start. */
static int cupti_start(gd_cupti *c, gd_err *err)
{
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params init = {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE, NULL, c->profiler,
        c->counter_data_bytes, c->counter_data};
    CUPTI_CALL(c, cuptiRangeProfilerCounterDataImageInitialize, &init, err);
    CUpti_RangeProfiler_SetConfig_Params config;
    memset(&config, 0, sizeof config);
    config.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    config.pRangeProfilerObject = c->profiler;
    config.configSize = c->config_bytes;
    config.pConfig = c->config;
    config.counterDataImageSize = c->counter_data_bytes;
    config.pCounterDataImage = c->counter_data;
    config.range = CUPTI_AutoRange;          /* every launch a range */
    config.replayMode = CUPTI_KernelReplay;  /* CUPTI replays a launch for each pass */
    config.maxRangesPerPass = CUPTI_MAX_RANGES;
    config.numNestingLevels = 1;
    config.minNestingLevel = 1;
    config.passIndex = 0;
    config.targetNestingLevel = 1;
    CUPTI_CALL(c, cuptiRangeProfilerSetConfig, &config, err);
    CUpti_RangeProfiler_Start_Params start = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE, NULL,
                                              c->profiler};
    CUPTI_CALL(c, cuptiRangeProfilerStart, &start, err);
    c->started = 1;
    return 0;
}

int gd_cupti_open(void *cu_context, int device_index, gd_cupti **out, gd_err *err)
{
    *out = NULL;
    for (size_t i = 0; i < CUPTI_METRIC_COUNT; i++)
        cupti_metric_names[i] = cupti_metrics[i].cupti_name;
    gd_cupti *c = calloc(1, sizeof *c);
    if (!c)
        return gd_fail(err, "counters unavailable: out of memory");
    CUcontext ctx = (CUcontext)cu_context;
    if (cupti_load(c, err) != 0 || cupti_configure(c, ctx, device_index, err) != 0)
        goto err;
    CUpti_RangeProfiler_Enable_Params enable = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE,
                                                NULL, ctx, NULL};
    CUptiResult rc = c->api.cuptiRangeProfilerEnable(&enable);
    if (rc != CUPTI_SUCCESS) {
        cupti_fail(c, rc, GD_CU_STR(cuptiRangeProfilerEnable), err);
        goto err;
    }
    c->profiler = enable.pRangeProfilerObject;
    CUpti_RangeProfiler_GetCounterDataSize_Params size;
    memset(&size, 0, sizeof size);
    size.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
    size.pRangeProfilerObject = c->profiler;
    size.pMetricNames = cupti_metric_names;
    size.numMetrics = CUPTI_METRIC_COUNT;
    size.maxNumOfRanges = CUPTI_MAX_RANGES;
    size.maxNumRangeTreeNodes = CUPTI_MAX_RANGES;
    rc = c->api.cuptiRangeProfilerGetCounterDataSize(&size);
    if (rc != CUPTI_SUCCESS) {
        cupti_fail(c, rc, GD_CU_STR(cuptiRangeProfilerGetCounterDataSize), err);
        goto err;
    }
    c->counter_data_bytes = size.counterDataSize;
    c->counter_data = malloc(c->counter_data_bytes ? c->counter_data_bytes : 1);
    if (!c->counter_data) {
        gd_fail(err, "counters unavailable: out of memory");
        goto err;
    }
    if (cupti_start(c, err) != 0)
        goto err;
    *out = c;
    return 0;
err:
    gd_cupti_close(c);
    return -1;
}

int gd_cupti_collect(gd_cupti *c, gd_counter_list *out, gd_err *err)
{
    if (c->started) {
        CUpti_RangeProfiler_Stop_Params stop;
        memset(&stop, 0, sizeof stop);
        stop.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
        stop.pRangeProfilerObject = c->profiler;
        c->started = 0;
        CUPTI_CALL(c, cuptiRangeProfilerStop, &stop, err);
        CUpti_RangeProfiler_DecodeData_Params decode = {
            CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE, NULL, c->profiler, 0};
        CUPTI_CALL(c, cuptiRangeProfilerDecodeData, &decode, err);
        if (decode.numOfRangeDropped)
            return gd_fail(err, "CUPTI dropped %zu ranges (more than %d launches between two "
                                "counter reads)",
                           decode.numOfRangeDropped, CUPTI_MAX_RANGES);
        CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
            CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE, NULL, c->counter_data,
            c->counter_data_bytes, 0};
        CUPTI_CALL(c, cuptiRangeProfilerGetCounterDataInfo, &info, err);
        for (size_t r = 0; r < info.numTotalRanges; r++) {
            double values[CUPTI_METRIC_COUNT];
            CUpti_Profiler_Host_EvaluateToGpuValues_Params eval = {
                CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE, NULL, c->host,
                c->counter_data, c->counter_data_bytes, r, cupti_metric_names,
                CUPTI_METRIC_COUNT, values};
            CUPTI_CALL(c, cuptiProfilerHostEvaluateToGpuValues, &eval, err);
            for (size_t m = 0; m < CUPTI_METRIC_COUNT; m++) {
                if (cupti_metrics[m].gauge)
                    c->last_gauge[m] = values[m];
                else
                    c->totals[m] += values[m];
            }
        }
        if (cupti_start(c, err) != 0)
            return -1;
    }
    for (size_t m = 0; m < CUPTI_METRIC_COUNT; m++) {
        int rc = cupti_metrics[m].gauge
                     ? gd_counter_list_add_gauge(out, cupti_metrics[m].counter_name,
                                                 c->last_gauge[m])
                     : gd_counter_list_add(out, cupti_metrics[m].counter_name, c->totals[m]);
        if (rc != 0)
            return gd_fail(err, "out of memory");
    }
    return 0;
}

const char *gd_cupti_library(const gd_cupti *c)
{
    return c ? c->library_name : "";
}

void gd_cupti_close(gd_cupti *c)
{
    if (!c)
        return;
    if (c->started) {
        CUpti_RangeProfiler_Stop_Params stop;
        memset(&stop, 0, sizeof stop);
        stop.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
        stop.pRangeProfilerObject = c->profiler;
        c->api.cuptiRangeProfilerStop(&stop);
    }
    if (c->profiler) {
        CUpti_RangeProfiler_Disable_Params disable = {
            CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE, NULL, c->profiler};
        c->api.cuptiRangeProfilerDisable(&disable);
    }
    if (c->host) {
        CUpti_Profiler_Host_Deinitialize_Params deinit = {
            CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, NULL, c->host};
        c->api.cuptiProfilerHostDeinitialize(&deinit);
    }
    if (c->initialized) {
        CUpti_Profiler_DeInitialize_Params deinit = {CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE,
                                                     NULL};
        c->api.cuptiProfilerDeInitialize(&deinit);
    }
    if (c->library)
        dlclose(c->library);
    free(c->config);
    free(c->counter_data);
    free(c);
}

#endif
