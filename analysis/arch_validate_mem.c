/* arch_validate_mem.c -- the rules of the levels below the L1 (issue 12): L2
 * slices and partitions, TLBs, the DRAM organisation.
 *
 * Every key here is optional; an arch without them gets one L2 slice, modulo
 * indexing, no far partition, no TLB and the fixed-latency DRAM, so the files
 * written before these keys existed simulate exactly as they did.  Bounds:
 *   - slices divide the L2's sets and split evenly into partitions; XOR
 *     hashing needs a power-of-two count of slices per partition and ranges
 *     above the line bits that pick the slice (the key then names the line);
 *   - a far partition's latency lies between the near latency and DRAM's;
 *   - TLB latencies are what a pointer chase measures when it reaches DRAM and
 *     the TLB misses (Jia et al. 2019, Fig. 3.5: "L2 miss + TLB miss"), so they
 *     grow DRAM < TLB1 < TLB2, and an L2 TLB needs an L1 TLB in front of it;
 *   - a DRAM with channels needs banks, rows, the interleave and the timings
 *     whose sum must fit in its latency ([DRAM] latency is the chase's
 *     latency of a row-buffer hit: the fixed path plus tCL);
 *   - (issue 13) `kind = pcm` needs the channels (its writes hold a bank):
 *     pcm_write defaults to 10 x tWR (seed 003: "write latency 10x DRAM's");
 *   - (issue 13) [WB] size 0 is no buffer; otherwise a whole number of rows
 *     (2..WB_MAX_ROWS), rows of 64 B..1 KiB (a power of two, at least the L2
 *     line: a row travels as one message whose sector mask has 32 bits),
 *     active_rows below the rows (default half, rounded up), latency >= 1
 *     (default 10: an assumption, the paper gives none).
 */
#include "analysis/arch_validate.h"

#include <string.h>

#define DRAM_MAX_CHANNELS 256
#define DRAM_MAX_BANKS 256
#define L2_MAX_SLICES 512
#define WB_MAX_ROWS 65536

static int pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

static int validate_l2_map(parse_ctx *ctx)
{
    gd_arch *a = ctx->arch;
    gd_arch_level *l2 = &a->level[GD_L2];
    gd_arch_l2_map *m = &l2->l2map;
    if (!m->slices)
        m->slices = 1;
    if (!m->partitions)
        m->partitions = 1;
    if (m->slices > L2_MAX_SLICES || l2->sets % m->slices) {
        ctx->line = arch_key_line(ctx, GD_L2, "slices");
        return arch_ctx_error(ctx, "[L2] slices (%u) must divide the L2's %u sets (at most %d)",
                              m->slices, l2->sets, L2_MAX_SLICES);
    }
    if (m->slices % m->partitions) {
        ctx->line = arch_key_line(ctx, GD_L2, "partitions");
        return arch_ctx_error(ctx, "[L2] partitions (%u) must divide slices (%u)", m->partitions,
                              m->slices);
    }
    uint32_t pp = m->slices / m->partitions;
    if (m->hash == GD_L2_HASH_XOR) {
        if (!pow2(pp)) {
            ctx->line = arch_key_line(ctx, GD_L2, "hash");
            return arch_ctx_error(ctx, "[L2] hash = xor needs a power-of-two count of slices per "
                                       "partition, got %u", pp);
        }
        unsigned line_bits = 0, b = 0;
        while ((1u << line_bits) < l2->line_bytes)
            line_bits++;
        while ((1u << b) < pp)
            b++;
        for (uint32_t r = 0; r < m->xor_range_count; r++)
            if (m->xor_lo[r] < line_bits + b) {
                ctx->line = arch_key_line(ctx, GD_L2, "xor_bits");
                return arch_ctx_error(ctx, "[L2] xor_bits: range %u-%u must lie above bit %u (the "
                                           "line offset and the slice bits)",
                                      m->xor_lo[r], m->xor_hi[r], line_bits + b - 1);
            }
    } else if (m->xor_range_count) {
        ctx->line = arch_key_line(ctx, GD_L2, "xor_bits");
        return arch_ctx_error(ctx, "[L2] xor_bits needs hash = xor");
    }
    if (m->partitions > 1) {
        if (m->far_latency_cycles <= l2->latency_cycles ||
            m->far_latency_cycles >= a->level[GD_DRAM].latency_cycles) {
            ctx->line = arch_key_line(ctx, GD_L2, "far_latency");
            return arch_ctx_error(ctx, "[L2] far_latency (%u) must lie between [L2] latency (%u) and "
                                       "[DRAM] latency (%u)",
                                  m->far_latency_cycles, l2->latency_cycles,
                                  a->level[GD_DRAM].latency_cycles);
        }
    } else if (m->far_latency_cycles) {
        ctx->line = arch_key_line(ctx, GD_L2, "far_latency");
        return arch_ctx_error(ctx, "[L2] far_latency needs partitions > 1");
    }
    if (!m->slice_requests_per_cycle) {
        m->slice_requests_per_cycle = l2->requests_per_cycle / m->slices;
        if (!m->slice_requests_per_cycle)
            m->slice_requests_per_cycle = 1;
    }
    return 1;
}

