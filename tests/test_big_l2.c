/* test_big_l2.c -- `characterize --suite full` on a 40 MiB L2 finishes (issue
 * 12, item 3 of the store/big-L2 work; issue 17's "a 4xL2 sweep at a 16-byte
 * stride" that ran into the simulator's 2^32-cycle watchdog).
 *
 * sim:a100 has the 40 MiB L2 (two 20 MiB partitions).  The run must end (status
 * 0, or 3 when a step failed) with an inferred.json; stride-l2 (the step that
 * used to die) and store-path not among the failed steps; the L2's size
 * inferred, its latency and fetch granularity, the DRAM latency and the store
 * verdicts matching compare.json; and every step that failed or was skipped
 * saying why in meta.json.  (The L2 size itself does not match yet: see the
 * note it prints.)  It takes minutes on this 2-core machine, so it
 * runs under `make recovery` (GD_BIG_L2=1) and says "skipped" otherwise.
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

static void test_full_suite_on_40mib_l2(void **state)
{
    (void)state;
    if (!getenv("GD_BIG_L2")) {
        printf("skipped: set GD_BIG_L2=1 to run the full suite on a 40 MiB L2 (make recovery "
               "does)\n");
        return;
    }
    char *dir = gd_test_tmpdir();
    char run[1200], cmd[2048], out[16384];
    snprintf(run, sizeof run, "%s/a100", dir);
    snprintf(cmd, sizeof cmd, "%s characterize --device sim:a100 --suite full --out %s --quiet --no-plots",
             gd_test_binary(), run);
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
    static const char *const wanted[] = {"L2.latency_cycles", "L2.sector_bytes",
                                         "DRAM.latency_cycles", "L2.write_allocate",
                                         "L1D.write_allocate", "L1D.write_policy"};
    for (size_t w = 0; w < sizeof wanted / sizeof wanted[0]; w++) {
        const char *v = verdict_of(cmp, wanted[w]);
        if (!v || strcmp(v, "match"))
            fail_msg("sim:a100 --suite full: %s is %s", wanted[w], v ? v : "absent");
    }
    /* the size is inferred; whether it matches is the analysis' business:
     * the near/far climb of a split L2 reads as random replacement to
     * infer_l2_policy.c (55 MiB for 40 on 2026-11-25; README, Limits) */
    const char *size = verdict_of(cmp, "L2.size_bytes");
    assert_non_null(size);
    printf("note: L2.size_bytes is %s (measured %lld)\n", size,
           (long long)json_integer_value(json_object_get(l2, "size_bytes")));
    json_decref(meta);
    json_decref(inf);
    json_decref(cmp);
    gd_test_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_suite_on_40mib_l2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
