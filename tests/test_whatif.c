/* test_whatif.c -- `gpudissect whatif`: every combination of the --vary values
 * in order, the files it writes (results.csv, speedup.csv, the bar chart with
 * its data and script, report.md, meta.json), reorder changing the cycles of a
 * conflict-heavy workload and not the regular control's, the geometric mean
 * and the cells it leaves out, and the one-line errors: a bad key, a bad
 * value, a malformed --vary, an unknown workload, --vary on a cuda device.
 */
#include "tests/testing.h"

#include <math.h>

#include "analysis/plot.h"
#include "analysis/results.h"
#include "analysis/whatif_table.h"

static char *read_text(const char *path)
{
    gd_err err;
    size_t n;
    char *s = gd_read_file(path, &n, &err);
    if (!s)
        fail_msg("%s", err.msg);
    return s;
}

/* The value of `column` in the data row of results.csv whose first two fields
 * are "combo","workload". */
static double cell_value(const char *csv, const char *combo, const char *workload,
                         const char *column)
{
    const char *nl = strchr(csv, '\n');
    assert_non_null(nl);
    char header[2048];
    snprintf(header, sizeof header, "%.*s", (int)(nl - csv), csv);
    int want = -1, col = 0;
    for (char *h = header, *save = NULL, *tok; (tok = strtok_r(h, ",", &save)); h = NULL, col++)
        if (!strcmp(tok, column))
            want = col;
    assert_true(want >= 0);
    char prefix[512];
    snprintf(prefix, sizeof prefix, "\n\"%s\",\"%s\",", combo, workload);
    const char *row = strstr(csv, prefix);
    if (!row)
        fail_msg("results.csv has no row %s", prefix + 1);
    row++;
    for (int c = 0; c < want; c++) {
        row = strchr(row, ',');
        assert_non_null(row);
        row++;
    }
    return strtod(row, NULL);
}

static void test_grid_files_and_the_control(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    char cmd[2048], out[16384];
    snprintf(cmd, sizeof cmd,
             "%s whatif --device sim:cn110457238 --workloads scatter:50,vecadd:1 "
             "--vary L1D.reorder=false,true --vary L1D.fifo_entries=16,32 --claim 1.23 "
             "--claim-label 'the claim' --quiet --out %s/w",
             gd_test_binary(), dir);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s: %s", cmd, out);
    char path[1200];
    snprintf(path, sizeof path, "%s/w/results.csv", dir);
    char *csv = read_text(path);
    /* every combination, the first key varying slowest, 2 workloads each */
    const char *combos[] = {"L1D.reorder=false L1D.fifo_entries=16",
                            "L1D.reorder=false L1D.fifo_entries=32",
                            "L1D.reorder=true L1D.fifo_entries=16",
                            "L1D.reorder=true L1D.fifo_entries=32"};
    size_t rows = 0;
    for (const char *p = csv; (p = strchr(p, '\n')) && p[1]; p++)
        rows++;
    assert_int_equal(rows, 8);
    const char *at = csv;
    for (int c = 0; c < 4; c++) {
        char quoted[128];
        snprintf(quoted, sizeof quoted, "\n\"%s\",\"scatter:50\"", combos[c]);
        const char *found = strstr(csv, quoted);
        if (!found || found < at)
            fail_msg("combination %d (%s) missing or out of order", c, combos[c]);
        at = found;
        for (int k = 0; k < 2; k++) {
            const char *wl = k ? "vecadd:1" : "scatter:50";
            assert_int_equal(cell_value(csv, combos[c], wl, "ran"), 1);
            assert_int_equal(cell_value(csv, combos[c], wl, "errors"), 0);
            assert_true(cell_value(csv, combos[c], wl, "cycles") > 0);
        }
    }
    /* reorder moves the conflict-heavy workload's cycles, not the control's */
    for (int f = 0; f < 2; f++) {
        double s0 = cell_value(csv, combos[f], "scatter:50", "cycles");
        double s1 = cell_value(csv, combos[2 + f], "scatter:50", "cycles");
        double v0 = cell_value(csv, combos[f], "vecadd:1", "cycles");
        double v1 = cell_value(csv, combos[2 + f], "vecadd:1", "cycles");
        assert_true(s0 != s1);
        assert_true(v0 == v1);
        /* what moved it: refused heads re-enqueued instead of blocking */
        assert_true(cell_value(csv, combos[2 + f], "scatter:50", "requeues") > 0);
        assert_int_equal(cell_value(csv, combos[2 + f], "scatter:50", "hol_stall_cycles"), 0);
        assert_true(cell_value(csv, combos[f], "scatter:50", "hol_stall_cycles") > 0);
        assert_int_equal(cell_value(csv, combos[f], "scatter:50", "requeues"), 0);
    }
    /* speedup = cycles of the first combination / cycles */
    double base = cell_value(csv, combos[0], "scatter:50", "cycles");
    double c3 = cell_value(csv, combos[3], "scatter:50", "cycles");
    assert_true(fabs(cell_value(csv, combos[3], "scatter:50", "speedup") - base / c3) < 1e-6);
    free(csv);

    snprintf(path, sizeof path, "%s/w/speedup.csv", dir);
    char *sp = read_text(path);
    assert_non_null(strstr(sp, "\"geometric mean\",1,"));
    free(sp);
    snprintf(path, sizeof path, "%s/w/report.md", dir);
    char *rep = read_text(path);
    assert_non_null(strstr(rep, "geometric mean"));
    assert_non_null(strstr(rep, "the claim"));
    assert_non_null(strstr(rep, "gpudissect whatif --device sim:cn110457238 "));
    assert_non_null(strstr(rep, "--vary L1D.reorder=false,true"));
    assert_non_null(strstr(rep, "--claim-label 'the claim'")); /* quoted as typed */
    assert_non_null(strstr(rep, "plots/speedup.png"));
    free(rep);
    snprintf(path, sizeof path, "%s/w/plots/speedup.gp", dir);
    char *gp = read_text(path);
    assert_non_null(strstr(gp, "speedup.dat"));
    assert_non_null(strstr(gp, "1.230000")); /* the claim's line */
    free(gp);
    snprintf(path, sizeof path, "%s/w/plots/speedup.dat", dir);
    char *dat = read_text(path);
    assert_non_null(strstr(dat, "\nGM\t1.000000\t"));
    free(dat);
    snprintf(path, sizeof path, "%s/w/meta.json", dir);
    char *meta = read_text(path);
    assert_non_null(strstr(meta, "\"combinations_done\": 4"));
    free(meta);
    gd_err err;
    snprintf(path, sizeof path, "%s/w/plots/speedup.png", dir);
    if (access(path, F_OK) == 0) {
        assert_int_equal(gd_plot_check_png(path, &err), 0);
        snprintf(path, sizeof path, "%s/w/plots/speedup.svg", dir);
        assert_int_equal(gd_plot_check_svg(path, &err), 0);
    } else {
        printf("note: no picture (gnuplot missing?): the data and script were checked\n");
    }
    gd_test_rmrf(dir);
    free(dir);
}

