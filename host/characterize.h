/* characterize.h -- suite, analysis, comparison, plots, report (characterize.c). */
#ifndef GD_CHARACTERIZE_H
#define GD_CHARACTERIZE_H

#include <jansson.h>
#include <stdio.h>

#include "analysis/arch.h"
#include "analysis/infer.h"
#include "host/adaptive.h"
#include "host/runner.h"
#include "host/suite.h"

typedef struct gd_characterize_ctx {
    gd_runner *runner;
    const gd_suite *suite;
    const char *out_dir;
    FILE *progress;            /* NULL: quiet */
    uint64_t device_l2_bytes;  /* what the device reports: tells the L2 knee */
    gd_suite_vars vars;        /* L2 / L1D sizes known so far */
    gd_inference inference;    /* filled by gd_characterize */
    size_t failed_steps;       /* steps that failed (recorded in meta.json; the run went on) */
    size_t skipped_steps;      /* steps that could not run here (the reason in meta.json) */
    /* the `--carveout` step: inferred.json's "l1d_by_carveout" rows, and what
     * the curve just measured showed */
    json_t *carveout_rows;
    uint64_t carveout_l1d_bytes;
    double carveout_confidence;
    /* while one preference of that step is set on the runner: 1, and the
     * run's own carve-out (--carveout), under which the steps after it that
     * start early run (host/step_workers.c) */
    int carveout_step_active;
    int run_carveout_percent;
    int resume;                /* --resume: steps whose files are complete are not measured again */
    /* Steps in processes of their own (host/step_workers.c), or NULL: every
     * step on the runner's device, one after the other. */
    struct gd_step_workers *steps;
} gd_characterize_ctx;

/* host/characterize_resume.c: --resume and interruption (host/interrupt.c) */
/* When OUT/LABEL.csv and LABEL.samples.gz are both there and whole (a step
 * that finished), their points become the step's checkpoint store
 * (host/checkpoint.h); otherwise the store stays as the checkpoint file had it. */
struct gd_checkpoint;
void gd_characterize_resume_curve(const char *out_dir, const char *label, const gd_probe *probe,
                                  const gd_probe_opts *opts, struct gd_checkpoint *cp);
/* After the steps: when a signal stopped them, records "interrupted" (the
 * signal's name) and the steps not run in meta.json, and writes it. */
int gd_characterize_mark_interrupted(gd_characterize_ctx *ctx, json_t *meta, gd_err *err);
/* The command line RUN/meta.json recorded, less --out and --resume, plus
 * --out RUN: what `characterize --resume RUN` runs again.  Free with
 * gd_characterize_resume_free. */
int gd_characterize_resume_args(const char *run, char ***argv, int *argc, gd_err *err);
void gd_characterize_resume_free(char **argv, int argc);

/* One step in three parts (host/characterize.c).  Prepare: its options,
 * sweep and resolution from what the steps before inferred (ctx->vars), the
 * probe's plan of its first point; returns 0, 1 when the step cannot run here
 * (err: why -- an expression not known yet, a probe this device lacks), -1 on
 * an error (err prefixed with the suite's FILE:LINE).  Measure: the sweep on
 * the runner's device, its files (CSV, samples, checkpoint) in `dir`; the
 * outcome in *out, the curve in *curve (free it either way).  Finish: its
 * meta.json entry, then (when it measured) its segmentation and inference,
 * folded into the run's (ctx->inference, ctx->vars). */
typedef struct gd_step_prep {
    gd_probe_opts opts;        /* with the expressions evaluated */
    gd_probe_opts resolved;    /* ... and the probe's defaults filled in */
    uint64_t resolution;
    gd_sweep sweep;
    char plan_note[256];
} gd_step_prep;
typedef struct gd_step_outcome {
    int rc;
    gd_err err;
    gd_adaptive_stats stats;
    size_t measured, read_back, resimulated;
    /* what the step cost: CPU of its process and of the point processes it
     * waited for, and wall time (meta.json "step_seconds"; not in "probes",
     * which a parallel run must reproduce byte for byte) */
    double cpu_seconds, wall_seconds;
} gd_step_outcome;
int gd_step_prepare(gd_characterize_ctx *ctx, const gd_suite_step *st, gd_step_prep *prep,
                    gd_err *err);
