/* arch_validate.c -- what an arch file must satisfy beyond each line's syntax.
 *
 * The reader (arch_read.c) checks every value on its own line; this file holds the
 * rules that need the whole file: the defaults a missing key takes, the cache
 * geometry (sizes divide into sets of ways of lines, sectors divide lines),
 * required keys and sections, levels that share another's storage, and the
 * data hierarchy's latencies growing L1D < L2 < DRAM (the memory path adds the
 * differences up as transit times).  An error names the line of the key at
 * fault, or the section's header when the key is missing.
 */
#include "analysis/arch_validate.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

void arch_defaults(gd_arch *a)
{
    memset(a, 0, sizeof *a);
    a->gpu.sm_count = 1;
    a->gpu.subpartitions = 4;
    a->gpu.clock_mhz = 1000;
    a->gpu.max_warps_per_sm = 32;
    a->gpu.max_ctas_per_sm = 16;
    a->gpu.global_mem_bytes = 1ull << 30;
    a->gpu.alu_latency_cycles = 1;
    a->gpu.shared_per_block_bytes = 48 * 1024;
    a->gpu.seed = 1;
    a->noise.seed = 1;
    for (int i = 0; i < GD_LEVEL_COUNT; i++) {
        a->level[i].shared_with = -1;
        a->level[i].scope = GD_SCOPE_SM;
    }
    a->level[GD_L2].scope = GD_SCOPE_CHIP;
    a->level[GD_L2C].scope = GD_SCOPE_CHIP;
    a->level[GD_L0I].scope = GD_SCOPE_SUBPARTITION;
    a->level[GD_TLB2].scope = GD_SCOPE_CHIP;
    a->level[GD_DRAM].scope = GD_SCOPE_CHIP;
}

static int is_pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

/* ------------------------------------------------------------------------- */
/* Bounds of every value (analysis/archs/README.md, "Bounds").               */

/* Each numeric key's range.  The upper bounds keep the simulator's state and
 * arithmetic sane (a value past them has exhausted host memory, looped for
 * ever or overflowed), and lie far above any GPU built so far: the reason is
 * in `why`, and the README repeats it.  Keys of other kinds (names, booleans,
 * replacement, scope, shared_with, compute_capability, carveouts) are checked
 * by the reader against their closed set of values. */
typedef enum bound_kind { B_U32, B_U64, B_DOUBLE } bound_kind;
typedef enum bound_home { B_GPU, B_LEVEL, B_NOISE, B_WB } bound_home;

typedef struct arch_bound {
    bound_home home;
    const char *key;
    bound_kind kind;
    size_t offset;
    double min, max; /* inclusive */
    const char *why;
    unsigned levels; /* B_LEVEL: the sections the bound applies to (bit per level id); 0: all.
                      * One key name may live in several structures ([SMEM] banks is a
                      * bank count, [DRAM] banks the DRAM organisation's). */
} arch_bound;

#define BL(x) (1u << (x))

#define BGPU(f) offsetof(gd_arch_gpu, f)
#define BLVL(f) offsetof(gd_arch_level, f)
#define BNOISE(f) offsetof(gd_arch_noise, f)
#define BWB(f) offsetof(gd_arch_wb, f)
#define KIB 1024.0
#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)
#define TIB (1024.0 * GIB)

