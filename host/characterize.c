/* characterize.c -- the main job: a suite of sweeps, then analysis, comparison,
 * plots and a report, in one results directory.
 *
 *   1. run each step of the suite (bench/suites/NAME.suite) on the device,
 *      adaptively where the step says so; every point lands in LABEL.csv at once
 *      (a step's three parts: step_run.c; on a sim device each step in a
 *      process of its own: step_workers.c);
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
#include "analysis/figures.h"
#include "analysis/infer.h"
#include "analysis/report.h"
#include "analysis/run_load.h"
#include "host/interrupt.h"
#include "host/meta.h"
#include "analysis/infer_carveout.h"
#include "analysis/results.h"
#include "host/runner.h"

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

/* Runs one step on the runner's own device: prepare, measure, finish. */
static int run_step_here(gd_characterize_ctx *ctx, const gd_suite_step *st, json_t *meta,
                         json_t *curves_json, gd_err *err)
{
    gd_step_prep prep;
    int rc = gd_step_prepare(ctx, st, &prep, err);
    if (rc == 1)
        return gd_step_skip(ctx, st, meta, err->msg);
    if (rc != 0)
        return -1;
    gd_curve curve;
    gd_step_outcome res;
    gd_step_measure(ctx, st, &prep, ctx->out_dir, &curve, &res);
    rc = gd_step_finish(ctx, st, &prep, &curve, &res, meta, curves_json, err);
    gd_curve_free(&curve);
    gd_step_prep_free(&prep);
    return rc;
}

static int run_step(gd_characterize_ctx *ctx, const gd_suite_step *st, json_t *meta,
                    json_t *curves_json, gd_err *err)
{
    if (ctx->steps)
        return gd_step_workers_run(ctx->steps, ctx, st, meta, curves_json, err);
    return run_step_here(ctx, st, meta, curves_json, err);
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
    ctx->carveout_step_active = 1;
    ctx->run_carveout_percent = saved;
    ctx->carveout_l1d_bytes = 0;
    int rc = run_step(ctx, &one, meta, curves_json, err);
    ctx->runner->carveout_percent = saved;
    ctx->carveout_step_active = 0;
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
    /* on a sim device, each step in a process of its own (host/step_workers.c) */
    int own_steps = 0;
    if (!ctx->steps && ctx->out_dir && gd_step_workers_usable(ctx->runner)) {
        if (!(ctx->steps = gd_step_workers_create(ctx->runner->jobs, err)))
            return -1;
        own_steps = 1;
    }
    json_t *curves_json = json_object();
    memset(&ctx->inference, 0, sizeof ctx->inference);
    ctx->failed_steps = ctx->skipped_steps = 0;
    json_decref(ctx->carveout_rows);
    ctx->carveout_rows = json_array();
    int meta_failed = 0;
    for (size_t i = 0; i < ctx->suite->step_count && !gd_interrupt_requested(); i++) {
        const gd_suite_step *st = &ctx->suite->steps[i];
        gd_err step_err;
        int rc = st->carveout_count ? run_carveout_step(ctx, st, meta, curves_json, &step_err)
                                    : run_step(ctx, st, meta, curves_json, &step_err);
        if (rc < 0)
            fail_step(ctx, st, meta, step_err.msg);
        json_object_set_new(meta, "failed_steps", json_integer((json_int_t)ctx->failed_steps));
        if (ctx->steps)
            json_object_set_new(meta, "steps_measured_again",
                                gd_step_workers_measured_again(ctx->steps));
        if (gd_meta_write(meta, ctx->out_dir, err) != 0) {
            meta_failed = 1;
            break;
        }
    }
    if (own_steps) {
        if (!gd_interrupt_requested() && !meta_failed)
            gd_step_workers_clean(ctx);
        gd_step_workers_destroy(ctx->steps);
        ctx->steps = NULL;
    }
    if (meta_failed) {
        json_decref(curves_json);
        json_decref(ctx->carveout_rows);
        ctx->carveout_rows = NULL;
        return -1;
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

int gd_analyze_run(const char *dir, const gd_arch *arch, int plots, unsigned jobs, gd_err *err)
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
        rc = gd_figures_write(&run, arch, jobs ? jobs : gd_runner_default_jobs(), err);
    gd_run_free(&run);
    if (rc == 0)
        rc = gd_report_write(dir, err);
    return rc;
}
