/* test_report.c -- report.md from a run directory: every level, the verdicts
 * and their summary, provenance, curves and plot links are there; null values,
 * a missing compare.json and odd text are handled; malformed or incomplete JSON
 * fails with the file's name and writes nothing; no temporary file is left. */
#include "tests/testing.h"

#include <dirent.h>
#include <sys/stat.h>

#include "analysis/report.h"
#include "analysis/results.h"

static const char *const meta_json =
    "{\"tool\": \"gpudissect\", \"version\": \"0.1.0\", \"git_revision\": \"abc123def456\",\n"
    " \"command_line\": [\"gpudissect\", \"run\", \"--device\", \"sim:t4\", \"--out\", "
    "\"my results\"],\n"
    " \"start_time\": \"2026-11-21T23:25:44Z\", \"end_time\": \"2026-11-21T23:31:02Z\",\n"
    " \"device\": {\"spec\": \"sim:t4\", \"backend\": \"sim\", \"name\": \"Tesla T4\",\n"
    "   \"arch\": \"t4\", \"arch_file\": \"/src/analysis/archs/t4.arch\", \"sm_count\": 40,\n"
    "   \"subpartitions_per_sm\": 4, \"sm_clock_mhz\": 1590.0, \"l2_bytes\": 4194304,\n"
    "   \"global_mem_bytes\": 16106127360, \"compute_capability\": \"7.5\",\n"
    "   \"driver_version\": 12040, \"cuda_toolkit_version\": null, \"pci_bus_id\": null},\n"
    " \"host\": {\"cpu_model\": \"Intel(R) Xeon(R) Gold 6248\", \"packages\": 2, \"cores\": 40,\n"
    "   \"pus\": 80, \"numa_nodes\": 2, \"hwloc_version\": \"2.9.0\"},\n"
    " \"probes\": [], \"counters\": {}}\n";

/* Levels in an order no sort would produce, one with only nulls, one with an
 * extra field. */
static const char *const inferred_json =
    "{\"device\": \"sim:t4\", \"levels\": [\n"
    " {\"name\": \"L1D\", \"size_bytes\": 65536, \"sector_bytes\": 32, \"line_bytes\": 128,"
    " \"latency_cycles\": 32.0,"
    " \"confidence\": 0.97},\n"
    " {\"name\": \"L2\", \"size_bytes\": 4194304, \"sector_bytes\": 32, \"line_bytes\": null,"
    " \"latency_cycles\": 188.4,"
    " \"confidence\": 0.91, \"ways\": 16},\n"
    " {\"name\": \"TLB1\", \"size_bytes\": null, \"sector_bytes\": null, \"line_bytes\": null,"
    " \"latency_cycles\": null,"
    " \"confidence\": 0.2},\n"
    " {\"name\": \"DRAM\", \"latency_cycles\": 421.5, \"confidence\": 0.99},\n"
    " {\"name\": \"L15I\", \"size_bytes\": 32768}\n"
    "], \"curves\": {\"pchase\": {\"probe\": \"pchase\", \"sweep\": \"footprint_bytes\",\n"
    "   \"strategy\": \"adaptive\", \"points\": 41, \"uniform_points_equivalent\": 524257,\n"
    "   \"plateaus\": [{\"level\": 32.0, \"x_first\": 1024, \"x_last\": 65536, \"confidence\": 0.99},\n"
    "                {\"level\": 188.0, \"x_first\": 65568, \"x_last\": 4194304, \"confidence\": 0.95}],\n"
    "   \"knees\": [{\"x_below\": 65536, \"x_above\": 65568, \"confidence\": 0.98}]},\n"
    "  \"icache\": {\"probe\": \"icache\", \"sweep\": \"instructions\", \"strategy\": \"uniform\","
    " \"points\": 12}}}\n";