static const arch_bound arch_bounds[] = {
    {B_GPU, "sms", B_U32, BGPU(sm_count), 1, 1024, "the simulator keeps every SM's state", 0},
    {B_GPU, "subpartitions", B_U32, BGPU(subpartitions), 1, 8, "warp schedulers per SM", 0},
    {B_GPU, "clock_mhz", B_DOUBLE, BGPU(clock_mhz), 1, 10000, "%globaltimer divides by it", 0},
    {B_GPU, "max_warps_per_sm", B_U32, BGPU(max_warps_per_sm), 1, 64, "a warp slot mask", 0},
    {B_GPU, "max_ctas_per_sm", B_U32, BGPU(max_ctas_per_sm), 1, 64,
     "the simulator allocates every CTA slot", 0},
    {B_GPU, "global_mem", B_U64, BGPU(global_mem_bytes), 4 * KIB, 256 * GIB, "device memory", 0},
    {B_GPU, "alu_latency", B_U32, BGPU(alu_latency_cycles), 1, 1000, "cycles", 0},
    {B_GPU, "shared_per_block", B_U32, BGPU(shared_per_block_bytes), 0, 4 * MIB,
     "each CTA's shared memory is allocated", 0},
    {B_GPU, "seed", B_U64, BGPU(seed), 0, 18446744073709551615.0, "any 64-bit value", 0},

    {B_LEVEL, "size", B_U64, BLVL(size_bytes), 1, TIB, "a TLB's size is its coverage", 0},
    {B_LEVEL, "line", B_U32, BLVL(line_bytes), 1, GIB, "a TLB's line is its page", 0},
    {B_LEVEL, "sector", B_U32, BLVL(sector_bytes), 1, GIB, "divides the line", 0},
    {B_LEVEL, "ways", B_U32, BLVL(ways), 1, 4096, "the simulator's way index is 16 bits", 0},
    {B_LEVEL, "latency", B_U32, BLVL(latency_cycles), 1, 100000, "cycles", 0},
    {B_LEVEL, "prefetch", B_U32, BLVL(prefetch_lines), 0, 64, "lines fetched ahead", 0},
    {B_LEVEL, "banks", B_U32, BLVL(banks), 1, 64, "a bank mask", BL(GD_SMEM)},
    {B_LEVEL, "bank_width", B_U32, BLVL(bank_width_bytes), 1, 64, "bytes", 0},
    {B_LEVEL, "unified", B_U64, BLVL(unified_bytes), 0, 4 * MIB, "the L1/shared storage per SM", 0},
    {B_LEVEL, "fifo_entries", B_U32, BLVL(fifo_entries), 1, 4096, "a ring of that size", 0},
    {B_LEVEL, "mshr_entries", B_U32, BLVL(mshr_entries), 1, 1 << 20, "a table of that size", 0},
    {B_LEVEL, "mshr_merge", B_U32, BLVL(mshr_merge), 1, 1024, "requests per entry", 0},
    {B_LEVEL, "miss_queue", B_U32, BLVL(miss_queue_entries), 1, 1 << 20, "a ring of that size", 0},
    {B_LEVEL, "fifo_tail_ports", B_U32, BLVL(fifo_tail_ports), 1, 2, "the patent's 1, or 2", 0},
    {B_LEVEL, "requests_per_cycle", B_U32, BLVL(requests_per_cycle), 1, 1024, "per cycle", 0},
    /* the load/store path's widths (issue 11) */
    {B_LEVEL, "coalescer_rate", B_U32, BLVL(coalescer_rate), 1, GD_ARCH_MAX_COALESCER_RATE,
     "a warp's 32 requests at most", BL(GD_L1D)},
    {B_LEVEL, "tag_lookups", B_U32, BLVL(tag_lookups), 1, GD_ARCH_MAX_TAG_LOOKUPS,
     "tag probes per cycle", BL(GD_L1D)},
    {B_LEVEL, "queued_instructions", B_U32, BLVL(queued_instructions), 1,
     GD_ARCH_MAX_QUEUED_INSTRUCTIONS, "instructions in the load unit", BL(GD_L1D)},
    /* below the L1 (issue 12; their consistency: arch_validate_mem.c) */
    {B_LEVEL, "slices", B_U32, BLVL(l2map.slices), 1, 512, "each slice its own state", BL(GD_L2)},
    {B_LEVEL, "partitions", B_U32, BLVL(l2map.partitions), 1, 512, "they divide the slices",
     BL(GD_L2)},
    {B_LEVEL, "far_latency", B_U32, BLVL(l2map.far_latency_cycles), 1, 100000, "cycles", BL(GD_L2)},
    {B_LEVEL, "slice_requests_per_cycle", B_U32, BLVL(l2map.slice_requests_per_cycle), 1, 1024,
     "per cycle", BL(GD_L2)},
    {B_LEVEL, "channels", B_U32, BLVL(dram.channels), 1, 256, "each channel its own queue",
     BL(GD_DRAM)},
    {B_LEVEL, "banks", B_U32, BLVL(dram.banks), 1, 256, "each bank its own row buffer",
     BL(GD_DRAM)},
    {B_LEVEL, "row", B_U32, BLVL(dram.row_bytes), 32, 1 * MIB, "bytes", BL(GD_DRAM)},
    {B_LEVEL, "interleave", B_U32, BLVL(dram.interleave_bytes), 32, GIB, "bytes", BL(GD_DRAM)},
    {B_LEVEL, "tRCD", B_U32, BLVL(dram.t_rcd), 1, 100000, "cycles", BL(GD_DRAM)},
    {B_LEVEL, "tRP", B_U32, BLVL(dram.t_rp), 1, 100000, "cycles", BL(GD_DRAM)},
    {B_LEVEL, "tCL", B_U32, BLVL(dram.t_cl), 1, 100000, "cycles", BL(GD_DRAM)},
    {B_LEVEL, "tRAS", B_U32, BLVL(dram.t_ras), 0, 100000, "cycles", BL(GD_DRAM)},
    {B_LEVEL, "tCCD", B_U32, BLVL(dram.t_ccd), 0, 100000, "cycles", BL(GD_DRAM)},
    {B_LEVEL, "tWR", B_U32, BLVL(dram.t_wr), 0, 100000, "cycles", BL(GD_DRAM)},
    {B_LEVEL, "tRTW", B_U32, BLVL(dram.t_rtw), 0, 100000, "cycles", BL(GD_DRAM)},
    {B_LEVEL, "tWTR", B_U32, BLVL(dram.t_wtr), 0, 100000, "cycles", BL(GD_DRAM)},
    {B_LEVEL, "burst_cycles", B_U32, BLVL(dram.burst_cycles), 1, 10000, "cycles per sector",
     BL(GD_DRAM)},
    {B_LEVEL, "queue_entries", B_U32, BLVL(dram.queue_entries), 1, 4096, "the FR-FCFS window",
     BL(GD_DRAM)},
    {B_LEVEL, "write_high", B_U32, BLVL(dram.write_high), 0, 4096,
     "queued writes that start a drain (0: no drain)", BL(GD_DRAM)},
    {B_LEVEL, "write_low", B_U32, BLVL(dram.write_low), 0, 4096, "queued writes that end a drain",
     BL(GD_DRAM)},
    {B_LEVEL, "row_timeout", B_U32, BLVL(dram.row_timeout), 0, 1000000,
     "idle cycles before the controller closes a row; 0: never", BL(GD_DRAM)},
    /* PCM (issue 13) */
    {B_LEVEL, "pcm_write", B_U32, BLVL(dram.pcm_write_cycles), 0, 10000000,
     "cycles (0: 10 x tWR)", BL(GD_DRAM)},
    {B_LEVEL, "pcm_read_extra", B_U32, BLVL(dram.pcm_read_cycles), 0, 1000000, "cycles",
     BL(GD_DRAM)},
    {B_LEVEL, "pcm_write_pj_per_bit", B_DOUBLE, BLVL(dram.pcm_write_pj_per_bit), 0, 1000000,
     "picojoules", BL(GD_DRAM)},

    {B_WB, "size", B_U64, BWB(size_bytes), 0, 64 * MIB, "at most 65536 rows of 1 KiB", 0},
    {B_WB, "row_bytes", B_U32, BWB(row_bytes), 64, 1024, "a memory row", 0},
    {B_WB, "active_rows", B_U32, BWB(active_rows), 0, 65535, "below the rows (0: half)", 0},
    {B_WB, "latency", B_U32, BWB(latency_cycles), 1, 100000, "cycles", 0},

    {B_NOISE, "jitter", B_DOUBLE, BNOISE(jitter_cycles), 0, 100000,
     "cycles added to a latency as an integer", 0},
    {B_NOISE, "outlier_rate", B_DOUBLE, BNOISE(outlier_rate), 0, 1, "a probability", 0},
    {B_NOISE, "outlier_cycles", B_U32, BNOISE(outlier_cycles), 0, 10000000, "cycles", 0},
    {B_NOISE, "seed", B_U64, BNOISE(seed), 0, 18446744073709551615.0, "any 64-bit value", 0},
};
#define ARCH_BOUND_COUNT (sizeof arch_bounds / sizeof arch_bounds[0])

