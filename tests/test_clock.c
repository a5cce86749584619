/* test_clock.c -- the effective SM clock of each point (%clock64 against %globaltimer).
 *
 *   - the simulator implements %globaltimer from its cycle count and the arch's
 *     clock_mhz, so the clock a chase measures on sim:ARCH is that arch's clock
 *     (to within a cycle over the timed laps) -- for two arch files and for an
 *     overridden clock, so the value is measured, not copied;
 *   - %globaltimer, like %clock64, needs a 64-bit move;
 *   - the runner puts the clock into the CSV's sm_clock_mhz column (empty where
 *     a probe does not measure it), the curve reader reads it back, and the run's
 *     meta.json keeps each curve's range;
 *   - the report warns when the clock moved by more than 1% during a curve, and
 *     only then.
 */
#include "tests/testing.h"

#include "analysis/report_conditions.h"
#include "analysis/run_load.h"
#include "host/device.h"
#include "host/device_registry.h"
#include "host/runner.h"

#include <math.h>

#define assert_contains(text, needle)                                                          \
    do {                                                                                       \
        const char *haystack_ = (text);                                                        \
        if (!strstr(haystack_, (needle)))                                                      \
            fail_msg("\"%s\" lacks \"%s\"", haystack_, (needle));                              \
    } while (0)

/* One cycle of skew between the two reads, over the shortest timed laps (4096
 * accesses of at least a few cycles each), is well under this. */
#define CLOCK_TOLERANCE_FRACTION 1e-4

