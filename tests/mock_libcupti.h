/* mock_libcupti.h -- the mock CUPTI (tests/mock_libcupti.c, built as libmockcupti.so).
 *
 * host/cupti.c loads it through GPUDISSECT_LIBCUPTI.  It implements the range
 * profiler entry points the backend resolves, with the headers' prototypes:
 * every kernel launch of the mock driver between Start and Stop is one range
 * (it asks libmockcuda.so, loaded by GPUDISSECT_LIBCUDA, how many launches
 * there were), and every range evaluates each metric to the fixed value of
 * MOCK_CUPTI_METRIC_VALUES -- so a point of n launches counts n times each.
 * GD_MOCK_CUPTI_FAIL=privileges makes cuptiRangeProfilerEnable fail with
 * CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, =mig makes
 * cuptiProfilerGetCounterAvailability fail with
 * CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED, =crash makes cuptiProfilerInitialize
 * raise SIGSEGV (as CUPTI did on an H200).  mock_cupti_get_state() (dlsym by
 * MOCK_CUPTI_STATE_SYMBOL) gives what it saw.
 */
#ifndef GD_MOCK_LIBCUPTI_H
#define GD_MOCK_LIBCUPTI_H

#include <stddef.h>

#define MOCK_CUPTI_FAIL_ENV "GD_MOCK_CUPTI_FAIL"
#define MOCK_CUPTI_CHIP "MOCK_TU104"

/* Per range: {CUPTI metric, value}.  Distinct values so a wrong mapping shows. */
#define MOCK_CUPTI_METRIC_VALUES                                                               \
    {                                                                                          \
        {"smsp__inst_executed_op_global_ld.sum", 40.0},                                        \
        {"smsp__inst_executed_op_global_st.sum", 10.0},                                        \
        {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 80.0},                             \
        {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 320.0},                             \
        {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", 300.0},                  \
        {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum", 20.0},                  \
        {"lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", 15.0},                           \
        {"lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum", 5.0},                           \
        {"dram__sectors_read.sum", 7.0},                                                       \
        {"dram__sectors_write.sum", 3.0},                                                      \
        {"l1tex__t_sector_hit_rate.pct", 93.75},                                               \
    }

typedef struct mock_cupti_state {
    int initialized;        /* cuptiProfilerInitialize minus DeInitialize */
    int host_objects;       /* live host objects */
    int enabled;            /* live range profiler objects */
    int starts, stops;
    int metrics_added;      /* names given to cuptiProfilerHostConfigAddMetrics */
    int unknown_metrics;    /* ... of which the mock does not know */
    int auto_range, kernel_replay; /* what the last SetConfig asked */
    int ranges_evaluated;
} mock_cupti_state;

#define MOCK_CUPTI_STATE_SYMBOL "mock_cupti_get_state"
typedef const mock_cupti_state *(*mock_cupti_state_fn)(void);

#endif
