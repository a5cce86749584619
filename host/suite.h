/* suite.h -- named lists of probes and sweeps (bench/suites/NAME.suite).
 *
 * A suite file has one step per line:  LABEL PROBE OPTIONS...  with the options
 * of `gpudissect run` (--sweep, --adaptive, --resolution, --stride, --variant,
 * --footprint, --pattern, --seed, --samples), --level (the level a step
 * measures: a stride sweep's, an attacker-victim pair's) and --refine-below
 * (an adaptive step bisects only the knees whose bracket starts below it).  Sizes may be
 * expressions over what is known when the step runs: the size of any level the
 * steps before inferred, by its schema name (L2 starts as the size the device
 * reports), and NAME_LINE for its fetch granularity, e.g. `--sweep 1KiB:4*L2`,
 * `--stride max(L1D_LINE,L2_LINE)`, `--footprint (L0I+L1I)/2`.
 * '#' starts a comment.
 */
#ifndef GD_SUITE_H
#define GD_SUITE_H

#include <stddef.h>
#include <stdint.h>

#include "host/device.h"
#include "analysis/infer.h"
#include "kernels/probe.h"

#define GD_SUITE_MAX_STEPS 64
#define GD_SUITE_EXPR_BYTES 96
#define GD_SUITE_MAX_CARVEOUTS 32

typedef struct gd_suite_step {
    char label[64];
    const gd_probe *probe;
    gd_probe_opts opts;
    char sweep_from[GD_SUITE_EXPR_BYTES], sweep_to[GD_SUITE_EXPR_BYTES];
    char sweep_steps[GD_SUITE_EXPR_BYTES]; /* "", "N" or "+EXPR" */
    char footprint[GD_SUITE_EXPR_BYTES];   /* "" or an expression */
    char resolution[GD_SUITE_EXPR_BYTES];  /* "" or an expression */
    char refine_below[GD_SUITE_EXPR_BYTES]; /* "" or an expression (adaptive: knees below it) */
    char stride[GD_SUITE_EXPR_BYTES];      /* "" or an expression */
    char run_if[GD_SUITE_EXPR_BYTES];      /* --if: "" or an expression; the step runs
                                            * only where it is nonzero */
    int adaptive;
    char level[8];                         /* the level a step measures (--level) */
    int line;                              /* in the suite file */
    /* --carveout P1,P2,...: the step is a p-chase measured once per carve-out
     * preference (percent of the largest shared memory), bisecting the list
     * where the L1D size changes (host/characterize.c) */
    int carveouts[GD_SUITE_MAX_CARVEOUTS];
    unsigned carveout_count;
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

/* Variables an expression may use: NAME is the size of a level of the results
 * schema (L0I, L1I, L15I, L1C, L15C, L1D, L2, ...), NAME_LINE its fetch
 * granularity, as far as the steps before have inferred them (the L2 size
 * starts as what the device reports).  A value of 0 means "not known yet".
 * NAME? is NAME, or 0 where the GPU has no such level (`absent`), e.g.
 * `--footprint (L0I?+L1I)/2` before Volta.  NAME_WAYS? is 0 also where the ways
 * are not known (yet, or only as a bound). */
typedef struct gd_suite_vars {
    uint64_t size[GD_INF_COUNT];
    uint64_t line[GD_INF_COUNT];
    uint64_t ways[GD_INF_COUNT]; /* NAME_WAYS: associativity (pchase_fine, const_fine) */
    uint8_t random[GD_INF_COUNT]; /* NAME_RANDOM: 1 where the steps before found the
                                   * level replacing at random, else 0 (never unknown) */
    /* levels this GPU does not have (an L0I before Volta: compute capability
     * below 7, as the instruction-cache inference names its levels): NAME is
     * an error that says so, NAME? is 0 */
    uint8_t absent[GD_INF_COUNT];
} gd_suite_vars;

/* Evaluates a size expression. */
int gd_suite_eval(const char *expr, const gd_suite_vars *vars, uint64_t *out, gd_err *err);

#endif
