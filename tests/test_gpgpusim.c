/* test_gpgpusim.c -- GPGPU-Sim configs in, out and checked (issue 16).
 *
 * The config reader's errors (FILE:LINE: option: what), the cache strings of
 * GPGPU-Sim's layout, the import of the four reference configs into arch files
 * the simulator opens, the exact CSV numbers, and for each reference config
 * the round trip: characterize sim:gpgpusim:CONFIG over the steps that
 * measure its options (bench/suites/gpgpusim.suite: the quick suite plus the
 * L1 path, shared-memory and constant steps of `full`, ~20-35 s a config here
 * instead of the full suite's 30-60 s), then export-config reproduces every
 * option measured, validate against the config finds nothing contradicted,
 * and validate against altered configs (dl1 size, L2 latency, dl1 ways) finds
 * exactly those options, with exit status 3.  On GTX480 (the quickest) also
 * `infer RUN` (the same levels as characterize) and `import-curve` of the
 * run's per-access p-chase samples (the same latencies and sizes, validated).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "analysis/arch.h"
#include "analysis/curve.h"
#include "analysis/gpgpusim_config.h"
#include "analysis/gpgpusim_import.h"
#include "analysis/results.h"
#include "tests/results_json.h"
#include "tests/testing.h"

#define REF_DIR GD_SOURCE_DIR "/../shared/reference/gpgpusim"

static const char *const reference_configs[] = {"SM2_GTX480", "SM7_QV100", "SM75_RTX2060",
                                                "SM86_RTX3070"};

static char out[1 << 16];

/* The reference configs live beside the checkout (GD_GPGPUSIM_REF overrides). */
#define ref_path(name, path, bytes)                                                            \
    do {                                                                                       \
        const char *ref_dir_ = getenv("GD_GPGPUSIM_REF");                                      \
        snprintf(path, bytes, "%s/%s.config", ref_dir_ ? ref_dir_ : REF_DIR, name);           \
        if (access(path, R_OK) != 0)                                                           \
            GD_SKIP("reference config %s not found (set GD_GPGPUSIM_REF)", path);            \
    } while (0)

/* ---- cache strings ---- */

static void test_cache_string_fields(void **state)
{
    (void)state;
    gd_gs_cache c;
    gd_err err;
    assert_int_equal(gd_gs_cache_parse("S:4:128:64,L:T:m:L:L,A:256:32,16:0,32", "x", &c, &err), 0);
    assert_int_equal(c.fields, 15);
    assert_int_equal(c.type, 'S');
    assert_int_equal(c.sets, 4);
    assert_int_equal(c.line_bytes, 128);
    assert_int_equal(c.ways, 64);
    assert_int_equal(c.write_policy, 'T');
    assert_int_equal(c.set_index, 'L');
    assert_int_equal(c.mshr_entries, 256);
    assert_int_equal(c.mshr_merge, 32);
    assert_int_equal(c.miss_queue, 16);
    assert_int_equal(c.port_bytes, 32);
    assert_int_equal(gd_gs_cache_bytes(&c), 32768);
    /* GTX480's 13-field dl1, with the Fermi hash */
    assert_int_equal(gd_gs_cache_parse("N:32:128:4,L:L:m:N:H,S:64:8,8", "x", &c, &err), 0);
    assert_int_equal(c.fields, 13);
    assert_int_equal(c.miss_queue, 8);
    assert_int_equal(c.set_index, 'H');
    assert_int_equal(gd_gs_cache_parse("none", "x", &c, &err), 0);
    assert_true(c.disabled);
}

static void expect_cache_error(const char *text, const char *what)
{
    gd_gs_cache c;
    gd_err err;
    assert_int_not_equal(gd_gs_cache_parse(text, "f.config:7: -gpgpu_cache:dl1", &c, &err), 0);
    if (strncmp(err.msg, "f.config:7: -gpgpu_cache:dl1: ", 30) || !strstr(err.msg, what))
        fail_msg("'%s': expected '%s' in \"%s\"", text, what, err.msg);
}

