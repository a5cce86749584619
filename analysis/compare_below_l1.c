/* compare_below_l1.c -- measured vs expected for the far L2 partition and the
 * TLBs (issue 12).
 *
 * What the model expects is what the arch states, read the way the probes
 * measure it: the far partition's hit latency (a footprint chase's plateau
 * between half the L2 and the whole), each TLB's latency as a chase reaching
 * DRAM with that TLB missing (analysis/infer_tlb.c builds the measured value the
 * same way: DRAM, resp. TLB1, plus the step of its chase; so the expected value
 * is the measured base plus the arch's miss cost, and the base has its own
 * row), and the L1 TLB's page
 * as the stride sweep sees it.  Rows appear only where the arch has the level.
 * Tolerances: compare_rows.c's latency rule (a floor and 2%, no noise figure:
 * a TLB latency is a sum of two plateaus), the page exact.
 *
 * L2 slices (the l2_slice probe): compare_slices below.
 *
 * DRAM rows (the dram_row probe, where the run measured it): the row-hit and
 * row-switch latency against analysis/model_below_l1.c's (the [DRAM] latency;
 * + tRP + tRCD), with the latency rule -- 2% of 540 cycles is 11, a quarter of
 * A100's 40-cycle step, so a hit read as a switch or the reverse cannot
 * match -- and the row-hit span exact (the sweep doubles, so it lands on the
 * power of two the model names).  Without rows in the arch the model expects
 * "no row effect": both latencies the [DRAM] one, and row_effect 0.  With a
 * [DRAM] row_timeout the model walks the pairs at the distance the switch was
 * read at (a bank the pairs left long enough is closed: + tRCD only).
 *
 * The page-close timeout (dram_row --variant idle, where the run measured
 * it).  An arch with [DRAM] row_timeout: DRAM.row_timeout_cycles, the bank
 * idle time from which B finds its bank closed (max(row_timeout, tRAS -
 * tRCD)), matches when it lies in the sweep's bracket, widened by the latency
 * rule (the idle time holds a row hit's round trip and a few instructions no
 * clock sees); DRAM.row_miss_cycles, latency + tRCD, by the latency rule.  A
 * flat curve is a lower bound: "not measured" past its longest idle time, a
 * mismatch below it -- unless the timeout is shorter than the sweep's first
 * idle time, when every B is closed and the flat level is the closed latency.
 * An arch without a timeout (or without channels): DRAM.row_timeout "none",
 * which a step contradicts.
 */
#include "analysis/compare_below_l1.h"

#include <math.h>

#include "analysis/model.h"
#include "analysis/model_bandwidth.h"
#include "analysis/model_below_l1.h"

/* Bandwidth: the model is a peak (analysis/model_bandwidth.c); a streaming
 * measurement within this share of it matches.  Cards reach 70-95% of their
 * peak, the simulator 60-105% (sim:v100's L2 copy: 60%, its reads and writes
 * sharing each SM's miss queue, which the peak leaves out): 45% keeps both and
 * still tells a count off by a factor of two. */
#define GD_BW_TOLERANCE_SHARE 0.45

static void compare_bandwidth(json_t *params, gd_compare_counts *c, const gd_arch *arch,
                              const gd_inferred_below *b)
{
    for (int l = 0; l < GD_BW_LEVEL_COUNT; l++)
        for (int k = 0; k < GD_BW_KIND_COUNT; k++) {
            const gd_inferred_bandwidth *x = &b->bw[l][k];
            if (!x->has)
                continue;
            char why[200], what[64];
            double peak = gd_model_bandwidth(arch, (gd_bw_level)l, (gd_bw_kind)k, why, sizeof why);
            if (peak <= 0)
                continue; /* no figure (an L1 write, a DRAM write): inferred.json only */
            snprintf(what, sizeof what, "%s_bytes_per_cycle", gd_bw_kind_name((gd_bw_kind)k));
            gd_compare_add_parameter(params, c, gd_bw_level_name((gd_bw_level)l), what, 1,
                                     x->bytes_per_cycle, peak, GD_BW_TOLERANCE_SHARE * peak, peak,
                                     NULL);
            gd_compare_note(params, "peak: %s; match within %.0f%%", why,
                            100 * GD_BW_TOLERANCE_SHARE);
        }
}

