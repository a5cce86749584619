/* infer.c -- naming plateaus, reading capacities off knees, granularities off
 * stride curves.
 *
 * A footprint p-chase with ld.ca climbs L1D -> L2 -> (far L2) -> DRAM -> (TLB
 * misses).  Plateaus alone do not say which is which, so the knees are placed
 * against what the device reports about itself: the knee nearest the device's L2
 * size (within a factor GD_L2_HINT_FACTOR) closes the L2; the first plateau is
 * the L1D; plateaus between the L1D and the L2 knee are the L2 and, if there is
 * a second, its far half (L2FAR); those after the L2 knee are DRAM and then the
 * TLB levels (DRAM + L1 TLB miss, + L2 TLB miss), whose knees are TLB coverage.
 * Without a usable hint the plateaus are taken in that order.  With ld.cg the
 * first plateau is the L2.
 *
 * A level's capacity is the last footprint still on its plateau (the knee's
 * `below` point): the largest footprint with no miss.  An adaptive sweep pins it
 * to one stride; a coarse sweep leaves it as wide as the bracket, which
 * inferred.json records.  A stride sweep's last plateau starts at the stride from
 * which every access misses: the fetch granularity.
 */
#include "analysis/infer.h"

#include "analysis/knee_extrapolate.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define GD_L2_HINT_FACTOR 4.0 /* a knee this far from the reported L2 size is not the L2's */

static const char *const inferred_names[GD_INF_COUNT] = {
    [GD_INF_L0I] = "L0I",   [GD_INF_L1I] = "L1I",   [GD_INF_L15I] = "L15I",
    [GD_INF_L1C] = "L1C",   [GD_INF_L15C] = "L15C", [GD_INF_L2C] = "L2C",
    [GD_INF_L1D] = "L1D",   [GD_INF_SMEM] = "SMEM", [GD_INF_L2] = "L2",
    [GD_INF_L2FAR] = "L2FAR", [GD_INF_DRAM] = "DRAM", [GD_INF_TLB1] = "TLB1",
    [GD_INF_TLB2] = "TLB2",
};

const char *gd_inferred_level_name(gd_inferred_name n)
{
    return n < GD_INF_COUNT ? inferred_names[n] : "?";
}

int gd_inferred_level_from_name(const char *name)
{
    for (int i = 0; i < GD_INF_COUNT; i++)
        if (!strcmp(inferred_names[i], name))
            return i;
    return -1;
}

double gd_inferred_confidence(const gd_inferred_level *l)
{
    double c = 1.0;
    if (l->has_size && l->size_confidence < c)
        c = l->size_confidence;
    if (l->has_sector && l->sector_confidence < c)
        c = l->sector_confidence;
    if (l->has_latency && l->latency_confidence < c)
        c = l->latency_confidence;
    if (l->has_scope && l->scope_confidence < c)
        c = l->scope_confidence;
    if (l->has_shared_with && l->shared_confidence < c)
        c = l->shared_confidence;
    if (l->has_replacement && l->replacement_confidence < c)
        c = l->replacement_confidence;
    if (l->has_broadcast && l->broadcast_confidence < c)
        c = l->broadcast_confidence;
    if (l->has_ways && l->ways_confidence < c)
        c = l->ways_confidence;
    if (l->has_alloc_line && l->alloc_line_confidence < c)
        c = l->alloc_line_confidence;
    if (l->has_mshr && l->mshr_confidence < c)
        c = l->mshr_confidence;
    if (l->has_mshr_merge && l->mshr_merge_confidence < c)
        c = l->mshr_merge_confidence;
    if (l->has_banks && l->banks_confidence < c)
        c = l->banks_confidence;
    if (l->has_hol && l->hol_confidence < c)
        c = l->hol_confidence;
    if (l->has_next_blocked && l->next_blocked_confidence < c)
        c = l->next_blocked_confidence;
    return c;
}

void gd_inferred_set_latency(gd_inferred_level *l, const gd_plateau *p, const char *from)
{
    l->present = 1;
    l->has_latency = 1;
    l->latency_cycles = p->level;
    l->latency_confidence = p->confidence;
    snprintf(l->latency_from, sizeof l->latency_from, "%s", from);
}