static void test_cache_string_errors(void **state)
{
    (void)state;
    expect_cache_error("S:4:128", "wrong field count");
    expect_cache_error("S:4:128:64,L:T:m:L:L", "wrong field count");
    expect_cache_error("S:4:128:64,L:T:m:L:L,A:256", "wrong field count");
    expect_cache_error("S:0:128:64,L:T:m:L:L,A:256:32,16:0,32", "sets: must not be zero");
    expect_cache_error("S:4:128:0,L:T:m:L:L,A:256:32,16:0,32", "ways: must not be zero");
    expect_cache_error("N:4:100:4,L:T:m:L:L,A:256:32,16:0,32", "not a power of two");
    expect_cache_error("S:4:64:4,L:T:m:L:L,A:256:32,16:0,32", "sectored");
    expect_cache_error("N:4194304:1024:4194304,L:T:m:L:L,A:256:32,16:0,32", "cannot be a cache size");
    expect_cache_error("S:4:128:64,Q:T:m:L:L,A:256:32,16:0,32", "replacement");
    expect_cache_error("S:4:128:64,L:T:m:L:L,A:256:32,16:0,32,9", "more than 5");
    expect_cache_error("S:4:12x:64,L:T:m:L:L,A:256:32,16:0,32", "unsigned integer");
}

/* ---- the option file ---- */

static void test_config_parse(void **state)
{
    (void)state;
    gd_gs_config cfg;
    gd_err err;
    const char *text = "# comment\n-gpgpu_n_mem 6 # trailing\n-opt \"a=1:\n     b=2\"\n"
                       "-gpgpu_n_mem 12\n";
    assert_int_equal(gd_gs_config_parse_string(text, "dir/x.config", &cfg, &err), 0);
    assert_int_equal(cfg.count, 3);
    gd_gs_option *o = gd_gs_find(&cfg, "gpgpu_n_mem");
    assert_non_null(o);
    assert_string_equal(o->value, "12"); /* the last occurrence wins */
    assert_int_equal(o->line, 5);
    assert_string_equal(gd_gs_find(&cfg, "opt")->value, "a=1:b=2");
    uint64_t v = 0;
    assert_int_equal(gd_gs_uint(&cfg, "gpgpu_n_mem", 0, &v, &err), 1);
    assert_int_equal(v, 12);
    assert_int_equal(gd_gs_uint(&cfg, "opt", 0, &v, &err), -1);
    assert_string_equal(err.msg, "dir/x.config:3: -opt: expected a non-negative integer, got 'a=1:b=2'");
    gd_gs_config_free(&cfg);

    assert_int_not_equal(gd_gs_config_parse_string("-a 1\n-b\n-c 2\n", "y.config", &cfg, &err), 0);
    assert_string_equal(err.msg, "y.config:2: -b: no value");
    assert_int_not_equal(gd_gs_config_parse_string("-a 1\nstray\n", "y.config", &cfg, &err), 0);
    assert_string_equal(err.msg, "y.config:2: 'stray': expected an option (-name value)");
}

/* A malformed reference config through the CLI: FILE:LINE: option: what. */
static void test_import_errors(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir(), path[1200], cmd[2600], src[1200];
    assert_non_null(dir);
    ref_path("SM75_RTX2060", src, sizeof src);
    gd_err err;
    size_t bytes;
    char *text = gd_read_file(src, &bytes, &err);
    assert_non_null(text);
    char *at = strstr(text, "S:4:128:64,L:T:m:L:L,A:256:32,16:0,32");
    assert_non_null(at);
    at[2] = '0'; /* S:0:128:64,... */
    snprintf(path, sizeof path, "%s/bad.config", dir);
    assert_int_equal(gd_write_atomic(path, text, strlen(text), &err), 0);
    free(text);
    snprintf(cmd, sizeof cmd, "%s import-config %s", gd_test_binary(), path);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 1);
    char want[1400];
    snprintf(want, sizeof want, "%s:95: -gpgpu_cache:dl1: ", path);
    if (!strstr(out, want) || !strstr(out, "sets: must not be zero"))
        fail_msg("expected '%s... sets: must not be zero', got: %s", want, out);
    gd_test_rmrf(dir);
    free(dir);
}

