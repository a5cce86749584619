/* test_dram_row.c -- issue 12: the DRAM rows the dram_row probe measures
 * (kernels/dram_row.c), through characterize runs of one or two steps:
 *
 *   - dram_row on an arch without DRAM rows (sim:t4): "no row effect", one
 *     latency, matching, never an error; on sim:a100 the two latencies differ
 *     by tRP + tRCD exactly;
 *   - the page-close timeout ([DRAM] row_timeout; dram_row --variant idle with
 *     below_l1.suite's own sweep) on the small arch with channels: for a
 *     timeout of 300 and 1000 cycles, and of 300 under a tRAS of 2000 (the
 *     bank may not close before activate + tRAS: 1990 from A's column
 *     command), the inferred bracket holds the model's timeout, the closed
 *     latency is latency + tRCD exactly, and the distance sweep beside it
 *     still matches -- its row switch read as a closed bank (+ tRCD) where the
 *     pairs leave B's bank idle past the timeout, a conflict where not; a flat
 *     curve where there is no timeout (or no channels): "none", matching; a
 *     timeout past the sweep: a lower bound; one below its first gap: every B
 *     closed, the level latency + tRCD; a gap of 0 or past 2^20 cycles refused
 *     with one line; the "row" object of inferred.json read back as written.
 *
 * (Split from tests/test_below_l1.c, whose chases and below_l1 characterize
 * runs check the levels around it.)
 */
#include "tests/testing.h"
#include "tests/results_json.h"

#include <math.h>

#include "analysis/arch.h"
#include "analysis/inferred_below_l1.h"
#include "analysis/model_below_l1.h"
#include "host/device.h"
#include "host/device_registry.h"
#include "kernels/probe.h"
#include "tests/tiny_dram.h"

static int load_arch(const char *name, const char *const *ov, size_t n, gd_arch *a, gd_err *err)
{
    char path[1024];
    if (gd_arch_resolve(name, path, sizeof path, err) != 0)
        return -1;
    return gd_arch_load(path, ov, n, a, err);
}

/* ------------------------------------------------------------------------- */
/* dram_row                                                                  */

/* The verdict of compare.json's row `name` ("absent" if none). */
static const char *verdict_of(const json_t *cmp, const char *name)
{
    size_t i;
    const json_t *p;
    json_array_foreach(json_object_get(cmp, "parameters"), i, p)
        if (!strcmp(json_string_value(json_object_get(p, "parameter")), name))
            return json_string_value(json_object_get(p, "verdict"));
    return "absent";
}

/* A characterize run of `suite_text` on sim:`name` with `sets` (each a --set):
 * the DRAM "row" object of inferred.json.  Every DRAM.row* row of compare.json
 * must match, but those named in `unmeasured` (NULL-terminated, may be NULL),
 * which must be "not measured"; at least min_rows match.  *cmp_out (if asked)
 * gets compare.json. */
static json_t *row_run(const char *name, const char *const *sets, size_t nsets,
                       const char *suite_text, const char *const *unmeasured, size_t min_rows,
                       json_t **cmp_out, char **dir_out)
{
    char *dir = gd_test_tmpdir();
    char suite[1200], run[1200], cmd[4096], out[8192];
    snprintf(suite, sizeof suite, "%s/rows.suite", dir);
    FILE *fp = fopen(suite, "w");
    assert_non_null(fp);
    fputs(suite_text, fp);
    fclose(fp);
    snprintf(run, sizeof run, "%s/%s", dir, name);
    int n = snprintf(cmd, sizeof cmd, "%s characterize --device sim:%s", gd_test_binary(), name);
    for (size_t k = 0; k < nsets; k++)
        n += snprintf(cmd + n, sizeof cmd - (size_t)n, " --set %s", sets[k]);
    snprintf(cmd + n, sizeof cmd - (size_t)n, " --suite %s --out %s --quiet --no-plots", suite,
             run);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s failed:\n%s", cmd, out);
    json_t *cmp = gd_test_load_json(run, "compare.json");
    size_t i, rows = 0;
    const json_t *p;
    json_array_foreach(json_object_get(cmp, "parameters"), i, p) {
        const char *what = json_string_value(json_object_get(p, "parameter"));
        if (strncmp(what, "DRAM.row", 8))
            continue;
        int skip = 0;
        for (const char *const *u = unmeasured; u && *u; u++)
            skip |= !strcmp(*u, what);
        const char *verdict = json_string_value(json_object_get(p, "verdict"));
        if (strcmp(verdict, skip ? "not measured" : "match"))
            fail_msg("%s: %s is %s (measured %s, expected %s: %s)", name, what, verdict,
                     json_dumps(json_object_get(p, "measured"), JSON_ENCODE_ANY),
                     json_dumps(json_object_get(p, "expected"), JSON_ENCODE_ANY),
                     json_string_value(json_object_get(p, "note")));
        rows += !skip;
    }
    assert_true(rows >= min_rows);
    for (const char *const *u = unmeasured; u && *u; u++)
        assert_string_equal(verdict_of(cmp, *u), "not measured");
    if (cmp_out)
        *cmp_out = cmp;
    else
        json_decref(cmp);
    json_t *inf = gd_test_load_json(run, "inferred.json");
    json_t *row = NULL;
    json_array_foreach(json_object_get(inf, "levels"), i, p)
        if (!strcmp(json_string_value(json_object_get(p, "name")), "DRAM"))
            row = json_incref(json_object_get(p, "row"));
    json_decref(inf);
    assert_non_null(row);
    *dir_out = dir;
    return row;
}