/* Each refusal is one line naming what is wrong, and nothing runs. */
static void test_one_line_errors(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    const struct {
        const char *args, *says;
    } cases[] = {
        {"--device sim:cn110457238 --workloads vecadd --vary L1D.bogus=1,2", "bogus"},
        {"--device sim:cn110457238 --workloads vecadd --vary L1D.reorder=false,maybe",
         "L1D.reorder=maybe"},
        {"--device sim:cn110457238 --workloads vecadd --vary L1D.coalescer_rate=1,64",
         "coalescer_rate"},
        {"--device sim:cn110457238 --workloads vecadd --vary L1D.reorder", "SECTION.KEY=V1,V2"},
        {"--device sim:cn110457238 --workloads vecadd --vary L1D.reorder+=false,true",
         "SECTION.KEY=V1,V2"},
        {"--device sim:cn110457238 --workloads vecadd --vary L1D.reorder+L1D.nope=false,true",
         "nope"},
        {"--device sim:cn110457238 --workloads vecadd --vary L1D.reorder=true,,false",
         "empty value"},
        {"--device sim:cn110457238 --workloads nosuch", "unknown workload 'nosuch'"},
        {"--device sim:cn110457238 --workloads scatter:lots", "must be a number"},
        {"--device cuda:0 --workloads vecadd --vary L1D.reorder=false,true", "sim device"},
        {"--device sim:nosucharch --workloads vecadd", "nosucharch"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[2048], out[8192];
        snprintf(cmd, sizeof cmd, "%s whatif %s --quiet --out %s/e%zu", gd_test_binary(),
                 cases[i].args, dir, i);
        assert_int_not_equal(gd_test_run(cmd, out, sizeof out), 0);
        if (!strstr(out, cases[i].says))
            fail_msg("'%s' says '%s', not '%s'", cases[i].args, out, cases[i].says);
        const char *nl = strchr(out, '\n');
        assert_true(nl == NULL || nl[1] == 0); /* one line */
        char path[1200];
        snprintf(path, sizeof path, "%s/e%zu/results.csv", dir, i);
        assert_int_not_equal(access(path, F_OK), 0); /* nothing ran */
    }
    gd_test_rmrf(dir);
    free(dir);
}

/* KEY1+KEY2=V1,V2 varies keys together: two combinations, not four, each
 * key taking the same value; --set adds to every combination. */
static void test_joint_vary_and_set(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    char cmd[2048], out[8192];
    snprintf(cmd, sizeof cmd,
             "%s whatif --device sim:cn110457238 --workloads fig2 --set L1D.fifo_tail_ports=2 "
             "--vary L1D.reorder+L1D.pipelined_issue=false,true --quiet --out %s/j",
             gd_test_binary(), dir);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s: %s", cmd, out);
    char path[1200];
    snprintf(path, sizeof path, "%s/j/results.csv", dir);
    char *csv = read_text(path);
    size_t rows = 0;
    for (const char *p = csv; (p = strchr(p, '\n')) && p[1]; p++)
        rows++;
    assert_int_equal(rows, 2);
    const char *off = "L1D.reorder=false L1D.pipelined_issue=false";
    const char *on = "L1D.reorder=true L1D.pipelined_issue=true";
    assert_int_equal(cell_value(csv, off, "fig2", "requeues"), 0);
    assert_true(cell_value(csv, on, "fig2", "requeues") > 0);
    /* reorder + pipelined issue finish the scenario sooner */
    assert_true(cell_value(csv, on, "fig2", "cycles") < cell_value(csv, off, "fig2", "cycles"));
    free(csv);
    snprintf(path, sizeof path, "%s/j/meta.json", dir);
    char *meta = read_text(path);
    assert_non_null(strstr(meta, "L1D.fifo_tail_ports=2"));
    free(meta);
    gd_test_rmrf(dir);
    free(dir);
}

/* On a cuda device: one combination, the card as it is, timed by the host.
 * The mock driver runs no kernel, so the workload's check must call its
 * output wrong -- the run is recorded, reported, and the exit status is 1. */
static void test_cuda_single_combination(void **state)
{
    (void)state;
    const char *mock = gd_test_mock_libcuda();
    if (!mock)
        GD_SKIP("mock driver libmockcuda.so not found next to the test (or GD_MOCK_LIBCUDA)");
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    char cmd[2048], out[8192];
    snprintf(cmd, sizeof cmd,
             "GPUDISSECT_LIBCUDA='%s' %s whatif --device cuda:0 --workloads vecadd:1 --quiet "
             "--out %s/c",
             mock, gd_test_binary(), dir);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 1);
    assert_non_null(strstr(out, "wrong result"));
    char path[1200];
    snprintf(path, sizeof path, "%s/c/results.csv", dir);
    char *csv = read_text(path);
    assert_int_equal(cell_value(csv, "(arch as is)", "vecadd:1", "ran"), 1);
    assert_true(cell_value(csv, "(arch as is)", "vecadd:1", "errors") > 0);
    assert_true(cell_value(csv, "(arch as is)", "vecadd:1", "wall_ms") > 0);
    free(csv);
    snprintf(path, sizeof path, "%s/c/report.md", dir);
    char *rep = read_text(path);
    assert_non_null(strstr(rep, "output words differ"));
    free(rep);
    gd_test_rmrf(dir);
    free(dir);
}