/* Every reference config imports; its arch cites its options; the sim opens it. */
static void test_import_reference_configs(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof reference_configs / sizeof reference_configs[0]; i++) {
        char path[1200];
        ref_path(reference_configs[i], path, sizeof path);
        char *text = NULL;
        gd_err err;
        if (gd_gs_import_file(path, NULL, &text, &err) != 0)
            fail_msg("%s: %s", reference_configs[i], err.msg);
        /* every value line cites its source */
        for (char *line = text; line && *line;) {
            char *nl = strchr(line, '\n');
            if (line[0] != ';' && line[0] != '[' && line[0] != '\n' && strchr(line, '=')) {
                char *semi = strstr(line, " ;");
                if (!semi || (nl && semi > nl))
                    fail_msg("%s: a value without its source: %.*s", reference_configs[i],
                             nl ? (int)(nl - line) : 80, line);
            }
            line = nl ? nl + 1 : NULL;
        }
        assert_non_null(strstr(text, "not modelled by the simulator"));
        assert_non_null(strstr(text, "-gpgpu_dram_timing_opt"));
        assert_non_null(strstr(text, "-gpgpu_kernel_launch_latency") ? text : strstr(text, "-gpgpu_shader_registers"));
        free(text);
        gd_arch a;
        if (gd_arch_load(path, NULL, 0, &a, &err) != 0)
            fail_msg("%s: %s", reference_configs[i], err.msg);
        assert_string_equal(a.name, reference_configs[i]);
    }
    /* RTX 2060, value by value (reference README and the issue's latencies) */
    char path[1200];
    ref_path("SM75_RTX2060", path, sizeof path);
    gd_arch a;
    gd_err err;
    assert_int_equal(gd_arch_load(path, NULL, 0, &a, &err), 0);
    assert_int_equal(a.gpu.sm_count, 30);
    assert_int_equal(a.gpu.subpartitions, 4);
    assert_int_equal(a.level[GD_L1D].size_bytes, 32768);
    assert_int_equal(a.level[GD_L1D].ways, 64);
    assert_int_equal(a.level[GD_L1D].sector_bytes, 32);
    assert_int_equal(a.level[GD_L1D].latency_cycles, 39);  /* GPGPU-Sim measured 39 */
    assert_int_equal(a.level[GD_L2].size_bytes, 3u << 20); /* 128 KiB x 12 x 2 */
    assert_int_equal(a.level[GD_L2].latency_cycles, 242);
    assert_int_equal(a.level[GD_DRAM].latency_cycles, 351);
    assert_int_equal(a.level[GD_SMEM].latency_cycles, 30);
    /* GTX480: the same geometry as the hand-written gtx480.arch */
    ref_path("SM2_GTX480", path, sizeof path);
    gd_arch g, hand;
    char hand_path[1200];
    assert_int_equal(gd_arch_load(path, NULL, 0, &g, &err), 0);
    assert_int_equal(gd_arch_resolve("gtx480", hand_path, sizeof hand_path, &err), 0);
    assert_int_equal(gd_arch_load(hand_path, NULL, 0, &hand, &err), 0);
    for (int l = GD_L1D; l <= GD_L2; l++) {
        if (!hand.level[l].present || l == GD_SMEM)
            continue;
        assert_int_equal(g.level[l].size_bytes, hand.level[l].size_bytes);
        assert_int_equal(g.level[l].line_bytes, hand.level[l].line_bytes);
        assert_int_equal(g.level[l].ways, hand.level[l].ways);
    }
}

