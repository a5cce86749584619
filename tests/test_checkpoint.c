/* test_checkpoint.c -- LABEL.partial, the checkpoint of a step in progress
 * (host/checkpoint.c), cut at every byte.
 *
 * A SIGKILL can stop an append anywhere: the file is cut to every length from
 * empty to whole, and each cut must read back exactly the records that lie
 * wholly before it (bit for bit: samples, clock, counters), be cut back to
 * them on disk, and take appends again after them.  Also: a point is appended
 * once, a run that is not resuming removes a stale file, and a finished
 * step's points replace the store.  And the samples file is exact.
 */
#include "tests/testing.h"

#include <math.h>
#include <sys/stat.h>

#include <dirent.h>

#include "analysis/curve_samples.h"
#include "analysis/results.h"
#include "host/checkpoint.h"
#include "host/device.h"
#include "host/device_registry.h"
#include "host/runner.h"
#include "kernels/probe.h"

#define POINTS 3

/* Point k: two series of k+3 samples (a NaN among them), a clock, two counters. */
static void make_point(unsigned k, gd_point *p)
{
    memset(p, 0, sizeof *p);
    p->x = 1024u << k;
    p->sm_clock_mhz = k == 1 ? NAN : 1000.5 + k;
    p->series_count = 2;
    for (unsigned s = 0; s < 2; s++) {
        gd_point_series *ps = &p->series[s];
        snprintf(ps->name, sizeof ps->name, s ? "chain_base" : "cycles");
        size_t n = k + 3;
        ps->samples = malloc(n * sizeof(double));
        assert_non_null(ps->samples);
        for (size_t i = 0; i < n; i++)
            ps->samples[i] = s == 1 && i == 1 ? NAN : 100.0 / (double)(i + 1) + k + 0.1 * s;
        assert_int_equal(gd_summarize(ps->samples, n, &ps->summary), 0);
    }
    assert_int_equal(gd_counter_list_add(&p->counters, "l1d.misses", 17.0 + k), 0);
    assert_int_equal(gd_counter_list_add_gauge(&p->counters, "l1d.fifo_max", 3.0 * k), 0);
}

static void assert_same_point(const gd_point *a, const gd_point *b)
{
    assert_int_equal(a->x, b->x);
    assert_memory_equal(&a->sm_clock_mhz, &b->sm_clock_mhz, sizeof(double));
    assert_int_equal(a->series_count, b->series_count);
    for (unsigned s = 0; s < a->series_count; s++) {
        assert_string_equal(a->series[s].name, b->series[s].name);
        assert_int_equal(a->series[s].summary.count, b->series[s].summary.count);
        assert_memory_equal(a->series[s].samples, b->series[s].samples,
                            a->series[s].summary.count * sizeof(double));
        assert_memory_equal(&a->series[s].summary.median, &b->series[s].summary.median,
                            sizeof(double));
    }
    assert_int_equal(a->counters.count, b->counters.count);
    for (size_t i = 0; i < a->counters.count; i++) {
        assert_string_equal(a->counters.items[i].name, b->counters.items[i].name);
        assert_true(a->counters.items[i].value == b->counters.items[i].value);
        assert_int_equal(a->counters.items[i].gauge, b->counters.items[i].gauge);
    }
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void copy_prefix(const char *from, const char *to, long bytes)
{
    size_t len = 0;
    gd_err err;
    char *text = gd_read_file(from, &len, &err);
    assert_non_null(text);
    FILE *f = fopen(to, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, (size_t)bytes, f), (size_t)bytes);
    fclose(f);
    free(text);
}

