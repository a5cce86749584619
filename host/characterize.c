/* characterize.c -- the main job: a suite of sweeps, then analysis, comparison,
 * plots and a report, in one results directory.
 *
 *   1. run each step of the suite (bench/suites/NAME.suite) on the device,
 *      adaptively where the step says so; every point lands in LABEL.csv at once;
 *   2. segment each curve into plateaus and knees and infer the hierarchy
 *      (latencies, capacities, fetch granularities) -> inferred.json;
 *   3. hold it against an arch file -> compare.json;
 *   4. plots/LABEL.{png,svg} with the model overlaid, and report.md.
 *
 * Steps 3 and 4 read the results directory back, exactly as `gpudissect
 * compare`, `plot` and `report` do on their own.
 */
#include "host/characterize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/curve_samples.h"
#include "analysis/figures.h"
#include "analysis/infer.h"
#include "analysis/infer_access.h"
#include "analysis/infer_l2_policy.h"
#include "analysis/report.h"
#include "analysis/run_load.h"
#include "host/adaptive.h"
#include "host/checkpoint.h"
#include "host/interrupt.h"
#include "host/meta.h"
#include "analysis/infer_carveout.h"
#include "analysis/infer_tlb.h"
#include "analysis/infer_bandwidth.h"
#include "analysis/infer_l2_slice.h"
#include "analysis/infer_dram.h"
#include "analysis/results.h"
#include "host/runner.h"

/* Copies the fields of `from` that `into` does not have yet (first curve wins;
 * a measured size replaces a lower bound). */
static void merge_inference(gd_inference *into, const gd_inference *from)
{
    for (int i = 0; i < GD_INF_COUNT; i++) {
        const gd_inferred_level *f = &from->level[i];
        gd_inferred_level *t = &into->level[i];
        if (!f->present)
            continue;
        t->present = 1;
        if (f->has_size &&
            (!t->has_size || (t->size_is_lower_bound && !f->size_is_lower_bound))) {
            t->has_size = 1;
            t->size_is_lower_bound = f->size_is_lower_bound;
            t->size_bytes = f->size_bytes;
            t->size_confidence = f->size_confidence;
            t->knee_below = f->knee_below;
            t->knee_above = f->knee_above;
            t->size_resolution_bytes = f->size_resolution_bytes;
            memcpy(t->size_method, f->size_method, sizeof t->size_method);
            memcpy(t->size_from, f->size_from, sizeof t->size_from);
        }
        if (f->has_sector && !t->has_sector) {
            t->has_sector = 1;
            t->sector_bytes = f->sector_bytes;
            t->sector_confidence = f->sector_confidence;
            memcpy(t->sector_from, f->sector_from, sizeof t->sector_from);
        }
        if (f->has_latency && !t->has_latency) {
            t->has_latency = 1;
            t->latency_cycles = f->latency_cycles;
            t->latency_confidence = f->latency_confidence;
            memcpy(t->latency_from, f->latency_from, sizeof t->latency_from);
        }
        if (f->has_scope && !t->has_scope) {
            t->has_scope = 1;
            t->scope = f->scope;
            t->scope_confidence = f->scope_confidence;
            memcpy(t->scope_from, f->scope_from, sizeof t->scope_from);
        }
        if (f->has_shared_with && !t->has_shared_with) {
            t->has_shared_with = 1;
            t->shared_with = f->shared_with;
            t->shared_confidence = f->shared_confidence;
            memcpy(t->shared_from, f->shared_from, sizeof t->shared_from);
        }
        if (f->has_replacement && !t->has_replacement) {
            t->has_replacement = 1;
            t->replacement = f->replacement;
            t->replacement_lru_or_fifo = f->replacement_lru_or_fifo;
            t->replacement_confidence = f->replacement_confidence;
            memcpy(t->replacement_from, f->replacement_from, sizeof t->replacement_from);
        }
#define MERGE_FIELD(has, conf, from, ...)                                                    \
    if (f->has && !t->has) {                                                                  \
        t->has = 1;                                                                           \
        __VA_ARGS__;                                                                          \
        t->conf = f->conf;                                                                    \
        memcpy(t->from, f->from, sizeof t->from);                                             \
    }
        MERGE_FIELD(has_ways, ways_confidence, ways_from, t->ways = f->ways)
        MERGE_FIELD(has_alloc_line, alloc_line_confidence, alloc_line_from,
                    t->alloc_line_bytes = f->alloc_line_bytes)
        MERGE_FIELD(has_mshr, mshr_confidence, mshr_from, t->mshr_entries = f->mshr_entries;
                    t->mshr_is_lower_bound = f->mshr_is_lower_bound)
        MERGE_FIELD(has_mshr_merge, mshr_merge_confidence, mshr_merge_from,
                    t->mshr_merge = f->mshr_merge;
                    t->mshr_merge_is_lower_bound = f->mshr_merge_is_lower_bound)
        MERGE_FIELD(has_banks, banks_confidence, banks_from, t->banks = f->banks;
                    t->bank_width_bytes = f->bank_width_bytes;
                    t->conflict_cycles = f->conflict_cycles;
                    t->same_word_broadcast = f->same_word_broadcast)
        MERGE_FIELD(has_hol, hol_confidence, hol_from,
                    t->head_of_line_blocking = f->head_of_line_blocking)
        MERGE_FIELD(has_next_blocked, next_blocked_confidence, next_blocked_from,
                    t->next_instruction_blocked = f->next_instruction_blocked)
#undef MERGE_FIELD
        if (f->has_broadcast && !t->has_broadcast) {
            t->has_broadcast = 1;
            t->broadcast = f->broadcast;
            t->per_address_cycles = f->per_address_cycles;
            t->broadcast_confidence = f->broadcast_confidence;
            memcpy(t->broadcast_from, f->broadcast_from, sizeof t->broadcast_from);
        }
    }
}

