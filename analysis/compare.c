/* compare.c -- a measured hierarchy held against an arch file.
 *
 * Three views, written to results/RUN/compare.json:
 *   - per parameter (L1D.size_bytes, L1D.sector_bytes, L1D.line_bytes,
 *     L1D.latency_cycles, L2..., DRAM.latency_cycles, TLB coverages when the arch
 *     has TLBs): measured, expected (what the analytical model says the probe
 *     measures on this arch -- not always the arch's figure: a global load is
 *     used no sooner than 2 cycles after it issues), published (the arch file's
 *     value, with the source its comment cites), error, tolerance, a verdict
 *     (match, mismatch, not measured) and a note where the model expects
 *     something else than the arch's figure or nothing could measure it.  Line
 *     and sector are separate rows: a stride sweep measures the fetch
 *     granularity (the sector), the coalescer the L1D's allocation line, and no
 *     probe the L2's;
 *   - per plateau of each modelled curve: the residuals against the model, with
 *     a tolerance and a verdict; a model known to be approximate says so and
 *     states its error;
 *   - per curve, whether its plateaus describe it (plateau_fit.c), which the
 *     report and the plots follow.
 *
 * Tolerances (compare_rows.c): a capacity within one line of the arch's line
 * (the sweep's knee is as fine as its stride; a capacity off by more is a
 * different cache); a line or sector exactly; a latency within half a cycle +
 * 2% + three standard errors of the measured level.
 */
#include "analysis/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare_l1.h"
#include "analysis/compare_below_l1.h"
#include "analysis/compare_store.h"
#include "analysis/compare_rows.h"
#include "analysis/compare_carveout.h"
#include "analysis/model.h"
#include "analysis/model_icache.h"
#include "analysis/plateau_fit.h"
#include "analysis/stats.h"



/* The standard error of the plateau a level's latency was read from (its
 * spread over the square root of its points), or 0 when none is recorded. */
static double latency_noise(const gd_run *run, const gd_inferred_level *m)
{
    if (!m->has_latency || !m->latency_from[0])
        return 0;
    const json_t *cinfo = json_object_get(json_object_get(run->inferred_doc, "curves"), m->latency_from);
    size_t i;
    const json_t *p;
    json_array_foreach(json_object_get(cinfo, "plateaus"), i, p) {
        double level = json_number_value(json_object_get(p, "level"));
        double spread = json_number_value(json_object_get(p, "spread"));
        double points = json_number_value(json_object_get(p, "points"));
        if (fabs(level - m->latency_cycles) < 1e-6 && points >= 1)
            return spread / sqrt(points);
    }
    return 0;
}

/* A latency row: expected is what the model says a chase measures (which can
 * differ from the arch's figure: the load path's pipeline floor), published
 * the arch's figure with its source. */
static void compare_latency(json_t *params, gd_compare_counts *c, const gd_run *run, const gd_arch *arch,
                            gd_level_id id, const char *name, const gd_inferred_level *m)
{
    double published = arch->level[id].latency_cycles;
    double expected = gd_model_hit_cycles(arch, id);
    gd_compare_add_parameter(params, c, name, "latency_cycles", m->present && m->has_latency,
                             m->latency_cycles, expected,
                             gd_compare_tolerance(expected, GD_TOLERANCE_FLOOR_CYCLES,
                                                  latency_noise(run, m)),
                             published, gd_arch_source_of(arch, name, "latency"));
    if (expected != published)
        gd_compare_note(params,
                        "the model expects %g, not the arch's %g: a global load is used at the "
                        "earliest %g cycles after it issues (one cycle into the L1 request "
                        "FIFO, one at the tags; README \"Verdicts\")",
                        expected, published, GD_MODEL_LOAD_PIPELINE_CYCLES);
}

/* The fetch granularity a stride sweep measures: the arch's sector, or its
 * line where the level is not sectored, with that key's source. */
