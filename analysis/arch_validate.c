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
    if (l->size_bytes / set_bytes > (1u << 24)) {
        ctx->line = arch_key_line(ctx, id, "size");
        return arch_ctx_error(ctx, "[%s] too many sets", nm);
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