static int build_sweep(const gd_suite_step *st, const gd_suite_vars *vars, uint64_t granularity,
                       gd_sweep *sweep, gd_err *err)
{
    uint64_t from, to, step = 0;
    if (gd_suite_eval(st->sweep_from, vars, &from, err) ||
        gd_suite_eval(st->sweep_to, vars, &to, err))
        return -1;
    char spec[160];
    if (!st->sweep_steps[0]) {
        snprintf(spec, sizeof spec, "%llu:%llu", (unsigned long long)from, (unsigned long long)to);
    } else if (st->sweep_steps[0] == '+') {
        if (gd_suite_eval(st->sweep_steps + 1, vars, &step, err))
            return -1;
        snprintf(spec, sizeof spec, "%llu:%llu:+%llu", (unsigned long long)from,
                 (unsigned long long)to, (unsigned long long)step);
    } else {
        snprintf(spec, sizeof spec, "%llu:%llu:%s", (unsigned long long)from,
                 (unsigned long long)to, st->sweep_steps);
    }
    return gd_sweep_parse(spec, granularity, sweep, err);
}

/* A step whose sizes need a level the steps before did not find (an L0I on a
 * GPU without one) is skipped, with the reason in meta.json; returns 1. */
static int skip_step(gd_characterize_ctx *ctx, const gd_suite_step *st, json_t *meta,
                     const char *why)
{
    json_t *entry = json_object();
    json_object_set_new(entry, "probe", json_string(st->probe->name));
    json_object_set_new(entry, "csv", json_string(st->label));
    json_object_set_new(entry, "suite_line", json_integer(st->line));
    json_object_set_new(entry, "skipped", json_string(why));
    json_array_append_new(json_object_get(meta, "probes"), entry);
    ctx->skipped_steps++;
    if (ctx->progress)
        fprintf(ctx->progress, "%s: skipped: %s\n", st->label, why);
    return 1;
}

/* A step that failed: the error goes to meta.json and the progress stream, and
 * the run goes on.  Points it measured before failing stay in its CSV, but no
 * curve of it is analysed. */
static void fail_step(gd_characterize_ctx *ctx, const gd_suite_step *st, json_t *meta,
                      const char *why)
{
    json_t *probes = json_object_get(meta, "probes");
    json_t *entry = NULL;
    size_t n = json_array_size(probes);
    /* the step may have appended its entry before it failed (analysis errors) */
    if (n) {
        json_t *last = json_array_get(probes, n - 1);
        const char *csv = json_string_value(json_object_get(last, "csv"));
        if (csv && !strcmp(csv, st->label))
            entry = last;
    }
    if (!entry) {
        entry = json_object();
        json_object_set_new(entry, "probe", json_string(st->probe->name));
        json_object_set_new(entry, "csv", json_string(st->label));
        json_object_set_new(entry, "suite_line", json_integer(st->line));
        json_array_append_new(probes, entry);
    }
    json_object_set_new(entry, "failed", json_string(why));
    ctx->failed_steps++;
    if (ctx->progress)
        fprintf(ctx->progress, "%s: failed: %s (the run goes on)\n", st->label, why);
}