void gd_inferred_set_size(gd_inferred_level *l, const gd_knee *k, const char *from)
{
    l->present = 1;
    l->has_size = 1;
    l->size_is_lower_bound = 0;
    l->size_resolution_bytes = 0;
    l->size_method[0] = 0;
    l->size_bytes = (uint64_t)k->x_below;
    l->size_confidence = k->confidence;
    l->knee_below = k->x_below;
    l->knee_above = k->x_above;
    snprintf(l->size_from, sizeof l->size_from, "%s", from);
}

int gd_infer_pchase(gd_inference *inf, const gd_curve *curve, const gd_segmentation *seg,
                    int bypass_l1, uint64_t l2_bytes_hint, gd_err *err)
{
    size_t np = seg->plateau_count;
    if (np == 0)
        return gd_fail(err, "%s: no plateau found: the sweep is too short or too noisy",
                       curve->label);
    /* which knee closes the L2? */
    size_t l2_knee = SIZE_MAX;
    if (l2_bytes_hint) {
        double best = log(GD_L2_HINT_FACTOR);
        for (size_t k = 0; k < seg->knee_count; k++) {
            if (!bypass_l1 && k == 0)
                continue; /* the first knee closes the L1 */
            double d = fabs(log(seg->knees[k].x_below / (double)l2_bytes_hint));
            if (d <= best) {
                best = d;
                l2_knee = k;
            }
        }
    }
    /* name the plateaus in order */
    static const gd_inferred_name after_l2[] = {GD_INF_DRAM, GD_INF_TLB1, GD_INF_TLB2};
    gd_inferred_name names[16];
    size_t first_l2 = bypass_l1 ? 0 : 1, beyond = 0;
    for (size_t i = 0; i < np && i < 16; i++) {
        gd_inferred_name n = GD_INF_COUNT; /* GD_INF_COUNT: not a level the schema names */
        if (i < first_l2)
            n = GD_INF_L1D;
        else if (i == first_l2)
            n = GD_INF_L2;
        else if (l2_knee != SIZE_MAX && i <= l2_knee)
            n = i == first_l2 + 1 ? GD_INF_L2FAR : GD_INF_COUNT;
        else if (beyond < sizeof after_l2 / sizeof after_l2[0])
            n = after_l2[beyond++];
        names[i] = n;
    }
    for (size_t i = 0; i < np && i < 16; i++) {
        if (names[i] == GD_INF_COUNT)
            continue;
        gd_inferred_set_latency(&inf->level[names[i]], &seg->plateaus[i], curve->label);
        if (i >= seg->knee_count)
            continue;
        /* the knee after a plateau is a capacity: the L1D's, the L2's (after the
         * far half when there is one), the L1 TLB's after DRAM, the L2 TLB's
         * after that */
        const gd_knee *k = &seg->knees[i];
        switch (names[i]) {
        case GD_INF_L1D: gd_inferred_set_size(&inf->level[GD_INF_L1D], k, curve->label); break;
        case GD_INF_L2:
            if (!(i + 1 < np && names[i + 1] == GD_INF_L2FAR))
                gd_inferred_set_size(&inf->level[GD_INF_L2], k, curve->label);
            break;
        case GD_INF_L2FAR: gd_inferred_set_size(&inf->level[GD_INF_L2], k, curve->label); break;
        case GD_INF_DRAM: gd_inferred_set_size(&inf->level[GD_INF_TLB1], k, curve->label); break;
        case GD_INF_TLB1: gd_inferred_set_size(&inf->level[GD_INF_TLB2], k, curve->label); break;
        default: break;
        }
    }
    /* the L1D's knee (the L2's, from the L2 alone) where the misses begin:
     * under random replacement or noise the detector sees them a few lines late */
    size_t first_knee_level = bypass_l1 ? GD_INF_L2 : GD_INF_L1D;
    gd_inferred_level *first = &inf->level[first_knee_level];
    double begins, resolution = 0;
    /* an L2 with a far half ends at the far plateau's knee, not the first:
     * refining the first moved a 3 MiB two-partition L2 back to its 1.5 MiB
     * near half (generated below-L1 seed 27), and unrefined the far knee read
     * 19 lines late under noise (seeds 13, 51) */
    int far_follows = np >= 2 && names[1] == GD_INF_L2FAR && first_knee_level == GD_INF_L2;
    size_t knee = far_follows ? 1 : 0; /* ... so it is that knee that is refined */
    if (np >= 2 && names[0] == first_knee_level && first->has_size && knee < seg->knee_count &&
        gd_knee_extrapolate(curve, seg, knee, &begins, &resolution) &&
        begins < (double)first->size_bytes) {
        first->size_bytes = (uint64_t)begins;
        first->knee_below = begins;
        /* stated where it is more than the chain's element (the scorer's and
         * the reader's default resolution is a line) */
        double grain = curve->opts.stride_bytes ? (double)curve->opts.stride_bytes : 1;
        if (resolution > grain) {
            first->size_resolution_bytes = (uint64_t)resolution;
            snprintf(first->size_method, sizeof first->size_method,
                     "misses extrapolated to their onset; +- the lines noise hides");
        }
    }
    return 0;
}