static void compare_sector(json_t *params, gd_compare_counts *c, const gd_arch *arch,
                           const gd_arch_level *l, const char *name, const char *owner,
                           const gd_inferred_level *m)
{
    int sectored = l->sector_bytes && l->sector_bytes != l->line_bytes;
    double fetch = sectored ? l->sector_bytes : l->line_bytes;
    gd_compare_add_parameter(params, c, name, "sector_bytes", m->present && m->has_sector,
                             (double)m->sector_bytes, fetch, 0, fetch,
                             gd_arch_source_of(arch, owner, sectored ? "sector" : "line"));
    if (!sectored)
        gd_compare_note(params, "not sectored in the arch: the fetch granularity is the line");
}

static void compare_cache_level(json_t *params, gd_compare_counts *c, const gd_run *run,
                                const gd_arch *arch, gd_level_id id, const gd_inferred_level *m)
{
    const gd_arch_level *l = &arch->level[id];
    const char *name = gd_level_name(id);
    /* within a line, or within the resolution the inference states (a fitted
     * random L2, a knee extrapolated under noise) where that is wider */
    double tolerance = (double)l->line_bytes;
    if (m->has_size && (double)m->size_resolution_bytes > tolerance)
        tolerance = (double)m->size_resolution_bytes;
    gd_compare_add_parameter(params, c, name, "size_bytes", m->present && m->has_size, (double)m->size_bytes,
                  (double)l->size_bytes, tolerance, (double)l->size_bytes,
                  gd_arch_source_of(arch, name, "size"));
    compare_sector(params, c, arch, l, name, name, m);
    if (id == GD_L2) {
        /* the L1D's line is compared by compare_l1.c, from the coalescer */
        gd_compare_add_parameter(params, c, name, "line_bytes", 0, 0, l->line_bytes, 0,
                                 l->line_bytes, gd_arch_source_of(arch, name, "line"));
        gd_compare_note(params, "no probe sees the L2's allocation line: footprint and stride "
                                "sweeps see bytes and sectors, and the coalescer that counts "
                                "lines sits at the L1");
    }
    compare_latency(params, c, run, arch, id, name, m);
}

static const char *scope_word(gd_scope s)
{
    return gd_scope_name(s);
}


