/* suite.h -- named lists of probes and sweeps (bench/suites/NAME.suite).
 *
 * A suite file has one step per line:  LABEL PROBE OPTIONS...  with the options
 * of `gpudissect run` (--sweep, --adaptive, --resolution, --stride, --variant,
 * --footprint, --pattern, --seed, --samples) and --level (the level a stride
 * sweep measures).  Sizes may be expressions over what is known when the step
 * runs: L2 (the L2 size inferred so far, else the one the device reports), L1D
 * (the inferred L1 size), L1D_LINE and L2_LINE (the fetch granularities stride
 * sweeps inferred), e.g. `--sweep 1KiB:4*L2`, `--stride max(L1D_LINE,L2_LINE)`.
 * '#' starts a comment.
 */
#ifndef GD_SUITE_H
#define GD_SUITE_H

#include <stddef.h>
#include <stdint.h>

#include "host/device.h"
#include "kernels/probe.h"

#define GD_SUITE_MAX_STEPS 32
#define GD_SUITE_EXPR_BYTES 96

typedef struct gd_suite_step {
    char label[64];
    const gd_probe *probe;
    gd_probe_opts opts;
    char sweep_from[GD_SUITE_EXPR_BYTES], sweep_to[GD_SUITE_EXPR_BYTES];
    char sweep_steps[GD_SUITE_EXPR_BYTES]; /* "", "N" or "+EXPR" */
    char footprint[GD_SUITE_EXPR_BYTES];   /* "" or an expression */
    char resolution[GD_SUITE_EXPR_BYTES];  /* "" or an expression */
    char stride[GD_SUITE_EXPR_BYTES];      /* "" or an expression */
    int adaptive;
    char level[8];                         /* stride sweeps: "L1D" or "L2" */
    int line;                              /* in the suite file */
} gd_suite_step;

typedef struct gd_suite {
    char name[64];
    char path[512];
    gd_suite_step steps[GD_SUITE_MAX_STEPS];
    size_t step_count;
} gd_suite;

/* The directory suites are read from (GPUDISSECT_SUITE_DIR, else bench/suites). */
const char *gd_suite_dir(void);
/* Loads NAME (bench/suites/NAME.suite) or a path; errors say FILE:LINE. */
int gd_suite_load(const char *name_or_path, gd_suite *out, gd_err *err);

/* Variables an expression may use; a value of 0 means "not known yet". */
typedef struct gd_suite_vars {
    uint64_t l2_bytes;
    uint64_t l1d_bytes;
    uint64_t l1d_line_bytes;  /* fetch granularities from stride sweeps */
    uint64_t l2_line_bytes;
} gd_suite_vars;

/* Evaluates a size expression. */
int gd_suite_eval(const char *expr, const gd_suite_vars *vars, uint64_t *out, gd_err *err);

#endif
