/* model_below_l1.c -- the TLB and DRAM-row terms of the expected p-chase, and
 * what the dram_row probe should see.
 *
 * model.c says which level serves each access of a chain's timed lap (L1D, L2
 * near, L2 far, DRAM); what the levels below the L1 add on top is here, for
 * the simulator's rules (sim/tlb.c, sim/dram.c):
 *
 *   - TLBs.  An access that passes the L1 looks its page up in the L1 TLB, and
 *     on a miss in the L2 TLB.  A TLB is a cache of pages, so model.c's rule
 *     for cyclic chains holds for it too: under LRU a set whose pages fit its
 *     ways keeps them all; one with more thrashes, and then only an access to
 *     the page of the access just before it hits.  An L1 TLB miss costs [TLB1]
 *     latency - [DRAM] latency, an L2 TLB miss [TLB2] - [TLB1] more.  The pages
 *     the L2 TLB sees are those of the L1 TLB's thrashing sets.
 *   - DRAM rows.  The accesses that reach DRAM open rows in their banks (the
 *     arch's address map, gd_arch_dram_locate); the lap is walked twice, the
 *     first to leave the banks as the previous lap does, and each access of the
 *     second costs nothing on a row hit, tRCD on a closed bank and tRP + tRCD on
 *     a conflict (an access counts as reaching DRAM when it does so more often
 *     than not).  One thread, so no queueing: tRAS, tCCD and the bus never
 *     wait in a chase whose accesses are a DRAM latency apart.
 *
 *   - The dram_row probe (gd_model_dram_row, gd_model_dram_idle): a row hit,
 *     a row switch, and with [DRAM] row_timeout a closed bank -- the one rule
 *     in sim/dram.c that depends on time, so the pairs are walked with their
 *     arrival times where it applies (row_walk).
 *
 * The chase's own scratch (kernels/chase.c: in the output buffer while the
 * chain is small) is read through the L2 at every access, so its page keeps
 * one L1 TLB entry, and one L2 TLB entry: the chain has one way less in each.
 *
 * Assumptions, stated: the TLB sees the chain's order (the L1 hits in between
 * do not touch it), the scratch's entry is taken from every set of a
 * set-associative L1 TLB (its set is unknown here), and random TLB replacement
 * uses the same mean-field estimate as the caches.
 */
#include "analysis/model_below_l1.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/infer_dram.h"


typedef struct tlb_geom {
    uint64_t page;
    uint32_t sets, ways;
    gd_replacement repl;
    uint32_t *pages_in_set;
    double *keep;
} tlb_geom;

static int tlb_init(tlb_geom *t, const gd_arch_level *l)
{
    memset(t, 0, sizeof *t);
    t->page = l->line_bytes;
    t->sets = l->sets;
    t->ways = l->ways;
    t->repl = l->replacement;
    t->pages_in_set = calloc(t->sets, sizeof *t->pages_in_set);
    t->keep = calloc(t->sets, sizeof *t->keep);
    return t->pages_in_set && t->keep ? 0 : -1;
}

static void tlb_free(tlb_geom *t)
{
    free(t->pages_in_set);
    free(t->keep);
}

/* Counts the distinct pages of the elements with weight[e] > 0 per set (runs of
 * one page in lap order count once, as model.c counts lines), then the keep
 * probability of each set. */
static void tlb_count(tlb_geom *t, uint64_t n, const uint32_t *order, uint64_t base,
                      uint64_t stride, const double *weight, gd_random_hit_rate_fn random_rate)
{
    uint64_t last = UINT64_MAX;
    /* distinct pages: the chain's addresses grow with the element index */
    for (uint64_t e = 0; e < n; e++) {
        if (weight[e] <= 0)
            continue;
        uint64_t page = (base + e * stride) / t->page;
        if (page != last)
            t->pages_in_set[page % t->sets]++;
        last = page;
    }
    (void)order;
    for (uint32_t s = 0; s < t->sets; s++)
        t->keep[s] = t->pages_in_set[s] <= t->ways ? 1.0
                     : t->repl == GD_REPL_RANDOM ? random_rate(t->pages_in_set[s], t->ways)
                                                 : 0.0;
}