/* The instruction and constant levels (Jia et al. 2019 sec. 3.3-3.4). */
static void compare_icache_const(json_t *params, gd_compare_counts *c, const gd_arch *arch,
                                 const gd_run *run)
{
    const gd_inference *inf = &run->inferred;
    int seq = gd_compare_run_probed(run, "icache_seq"), av = gd_compare_run_probed(run, "icache_av");
    int cseq = gd_compare_run_probed(run, "const_seq"), cstride = gd_compare_run_probed(run, "const_stride");
    int bcast = gd_compare_run_probed(run, "const_bcast"), share = gd_compare_run_probed(run, "const_icache_share");
    static const struct {
        gd_level_id arch;
        gd_inferred_name inf;
    } icaches[] = {{GD_L0I, GD_INF_L0I}, {GD_L1I, GD_INF_L1I}, {GD_L15I, GD_INF_L15I}};
    for (size_t i = 0; i < sizeof icaches / sizeof icaches[0]; i++) {
        const gd_arch_level *l = &arch->level[icaches[i].arch];
        const gd_inferred_level *m = &inf->level[icaches[i].inf];
        if (!l->present)
            continue;
        const char *name = gd_level_name(icaches[i].arch);
        if (seq)
            gd_compare_add_parameter(params, c, name, "size_bytes",
                          m->present && m->has_size && !m->size_is_lower_bound,
                          (double)m->size_bytes, (double)l->size_bytes, l->line_bytes,
                          (double)l->size_bytes, gd_arch_source_of(arch, name, "size"));
        if (av)
            gd_compare_add_categorical(params, c, name, "scope", m->present && m->has_scope,
                            scope_word(m->scope), scope_word(l->scope),
                            gd_arch_source_of(arch, name, "scope"));
    }
    const gd_arch_level *l1 = &arch->level[GD_L1C];
    const gd_inferred_level *m1 = &inf->level[GD_INF_L1C];
    if (l1->present && cseq) {
        gd_compare_add_parameter(params, c, "L1C", "size_bytes",
                      m1->present && m1->has_size && !m1->size_is_lower_bound,
                      (double)m1->size_bytes, (double)l1->size_bytes, l1->line_bytes,
                      (double)l1->size_bytes, gd_arch_source_of(arch, "L1C", "size"));
        compare_latency(params, c, run, arch, GD_L1C, "L1C", m1);
    }
    /* the replacement: a one-set lap (const_fine policy) names it; the scan's
     * hit share past the capacity tells random from "LRU or FIFO" only */
    int cfine = gd_compare_run_probed(run, "const_fine");
    if (l1->present && (cseq || cfine)) {
        int exact = m1->has_replacement && !m1->replacement_lru_or_fifo && cfine;
        const char *mr = m1->replacement_lru_or_fifo ? "lru-or-fifo"
                                                     : gd_replacement_name(m1->replacement);
        const char *er = exact || cfine ? gd_replacement_name(l1->replacement)
                         : l1->replacement == GD_REPL_RANDOM ? "random"
                                                             : "lru-or-fifo";
        gd_compare_add_categorical(params, c, "L1C", "replacement", m1->present && m1->has_replacement, mr,
                        er, gd_arch_source_of(arch, "L1C", "replacement"));
    }
    if (l1->present && cfine)
        gd_compare_add_parameter(params, c, "L1C", "ways",
                                 m1->present && m1->has_ways && !m1->ways_is_lower_bound, m1->ways,
                                 l1->ways, 0, l1->ways, gd_arch_source_of(arch, "L1C", "ways"));
    if (l1->present && cstride)
        compare_sector(params, c, arch, l1, "L1C", "L1C", m1);
    if (l1->present && bcast) {
        /* the constant path serves k distinct addresses one lookup at a time */
        gd_compare_add_categorical(params, c, "L1C", "uniform_broadcast", m1->present && m1->has_broadcast,
                        m1->broadcast ? "yes" : "no", "yes",
                        "Jia et al. 2019 sec. 3.4: warp-uniform addresses broadcast, distinct "
                        "ones serialize (every GPU examined)");
        gd_compare_add_parameter(params, c, "L1C", "cycles_per_distinct_address",
                      m1->present && m1->has_broadcast, m1->per_address_cycles,
                      l1->latency_cycles, gd_compare_latency_tolerance(l1->latency_cycles),
                      l1->latency_cycles, gd_arch_source_of(arch, "L1C", "latency"));
    }
    const gd_arch_level *l15 = &arch->level[GD_L15C];
    const gd_inferred_level *m15 = &inf->level[GD_INF_L15C];
    if (l15->present) {
        const gd_arch_level *own = l15->shared_with >= 0 ? &arch->level[l15->shared_with] : l15;
        const char *own_name = l15->shared_with >= 0 ? gd_level_name(l15->shared_with) : "L15C";
        if (cseq)
            gd_compare_add_parameter(params, c, "L15C", "size_bytes",
                          m15->present && m15->has_size && !m15->size_is_lower_bound,
                          (double)m15->size_bytes, (double)own->size_bytes, own->line_bytes,
                          (double)own->size_bytes, gd_arch_source_of(arch, own_name, "size"));
        if (cstride)
            compare_sector(params, c, arch, own, "L15C", own_name, m15);
        if (cseq)
            compare_latency(params, c, run, arch, GD_L15C, "L15C", m15);
        if (share)
            gd_compare_add_categorical(params, c, "L15C", "shared_with",
                            m15->present && m15->has_shared_with,
                            m15->shared_with >= 0 ? gd_inferred_level_name(m15->shared_with)
                                                  : "none",
                            l15->shared_with >= 0 ? gd_level_name(l15->shared_with) : "none",
                            gd_arch_source_of(arch, "L15C", "shared_with"));
        /* a separate L1.5's own scope: const_av's attackers */
        int cav = gd_compare_run_probed(run, "const_av") && l15->shared_with < 0;
        if ((share && av) || cav)
            gd_compare_add_categorical(params, c, "L15C", "scope", m15->present && m15->has_scope,
                            scope_word(m15->scope), scope_word(own->scope),
                            gd_arch_source_of(arch, own_name, "scope"));
    }
    const gd_arch_level *l2c = &arch->level[GD_L2C];
    const gd_inferred_level *m2c = &inf->level[GD_INF_L2C];
    if (l2c->present && cseq)
        compare_latency(params, c, run, arch, GD_L2C, "L2C", m2c);
}

