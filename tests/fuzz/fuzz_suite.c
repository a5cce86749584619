/* fuzz_suite.c -- suites: a .suite file, a size expression, a sweep spec.
 *
 * `suite`: the bytes are a suite file, loaded from the scratch directory as
 * `characterize --suite PATH` would, and every step's sizes are evaluated and
 * built into a sweep as characterize does, with the variables a run knows
 * after its first steps.  `expr`: one size expression (`max(L1D_LINE,64)*2`).
 * `sweep`: a first line with the granularity, then FROM:TO[:STEPS|:+STEP];
 * an accepted sweep is sorted, without duplicates, made of whole multiples of
 * the granularity, and at most SWEEP_MAX_POINTS + 1 long.
 */
#include "tests/fuzz/fuzz.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/runner.h"
#include "host/suite.h"

#define FUZZ_SWEEP_MAX_POINTS 100001 /* host/sweep_spec.c's bound, the last point added */

static void fuzz_vars(gd_suite_vars *v)
{
    memset(v, 0, sizeof *v);
    v->size[GD_INF_L1D] = 2048;
    v->line[GD_INF_L1D] = 128;
    v->size[GD_INF_L2] = 16384;
    v->line[GD_INF_L2] = 64;
    v->ways[GD_INF_L1D] = 4;
}

static void check_sweep(const gd_sweep *s, uint64_t granularity, const char *target)
{
    if (s->count == 0 || s->count > FUZZ_SWEEP_MAX_POINTS)
        gd_fuzz_broken(target, "a sweep with no points or too many");
    for (size_t i = 0; i < s->count; i++) {
        if (!s->points[i] || (granularity && s->points[i] % granularity))
            gd_fuzz_broken(target, "a sweep point that is 0 or not a multiple of the granularity");
        if (i && s->points[i] <= s->points[i - 1])
            gd_fuzz_broken(target, "sweep points not strictly increasing");
    }
}

/* characterize's build_sweep (host/characterize.c), on the step's expressions */
static int step_sweep(const gd_suite_step *st, const gd_suite_vars *vars, gd_err *err)
{
    uint64_t from, to, step = 0;
    if (gd_suite_eval(st->sweep_from, vars, &from, err) || gd_suite_eval(st->sweep_to, vars, &to, err))
        return -1;
    char spec[160];
    if (!st->sweep_steps[0])
        snprintf(spec, sizeof spec, "%" PRIu64 ":%" PRIu64, from, to);
    else if (st->sweep_steps[0] == '+') {
        if (gd_suite_eval(st->sweep_steps + 1, vars, &step, err))
            return -1;
        snprintf(spec, sizeof spec, "%" PRIu64 ":%" PRIu64 ":+%" PRIu64, from, to, step);
    } else
        snprintf(spec, sizeof spec, "%" PRIu64 ":%" PRIu64 ":%s", from, to, st->sweep_steps);
    gd_probe_opts opts = st->opts;
    uint64_t stride = 0;
    if (st->stride[0] && gd_suite_eval(st->stride, vars, &stride, err))
        return -1;
    if (stride)
        opts.stride_bytes = stride;
    uint64_t granularity = gd_probe_sweep_granularity(st->probe, &opts);
    gd_sweep sweep;
    if (gd_sweep_parse(spec, granularity, &sweep, err) != 0)
        return -1;
    check_sweep(&sweep, granularity ? granularity : 1, "suite");
    gd_sweep_free(&sweep);
    return 0;
}

int gd_fuzz_suite(const uint8_t *data, size_t size)
{
    if (gd_fuzz_write("fuzz.suite", data, size) != 0)
        abort();
    char path[1024];
    snprintf(path, sizeof path, "%s/fuzz.suite", gd_fuzz_scratch_dir());
    gd_suite *suite = calloc(1, sizeof *suite);
    if (!suite)
        abort();
    gd_err err = {{0}};
    int rc = GD_FUZZ_ACCEPTED;
    if (gd_suite_load(path, suite, &err) != 0) {
        rc = gd_fuzz_rejected(&err, "suite");
    } else {
        gd_suite_vars vars;
        fuzz_vars(&vars);
        for (size_t i = 0; i < suite->step_count; i++) {
            gd_err step_err = {{0}};
            if (!suite->steps[i].probe)
                gd_fuzz_broken("suite", "a step without a probe");
            if (step_sweep(&suite->steps[i], &vars, &step_err) != 0)
                gd_fuzz_rejected(&step_err, "suite"); /* a step characterize records as failed */
        }
    }
    free(suite);
    return rc;
}

int gd_fuzz_expr(const uint8_t *data, size_t size)
{
    char *text = gd_fuzz_text(data, size);
    gd_suite_vars vars;
    fuzz_vars(&vars);
    uint64_t v;
    gd_err err = {{0}};
    int rc = gd_suite_eval(text, &vars, &v, &err) == 0 ? GD_FUZZ_ACCEPTED
                                                         : gd_fuzz_rejected(&err, "expr");
    free(text);
    return rc;
}

int gd_fuzz_sweep(const uint8_t *data, size_t size)
{
    char *text = gd_fuzz_text(data, size);
    char *spec = strchr(text, '\n');
    uint64_t granularity = 1;
    if (spec) {
        *spec++ = 0;
        granularity = strtoull(text, NULL, 10) % (1ull << 40); /* the probes' range and more */
    } else {
        spec = text;
    }
    size_t n = strlen(spec);
    if (n && spec[n - 1] == '\n') /* the file's last newline is not part of the spec */
        spec[n - 1] = 0;
    gd_sweep sweep;
    gd_err err = {{0}};
    int rc;
    if (gd_sweep_parse(spec, granularity, &sweep, &err) == 0) {
        check_sweep(&sweep, granularity ? granularity : 1, "sweep");
        gd_sweep_free(&sweep);
        rc = GD_FUZZ_ACCEPTED;
    } else {
        rc = gd_fuzz_rejected(&err, "sweep");
    }
    free(text);
    return rc;
}