static const char *const compare_json =
    "{\"arch\": \"t4\", \"arch_file\": \"/src/analysis/archs/t4.arch\", \"parameters\": [\n"
    " {\"parameter\": \"L1D.size_bytes\", \"level\": \"L1D\", \"measured\": 65536, \"expected\": "
    "65536, \"published\": 65536, \"source\": \"[Jia19] Table 3.1: 32 or 64 KiB\", \"error\": 0, "
    "\"relative_error\": 0.0, \"tolerance\": 128, \"verdict\": \"match\"},\n"
    " {\"parameter\": \"L1D.line_bytes\", \"measured\": 32, \"expected\": 32, \"published\": null,"
    " \"source\": null, \"error\": 0, \"relative_error\": 0.0, \"tolerance\": 0, \"verdict\": "
    "\"match\"},\n"
    " {\"parameter\": \"L1D.latency_cycles\", \"measured\": 32.0, \"expected\": 32, \"verdict\": "
    "\"match\"},\n"
    " {\"parameter\": \"L2.size_bytes\", \"measured\": 4194304, \"expected\": 4194304, "
    "\"verdict\": \"match\"},\n"
    " {\"parameter\": \"L2.line_bytes\", \"measured\": 64, \"expected\": 64, \"verdict\": "
    "\"match\"},\n"
    " {\"parameter\": \"L2.latency_cycles\", \"measured\": 188.4, \"expected\": 188, \"error\": "
    "0.4, \"relative_error\": 0.002, \"verdict\": \"match\"},\n"
    " {\"parameter\": \"DRAM.latency_cycles\", \"measured\": 421.5, \"expected\": 380, \"error\":"
    " 41.5, \"relative_error\": 0.109, \"tolerance\": 19, \"verdict\": \"mismatch\"},\n"
    " {\"parameter\": \"TLB1.size_bytes\", \"measured\": null, \"expected\": 2097152, "
    "\"verdict\": \"not measured\"},\n"
    " {\"parameter\": \"L15I.ways\", \"measured\": null, \"expected\": 4, \"verdict\": "
    "\"not measured\"}\n"
    "], \"residuals\": [{\"curve\": \"pchase\", \"plateau\": 0, \"level\": \"L1D\", \"x_first\": "
    "1024, \"x_last\": 65536, \"points\": 7, \"mean_residual\": 0.25, \"rms_residual\": 0.5, "
    "\"max_abs_residual\": 1.125, \"tolerance\": 1.14, \"model\": \"exact\", \"verdict\": "
    "\"match\"},\n"
    " {\"curve\": \"icache\", \"plateau\": 1, \"level\": null, \"x_first\": 16128, \"x_last\": "
    "46720, \"points\": 8, \"mean_residual\": 3.1, \"rms_residual\": 3.2, \"max_abs_residual\": "
    "3.81, \"tolerance\": 0.26, \"model\": \"approximate\", \"model_relative_error\": 0.03, "
    "\"note\": \"approximate: a test note\", \"verdict\": \"mismatch\"}],\n"
    " \"segmentations\": {\"pchase\": {\"segmented\": true, \"unit\": \"cycles\"},"
    " \"icache\": {\"segmented\": false, \"why\": \"the plateau at 0 does not hold its point at "
    "93440 (1)\", \"unit\": \"CPI\"}},\n"
    " \"summary\": {\"match\": 6, \"mismatch\": 1, \"not_measured\": 2}}\n";

static const char *const level_names[] = {"L1D", "L2", "TLB1", "DRAM", "L15I"};