/* kernels/l2_flush.c reads twice the L2 (at least 1 MiB) before the pairs */
#define ROW_FLUSH_L2_FACTOR 2
#define ROW_FLUSH_MIN_BYTES (1u << 20)

/* The idle sweep's rows (compare_rows). */
static void compare_row_timeout(json_t *params, gd_compare_counts *c, const gd_arch *arch,
                                const gd_inferred_rows *r)
{
    const gd_arch_dram *d = &arch->level[GD_DRAM].dram;
    int has_timeout;
    double timeout, hit, miss;
    gd_model_dram_idle(arch, &has_timeout, &timeout, &hit, &miss);
    const char *src = gd_arch_source_of(arch, "DRAM", "row_timeout");
    if (!has_timeout) {
        gd_compare_add_categorical(params, c, "DRAM", "row_timeout", 1,
                                   r->row_timeout_lower_bound ? "none" : "closes", "none",
                                   src ? src : gd_arch_source_of(arch, "DRAM", "channels"));
        if (r->row_timeout_lower_bound)
            gd_compare_note(params, "%s: no step from %.0f to %.0f idle cycles",
                            d->channels ? "no [DRAM] row_timeout (open rows stay open)"
                                        : "no [DRAM] channels (no rows)",
                            r->row_timeout_min_cycles, r->row_timeout_cycles);
        else
            gd_compare_note(params, "%s, yet B found its bank closed from %.0f idle cycles on",
                            d->channels ? "no [DRAM] row_timeout (open rows stay open)"
                                        : "no [DRAM] channels (no rows)",
                            r->row_timeout_cycles);
        return;
    }
    const char *src_rcd = gd_arch_source_of(arch, "DRAM", "tRCD");
    double miss_tol = gd_compare_latency_tolerance(miss);
    if (!r->row_timeout_lower_bound) {
        double lo = r->row_timeout_min_cycles, hi = r->row_timeout_cycles;
        gd_compare_add_parameter(params, c, "DRAM", "row_timeout_cycles", 1, (lo + hi) / 2,
                                 timeout, (hi - lo) / 2 + gd_compare_latency_tolerance(timeout),
                                 d->row_timeout, src);
        gd_compare_note(params, "bank idle cycles (the wait + the row-hit latency): open at %.0f, "
                                "closed at %.0f; max(row_timeout %u, tRAS %u - tRCD)",
                        lo, hi, d->row_timeout, d->t_ras);
        gd_compare_add_parameter(params, c, "DRAM", "row_miss_cycles", 1, r->row_miss_cycles, miss,
                                 miss_tol, miss, src_rcd);
        gd_compare_note(params, "[DRAM] latency + tRCD (a bank the timeout closed)");
    } else if (timeout <= r->row_timeout_min_cycles) {
        gd_compare_add_parameter(params, c, "DRAM", "row_timeout_cycles", 0, NAN, timeout, 0,
                                 d->row_timeout, src);
        gd_compare_note(params, "shorter than the sweep's first idle time (%.0f cycles): every B "
                                "finds its bank closed, a flat curve",
                        r->row_timeout_min_cycles);
        gd_compare_add_parameter(params, c, "DRAM", "row_miss_cycles", 1, r->idle_hit_cycles, miss,
                                 miss_tol, miss, src_rcd);
        gd_compare_note(params, "the flat curve's level: [DRAM] latency + tRCD at every gap");
    } else {
        gd_compare_add_lower_bound(params, c, "DRAM", "row_timeout_cycles", r->row_timeout_cycles,
                                   timeout, src);
        gd_compare_note(params, "no step from %.0f to %.0f idle cycles", r->row_timeout_min_cycles,
                        r->row_timeout_cycles);
        gd_compare_add_parameter(params, c, "DRAM", "row_miss_cycles", 0, NAN, miss, miss_tol, miss,
                                 src_rcd);
        gd_compare_note(params, "no closed bank seen");
    }
}