static int unknown_variable(const gd_err *err)
{
    return strstr(err->msg, "not known yet") != NULL;
}

/* Runs one step; appends its meta entry and its curve analysis. */
int gd_infer_curve(gd_inference *run_inf, const gd_curve *curve, const gd_segmentation *seg,
                   const char *level, uint64_t l2_bytes_hint, int cc_major, int subpartitions,
                   const char *where, gd_err *err)
{
    const gd_probe *probe = curve->probe;
    int rc = 0;
    /* probes whose reading depends on what earlier steps found refine the
     * run's inference itself; the others start from nothing and are merged */
    const char *const refining[] = {"const_seq", "pchase_fine", "mshr", "resv_stall",
                                    "const_icache_share"};
    int refines = 0;
    for (size_t r = 0; r < sizeof refining / sizeof refining[0]; r++)
        refines |= !strcmp(probe->name, refining[r]);
    gd_inference step_inf;
    if (refines)
        step_inf = *run_inf;
    else
        memset(&step_inf, 0, sizeof step_inf);
    int bypass = !strcmp(curve->opts.variant, "cg");
    const char *pn = probe->name;
    if (!strcmp(pn, "pchase") && (!strcmp(level, "TLB1") || !strcmp(level, "TLB2"))) {
        /* the TLB steps (issue 12) refine the run's TLB levels: theirs win
         * over whatever a footprint chase's plateaus suggested */
        return gd_infer_tlb_reach(run_inf, curve, seg,
                                  (gd_inferred_name)gd_inferred_level_from_name(level), err);
    } else if (!strcmp(pn, "pchase_page")) {
        return gd_infer_tlb_page(run_inf, curve, seg, err);
    } else if (!strcmp(pn, "store_path")) {
        return gd_infer_store(&run_inf->store, curve, err); /* issue 12: the store path */
    } else if (!strcmp(pn, "dram_row")) {
        return gd_infer_dram_row(run_inf, curve, err); /* issue 12: refines the run's DRAM */
    } else if (!strcmp(pn, "bandwidth")) {
        return gd_infer_bandwidth(run_inf, curve, level, err); /* issue 12: per level */
    } else if (!strcmp(pn, "l2_slice")) {
        return gd_infer_l2_slice(run_inf, curve, err); /* issue 12: after L2FAR's step */
    } else if (!strcmp(pn, "pchase")) {
        rc = gd_infer_pchase(&step_inf, curve, seg, bypass, l2_bytes_hint, err);
        /* the L2 alone (ld.cg): its replacement, and its size where that is random;
         * its size replaces one read through the L1, where L1 hits that never reach
         * the L2 blur its knee */
        if (rc == 0 && bypass)
            rc = gd_infer_l2_policy(&step_inf, curve, seg, err);
        if (rc == 0 && bypass && step_inf.level[GD_INF_L2].has_size &&
            !step_inf.level[GD_INF_L2].size_is_lower_bound)
            run_inf->level[GD_INF_L2].has_size = 0;
        /* ... and so do its latencies: an L1 line filled from several L2 lines
         * (128-byte L1 lines over 32-byte L2 lines) arrives a few cycles after
         * the first of them */
        for (int lv = GD_INF_L2; bypass && rc == 0 && lv <= GD_INF_DRAM; lv += GD_INF_DRAM - GD_INF_L2)
            if (step_inf.level[lv].has_latency)
                run_inf->level[lv].has_latency = 0;
    } else if (!strcmp(pn, "pchase_stride")) {
        gd_inferred_name lv = level[0] ? (gd_inferred_name)gd_inferred_level_from_name(level)
                                       : (bypass ? GD_INF_L2 : GD_INF_L1D);
        rc = gd_infer_stride(&step_inf, curve, seg, lv, err);
    } else if (!strcmp(pn, "icache_seq")) {
        rc = gd_infer_icache_seq(&step_inf, curve, seg, cc_major >= 7, err);
    } else if (!strcmp(pn, "icache_av")) {
        if (!level[0]) {
            rc = gd_fail(err, "%s: an icache_av step needs --level (the level its victim "
                              "is sized for)",
                         where);
        } else {
            /* the table accumulates over steps: infer into the run's inference */
            rc = gd_infer_icache_av(run_inf, curve,
                                    (gd_inferred_name)gd_inferred_level_from_name(level),
                                    subpartitions, err);
        }
    } else if (!strcmp(pn, "const_seq")) {
        rc = gd_infer_const_seq(&step_inf, curve, seg, err);
    } else if (!strcmp(pn, "const_stride")) {
        rc = gd_infer_const_stride(&step_inf, curve, err);
    } else if (!strcmp(pn, "const_bcast")) {
        rc = gd_infer_const_bcast(&step_inf, curve, err);
    } else if (!strcmp(pn, "const_icache_share")) {
        rc = gd_infer_const_share(&step_inf, curve, err);
    } else if (!strcmp(pn, "smem_bank")) {
        rc = gd_infer_smem_bank(&step_inf, curve, err);
    } else if (!strcmp(pn, "coalesce")) {
        rc = gd_infer_coalesce(&step_inf, curve, err);
    } else if (!strcmp(pn, "pchase_fine")) {
        rc = !strcmp(curve->opts.variant, "policy") ? gd_infer_fine_policy(&step_inf, curve, err)
                                                   : gd_infer_fine_ways(&step_inf, curve, seg, err);
    } else if (!strcmp(pn, "mshr")) {
        rc = gd_infer_mshr(&step_inf, curve, err);
    } else if (!strcmp(pn, "resv_stall")) {
        rc = gd_infer_resv_stall(&step_inf, curve, err);
    }
    if (rc == 0 && refines)
        *run_inf = step_inf;
    else if (rc == 0)
        merge_inference(run_inf, &step_inf);
    return rc;
}