static void test_cut_at_every_byte(void **state)
{
    (void)state;
    char *tmp = gd_test_tmpdir();
    assert_non_null(tmp);
    gd_point points[POINTS];
    long ends[POINTS]; /* file size after each record */
    char whole[1200], cut[1200];
    snprintf(whole, sizeof whole, "%s/whole%s", tmp, GD_CHECKPOINT_SUFFIX);
    snprintf(cut, sizeof cut, "%s/cut%s", tmp, GD_CHECKPOINT_SUFFIX);
    gd_checkpoint *cp;
    gd_err err;
    assert_int_equal(gd_checkpoint_open(tmp, "whole", 0, &cp, &err), 0);
    for (unsigned k = 0; k < POINTS; k++) {
        make_point(k, &points[k]);
        assert_int_equal(gd_checkpoint_append(cp, &points[k], &err), 0);
        assert_int_equal(gd_checkpoint_append(cp, &points[k], &err), 0); /* once per x */
        ends[k] = file_size(whole);
    }
    gd_checkpoint_close(cp, 0);
    assert_true(ends[0] > 24 && ends[1] > ends[0] && ends[2] > ends[1]);

    for (long bytes = 0; bytes <= ends[POINTS - 1]; bytes++) {
        copy_prefix(whole, cut, bytes);
        assert_int_equal(gd_checkpoint_open(tmp, "cut", 1, &cp, &err), 0);
        unsigned whole_records = 0;
        while (whole_records < POINTS && ends[whole_records] <= bytes)
            whole_records++;
        long kept = whole_records ? ends[whole_records - 1] : 0;
        assert_int_equal(gd_checkpoint_stored(cp), whole_records);
        assert_int_equal(gd_checkpoint_dropped_bytes(cp), bytes - kept);
        assert_int_equal(file_size(cut), kept); /* the torn tail is cut off */
        for (unsigned k = 0; k < POINTS; k++) {
            gd_point got;
            int in_csv = 1;
            int has = gd_checkpoint_has(cp, points[k].x);
            assert_int_equal(has, k < whole_records);
            assert_int_equal(gd_checkpoint_take(cp, points[k].x, &got, &in_csv), has);
            if (has) {
                assert_int_equal(in_csv, 0);
                assert_same_point(&points[k], &got);
                gd_point_free(&got);
                assert_false(gd_checkpoint_has(cp, points[k].x)); /* taken once */
            }
        }
        /* appends go on after the whole records: the next one reads back */
        if (whole_records < POINTS) {
            assert_int_equal(gd_checkpoint_append(cp, &points[POINTS - 1], &err), 0);
            gd_checkpoint_close(cp, 0);
            assert_int_equal(gd_checkpoint_open(tmp, "cut", 1, &cp, &err), 0);
            assert_int_equal(gd_checkpoint_stored(cp), whole_records + 1);
            assert_true(gd_checkpoint_has(cp, points[POINTS - 1].x));
            assert_int_equal(gd_checkpoint_dropped_bytes(cp), 0);
        }
        gd_checkpoint_close(cp, 1);
        assert_int_equal(file_size(cut), -1); /* removed */
    }
    for (unsigned k = 0; k < POINTS; k++)
        gd_point_free(&points[k]);
    gd_test_rmrf(tmp);
    free(tmp);
}

static void test_fresh_run_and_finished_step(void **state)
{
    (void)state;
    char *tmp = gd_test_tmpdir();
    assert_non_null(tmp);
    char path[1200];
    snprintf(path, sizeof path, "%s/s%s", tmp, GD_CHECKPOINT_SUFFIX);
    gd_checkpoint *cp;
    gd_err err;
    gd_point p;
    make_point(0, &p);
    assert_int_equal(gd_checkpoint_open(tmp, "s", 0, &cp, &err), 0);
    assert_int_equal(gd_checkpoint_append(cp, &p, &err), 0);
    gd_checkpoint_close(cp, 0);
    assert_true(file_size(path) > 0);
    /* not resuming: a stale checkpoint is no store, and is removed */
    assert_int_equal(gd_checkpoint_open(tmp, "s", 0, &cp, &err), 0);
    assert_int_equal(gd_checkpoint_stored(cp), 0);
    assert_int_equal(file_size(path), -1);
    /* a finished step's points replace the store and are marked as in its CSV */
    gd_curve finished;
    gd_curve_init(&finished, "s", NULL, NULL);
    gd_point q;
    make_point(1, &q);
    assert_int_equal(gd_curve_insert(&finished, &q), 0);
    gd_checkpoint_use_finished(cp, &finished);
    assert_int_equal(finished.count, 0);
    gd_curve_free(&finished);
    assert_int_equal(gd_checkpoint_stored(cp), 1);
    gd_point got;
    int in_csv = 0;
    assert_int_equal(gd_checkpoint_take(cp, 2048, &got, &in_csv), 1);
    assert_int_equal(in_csv, 1);
    gd_point_free(&got);
    /* the CSV is written again from the first point it does not have */
    assert_int_equal(gd_checkpoint_note_added(cp, 1), 0);
    assert_int_equal(gd_checkpoint_note_added(cp, 0), 1);
    assert_int_equal(gd_checkpoint_note_added(cp, 1), 1);
    gd_checkpoint_close(cp, 1);
    gd_point_free(&p);
    gd_test_rmrf(tmp);
    free(tmp);
}

