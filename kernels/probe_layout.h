/* probe_layout.h -- the probes as the analysis sees them: what a probe was
 * asked for, what it reports, and how it lays out memory and code.
 *
 * The analysis never emits or runs a probe, but it must read a probe's curve
 * (which series is the one to segment, what the sweep value is, whether a
 * sample is one access or the mean of many) and the analytical model must
 * predict it (the exact order of a pointer chain, the size of the constant
 * bank it walks, how many independent FFMA chains an instruction block
 * cycles over).  If the probe and the model disagreed on any of these, every
 * comparison would be wrong without a single test noticing, so both include
 * this one header: kernels/ builds to it, analysis/ predicts from it.
 *
 * It is the one kernels/ header that analysis/ includes (README, "Layout").
 * A probe itself (struct gd_probe, kernels/probe.h) stays opaque here: the
 * analysis holds a pointer to it and asks gd_probe_describe for the rest.
 */
#ifndef GD_PROBE_LAYOUT_H
#define GD_PROBE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* A probe (kernels/probe.h); opaque to the analysis. */
typedef struct gd_probe gd_probe;

/* Named series one point of a probe may report. */
#define GD_PROBE_MAX_SERIES 16
/* --warm: untimed passes a probe runs before its timed ones (icache_seq) */
#define GD_PROBE_MAX_WARM_PASSES 256

/* Options a user can give a probe (`gpudissect run --stride ... --pattern ...`):
 * with the sweep value, they fix everything the probe lays out. */
typedef struct gd_probe_opts {
    uint64_t stride_bytes;    /* 0: the probe's default */
    int random_order;         /* p-chase: random permutation of the lines */
    uint64_t seed;            /* for random orders */
    char variant[32];         /* e.g. "ca" or "cg" for the p-chase */
    uint32_t samples;         /* samples recorded per point; 0: default */
    uint64_t footprint_bytes; /* sweeps of something else at a fixed footprint (stride sweep) */
    uint64_t timed_accesses;  /* chases: time at most this many accesses, a part of the lap
                               * after the warm-up's (0: whole laps; kernels/chase.c) */
    uint32_t warm_passes;     /* icache_seq: untimed passes before the timed ones (0: one);
                               * a randomly replacing cache converges over many */
    uint32_t launch_split;    /* set by the runner, not the user: spread the point over this
                               * many launches (a display watchdog); 0 or 1: one launch */
} gd_probe_opts;

/* What a probe is, for the code that reads its curves. */
typedef struct gd_probe_desc {
    const char *name;
    const char *sweep_name;   /* CSV column of the sweep value, e.g. "footprint_bytes" */
    const char *value_unit;   /* unit of the samples, e.g. "cycles" */
    const char *primary_series; /* the series the analysis segments (never NULL) */
    int aggregate_samples;    /* each sample is a mean over many accesses (a pass's CPI),
                               * not one access: a knee needs a quarter of them off */
    int ramp_curve;           /* the primary series is a ramp with steps (completion
                               * times), not plateaus: adaptive sweeps bisect steps */
    uint64_t default_stride_bytes;
} gd_probe_desc;

/* The description of `probe` (kernels/registry.c). */
gd_probe_desc gd_probe_describe(const gd_probe *probe);
/* The probe of that name, or NULL (kernels/registry.c). */
const gd_probe *gd_probe_find(const char *name);
/* The series the analysis segments: the probe's primary series, else "cycles". */
const char *gd_probe_primary_series(const gd_probe *probe);

/* ---- the pointer chase (kernels/chase.c) ---------------------------------- */

/* The .const array a constant chase walks: a whole constant bank. */
#define GD_CHASE_CONST_BYTES (64 * 1024)
/* Element spacing of a chase when the user gives none. */
#define GD_CHASE_DEFAULT_STRIDE 32
/* Accesses a chase walks before it times (at least one lap; a short chain is
 * walked until it has had this many) and the fewest it times (whole laps).
 * The analysis models a randomly replacing L2 from these (infer_l2_policy.c). */
