/* mock_libcupti.c -- a fake CUPTI range profiler for testing host/cupti.c.
 *
 * See mock_libcupti.h.  The counter data "image" is the mock's own: its first
 * eight bytes hold the number of ranges Stop saw.  Single-threaded.
 */
#ifndef GD_HAVE_CUDA
typedef int mock_libcupti_needs_cuda_headers;
#else

#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include "host/cupti_host_abi.h"
#include "tests/mock_libcuda.h"
#include "tests/mock_libcupti.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    double value;
} metric_values[] = MOCK_CUPTI_METRIC_VALUES;
#define METRIC_VALUE_COUNT (sizeof metric_values / sizeof metric_values[0])
#define IMAGE_BYTES 64

struct CUpti_Profiler_Host_Object {
    int metrics;
};
struct CUpti_RangeProfiler_Object {
    CUcontext ctx;
    uint8_t *image;
    int launches_at_start;
};

static mock_cupti_state state;
static struct CUpti_Profiler_Host_Object host_object;
static struct CUpti_RangeProfiler_Object profiler_object;

const mock_cupti_state *mock_cupti_get_state(void);
const mock_cupti_state *mock_cupti_get_state(void)
{
    return &state;
}

static int failing(const char *what)
{
    const char *f = getenv(MOCK_CUPTI_FAIL_ENV);
    return f && strcmp(f, what) == 0;
}

/* The mock driver's launch count, from the libmockcuda.so already loaded. */
static int driver_launches(void)
{
    const char *path = getenv("GPUDISSECT_LIBCUDA");
    void *lib = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    if (!lib)
        return 0;
    mock_cuda_state_fn fn = (mock_cuda_state_fn)dlsym(lib, MOCK_CUDA_STATE_SYMBOL);
    int n = fn ? fn()->launches : 0;
    dlclose(lib);
    return n;
}

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char **str)
{
    switch (result) {
    case CUPTI_SUCCESS: *str = "CUPTI_SUCCESS"; break;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: *str = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"; break;
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED: *str = "CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED"; break;
    case CUPTI_ERROR_INVALID_PARAMETER: *str = "CUPTI_ERROR_INVALID_PARAMETER"; break;
    default: *str = "CUPTI_ERROR_UNKNOWN"; break;
    }
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params *p)
{
    if (!p || p->structSize != CUpti_Profiler_Initialize_Params_STRUCT_SIZE)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (failing("crash"))
        raise(SIGSEGV); /* what CUPTI did on an H200 (host/cupti_selftest.c) */
    state.initialized++;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerDeInitialize(CUpti_Profiler_DeInitialize_Params *p)
{
    (void)p;
    state.initialized--;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params *p)
{
    if (!state.initialized || p->deviceIndex != 0)
        return CUPTI_ERROR_INVALID_PARAMETER;
    p->pChipName = MOCK_CUPTI_CHIP;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params *p)
{
    if (failing("mig"))
        return CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED;
    if (!p->pCounterAvailabilityImage) {
        p->counterAvailabilityImageSize = 16;
        return CUPTI_SUCCESS;
    }
    memset(p->pCounterAvailabilityImage, 0xA5, p->counterAvailabilityImageSize);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params *p)
{
    if (p->profilerType != CUPTI_PROFILER_TYPE_RANGE_PROFILER || !p->pChipName ||
        strcmp(p->pChipName, MOCK_CUPTI_CHIP) != 0 || !p->pCounterAvailabilityImage ||
        p->pCounterAvailabilityImage[0] != 0xA5)
        return CUPTI_ERROR_INVALID_PARAMETER;
    state.host_objects++;
    p->pHostObject = &host_object;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params *p)
{
    if (p->pHostObject != &host_object)
        return CUPTI_ERROR_INVALID_PARAMETER;
    state.host_objects--;
    return CUPTI_SUCCESS;
}

static int known_metric(const char *name)
{
    for (size_t i = 0; i < METRIC_VALUE_COUNT; i++)
        if (strcmp(metric_values[i].name, name) == 0)
            return (int)i;
    return -1;
}

CUptiResult CUPTIAPI
cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params *p)
{
    for (size_t i = 0; i < p->numMetrics; i++) {
        state.metrics_added++;
        if (known_metric(p->ppMetricNames[i]) < 0)
            state.unknown_metrics++;
    }
    host_object.metrics = (int)p->numMetrics;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params *p)
{
    p->configImageSize = 32;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params *p)
{
    if (p->configImageSize < 32 || !p->pConfigImage)
        return CUPTI_ERROR_INVALID_PARAMETER;
    memset(p->pConfigImage, 0x5A, p->configImageSize);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params *p)
{
    uint64_t ranges;
    memcpy(&ranges, p->pCounterDataImage, 8);
    if (p->rangeIndex >= ranges)
        return CUPTI_ERROR_INVALID_PARAMETER;
    for (size_t i = 0; i < p->numMetrics; i++) {
        int k = known_metric(p->ppMetricNames[i]);
        if (k < 0)
            return CUPTI_ERROR_INVALID_PARAMETER;
        p->pMetricValues[i] = metric_values[k].value;
    }
    state.ranges_evaluated++;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params *p)
{
    if (failing("privileges"))
        return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
    profiler_object.ctx = p->ctx;
    p->pRangeProfilerObject = &profiler_object;
    state.enabled++;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiRangeProfilerDisable(CUpti_RangeProfiler_Disable_Params *p)
{
    if (p->pRangeProfilerObject != &profiler_object)
        return CUPTI_ERROR_INVALID_PARAMETER;
    state.enabled--;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiRangeProfilerGetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params *p)
{
    if (p->maxNumRangeTreeNodes < p->maxNumOfRanges)
        return CUPTI_ERROR_INVALID_PARAMETER;
    p->counterDataSize = IMAGE_BYTES;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiRangeProfilerCounterDataImageInitialize(
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params *p)
{
    if (p->counterDataSize < IMAGE_BYTES)
        return CUPTI_ERROR_INVALID_PARAMETER;
    memset(p->pCounterData, 0, p->counterDataSize);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiRangeProfilerSetConfig(CUpti_RangeProfiler_SetConfig_Params *p)
{
    if (p->pRangeProfilerObject != &profiler_object || !p->pConfig || p->pConfig[0] != 0x5A)
        return CUPTI_ERROR_INVALID_PARAMETER;
    profiler_object.image = p->pCounterDataImage;
    state.auto_range = p->range == CUPTI_AutoRange;
    state.kernel_replay = p->replayMode == CUPTI_KernelReplay;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiRangeProfilerStart(CUpti_RangeProfiler_Start_Params *p)
{
    if (p->pRangeProfilerObject != &profiler_object)
        return CUPTI_ERROR_INVALID_PARAMETER;
    profiler_object.launches_at_start = driver_launches();
    state.starts++;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiRangeProfilerStop(CUpti_RangeProfiler_Stop_Params *p)
{
    if (p->pRangeProfilerObject != &profiler_object || !profiler_object.image)
        return CUPTI_ERROR_INVALID_PARAMETER;
    uint64_t ranges = (uint64_t)(driver_launches() - profiler_object.launches_at_start);
    memcpy(profiler_object.image, &ranges, 8);
    p->isAllPassSubmitted = 1;
    state.stops++;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiRangeProfilerDecodeData(CUpti_RangeProfiler_DecodeData_Params *p)
{
    p->numOfRangeDropped = 0;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiRangeProfilerGetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params *p)
{
    uint64_t ranges;
    memcpy(&ranges, p->pCounterDataImage, 8);
    p->numTotalRanges = ranges;
    return CUPTI_SUCCESS;
}

#endif