void gd_step_prep_free(gd_step_prep *prep);
void gd_step_measure(gd_characterize_ctx *ctx, const gd_suite_step *st, const gd_step_prep *prep,
                     const char *dir, gd_curve *curve, gd_step_outcome *out);
int gd_step_finish(gd_characterize_ctx *ctx, const gd_suite_step *st, const gd_step_prep *prep,
                   gd_curve *curve, const gd_step_outcome *res, json_t *meta, json_t *curves_json,
                   gd_err *err);
/* A step skipped (why: the reason in meta.json); returns 1. */
int gd_step_skip(gd_characterize_ctx *ctx, const gd_suite_step *st, json_t *meta, const char *why);

/* host/step_workers.c: on a sim device each step runs in a process forked
 * from the device as it was opened -- so a step's result depends on its own
 * options alone -- up to -j at a time (a token pool shared with the sweep
 * workers, host/job_tokens.h), and the steps after the one in progress start
 * early when their options can be evaluated already; each step's files,
 * progress lines, meta.json entry, counters and inference enter the run in
 * suite order, and a step started early whose options changed by its turn is
 * measured again. */
typedef struct gd_step_workers gd_step_workers;
/* NULL (with err) on an error; jobs 0: the cores hwloc reports. */
gd_step_workers *gd_step_workers_create(unsigned jobs, gd_err *err);
/* Stops any step still running, removes their files, closes the pool. */
void gd_step_workers_destroy(gd_step_workers *sw);
/* The labels of the steps started early that were stopped at their turn,
 * their options having changed, and measured again (meta.json
 * "steps_measured_again"), as a new JSON array. */
json_t *gd_step_workers_measured_again(const gd_step_workers *sw);
/* Whether a run on this runner may use them (a sim device without an LSU
 * trace, not --chained). */
int gd_step_workers_usable(const gd_runner *runner);
/* Step st (whose suite line is st->line; a carve-out preference has its own
 * label) at its turn: as run_step would on the runner's device. */
int gd_step_workers_run(gd_step_workers *sw, gd_characterize_ctx *ctx, const gd_suite_step *st,
                        json_t *meta, json_t *curves_json, gd_err *err);
/* A run that ended uninterrupted: OUT/.steps/ (each step's options) goes. */
void gd_step_workers_clean(const gd_characterize_ctx *ctx);

/* Runs the suite's steps and writes inferred.json (meta's probes list grows as
 * steps run, and is rewritten after each).  A step that fails -- a device error,
 * a sweep its probe refuses -- is recorded in meta.json ("failed": why) and the
 * run goes on with the next step: one failing step never ends a run.  Returns -1
 * only when the results directory itself cannot be written. */
int gd_characterize(gd_characterize_ctx *ctx, json_t *meta, gd_err *err);

/* One curve's inference, folded into the run's: what characterize does after
 * each step and `gpudissect infer` redoes from a results directory.  `level`:
 * the step's --level ("" for none); `where` names the step in errors. */
int gd_infer_curve(gd_inference *run_inf, const gd_curve *curve, const gd_segmentation *seg,
                   const char *level, uint64_t l2_bytes_hint, int cc_major, int subpartitions,
                   const char *where, gd_err *err);

/* compare.json (when `arch` is given), plots/ (when `plots`, drawn by up to
 * `jobs` gnuplots at once; 0: the cores hwloc reports), report.md, all from
 * the files of the results directory. */
int gd_analyze_run(const char *dir, const gd_arch *arch, int plots, unsigned jobs, gd_err *err);

#endif