/* The level inference named at `level` cycles from curve `label`, or NULL. */
static const char *level_name_of(const gd_run *run, const char *label, double level)
{
    size_t i;
    const json_t *l;
    json_array_foreach(json_object_get(run->inferred_doc, "levels"), i, l) {
        const json_t *from = json_object_get(json_object_get(l, "from"), "latency");
        const json_t *lat = json_object_get(l, "latency_cycles");
        if (json_is_string(from) && !strcmp(json_string_value(from), label) &&
            json_is_number(lat) && fabs(json_number_value(lat) - level) < 1e-6)
            return json_string_value(json_object_get(l, "name"));
    }
    return NULL;
}

/* The analytical models and what they promise.  `floor` is the resolution of
 * the curve's unit (half a cycle; a CPI is a whole loop's cycles over its
 * instructions, so its resolution is far finer, but the clock reads around it
 * are not: 0.02 CPI).  An exact model has no error of its own; an approximate
 * one states its expected relative error and why. */
typedef struct residual_model {
    const char *probe;
    double floor;
    double model_relative; /* the model's own expected error, relative */
    const char *approximate; /* why the model is approximate, or NULL: exact */
} residual_model;

static const residual_model residual_models[] = {
    {"pchase", GD_TOLERANCE_FLOOR_CYCLES, 0, NULL},
    {"pchase_stride", GD_TOLERANCE_FLOOR_CYCLES, 0, NULL},
    {"pchase_page", GD_TOLERANCE_FLOOR_CYCLES, 0, NULL},
    {"const_seq", GD_TOLERANCE_FLOOR_CYCLES, 0, NULL},
    {"const_stride", GD_TOLERANCE_FLOOR_CYCLES, 0, NULL},
    {"icache_seq", 0.02, MODEL_ICACHE_RELATIVE_ERROR,
     "approximate: one steady-state pass of demand misses and prefetches; within (prefetch + 1) "
     "first-level lines below a capacity it cannot tell which side of the knee a loop falls, "
     "and those points are not held to it (README \"Verdicts\")"},
    {"const_bcast", GD_TOLERANCE_FLOOR_CYCLES, 0, NULL},
    {"smem_bank", GD_TOLERANCE_FLOOR_CYCLES, 0, NULL},
    {"coalesce", GD_TOLERANCE_FLOOR_CYCLES, 0, NULL},
};

/* A chase through a randomly replacing level: the model's hit rate there is a
 * mean-field fixed point (model.c), not the exact expectation. */
#define MODEL_RANDOM_RELATIVE_ERROR 0.05
static const residual_model random_chase = {
    NULL, GD_TOLERANCE_FLOOR_CYCLES, MODEL_RANDOM_RELATIVE_ERROR,
    "approximate: under random replacement the hit rate is a mean-field fixed point "
    "(README \"Verdicts\")"};

static int chase_through_random(const gd_arch *arch, const char *probe, const gd_probe_opts *opts)
{
    static const gd_level_id data[] = {GD_L1D, GD_L2}, constant[] = {GD_L1C, GD_L15C};
    int is_const = !strncmp(probe, "const_", 6);
    if (strcmp(probe, "pchase") && strcmp(probe, "pchase_stride") && strcmp(probe, "const_seq") &&
        strcmp(probe, "const_stride"))
        return 0;
    for (size_t i = 0; i < 2; i++) {
        gd_level_id id = is_const ? constant[i] : data[i];
        if (id == GD_L1D && !strcmp(opts->variant, "cg"))
            continue;
        const gd_arch_level *l = &arch->level[id];
        if (l->present && l->shared_with >= 0)
            l = &arch->level[l->shared_with];
        if (l->present && l->replacement == GD_REPL_RANDOM)
            return 1;
    }
    return 0;
}

