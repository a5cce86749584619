/* infer.h -- from plateaus and knees to the parameters of a hierarchy.
 *
 * A p-chase curve's plateaus are the latencies of the levels its footprints
 * reach, and the knee after each plateau is that level's capacity; a stride
 * curve's last plateau starts at the level's fetch granularity.  The results go
 * to results/RUN/inferred.json:
 *   {"levels": [{"name": "L1D", "size_bytes": ..., "line_bytes": ...,
 *                "latency_cycles": ..., "confidence": ...}, ...], "curves": {...}}
 */
#ifndef GD_INFER_H
#define GD_INFER_H

#include <jansson.h>
#include <stdint.h>

#include "analysis/arch.h"
#include "analysis/plateau.h"
#include "host/runner.h"

/* Levels a p-chase can see, in the results schema's names; L2FAR is the far
 * half of a split L2 (A100, H100). */
typedef enum gd_inferred_name {
    GD_INF_L1D, GD_INF_L2, GD_INF_L2FAR, GD_INF_DRAM, GD_INF_TLB1, GD_INF_TLB2, GD_INF_COUNT
} gd_inferred_name;

typedef struct gd_inferred_level {
    int present;
    int has_size, has_line, has_latency;
    uint64_t size_bytes;
    uint64_t line_bytes;           /* fetch granularity from a stride sweep */
    double latency_cycles;
    double size_confidence, line_confidence, latency_confidence;
    double knee_below, knee_above; /* the capacity lies in [below, above) */
    char size_from[64], line_from[64], latency_from[64]; /* curve labels */
} gd_inferred_level;

typedef struct gd_inference {
    gd_inferred_level level[GD_INF_COUNT];
} gd_inference;

const char *gd_inferred_level_name(gd_inferred_name n);
int gd_inferred_level_from_name(const char *name); /* -1 if unknown */
/* The level's overall confidence: the weakest of the figures it has. */
double gd_inferred_confidence(const gd_inferred_level *l);

/* Names the plateaus of a footprint p-chase and records latencies and
 * capacities.  `bypass_l1`: the curve was measured with ld.cg (no L1 plateau).
 * `l2_bytes_hint`: the device's L2 size, to tell the L2 knee from others (0:
 * take the plateaus in order). */
int gd_infer_pchase(gd_inference *inf, const gd_curve *curve, const gd_segmentation *seg,
                    int bypass_l1, uint64_t l2_bytes_hint, gd_err *err);

/* Records the fetch granularity of `level` from a stride sweep. */
int gd_infer_stride(gd_inference *inf, const gd_curve *curve, const gd_segmentation *seg,
                    gd_inferred_name level, gd_err *err);

/* Rounds each capacity down to a whole number of its level's fetch granules,
 * where both are known. */
void gd_inference_snap(gd_inference *inf);

/* {"levels": [...]} (+ whatever the caller adds, e.g. "curves") */
json_t *gd_inference_to_json(const gd_inference *inf);
int gd_inference_from_json(const json_t *doc, gd_inference *inf, const char *path, gd_err *err);

/* {"plateaus": [...], "knees": [...]} of one curve. */
json_t *gd_segmentation_to_json(const gd_segmentation *seg);

#endif
