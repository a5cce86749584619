/* compare.c -- a measured hierarchy held against an arch file.
 *
 * Two views, written to results/RUN/compare.json:
 *   - per parameter (L1D.size_bytes, L1D.line_bytes, L1D.latency_cycles, L2...,
 *     DRAM.latency_cycles, TLB coverages when the arch has TLBs): measured,
 *     expected (what the analytical model says the probe measures on this arch),
 *     published (the arch file's value, with the source its comment cites),
 *     error, and a verdict: match within the tolerance, mismatch, or not measured;
 *   - per plateau of each modelled curve: the residual of the measured mean
 *     against the model's mean at the plateau's points.
 *
 * Tolerances: a capacity within one line of the arch's line (the sweep's knee
 * is as fine as its stride; a capacity off by more is a different cache); a
 * fetch granularity exactly; a latency within max(1 cycle, 2%) -- the timer
 * resolution, and the spread of repeated measurements on a card.
 */
#include "analysis/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare_l1.h"
#include "analysis/compare_rows.h"
#include "analysis/compare_carveout.h"
#include "analysis/model.h"



static void compare_cache_level(json_t *params, gd_compare_counts *c, const gd_arch *arch, gd_level_id id,
                                const gd_inferred_level *m)
{
    const gd_arch_level *l = &arch->level[id];
    const char *name = gd_level_name(id);
    gd_compare_add_parameter(params, c, name, "size_bytes", m->present && m->has_size, (double)m->size_bytes,
                  (double)l->size_bytes, l->line_bytes, (double)l->size_bytes,
                  gd_arch_source_of(arch, name, "size"));
    int sectored = l->sector_bytes && l->sector_bytes != l->line_bytes;
    double fetch = sectored ? l->sector_bytes : l->line_bytes;
    gd_compare_add_parameter(params, c, name, "line_bytes", m->present && m->has_line, (double)m->line_bytes,
                  fetch, 0, fetch, gd_arch_source_of(arch, name, sectored ? "sector" : "line"));
    gd_compare_add_parameter(params, c, name, "latency_cycles", m->present && m->has_latency,
                  m->latency_cycles, l->latency_cycles, gd_compare_latency_tolerance(l->latency_cycles),
                  l->latency_cycles, gd_arch_source_of(arch, name, "latency"));
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
        gd_compare_add_parameter(params, c, "L1C", "latency_cycles", m1->present && m1->has_latency,
                      m1->latency_cycles, l1->latency_cycles,
                      gd_compare_latency_tolerance(l1->latency_cycles), l1->latency_cycles,
                      gd_arch_source_of(arch, "L1C", "latency"));
        const char *mr = m1->replacement_lru_or_fifo ? "lru-or-fifo"
                                                     : gd_replacement_name(m1->replacement);
        const char *er = l1->replacement == GD_REPL_RANDOM ? "random" : "lru-or-fifo";
        gd_compare_add_categorical(params, c, "L1C", "replacement", m1->present && m1->has_replacement, mr,
                        er, gd_arch_source_of(arch, "L1C", "replacement"));
    }
    if (l1->present && cstride)
        gd_compare_add_parameter(params, c, "L1C", "line_bytes", m1->present && m1->has_line,
                      (double)m1->line_bytes, l1->line_bytes, 0, l1->line_bytes,
                      gd_arch_source_of(arch, "L1C", "line"));
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
            gd_compare_add_parameter(params, c, "L15C", "line_bytes", m15->present && m15->has_line,
                          (double)m15->line_bytes, own->line_bytes, 0, own->line_bytes,
                          gd_arch_source_of(arch, own_name, "line"));
        if (cseq)
            gd_compare_add_parameter(params, c, "L15C", "latency_cycles", m15->present && m15->has_latency,
                          m15->latency_cycles, l15->latency_cycles,
                          gd_compare_latency_tolerance(l15->latency_cycles), l15->latency_cycles,
                          gd_arch_source_of(arch, "L15C", "latency"));
        if (share)
            gd_compare_add_categorical(params, c, "L15C", "shared_with",
                            m15->present && m15->has_shared_with,
                            m15->shared_with >= 0 ? gd_inferred_level_name(m15->shared_with)
                                                  : "none",
                            l15->shared_with >= 0 ? gd_level_name(l15->shared_with) : "none",
                            gd_arch_source_of(arch, "L15C", "shared_with"));
        if (share && av)
            gd_compare_add_categorical(params, c, "L15C", "scope", m15->present && m15->has_scope,
                            scope_word(m15->scope), scope_word(own->scope),
                            gd_arch_source_of(arch, own_name, "scope"));
    }
    const gd_arch_level *l2c = &arch->level[GD_L2C];
    const gd_inferred_level *m2c = &inf->level[GD_INF_L2C];
    if (l2c->present && cseq)
        gd_compare_add_parameter(params, c, "L2C", "latency_cycles", m2c->present && m2c->has_latency,
                      m2c->latency_cycles, l2c->latency_cycles,
                      gd_compare_latency_tolerance(l2c->latency_cycles), l2c->latency_cycles,
                      gd_arch_source_of(arch, "L2C", "latency"));
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