static double tlb_hit(const tlb_geom *t, uint64_t addr, uint64_t prev, int has_prev)
{
    uint64_t page = addr / t->page;
    if (has_prev && prev / t->page == page)
        return 1.0;
    return t->keep[page % t->sets];
}

static int tlb_extra(const gd_arch *arch, uint64_t n, const uint32_t *order, uint64_t base,
                     uint64_t stride, const double *below_l1, gd_random_hit_rate_fn random_rate,
                     double *extra, gd_err *err)
{
    const gd_arch_level *t1 = &arch->level[GD_TLB1], *t2 = &arch->level[GD_TLB2];
    double pen1 = (double)t1->latency_cycles - arch->level[GD_DRAM].latency_cycles;
    double pen2 = t2->present ? (double)t2->latency_cycles - t1->latency_cycles : 0;
    tlb_geom g1, g2;
    memset(&g1, 0, sizeof g1);
    memset(&g2, 0, sizeof g2);
    double *miss1 = calloc(n ? n : 1, sizeof *miss1);
    int rc = -1;
    if (!miss1 || tlb_init(&g1, t1) != 0 || (t2->present && tlb_init(&g2, t2) != 0)) {
        gd_fail(err, "model: out of memory");
        goto out;
    }
    /* the chase's scratch, in global memory while the chain is small, is read
     * through the L2 at every access: its page holds one L1 TLB entry (kept
     * there, being the most recent every other access) -- exact for a fully
     * associative L1 TLB, one way less in every set otherwise */
    uint64_t line_share = stride < GD_CHASE_LINE_BYTES_MAX ? stride : GD_CHASE_LINE_BYTES_MAX;
    if (!gd_chase_scratch_in_shared(n * line_share, arch->level[GD_L2].size_bytes) && g1.ways > 1)
        g1.ways--;
    tlb_count(&g1, n, order, base, stride, below_l1, random_rate);
    for (uint64_t k = 0; k < n; k++) {
        uint32_t e = order[k], p = order[(k + n - 1) % n];
        miss1[e] = below_l1[e] *
                   (1 - tlb_hit(&g1, base + (uint64_t)e * stride, base + (uint64_t)p * stride, n > 1));
    }
    if (t2->present) {
        if (!gd_chase_scratch_in_shared(n * line_share, arch->level[GD_L2].size_bytes) && g2.ways > 1)
            g2.ways--; /* the scratch's page: an entry there too */
        tlb_count(&g2, n, order, base, stride, miss1, random_rate);
    }
    for (uint64_t k = 0; k < n; k++) {
        uint32_t e = order[k], p = order[(k + n - 1) % n];
        double m2 = t2->present ? 1 - tlb_hit(&g2, base + (uint64_t)e * stride,
                                              base + (uint64_t)p * stride, n > 1)
                                : 0;
        *extra += miss1[e] * (pen1 + m2 * pen2);
    }
    rc = 0;
out:
    free(miss1);
    tlb_free(&g1);
    tlb_free(&g2);
    return rc;
}

typedef struct bank_state {
    uint8_t open;
    uint64_t row;
} bank_state;

static int dram_extra(const gd_arch *arch, uint64_t n, const uint32_t *order, uint64_t base,
                      uint64_t stride, const double *to_dram, double *extra, gd_err *err)
{
    const gd_arch_dram *d = &arch->level[GD_DRAM].dram;
    uint64_t l2_line = arch->level[GD_L2].line_bytes;
    bank_state *banks = calloc((size_t)d->channels * d->banks, sizeof *banks);
    if (!banks)
        return gd_fail(err, "model: out of memory");
    for (int lap = 0; lap < 2; lap++)
        for (uint64_t k = 0; k < n; k++) {
            uint32_t e = order[k];
            if (to_dram[e] <= 0.5)
                continue;
            uint64_t addr = (base + (uint64_t)e * stride) / l2_line * l2_line;
            uint32_t ch, b;
            uint64_t row;
            gd_arch_dram_locate(arch, addr, &ch, &b, &row);
            bank_state *s = &banks[(size_t)ch * d->banks + b];
            double cost = !s->open ? d->t_rcd : s->row != row ? d->t_rp + d->t_rcd : 0;
            if (lap == 1)
                *extra += to_dram[e] * cost;
            s->open = 1;
            s->row = row;
        }
    free(banks);
    return 0;
}