/* Does the model say one level serves every access of this point? */
static int model_pure(const gd_model_point *m)
{
    if (m->levels == 0)
        return 1; /* a model that does not split by level: one value per point */
    for (size_t l = 0; l < m->levels && l < GD_MODEL_MAX_LEVELS; l++)
        if (m->fraction[l] >= 0.999)
            return 1;
    return 0;
}

/* How far a timer's rare outliers lift this run's means: the median, over the
 * points one level serves, of mean - median (positive part).  Outliers are
 * delays (a card's interrupts, the sim's noise.outlier_rate): one-sided, so
 * they bias a mean rather than widen it; 0 on a noiseless run. */
static double outlier_bias(const gd_curve *curve, const gd_model_point *model, size_t n)
{
    double *lift = malloc((n ? n : 1) * sizeof *lift);
    if (!lift)
        return 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const gd_summary *s = gd_point_summary(&curve->points[i], gd_probe_primary_series(curve->probe));
        if (s && s->count && model_pure(&model[i]))
            lift[k++] = fmax(0, s->mean - s->median);
    }
    double b = k ? gd_median_in_place(lift, k) : 0;
    free(lift);
    return b;
}

/* The residual a verdict is given on.  Where one level serves the point, its
 * median against the model (the median ignores outliers; every access costs
 * the same).  Where the model mixes levels, the median is one of them and
 * says nothing: the mean, less the run's outlier bias. */
static double pure_or_mixed_offset(const gd_model_point *m, const gd_summary *s, double bias)
{
    if (model_pure(m))
        return fabs(s->median - m->mean_cycles);
    return fabs(s->mean - bias - m->mean_cycles);
}

/* Residuals of one modelled curve against its plateaus in inferred.json, each
 * with a verdict: every point of the plateau within its tolerance of the model
 * (the floor, 2% of the model, three standard errors of the point's own
 * samples, and an approximate model's stated error), by its median where
 * one level serves it, by its mean less the run's outlier bias where the model
 * mixes levels.  The residual statistics themselves (mean, RMS, max) are of
 * the points' means. */