static void put_file(const char *dir, const char *name, const char *text)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static int exists(const char *dir, const char *name)
{
    char path[1200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

/* A run directory with the three JSON files and a plots/ directory holding
 * pchase's files, an SVG-less plot, and things that are not plots. */
static char *make_run(int with_compare)
{
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    put_file(dir, "meta.json", meta_json);
    put_file(dir, "inferred.json", inferred_json);
    if (with_compare)
        put_file(dir, "compare.json", compare_json);
    char plots[1100];
    snprintf(plots, sizeof plots, "%s/plots", dir);
    assert_int_equal(mkdir(plots, 0755), 0);
    const char *files[] = {"pchase.png", "pchase.svg", "pchase.dat", "pchase.gp", "icache.png",
                           "pchase.png.tmp.Ab12Cd", ".hidden.png", "notes.txt"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        put_file(plots, files[i], "x");
    char subdir[1200];
    snprintf(subdir, sizeof subdir, "%s/dir.png", plots);
    assert_int_equal(mkdir(subdir, 0755), 0);
    return dir;
}

static char *generate(const char *dir)
{
    gd_err err = {{0}};
    if (gd_report_write(dir, &err) != 0)
        fail_msg("gd_report_write: %s", err.msg);
    char path[1200];
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = gd_read_file(path, NULL, &err);
    assert_non_null(md);
    return md;
}

static int count_temporaries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tmp."))
            n++;
    closedir(d);
    return n;
}

#define assert_contains(text, needle)                                                          \
    do {                                                                                       \
        if (!strstr((text), (needle)))                                                         \
            fail_msg("report lacks \"%s\"", (needle));                                         \
    } while (0)

static void test_full_report(void **state)
{
    (void)state;
    char *dir = make_run(1);
    char *md = generate(dir);
    assert_contains(md, "# gpudissect report: sim:t4 (Tesla T4)");

    /* Every level, as a table row, in file order. */
    const char *previous = md;
    for (size_t i = 0; i < sizeof level_names / sizeof level_names[0]; i++) {
        char row[64];
        snprintf(row, sizeof row, "\n| %s |", level_names[i]);
        const char *at = strstr(md, row);
        if (!at)
            fail_msg("level %s missing from the report", level_names[i]);
        assert_true(at > previous);
        previous = at;
    }
    /* line and sector, each in its own column */
    assert_contains(md, "Sector: fetch granularity (bytes) | Line: allocation (bytes)");
    assert_contains(md, "| L1D | 64KiB | 65536 | 32 | 128 | 32.0 | 0.97 |");
    assert_contains(md, "| L2 | 4MiB | 4194304 | 32 | — | 188.4 | 0.91 |");
    assert_contains(md, "| TLB1 | — | — | — | — | — | 0.20 |");
    assert_contains(md, "ways = 16");

    /* Provenance. */
    assert_contains(md, "- **Device:** sim:t4 — Tesla T4 (backend sim)");
    assert_contains(md, "- **Compute capability:** 7.5");
    assert_contains(md, "- **SMs:** 40 × 4 sub-partitions");
    assert_contains(md, "- **SM clock:** 1590 MHz");
    assert_contains(md, "- **L2:** 4MiB (4194304 bytes)");
    assert_contains(md, "- **Driver version:** 12.4 (12040)");
    assert_contains(md, "- **CUDA toolkit version:** none");
    assert_contains(md, "- **Host CPU:** Intel(R) Xeon(R) Gold 6248 — 2 package(s), 40 cores, 80 PUs");
    assert_contains(md, "- **NUMA nodes:** 2");
    assert_contains(md, "- **Git revision:** `abc123def456`");
    assert_contains(md, "- **Command line:** `gpudissect run --device sim:t4 --out 'my results'`");
    assert_contains(md, "- **Started:** 2026-11-21T23:25:44Z");
    assert_contains(md, "- **Finished:** 2026-11-21T23:31:02Z");
    assert_contains(md, "`/src/analysis/archs/t4.arch`");

    /* The comparison and its summary (counted from the table). */
    assert_contains(md, "| `L1D.size_bytes` | 64KiB (65536) | 64KiB (65536) | 64KiB (65536) | "
                        "\\[Jia19\\] Table 3.1: 32 or 64 KiB | 0 (+0.0%) | 128 | match |");
    assert_contains(md, "| `DRAM.latency_cycles` | 421.5 | 380 | — | — | 41.5 (+10.9%) | 19 | "
                        "**mismatch** |");
    assert_contains(md, "| `TLB1.size_bytes` | — | 2MiB (2097152) |");
    assert_contains(md, "**Summary:** 6 match, 1 mismatch, 2 not measured.");
    /* Residuals, with the curve's byte sweep formatted. */
    assert_contains(md, "| `pchase` | 0 | L1D | 1KiB | 64KiB | 7 | 0.25 | 0.50 | 1.12 | 1.14 | "
                        "exact | match |");
    /* an approximate model's residual: its error stated, its verdict shown */
    assert_contains(md, "| 3.81 | 0.26 | approximate (±3%) | **mismatch** |");
    assert_contains(md, "- model of `icache`: approximate: a test note");
    /* a curve whose plateaus do not hold its points is listed as such */
    assert_contains(md, "- `icache`: not segmented into plateaus (the plateau at 0 does not hold");
    assert_contains(md, "plateau 32.0 cycles over 1KiB–64KiB");

    /* Curves. */
    assert_contains(md, "| `pchase` | pchase | `footprint_bytes` | adaptive | 41 | 524257 "
                        "(12787× as many) | 2 | 1 |");
    assert_contains(md, "| `icache` | icache | `instructions` | uniform | 12 | — | 0 | 0 |");
    assert_contains(md, "knee between 64KiB and 64.03125KiB (confidence 0.98)");

    /* Plots: sorted, embedded, SVG linked; temporaries and hidden files ignored. */
    assert_contains(md, "![pchase](plots/pchase.png)");
    assert_contains(md, "[pchase.svg](plots/pchase.svg)");
    assert_contains(md, "[pchase.gp](plots/pchase.gp)");
    assert_contains(md, "![icache](plots/icache.png)");
    assert_contains(md, "(no SVG)");
    assert_true(strstr(md, "![icache]") < strstr(md, "![pchase]"));
    assert_null(strstr(md, "png.tmp"));
    assert_null(strstr(md, "hidden"));
    assert_null(strstr(md, "dir.png"));
    assert_null(strstr(md, "notes"));

    assert_int_equal(count_temporaries(dir), 0);
    free(md);
    gd_test_rmrf(dir);
    free(dir);
}

static void test_without_compare(void **state)
{
    (void)state;
    char *dir = make_run(0);
    char *md = generate(dir);
    for (size_t i = 0; i < sizeof level_names / sizeof level_names[0]; i++)
        assert_contains(md, level_names[i]);
    assert_contains(md, "No comparison");
    assert_null(strstr(md, "**Summary:**"));
    assert_null(strstr(md, "| Verdict |"));
    assert_null(strstr(md, "Residuals"));
    assert_contains(md, "![pchase](plots/pchase.png)");
    free(md);
    gd_test_rmrf(dir);
    free(dir);
}

static void test_null_and_odd_values(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    /* A run that died early: most of meta is null, no plots directory. */
    put_file(dir, "meta.json",
             "{\"tool\": \"gpudissect\", \"version\": null, \"git_revision\": null,"
             " \"start_time\": \"2026-01-01T00:00:00Z\", \"end_time\": null,"
             " \"device\": {\"spec\": \"cuda:0\", \"name\": \"A *bold* <gpu> | x_\","
             "   \"sm_count\": null, \"sm_clock_mhz\": null, \"l2_bytes\": null,"
             "   \"driver_version\": null, \"compute_capability\": null},"
             " \"host\": null, \"error\": \"cuLaunchKernel: CUDA_ERROR_LAUNCH_FAILED\"}\n");
    put_file(dir, "inferred.json", "{\"levels\": [{\"name\": \"SMEM\", \"size_bytes\": 1.5}]}\n");
    put_file(dir, "compare.json", "{\"parameters\": []}\n");
    char *md = generate(dir);
    assert_contains(md, "| SMEM |");
    assert_contains(md, "1.5");
    assert_contains(md, "A \\*bold\\* \\<gpu\\> \\| x\\_");
    assert_contains(md, "- **Finished:** not recorded");
    assert_contains(md, "- **Run error:** cuLaunchKernel: CUDA_ERROR_LAUNCH_FAILED");
    assert_contains(md, "- **Driver version:** none");
    assert_contains(md, "- **Git revision:** —");
    assert_contains(md, "**Summary:** 0 match, 0 mismatch, 0 not measured.");
    assert_contains(md, "No plots.");
    free(md);

    /* An empty level list is a report too; a command line with a backtick. */
    put_file(dir, "meta.json", "{\"command_line\": [\"gpudissect\", \"--x=`a`\"]}\n");
    put_file(dir, "inferred.json", "{\"levels\": []}\n");
    md = generate(dir);
    assert_contains(md, "No level was inferred.");
    assert_contains(md, "``gpudissect '--x=`a`'``");
    free(md);
    assert_int_equal(count_temporaries(dir), 0);
    gd_test_rmrf(dir);
    free(dir);
}

/* gd_report_write fails, the message names `file` and contains `detail`, and
 * no report.md appears. */
static void expect_failure(const char *dir, const char *file, const char *detail)
{
    gd_err err = {{0}};
    char report[1200];
    snprintf(report, sizeof report, "%s/report.md", dir);
    unlink(report);
    assert_int_equal(gd_report_write(dir, &err), -1);
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (!strstr(err.msg, path) || !strstr(err.msg, detail))
        fail_msg("error \"%s\" should name %s and say \"%s\"", err.msg, path, detail);
    assert_null(strchr(err.msg, '\n'));
    assert_false(exists(dir, "report.md"));
    assert_int_equal(count_temporaries(dir), 0);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    char *dir = make_run(1);

    put_file(dir, "inferred.json", "{\"levels\": [\n  {\"name\": \"L1D\",,}\n");
    expect_failure(dir, "inferred.json", ":2:");
    expect_failure(dir, "inferred.json", "malformed JSON");
    put_file(dir, "inferred.json", "[1, 2]\n");
    expect_failure(dir, "inferred.json", "object");
    put_file(dir, "inferred.json", "{\"curves\": {}}\n");
    expect_failure(dir, "inferred.json", "\"levels\"");
    put_file(dir, "inferred.json", "{\"levels\": [{\"name\": \"L1D\"}, {\"size_bytes\": 1}]}\n");
    expect_failure(dir, "inferred.json", "levels[1]");
    put_file(dir, "inferred.json", "");
    expect_failure(dir, "inferred.json", "malformed JSON");
    put_file(dir, "inferred.json", inferred_json);

    put_file(dir, "compare.json", "{\"parameters\": [{\"parameter\": \"L1D.size_bytes\"}]}\n");
    expect_failure(dir, "compare.json", "\"verdict\"");
    put_file(dir, "compare.json", "{\"parameters\": 3}\n");
    expect_failure(dir, "compare.json", "\"parameters\"");
    put_file(dir, "compare.json", "{\"parameters\": [}\n");
    expect_failure(dir, "compare.json", "malformed JSON");
    put_file(dir, "compare.json", compare_json);

    char path[1200];
    snprintf(path, sizeof path, "%s/meta.json", dir);
    assert_int_equal(unlink(path), 0);
    expect_failure(dir, "meta.json", "cannot open");
    put_file(dir, "meta.json", "{\"device\": ");
    expect_failure(dir, "meta.json", "malformed JSON");

    gd_err err = {{0}};
    assert_int_equal(gd_report_write("/tmp/gd-no-such-run-dir-for-report", &err), -1);
    assert_non_null(strstr(err.msg, "meta.json"));
    gd_test_rmrf(dir);
    free(dir);
}

static void test_regenerates_in_place(void **state)
{
    (void)state;
    char *dir = make_run(1);
    char *first = generate(dir);
    /* A re-analysis changed a level: the new report replaces the old one. */
    put_file(dir, "inferred.json",
             "{\"levels\": [{\"name\": \"L1D\", \"size_bytes\": 32768}, {\"name\": \"L2FAR\"}]}\n");
    char *second = generate(dir);
    assert_contains(first, "64KiB");
    assert_contains(second, "| L1D | 32KiB | 32768 |");
    assert_contains(second, "| L2FAR |");
    assert_null(strstr(second, "| TLB1 |"));
    assert_int_equal(count_temporaries(dir), 0);
    free(first);
    free(second);
    gd_test_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_report),
        cmocka_unit_test(test_without_compare),
        cmocka_unit_test(test_null_and_odd_values),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_regenerates_in_place),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