static double measure_clock(const char *spec, const gd_device_opts *opts, uint64_t footprint)
{
    gd_device *dev = NULL;
    gd_err err = {{0}};
    if (gd_device_open(spec, opts, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    const gd_probe *probe = gd_probe_find("pchase");
    gd_curve curve;
    gd_curve_init(&curve, "pchase", probe, NULL);
    gd_runner runner;
    gd_runner_init(&runner, dev, NULL, NULL);
    if (gd_runner_measure(&runner, &curve, footprint, 0, 1, &err) != 0)
        fail_msg("%s", err.msg);
    double mhz = curve.points[0].sm_clock_mhz;
    /* a scalar of the point, not one of its series */
    assert_int_equal(gd_point_series_index(&curve.points[0], "sm_clock_mhz"), -1);
    gd_runner_close(&runner);
    gd_curve_free(&curve);
    gd_device_close(dev);
    return mhz;
}

static void expect_clock(double measured, double arch_mhz)
{
    if (!(fabs(measured - arch_mhz) <= arch_mhz * CLOCK_TOLERANCE_FRACTION))
        fail_msg("measured %.6f MHz, the arch clock is %.6f MHz", measured, arch_mhz);
}

static void test_sim_clock_is_the_arch_clock(void **unused)
{
    (void)unused;
    expect_clock(measure_clock("sim:tiny", NULL, 4096), 1000.0);
    expect_clock(measure_clock("sim:t4", NULL, 1 << 20), 1590.0); /* an L2 footprint */
    const char *set[] = {"gpu.clock_mhz=1234"};
    gd_device_opts opts = {.overrides = set, .override_count = 1};
    expect_clock(measure_clock("sim:tiny", &opts, 4096), 1234.0);
}

static void test_globaltimer_needs_64_bits(void **unused)
{
    (void)unused;
    gd_device *dev = NULL;
    gd_err err = {{0}};
    if (gd_device_open("sim:tiny", NULL, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    static const char ptx[] = ".version 7.0\n.target sm_75\n.address_size 64\n"
                              ".visible .entry k()\n{\n    .reg .b32 %r<2>;\n"
                              "    mov.u32 %r1, %globaltimer;\n    ret;\n}\n";
    gd_kernel *k = NULL;
    assert_int_equal(gd_kernel_load(dev, ptx, "k", NULL, &k, &err), -1);
    assert_contains(err.msg, "%globaltimer needs a 64-bit move");
    gd_device_close(dev);
}

static void test_csv_column_and_meta(void **unused)
{
    (void)unused;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    gd_device *dev = NULL;
    gd_err err = {{0}};
    if (gd_device_open("sim:tiny", NULL, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    const gd_probe *probe = gd_probe_find("pchase");
    gd_curve curve;
    gd_curve_init(&curve, "pchase", probe, NULL);
    gd_runner runner;
    gd_runner_init(&runner, dev, dir, NULL);
    json_t *meta = json_object();
    runner.meta = meta;
    if (gd_runner_measure(&runner, &curve, 1024, 0, 2, &err) != 0 ||
        gd_runner_measure(&runner, &curve, 8192, 1, 2, &err) != 0)
        fail_msg("%s", err.msg);
    /* a point measured elsewhere without a clock: its rows leave the column empty */
    curve.points[1].sm_clock_mhz = NAN;
    if (gd_curve_write_csv(&curve, dir, &err) != 0)
        fail_msg("%s", err.msg);
    char path[1200];
    snprintf(path, sizeof path, "%s/pchase.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    assert_non_null(fgets(line, sizeof line, f));
    assert_contains(line, ",stddev,sm_clock_mhz\n");
    assert_non_null(fgets(line, sizeof line, f));
    assert_true(strncmp(line, "1024,cycles,", 12) == 0);
    assert_contains(line, ",999.99"); /* the tiny arch's 1000 MHz, measured */
    int empty_rows = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "8192,", 5) == 0) {
            assert_int_equal(line[strlen(line) - 2], ','); /* "...,stddev,\n" */
            empty_rows++;
        }
    fclose(f);
    assert_true(empty_rows > 0);

    gd_curve back;
    if (gd_curve_read_csv(path, "pchase", probe, &back, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(back.count, 2);
    assert_true(fabs(back.points[0].sm_clock_mhz - curve.points[0].sm_clock_mhz) < 1e-3);
    assert_true(isnan(back.points[1].sm_clock_mhz));
    gd_curve_free(&back);

    /* meta.json: the curve's range over the points that measured it */
    json_t *c = json_object_get(json_object_get(meta, "sm_clock_mhz"), "pchase");
    assert_non_null(c);
    assert_int_equal(json_integer_value(json_object_get(c, "points")), 2);
    expect_clock(json_real_value(json_object_get(c, "min")), 1000.0);
    expect_clock(json_real_value(json_object_get(c, "max")), 1000.0);

    json_decref(meta);
    gd_runner_close(&runner);
    gd_curve_free(&curve);
    gd_device_close(dev);
    gd_test_rmrf(dir);
    free(dir);
}

static char *conditions(const char *meta_json)
{
    json_error_t jerr;
    json_t *meta = json_loads(meta_json, 0, &jerr);
    if (!meta)
        fail_msg("test JSON: %s", jerr.text);
    gd_text t;
    gd_text_init(&t);
    report_put_conditions(&t, meta);
    json_decref(meta);
    char *s = strdup(t.data ? t.data : "");
    gd_text_free(&t);
    return s;
}

static void test_report_warns_when_the_clock_moved(void **unused)
{
    (void)unused;
    char *r = conditions("{\"sm_clock_mhz\": {\"pchase\": {\"min\": 1395.0, \"max\": 1590.0, "
                         "\"points\": 20}, \"stride-l2\": {\"min\": 1590.0, \"max\": 1595.0, "
                         "\"points\": 7}}}");
    assert_contains(r, "## Run conditions");
    assert_contains(r, "Effective SM clock of `pchase`: 1395–1590 MHz over 20 points\n"
                       "  - **Warning: the SM clock moved by 14.0% during this curve**");
    /* 0.3%: no warning for that curve */
    assert_contains(r, "Effective SM clock of `stride-l2`: 1590–1595 MHz over 7 points\n");
    assert_null(strstr(strstr(r, "`stride-l2`"), "Warning"));
    free(r);

    /* NVML and the machine-code verdicts of a cuda run */
    r = conditions("{\"nvml\": {\"available\": true, \"clocks_mhz\": {\"sm\": 1410, \"sm_max\": "
                   "1590, \"memory\": 5001}, \"throttle_reasons\": [\"sw_power_cap\"], \"ecc\": "
                   "{\"current\": true}, \"mig_mode\": \"not available: Not Supported\", "
                   "\"persistence_mode\": false, \"compute_mode\": \"default\", \"mps\": "
                   "{\"control_daemon_running\": false}}, \"nvml_at_end\": {\"available\": false, "
                   "\"reason\": \"not available: cannot load libnvidia-ml.so.1\"}, \"jit_checks\": "
                   "[{\"probe\": \"icache_seq\", \"entry\": \"gd_icache_seq\", \"machine_code\": "
                   "\"ok\", \"code_range\": \"ok: 130 instructions in 120..150\", "
                   "\"intended_instructions\": \"unchecked: no nvdisasm\", "
                   "\"timed_region_order\": \"unchecked: x\", \"jit_cubin_fnv1a64\": "
                   "\"0123456789abcdef\"}]}");
    assert_contains(r, "NVML at the start: SM clock 1410 of 1590 MHz");
    assert_contains(r, "throttle reasons: sw_power_cap; ECC yes; MIG not available: Not Supported");
    assert_contains(r, "NVML at the end: not available: cannot load libnvidia-ml.so.1");
    assert_contains(r, "| `icache_seq` | `gd_icache_seq` | ok | ok: 130 instructions in 120..150 "
                       "| unchecked: no nvdisasm |");
    assert_contains(r, "`0123456789abcdef`");
    free(r);

    /* nothing to say: no section */
    r = conditions("{}");
    assert_string_equal(r, "");
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sim_clock_is_the_arch_clock),
        cmocka_unit_test(test_globaltimer_needs_64_bits),
        cmocka_unit_test(test_csv_column_and_meta),
        cmocka_unit_test(test_report_warns_when_the_clock_moved),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