int gd_infer_stride(gd_inference *inf, const gd_curve *curve, const gd_segmentation *seg,
                    gd_inferred_name level, gd_err *err)
{
    if (seg->plateau_count == 0)
        return gd_fail(err, "%s: no plateau in the stride sweep", curve->label);
    const gd_plateau *last = &seg->plateaus[seg->plateau_count - 1];
    /* Below the granularity g a share (1 - stride/g) of the accesses still hits
     * the level above; at stride g/2 that is half, and the point's median may
     * sit on either level -- so the plateau detector can count it in.  The
     * granularity is the first point whose 5th percentile is already at the
     * last plateau's level: past the midpoint from the lowest level the sweep
     * saw, every access a miss.  From the first point on, not the last
     * plateau's first: where the footprint is about the L2's size the first
     * all-miss stride (every L2 line touched) can miss the L2 too and sit
     * above the strides past it (generated seed 1016: 492 cycles at 32 bytes,
     * the L2's 320 from 64 on, read as 64). */
    double low = INFINITY;
    for (size_t i = 0; i < curve->count; i++) {
        const gd_summary *s = NULL;
        int k = gd_point_series_index(&curve->points[i], "cycles");
        if (k >= 0)
            s = &curve->points[i].series[k].summary;
        if (s && s->p05 < low)
            low = s->p05;
    }
    size_t g = 0;
    double threshold = (last->level + low) / 2;
    while (g < last->last) {
        int k = gd_point_series_index(&curve->points[g], "cycles");
        if (k >= 0 && curve->points[g].series[k].summary.p05 > threshold)
            break;
        g++;
    }
    /* A level that keeps some hits at every stride (random replacement, the
     * footprint 1.5x a large L2: at a stride past the line the lines touched
     * shrink, but so do the sets they fall in) never has a 5th percentile at
     * the miss level, and the loop above ran to the end (generated seed 1017:
     * a 24 MiB random L2's 32-byte granularity read as 1024, and every chase
     * then strode 1 KiB: the 16 KiB L1D read as 64).  There the mean still
     * climbs to its plateau at the granularity: the first point whose mean is
     * three quarters of the way from the lowest level to the highest mean. */
    int k_g = gd_point_series_index(&curve->points[g], "cycles");
    int mean_rule = k_g < 0 || !(curve->points[g].series[k_g].summary.p05 > threshold);
    if (mean_rule) {
        double top = -INFINITY;
        for (size_t i = 0; i < curve->count; i++) {
            int k = gd_point_series_index(&curve->points[i], "cycles");
            if (k >= 0 && curve->points[i].series[k].summary.mean > top)
                top = curve->points[i].series[k].summary.mean;
        }
        for (g = 0; g + 1 < curve->count; g++) {
            int k = gd_point_series_index(&curve->points[g], "cycles");
            if (k >= 0 && curve->points[g].series[k].summary.mean - low >= 0.75 * (top - low))
                break;
        }
    }
    gd_inferred_level *l = &inf->level[level];
    l->present = 1;
    l->has_sector = 1;
    l->sector_bytes = curve->points[g].x;
    /* confident when the plateau is, and when points below it were measured
     * (a plateau from the first stride on only bounds the granularity) */
    double conf = last->confidence;
    if (seg->plateau_count >= 2)
        conf *= seg->knees[seg->knee_count - 1].confidence;
    if (g == 0 || last->level - low < 1.0)
        conf *= 0.5;
    if (mean_rule)
        conf *= 0.8; /* from the mean: no stride missed on every access */
    l->sector_confidence = conf;
    snprintf(l->sector_from, sizeof l->sector_from, "%s", curve->label);
    return 0;
}