int gd_model_below_l1(const gd_arch *arch, uint64_t n, const uint32_t *order, uint64_t base,
                      uint64_t stride, const double *below_l1, const double *to_dram,
                      gd_random_hit_rate_fn random_hit_rate, double *extra_sum, gd_err *err)
{
    *extra_sum = 0;
    if (arch->level[GD_TLB1].present &&
        tlb_extra(arch, n, order, base, stride, below_l1, random_hit_rate, extra_sum, err) != 0)
        return -1;
    if (arch->level[GD_DRAM].dram.channels &&
        dram_extra(arch, n, order, base, stride, to_dram, extra_sum, err) != 0)
        return -1;
    return 0;
}

/* kernels/dram_row.c's layout, which the walk below repeats: pairs (its
 * DR_DEFAULT_PAIRS), pair i's A at i x spacing from a 4 KiB boundary, the
 * spacing at least twice the distance and 64 KiB, in 4 KiB steps */
#define ROW_PROBE_PAIRS 256
#define ROW_PROBE_MIN_SPACING (64u << 10)
#define ROW_PROBE_ALIGN 4096u

typedef struct row_walk_bank {
    int open;
    uint64_t row;
    double last_column;       /* the open row's last column command */
    double precharge_ok;      /* its activate + tRAS */
    double activate_ok;       /* the end of a timeout's self-precharge */
} row_walk_bank;