/* Residuals of one modelled curve against its plateaus in inferred.json. */
static int curve_residuals(json_t *out, const gd_run *run, const gd_curve *curve,
                           const gd_arch *arch, gd_err *err)
{
    const char *probe = gd_probe_describe(curve->probe).name;
    static const char *const modelled[] = {"pchase",     "pchase_stride", "const_seq",
                                           "const_stride", "icache_seq", "const_bcast",
                                           "smem_bank",  "coalesce"};
    int has_model = 0;
    for (size_t m = 0; m < sizeof modelled / sizeof modelled[0]; m++)
        has_model |= !strcmp(probe, modelled[m]);
    if (!has_model)
        return 0; /* no analytical model */
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
    if (gd_model_curve(arch, probe, &curve->opts, xs, bases, n, model, err) != 0)
        goto out;
    size_t pi;
    const json_t *p;
    json_array_foreach(plateaus, pi, p) {
        double x0 = json_number_value(json_object_get(p, "x_first"));
        double x1 = json_number_value(json_object_get(p, "x_last"));
        double sum = 0, sq = 0, worst = 0;
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if ((double)xs[i] < x0 || (double)xs[i] > x1)
                continue;
            const gd_summary *s = gd_point_summary(&curve->points[i], gd_probe_primary_series(curve->probe));
            if (!s)
                continue;
            double r = s->mean - model[i].mean_cycles;
            sum += r;
            sq += r * r;
            if (fabs(r) > worst)
                worst = fabs(r);
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
    compare_cache_level(params, &c, arch, GD_L1D, &inf->level[GD_INF_L1D]);
    gd_compare_carveout(params, &c, arch, run);
    gd_compare_l1_path(params, &c, arch, run);
    compare_cache_level(params, &c, arch, GD_L2, &inf->level[GD_INF_L2]);
    const gd_inferred_level *l2m = &inf->level[GD_INF_L2];
    if (l2m->has_scope)
        gd_compare_add_categorical(params, &c, "L2", "scope", 1, scope_word(l2m->scope),
                        scope_word(arch->level[GD_L2].scope), gd_arch_source_of(arch, "L2", "scope"));
    const gd_inferred_level *dram = &inf->level[GD_INF_DRAM];
    gd_compare_add_parameter(params, &c, "DRAM", "latency_cycles", dram->present && dram->has_latency,
                  dram->latency_cycles, arch->level[GD_DRAM].latency_cycles,
                  gd_compare_latency_tolerance(arch->level[GD_DRAM].latency_cycles),
                  arch->level[GD_DRAM].latency_cycles, gd_arch_source_of(arch, "DRAM", "latency"));
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
    json_object_set_new(doc, "parameters", params);
    json_t *residuals = json_array();
    for (size_t i = 0; i < run->curve_count; i++)
        if (curve_residuals(residuals, run, &run->curves[i], arch, err) != 0) {
            json_decref(residuals);
            json_decref(doc);
            return -1;
        }
    json_object_set_new(doc, "residuals", residuals);
    json_t *summary = json_object();
    json_object_set_new(summary, "match", json_integer(c.match));
    json_object_set_new(summary, "mismatch", json_integer(c.mismatch));
    json_object_set_new(summary, "not_measured", json_integer(c.not_measured));
    json_object_set_new(doc, "summary", summary);
    *out = doc;
    return 0;
}
