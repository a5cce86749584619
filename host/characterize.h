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
    /* the `--carveout` step: inferred.json's "l1d_by_carveout" rows, and what
     * the curve just measured showed */
    json_t *carveout_rows;
    uint64_t carveout_l1d_bytes;
    double carveout_confidence;
} gd_characterize_ctx;

/* Runs the suite's steps and writes inferred.json (meta's probes list grows as
 * steps run, and is rewritten after each). */
int gd_characterize(gd_characterize_ctx *ctx, json_t *meta, gd_err *err);

/* compare.json (when `arch` is given), plots/ (when `plots`), report.md, all from
 * the files of the results directory. */
int gd_analyze_run(const char *dir, const gd_arch *arch, int plots, gd_err *err);

#endif
