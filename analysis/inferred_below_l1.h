/* inferred_below_l1.h -- what the DRAM row and bandwidth probes infer (issue
 * 12): the DRAM's row-hit and row-switch latency, its page-close timeout and
 * closed-bank latency, and streaming bandwidth per level.  Held in
 * gd_inference (analysis/infer.h) as `below`; written into the DRAM, L2 and
 * L1D objects of inferred.json by inferred_below_l1_json.c:
 *
 *   "row": {"row_effect": true, "row_hit_cycles": 540, "row_switch_cycles": 580,
 *           "row_hit_span_bytes": 256, "switch_distance_bytes": 4096,
 *           "confidence": 1, "from": "dram-row",
 *           "row_timeout_lower_bound": false, "row_timeout_cycles": 1234,
 *           "row_timeout_min_cycles": 944, "row_miss_cycles": 560,
 *           "idle_hit_cycles": 540, "idle_confidence": 1, "idle_from": "dram-idle"}
 *   (the first six keys where the distance sweep ran, the last seven where the
 *   idle one did)
 *   "slices": {"resolved": true, "slices": 80, "slices_per_partition": 40,
 *              "partitions": 2, "period_bytes": 5120, "lower_bound": false, ...}
 *   "bandwidth": {"read": {"bytes_per_cycle": 41.2, "clock_mhz": 1410,
 *                          "gb_per_s": 58.1, "confidence": 1, "from": "bw-l2"}, ...}
 */
#ifndef GD_INFERRED_BELOW_L1_H
#define GD_INFERRED_BELOW_L1_H

#include <jansson.h>
#include <stdint.h>

typedef enum gd_bw_kind { GD_BW_READ, GD_BW_WRITE, GD_BW_COPY, GD_BW_KIND_COUNT } gd_bw_kind;
typedef enum gd_bw_level { GD_BW_L1D, GD_BW_L2, GD_BW_DRAM, GD_BW_LEVEL_COUNT } gd_bw_level;

typedef struct gd_inferred_bandwidth {
    int has;
    double bytes_per_cycle;     /* whole chip, in SM cycles */
    double clock_mhz;           /* the SM clock measured over the timed region (NAN: unknown) */
    double gb_per_s;            /* bytes_per_cycle x clock_mhz / 1000 (NAN without a clock) */
    double confidence;
    char from[64];
} gd_inferred_bandwidth;

/* The dram_row probe (analysis/infer_dram.c): its distance sweep (variant
 * cg) and its idle sweep (variant idle), either or both. */
typedef struct gd_inferred_rows {
    int has;                    /* either sweep ran: inferred.json has "row" */
    int has_distance;           /* the distance sweep: */
    int row_effect;             /* 0: one latency at every distance (no rows seen) */
    double row_hit_cycles;      /* a load whose bank has its row open */
    double row_switch_cycles;   /* one whose bank holds another row */
    uint64_t row_hit_span_bytes;/* the smallest distance past A's row (0: no step) */
    uint64_t switch_distance_bytes; /* where row_switch_cycles was read (the sweep's
                                     * last distance; 0: not recorded) */
    double confidence;
    char from[64];
    int has_idle;               /* the idle sweep (the page-close timeout): */
    int row_timeout_lower_bound;/* 1: no step -- no timeout between the shortest
                                 * and the longest idle time the sweep reached */
    double row_timeout_cycles;  /* bank idle cycles (the gap as it ran + the row-hit
                                 * latency) at the first gap whose B found its bank
                                 * closed: the top of the timeout's bracket; with
                                 * no step, the longest idle time reached */
    double row_timeout_min_cycles; /* the idle cycles of the gap before it: the
                                    * bracket's bottom (exclusive); with no step,
                                    * the shortest idle time reached */
    double row_miss_cycles;     /* a load whose bank is closed: the upper plateau
                                 * (NAN with no step) */
    double idle_hit_cycles;     /* the lower plateau (no step: the curve's level) */
    double idle_confidence;
    char idle_from[64];
} gd_inferred_rows;

/* The L2's slices (the l2_slice probe, analysis/infer_l2_slice.c). */
typedef struct gd_inferred_slices {
    int has;
    int resolved;               /* 0: no slice pattern (flat curve): `why` says so */
    uint32_t slices_per_partition;
    uint32_t partitions;        /* 2 where the run found L2FAR, else 1 */
    uint32_t slices;            /* slices_per_partition x partitions */
    uint64_t period_bytes;      /* the smallest stride on one slice per partition */
    uint64_t unit_bytes;        /* the sweep's first stride (the line it assumes) */
    int lower_bound;            /* the period was seen once: its double fits as well */
    double floor_requests_per_cycle; /* L2 sector requests per cycle at the period */
    double peak_requests_per_cycle;  /* ... at strides that spread over the slices */
    double confidence;
    char why[200];
    char from[64];
} gd_inferred_slices;

typedef struct gd_inferred_below {
    gd_inferred_rows rows;
    gd_inferred_slices slices;
    gd_inferred_bandwidth bw[GD_BW_LEVEL_COUNT][GD_BW_KIND_COUNT];
} gd_inferred_below;

const char *gd_bw_kind_name(gd_bw_kind k);     /* "read", "write", "copy" */
const char *gd_bw_level_name(gd_bw_level l);   /* "L1D", "L2", "DRAM" */

/* Adds "row" (level DRAM), "slices" (level L2) and "bandwidth" (L1D, L2, DRAM) to the level object
 * `o` of inferred.json named `level`, where measured. */
void gd_inferred_below_to_json(const gd_inferred_below *b, const char *level, json_t *o);
/* Reads them back from the level object `o` named `level`. */
void gd_inferred_below_from_json(gd_inferred_below *b, const char *level, const json_t *o);

#endif