/* The geometric mean takes the workloads that ran correctly in both the
 * first combination and this one, and no other. */
static void test_speedups_and_geometric_mean(void **state)
{
    (void)state;
    char combo[3][GD_WHATIF_LABEL_BYTES] = {"a", "b", "c"};
    char workload[3][64] = {"x", "y", "z"};
    gd_whatif_cell cells[9];
    memset(cells, 0, sizeof cells);
    const double cycles[9] = {100, 200, 300, 50, 400, 300, 25, 100, 150};
    for (int i = 0; i < 9; i++) {
        cells[i].ran = 1;
        cells[i].cycles = cycles[i];
    }
    cells[2 * 3 + 2].errors = 5; /* z under c: a wrong result */
    gd_whatif w = {.combo_count = 3, .combo = combo, .workload_count = 3, .workload = workload,
                   .cells = cells, .combos_done = 3};
    assert_true(gd_whatif_speedup(&w, 0, 1) == 1);
    assert_true(gd_whatif_speedup(&w, 1, 0) == 2);
    assert_true(gd_whatif_speedup(&w, 1, 1) == 0.5);
    size_t used;
    assert_true(fabs(gd_whatif_gmean(&w, 1, &used) - 1.0) < 1e-12); /* 2, 0.5, 1 */
    assert_int_equal(used, 3);
    assert_true(isnan(gd_whatif_speedup(&w, 2, 2)));
    assert_true(fabs(gd_whatif_gmean(&w, 2, &used) - sqrt(8.0)) < 1e-12); /* 4, 2 */
    assert_int_equal(used, 2);
    cells[0].ran = 0; /* x never ran in the baseline */
    assert_true(fabs(gd_whatif_gmean(&w, 1, &used) - sqrt(0.5)) < 1e-12);
    assert_int_equal(used, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_files_and_the_control),
        cmocka_unit_test(test_one_line_errors),
        cmocka_unit_test(test_joint_vary_and_set),
        cmocka_unit_test(test_cuda_single_combination),
        cmocka_unit_test(test_speedups_and_geometric_mean),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