static int validate_tlbs(parse_ctx *ctx)
{
    gd_arch *a = ctx->arch;
    gd_arch_level *t1 = &a->level[GD_TLB1], *t2 = &a->level[GD_TLB2];
    uint32_t dram = a->level[GD_DRAM].latency_cycles;
    if (t2->present && !t1->present) {
        ctx->line = ctx->section_line[GD_TLB2];
        return arch_ctx_error(ctx, "[TLB2] needs a [TLB1] in front of it");
    }
    if (t1->present && t1->latency_cycles <= dram) {
        ctx->line = arch_key_line(ctx, GD_TLB1, "latency");
        return arch_ctx_error(ctx, "[TLB1] latency (%u: DRAM + an L1 TLB miss) must exceed [DRAM] "
                                   "latency (%u)", t1->latency_cycles, dram);
    }
    if (t2->present && t2->latency_cycles <= t1->latency_cycles) {
        ctx->line = arch_key_line(ctx, GD_TLB2, "latency");
        return arch_ctx_error(ctx, "[TLB2] latency (%u: DRAM + an L2 TLB miss) must exceed [TLB1] "
                                   "latency (%u)", t2->latency_cycles, t1->latency_cycles);
    }
    if (t1->present && t2->present && t2->line_bytes < t1->line_bytes) {
        ctx->line = arch_key_line(ctx, GD_TLB2, "line");
        return arch_ctx_error(ctx, "[TLB2] page (line %u) must be at least [TLB1]'s (%u)",
                              t2->line_bytes, t1->line_bytes);
    }
    return 1;
}