/* Instruction and constant caches hold more than the probe's own lines: the
 * kernel's other code and parameters, and -- for instruction caches -- the
 * lines a sequential prefetcher pulls in past the end of the loop on its cold
 * pass (up to the prefetch depth) and the loop's misalignment to its first
 * line.  Their knee therefore sits a few lines below the capacity, never above
 * it; every size published for these levels is a whole number of KiB, so the
 * capacity is the knee rounded up to one (the knee itself stays in "knee"). */
static int rounds_up_to_kib(int level)
{
    return level == GD_INF_L0I || level == GD_INF_L1I || level == GD_INF_L15I ||
           level == GD_INF_L1C || level == GD_INF_L15C;
}

void gd_inference_snap(gd_inference *inf)
{
    for (int i = 0; i < GD_INF_COUNT; i++) {
        gd_inferred_level *l = &inf->level[i];
        if (!l->has_size || l->size_is_lower_bound)
            continue;
        if (rounds_up_to_kib(i))
            l->size_bytes = (l->size_bytes + 1023) / 1024 * 1024;
        else if (l->has_sector && l->sector_bytes)
            l->size_bytes = l->size_bytes / l->sector_bytes * l->sector_bytes;
    }
}

static json_t *num_or_null(int has, double v)
{
    return has ? json_real(v) : json_null();
}

static json_t *int_or_null(int has, uint64_t v)
{
    return has ? json_integer((json_int_t)v) : json_null();
}