/* One dram_row step on `name`: the DRAM object of inferred.json, and the
 * verdict of each row in compare.json (which must all match). */
static json_t *dram_row_run(const char *name, char **dir_out)
{
    return row_run(name, NULL, 0, "dram-row dram_row --sweep 128:4KiB\n", NULL, 3, NULL, dir_out);
}

static void test_dram_row_flat(void **state)
{
    (void)state;
    char *dir;
    json_t *row = dram_row_run("t4", &dir);
    gd_arch a;
    gd_err err;
    assert_int_equal(load_arch("t4", NULL, 0, &a, &err), 0);
    assert_false(json_is_true(json_object_get(row, "row_effect")));
    assert_true(json_is_null(json_object_get(row, "row_hit_span_bytes")));
    double hit = json_number_value(json_object_get(row, "row_hit_cycles"));
    double sw = json_number_value(json_object_get(row, "row_switch_cycles"));
    assert_true(fabs(hit - a.level[GD_DRAM].latency_cycles) <= 1.0 && hit == sw);
    json_decref(row);
    gd_test_rmrf(dir);
    free(dir);
}

static void test_dram_row_a100(void **state)
{
    (void)state;
    char *dir;
    json_t *row = dram_row_run("a100", &dir);
    gd_arch a;
    gd_err err;
    assert_int_equal(load_arch("a100", NULL, 0, &a, &err), 0);
    const gd_arch_dram *d = &a.level[GD_DRAM].dram;
    assert_true(json_is_true(json_object_get(row, "row_effect")));
    double hit = json_number_value(json_object_get(row, "row_hit_cycles"));
    double sw = json_number_value(json_object_get(row, "row_switch_cycles"));
    assert_true(fabs(hit - a.level[GD_DRAM].latency_cycles) <= 1.0);
    assert_true(fabs(sw - hit - (d->t_rp + d->t_rcd)) <= 1.0);
    assert_int_equal(json_integer_value(json_object_get(row, "row_hit_span_bytes")),
                     d->interleave_bytes < d->row_bytes ? d->interleave_bytes : d->row_bytes);
    json_decref(row);
    gd_test_rmrf(dir);
    free(dir);
}

/* ------------------------------------------------------------------------- */
/* The page-close timeout (dram_row --variant idle)                          */

/* The line labelled `label` of bench/suites/below_l1.suite, newline kept. */
static void below_l1_line(const char *label, char *line, size_t cap)
{
    FILE *fp = fopen(GD_SOURCE_DIR "/bench/suites/below_l1.suite", "r");
    assert_non_null(fp);
    while (fgets(line, (int)cap, fp))
        if (!strncmp(line, label, strlen(label)) && line[strlen(label)] == ' ') {
            fclose(fp);
            return;
        }
    fclose(fp);
    fail_msg("below_l1.suite has no step %s", label);
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_number(v))
        fail_msg("\"row\" has no number %s", key);
    return json_number_value(v);
}