/* Configs beyond the four: options left out take GPGPU-Sim's defaults (and
 * say so), a Kepler-style config (L1 bypass, an older option name) and an
 * H100-style one (228 KiB carve-out option, XOR-indexed 50 MiB L2) import. */
static void test_import_other_configs(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir(), path[1200];
    assert_non_null(dir);
    gd_err err;
    const char *kepler = "-gpgpu_compute_capability_major 3\n-gpgpu_compute_capability_minor 5\n"
                         "-gpgpu_n_clusters 14\n-gpgpu_n_cores_per_cluster 1\n-gpgpu_n_mem 12\n"
                         "-gpgpu_n_sub_partition_per_mchannel 2\n-gpgpu_clock_domains 837.0:837.0:837.0:1502.0\n"
                         "-gpgpu_cache:dl1  S:4:128:32,L:L:s:N:L,A:256:8,16:0,32\n-gpgpu_shmem_size 49152\n"
                         "-gpgpu_gmem_skip_L1D 1\n-gpgpu_l1_latency 82\n-smem_latency 24\n"
                         "-gpgpu_cache:dl2 S:32:128:16,L:B:m:L:P,A:256:64,16:0,32\n"
                         "-gpgpu_const_cache:l1 N:128:64:2,L:R:f:N:L,S:2:64,4\n"
                         "-gpgpu_l2_rop_latency 120\n-dram_latency 100\n";
    snprintf(path, sizeof path, "%s/SM3_KEPLER_TITAN.config", dir);
    assert_int_equal(gd_write_atomic(path, kepler, strlen(kepler), &err), 0);
    char *text = NULL;
    assert_int_equal(gd_gs_import_file(path, NULL, &text, &err), 0);
    assert_non_null(strstr(text, "-gpgpu_smem_latency absent: GPGPU-Sim's default"));
    assert_non_null(strstr(text, "-smem_latency 24 (line 12): not modelled"));
    assert_non_null(strstr(text, "-gpgpu_gmem_skip_L1D 1: GPGPU-Sim's global loads bypass the L1"));
    free(text);
    gd_arch a;
    if (gd_arch_load(path, NULL, 0, &a, &err) != 0)
        fail_msg("%s", err.msg);
    assert_string_equal(a.name, "SM3_KEPLER_TITAN");
    assert_int_equal(a.gpu.cc_major * 10 + a.gpu.cc_minor, 75); /* ptxas 13's oldest target */
    assert_int_equal(a.level[GD_SMEM].banks, 16);               /* GPGPU-Sim's defaults */
    assert_int_equal(a.level[GD_SMEM].latency_cycles, 3);
    assert_int_equal(a.level[GD_L2].size_bytes, 1536u << 10);   /* 64 KiB x 12 x 2 */
    assert_int_equal(a.level[GD_L1D].latency_cycles, 82 + GD_GS_L1_OFFSET_CYCLES);

    const char *h100 = "-gpgpu_n_clusters 132\n-gpgpu_n_cores_per_cluster 1\n-gpgpu_n_mem 40\n"
                       "-gpgpu_n_sub_partition_per_mchannel 2\n-gpgpu_clock_domains 1980:3106:3106:3106\n"
                       "-gpgpu_compute_capability_major 9\n-gpgpu_compute_capability_minor 0\n"
                       "-gpgpu_shader_core_pipeline 2048:32\n-gpgpu_num_sched_per_core 4\n"
                       "-gpgpu_adaptive_cache_config 1\n-gpgpu_shmem_option 0,8,16,32,64,228\n"
                       "-gpgpu_unified_l1d_size 256\n-gpgpu_cache:dl1 S:4:128:64,L:T:m:L:L,A:512:64,16:0,32\n"
                       "-gpgpu_l1_latency 41\n-gpgpu_shmem_size 233472\n-gpgpu_smem_latency 29\n"
                       "-gpgpu_shmem_num_banks 32\n-gpgpu_cache:dl2 S:256:128:20,L:B:m:L:X,A:384:4,32:0,32\n"
                       "-gpgpu_const_cache:l1 N:128:64:8,L:R:f:N:L,S:2:64,4\n"
                       "-gpgpu_l2_rop_latency 237\n-dram_latency 194\n-gpgpu_simple_dram_model 1\n";
    snprintf(path, sizeof path, "%s/gpgpusim.config", dir);
    assert_int_equal(gd_write_atomic(path, h100, strlen(h100), &err), 0);
    assert_int_equal(gd_gs_import_file(path, "H100", &text, &err), 0);
    assert_non_null(strstr(text, "set index 'X' (the sim indexes sets linearly)"));
    assert_non_null(strstr(text, "-gpgpu_unified_l1d_size 256"));
    assert_non_null(strstr(text, "-gpgpu_simple_dram_model 1 (line 22): not modelled"));
    free(text);
    if (gd_arch_load(path, NULL, 0, &a, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(a.level[GD_L2].size_bytes, 50u << 20); /* 640 KiB x 40 x 2 */
    assert_int_equal(a.level[GD_L2].ways, 20);
    assert_int_equal(a.level[GD_DRAM].latency_cycles, 41 + 237 + 194 + GD_GS_DRAM_OFFSET_CYCLES);
    gd_test_rmrf(dir);
    free(dir);
}

/* ---- CSV numbers ---- */

static void test_csv_exact(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    gd_curve c;
    gd_curve_init(&c, "exact", NULL, NULL);
    gd_point p;
    memset(&p, 0, sizeof p);
    p.x = 4096;
    p.series_count = 2;
    snprintf(p.series[0].name, sizeof p.series[0].name, "cycles");
    p.series[0].summary = (gd_summary){.min = 1.0 / 3, .median = 241.5, .mean = 242.123456789012345,
                                       .max = 1e-7, .p05 = 0, .p95 = 2, .stddev = 0.1, .count = 7};
    snprintf(p.series[1].name, sizeof p.series[1].name, "chain_base");
    double base = 1099511648287.0; /* 2^40 + 20511: %.6g kept 1.09951e+12 */
    p.series[1].summary = (gd_summary){.min = base, .median = base, .mean = base, .max = base,
                                       .p05 = base, .p95 = base, .stddev = 0, .count = 1};
    assert_int_equal(gd_curve_insert(&c, &p), 0);
    gd_err err;
    assert_int_equal(gd_curve_write_csv(&c, dir, &err), 0);
    char path[1200];
    snprintf(path, sizeof path, "%s/exact.csv", dir);
    size_t bytes;
    char *text = gd_read_file(path, &bytes, &err);
    assert_non_null(text);
    assert_non_null(strstr(text, ",1099511648287,"));
    free(text);
    gd_curve back;
    assert_int_equal(gd_curve_read_csv(path, "exact", NULL, &back, &err), 0);
    assert_int_equal(back.count, 1);
    const gd_summary *s = gd_point_summary(&back.points[0], "cycles");
    assert_non_null(s);
    assert_true(s->min == 1.0 / 3 && s->mean == 242.123456789012345 && s->max == 1e-7);
    assert_true(gd_point_summary(&back.points[0], "chain_base")->median == base);
    gd_curve_free(&back);
    gd_curve_free(&c);
    gd_test_rmrf(dir);
    free(dir);
}

/* ---- round trip ---- */

/* A copy of `src` with `from` replaced by `to` (must occur). */
static void write_altered(const char *src, const char *dst, const char *from, const char *to)
{
    gd_err err;
    size_t bytes;
    char *text = gd_read_file(src, &bytes, &err);
    assert_non_null(text);
    char *at = strstr(text, from);
    if (!at)
        fail_msg("%s: '%s' not found", src, from);
    gd_text t;
    gd_text_init(&t);
    gd_text_printf(&t, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    assert_int_equal(gd_text_write_atomic(&t, dst, &err), 0);
    gd_text_free(&t);
    free(text);
}

/* validate RUN against CONFIG: the exit status, and the rows contradicted as
 * "option|field;" in table order. */
static int validate(const char *run, const char *config, char *rows, size_t rows_bytes)
{
    char cmd[3000];
    snprintf(cmd, sizeof cmd, "%s validate %s --config %s", gd_test_binary(), run, config);
    int rc = gd_test_run(cmd, out, sizeof out);
    json_t *doc = gd_test_load_json(run, "validate.json");
    rows[0] = 0;
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(doc, "options"), i, row)
    {
        if (strcmp(json_string_value(json_object_get(row, "verdict")), "contradicted"))
            continue;
        size_t used = strlen(rows);
        snprintf(rows + used, rows_bytes - used, "%s|%s;", json_string_value(json_object_get(row, "option")),
                 json_string_value(json_object_get(row, "field")));
    }
    json_decref(doc);
    return rc;
}

/* The value export-config wrote for -OPTION, or NULL. */
static const char *exported(const char *text, const char *option, char *value, size_t bytes)
{
    char key[128];
    snprintf(key, sizeof key, "\n-%s ", option);
    const char *at = strstr(text, key);
    if (!at)
        return NULL;
    at += strlen(key);
    snprintf(value, bytes, "%.*s", (int)strcspn(at, "\n"), at);
    return value;
}

/* infer RUN redoes characterize's inference from the files alone; a per-access
 * table of the run's p-chase, imported, infers the same latencies and sizes. */
static void infer_and_import(const char *dir, const char *run, const char *config)
{
    char cmd[3000], path[1300];
    json_t *before = gd_test_load_json(run, "inferred.json");
    snprintf(cmd, sizeof cmd, "%s infer %s", gd_test_binary(), run);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s failed:\n%s", cmd, out);
    json_t *after = gd_test_load_json(run, "inferred.json");
    if (!json_equal(json_object_get(before, "levels"), json_object_get(after, "levels")))
        fail_msg("infer RUN gave other levels than characterize");
    json_decref(before);
    json_decref(after);

    /* a step whose files are gone: said, left out, the rest inferred, status 3
     * (a run killed mid-step on an H200 used to get no inferred.json at all) */
    char copy[1300];
    snprintf(copy, sizeof copy, "%s/partial", dir);
    snprintf(cmd, sizeof cmd, "cp -r %s %s && rm %s/pchase.csv && %s infer %s", run, copy, copy,
             gd_test_binary(), copy);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 3);
    if (!strstr(out, "(the inference goes on)") || !strstr(out, "some failed"))
        fail_msg("infer on a run missing pchase.csv said:\n%s", out);
    json_t *partial = gd_test_load_json(copy, "inferred.json");
    assert_true(json_array_size(json_object_get(partial, "levels")) > 0);
    json_decref(partial);

    snprintf(path, sizeof path, "%s/table.txt", dir);
    snprintf(cmd, sizeof cmd,
             "zcat %s/pchase.samples.gz | awk -F, '$2==\"cycles\"{for(i=4;i<=NF;i++) print $1, $i}' > %s",
             run, path);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 0);
    char imported[1300];
    snprintf(imported, sizeof imported, "%s/imported", dir);
    json_t *meta = gd_test_load_json(run, "meta.json");
    json_int_t l2 = json_integer_value(json_object_get(json_object_get(meta, "device"), "l2_bytes"));
    json_decref(meta);
    snprintf(cmd, sizeof cmd, "%s import-curve %s --out %s --stride 128 --l2 %lld && %s infer %s",
             gd_test_binary(), path, imported, (long long)l2, gd_test_binary(), imported);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s failed:\n%s", cmd, out);
    char rows[4096];
    assert_int_equal(validate(imported, config, rows, sizeof rows), 0);
    json_t *doc = gd_test_load_json(imported, "validate.json");
    assert_int_equal(json_integer_value(json_object_get(doc, "matched")), 5); /* 3 latencies, 2 sizes */
    json_decref(doc);

    /* a malformed table: FILE:LINE */
    snprintf(cmd, sizeof cmd, "printf 'footprint latency\\n1024 42\\n2048 fast\\n' > %s && %s import-curve %s --out %s/bad",
             path, gd_test_binary(), path, dir);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 1);
    char want[1400];
    snprintf(want, sizeof want, "%s:3: expected 'footprint latency', got '2048 fast'", path);
    if (!strstr(out, want))
        fail_msg("expected \"%s\", got %s", want, out);
}

