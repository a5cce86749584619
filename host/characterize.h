/* characterize.h -- suite, analysis, comparison, plots, report (characterize.c). */
#ifndef GD_CHARACTERIZE_H
#define GD_CHARACTERIZE_H

#include <jansson.h>
#include <stdio.h>

#include "analysis/arch.h"
#include "analysis/infer.h"
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
    int resume;                /* --resume: steps whose files are complete are not measured again */
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

/* compare.json (when `arch` is given), plots/ (when `plots`), report.md, all from
 * the files of the results directory. */
int gd_analyze_run(const char *dir, const gd_arch *arch, int plots, gd_err *err);

#endif