static void compare_rows(json_t *params, gd_compare_counts *c, const gd_arch *arch,
                         const gd_inferred_rows *r)
{
    if (r->has_idle)
        compare_row_timeout(params, c, arch, r);
    if (!r->has_distance)
        return;
    uint64_t flush = ROW_FLUSH_L2_FACTOR * arch->level[GD_L2].size_bytes;
    if (flush < ROW_FLUSH_MIN_BYTES)
        flush = ROW_FLUSH_MIN_BYTES;
    int effect;
    double hit, sw;
    uint64_t span;
    gd_model_dram_row(arch, flush, r->switch_distance_bytes, &effect, &hit, &sw, &span);
    const gd_arch_dram *d = &arch->level[GD_DRAM].dram;
    const char *src_lat = gd_arch_source_of(arch, "DRAM", "latency");
    gd_compare_add_parameter(params, c, "DRAM", "row_hit_cycles", 1, r->row_hit_cycles, hit,
                             gd_compare_latency_tolerance(hit), hit, src_lat);
    gd_compare_add_parameter(params, c, "DRAM", "row_switch_cycles", 1, r->row_switch_cycles, sw,
                             gd_compare_latency_tolerance(sw), sw,
                             effect ? gd_arch_source_of(arch, "DRAM", "tRP") : src_lat);
    if (d->channels && d->row_timeout)
        gd_compare_note(params, "the pairs walked with [DRAM] row_timeout %u at %llu bytes%s: "
                                "latency + %.0f (0 a hit, tRCD closed, tRP + tRCD a conflict)",
                        d->row_timeout,
                        (unsigned long long)(r->switch_distance_bytes ? r->switch_distance_bytes
                                                                      : span),
                        r->switch_distance_bytes ? "" : " (the span: the run did not record "
                                                        "the switch's distance)",
                        sw - arch->level[GD_DRAM].latency_cycles);
    else
        gd_compare_note(params, effect
                                    ? "[DRAM] latency + tRP + tRCD (a bank with another row open)"
                                    : "no [DRAM] channels: no row effect, one latency");
    gd_compare_add_parameter(params, c, "DRAM", "row_effect", 1, r->row_effect, effect, 0, effect,
                             gd_arch_source_of(arch, "DRAM", "channels"));
    if (effect)
        gd_compare_add_parameter(params, c, "DRAM", "row_hit_span_bytes", r->row_effect,
                                 (double)r->row_hit_span_bytes, (double)span, 0, (double)span,
                                 gd_arch_source_of(arch, "DRAM", "interleave"));
}

/* The L2's slices (the l2_slice probe, where the run measured it).  A modulo
 * map of more than one slice per partition: the total and the period (slices
 * per partition x the L2 line), exact; a count seen at one multiple only is a
 * lower bound.  One slice, or an XOR map (which spreads the probe's strides):
 * the model expects no pattern, and one found is a mismatch. */
static void compare_slices(json_t *params, gd_compare_counts *c, const gd_arch *arch,
                           const gd_inferred_slices *x)
{
    const gd_arch_level *l2 = &arch->level[GD_L2];
    const gd_arch_l2_map *m = &l2->l2map;
    uint32_t parts = m->partitions ? m->partitions : 1;
    uint32_t total = m->slices ? m->slices : 1, per = total / parts;
    const char *src = gd_arch_source_of(arch, "L2", "slices");
    if (per > 1 && m->hash == GD_L2_HASH_MODULO) {
        if (x->resolved && x->lower_bound)
            gd_compare_add_lower_bound(params, c, "L2", "slices", x->slices, total, src);
        else
            gd_compare_add_parameter(params, c, "L2", "slices", x->resolved, x->slices, total, 0,
                                     total, src);
        gd_compare_note(params, "%u partition(s) x %u slices, modulo map%s", parts, per,
                        x->resolved ? "" : "; the probe saw no pattern");
        double period = (double)per * l2->line_bytes;
        gd_compare_add_parameter(params, c, "L2", "slice_period_bytes",
                                 x->resolved && !x->lower_bound, (double)x->period_bytes, period, 0,
                                 period, src);
        gd_compare_note(params, "slices per partition x the %u-byte L2 line", l2->line_bytes);
        return;
    }
    gd_compare_add_categorical(params, c, "L2", "slice_pattern", 1, x->resolved ? "modulo" : "none",
                               "none", src);
    gd_compare_note(params, per > 1 ? "an XOR map spreads every stride the probe sweeps"
                                    : "one slice per partition: no stride serialises the L2");
}

