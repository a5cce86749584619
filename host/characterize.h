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
} gd_characterize_ctx;

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