static int run_step(gd_characterize_ctx *ctx, const gd_suite_step *st, json_t *meta,
                    json_t *curves_json, gd_err *err)
{
    gd_suite_vars vars = ctx->vars;
    gd_probe_opts opts = st->opts;
    uint64_t resolution = 0;
    gd_sweep sweep;
    int bad = (st->footprint[0] && gd_suite_eval(st->footprint, &vars, &opts.footprint_bytes, err)) ||
              (st->stride[0] && gd_suite_eval(st->stride, &vars, &opts.stride_bytes, err));
    uint64_t granularity = gd_probe_sweep_granularity(st->probe, &opts);
    resolution = granularity;
    bad = bad || (st->resolution[0] && gd_suite_eval(st->resolution, &vars, &resolution, err));
    bad = bad || build_sweep(st, &vars, granularity, &sweep, err) != 0;
    if (bad)
        return unknown_variable(err) ? skip_step(ctx, st, meta, err->msg)
                                     : gd_fail_prefix(err, "%s:%d", ctx->suite->path, st->line);

    /* the options as the probe resolves them (defaults filled in), for meta.json */
    gd_probe_opts resolved = opts;
    gd_probe_plan first;
    if (st->probe->plan(&opts, gd_device_get_info(ctx->runner->dev), sweep.points[0], &first,
                        err) != 0) {
        gd_sweep_free(&sweep);
        /* a point this device cannot run at all: the step is skipped, saying why */
        if (!strncmp(err->msg, GD_PROBE_NOT_ON_DEVICE, strlen(GD_PROBE_NOT_ON_DEVICE)))
            return skip_step(ctx, st, meta, err->msg + strlen(GD_PROBE_NOT_ON_DEVICE));
        return gd_fail_prefix(err, "%s:%d", ctx->suite->path, st->line);
    }
    resolved = first.opts;
    char plan_note[sizeof first.note];
    memcpy(plan_note, first.note, sizeof plan_note);
    gd_probe_plan_free(st->probe, &first);

    gd_curve curve;
    gd_curve_init(&curve, st->label, st->probe, &opts);
    /* every finished point is checkpointed (host/checkpoint.h); on --resume
     * the points measured before -- the whole step when it had finished --
     * are taken from it instead of measured, in the order the sweep asks */
    gd_checkpoint *cp = NULL;
    if (ctx->out_dir && gd_checkpoint_open(ctx->out_dir, st->label, ctx->resume, &cp, err) != 0) {
        gd_curve_free(&curve);
        gd_sweep_free(&sweep);
        return -1;
    }
    if (ctx->resume && cp)
        gd_characterize_resume_curve(ctx->out_dir, st->label, st->probe, &opts, cp);
    gd_runner *runner = ctx->runner;
    size_t measured0 = runner->points_measured, read0 = runner->points_read_back,
           resim0 = runner->points_resimulated;
    runner->checkpoint = cp;
    gd_adaptive_stats stats = {0};
    int rc = st->adaptive ? gd_runner_adaptive(runner, &curve, &sweep, resolution, &stats, err)
                          : gd_runner_sweep(runner, &curve, &sweep, err);
    runner->checkpoint = NULL;
    if (!st->adaptive) {
        stats.points = sweep.count;
        stats.coarse_points = sweep.count;
    }
    json_t *entry = json_object();
    json_object_set_new(entry, "probe", json_string(st->probe->name));
    json_object_set_new(entry, "csv", json_string(st->label));
    json_object_set_new(entry, "suite_line", json_integer(st->line));
    gd_probe_opts_to_json(&resolved, entry);
    json_object_set_new(entry, "strategy", json_string(st->adaptive ? "adaptive" : "uniform"));
    json_object_set_new(entry, "points", json_integer((json_int_t)stats.points));
    /* how many of them this run measured, and how many it read back from an
     * interrupted run's checkpoint or a finished step's files (--resume);
     * "points_resimulated": read-back points a sim device ran again, result
     * dropped, to rebuild the state its sweep workers fork from */
    json_object_set_new(entry, "points_measured",
                        json_integer((json_int_t)(runner->points_measured - measured0)));
    json_object_set_new(entry, "points_read_back",
                        json_integer((json_int_t)(runner->points_read_back - read0)));
    json_object_set_new(entry, "points_resimulated",
                        json_integer((json_int_t)(runner->points_resimulated - resim0)));
    if (plan_note[0]) { /* e.g. a patch refused on this target: what ran instead */
        json_object_set_new(entry, "note", json_string(plan_note));
        if (ctx->progress)
            fprintf(ctx->progress, "%s: %s\n", st->label, plan_note);
    }
    json_array_append_new(json_object_get(meta, "probes"), entry);
    if (st->level[0])
        json_object_set_new(entry, "level", json_string(st->level));
    curve.opts = resolved;
    /* every sample, so that `gpudissect infer RUN` can redo this step */
    if (rc == 0 && ctx->out_dir && gd_curve_write_samples(&curve, ctx->out_dir, err) != 0)
        rc = -1;
    /* the step's files are whole: its checkpoint goes -- unless a signal
     * stopped it, and --resume will want the points */
    gd_checkpoint_close(cp, rc == 0 || !gd_interrupt_requested());
    cp = NULL;
    if (rc != 0)
        goto out;

    gd_segmentation seg;
    if ((rc = gd_curve_segment(&curve, gd_probe_primary_series(st->probe), &seg, err)) != 0)
        goto out;
    if (st->carveout_count) {
        /* one carve-out of the `--carveout` step: its L1D only, never the run's */
        json_object_set_new(curves_json, st->label, gd_segmentation_to_json(&seg));
        gd_err why;
        if (gd_infer_carveout_l1d(&curve, &seg, ctx->device_l2_bytes, &ctx->carveout_l1d_bytes,
                                  &ctx->carveout_confidence, &why) != 0) {
            ctx->carveout_l1d_bytes = 0; /* not measured: no row, the run goes on */
            if (ctx->progress)
                fprintf(ctx->progress, "%s: %s\n", st->label, why.msg);
        }
        gd_segmentation_free(&seg);
        goto out;
    }
    json_t *cj = gd_segmentation_to_json(&seg);
    json_object_set_new(cj, "probe", json_string(st->probe->name));
    json_object_set_new(cj, "sweep", json_string(st->probe->sweep_name));
    json_object_set_new(cj, "strategy", json_string(st->adaptive ? "adaptive" : "uniform"));
    json_object_set_new(cj, "points", json_integer((json_int_t)curve.count));
    if (st->adaptive) {
        json_object_set_new(cj, "coarse_points", json_integer((json_int_t)stats.coarse_points));
        json_object_set_new(cj, "refine_points", json_integer((json_int_t)stats.refine_points));
        json_object_set_new(cj, "resolution_bytes", json_integer((json_int_t)resolution));
        json_object_set_new(cj, "uniform_points_equivalent",
                            json_integer((json_int_t)stats.uniform_points));
    }
    json_object_set_new(curves_json, st->label, cj);

    char where[600];
    snprintf(where, sizeof where, "%s:%d", ctx->suite->path, st->line);
    rc = gd_infer_curve(&ctx->inference, &curve, &seg, st->level, ctx->device_l2_bytes,
                        gd_device_get_info(ctx->runner->dev)->cc_major,
                        gd_device_get_info(ctx->runner->dev)->subpartitions_per_sm, where, err);
    gd_segmentation_free(&seg);
    if (rc == 0) {
        for (int i = 0; i < GD_INF_COUNT; i++) {
            const gd_inferred_level *l = &ctx->inference.level[i];
            /* the L2's size for later sweeps comes from the L2 alone (ld.cg): a
             * knee read through the L1 comes early under random replacement, and a
             * sweep to 4x that would stop short of the L2 it looks for */
            int l2_through_l1 = i == GD_INF_L2 && ctx->device_l2_bytes &&
                                strcmp(st->opts.variant, "cg") != 0;
            if (l->has_size && l->size_bytes && !l->size_is_lower_bound && !l2_through_l1)
                ctx->vars.size[i] = l->size_bytes;
            if (l->has_sector && l->sector_bytes)
                ctx->vars.line[i] = l->sector_bytes;
            if (l->has_ways && l->ways)
                ctx->vars.ways[i] = l->ways;
        }
        if (ctx->progress && st->adaptive)
            fprintf(ctx->progress,
                    "%s: %zu points (%zu coarse + %zu bisection); a uniform sweep at %llu-byte "
                    "resolution would need %llu\n",
                    st->label, stats.points, stats.coarse_points, stats.refine_points,
                    (unsigned long long)resolution, (unsigned long long)stats.uniform_points);
    }
out:
    gd_curve_free(&curve);
    gd_sweep_free(&sweep);
    return rc;
}