static void round_trip(const char *name, int with_infer)
{
    char *dir = gd_test_tmpdir(), config[1200], run[1200], cmd[3000];
    assert_non_null(dir);
    ref_path(name, config, sizeof config);
    snprintf(run, sizeof run, "%s/run", dir);
    snprintf(cmd, sizeof cmd, "%s characterize --device sim:gpgpusim:%s --suite gpgpusim --out %s --quiet --no-plots",
             gd_test_binary(), config, run);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s failed:\n%s", cmd, out);

    /* export-config: every option measured has the config's value */
    char exp_path[1300];
    snprintf(exp_path, sizeof exp_path, "%s/exported.config", dir);
    snprintf(cmd, sizeof cmd, "%s export-config %s --out %s", gd_test_binary(), run, exp_path);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s failed:\n%s", cmd, out);
    gd_err err;
    size_t bytes;
    char *text = gd_read_file(exp_path, &bytes, &err);
    assert_non_null(text);
    gd_gs_config cfg;
    assert_int_equal(gd_gs_config_load(config, &cfg, &err), 0);
    static const char *const scalar[] = {"gpgpu_l1_latency", "gpgpu_l2_rop_latency", "dram_latency",
                                         "gpgpu_smem_latency", "gpgpu_shmem_num_banks"};
    char value[512];
    for (size_t i = 0; i < sizeof scalar / sizeof scalar[0]; i++) {
        if (!exported(text, scalar[i], value, sizeof value))
            fail_msg("%s: -%s was not measured:\n%s", name, scalar[i], text);
        if (strcmp(value, gd_gs_find(&cfg, scalar[i])->value))
            fail_msg("%s: -%s exported %s, the config says %s", name, scalar[i], value,
                     gd_gs_find(&cfg, scalar[i])->value);
    }
    gd_gs_cache want, got;
    assert_int_equal(gd_gs_cache_option(&cfg, "gpgpu_cache:dl1", &want, &err), 1);
    if (!exported(text, "gpgpu_cache:dl1", value, sizeof value))
        fail_msg("%s: dl1 not exported:\n%s", name, text);
    assert_int_equal(gd_gs_cache_parse(value, "exported dl1", &got, &err), 0);
    if (got.type != want.type || got.sets != want.sets || got.line_bytes != want.line_bytes ||
        got.ways != want.ways || got.replacement != want.replacement || got.mshr_merge != want.mshr_merge)
        fail_msg("%s: dl1 exported %s, the config says %s", name, value, gd_gs_find(&cfg, "gpgpu_cache:dl1")->value);
    /* the MSHR count where it is exact (not a lower bound) */
    if (!strstr(text, "MSHR entries (a lower bound") && got.mshr_entries != want.mshr_entries)
        fail_msg("%s: dl1 MSHRs exported %u, the config says %u", name, got.mshr_entries, want.mshr_entries);
    free(text);
    gd_gs_config_free(&cfg);

    /* with --base: the config itself, no line changed */
    snprintf(cmd, sizeof cmd, "%s export-config %s --base %s --out %s", gd_test_binary(), run, config,
             exp_path);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 0);
    if (strstr(out, "@@"))
        fail_msg("%s: export-config --base changed lines:\n%s", name, out);

    /* validate against its own config: nothing contradicted */
    char rows[4096];
    int rc = validate(run, config, rows, sizeof rows);
    if (rc != 0 || rows[0])
        fail_msg("%s: validate against its own config: exit %d, contradicted %s\n%s", name, rc, rows, out);
    json_t *doc = gd_test_load_json(run, "validate.json");
    assert_true(json_integer_value(json_object_get(doc, "matched")) >= 12);
    json_decref(doc);
    char report[1300];
    snprintf(report, sizeof report, "%s/report.md", run);
    text = gd_read_file(report, &bytes, &err);
    assert_non_null(text);
    assert_non_null(strstr(text, "## GPGPU-Sim config validation"));
    free(text);

    if (with_infer)
        infer_and_import(dir, run, config);

    /* altered configs: exactly the altered options contradicted, exit 3 */
    gd_gs_config c2;
    assert_int_equal(gd_gs_config_load(config, &c2, &err), 0);
    char dl1[512], rop[64], alt[1300], changed[600];
    snprintf(dl1, sizeof dl1, "%s", gd_gs_find(&c2, "gpgpu_cache:dl1")->value);
    snprintf(rop, sizeof rop, "%s", gd_gs_find(&c2, "gpgpu_l2_rop_latency")->value);
    gd_gs_config_free(&c2);
    snprintf(alt, sizeof alt, "%s/altered.config", dir);
    /* dl1 size: twice the sets */
    snprintf(changed, sizeof changed, "%c:%u:%u:%u%s", want.type, want.sets * 2, want.line_bytes, want.ways,
             strchr(dl1, ','));
    write_altered(config, alt, dl1, changed);
    rc = validate(run, alt, rows, sizeof rows);
    assert_int_equal(rc, 3);
    assert_string_equal(rows, "-gpgpu_cache:dl1|size (sets x line x ways), bytes;");
    /* L2 latency: rop + 40 */
    char from[128], to[128];
    snprintf(from, sizeof from, "-gpgpu_l2_rop_latency %s", rop);
    snprintf(to, sizeof to, "-gpgpu_l2_rop_latency %ld", strtol(rop, NULL, 10) + 40);
    write_altered(config, alt, from, to);
    rc = validate(run, alt, rows, sizeof rows);
    assert_int_equal(rc, 3);
    assert_string_equal(rows, "-gpgpu_l2_rop_latency|cycles;");
    /* ways: half the ways, twice the sets (the same size) */
    snprintf(changed, sizeof changed, "%c:%u:%u:%u%s", want.type, want.sets * 2, want.line_bytes,
             want.ways / 2, strchr(dl1, ','));
    write_altered(config, alt, dl1, changed);
    rc = validate(run, alt, rows, sizeof rows);
    assert_int_equal(rc, 3);
    assert_string_equal(rows, "-gpgpu_cache:dl1|ways;");
    gd_test_rmrf(dir);
    free(dir);
}

static void test_round_trip_gtx480(void **state)
{
    (void)state;
    round_trip("SM2_GTX480", 1);
}

static void test_round_trip_qv100(void **state)
{
    (void)state;
    round_trip("SM7_QV100", 0);
}

static void test_round_trip_rtx2060(void **state)
{
    (void)state;
    round_trip("SM75_RTX2060", 0);
}

static void test_round_trip_rtx3070(void **state)
{
    (void)state;
    round_trip("SM86_RTX3070", 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache_string_fields),
        cmocka_unit_test(test_cache_string_errors),
        cmocka_unit_test(test_config_parse),
        cmocka_unit_test(test_import_errors),
        cmocka_unit_test(test_import_reference_configs),
        cmocka_unit_test(test_import_other_configs),
        cmocka_unit_test(test_csv_exact),
        cmocka_unit_test(test_round_trip_gtx480),
        cmocka_unit_test(test_round_trip_qv100),
        cmocka_unit_test(test_round_trip_rtx2060),
        cmocka_unit_test(test_round_trip_rtx3070),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
