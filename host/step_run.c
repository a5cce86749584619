/* step_run.c -- one step of a suite in three parts, and one curve's inference.
 *
 * Prepare (the step's options from what the steps before inferred, its
 * sweep, the probe's plan), measure (the sweep on the runner's device, its
 * files), finish (its meta.json entry, segmentation and inference, folded
 * into the run's): characterize.c runs them one after the other on the
 * runner's device, step_workers.c measures in a process of the step's own
 * and finishes in the parent.  gd_infer_curve is also what `gpudissect
 * infer` redoes from a results directory (cmd_infer.c).
 */
#include "host/characterize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "analysis/curve_samples.h"
#include "analysis/infer.h"
#include "analysis/infer_access.h"
#include "analysis/infer_bandwidth.h"
#include "analysis/infer_carveout.h"
#include "analysis/infer_dram.h"
#include "analysis/infer_l2_policy.h"
#include "analysis/infer_l2_slice.h"
#include "analysis/infer_tlb.h"
#include "analysis/run_load.h"
#include "host/adaptive.h"
#include "host/checkpoint.h"
#include "host/interrupt.h"
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
        if (f->size_unseen[0] && !t->has_size && !t->size_unseen[0])
            memcpy(t->size_unseen, f->size_unseen, sizeof t->size_unseen);
        if (f->scope_unseen[0] && !t->has_scope && !t->scope_unseen[0])
            memcpy(t->scope_unseen, f->scope_unseen, sizeof t->scope_unseen);
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
        MERGE_FIELD(has_ways, ways_confidence, ways_from, t->ways = f->ways;
                    t->ways_is_lower_bound = f->ways_is_lower_bound)
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
int gd_step_skip(gd_characterize_ctx *ctx, const gd_suite_step *st, json_t *meta, const char *why)
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

static int unknown_variable(const gd_err *err)
{
    return strstr(err->msg, "not known yet") != NULL || strstr(err->msg, "has no such level") != NULL;
}