/* The largest number of lines one cache level may hold: the simulator keeps a
 * tag (and an index entry) per line. */
#define ARCH_MAX_LINES (1ull << 24)

int arch_key_is_bounded(const char *key)
{
    for (size_t i = 0; i < ARCH_BOUND_COUNT; i++)
        if (!strcmp(arch_bounds[i].key, key))
            return 1;
    return 0;
}

static int key_given(const parse_ctx *ctx, const char *section, const char *key)
{
    for (int s = 0; s < ctx->seen_count; s++)
        if (!strcasecmp(ctx->seen[s].section, section) && !strcmp(ctx->seen[s].key, key))
            return 1;
    return 0;
}

/* One bound against the value in `base`; the section's name and index place
 * the error on the key's line. */
static int check_bound(parse_ctx *ctx, const arch_bound *b, const char *base, int section,
                       const char *section_name)
{
    double v;
    char text[32];
    if (b->kind == B_U32) {
        uint32_t x = *(const uint32_t *)(base + b->offset);
        v = x;
        snprintf(text, sizeof text, "%u", x);
    } else if (b->kind == B_U64) {
        uint64_t x = *(const uint64_t *)(base + b->offset);
        v = (double)x;
        snprintf(text, sizeof text, "%llu", (unsigned long long)x);
    } else {
        v = *(const double *)(base + b->offset);
        snprintf(text, sizeof text, "%g", v);
    }
    if (v >= b->min && v <= b->max)
        return 1;
    ctx->line = arch_key_line(ctx, section, b->key);
    return arch_ctx_error(ctx, "[%s] %s = %s is outside %.17g..%.17g (%s)", section_name, b->key,
                          text, b->min, b->max, b->why);
}

