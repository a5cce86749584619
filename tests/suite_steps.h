/* suite_steps.h -- a few of bench/suites/full.suite's own lines run as a suite
 * of their own (include after tests/testing.h and tests/results_json.h): the
 * tests that reproduce what one step, or a few, of a full run did on one
 * hierarchy (test_recovery_misses.c, test_icache_random.c).
 */
#ifndef GD_TEST_SUITE_STEPS_H
#define GD_TEST_SUITE_STEPS_H

#include "analysis/results.h"

/* The line of bench/suites/full.suite labelled `label` (with its newline). */
static inline void gd_test_full_suite_line(const char *label, char *line, size_t cap)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/bench/suites/full.suite", GD_SOURCE_DIR);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = strlen(label);
    while (fgets(line, (int)cap, f))
        if (!strncmp(line, label, n) && (line[n] == ' ' || line[n] == '\t')) {
            fclose(f);
            return;
        }
    fclose(f);
    fail_msg("full.suite has no step %s", label);
}

/* characterize `device` (with `sets`, e.g. "--set L0I.prefetch=1") over
 * `first` (suite lines of its own) and the named steps of full.suite into
 * `run` (a directory that must not exist); a step that failed fails the test,
 * and so does one skipped unless `skip_ok` names it. */
static inline void gd_test_characterize_steps(const char *device, const char *sets,
                                              const char *first, const char *const *labels,
                                              const char *skip_ok, const char *run)
{
    static char out[1 << 16];
    gd_err err;
    char suite_path[1100], suite[4096], line[1024];
    snprintf(suite_path, sizeof suite_path, "%s.suite", run);
    int used = snprintf(suite, sizeof suite, "%s", first);
    for (size_t k = 0; labels[k]; k++) {
        gd_test_full_suite_line(labels[k], line, sizeof line);
        used += snprintf(suite + used, sizeof suite - (size_t)used, "%s", line);
    }
    assert_int_equal(gd_write_atomic(suite_path, suite, strlen(suite), &err), 0);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s characterize --device %s %s --suite %s --out %s --quiet --no-plots",
             gd_test_binary(), device, sets, suite_path, run);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s failed:\n%s", cmd, out);
    json_t *meta = gd_test_load_json(run, "meta.json");
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(meta, "probes"), i, e) {
        const char *why = json_string_value(json_object_get(e, "failed"));
        const char *skip = json_string_value(json_object_get(e, "skipped"));
        const char *csv = json_string_value(json_object_get(e, "csv"));
        if (why || (skip && !(skip_ok && csv && !strcmp(csv, skip_ok))))
            fail_msg("%s: step %s %s: %s", device, csv, why ? "failed" : "skipped",
                     why ? why : skip);
    }
    json_decref(meta);
}

#endif