/* One curve's inference, folded into the run's (characterize.h). */
int gd_infer_curve(gd_inference *run_inf, const gd_curve *curve, const gd_segmentation *seg,
                   const char *level, uint64_t l2_bytes_hint, int cc_major, int subpartitions,
                   const char *where, gd_err *err)
{
    const gd_probe *probe = curve->probe;
    int rc = 0;
    /* probes whose reading depends on what earlier steps found refine the
     * run's inference itself; the others start from nothing and are merged */
    const char *const refining[] = {"const_seq", "pchase_fine", "const_fine", "mshr", "resv_stall",
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
    } else if (!strcmp(pn, "pchase") && !strcmp(level, "L2")) {
        /* a randomly replacing L2 fitted again at 1.5-2.5x the first fit
         * (full.suite's pchase-l2fit): refines the run's L2 size */
        return gd_infer_l2_refit(run_inf, curve, err);
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
        /* --level L2: a sweep from past the instruction caches (the L2 -> DRAM
         * step of Jia et al.'s Fig. 3.6), plotted and reported; its first
         * plateau is no L0I or L1I (generated seed 1067: its knee at 22 MiB was
         * read as the L0I's size, its end as an L1I of at least 64 MiB) */
        if (strcmp(level, "L2") != 0) {
            /* loops timed after many warm passes (full.suite's icache-warm,
             * run where the step before saw a randomly replacing level): its
             * verdicts come from that step, and its sizes replace that
             * step's, read off loops that had not converged (issue 17) */
            const gd_inferred_name icache[] = {GD_INF_L0I, GD_INF_L1I, GD_INF_L15I};
            int converged = curve->opts.warm_passes > 1;
            for (size_t k = 0; converged && k < sizeof icache / sizeof icache[0]; k++) {
                gd_inferred_level *f = &step_inf.level[icache[k]];
                const gd_inferred_level *r = &run_inf->level[icache[k]];
                f->has_replacement = r->has_replacement;
                f->replacement = r->replacement;
                f->replacement_lru_or_fifo = r->replacement_lru_or_fifo;
            }
            rc = gd_infer_icache_seq(&step_inf, curve, seg, cc_major >= 7, err);
            for (size_t k = 0; rc == 0 && converged && k < sizeof icache / sizeof icache[0]; k++) {
                gd_inferred_level *f = &step_inf.level[icache[k]];
                gd_inferred_level *t = &run_inf->level[icache[k]];
                f->has_replacement = 0; /* the run's verdict stays */
                if (f->has_size || f->size_unseen[0]) {
                    t->has_size = 0;
                    t->size_unseen[0] = 0;
                }
            }
        }
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
    } else if (!strcmp(pn, "const_av")) {
        rc = gd_infer_const_av(&step_inf, curve, err);
    } else if (!strcmp(pn, "smem_bank")) {
        rc = gd_infer_smem_bank(&step_inf, curve, err);
    } else if (!strcmp(pn, "coalesce")) {
        rc = gd_infer_coalesce(&step_inf, curve, err);
    } else if (!strcmp(pn, "pchase_fine") || !strcmp(pn, "const_fine")) {
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

int gd_step_prepare(gd_characterize_ctx *ctx, const gd_suite_step *st, gd_step_prep *prep,
                    gd_err *err)
{
    memset(prep, 0, sizeof *prep);
    gd_suite_vars vars = ctx->vars;
    prep->opts = st->opts;
    gd_probe_opts *opts = &prep->opts;
    /* --if: a step only some hierarchies need (icache-warm, for randomly
     * replacing instruction caches) is skipped elsewhere, saying why */
    uint64_t wanted = 1;
    if (st->run_if[0] && gd_suite_eval(st->run_if, &vars, &wanted, err) != 0)
        return unknown_variable(err) ? 1 : gd_fail_prefix(err, "%s:%d", ctx->suite->path, st->line);
    if (!wanted) {
        snprintf(err->msg, sizeof err->msg, "not needed here (--if %s is 0)", st->run_if);
        return 1;
    }
    int bad = (st->footprint[0] && gd_suite_eval(st->footprint, &vars, &opts->footprint_bytes, err)) ||
              (st->stride[0] && gd_suite_eval(st->stride, &vars, &opts->stride_bytes, err));
    uint64_t granularity = gd_probe_sweep_granularity(st->probe, opts);
    prep->resolution = granularity;
    bad = bad || (st->resolution[0] && gd_suite_eval(st->resolution, &vars, &prep->resolution, err));
    bad = bad || build_sweep(st, &vars, granularity, &prep->sweep, err) != 0;
    bad = bad || (st->refine_below[0] &&
                  gd_suite_eval(st->refine_below, &vars, &prep->sweep.refine_below, err));
    if (bad)
        return unknown_variable(err) ? 1 : gd_fail_prefix(err, "%s:%d", ctx->suite->path, st->line);

    /* the options as the probe resolves them (defaults filled in), for meta.json */
    gd_probe_plan first;
    if (st->probe->plan(opts, gd_device_get_info(ctx->runner->dev), prep->sweep.points[0], &first,
                        err) != 0) {
        gd_sweep_free(&prep->sweep);
        /* a point this device cannot run at all: the step is skipped, saying why */
        if (!strncmp(err->msg, GD_PROBE_NOT_ON_DEVICE, strlen(GD_PROBE_NOT_ON_DEVICE))) {
            memmove(err->msg, err->msg + strlen(GD_PROBE_NOT_ON_DEVICE),
                    strlen(err->msg + strlen(GD_PROBE_NOT_ON_DEVICE)) + 1);
            return 1;
        }
        return gd_fail_prefix(err, "%s:%d", ctx->suite->path, st->line);
    }
    prep->resolved = first.opts;
    memcpy(prep->plan_note, first.note, sizeof prep->plan_note);
    gd_probe_plan_free(st->probe, &first);
    return 0;
}

void gd_step_prep_free(gd_step_prep *prep)
{
    gd_sweep_free(&prep->sweep);
}

/* CPU seconds of this process and of its children reaped so far (a sweep's
 * point processes) */
static double step_cpu_seconds(void)
{
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
                    kids.ru_stime.tv_sec) +
           (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec +
                    kids.ru_stime.tv_usec) * 1e-6;
}

static double step_wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void gd_step_measure(gd_characterize_ctx *ctx, const gd_suite_step *st, const gd_step_prep *prep,
                     const char *dir, gd_curve *curve, gd_step_outcome *out)
{
    memset(out, 0, sizeof *out);
    double cpu0 = step_cpu_seconds(), wall0 = step_wall_seconds();
    gd_curve_init(curve, st->label, st->probe, &prep->opts);
    /* every finished point is checkpointed (host/checkpoint.h); on --resume
     * the points measured before -- the whole step when it had finished --
     * are taken from it instead of measured, in the order the sweep asks */
    gd_checkpoint *cp = NULL;
    if (dir && gd_checkpoint_open(dir, st->label, ctx->resume, &cp, &out->err) != 0) {
        out->rc = -1;
        return;
    }
    if (ctx->resume && cp)
        gd_characterize_resume_curve(ctx->out_dir, st->label, st->probe, &prep->opts, cp);
    gd_runner *runner = ctx->runner;
    size_t measured0 = runner->points_measured, read0 = runner->points_read_back,
           resim0 = runner->points_resimulated;
    runner->checkpoint = cp;
    int rc = st->adaptive ? gd_runner_adaptive(runner, curve, &prep->sweep, prep->resolution,
                                               &out->stats, &out->err)
                          : gd_runner_sweep(runner, curve, &prep->sweep, &out->err);
    /* the CSV the points left as snapshots, made durable (on an error too:
     * the points it has stay) */
    gd_err settle_err;
    if (gd_runner_settle_csv(runner, curve, rc == 0 ? &out->err : &settle_err) != 0)
        rc = -1;
    runner->checkpoint = NULL;
    if (!st->adaptive) {
        out->stats.points = prep->sweep.count;
        out->stats.coarse_points = prep->sweep.count;
    }
    out->measured = runner->points_measured - measured0;
    out->read_back = runner->points_read_back - read0;
    out->resimulated = runner->points_resimulated - resim0;
    out->cpu_seconds = step_cpu_seconds() - cpu0;
    out->wall_seconds = step_wall_seconds() - wall0;
    curve->opts = prep->resolved;
    /* every sample, so that `gpudissect infer RUN` can redo this step */
    if (rc == 0 && dir && gd_curve_write_samples(curve, dir, &out->err) != 0)
        rc = -1;
    /* the step's files are whole: its checkpoint goes -- unless a signal
     * stopped it, and --resume will want the points */
    gd_checkpoint_close(cp, rc == 0 || !gd_interrupt_requested());
    out->rc = rc;
}

int gd_step_finish(gd_characterize_ctx *ctx, const gd_suite_step *st, const gd_step_prep *prep,
                   gd_curve *curve, const gd_step_outcome *res, json_t *meta, json_t *curves_json,
                   gd_err *err)
{
    json_t *entry = json_object();
    json_object_set_new(entry, "probe", json_string(st->probe->name));
    json_object_set_new(entry, "csv", json_string(st->label));
    json_object_set_new(entry, "suite_line", json_integer(st->line));
    gd_probe_opts_to_json(&prep->resolved, entry);
    json_object_set_new(entry, "strategy", json_string(st->adaptive ? "adaptive" : "uniform"));
    json_object_set_new(entry, "points", json_integer((json_int_t)res->stats.points));
    /* how many of them this run measured, and how many it read back from an
     * interrupted run's checkpoint or a finished step's files (--resume);
     * "points_resimulated": read-back points a sim device ran again, result
     * dropped, to rebuild the state its sweep workers fork from */
    json_object_set_new(entry, "points_measured", json_integer((json_int_t)res->measured));
    json_object_set_new(entry, "points_read_back", json_integer((json_int_t)res->read_back));
    json_object_set_new(entry, "points_resimulated", json_integer((json_int_t)res->resimulated));
    if (prep->plan_note[0]) { /* e.g. a patch refused on this target: what ran instead */
        json_object_set_new(entry, "note", json_string(prep->plan_note));
        if (ctx->progress)
            fprintf(ctx->progress, "%s: %s\n", st->label, prep->plan_note);
    }
    json_array_append_new(json_object_get(meta, "probes"), entry);
    json_t *cost = json_object_get(meta, "step_seconds");
    if (!json_is_object(cost)) {
        cost = json_object();
        json_object_set_new(meta, "step_seconds", cost);
    }
    json_object_set_new(cost, st->label,
                        json_pack("{s:f,s:f}", "cpu", round(res->cpu_seconds * 1000) / 1000,
                                  "wall", round(res->wall_seconds * 1000) / 1000));
    if (st->level[0])
        json_object_set_new(entry, "level", json_string(st->level));
    if (res->rc != 0) {
        *err = res->err;
        return -1;
    }
    const gd_adaptive_stats *stats = &res->stats;
    uint64_t resolution = prep->resolution;

    gd_segmentation seg;
    int rc;
    if ((rc = gd_curve_segment(curve, gd_probe_primary_series(st->probe), &seg, err)) != 0)
        return rc;
    if (st->carveout_count) {
        /* one carve-out of the `--carveout` step: its L1D only, never the run's */
        json_object_set_new(curves_json, st->label, gd_segmentation_to_json(&seg));
        gd_err why;
        if (gd_infer_carveout_l1d(curve, &seg, ctx->device_l2_bytes, &ctx->carveout_l1d_bytes,
                                  &ctx->carveout_confidence, &why) != 0) {
            ctx->carveout_l1d_bytes = 0; /* not measured: no row, the run goes on */
            if (ctx->progress)
                fprintf(ctx->progress, "%s: %s\n", st->label, why.msg);
        }
        gd_segmentation_free(&seg);
        return 0;
    }
    json_t *cj = gd_segmentation_to_json(&seg);
    json_object_set_new(cj, "probe", json_string(st->probe->name));
    json_object_set_new(cj, "sweep", json_string(st->probe->sweep_name));
    json_object_set_new(cj, "strategy", json_string(st->adaptive ? "adaptive" : "uniform"));
    json_object_set_new(cj, "points", json_integer((json_int_t)curve->count));
    if (st->adaptive) {
        json_object_set_new(cj, "coarse_points", json_integer((json_int_t)stats->coarse_points));
        json_object_set_new(cj, "refine_points", json_integer((json_int_t)stats->refine_points));
        json_object_set_new(cj, "resolution_bytes", json_integer((json_int_t)resolution));
        json_object_set_new(cj, "uniform_points_equivalent",
                            json_integer((json_int_t)stats->uniform_points));
    }
    json_object_set_new(curves_json, st->label, cj);

    char where[600];
    snprintf(where, sizeof where, "%s:%d", ctx->suite->path, st->line);
    rc = gd_infer_curve(&ctx->inference, curve, &seg, st->level, ctx->device_l2_bytes,
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
            if (l->has_ways && l->ways && !l->ways_is_lower_bound)
                ctx->vars.ways[i] = l->ways;
            ctx->vars.random[i] = (uint8_t)(l->has_replacement && !l->replacement_lru_or_fifo &&
                                            l->replacement == GD_REPL_RANDOM);
        }
        if (ctx->progress && st->adaptive)
            fprintf(ctx->progress,
                    "%s: %zu points (%zu coarse + %zu bisection); a uniform sweep at %llu-byte "
                    "resolution would need %llu\n",
                    st->label, stats->points, stats->coarse_points, stats->refine_points,
                    (unsigned long long)resolution, (unsigned long long)stats->uniform_points);
    }
    return rc;
}