#define GD_CHASE_MIN_WARM_ACCESSES 32768
#define GD_CHASE_MIN_TIMED_ACCESSES 4096
/* Where a global chase keeps its scratch (histogram, rings, sink): in the
 * output buffer in global memory, read and written through the L2 (.cg) at
 * every access, unless the chain's lines reach a quarter of the L2 -- then in
 * shared memory (kernels/chase.c, chase_plan).  One element holds at most one
 * 128-byte line.  In global memory the scratch's page also holds an L1 TLB
 * entry (analysis/model_below_l1.c, infer_tlb.c). */
#define GD_CHASE_SHARED_SCRATCH_L2_FRACTION 4
#define GD_CHASE_LINE_BYTES_MAX 128
static inline int gd_chase_scratch_in_shared(uint64_t chain_line_bytes, uint64_t l2_bytes)
{
    return l2_bytes && chain_line_bytes >= l2_bytes / GD_CHASE_SHARED_SCRATCH_L2_FRACTION;
}
/* const_seq's default: the L1 constant line of every GPU Jia et al. examined */
#define GD_CONST_SEQ_DEFAULT_STRIDE 64
/* pchase_page (kernels/pchase_page.c): elements are the candidate page plus
 * a skew of whole 128-byte L2 lines apart, so their L2 lines spread over the
 * sets and slices instead of piling into the few a power-of-two stride
 * reaches.  One line (an odd line step) is not enough for a modulo slice map
 * of 3, 5, ... slices: 128 KiB + 128 B is 1025 lines, a multiple of 5, and
 * every element lands in one slice of five.  So the skew is the fewest lines
 * that make the step in lines coprime to 2 x 3 x 5 x 7 x 11 x 13 (at most a
 * few dozen lines: GD_PCHASE_PAGE_MAX_SKEW_LINES). */
#define GD_PCHASE_PAGE_SKEW_BYTES 128
#define GD_PCHASE_PAGE_MAX_SKEW_LINES 64
static inline uint64_t gd_pchase_page_spacing(uint64_t page)
{
    static const uint64_t primes[] = {2, 3, 5, 7, 11, 13};
    uint64_t lines = page / GD_PCHASE_PAGE_SKEW_BYTES;
    for (uint64_t m = 1; m < GD_PCHASE_PAGE_MAX_SKEW_LINES; m++) {
        int ok = 1;
        for (size_t i = 0; i < sizeof primes / sizeof primes[0]; i++)
            ok &= (lines + m) % primes[i] != 0;
        if (ok)
            return page + m * GD_PCHASE_PAGE_SKEW_BYTES;
    }
    return page + GD_PCHASE_PAGE_SKEW_BYTES;
}

/* The random chain: next[i] is the element that element i points to, a single
 * cycle over n elements (Sattolo's algorithm, seeded).  -1 if n is 0 or too big.
 * The chase lays its chain out in exactly this order; the model replays it. */
int gd_chase_permutation(uint64_t n, uint64_t seed, uint32_t *next);

/* ---- shared-memory banks and coalescing (kernels/smem_bank.c, coalesce.c) -- */

/* smem_bank: lane i reads the word at (i * x) mod this, a power of two. */
#define GD_SMEM_BANK_ARRAY_BYTES 16384u
/* coalesce's "lanes" variant without --stride: one 128-B line per lane on
 * every GPU we know. */
#define GD_COALESCE_DEFAULT_LANE_STRIDE 128u

/* ---- straight-line instruction blocks (kernels/ffma_block.c) -------------- */

/* Independent FFMA chains a block cycles over. */
#define GD_FFMA_CHAINS 8
/* Machine code of one instruction on sm_70 and later (and in the simulator). */
#define GD_INSTRUCTION_BYTES 16
/* icache_seq's loop besides its block: 2 clock reads, the delta's subtract,
 * convert, address (2) and store, the counter, compare and branch (PTX
 * instructions; the model uses it to place the block) */
#define GD_ICACHE_LOOP_INSTRUCTIONS 10

/* A probe's plan refuses a point this device cannot run at all (an other-SM
 * placement on a one-SM GPU) with an error that starts with this: characterize
 * skips the step and says why, where any other refusal fails it. */
#define GD_PROBE_NOT_ON_DEVICE "not on this device: "

#endif