/* Every value within its bounds: the [gpu] and [noise] values always (their
 * defaults are within), a level's values where the file gives them. */
static int validate_bounds(parse_ctx *ctx)
{
    gd_arch *a = ctx->arch;
    for (size_t i = 0; i < ARCH_BOUND_COUNT; i++) {
        const arch_bound *b = &arch_bounds[i];
        if (b->home == B_GPU) {
            if (!check_bound(ctx, b, (const char *)&a->gpu, SECTION_GPU, "gpu"))
                return 0;
        } else if (b->home == B_NOISE) {
            if (!check_bound(ctx, b, (const char *)&a->noise, SECTION_NOISE, "noise"))
                return 0;
        } else if (b->home == B_WB) {
            if (key_given(ctx, "WB", b->key) &&
                !check_bound(ctx, b, (const char *)&a->wb, SECTION_WB, "WB"))
                return 0;
        } else {
            for (int id = 0; id < GD_LEVEL_COUNT; id++) {
                const char *nm = gd_level_name((gd_level_id)id);
                if (b->levels && !(b->levels & BL(id)))
                    continue;
                if (a->level[id].present && key_given(ctx, nm, b->key) &&
                    !check_bound(ctx, b, (const char *)&a->level[id], id, nm))
                    return 0;
            }
        }
    }
    return 1;
}

/* The simulator's cache state for the whole chip: a tag, its sector masks and
 * an index slot per line, per instance of the level (one per sub-partition,
 * per SM or per chip).  An arch whose state would not fit a workstation is
 * refused here, with the level that dominates, rather than by the OOM killer. */
#define ARCH_SIM_BYTES_PER_LINE 48ull
#define ARCH_SIM_MAX_CACHE_BYTES (4ull << 30)

static int validate_sim_state(parse_ctx *ctx)
{
    gd_arch *a = ctx->arch;
    uint64_t total = 0, worst = 0;
    int worst_id = -1;
    for (int id = 0; id < GD_LEVEL_COUNT; id++) {
        const gd_arch_level *l = &a->level[id];
        if (!l->present || !l->line_bytes || l->shared_with >= 0 || id == GD_SMEM || id == GD_DRAM ||
            id == GD_L2C)
            continue;
        uint64_t instances = l->scope == GD_SCOPE_CHIP ? 1
                             : l->scope == GD_SCOPE_SM ? a->gpu.sm_count
                                                       : (uint64_t)a->gpu.sm_count * a->gpu.subpartitions;
        uint64_t bytes = l->size_bytes / l->line_bytes * instances * ARCH_SIM_BYTES_PER_LINE;
        total += bytes;
        if (bytes > worst) {
            worst = bytes;
            worst_id = id;
        }
    }
    if (total <= ARCH_SIM_MAX_CACHE_BYTES)
        return 1;
    ctx->line = arch_key_line(ctx, worst_id, "size");
    return arch_ctx_error(ctx, "the simulator would hold %llu MiB of cache tags for this arch (at "
                               "most %llu MiB); [%s] alone %llu MiB",
                          (unsigned long long)(total >> 20),
                          (unsigned long long)(ARCH_SIM_MAX_CACHE_BYTES >> 20),
                          gd_level_name((gd_level_id)worst_id), (unsigned long long)(worst >> 20));
}

