/* test_big_l2.c -- `characterize --suite full` on a 40 MiB L2 finishes (issue
 * 12, item 3 of the store/big-L2 work; issue 17's "a 4xL2 sweep at a 16-byte
 * stride" that ran into the simulator's 2^32-cycle watchdog).
 *
 * sim:a100 has the 40 MiB L2 (two 20 MiB partitions).  The run must end (status
 * 0, or 3 when a step failed) with an inferred.json; stride-l2 (the step that
 * used to die) and store-path not among the failed steps; the L2's size
 * inferred, and every parameter issue 12 names matching compare.json: the L2's
 * size, near and far latency and fetch granularity, both TLBs' coverage and
 * latency, the page, the DRAM latency, row hit and row switch, DRAM and L2
 * bandwidth, the store verdicts and the slice count and period; every step
 * that failed or was skipped saying why in meta.json.  The same on sim:h100 (50 MiB).  It takes minutes
 * on this 2-core machine, so it runs under `make recovery` (GD_BIG_L2=1) and
 * says "skipped" otherwise.  Not asserted: DRAM.copy_bytes_per_cycle (63% and
 * 60% of the peak with the write drain, measured by the probe alone: README,
 * Below the L1, Limits) and L2.line_bytes (not measured).
 */
#include "tests/testing.h"

#include <jansson.h>
#include <stdlib.h>

#include "tests/results_json.h"

static const char *verdict_of(const json_t *cmp, const char *parameter)
{
    size_t i;
    const json_t *p;
    json_array_foreach(json_object_get(cmp, "parameters"), i, p)
        if (!strcmp(json_string_value(json_object_get(p, "parameter")), parameter))
            return json_string_value(json_object_get(p, "verdict"));
    return NULL;
}

static void full_suite_on(const char *arch)
{
    if (!getenv("GD_BIG_L2")) {
        printf("skipped: set GD_BIG_L2=1 to run the full suite on a 40 MiB L2 (make recovery "
               "does)\n");
        return;
    }
    char *dir = gd_test_tmpdir();
    char run[1200], cmd[2048], out[16384];
    snprintf(run, sizeof run, "%s/%s", dir, arch);
    snprintf(cmd, sizeof cmd, "%s characterize --device sim:%s --suite full --out %s --quiet --no-plots",
             gd_test_binary(), arch, run);
    /* 0, or 3: some steps failed, each saying why in meta.json (icache-l2's
     * 4 x L2 of code is past icache_seq's 64 MiB) -- the run went on */
    int rc = gd_test_run(cmd, out, sizeof out);
    if (rc != 0 && rc != 3)
        fail_msg("%s failed (status %d):\n%s", cmd, rc, out);
    json_t *meta = gd_test_load_json(run, "meta.json");
    size_t i;
    const json_t *e;
    int failed = 0, skipped = 0;
    json_array_foreach(json_object_get(meta, "probes"), i, e) {
        const char *label = json_string_value(json_object_get(e, "csv"));
        const json_t *f = json_object_get(e, "failed"), *s = json_object_get(e, "skipped");
        if (f) {
            failed++;
            assert_true(json_is_string(f) && json_string_length(f) > 0);
            printf("note: %s failed: %s\n", label, json_string_value(f));
            /* the step this work made fit must not be among them */
            assert_string_not_equal(label, "stride-l2");
            assert_string_not_equal(label, "store-path");
        }
        if (s) {
            skipped++;
            assert_true(json_is_string(s) && json_string_length(s) > 0);
        }
    }
    printf("note: %d steps failed, %d skipped (each says why)\n", failed, skipped);
    json_t *inf = gd_test_load_json(run, "inferred.json");
    const json_t *l2 = gd_test_level(inf, "L2");
    assert_non_null(l2);
    assert_true(json_is_integer(json_object_get(l2, "size_bytes")));
    assert_true(json_integer_value(json_object_get(l2, "sector_bytes")) == 32);
    assert_true(json_is_object(json_object_get(inf, "store")));
    json_t *cmp = gd_test_load_json(run, "compare.json");
    /* the L2 size too: the near -> far -> DRAM climb of a chase at the 32-byte
     * sector was read as random replacement (55 MiB for 40 on 2026-11-25)
     * until pchase-cg chased one access per L2 line */
    static const char *const wanted[] = {
        "L2.size_bytes",        "L2.latency_cycles",      "L2FAR.latency_cycles",
        "L2.sector_bytes",      "DRAM.latency_cycles",    "TLB1.size_bytes",
        "TLB1.latency_cycles",  "TLB1.sector_bytes",      "TLB2.size_bytes",
        "TLB2.latency_cycles",  "DRAM.row_hit_cycles",    "DRAM.row_switch_cycles",
        "DRAM.row_effect",      "DRAM.read_bytes_per_cycle", "L2.read_bytes_per_cycle",
        "L2.write_bytes_per_cycle", "L2.copy_bytes_per_cycle",
        "L2.write_allocate",    "L1D.write_allocate",     "L1D.write_policy",
        "L2.slices",            "L2.slice_period_bytes"};
    int bad = 0;
    for (size_t w = 0; w < sizeof wanted / sizeof wanted[0]; w++) {
        const char *v = verdict_of(cmp, wanted[w]);
        if (!v || strcmp(v, "match")) {
            printf("sim:%s --suite full: %s is %s\n", arch, wanted[w], v ? v : "absent");
            bad++;
        }
    }
    if (bad)
        fail_msg("sim:%s --suite full: %d of the issue-12 parameters do not match", arch, bad);
    json_decref(meta);
    json_decref(inf);
    json_decref(cmp);
    gd_test_rmrf(dir);
    free(dir);
}

static void test_full_suite_on_40mib_l2(void **state)
{
    (void)state;
    full_suite_on("a100");
}

static void test_full_suite_on_50mib_l2(void **state)
{
    (void)state;
    full_suite_on("h100");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_suite_on_40mib_l2),
        cmocka_unit_test(test_full_suite_on_50mib_l2),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