/* Whether dir holds a file whose name contains `part`. */
static int dir_has(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int found = 0;
    for (struct dirent *e; (e = readdir(d));)
        found |= strstr(e->d_name, part) != NULL;
    closedir(d);
    return found;
}

/* The CSV after each point is a snapshot (renamed into place, no fsync), the
 * same bytes as the durable write; gd_runner_settle_csv writes it once more,
 * durably, only when a point came since the last settle. */
static void test_csv_snapshots_then_settle(void **state)
{
    (void)state;
    char *tmp = gd_test_tmpdir();
    assert_non_null(tmp);
    gd_err err = {{0}};
    /* the two writers give the same files */
    gd_curve c;
    gd_curve_init(&c, "s", NULL, NULL);
    for (unsigned k = 0; k < POINTS; k++) {
        gd_point p;
        make_point(k, &p);
        assert_int_equal(gd_curve_insert(&c, &p), 0);
    }
    char a[1200], b[1200], pa[1300], pb[1300];
    snprintf(a, sizeof a, "%s/a", tmp);
    snprintf(b, sizeof b, "%s/b", tmp);
    assert_int_equal(gd_mkdirs(a, &err), 0);
    assert_int_equal(gd_mkdirs(b, &err), 0);
    assert_int_equal(gd_curve_write_csv_snapshot(&c, a, &err), 0);
    assert_int_equal(gd_curve_write_csv(&c, b, &err), 0);
    const char *files[] = {"s.csv", "s.counters.csv"};
    for (int i = 0; i < 2; i++) {
        snprintf(pa, sizeof pa, "%s/%s", a, files[i]);
        snprintf(pb, sizeof pb, "%s/%s", b, files[i]);
        size_t na, nb;
        char *ta = gd_read_file(pa, &na, &err), *tb = gd_read_file(pb, &nb, &err);
        assert_non_null(ta);
        assert_non_null(tb);
        assert_int_equal(na, nb);
        assert_memory_equal(ta, tb, na);
        free(ta);
        free(tb);
    }
    assert_false(dir_has(a, ".tmp."));
    gd_curve_free(&c);

    /* a sweep on a sim device: snapshots after the points, then the settle */
    char run[1200], csv[1300];
    snprintf(run, sizeof run, "%s/run", tmp);
    assert_int_equal(gd_mkdirs(run, &err), 0);
    gd_device *dev = NULL;
    if (gd_device_open("sim:tiny", NULL, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    gd_curve curve;
    gd_curve_init(&curve, "pchase", gd_probe_find("pchase"), NULL);
    gd_runner runner;
    gd_runner_init(&runner, dev, run, NULL);
    assert_int_equal(gd_runner_settle_csv(&runner, &curve, &err), 0);
    snprintf(csv, sizeof csv, "%s/pchase.csv", run);
    assert_int_equal(file_size(csv), -1); /* nothing to settle: nothing written */
    if (gd_runner_measure(&runner, &curve, 1024, 0, 2, &err) != 0 ||
        gd_runner_measure(&runner, &curve, 2048, 1, 2, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(runner.csv_unsettled);
    long snapshot = file_size(csv);
    assert_true(snapshot > 0);
    assert_int_equal(gd_runner_settle_csv(&runner, &curve, &err), 0);
    assert_false(runner.csv_unsettled);
    assert_int_equal(file_size(csv), snapshot);
    assert_false(dir_has(run, ".tmp."));
    assert_int_equal(gd_curve_read_csv(csv, "pchase", gd_probe_find("pchase"), &c, &err), 0);
    assert_int_equal(c.count, 2);
    gd_curve_free(&c);
    gd_runner_close(&runner);
    gd_curve_free(&curve);
    gd_device_close(dev);
    gd_test_rmrf(tmp);
    free(tmp);
}

/* LABEL.samples.gz: whole values as "%lld" (curve_samples.c writes their
 * digits by hand), the rest as "%.17g" -- the text checked against printf's
 * own, every value read back bit for bit (negative, zero, 2^53 - 1 and 2^53,
 * fractions, huge, NaN, infinity). */
static void test_samples_file_is_exact(void **state)
{
    (void)state;
    static const double v[] = {0,  1,  -1,   42, -7, 9007199254740991.0, -9007199254740991.0,
                               9007199254740992.0, 1.5, -2.25, 1e300, 123456789012345.0,
                               0.1, -0.0, NAN, INFINITY, -INFINITY, 4096, 100.0 / 3};
    const size_t n = sizeof v / sizeof *v;
    gd_curve c, back;
    gd_probe_opts opts = {0};
    gd_curve_init(&c, "exact", gd_probe_find("pchase"), &opts);
    gd_curve_init(&back, "exact", gd_probe_find("pchase"), &opts);
    for (int k = 0; k < 2; k++) {
        gd_curve *cv = k ? &back : &c;
        gd_point p;
        memset(&p, 0, sizeof p);
        p.x = 2048;
        p.sm_clock_mhz = NAN;
        p.series_count = 1;
        snprintf(p.series[0].name, sizeof p.series[0].name, "cycles");
        p.series[0].samples = malloc(n * sizeof(double));
        assert_non_null(p.series[0].samples);
        memcpy(p.series[0].samples, v, n * sizeof(double));
        assert_int_equal(gd_summarize(v, n, &p.series[0].summary), 0);
        assert_int_equal(gd_curve_insert(cv, &p), 0);
    }
    char *tmp = gd_test_tmpdir();
    assert_non_null(tmp);
    gd_err err;
    assert_int_equal(gd_curve_write_samples(&c, tmp, &err), 0);
    /* the text: printf's, number by number */
    char want[4096] = "2048,cycles,", cmd[1200], got[4096];
    size_t len = strlen(want);
    len += (size_t)snprintf(want + len, sizeof want - len, "%zu", n);
    for (size_t i = 0; i < n; i++) {
        if (isfinite(v[i]) && fabs(v[i]) < 9007199254740992.0 && v[i] == floor(v[i]))
            len += (size_t)snprintf(want + len, sizeof want - len, ",%lld", (long long)v[i]);
        else
            len += (size_t)snprintf(want + len, sizeof want - len, ",%.17g", v[i]);
    }
    snprintf(cmd, sizeof cmd, "zcat %s/exact.samples.gz", tmp);
    assert_int_equal(gd_test_run(cmd, got, sizeof got), 0);
    got[strcspn(got, "\n")] = 0;
    assert_string_equal(got, want);
    /* and back: every value as it was (-0 reads as 0, as "%lld" wrote it) */
    for (size_t i = 0; i < n; i++)
        back.points[0].series[0].samples[i] = -1;
    char path[1200];
    snprintf(path, sizeof path, "%s/exact.samples.gz", tmp);
    assert_int_equal(gd_curve_read_samples(path, &back, &err), 0);
    for (size_t i = 0; i < n; i++) {
        double a = v[i] == 0 ? 0.0 : v[i], b = back.points[0].series[0].samples[i];
        if (isnan(a))
            assert_true(isnan(b));
        else
            assert_memory_equal(&a, &b, sizeof a);
    }
    gd_curve_free(&c);
    gd_curve_free(&back);
    gd_test_rmrf(tmp);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cut_at_every_byte),
        cmocka_unit_test(test_fresh_run_and_finished_step),
        cmocka_unit_test(test_csv_snapshots_then_settle),
        cmocka_unit_test(test_samples_file_is_exact),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