/* The hierarchy's own order: a level in front of another holds no more than
 * it (where both have storage of their own). */
static int validate_hierarchy(parse_ctx *ctx)
{
    static const gd_level_id order[][2] = {
        {GD_L1D, GD_L2}, {GD_L1C, GD_L15C}, {GD_TLB1, GD_TLB2}};
    gd_arch *a = ctx->arch;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const gd_arch_level *in = &a->level[order[i][0]], *out = &a->level[order[i][1]];
        if (!in->present || !out->present || in->shared_with >= 0 || out->shared_with >= 0)
            continue;
        if (in->size_bytes > out->size_bytes) {
            ctx->line = arch_key_line(ctx, order[i][0], "size");
            return arch_ctx_error(ctx, "[%s] size (%llu) exceeds [%s] size (%llu): the level in "
                                       "front holds no more than the one behind it",
                                  gd_level_name(order[i][0]), (unsigned long long)in->size_bytes,
                                  gd_level_name(order[i][1]), (unsigned long long)out->size_bytes);
        }
    }
    return 1;
}

/* Checks one cache-like level; fills derived fields. Returns 0 or sets ctx error. */
static int validate_cache(parse_ctx *ctx, int id)
{
    gd_arch_level *l = &ctx->arch->level[id];
    const char *nm = gd_level_name((gd_level_id)id);
    static const char *const required[] = {"size", "line", "ways", "latency"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        int found = 0;
        for (int s = 0; s < ctx->seen_count; s++)
            if (!strcasecmp(ctx->seen[s].section, nm) && !strcmp(ctx->seen[s].key, required[i]))
                found = 1;
        if (!found) {
            ctx->line = ctx->section_line[id];
            return arch_ctx_error(ctx, "[%s] is missing '%s'", nm, required[i]);
        }
    }
    if (!l->sector_bytes)
        l->sector_bytes = l->line_bytes;
    if (!is_pow2(l->line_bytes)) {
        ctx->line = arch_key_line(ctx, id, "line");
        return arch_ctx_error(ctx, "[%s] line must be a power of two, got %u", nm, l->line_bytes);
    }
    if (!is_pow2(l->sector_bytes) || l->sector_bytes > l->line_bytes ||
        l->line_bytes / l->sector_bytes > 32) {
        ctx->line = arch_key_line(ctx, id, "sector");
        return arch_ctx_error(ctx, "[%s] sector (%u) must be a power of two dividing line (%u) at most 32 times",
                         nm, l->sector_bytes, l->line_bytes);
    }
    if (!l->ways) {
        ctx->line = arch_key_line(ctx, id, "ways");
        return arch_ctx_error(ctx, "[%s] ways must be at least 1", nm);
    }
    uint64_t set_bytes = (uint64_t)l->line_bytes * l->ways;
    if (!l->size_bytes || l->size_bytes % set_bytes) {
        ctx->line = arch_key_line(ctx, id, "size");
        return arch_ctx_error(ctx, "[%s] size %llu is not a whole number of sets of %u ways x %u-byte lines",
                         nm, (unsigned long long)l->size_bytes, l->ways, l->line_bytes);
    }
    if (l->size_bytes / l->line_bytes > ARCH_MAX_LINES) {
        ctx->line = arch_key_line(ctx, id, "size");
        return arch_ctx_error(ctx, "[%s] size %llu holds more than %llu lines of %u bytes", nm,
                              (unsigned long long)l->size_bytes, ARCH_MAX_LINES, l->line_bytes);
    }
    l->sets = (uint32_t)(l->size_bytes / set_bytes);
    return 1;
}

/* The unified L1/shared storage: the largest split is [SMEM] size, the
 * smallest leaves [L1D] size, and every split leaves an L1D of whole ways
 * (GPGPU-Sim's adaptive L1 keeps the sets and scales the ways). */