/* One preference of a `--carveout` step: the p-chase with the runner's
 * carve-out set to it, as curve LABEL-P; its L1D into *l1d_bytes. */
static int carveout_point(gd_characterize_ctx *ctx, const gd_suite_step *st, unsigned k,
                          json_t *meta, json_t *curves_json, uint64_t *l1d_bytes, gd_err *err)
{
    gd_suite_step one = *st;
    snprintf(one.label, sizeof one.label, "%.50s-%d", st->label, st->carveouts[k]);
    int saved = ctx->runner->carveout_percent;
    ctx->runner->carveout_percent = st->carveouts[k];
    ctx->carveout_l1d_bytes = 0;
    int rc = run_step(ctx, &one, meta, curves_json, err);
    ctx->runner->carveout_percent = saved;
    /* the curve's meta entry says which carve-out it ran under: compare models
     * it with the L1D that preference gives (gd_model_pchase_carveout) */
    json_t *probes = json_object_get(meta, "probes");
    json_t *last = json_array_get(probes, json_array_size(probes) - 1);
    const char *csv = json_string_value(json_object_get(last, "csv"));
    if (csv && !strcmp(csv, one.label))
        json_object_set_new(last, "carveout_percent", json_integer(st->carveouts[k]));
    if (rc != 0)
        return rc;
    if (!ctx->carveout_l1d_bytes) /* skipped: an expression was not known yet */
        return 1;
    *l1d_bytes = ctx->carveout_l1d_bytes;
    json_array_append_new(ctx->carveout_rows,
                          gd_carveout_row(st->carveouts[k], ctx->carveout_l1d_bytes,
                                          ctx->carveout_confidence, one.label));
    if (ctx->progress)
        fprintf(ctx->progress, "%s: carve-out %d%%: L1D %llu bytes\n", st->label,
                st->carveouts[k], (unsigned long long)ctx->carveout_l1d_bytes);
    return 0;
}

