/* infer.h -- from plateaus and knees to the parameters of a hierarchy.
 *
 * A p-chase curve's plateaus are the latencies of the levels its footprints
 * reach, and the knee after each plateau is that level's capacity; a stride
 * curve's last plateau starts at the level's fetch granularity.  The results go
 * to results/RUN/inferred.json:
 *   {"levels": [{"name": "L1D", "size_bytes": ..., "sector_bytes": ...,
 *                "line_bytes": ..., "latency_cycles": ..., "confidence": ...}, ...],
 *    "curves": {...}}
 * Line and sector are two parameters: `sector_bytes` is the fetch granularity
 * a stride sweep sees (the sector of a sectored cache, the line of one that is
 * not: a stride sweep cannot tell which), `line_bytes` the allocation line,
 * which only a probe that counts lines sees (the coalescer's requests per
 * instruction: the L1D's); it is null where no probe measured it.
 */
#ifndef GD_INFER_H
#define GD_INFER_H

#include <jansson.h>
#include <stdint.h>

#include "analysis/arch.h"
#include "analysis/curve.h"
#include "analysis/infer_store.h"
#include "analysis/inferred_below_l1.h"
#include "analysis/plateau.h"

/* The levels of the results schema, in its order; L2FAR is the far half of a
 * split L2 (A100, H100). */
typedef enum gd_inferred_name {
    GD_INF_L0I, GD_INF_L1I, GD_INF_L15I, GD_INF_L1C, GD_INF_L15C, GD_INF_L2C,
    GD_INF_L1D, GD_INF_SMEM, GD_INF_L2, GD_INF_L2FAR, GD_INF_DRAM, GD_INF_TLB1, GD_INF_TLB2,
    GD_INF_COUNT
} gd_inferred_name;

typedef struct gd_inferred_level {
    int present;
    int has_size, has_sector, has_latency;
    uint64_t size_bytes;
    uint64_t sector_bytes;         /* fetch granularity from a stride sweep */
    double latency_cycles;
    double size_confidence, sector_confidence, latency_confidence;
    double knee_below, knee_above; /* the capacity lies in [below, above) */
    int size_is_lower_bound;       /* no knee within the sweep: size >= size_bytes */
    uint64_t size_resolution_bytes; /* a fitted size: within +- this; 0: the knee's bracket */
    char size_method[64];          /* how a size not read off a knee was found, and the
                                    * replacement it assumes ("" for a knee) */
    char size_unseen[192];         /* why no size is given for a level known to exist
                                    * ("" otherwise: inferred.json "size_unseen") */
    char scope_unseen[192];        /* why a probe of the scope gave none (const_av:
                                    * inferred.json "scope_unseen") */
    char size_from[64], sector_from[64], latency_from[64]; /* curve labels */

    /* who shares it: sub-partition, SM or chip (attacker-victim interference) */
    int has_scope;
    gd_scope scope;
    double scope_confidence;
    char scope_from[64];
    /* one structure with another level (e.g. L15C with L1I): -1 none found */
    int has_shared_with;
    int shared_with;               /* a gd_inferred_name, or -1: its own storage */
    double shared_confidence;
    char shared_from[64];
    /* replacement, as far as the probe can tell (cyclic chains cannot tell LRU
     * from FIFO: both miss every access once the chain exceeds the ways) */
    int has_replacement;
    gd_replacement replacement;
    int replacement_lru_or_fifo;   /* the measurement says "LRU or FIFO" */
    double replacement_confidence;
    char replacement_from[64];
    /* warp-uniform addresses served once; k distinct addresses cost extra */
    int has_broadcast;
    int broadcast;                 /* 1: one address costs as one lane */
    double per_address_cycles;     /* extra cycles per further distinct address */
    double broadcast_confidence;
    char broadcast_from[64];

    /* the L1 load path and shared memory (issue 5) */
    int has_ways;                  /* associativity (fine-grained p-chase) */
    uint32_t ways;
    int ways_is_lower_bound;       /* no knee within the sweep: at least this many */
    double ways_confidence;
    char ways_from[64];
    int has_alloc_line;            /* allocation line (JSON "line_bytes"), when the fetch */
    uint64_t alloc_line_bytes;     /* granularity is a sector of it: sectors per line */
    double alloc_line_confidence;
    char alloc_line_from[64];
    int has_mshr;                  /* misses in flight before one waits for a free entry */
    uint32_t mshr_entries;
    int mshr_is_lower_bound;       /* no limit reached: at least this many */
    double mshr_confidence;
    char mshr_from[64];
    int has_mshr_merge;            /* requests one pending line takes before refusing */
    uint32_t mshr_merge;
    int mshr_merge_is_lower_bound;
    double mshr_merge_confidence;
    char mshr_merge_from[64];
    int has_banks;                 /* shared memory: banks x width, conflicts replayed */
    uint32_t banks;
    uint32_t bank_width_bytes;
    double conflict_cycles;        /* extra cycles per further way of a conflict */
    int same_word_broadcast;       /* lanes reading one word do not conflict */
    double banks_confidence;
    char banks_from[64];
    int has_hol;                   /* does a reservation-failed miss block the requests behind
                                    * it in its own instruction (resv_stall --variant hol) */
    int head_of_line_blocking;
    double hol_confidence;
    char hol_from[64];
    int has_next_blocked;          /* does the next memory instruction wait for it (resv_stall's B) */
    int next_instruction_blocked;
    double next_blocked_confidence;
    char next_blocked_from[64];
} gd_inferred_level;

/* Attacker-victim placements (kernels/icache_av.c variants), nearest first;
 * then the control of same_sub: same warps, an attacker with no code footprint
 * (the scheduler's issue slot shared, not the cache). */
