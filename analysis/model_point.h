/* model_point.h -- one point of an expected curve, as every part of the
 * analytical model returns it (model.c, model_access.c, model_icache.c). */
#ifndef GD_MODEL_POINT_H
#define GD_MODEL_POINT_H

#include <stddef.h>
#include <stdint.h>

#define GD_MODEL_MAX_LEVELS 4

typedef struct gd_model_point {
    double x;                 /* the sweep value */
    double mean_cycles;       /* expected mean of the primary series (cycles, or CPI) */
    /* chains: expected share of recorded accesses served by each level of the
     * path (pchase: L1D, L2, DRAM; with ld.cg: L2, DRAM; const: L1C, L15C, L2C) */
    double fraction[GD_MODEL_MAX_LEVELS];
    const char *level_name[GD_MODEL_MAX_LEVELS];
    size_t levels;            /* entries of fraction / level_name; 0 for other probes */
    uint64_t accesses;        /* recorded accesses the expectation is over */
} gd_model_point;

#endif
