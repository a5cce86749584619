/* infer_store.h -- the store path's verdicts from the store_path probe's
 * cases (kernels/store_path.c), and their place in inferred.json ("store"). */
#ifndef GD_INFER_STORE_H
#define GD_INFER_STORE_H

#include <jansson.h>
#include <stdint.h>

#include "analysis/curve.h"

#define GD_STORE_CASES 12 /* kernels/store_path.c's cases, 1..12 */
/* The neighbour cases read 32, 64, 128 and 256 bytes past a 32-byte store;
 * a write granule past the last is reported as at least twice it. */
#define GD_STORE_MAX_NEIGHBOUR_BYTES 256

typedef struct gd_store_inference {
    int measured;
    char from[64];                 /* the curve's label */
    int has_case[GD_STORE_CASES + 1];
    double case_cycles[GD_STORE_CASES + 1]; /* medians, by case */
    /* the verdicts: 1 yes, 0 no, -1 the probe could not tell (note says why) */
    int l1_write_allocate;         /* a store allocates its line in the L1 */
    int l1_write_back;             /* 1 write-back, 0 write-through */
    int l2_write_allocate;         /* a store that misses allocates in the L2 */
    uint64_t l2_write_granule_bytes; /* bytes a store of 32 makes valid in the L2; 0: unknown */
    int l2_granule_is_lower_bound;
    int l2_partial_write;          /* gd_l2_partial_write, -1: unknown */
    char note[320];
} gd_store_inference;

/* Reads the curve's case medians against its three references (L1 hit, L2
 * hit, DRAM: cases 1-3): each timed case is the level its median lies
 * nearest.  Fills *s (measured, verdicts, notes); fails only when the
 * references are missing or not ordered L1 < L2 < DRAM. */
int gd_infer_store(gd_store_inference *s, const gd_curve *curve, gd_err *err);

/* inferred.json's "store" object, and back (an absent object: not measured). */
json_t *gd_store_to_json(const gd_store_inference *s);
int gd_store_from_json(const json_t *o, gd_store_inference *s, gd_err *err);
/* Names the JSON uses for the L2's partial-write behaviour. */
const char *gd_store_partial_name(int partial_write);

#endif
