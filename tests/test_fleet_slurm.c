/* test_fleet_slurm.c -- a real Slurm job array, submitted, waited for, merged.
 *
 * tests/slurm-local.sh brings up munged, slurmctld and slurmd on localhost
 * with a configuration generated into a temporary directory (its own munge
 * key and socket, state, spool, logs, free ports); the teardown stops them
 * whatever the test did.  Where that cannot happen (Slurm not installed, a
 * daemon that does not start) the test prints "skipped: slurm not available"
 * with the reason; `make test` installs slurm-wlm and munge (the Makefile's
 * deps), so in CI it runs.
 *
 * The array: six tasks, each characterizing sim:tiny with the quick suite and
 * its own noise seed (--set noise.seed=1%a: 10, 11, ..., since the simulator
 * reads seed 0 as 1); task 3 is the "bad card" (its L1D is 4 KiB, not 2) and
 * task 5 a broken one (an arch value that does not parse).  About 20 s on two
 * cores.  The merge must flag task 3's card on L1D.size_bytes and nothing
 * else, and report task 5 as failed with the arch error.
 */
#include "tests/testing.h"

#include <jansson.h>
#include <sys/stat.h>

#include "tests/results_json.h"

#define SLURM_SCRIPT GD_SOURCE_DIR "/tests/slurm-local.sh"
#define SLURM_UNAVAILABLE 77
#define ARRAY_TASKS 6
#define WAIT_SECONDS 120

typedef struct slurm_fixture {
    char *dir;
    int started;
} slurm_fixture;

static char out[65536];

static int setup(void **state)
{
    slurm_fixture *f = calloc(1, sizeof *f);
    f->dir = gd_test_tmpdir();
    *state = f;
    return f->dir ? 0 : -1;
}

static int teardown(void **state)
{
    slurm_fixture *f = *state;
    char cmd[1200];
    if (f->started) {
        snprintf(cmd, sizeof cmd, "%s stop %s/slurm", SLURM_SCRIPT, f->dir);
        gd_test_run(cmd, out, sizeof out);
    }
    gd_test_rmrf(f->dir);
    free(f->dir);
    free(f);
    return 0;
}

static const char *str(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : "";
}

static char *read_all(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return NULL;
    char *buf = calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, fp);
    buf[n] = 0;
    fclose(fp);
    return buf;
}