json_t *gd_inference_to_json(const gd_inference *inf)
{
    json_t *doc = json_object();
    json_t *levels = json_array();
    for (int i = 0; i < GD_INF_COUNT; i++) {
        const gd_inferred_level *l = &inf->level[i];
        if (!l->present)
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(inferred_names[i]));
        json_object_set_new(o, "size_bytes", int_or_null(l->has_size, l->size_bytes));
        json_object_set_new(o, "sector_bytes", int_or_null(l->has_sector, l->sector_bytes));
        json_object_set_new(o, "line_bytes", int_or_null(l->has_alloc_line, l->alloc_line_bytes));
        json_object_set_new(o, "latency_cycles", num_or_null(l->has_latency, l->latency_cycles));
        json_object_set_new(o, "confidence", json_real(gd_inferred_confidence(l)));
        json_object_set_new(o, "size_confidence", num_or_null(l->has_size, l->size_confidence));
        json_object_set_new(o, "sector_confidence", num_or_null(l->has_sector, l->sector_confidence));
        json_object_set_new(o, "latency_confidence",
                            num_or_null(l->has_latency, l->latency_confidence));
        if (l->has_size && l->size_is_lower_bound)
            json_object_set_new(o, "size_is_lower_bound", json_true());
        if (l->has_size && l->size_resolution_bytes)
            json_object_set_new(o, "size_resolution_bytes",
                                json_integer((json_int_t)l->size_resolution_bytes));
        if (l->has_size && l->size_method[0])
            json_object_set_new(o, "size_method", json_string(l->size_method));
        if (!l->has_size && l->size_unseen[0])
            json_object_set_new(o, "size_unseen", json_string(l->size_unseen));
        if (!l->has_scope && l->scope_unseen[0])
            json_object_set_new(o, "scope_unseen", json_string(l->scope_unseen));
        if (l->has_size && !l->size_is_lower_bound && (l->knee_below || l->knee_above)) {
            json_t *k = json_object();
            json_object_set_new(k, "x_below", json_real(l->knee_below));
            json_object_set_new(k, "x_above", json_real(l->knee_above));
            json_object_set_new(o, "knee", k);
        }
        if (l->has_scope) {
            json_object_set_new(o, "scope", json_string(gd_scope_name(l->scope)));
            json_object_set_new(o, "scope_confidence", json_real(l->scope_confidence));
        }
        if (l->has_shared_with) {
            json_object_set_new(o, "shared_with",
                                l->shared_with >= 0
                                    ? json_string(inferred_names[l->shared_with])
                                    : json_null());
            json_object_set_new(o, "shared_confidence", json_real(l->shared_confidence));
        }
        if (l->has_replacement) {
            json_object_set_new(o, "replacement",
                                json_string(l->replacement_lru_or_fifo
                                                ? "lru-or-fifo"
                                                : gd_replacement_name(l->replacement)));
            json_object_set_new(o, "replacement_confidence",
                                json_real(l->replacement_confidence));
        }
        json_t *av = NULL;
        for (int pl = 0; pl < GD_PLACE_COUNT; pl++) {
            const gd_interference *r = &inf->av[i][pl];
            if (!r->measured)
                continue;
            if (!av)
                av = json_object();
            json_t *j = json_object();
            json_object_set_new(j, "interferes", json_boolean(r->interferes));
            json_object_set_new(j, "victim_cpi_ratio", json_real(r->ratio));
            if (r->against_control)
                json_object_set_new(j, "against", json_string(
                                        gd_placement_name(GD_PLACE_SAME_SUB_ISSUE)));
            json_object_set_new(j, "confidence", json_real(r->confidence));
            json_object_set_new(j, "from", json_string(r->from));
            json_object_set_new(av, gd_placement_name((gd_placement)pl), j);
        }
        if (av)
            json_object_set_new(o, "interference", av);
        if (l->has_broadcast) {
            json_t *b = json_object();
            json_object_set_new(b, "uniform_broadcast", json_boolean(l->broadcast));
            json_object_set_new(b, "per_address_cycles", json_real(l->per_address_cycles));
            json_object_set_new(b, "confidence", json_real(l->broadcast_confidence));
            json_object_set_new(o, "broadcast", b);
        }
        if (l->has_ways) {
            json_object_set_new(o, "ways", json_integer(l->ways));
            if (l->ways_is_lower_bound)
                json_object_set_new(o, "ways_is_lower_bound", json_true());
            json_object_set_new(o, "ways_confidence", json_real(l->ways_confidence));
        }
        if (l->has_alloc_line) {
            if (l->has_sector && l->sector_bytes)
                json_object_set_new(o, "sectors_per_line",
                                    json_integer((json_int_t)(l->alloc_line_bytes / l->sector_bytes)));
            json_object_set_new(o, "line_confidence", json_real(l->alloc_line_confidence));
        }
        if (l->has_mshr) {
            json_object_set_new(o, "mshr_entries", json_integer(l->mshr_entries));
            if (l->mshr_is_lower_bound)
                json_object_set_new(o, "mshr_entries_is_lower_bound", json_true());
            json_object_set_new(o, "mshr_confidence", json_real(l->mshr_confidence));
        }
        if (l->has_mshr_merge) {
            json_object_set_new(o, "mshr_merge", json_integer(l->mshr_merge));
            if (l->mshr_merge_is_lower_bound)
                json_object_set_new(o, "mshr_merge_is_lower_bound", json_true());
            json_object_set_new(o, "mshr_merge_confidence", json_real(l->mshr_merge_confidence));
        }
        if (l->has_banks) {
            json_t *b = json_object();
            json_object_set_new(b, "banks", json_integer(l->banks));
            json_object_set_new(b, "bank_width_bytes", json_integer(l->bank_width_bytes));
            json_object_set_new(b, "conflict_cycles", json_real(l->conflict_cycles));
            json_object_set_new(b, "same_word_broadcast", json_boolean(l->same_word_broadcast));
            json_object_set_new(b, "confidence", json_real(l->banks_confidence));
            json_object_set_new(o, "banks", b);
        }
        if (l->has_hol) {
            json_object_set_new(o, "head_of_line_blocking", json_boolean(l->head_of_line_blocking));
            json_object_set_new(o, "hol_confidence", json_real(l->hol_confidence));
        }
        if (l->has_next_blocked) {
            json_object_set_new(o, "next_instruction_blocked",
                                json_boolean(l->next_instruction_blocked));
            json_object_set_new(o, "next_blocked_confidence",
                                json_real(l->next_blocked_confidence));
        }
        json_t *from = json_object();
        if (l->has_size)
            json_object_set_new(from, "size", json_string(l->size_from));
        if (l->has_sector)
            json_object_set_new(from, "sector", json_string(l->sector_from));
        if (l->has_latency)
            json_object_set_new(from, "latency", json_string(l->latency_from));
        if (l->has_scope)
            json_object_set_new(from, "scope", json_string(l->scope_from));
        if (l->has_shared_with)
            json_object_set_new(from, "shared_with", json_string(l->shared_from));
        if (l->has_replacement)
            json_object_set_new(from, "replacement", json_string(l->replacement_from));
        if (l->has_broadcast)
            json_object_set_new(from, "broadcast", json_string(l->broadcast_from));
        if (l->has_ways)
            json_object_set_new(from, "ways", json_string(l->ways_from));
        if (l->has_alloc_line)
            json_object_set_new(from, "line", json_string(l->alloc_line_from));
        if (l->has_mshr)
            json_object_set_new(from, "mshr", json_string(l->mshr_from));
        if (l->has_mshr_merge)
            json_object_set_new(from, "mshr_merge", json_string(l->mshr_merge_from));
        if (l->has_banks)
            json_object_set_new(from, "banks", json_string(l->banks_from));
        if (l->has_hol)
            json_object_set_new(from, "hol", json_string(l->hol_from));
        if (l->has_next_blocked)
            json_object_set_new(from, "next_blocked", json_string(l->next_blocked_from));
        json_object_set_new(o, "from", from);
        gd_inferred_below_to_json(&inf->below, inferred_names[i], o);
        json_array_append_new(levels, o);
    }
    json_object_set_new(doc, "levels", levels);
    if (inf->store.measured)
        json_object_set_new(doc, "store", gd_store_to_json(&inf->store));
    return doc;
}