static int validate_unified(parse_ctx *ctx)
{
    gd_arch *a = ctx->arch;
    gd_arch_level *sm = &a->level[GD_SMEM], *l1 = &a->level[GD_L1D];
    if (!sm->unified_bytes) {
        if (sm->carveout_count) {
            ctx->line = arch_key_line(ctx, GD_SMEM, "carveouts");
            return arch_ctx_error(ctx, "[SMEM] carveouts needs 'unified' (the L1/shared storage)");
        }
        return 1;
    }
    if (!sm->carveout_count) {
        ctx->line = arch_key_line(ctx, GD_SMEM, "unified");
        return arch_ctx_error(ctx, "[SMEM] unified needs 'carveouts' (the shared-memory sizes "
                                   "the driver may choose)");
    }
    uint32_t smallest = sm->carveout_bytes[0];
    uint32_t largest = sm->carveout_bytes[sm->carveout_count - 1];
    if (largest != sm->size_bytes || largest >= sm->unified_bytes) {
        ctx->line = arch_key_line(ctx, GD_SMEM, "carveouts");
        return arch_ctx_error(ctx, "[SMEM] the largest carve-out (%u) must be [SMEM] size (%llu) "
                                   "and leave the L1D some of 'unified' (%llu)",
                              largest, (unsigned long long)sm->size_bytes,
                              (unsigned long long)sm->unified_bytes);
    }
    if (sm->unified_bytes - smallest != l1->size_bytes) {
        ctx->line = arch_key_line(ctx, GD_SMEM, "unified");
        return arch_ctx_error(ctx, "[SMEM] unified (%llu) less the smallest carve-out (%u) must be "
                                   "[L1D] size (%llu), the most L1 a kernel can get",
                              (unsigned long long)sm->unified_bytes, smallest,
                              (unsigned long long)l1->size_bytes);
    }
    uint64_t way_bytes = (uint64_t)l1->line_bytes * l1->sets;
    for (uint32_t i = 0; i < sm->carveout_count; i++) {
        uint64_t left = sm->unified_bytes - sm->carveout_bytes[i];
        if (left % way_bytes || left / way_bytes >= 0xffffu) {
            ctx->line = arch_key_line(ctx, GD_SMEM, "carveouts");
            return arch_ctx_error(ctx, "[SMEM] carve-out %u leaves an L1D of %llu bytes: not whole "
                                       "ways of %u sets x %u-byte lines",
                                  sm->carveout_bytes[i], (unsigned long long)left, l1->sets,
                                  l1->line_bytes);
        }
    }
    return 1;
}