void gd_compare_below_l1(json_t *params, gd_compare_counts *c, const gd_arch *arch,
                         const gd_run *run)
{
    const gd_inference *inf = &run->inferred;
    if (inf->below.rows.has)
        compare_rows(params, c, arch, &inf->below.rows);
    if (inf->below.slices.has)
        compare_slices(params, c, arch, &inf->below.slices);
    compare_bandwidth(params, c, arch, &inf->below);
    const gd_arch_l2_map *m = &arch->level[GD_L2].l2map;
    if (m->partitions > 1) {
        const gd_inferred_level *far = &inf->level[GD_INF_L2FAR];
        double expected = m->far_latency_cycles;
        gd_compare_add_parameter(params, c, "L2FAR", "latency_cycles", far->present && far->has_latency,
                                 far->latency_cycles, expected,
                                 gd_compare_latency_tolerance(expected), expected,
                                 gd_arch_source_of(arch, "L2", "far_latency"));
    }
    static const struct {
        gd_level_id id, below;
        gd_inferred_name inferred, below_inferred;
        const char *name;
    } tlbs[] = {{GD_TLB1, GD_DRAM, GD_INF_TLB1, GD_INF_DRAM, "TLB1"},
                {GD_TLB2, GD_TLB1, GD_INF_TLB2, GD_INF_TLB1, "TLB2"}};
    for (size_t i = 0; i < sizeof tlbs / sizeof tlbs[0]; i++) {
        const gd_arch_level *l = &arch->level[tlbs[i].id];
        const gd_inferred_level *t = &inf->level[tlbs[i].inferred];
        if (!l->present)
            continue;
        /* The measured latency is the latency below it as this run measured
         * it (DRAM's chase plateau; TLB1's) plus the step of the TLB's own
         * chase: the row judges the step -- the arch's miss cost on top of the
         * measured base -- and the base is judged on its own row.  They differ
         * where the base read differs from the arch's figure: a chase whose
         * DRAM accesses find their banks closed by [DRAM] row_timeout reads
         * DRAM tRCD high (draws 29 and 38 of the below-L1 recovery), and the
         * TLBs above it with it.  Without a measured base, the arch's. */
        const gd_inferred_level *b = &inf->level[tlbs[i].below_inferred];
        const char *below_name = gd_level_name(tlbs[i].below);
        double published = l->latency_cycles, below = arch->level[tlbs[i].below].latency_cycles;
        double expected = published;
        if (t->present && t->has_latency && b->present && b->has_latency)
            expected = b->latency_cycles + (published - below);
        gd_compare_add_parameter(params, c, tlbs[i].name, "latency_cycles",
                                 t->present && t->has_latency, t->latency_cycles, expected,
                                 gd_compare_latency_tolerance(expected), published,
                                 gd_arch_source_of(arch, tlbs[i].name, "latency"));
        if (expected != published)
            gd_compare_note(params,
                            "the measured %s latency %g plus the arch's miss cost %g (%s %g - "
                            "%s %g); the %s row judges the base",
                            below_name, b->latency_cycles, published - below, tlbs[i].name,
                            published, below_name, below, below_name);
        if (tlbs[i].id == GD_TLB1)
            gd_compare_add_parameter(params, c, "TLB1", "sector_bytes", t->present && t->has_sector,
                                     (double)t->sector_bytes, (double)l->line_bytes, 0,
                                     (double)l->line_bytes, gd_arch_source_of(arch, "TLB1", "line"));
    }
}