typedef enum gd_placement {
    GD_PLACE_SAME_SUB, GD_PLACE_OTHER_SUB, GD_PLACE_OTHER_SM, GD_PLACE_DATA_OTHER_SM,
    GD_PLACE_SAME_SUB_ISSUE,
    GD_PLACE_COUNT
} gd_placement;
const char *gd_placement_name(gd_placement p);
int gd_placement_from_name(const char *name); /* -1 if unknown */

/* Did the attacker slow the victim down, in one placement, for one level? */
typedef struct gd_interference {
    int measured;
    int interferes;
    double ratio;          /* victim CPI with the largest attackers / with the smallest
                            * (same_sub with its control: / the control's with the largest) */
    double confidence;
    char from[64];
    double victim_cpi_small, victim_cpi_large; /* at the sweep's two ends */
    double victim_spread;  /* the victim's pass-to-pass spread with the smallest attackers */
    double overlap_fraction; /* points whose warps ran together, where asked */
    int against_control;   /* same_sub judged against same_sub_issue (issue slot only) */
} gd_interference;

typedef struct gd_inference {
    gd_inferred_level level[GD_INF_COUNT];
    gd_interference av[GD_INF_COUNT][GD_PLACE_COUNT];
    gd_store_inference store;      /* the store path (infer_store.c): inferred.json "store" */
    gd_inferred_below below;   /* DRAM rows, bandwidth per level (issue 12) */
} gd_inference;

const char *gd_inferred_level_name(gd_inferred_name n);
int gd_inferred_level_from_name(const char *name); /* -1 if unknown */
/* The level's overall confidence: the weakest of the figures it has. */
double gd_inferred_confidence(const gd_inferred_level *l);

/* A level's latency from a plateau, its capacity from the knee after it. */
void gd_inferred_set_latency(gd_inferred_level *l, const gd_plateau *p, const char *from);
void gd_inferred_set_size(gd_inferred_level *l, const gd_knee *k, const char *from);

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

/* infer_icache.c.  The knees of a CPI-vs-code-size curve: the instruction
 * caches' capacities (L0I then L1I on GPUs with an L0 -- compute capability
 * 7.0 and later --, L1I then L15I before). */
int gd_infer_icache_seq(gd_inference *inf, const gd_curve *curve, const gd_segmentation *seg,
                        int has_l0, gd_err *err);
/* One attacker-victim curve: does the attacker in this placement slow the victim
 * sized for `level`?  Points whose warps did not land where the placement asks
 * (SM, and warp slot mod `subpartitions`) do not count. */
int gd_infer_icache_av(gd_inference *inf, const gd_curve *curve, gd_inferred_name level,
                       int subpartitions, gd_err *err);
/* After every step: each level's scope from its interference table (private
 * to a sub-partition if only a warp on the same one disturbs it, to an SM if
 * only warps of the same SM do, else the chip's), and a level that shares
 * another's storage takes that one's size when it could not measure its own. */
void gd_inference_finish(gd_inference *inf);

/* infer_const.c.  A constant-memory footprint scan (const_seq): plateaus L1C,
 * L15C, L2C in order, their latencies, the knees their capacities -- where the
 * stride (opts.stride_bytes) is no larger than the level's line -- and the L1
 * constant cache's replacement from the accesses that still hit it past twice
 * its capacity (LRU and FIFO keep none of a cyclic chain, random keeps some). */
int gd_infer_const_seq(gd_inference *inf, const gd_curve *curve, const gd_segmentation *seg,
                       gd_err *err);
/* A constant stride sweep (const_stride): the line of each level the footprint
 * overflows, from the strides at which the 5th percentile steps up. */
int gd_infer_const_stride(gd_inference *inf, const gd_curve *curve, gd_err *err);
/* infer_l1.c: the L1's associativity (pchase_fine ways), replacement
 * (pchase_fine policy: needs the curve's samples), MSHR entries or merge limit
 * (mshr, by variant), head-of-line blocking (resv_stall). */
int gd_infer_fine_ways(gd_inference *inf, const gd_curve *curve, const gd_segmentation *seg,
                       gd_err *err);
int gd_infer_fine_policy(gd_inference *inf, const gd_curve *curve, gd_err *err);
int gd_infer_mshr(gd_inference *inf, const gd_curve *curve, gd_err *err);
int gd_infer_resv_stall(gd_inference *inf, const gd_curve *curve, gd_err *err);

/* const_bcast: uniform broadcast, and the cost of each further distinct address. */
int gd_infer_const_bcast(gd_inference *inf, const gd_curve *curve, gd_err *err);
/* const_icache_share: the victim's miss rate climbs to ~100% with the attacker
 * -> L15C shares L1I's storage; stays ~0 -> separate.  Shared and fully
 * evicted, the victim's accesses give the L2 constant latency where no other
 * step measured it (inf: the run's inference so far, for the L1.5 latency). */
int gd_infer_const_share(gd_inference *inf, const gd_curve *curve, gd_err *err);
/* const_av: an attacker on the victim's SM evicts it (the control) and one on
 * another SM does too -> the L15C's scope is the chip; only the first -> the
 * SM; the control sees nothing -> no scope ("scope_unseen" says why). */
int gd_infer_const_av(gd_inference *inf, const gd_curve *curve, gd_err *err);

/* {"levels": [...]} (+ whatever the caller adds, e.g. "curves") */
json_t *gd_inference_to_json(const gd_inference *inf);
int gd_inference_from_json(const json_t *doc, gd_inference *inf, const char *path, gd_err *err);

/* {"plateaus": [...], "knees": [...]} of one curve. */
json_t *gd_segmentation_to_json(const gd_segmentation *seg);

#endif