static void test_slurm_array_flags_the_bad_card(void **state)
{
    slurm_fixture *f = *state;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s start %s/slurm", SLURM_SCRIPT, f->dir);
    f->started = 1; /* stop whatever part of it came up */
    int rc = gd_test_run(cmd, out, sizeof out);
    if (rc == SLURM_UNAVAILABLE)
        GD_SKIP("slurm not available: %s", out);
    if (rc != 0)
        fail_msg("slurm-local.sh start: exit %d: %s", rc, out);
    char conf[1200];
    snprintf(conf, sizeof conf, "%s/slurm/slurm.conf", f->dir);
    setenv("SLURM_CONF", conf, 1);

    char fleet[1200];
    snprintf(fleet, sizeof fleet, "%s/fleet", f->dir);
    snprintf(cmd, sizeof cmd,
             "%s fleet submit --device sim:tiny --array-size %d --suite quick "
             "--set noise.jitter=2 --set 'noise.seed=1%%a' --task-set 3:L1D.size=4KiB "
             "--task-set 5:L1D.size=lots --out %s -- --time=10",
             gd_test_binary(), ARRAY_TASKS, fleet);
    rc = gd_test_run(cmd, out, sizeof out);
    if (rc != 0)
        fail_msg("fleet submit: exit %d: %s", rc, out);
    /* stdout is the job id alone on its line (stderr says more) */
    char job_id[64] = "";
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"))
        if (line[0] && strspn(line, "0123456789") == strlen(line))
            snprintf(job_id, sizeof job_id, "%s", line);
    assert_true(job_id[0]);

    snprintf(cmd, sizeof cmd, "%s fleet status %s --wait %d", gd_test_binary(), fleet,
             WAIT_SECONDS);
    rc = gd_test_run(cmd, out, sizeof out);
    if (rc != 0)
        fail_msg("fleet status --wait: exit %d: %s", rc, out);
    /* five tasks ran to the end; the broken one's task exits non-zero */
    assert_non_null(strstr(out, "0 pending, 0 running, 5 completed, 1 failed"));
    assert_non_null(strstr(out, "5:FAILED"));

    snprintf(cmd, sizeof cmd, "%s fleet merge %s", gd_test_binary(), fleet);
    rc = gd_test_run(cmd, out, sizeof out);
    if (rc != 0)
        fail_msg("fleet merge: exit %d: %s", rc, out);
    json_t *doc = gd_test_load_json(fleet, "fleet.json");
    const json_t *sum = json_object_get(doc, "summary");
    assert_int_equal(json_integer_value(json_object_get(sum, "cards")), ARRAY_TASKS);
    assert_int_equal(json_integer_value(json_object_get(sum, "ok")), ARRAY_TASKS - 1);
    assert_int_equal(json_integer_value(json_object_get(sum, "failed")), 1);
    assert_int_equal(json_integer_value(json_object_get(sum, "missing")), 0);

    /* exactly one outlier: the bad card, by its L1D size */
    const json_t *outliers = json_object_get(doc, "outliers");
    if (json_array_size(outliers) != 1)
        fail_msg("want one outlier, got %zu:\n%s", json_array_size(outliers), out);
    const json_t *o = json_array_get(outliers, 0);
    assert_string_equal(str(o, "parameter"), "L1D.size_bytes");
    assert_non_null(strstr(str(o, "card"), "-a3"));
    assert_true(json_number_value(json_object_get(o, "value")) == 4096);
    assert_true(json_number_value(json_object_get(o, "median")) == 2048);

    /* the broken card failed, and says why */
    const json_t *failed = json_object_get(doc, "failed");
    assert_int_equal(json_array_size(failed), 1);
    assert_non_null(strstr(str(json_array_get(failed, 0), "card"), "-a5"));
    assert_non_null(strstr(str(json_array_get(failed, 0), "reason"), "size"));

    /* every card came from this job, each with its own noise seed: no card's
     * p-chase data equal the first card's */
    char *first = NULL;
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(doc, "cards"), i, c) {
        char path[1400];
        snprintf(path, sizeof path, "%s/%s/status.json", fleet, str(c, "card"));
        json_t *st = json_load_file(path, 0, NULL);
        assert_non_null(st);
        assert_string_equal(str(json_object_get(st, "slurm"), "array_job_id"), job_id);
        json_decref(st);
        if (strcmp(str(c, "status"), "ok"))
            continue;
        snprintf(path, sizeof path, "%s/%s/pchase.csv", fleet, str(c, "card"));
        char *csv = read_all(path);
        assert_non_null(csv);
        if (!first) {
            first = csv;
        } else {
            assert_string_not_equal(first, csv);
            free(csv);
        }
    }
    free(first);
    json_decref(doc);

    /* the report and the overlay */
    char path[1400];
    struct stat st;
    snprintf(path, sizeof path, "%s/fleet.md", fleet);
    assert_int_equal(stat(path, &st), 0);
    snprintf(path, sizeof path, "%s/plots/fleet-pchase.png", fleet);
    assert_int_equal(stat(path, &st), 0);
    /* a job the controller never had: status says so, in one line */
    char other[1200];
    snprintf(other, sizeof other, "%s/unknown", f->dir);
    assert_int_equal(mkdir(other, 0777), 0);
    snprintf(path, sizeof path, "%s/fleet-job.json", other);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("{\"job_id\": \"987654\", \"array_size\": 2}\n", fp);
    fclose(fp);
    snprintf(cmd, sizeof cmd, "%s fleet status %s", gd_test_binary(), other);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 1);
    assert_non_null(strstr(out, "job 987654: neither squeue"));
    /* no task left a partial directory */
    snprintf(cmd, sizeof cmd, "ls -a %s | grep -c partial", fleet);
    gd_test_run(cmd, out, sizeof out);
    assert_int_equal(atoi(out), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_slurm_array_flags_the_bad_card, setup, teardown),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