/* Between two measured preferences lo < hi of the list: where their L1D sizes
 * differ, the one halfway between is measured too (the size is monotone in the
 * preference, so equal ends leave nothing between them to find). */
static int carveout_bisect(gd_characterize_ctx *ctx, const gd_suite_step *st, unsigned lo,
                           unsigned hi, uint64_t *sizes, json_t *meta, json_t *curves_json,
                           gd_err *err)
{
    if (hi - lo < 2 || sizes[lo] == sizes[hi])
        return 0;
    unsigned mid = lo + (hi - lo) / 2;
    int rc = carveout_point(ctx, st, mid, meta, curves_json, &sizes[mid], err);
    if (rc < 0)
        return rc;
    rc = carveout_bisect(ctx, st, lo, mid, sizes, meta, curves_json, err);
    return rc ? rc : carveout_bisect(ctx, st, mid, hi, sizes, meta, curves_json, err);
}

static int run_carveout_step(gd_characterize_ctx *ctx, const gd_suite_step *st, json_t *meta,
                             json_t *curves_json, gd_err *err)
{
    uint64_t sizes[GD_SUITE_MAX_CARVEOUTS] = {0};
    unsigned last = st->carveout_count - 1;
    /* a preference without a reading (no knee, or skipped) keeps size 0 and
     * bisection goes on around it */
    if (carveout_point(ctx, st, 0, meta, curves_json, &sizes[0], err) < 0 ||
        (last > 0 && carveout_point(ctx, st, last, meta, curves_json, &sizes[last], err) < 0) ||
        carveout_bisect(ctx, st, 0, last, sizes, meta, curves_json, err) < 0)
        return -1;
    return 0;
}