static int scope_from_name(const char *name)
{
    for (int sc = GD_SCOPE_SUBPARTITION; sc <= GD_SCOPE_CHIP; sc++)
        if (!strcmp(gd_scope_name((gd_scope)sc), name))
            return sc;
    return -1;
}

static int replacement_from_name(const char *name)
{
    for (int r = GD_REPL_LRU; r <= GD_REPL_RANDOM; r++)
        if (!strcmp(gd_replacement_name((gd_replacement)r), name))
            return r;
    return -1;
}

static int get_number(const json_t *o, const char *key, double *v)
{
    const json_t *j = json_object_get(o, key);
    if (!json_is_number(j))
        return 0;
    *v = json_number_value(j);
    return 1;
}

/* A count or size: a whole number in 0..max, or absent (*has = 0).  A value
 * outside that (negative, 1e30, 2.5) is an error, not a cast whose result C
 * leaves undefined. */
static int get_whole(const json_t *o, const char *key, double max, uint64_t *out, int *has)
{
    double v;
    *has = get_number(o, key, &v);
    if (!*has)
        return 0;
    if (!(v >= 0 && v <= max) || v != floor(v))
        return -1;
    *out = (uint64_t)v;
    return 0;
}

#define WHOLE(obj, key, max, field, has_field)                                                  \
    do {                                                                                       \
        uint64_t w_ = 0;                                                                       \
        int h_ = 0;                                                                            \
        if (get_whole(obj, key, max, &w_, &h_) != 0)                                           \
            return gd_fail(err, "%s: level %s: \"%s\" must be a whole number in 0..%.0f", path,  \
                           name, key, (double)(max));                                          \
        if (h_)                                                                                \
            (field) = w_;                                                                      \
        has_field;                                                                             \
    } while (0)