static int cmp_extra(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The dram_row pairs at `distance` on an arch with [DRAM] row_timeout, bank
 * by bank as sim/dram.c schedules them: the median over the pairs of what B
 * costs above the [DRAM] latency (0 a hit, tRCD closed, tRP + tRCD a
 * conflict, between where it meets a self-precharge under way).  Times are
 * the requests' arrivals at their banks: one dependent access after another,
 * each a [DRAM] latency after the column command of the one before (its data
 * back to the SM and the next request out: a row hit's round trip), the SM's
 * few instructions in between left out.  The eviction pass leaves the banks
 * it reached (consecutive rows of a channel on consecutive banks: the first
 * flush / (channels x row) of each channel) open as if it had just ended;
 * which of them the pairs meet depends on where the chain lies, which the
 * model takes at address 0 (the simulator's buffers are 2 MiB-aligned, and the
 * pairs' reuse of a bank does not depend on the base).  -1: out of memory. */
static int row_walk(const gd_arch *arch, uint64_t flush_bytes, uint64_t distance, double *median)
{
    const gd_arch_dram *d = &arch->level[GD_DRAM].dram;
    double lat = arch->level[GD_DRAM].latency_cycles;
    double activate = d->t_rcd + (d->kind == GD_MEM_PCM ? d->pcm_read_cycles : 0);
    uint64_t spacing = 2 * distance > ROW_PROBE_MIN_SPACING ? 2 * distance : ROW_PROBE_MIN_SPACING;
    spacing = (spacing + ROW_PROBE_ALIGN - 1) / ROW_PROBE_ALIGN * ROW_PROBE_ALIGN;
    row_walk_bank *banks = calloc((size_t)d->channels * d->banks, sizeof *banks);
    double *extra_b = malloc(ROW_PROBE_PAIRS * sizeof *extra_b);
    if (!banks || !extra_b) {
        free(banks);
        free(extra_b);
        return -1;
    }
    uint64_t flushed = flush_bytes / ((uint64_t)d->channels * d->row_bytes);
    for (uint32_t c = 0; c < d->channels; c++)
        for (uint32_t b = 0; b < d->banks && b < flushed; b++)
            banks[(size_t)c * d->banks + b] =
                (row_walk_bank){.open = 1, .row = UINT64_MAX, .last_column = -lat};
    double at = 0; /* the next request's arrival at its bank */
    for (uint32_t i = 0; i < ROW_PROBE_PAIRS; i++)
        for (int k = 0; k < 2; k++) {
            uint64_t addr = (uint64_t)i * spacing + (k ? distance : 0);
            uint32_t ch, b;
            uint64_t row;
            gd_arch_dram_locate(arch, addr, &ch, &b, &row);
            row_walk_bank *s = &banks[(size_t)ch * d->banks + b];
            if (s->open) {
                /* sim/dram.c timeout_precharge: row_timeout after the last
                 * column command, not before activate + tRAS */
                double close = s->last_column + d->row_timeout;
                if (close < s->precharge_ok)
                    close = s->precharge_ok;
                if (at >= close) {
                    s->open = 0;
                    s->activate_ok = close + d->t_rp;
                }
            }
            double column = at;
            if (!s->open || s->row != row) {
                double act = !s->open ? fmax(at, s->activate_ok)
                                      : fmax(at, s->precharge_ok) + d->t_rp;
                column = act + activate;
                s->precharge_ok = act + d->t_ras;
            }
            s->open = 1;
            s->row = row;
            s->last_column = column;
            if (k)
                extra_b[i] = column - at;
            at = column + lat;
        }
    qsort(extra_b, ROW_PROBE_PAIRS, sizeof *extra_b, cmp_extra);
    *median = (extra_b[ROW_PROBE_PAIRS / 2 - 1] + extra_b[ROW_PROBE_PAIRS / 2]) / 2;
    free(banks);
    free(extra_b);
    return 0;
}

void gd_model_dram_row(const gd_arch *arch, uint64_t flush_bytes, uint64_t switch_distance_bytes,
                       int *row_effect, double *hit, double *switch_cycles, uint64_t *span)
{
    const gd_arch_dram *d = &arch->level[GD_DRAM].dram;
    double lat = arch->level[GD_DRAM].latency_cycles;
    *hit = *switch_cycles = lat;
    *span = 0;
    *row_effect = 0;
    if (!d->channels || !d->banks || !d->row_bytes)
        return;
    /* past the interleave chunk B is on another channel -- unless there is
     * one channel, whose local addresses are the addresses: then the row */
    *span = d->channels > 1 && d->interleave_bytes < d->row_bytes ? d->interleave_bytes
                                                                  : d->row_bytes;
    double activate = d->t_rcd + (d->kind == GD_MEM_PCM ? d->pcm_read_cycles : 0);
    if (d->row_timeout) {
        /* a bank idle for the timeout is closed: B's own bank after A's round
         * trip, the switch's after whatever the pairs did since they last
         * touched it -- the walk says which */
        double hit_extra, switch_extra;
        uint64_t line = arch->level[GD_L2].line_bytes;
        uint64_t dist = switch_distance_bytes ? switch_distance_bytes : *span;
        if (row_walk(arch, flush_bytes, line < *span ? line : *span, &hit_extra) == 0 &&
            row_walk(arch, flush_bytes, dist, &switch_extra) == 0) {
            *hit = lat + hit_extra;
            *switch_cycles = lat + switch_extra;
            *row_effect = *switch_cycles - *hit >=
                          fmax(GD_ROW_MIN_STEP_CYCLES, GD_ROW_MIN_STEP_SHARE * *hit);
            if (!*row_effect)
                *span = 0;
            return;
        }
        /* out of memory: the open-row figures below */
    }
    /* the share of banks the eviction pass left open: it walks every bank of
     * every channel once per channels x banks x row bytes */
    double all_banks = (double)d->channels * d->banks * d->row_bytes;
    double open_share = flush_bytes >= all_banks ? 1.0 : (double)flush_bytes / all_banks;
    *switch_cycles = lat + activate + open_share * d->t_rp;
    *row_effect = 1;
}

void gd_model_dram_idle(const gd_arch *arch, int *has_timeout, double *timeout_cycles,
                        double *hit, double *miss_cycles)
{
    const gd_arch_dram *d = &arch->level[GD_DRAM].dram;
    double lat = arch->level[GD_DRAM].latency_cycles;
    double activate = d->t_rcd + (d->kind == GD_MEM_PCM ? d->pcm_read_cycles : 0);
    *hit = lat;
    *has_timeout = d->channels && d->banks && d->row_bytes && d->row_timeout;
    *timeout_cycles = *miss_cycles = NAN;
    if (!*has_timeout)
        return;
    /* A activated its row (fresh lines: a miss or a conflict), its column
     * command `activate` later; the self-precharge waits for activate + tRAS */
    *timeout_cycles = fmax((double)d->row_timeout, d->t_ras - activate);
    *miss_cycles = lat + activate;
}