int arch_validate(parse_ctx *ctx)
{
    gd_arch *a = ctx->arch;
    if (!validate_bounds(ctx))
        return 0;
    if (!a->gpu.sm_count || !a->gpu.subpartitions || a->gpu.subpartitions > 8) {
        ctx->line = arch_key_line(ctx, SECTION_GPU, a->gpu.sm_count ? "subpartitions" : "sms");
        return arch_ctx_error(ctx, "[gpu] needs sms >= 1 and 1..8 subpartitions");
    }
    if (!a->gpu.cc_major) {
        ctx->line = ctx->section_line[SECTION_GPU];
        return arch_ctx_error(ctx, "[gpu] is missing 'compute_capability'");
    }
    if (!a->gpu.max_warps_per_sm || a->gpu.max_warps_per_sm > 64) {
        ctx->line = arch_key_line(ctx, SECTION_GPU, "max_warps_per_sm");
        return arch_ctx_error(ctx, "[gpu] max_warps_per_sm must be 1..64");
    }
    if (!a->gpu.max_ctas_per_sm) {
        ctx->line = arch_key_line(ctx, SECTION_GPU, "max_ctas_per_sm");
        return arch_ctx_error(ctx, "[gpu] max_ctas_per_sm must be at least 1");
    }
    if (a->noise.outlier_rate > 1) {
        ctx->line = arch_key_line(ctx, SECTION_NOISE, "outlier_rate");
        return arch_ctx_error(ctx, "[noise] outlier_rate must be between 0 and 1");
    }
    static const gd_level_id needed[] = {GD_L1D, GD_L2, GD_DRAM, GD_SMEM, GD_L1C};
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++) {
        if (!a->level[needed[i]].present) {
            ctx->line = 0;
            return arch_ctx_error(ctx, "missing section [%s] (every arch needs L1D, L2, DRAM, SMEM, L1C)",
                             gd_level_name(needed[i]));
        }
    }
    for (int id = 0; id < GD_LEVEL_COUNT; id++) {
        gd_arch_level *l = &a->level[id];
        if (!l->present || id == GD_SMEM || id == GD_DRAM || id == GD_L2C || l->shared_with >= 0)
            continue;
        if (!validate_cache(ctx, id))
            return 0;
    }
    /* a level that shares another's storage takes that level's geometry */
    for (int id = 0; id < GD_LEVEL_COUNT; id++) {
        gd_arch_level *l = &a->level[id];
        if (!l->present || l->shared_with < 0)
            continue;
        const char *nm = gd_level_name((gd_level_id)id);
        gd_arch_level *t = &a->level[l->shared_with];
        ctx->line = arch_key_line(ctx, id, "shared_with");
        if (!t->present || t->shared_with >= 0 || l->shared_with == id)
            return arch_ctx_error(ctx, "[%s] shared_with names [%s], which this file does not define "
                                  "as a cache of its own",
                             nm, gd_level_name(l->shared_with));
        if (t->scope != l->scope)
            return arch_ctx_error(ctx, "[%s] shares [%s]'s storage but not its scope (%s vs %s)", nm,
                             gd_level_name(l->shared_with), gd_scope_name(l->scope),
                             gd_scope_name(t->scope));
        for (int s = 0; s < ctx->seen_count; s++)
            if (!strcasecmp(ctx->seen[s].section, nm) &&
                (!strcmp(ctx->seen[s].key, "ways") || !strcmp(ctx->seen[s].key, "replacement"))) {
                ctx->line = ctx->seen[s].line;
                return arch_ctx_error(ctx, "[%s] shares [%s]'s storage: its '%s' is [%s]'s", nm,
                                 gd_level_name(l->shared_with), ctx->seen[s].key,
                                 gd_level_name(l->shared_with));
            }
        if ((l->size_bytes && l->size_bytes != t->size_bytes) ||
            (l->line_bytes && l->line_bytes != t->line_bytes)) {
            ctx->line = arch_key_line(ctx, id, l->size_bytes != t->size_bytes ? "size" : "line");
            return arch_ctx_error(ctx, "[%s] shares [%s]'s storage, so its size and line must be [%s]'s",
                             nm, gd_level_name(l->shared_with), gd_level_name(l->shared_with));
        }
        if (!l->latency_cycles) {
            ctx->line = ctx->section_line[id];
            return arch_ctx_error(ctx, "[%s] is missing 'latency'", nm);
        }
        l->size_bytes = t->size_bytes;
        l->line_bytes = t->line_bytes;
        l->sector_bytes = t->sector_bytes;
        l->ways = t->ways;
        l->sets = t->sets;
        l->replacement = t->replacement;
    }
    if (!validate_hierarchy(ctx) || !validate_sim_state(ctx))
        return 0;
    if (a->level[GD_L2C].present && !a->level[GD_L2C].latency_cycles) {
        ctx->line = ctx->section_line[GD_L2C];
        return arch_ctx_error(ctx, "[L2C] is missing 'latency'");
    }
    gd_arch_level *smem = &a->level[GD_SMEM];
    if (!smem->banks)
        smem->banks = 32;
    if (!smem->bank_width_bytes)
        smem->bank_width_bytes = 4;
    if (!is_pow2(smem->banks) || !is_pow2(smem->bank_width_bytes)) {
        ctx->line = arch_key_line(ctx, GD_SMEM, "banks");
        return arch_ctx_error(ctx, "[SMEM] banks and bank_width must be powers of two");
    }
    gd_arch_level *l1 = &a->level[GD_L1D];
    if (!validate_unified(ctx))
        return 0;
    if (!l1->fifo_entries)
        l1->fifo_entries = 16;
    if (!l1->mshr_entries)
        l1->mshr_entries = 256;
    if (!l1->mshr_merge)
        l1->mshr_merge = 8;
    if (!l1->miss_queue_entries)
        l1->miss_queue_entries = 16;
    if (!l1->fifo_tail_ports)
        l1->fifo_tail_ports = 1;
    if (l1->fifo_tail_ports > 2) {
        ctx->line = arch_key_line(ctx, GD_L1D, "fifo_tail_ports");
        return arch_ctx_error(ctx, "[L1D] fifo_tail_ports must be 1 or 2, got %u",
                              l1->fifo_tail_ports);
    }
    /* the load/store path's widths (sim/README.md "Load/store path"); absent: one
     * request per cycle, one probe per cycle, one instruction in the unit */
    static const struct { const char *key; size_t off; uint32_t max; } widths[] = {
        {"coalescer_rate", offsetof(gd_arch_level, coalescer_rate), GD_ARCH_MAX_COALESCER_RATE},
        {"tag_lookups", offsetof(gd_arch_level, tag_lookups), GD_ARCH_MAX_TAG_LOOKUPS},
        {"queued_instructions", offsetof(gd_arch_level, queued_instructions),
         GD_ARCH_MAX_QUEUED_INSTRUCTIONS},
    };
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        uint32_t *v = (uint32_t *)((char *)l1 + widths[i].off);
        if (!*v)
            *v = 1;
        if (*v > widths[i].max) {
            ctx->line = arch_key_line(ctx, GD_L1D, widths[i].key);
            return arch_ctx_error(ctx, "[L1D] %s must be 1 to %u, got %u", widths[i].key,
                                  widths[i].max, *v);
        }
    }
    gd_arch_level *l2 = &a->level[GD_L2];
    if (!l2->requests_per_cycle)
        l2->requests_per_cycle = 1;
    if (!l2->mshr_entries)
        l2->mshr_entries = 1024;
    if (!l2->mshr_merge)
        l2->mshr_merge = 16;
    if (!a->level[GD_DRAM].requests_per_cycle)
        a->level[GD_DRAM].requests_per_cycle = 1;
    /* Latencies must increase down the data hierarchy: the memory path adds the
     * differences (L2 - L1, DRAM - L2) as transit times. */
    if (l2->latency_cycles <= l1->latency_cycles) {
        ctx->line = arch_key_line(ctx, GD_L2, "latency");
        return arch_ctx_error(ctx, "[L2] latency (%u) must exceed [L1D] latency (%u)", l2->latency_cycles,
                         l1->latency_cycles);
    }
    if (a->level[GD_DRAM].latency_cycles <= l2->latency_cycles) {
        ctx->line = arch_key_line(ctx, GD_DRAM, "latency");
        return arch_ctx_error(ctx, "[DRAM] latency (%u) must exceed [L2] latency (%u)",
                         a->level[GD_DRAM].latency_cycles, l2->latency_cycles);
    }
    if (l1->line_bytes > 1024 || l2->line_bytes > 1024) {
        ctx->line = arch_key_line(ctx, GD_L1D, "line");
        return arch_ctx_error(ctx, "data cache lines are limited to 1024 bytes");
    }
    /* one request's messages to the L2 must fit the miss queue, or it is refused
     * forever: per L2 line of an L1 line, its granules (L1 sectors; L2 sectors for
     * stores and L1-bypassing loads) form at most ceil(granules / 2) runs */
    uint32_t granule = l1->sector_bytes < l2->sector_bytes ? l1->sector_bytes : l2->sector_bytes;
    if (granule < l1->line_bytes / 32)
        granule = l1->line_bytes / 32;
    uint32_t piece = l1->line_bytes < l2->line_bytes ? l1->line_bytes : l2->line_bytes;
    uint32_t per_piece = piece / granule;
    uint32_t messages = (l1->line_bytes / piece) * ((per_piece + 1) / 2);
    if (l1->miss_queue_entries < messages) {
        ctx->line = arch_key_line(ctx, GD_L1D, "miss_queue");
        return arch_ctx_error(ctx, "[L1D] miss_queue (%u) must hold the %u messages one request can "
                                   "send to the L2",
                              l1->miss_queue_entries, messages);
    }
    if (l2->sector_bytes > l1->sector_bytes * 32) {
        ctx->line = arch_key_line(ctx, GD_L2, "sector");
        return arch_ctx_error(ctx, "[L2] sector too large");
    }
    return arch_validate_below_l1(ctx);
}