int gd_characterize(gd_characterize_ctx *ctx, json_t *meta, gd_err *err)
{
    json_t *curves_json = json_object();
    memset(&ctx->inference, 0, sizeof ctx->inference);
    ctx->failed_steps = ctx->skipped_steps = 0;
    json_decref(ctx->carveout_rows);
    ctx->carveout_rows = json_array();
    for (size_t i = 0; i < ctx->suite->step_count && !gd_interrupt_requested(); i++) {
        const gd_suite_step *st = &ctx->suite->steps[i];
        gd_err step_err;
        int rc = st->carveout_count ? run_carveout_step(ctx, st, meta, curves_json, &step_err)
                                    : run_step(ctx, st, meta, curves_json, &step_err);
        if (rc < 0)
            fail_step(ctx, st, meta, step_err.msg);
        json_object_set_new(meta, "failed_steps", json_integer((json_int_t)ctx->failed_steps));
        if (gd_meta_write(meta, ctx->out_dir, err) != 0) {
            json_decref(curves_json);
            json_decref(ctx->carveout_rows);
            ctx->carveout_rows = NULL;
            return -1;
        }
    }
    if (gd_characterize_mark_interrupted(ctx, meta, err) != 0) {
        json_decref(curves_json);
        return -1;
    }
    gd_inference_finish(&ctx->inference);
    gd_inference_snap(&ctx->inference);
    json_t *inferred = gd_inference_to_json(&ctx->inference);
    json_object_set_new(inferred, "device",
                        json_string(gd_device_get_info(ctx->runner->dev)->spec));
    json_object_set_new(inferred, "suite", json_string(ctx->suite->name));
    json_object_set_new(inferred, "curves", curves_json);
    json_object_set_new(inferred, "l1d_by_carveout", ctx->carveout_rows);
    ctx->carveout_rows = NULL; /* inferred.json's now */
    char path[1100];
    snprintf(path, sizeof path, "%s/inferred.json", ctx->out_dir);
    int rc = gd_write_json_atomic(path, inferred, err);
    json_decref(inferred);
    return rc;
}

int gd_analyze_run(const char *dir, const gd_arch *arch, int plots, gd_err *err)
{
    gd_run run;
    if (gd_run_load(dir, &run, err) != 0)
        return -1;
    int rc = 0;
    char path[1100];
    if (arch) {
        json_t *cmp;
        rc = gd_compare_run(&run, arch, &cmp, err);
        if (rc == 0) {
            snprintf(path, sizeof path, "%s/compare.json", dir);
            rc = gd_write_json_atomic(path, cmp, err);
            json_decref(cmp);
        }
    }
    if (rc == 0 && plots)
        rc = gd_figures_write(&run, arch, err);
    gd_run_free(&run);
    if (rc == 0)
        rc = gd_report_write(dir, err);
    return rc;
}