static int curve_residuals(json_t *out, gd_compare_counts *verdicts, const gd_run *run,
                           const gd_curve *curve, const gd_arch *arch, gd_err *err)
{
    const char *probe = gd_probe_describe(curve->probe).name;
    const residual_model *rm = NULL;
    for (size_t m = 0; m < sizeof residual_models / sizeof residual_models[0]; m++)
        if (!strcmp(probe, residual_models[m].probe))
            rm = &residual_models[m];
    if (!rm)
        return 0; /* no analytical model */
    if (chase_through_random(arch, probe, &curve->opts))
        rm = &random_chase;
    const json_t *cinfo = json_object_get(json_object_get(run->inferred_doc, "curves"), curve->label);
    const json_t *plateaus = json_object_get(cinfo, "plateaus");
    if (!json_is_array(plateaus) || curve->count == 0)
        return 0;
    size_t n = curve->count;
    uint64_t *xs = malloc(n * sizeof *xs), *bases = malloc(n * sizeof *bases);
    gd_model_point *model = malloc(n * sizeof *model);
    int rc = -1;
    if (!xs || !bases || !model) {
        gd_fail(err, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        xs[i] = curve->points[i].x;
        const gd_summary *b = gd_point_summary(&curve->points[i], "chain_base");
        bases[i] = b ? (uint64_t)b->mean : 0;
    }
    /* a curve of a `--carveout` step ran with the L1D its preference gives:
     * modelled with that L1D, not the arch's default split */
    int carveout = -1;
    size_t ei;
    const json_t *e;
    json_array_foreach(json_object_get(run->meta, "probes"), ei, e) {
        const char *csv = json_string_value(json_object_get(e, "csv"));
        const json_t *pct = json_object_get(e, "carveout_percent");
        if (csv && !strcmp(csv, curve->label) && json_is_integer(pct))
            carveout = (int)json_integer_value(pct);
    }
    if (carveout >= 0 && !strcmp(probe, "pchase")) {
        for (size_t i = 0; i < n; i++)
            if (gd_model_pchase_carveout(arch, &curve->opts, xs[i], bases[i], carveout, 0,
                                         &model[i], err) != 0)
                goto out;
    } else if (gd_model_curve(arch, probe, &curve->opts, xs, bases, n, model, err) != 0) {
        goto out;
    }
    double bias = outlier_bias(curve, model, n);
    size_t pi;
    const json_t *p;
    json_array_foreach(plateaus, pi, p) {
        double x0 = json_number_value(json_object_get(p, "x_first"));
        double x1 = json_number_value(json_object_get(p, "x_last"));
        double sum = 0, sq = 0, worst = 0, worst_x = 0, worst_tol = 0, worst_excess = -INFINITY;
        size_t k = 0, outside = 0, near_knee = 0;
        for (size_t i = 0; i < n; i++) {
            if ((double)xs[i] < x0 || (double)xs[i] > x1)
                continue;
            const gd_summary *s = gd_point_summary(&curve->points[i], gd_probe_primary_series(curve->probe));
            if (!s)
                continue;
            double r = s->mean - model[i].mean_cycles;
            double se = s->count > 1 ? s->stddev / sqrt((double)s->count) : 0;
            double tol = gd_compare_tolerance(model[i].mean_cycles, rm->floor, se) +
                         rm->model_relative * fabs(model[i].mean_cycles);
            /* the verdict's residual (pure_or_mixed_offset) */
            double off = pure_or_mixed_offset(&model[i], s, bias);
            if (!strcmp(probe, "icache_seq") && gd_model_icache_near_knee(arch, xs[i])) {
                near_knee++; /* the model cannot tell which side of the knee: */
                continue;    /* neither in the verdict nor in the statistics */
            }
            sum += r;
            sq += r * r;
            if (fabs(r) > worst)
                worst = fabs(r);
            if (off > tol + 1e-9)
                outside++;
            if (off - tol > worst_excess) {
                worst_excess = off - tol;
                worst_x = (double)xs[i];
                worst_tol = tol;
            }
            k++;
        }
        json_t *o = json_object();
        json_object_set_new(o, "curve", json_string(curve->label));
        json_object_set_new(o, "plateau", json_integer((json_int_t)pi));
        json_object_set_new(o, "level_cycles", json_object_get(p, "level")
                                                   ? json_deep_copy(json_object_get(p, "level"))
                                                   : json_null());
        const char *name = level_name_of(run, curve->label,
                                         json_number_value(json_object_get(p, "level")));
        json_object_set_new(o, "level", name ? json_string(name) : json_null());
        json_object_set_new(o, "x_first", json_real(x0));
        json_object_set_new(o, "x_last", json_real(x1));
        json_object_set_new(o, "points", json_integer((json_int_t)k));
        json_object_set_new(o, "mean_residual", k ? json_real(sum / (double)k) : json_null());
        json_object_set_new(o, "rms_residual", k ? json_real(sqrt(sq / (double)k)) : json_null());
        json_object_set_new(o, "max_abs_residual", k ? json_real(worst) : json_null());
        /* the point nearest to (or furthest past) its tolerance */
        json_object_set_new(o, "tolerance", k ? json_real(worst_tol) : json_null());
        json_object_set_new(o, "worst_x", k ? json_real(worst_x) : json_null());
        json_object_set_new(o, "points_outside", json_integer((json_int_t)outside));
        if (near_knee)
            json_object_set_new(o, "points_near_knee", json_integer((json_int_t)near_knee));
        json_object_set_new(o, "model", json_string(rm->approximate ? "approximate" : "exact"));
        if (rm->approximate) {
            json_object_set_new(o, "model_relative_error", json_real(rm->model_relative));
            json_object_set_new(o, "note", json_string(rm->approximate));
        }
        const char *verdict = !k ? "not measured" : outside ? "mismatch" : "match";
        if (!k)
            verdicts->not_measured++;
        else if (outside)
            verdicts->mismatch++;
        else
            verdicts->match++;
        json_object_set_new(o, "verdict", json_string(verdict));
        json_array_append_new(out, o);
    }
    rc = 0;
out:
    free(xs);
    free(bases);
    free(model);
    return rc;
}

int gd_compare_run(const gd_run *run, const gd_arch *arch, json_t **out, gd_err *err)
{
    *out = NULL;
    if (!run->inferred_doc)
        return gd_fail(err, "%s: no inferred.json to compare (run `gpudissect characterize`)",
                       run->dir);
    json_t *doc = json_object();
    json_object_set_new(doc, "arch", json_string(arch->name));
    json_object_set_new(doc, "arch_file", json_string(arch->path));
    json_t *params = json_array();
    gd_compare_counts c = {0};
    const gd_inference *inf = &run->inferred;
    compare_icache_const(params, &c, arch, run);
    compare_cache_level(params, &c, run, arch, GD_L1D, &inf->level[GD_INF_L1D]);
    gd_compare_carveout(params, &c, arch, run);
    gd_compare_l1_path(params, &c, arch, run);
    compare_cache_level(params, &c, run, arch, GD_L2, &inf->level[GD_INF_L2]);
    const gd_inferred_level *l2m = &inf->level[GD_INF_L2];
    if (l2m->has_scope)
        gd_compare_add_categorical(params, &c, "L2", "scope", 1, scope_word(l2m->scope),
                        scope_word(arch->level[GD_L2].scope), gd_arch_source_of(arch, "L2", "scope"));
    const gd_inferred_level *dram = &inf->level[GD_INF_DRAM];
    compare_latency(params, &c, run, arch, GD_DRAM, "DRAM", dram);
    static const struct {
        gd_level_id arch_level;
        gd_inferred_name inferred;
    } tlbs[] = {{GD_TLB1, GD_INF_TLB1}, {GD_TLB2, GD_INF_TLB2}};
    for (size_t i = 0; i < sizeof tlbs / sizeof tlbs[0]; i++) {
        const gd_arch_level *l = &arch->level[tlbs[i].arch_level];
        const gd_inferred_level *m = &inf->level[tlbs[i].inferred];
        if (!l->present)
            continue;
        const char *name = gd_level_name(tlbs[i].arch_level);
        gd_compare_add_parameter(params, &c, name, "size_bytes", m->present && m->has_size,
                      (double)m->size_bytes, (double)l->size_bytes, l->line_bytes,
                      (double)l->size_bytes, gd_arch_source_of(arch, name, "size"));
    }
    gd_compare_below_l1(params, &c, arch, run);
    gd_compare_store(params, &c, arch, run);
    json_object_set_new(doc, "parameters", params);
    json_t *residuals = json_array();
    gd_compare_counts rv = {0};
    for (size_t i = 0; i < run->curve_count; i++)
        if (curve_residuals(residuals, &rv, run, &run->curves[i], arch, err) != 0) {
            json_decref(residuals);
            json_decref(doc);
            return -1;
        }
    json_object_set_new(doc, "residuals", residuals);
    /* whether each curve's plateaus describe it: the report lists, and the
     * plots label, only those that do (plateau_fit.c) */
    json_t *segs = json_object();
    for (size_t i = 0; i < run->curve_count; i++) {
        const gd_curve *cv = &run->curves[i];
        const json_t *info = json_object_get(json_object_get(run->inferred_doc, "curves"), cv->label);
        if (!info)
            continue;
        char why[200];
        json_t *o = json_object();
        int ok = gd_plateau_fit(cv, info, why, sizeof why);
        json_object_set_new(o, "segmented", json_boolean(ok));
        if (!ok)
            json_object_set_new(o, "why", json_string(why));
        json_object_set_new(o, "unit", json_string(gd_plateau_unit(gd_probe_describe(cv->probe).name)));
        json_object_set_new(segs, cv->label, o);
    }
    json_object_set_new(doc, "segmentations", segs);
    json_t *summary = json_object();
    json_object_set_new(summary, "match", json_integer(c.match));
    json_object_set_new(summary, "mismatch", json_integer(c.mismatch));
    json_object_set_new(summary, "not_measured", json_integer(c.not_measured));
    json_object_set_new(summary, "residuals_match", json_integer(rv.match));
    json_object_set_new(summary, "residuals_mismatch", json_integer(rv.mismatch));
    json_object_set_new(doc, "summary", summary);
    *out = doc;
    return 0;
}