static int validate_dram(parse_ctx *ctx)
{
    gd_arch *a = ctx->arch;
    gd_arch_level *dl = &a->level[GD_DRAM];
    gd_arch_dram *d = &dl->dram;
    if (!d->channels) {
        static const char *const detail[] = {"banks", "row", "interleave", "tRCD", "tRP", "tCL",
                                             "tRAS", "tCCD", "tWR", "tRTW", "tWTR",
                                             "burst_cycles", "queue_entries", "write_high",
                                             "write_low", "row_timeout", "kind", "pcm_write",
                                             "pcm_read_extra", "pcm_write_pj_per_bit"};
        for (size_t i = 0; i < sizeof detail / sizeof detail[0]; i++)
            for (int s = 0; s < ctx->seen_count; s++)
                if (!strcmp(ctx->seen[s].section, "DRAM") && !strcmp(ctx->seen[s].key, detail[i])) {
                    ctx->line = ctx->seen[s].line;
                    return arch_ctx_error(ctx, "[DRAM] %s needs 'channels'", detail[i]);
                }
        return 1;
    }
    if (d->channels > DRAM_MAX_CHANNELS || !d->banks || d->banks > DRAM_MAX_BANKS) {
        ctx->line = arch_key_line(ctx, GD_DRAM, d->channels > DRAM_MAX_CHANNELS ? "channels" : "banks");
        return arch_ctx_error(ctx, "[DRAM] needs 1..%d channels and 1..%d banks", DRAM_MAX_CHANNELS,
                              DRAM_MAX_BANKS);
    }
    if (!pow2(d->row_bytes) || !pow2(d->interleave_bytes) || d->interleave_bytes < 32) {
        ctx->line = arch_key_line(ctx, GD_DRAM, pow2(d->row_bytes) ? "interleave" : "row");
        return arch_ctx_error(ctx, "[DRAM] row and interleave must be powers of two (interleave >= 32)");
    }
    if (!d->t_cl || !d->t_rcd || !d->t_rp) {
        ctx->line = ctx->section_line[GD_DRAM];
        return arch_ctx_error(ctx, "[DRAM] with channels needs tCL, tRCD and tRP");
    }
    if (!d->t_ccd)
        d->t_ccd = 1;
    if (!d->burst_cycles)
        d->burst_cycles = 1;
    if (!d->queue_entries)
        d->queue_entries = 16;
    if ((d->write_high || d->write_low) && d->write_low >= d->write_high) {
        ctx->line = arch_key_line(ctx, GD_DRAM, d->write_high ? "write_low" : "write_high");
        return arch_ctx_error(ctx, "[DRAM] write_low (%u) must be below write_high (%u)",
                              d->write_low, d->write_high);
    }
    if (dl->latency_cycles <= a->level[GD_L2].latency_cycles + d->t_cl) {
        ctx->line = arch_key_line(ctx, GD_DRAM, "latency");
        return arch_ctx_error(ctx, "[DRAM] latency (%u, a row-buffer hit) must exceed [L2] latency "
                                   "plus tCL (%u)",
                              dl->latency_cycles, a->level[GD_L2].latency_cycles + d->t_cl);
    }
    if (d->kind == GD_MEM_PCM && !d->pcm_write_cycles) {
        if (!d->t_wr) {
            ctx->line = arch_key_line(ctx, GD_DRAM, "kind");
            return arch_ctx_error(ctx, "[DRAM] kind = pcm needs pcm_write (or tWR: 10 x tWR)");
        }
        d->pcm_write_cycles = 10 * d->t_wr;
    }
    if (d->pcm_write_pj_per_bit < 0) {
        ctx->line = arch_key_line(ctx, GD_DRAM, "pcm_write_pj_per_bit");
        return arch_ctx_error(ctx, "[DRAM] pcm_write_pj_per_bit must be >= 0");
    }
    return 1;
}

static int validate_wb(parse_ctx *ctx)
{
    gd_arch *a = ctx->arch;
    gd_arch_wb *w = &a->wb;
    if (!w->row_bytes)
        w->row_bytes = 1024;
    if (!w->latency_cycles)
        w->latency_cycles = 10;
    if (!w->size_bytes) {
        w->active_rows = 0;
        return 1;
    }
    uint32_t l2_line = a->level[GD_L2].line_bytes;
    if (!pow2(w->row_bytes) || w->row_bytes < 64 || w->row_bytes > 1024 || w->row_bytes < l2_line) {
        ctx->line = arch_key_line(ctx, SECTION_WB, "row_bytes");
        return arch_ctx_error(ctx, "[WB] row_bytes (%u) must be a power of two, 64 B..1 KiB and at "
                                   "least the L2 line (%u)",
                              w->row_bytes, l2_line);
    }
    uint64_t rows = w->size_bytes / w->row_bytes;
    if (w->size_bytes % w->row_bytes || rows < 2 || rows > WB_MAX_ROWS) {
        ctx->line = arch_key_line(ctx, SECTION_WB, "size");
        return arch_ctx_error(ctx, "[WB] size must be 2..%d rows of row_bytes (%u)", WB_MAX_ROWS,
                              w->row_bytes);
    }
    if (!w->active_rows)
        w->active_rows = (uint32_t)((rows + 1) / 2);
    if (w->active_rows >= rows) {
        ctx->line = arch_key_line(ctx, SECTION_WB, "active_rows");
        return arch_ctx_error(ctx, "[WB] active_rows (%u) must be below the rows (%llu)",
                              w->active_rows, (unsigned long long)rows);
    }
    return 1;
}

int arch_validate_below_l1(parse_ctx *ctx)
{
    return validate_l2_map(ctx) && validate_tlbs(ctx) && validate_dram(ctx) && validate_wb(ctx);
}