int gd_inference_from_json(const json_t *doc, gd_inference *inf, const char *path, gd_err *err)
{
    memset(inf, 0, sizeof *inf);
    const json_t *levels = json_object_get(doc, "levels");
    if (!json_is_array(levels))
        return gd_fail(err, "%s: no \"levels\" array", path);
    size_t i;
    const json_t *o;
    json_array_foreach(levels, i, o) {
        const char *name = json_string_value(json_object_get(o, "name"));
        int id = name ? gd_inferred_level_from_name(name) : -1;
        if (id < 0)
            return gd_fail(err, "%s: level %zu has an unknown name '%s'", path, i,
                           name ? name : "(none)");
        gd_inferred_level *l = &inf->level[id];
        l->present = 1;
        gd_inferred_below_from_json(&inf->below, name, o);
        WHOLE(o, "size_bytes", 0x1p62, l->size_bytes, l->has_size = h_);
        WHOLE(o, "sector_bytes", 0x1p62, l->sector_bytes, l->has_sector = h_);
        l->has_latency = get_number(o, "latency_cycles", &l->latency_cycles);
        get_number(o, "size_confidence", &l->size_confidence);
        get_number(o, "sector_confidence", &l->sector_confidence);
        get_number(o, "latency_confidence", &l->latency_confidence);
        const json_t *k = json_object_get(o, "knee");
        if (k) {
            get_number(k, "x_below", &l->knee_below);
            get_number(k, "x_above", &l->knee_above);
        }
        l->size_is_lower_bound = json_is_true(json_object_get(o, "size_is_lower_bound"));
        WHOLE(o, "size_resolution_bytes", 0x1p62, l->size_resolution_bytes, (void)h_);
        const char *method = json_string_value(json_object_get(o, "size_method"));
        snprintf(l->size_method, sizeof l->size_method, "%s", method ? method : "");
        const char *unseen = json_string_value(json_object_get(o, "size_unseen"));
        snprintf(l->size_unseen, sizeof l->size_unseen, "%s", unseen ? unseen : "");
        const char *sunseen = json_string_value(json_object_get(o, "scope_unseen"));
        snprintf(l->scope_unseen, sizeof l->scope_unseen, "%s", sunseen ? sunseen : "");
        const char *scope = json_string_value(json_object_get(o, "scope"));
        if (scope) {
            int sc = scope_from_name(scope);
            if (sc < 0)
                return gd_fail(err, "%s: level %s has an unknown scope '%s'", path, name, scope);
            l->has_scope = 1;
            l->scope = (gd_scope)sc;
            get_number(o, "scope_confidence", &l->scope_confidence);
        }
        const json_t *sw = json_object_get(o, "shared_with");
        if (sw) {
            l->has_shared_with = 1;
            l->shared_with = json_is_string(sw) ? gd_inferred_level_from_name(json_string_value(sw))
                                                : -1;
            get_number(o, "shared_confidence", &l->shared_confidence);
        }
        const char *repl = json_string_value(json_object_get(o, "replacement"));
        if (repl) {
            l->has_replacement = 1;
            if (!strcmp(repl, "lru-or-fifo")) {
                l->replacement_lru_or_fifo = 1;
                l->replacement = GD_REPL_LRU;
            } else {
                int r = replacement_from_name(repl);
                if (r < 0)
                    return gd_fail(err, "%s: level %s has an unknown replacement '%s'", path,
                                   name, repl);
                l->replacement = (gd_replacement)r;
            }
            get_number(o, "replacement_confidence", &l->replacement_confidence);
        }
        const char *pk;
        const json_t *pv;
        json_object_foreach((json_t *)json_object_get(o, "interference"), pk, pv) {
            int pl = gd_placement_from_name(pk);
            if (pl < 0)
                continue;
            gd_interference *r = &inf->av[id][pl];
            r->measured = 1;
            r->interferes = json_is_true(json_object_get(pv, "interferes"));
            get_number(pv, "victim_cpi_ratio", &r->ratio);
            get_number(pv, "confidence", &r->confidence);
            const char *f = json_string_value(json_object_get(pv, "from"));
            snprintf(r->from, sizeof r->from, "%s", f ? f : "");
        }
        const json_t *b = json_object_get(o, "broadcast");
        if (json_is_object(b)) {
            l->has_broadcast = 1;
            l->broadcast = json_is_true(json_object_get(b, "uniform_broadcast"));
            get_number(b, "per_address_cycles", &l->per_address_cycles);
            get_number(b, "confidence", &l->broadcast_confidence);
        }
        WHOLE(o, "ways", UINT32_MAX, l->ways, l->has_ways = h_);
        get_number(o, "ways_confidence", &l->ways_confidence);
        l->ways_is_lower_bound = json_is_true(json_object_get(o, "ways_is_lower_bound"));
        WHOLE(o, "line_bytes", 0x1p62, l->alloc_line_bytes, l->has_alloc_line = h_);
        get_number(o, "line_confidence", &l->alloc_line_confidence);
        WHOLE(o, "mshr_entries", UINT32_MAX, l->mshr_entries, l->has_mshr = h_);
        get_number(o, "mshr_confidence", &l->mshr_confidence);
        l->mshr_is_lower_bound = json_is_true(json_object_get(o, "mshr_entries_is_lower_bound"));
        l->mshr_merge_is_lower_bound = json_is_true(json_object_get(o, "mshr_merge_is_lower_bound"));
        WHOLE(o, "mshr_merge", UINT32_MAX, l->mshr_merge, l->has_mshr_merge = h_);
        get_number(o, "mshr_merge_confidence", &l->mshr_merge_confidence);
        const json_t *bk = json_object_get(o, "banks");
        if (json_is_object(bk)) {
            l->has_banks = 1;
            WHOLE(bk, "banks", UINT32_MAX, l->banks, (void)0);
            WHOLE(bk, "bank_width_bytes", UINT32_MAX, l->bank_width_bytes, (void)0);
            get_number(bk, "conflict_cycles", &l->conflict_cycles);
            l->same_word_broadcast = json_is_true(json_object_get(bk, "same_word_broadcast"));
            get_number(bk, "confidence", &l->banks_confidence);
        }
        const json_t *hol = json_object_get(o, "head_of_line_blocking");
        if (json_is_boolean(hol)) {
            l->has_hol = 1;
            l->head_of_line_blocking = json_is_true(hol);
            get_number(o, "hol_confidence", &l->hol_confidence);
        }
        const json_t *next = json_object_get(o, "next_instruction_blocked");
        if (json_is_boolean(next)) {
            l->has_next_blocked = 1;
            l->next_instruction_blocked = json_is_true(next);
            get_number(o, "next_blocked_confidence", &l->next_blocked_confidence);
        }
        const json_t *from = json_object_get(o, "from");
        static const struct {
            const char *key;
            size_t offset;
        } froms[] = {
            {"size", offsetof(gd_inferred_level, size_from)},
            {"sector", offsetof(gd_inferred_level, sector_from)},
            {"latency", offsetof(gd_inferred_level, latency_from)},
            {"scope", offsetof(gd_inferred_level, scope_from)},
            {"shared_with", offsetof(gd_inferred_level, shared_from)},
            {"replacement", offsetof(gd_inferred_level, replacement_from)},
            {"broadcast", offsetof(gd_inferred_level, broadcast_from)},
            {"ways", offsetof(gd_inferred_level, ways_from)},
            {"line", offsetof(gd_inferred_level, alloc_line_from)},
            {"mshr", offsetof(gd_inferred_level, mshr_from)},
            {"mshr_merge", offsetof(gd_inferred_level, mshr_merge_from)},
            {"banks", offsetof(gd_inferred_level, banks_from)},
            {"hol", offsetof(gd_inferred_level, hol_from)},
            {"next_blocked", offsetof(gd_inferred_level, next_blocked_from)},
        };
        for (size_t f = 0; f < sizeof froms / sizeof froms[0]; f++) {
            const char *v = json_string_value(json_object_get(from, froms[f].key));
            if (v)
                snprintf((char *)l + froms[f].offset, 64, "%s", v);
        }
    }
    if (gd_store_from_json(json_object_get(doc, "store"), &inf->store, err) != 0)
        return gd_fail_prefix(err, "%s", path);
    return 0;
}