/* dram_ov plus `extra` (n of them) into `out`; returns the count. */
static size_t dram_sets(const char *const *extra, size_t n, const char **out)
{
    size_t k = 0;
    for (size_t i = 0; i < sizeof dram_ov / sizeof dram_ov[0]; i++)
        out[k++] = dram_ov[i];
    for (size_t i = 0; i < n; i++)
        out[k++] = extra[i];
    return k;
}

/* Three timeouts, each with the distance sweep beside the idle one: the
 * bracket holds the model's timeout, the closed latency is latency + tRCD,
 * and every row matches.  The distance sweep's switch (at 4 KiB: B on a bank
 * only the Bs use, one pair -- two DRAM round trips, ~430 cycles -- apart)
 * is a closed bank under 300, a conflict under 1000; under 300 with tRAS
 * 2000, A waits for its bank's precharge (its row opened a pair before), the
 * pairs slow to ~2000 cycles, and B's bank has closed again. */
static void test_dram_idle_timeouts(void **state)
{
    (void)state;
    char idle[256], suite[512];
    below_l1_line("dram-idle", idle, sizeof idle);
    snprintf(suite, sizeof suite, "dram-row dram_row --sweep 128:4KiB\n%s", idle);
    static const struct {
        const char *set[2];
        size_t n;
        double timeout;     /* from A's column command: max(row_timeout, tRAS - tRCD) */
        int switch_closed;  /* the distance sweep's switch: + tRCD, not + tRP + tRCD */
    } cases[] = {
        {{"DRAM.row_timeout=300"}, 1, 300, 1},
        {{"DRAM.row_timeout=1000"}, 1, 1000, 0},
        {{"DRAM.row_timeout=300", "DRAM.tRAS=2000"}, 2, 1990, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *sets[16];
        size_t n = dram_sets(cases[k].set, cases[k].n, sets);
        gd_arch a;
        gd_err err;
        if (load_arch("tiny", sets, n, &a, &err) != 0)
            fail_msg("%s", err.msg);
        const gd_arch_dram *d = &a.level[GD_DRAM].dram;
        double lat = a.level[GD_DRAM].latency_cycles;
        int has;
        double timeout, hit, miss;
        gd_model_dram_idle(&a, &has, &timeout, &hit, &miss);
        assert_true(has);
        assert_true(timeout == cases[k].timeout);
        assert_true(hit == lat && miss == lat + d->t_rcd);
        char *dir;
        json_t *row = row_run("tiny", sets, n, suite, NULL, 6, NULL, &dir);
        double lo = num(row, "row_timeout_min_cycles"), hi = num(row, "row_timeout_cycles");
        printf("note: %s%s%s: closed between %.0f and %.0f idle cycles (model %.0f); "
               "switch %.0f\n",
               cases[k].set[0], cases[k].n > 1 ? " " : "", cases[k].n > 1 ? cases[k].set[1] : "",
               lo, hi, timeout, num(row, "row_switch_cycles"));
        assert_false(json_is_true(json_object_get(row, "row_timeout_lower_bound")));
        assert_true(lo < timeout && timeout <= hi);
        /* the bracket is one step of the sweep: the gaps x1.6 apart */
        assert_true(hi - lo < 0.75 * hi);
        assert_true(num(row, "row_miss_cycles") == lat + d->t_rcd);
        assert_true(num(row, "idle_hit_cycles") == lat);
        assert_true(num(row, "row_hit_cycles") == lat);
        assert_true(num(row, "row_switch_cycles") ==
                    lat + d->t_rcd + (cases[k].switch_closed ? 0 : d->t_rp));
        assert_int_equal(json_integer_value(json_object_get(row, "row_hit_span_bytes")),
                         d->interleave_bytes);
        json_decref(row);
        gd_test_rmrf(dir);
        free(dir);
    }
}

/* Flat idle curves: no timeout (channels, or none) -- "none", matching; a
 * timeout past the sweep's longest idle time -- a lower bound, not measured;
 * one below its first -- every B closed, the level latency + tRCD. */
static void test_dram_idle_flat(void **state)
{
    (void)state;
    char idle[256];
    below_l1_line("dram-idle", idle, sizeof idle);
    static const char *const none[] = {"DRAM.row_timeout=0"};
    static const char *const beyond[] = {"DRAM.row_timeout=100000"};
    static const char *const below[] = {"DRAM.row_timeout=100"};
    static const char *const timeout_rows[] = {"DRAM.row_timeout_cycles", NULL};
    static const char *const beyond_rows[] = {"DRAM.row_timeout_cycles", "DRAM.row_miss_cycles",
                                              NULL};
    const struct {
        const char *const *extra;
        size_t n;
        int channels;
        const char *const *unmeasured;
        size_t min_rows;
        int closed;         /* the level: latency + tRCD */
    } cases[] = {
        {none, 1, 1, NULL, 1, 0},
        {NULL, 0, 0, NULL, 1, 0}, /* tiny alone: no channels */
        {beyond, 1, 1, beyond_rows, 0, 0},
        {below, 1, 1, timeout_rows, 1, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *sets[16];
        size_t n = cases[k].channels ? dram_sets(cases[k].extra, cases[k].n, sets) : 0;
        gd_arch a;
        gd_err err;
        if (load_arch("tiny", sets, n, &a, &err) != 0)
            fail_msg("%s", err.msg);
        double lat = a.level[GD_DRAM].latency_cycles;
        json_t *cmp;
        char *dir;
        json_t *row = row_run("tiny", sets, n, idle, cases[k].unmeasured, cases[k].min_rows, &cmp,
                              &dir);
        double lo = num(row, "row_timeout_min_cycles"), hi = num(row, "row_timeout_cycles");
        double level = num(row, "idle_hit_cycles");
        printf("note: %s: flat at %.0f from %.0f to %.0f idle cycles\n",
               n ? sets[n - 1] : "no channels", level, lo, hi);
        assert_true(json_is_true(json_object_get(row, "row_timeout_lower_bound")));
        assert_true(json_is_null(json_object_get(row, "row_miss_cycles")));
        assert_true(level == lat + (cases[k].closed ? a.level[GD_DRAM].dram.t_rcd : 0));
        /* the sweep's first gap (64) and last (16384), each + its overshoot
         * and the row-hit latency */
        assert_true(lo > 64 + level && lo < 64 + level + 32);
        assert_true(hi > 16384 + level && hi < 16384 + level + 32);
        assert_string_equal(verdict_of(cmp, "DRAM.row_timeout"),
                            a.level[GD_DRAM].dram.row_timeout ? "absent" : "match");
        if (cases[k].closed)
            assert_string_equal(verdict_of(cmp, "DRAM.row_miss_cycles"), "match");
        if (cases[k].extra == beyond) { /* the lower bound, recorded */
            size_t i;
            const json_t *p;
            int seen = 0;
            json_array_foreach(json_object_get(cmp, "parameters"), i, p)
                if (!strcmp(json_string_value(json_object_get(p, "parameter")),
                            "DRAM.row_timeout_cycles")) {
                    assert_true(json_number_value(json_object_get(p, "lower_bound")) == hi);
                    seen = 1;
                }
            assert_true(seen);
        }
        json_decref(cmp);
        json_decref(row);
        gd_test_rmrf(dir);
        free(dir);
    }
}

/* A gap of 0 or past 2^20 cycles, and an unknown variant: one line each. */
static void test_dram_idle_refused(void **state)
{
    (void)state;
    gd_device *dev;
    gd_err err;
    gd_device_opts o = {NULL, 0};
    if (gd_device_open("sim:tiny", &o, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    const gd_probe *probe = gd_probe_find("dram_row");
    gd_probe_opts opts = {0};
    snprintf(opts.variant, sizeof opts.variant, "idle");
    gd_probe_plan plan;
    static const uint64_t bad[] = {0, (1u << 20) + 1};
    for (size_t k = 0; k < 2; k++) {
        assert_int_not_equal(probe->plan(&opts, gd_device_get_info(dev), bad[k], &plan, &err), 0);
        assert_non_null(strstr(err.msg, "the gap must be 1..1048576 cycles"));
        assert_null(strchr(err.msg, '\n'));
    }
    /* the edges plan, the longest gap counted for the display watchdog: two
     * loads and 525 worst-case accesses (2000 cycles) a pair, 64 pairs */
    assert_int_equal(probe->plan(&opts, gd_device_get_info(dev), 1, &plan, &err), 0);
    gd_probe_plan_free(probe, &plan);
    assert_int_equal(probe->plan(&opts, gd_device_get_info(dev), 1u << 20, &plan, &err), 0);
    assert_int_equal(plan.opts.samples, 64);
    assert_int_equal(plan.dependent_accesses, (2 + 525) * 64);
    gd_probe_plan_free(probe, &plan);
    snprintf(opts.variant, sizeof opts.variant, "ca");
    assert_int_not_equal(probe->plan(&opts, gd_device_get_info(dev), 128, &plan, &err), 0);
    assert_non_null(strstr(err.msg, "unknown variant 'ca' (it has cg and idle)"));
    gd_device_close(dev);
    /* and from the command line, one line on stderr */
    char cmd[1024], out[4096];
    snprintf(cmd, sizeof cmd, "%s run --device sim:tiny --probe dram_row --variant idle --sweep "
                              "2MiB:2MiB --quiet --out /nonexistent/gd-idle",
             gd_test_binary());
    assert_int_not_equal(gd_test_run(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "the gap must be 1..1048576 cycles, got 2097152"));
    assert_true(strchr(out, '\n') == out + strlen(out) - 1);
}

/* inferred.json's "row": both sweeps, the idle one alone (no distance keys),
 * a file from before the idle sweep (no idle keys): read back as written. */
static void test_row_json_round_trip(void **state)
{
    (void)state;
    gd_inferred_below b, back;
    memset(&b, 0, sizeof b);
    gd_inferred_rows *r = &b.rows;
    *r = (gd_inferred_rows){.has = 1, .has_distance = 1, .row_effect = 1, .row_hit_cycles = 540,
                            .row_switch_cycles = 560, .row_hit_span_bytes = 256,
                            .switch_distance_bytes = 16384, .confidence = 0.75,
                            .has_idle = 1, .row_timeout_lower_bound = 0,
                            .row_timeout_cycles = 1606, .row_timeout_min_cycles = 1317,
                            .row_miss_cycles = 562, .idle_hit_cycles = 540,
                            .idle_confidence = 1};
    snprintf(r->from, sizeof r->from, "dram-row");
    snprintf(r->idle_from, sizeof r->idle_from, "dram-idle");
    for (int variant = 0; variant < 3; variant++) {
        if (variant == 1)
            r->has_distance = 0;
        if (variant == 2) {
            r->has_distance = 1;
            r->has_idle = 0;
        }
        json_t *o = json_object();
        gd_inferred_below_to_json(&b, "DRAM", o);
        memset(&back, 0, sizeof back);
        gd_inferred_below_from_json(&back, "DRAM", o);
        json_decref(o);
        const gd_inferred_rows *x = &back.rows;
        assert_true(x->has);
        assert_int_equal(x->has_distance, r->has_distance);
        assert_int_equal(x->has_idle, r->has_idle);
        if (r->has_distance) {
            assert_true(x->row_effect && x->row_hit_cycles == 540 && x->row_switch_cycles == 560);
            assert_int_equal(x->row_hit_span_bytes, 256);
            assert_int_equal(x->switch_distance_bytes, 16384);
            assert_true(x->confidence == 0.75);
            assert_string_equal(x->from, "dram-row");
        }
        if (r->has_idle) {
            assert_false(x->row_timeout_lower_bound);
            assert_true(x->row_timeout_cycles == 1606 && x->row_timeout_min_cycles == 1317);
            assert_true(x->row_miss_cycles == 562 && x->idle_hit_cycles == 540);
            assert_true(x->idle_confidence == 1);
            assert_string_equal(x->idle_from, "dram-idle");
        }
    }
    /* a flat idle curve: no closed latency, null in the file, NAN back */
    r->has_idle = 1;
    r->row_timeout_lower_bound = 1;
    r->row_miss_cycles = NAN;
    json_t *o = json_object();
    gd_inferred_below_to_json(&b, "DRAM", o);
    assert_true(json_is_null(json_object_get(json_object_get(o, "row"), "row_miss_cycles")));
    memset(&back, 0, sizeof back);
    gd_inferred_below_from_json(&back, "DRAM", o);
    json_decref(o);
    assert_true(back.rows.row_timeout_lower_bound && isnan(back.rows.row_miss_cycles));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dram_row_flat),
        cmocka_unit_test(test_dram_row_a100),
        cmocka_unit_test(test_dram_idle_timeouts),
        cmocka_unit_test(test_dram_idle_flat),
        cmocka_unit_test(test_dram_idle_refused),
        cmocka_unit_test(test_row_json_round_trip),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