json_t *gd_segmentation_to_json(const gd_segmentation *seg)
{
    json_t *o = json_object();
    json_t *plateaus = json_array(), *knees = json_array();
    for (size_t i = 0; i < seg->plateau_count; i++) {
        const gd_plateau *p = &seg->plateaus[i];
        json_t *j = json_object();
        json_object_set_new(j, "level", json_real(p->level));
        json_object_set_new(j, "x_first", json_real(p->x_first));
        json_object_set_new(j, "x_last", json_real(p->x_last));
        json_object_set_new(j, "points", json_integer((json_int_t)(p->last - p->first + 1)));
        json_object_set_new(j, "spread", json_real(p->spread));
        json_object_set_new(j, "confidence", json_real(p->confidence));
        json_array_append_new(plateaus, j);
    }
    for (size_t i = 0; i < seg->knee_count; i++) {
        const gd_knee *k = &seg->knees[i];
        json_t *j = json_object();
        json_object_set_new(j, "x_below", json_real(k->x_below));
        json_object_set_new(j, "x_above", json_real(k->x_above));
        json_object_set_new(j, "confidence", json_real(k->confidence));
        json_array_append_new(knees, j);
    }
    json_object_set_new(o, "plateaus", plateaus);
    json_object_set_new(o, "knees", knees);
    json_object_set_new(o, "noise_scale", json_real(seg->noise_scale));
    return o;
}
