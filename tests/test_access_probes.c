/* test_access_probes.c -- the shared-memory bank and coalescing probes end to
 * end: run on the simulator, inferred, held against the arch file and the
 * analytical model; and their machine code is what they intend.
 *
 *   - smem_bank on sim:t4 (32 x 4-byte banks, 19 cycles): banks, width,
 *     latency, one cycle per further conflict way, same-word broadcast; on arch
 *     files written here with 16 x 8-byte and 64 x 4-byte banks the inference
 *     follows; the 8-byte variant sees the bank row and says it cannot tell
 *     the width; the CLI's CSV read back gives the same answer;
 *   - coalesce on sim:t4: requests = ceil(32 * stride / 128) capped at 32,
 *     requests = active lanes at a 128-byte stride, alloc_line_bytes = 128,
 *     also under timing noise; on an arch with 64-byte L1 lines, 64;
 *   - the model (analysis/model_access.c) equals every measured median;
 *   - with ptxas, both probes assemble for sm_75..sm_90 within their declared
 *     sizes, and with nvdisasm smem_bank's timed sequences are clock / LDS /
 *     STS / clock and coalesce's timed blocks hold 1 and K LDG, every load of
 *     a block issued before its first consuming STS.
 */
#include "tests/testing.h"
#include "tests/ptx_toolchain.h"
#include "tests/sass_batch.h"

#include <math.h>

#include "analysis/arch.h"
#include "analysis/infer_access.h"
#include "analysis/run_load.h"
#include "host/device.h"
#include "host/device_registry.h"
#include "host/runner.h"
#include "kernels/probe.h"

#define CO_LOADS 16 /* kernels/coalesce.c: loads of the long timed block */

/* ------------------------------------------------------------------------- */
/* Running a probe on a sim arch                                             */

typedef struct sim_arch {
    char spec[1200];
    gd_arch arch;
} sim_arch;

/* The arch as `sim:NAME --set ...` sees it. */
static void open_arch_set(const char *name_or_path, const char *const *overrides, size_t count,
                          sim_arch *out)
{
    gd_err err;
    char path[1024];
    snprintf(out->spec, sizeof out->spec, "sim:%s", name_or_path);
    if (gd_arch_resolve(name_or_path, path, sizeof path, &err) != 0 ||
        gd_arch_load(path, overrides, count, &out->arch, &err) != 0)
        fail_msg("%s", err.msg);
}

static void open_arch(const char *name_or_path, sim_arch *out)
{
    open_arch_set(name_or_path, NULL, 0, out);
}

/* Measures the probe at xs on the arch (with overrides); fails on any error. */
static void measure(const sim_arch *a, const char *const *overrides, size_t override_count,
                    const char *probe_name, const gd_probe_opts *opts, const uint64_t *xs,
                    size_t n, gd_curve *curve)
{
    gd_err err;
    gd_device *dev = NULL;
    gd_device_opts dopts = {.overrides = overrides, .override_count = override_count};
    if (gd_device_open(a->spec, &dopts, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    const gd_probe *probe = gd_probe_find(probe_name);
    assert_non_null(probe);
    gd_runner r;
    gd_runner_init(&r, dev, NULL, NULL);
    gd_curve_init(curve, probe_name, probe, opts);
    for (size_t i = 0; i < n; i++)
        if (gd_runner_measure(&r, curve, xs[i], i, n, &err) != 0)
            fail_msg("%s at %llu: %s", probe_name, (unsigned long long)xs[i], err.msg);
    gd_runner_close(&r);
    gd_device_close(dev);
}

static const gd_summary *summary_at(const gd_curve *c, uint64_t x, const char *series)
{
    const gd_point *p = gd_curve_find(c, x);
    if (!p)
        fail_msg("%s: no point %llu", c->label, (unsigned long long)x);
    const gd_summary *s = gd_point_summary(p, series);
    if (!s)
        fail_msg("%s: no series %s at %llu", c->label, series, (unsigned long long)x);
    return s;
}

/* Every point's median of `series` equals the model's expectation. */
static void assert_model_equals(const gd_arch *arch, const gd_curve *c, const char *series)
{
    uint64_t *xs = malloc(c->count * sizeof *xs);
    gd_model_point *m = malloc(c->count * sizeof *m);
    assert_non_null(xs);
    assert_non_null(m);
    for (size_t i = 0; i < c->count; i++)
        xs[i] = c->points[i].x;
    gd_err err;
    if (gd_model_access_curve(arch, c->probe->name, &c->opts, xs, c->count, m, &err) != 0)
        fail_msg("%s", err.msg);
    for (size_t i = 0; i < c->count; i++) {
        const gd_summary *s = summary_at(c, xs[i], series);
        if (s->median != m[i].mean_cycles || s->min != s->max)
            fail_msg("%s on %s at %llu: measured %.3f (%.3f..%.3f), model %.3f", c->label,
                     arch->name, (unsigned long long)xs[i], s->median, s->min, s->max,
                     m[i].mean_cycles);
    }
    free(xs);
    free(m);
}

/* Writes t4.arch into dir/name.arch with [section] key = value replaced
 * (NULL-terminated triples); returns the path (static). */
static const char *write_variant(const char *dir, const char *name, const char *const *edits)
{
    static char out_path[1200];
    char src[1024];
    gd_err err;
    assert_int_equal(gd_arch_resolve("t4", src, sizeof src, &err), 0);
    FILE *in = fopen(src, "r");
    snprintf(out_path, sizeof out_path, "%s/%s.arch", dir, name);
    FILE *out = fopen(out_path, "w");
    assert_non_null(in);
    assert_non_null(out);
    char line[512], section[32] = "";
    int replaced = 0, wanted = 0;
    for (const char *const *e = edits; *e; e += 3)
        wanted++;
    while (fgets(line, sizeof line, in)) {
        if (line[0] == '[')
            sscanf(line, "[%31[^]]", section);
        int done = 0;
        for (const char *const *e = edits; *e && !done; e += 3) {
            size_t k = strlen(e[1]);
            if (!strcmp(section, e[0]) && !strncmp(line, e[1], k) &&
                (line[k] == ' ' || line[k] == '=')) {
                fprintf(out, "%s = %s ; test setting\n", e[1], e[2]);
                replaced++;
                done = 1;
            }
        }
        if (!done)
            fputs(line, out);
    }
    fclose(in);
    fclose(out);
    assert_int_equal(replaced, wanted); /* t4.arch still has every key we edit */
    return out_path;
}

/* ------------------------------------------------------------------------- */
/* smem_bank                                                                 */

/* lane strides 4..256 in steps of 4 (or 8..512 in steps of 8) */
static size_t bank_sweep(uint64_t step, uint64_t *xs)
{
    size_t n = 0;
    for (uint64_t x = step; x <= 64 * step; x += step)
        xs[n++] = x;
    return n;
}

/* smem_bank u32 on an arch: the inference equals its [SMEM], the model its curve */
static void check_banks(const sim_arch *a, const char *const *overrides, size_t override_count)
{
    const gd_arch_level *sm = &a->arch.level[GD_SMEM];
    uint64_t xs[64];
    size_t n = bank_sweep(4, xs);
    gd_probe_opts opts = {0};
    gd_curve c;
    measure(a, overrides, override_count, "smem_bank", &opts, xs, n, &c);
    assert_model_equals(&a->arch, &c, "cycles");
    /* every lane on one word costs a conflict-free access, at every point */
    for (size_t i = 0; i < n; i++)
        assert_true(summary_at(&c, xs[i], "same_word_cycles")->median == sm->latency_cycles);
    gd_inference inf;
    memset(&inf, 0, sizeof inf);
    gd_err err;
    if (gd_infer_smem_bank(&inf, &c, &err) != 0)
        fail_msg("%s", err.msg);
    const gd_inferred_level *l = &inf.level[GD_INF_SMEM];
    assert_true(l->has_banks);
    if (l->banks != sm->banks || l->bank_width_bytes != sm->bank_width_bytes)
        fail_msg("%s: inferred %u x %u-byte banks, arch %u x %u", a->arch.name, l->banks,
                 l->bank_width_bytes, sm->banks, sm->bank_width_bytes);
    assert_true(l->has_latency);
    if (fabs(l->latency_cycles - sm->latency_cycles) > 1e-6 || fabs(l->conflict_cycles - 1) > 1e-6)
        fail_msg("%s: latency %.6f, %.6f cycles per conflict way; arch %u and 1 (the simulator "
                 "replays one pass a cycle)",
                 a->arch.name, l->latency_cycles, l->conflict_cycles, sm->latency_cycles);
    assert_true(l->same_word_broadcast);
    assert_true(l->banks_confidence > 0.99);
    gd_curve_free(&c);
}

static void test_smem_bank_t4(void **state)
{
    (void)state;
    sim_arch a;
    open_arch("t4", &a);
    assert_int_equal(a.arch.level[GD_SMEM].banks, 32);
    check_banks(&a, NULL, 0);
    /* the conflict degrees themselves: a 2-way conflict at 8 bytes, none at 12
     * (an odd number of words), all 32 lanes in one bank at 128 */
    assert_int_equal(gd_smem_conflict_ways(32, 4, 4, 8), 2);
    assert_int_equal(gd_smem_conflict_ways(32, 4, 4, 12), 1);
    assert_int_equal(gd_smem_conflict_ways(32, 4, 4, 128), 32);
    assert_int_equal(gd_smem_conflict_ways(16, 8, 4, 12), 2);
    assert_int_equal(gd_smem_conflict_ways(32, 4, 4, 0), 1);
}

static void test_smem_bank_variant_archs(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    static const char *const wide[] = {"SMEM", "banks", "16", "SMEM", "bank_width", "8", NULL};
    static const char *const many[] = {"SMEM", "banks", "64", "SMEM", "latency", "23", NULL};
    sim_arch a;
    open_arch(write_variant(dir, "banks16x8", wide), &a);
    assert_int_equal(a.arch.level[GD_SMEM].bank_width_bytes, 8);
    check_banks(&a, NULL, 0);
    open_arch(write_variant(dir, "banks64x4", many), &a);
    assert_int_equal(a.arch.level[GD_SMEM].banks, 64);
    check_banks(&a, NULL, 0);
    /* and as a --set on the command line would give it: 8 x 4 bytes */
    static const char *const narrow[] = {"SMEM.banks=8"};
    open_arch_set("t4", narrow, 1, &a);
    assert_int_equal(a.arch.level[GD_SMEM].banks, 8);
    check_banks(&a, narrow, 1);
    gd_test_rmrf(dir);
    free(dir);
}

/* 8-byte loads see only the bank row: 32 x 4 and 16 x 8 bytes behave alike */
static void test_smem_bank_u64(void **state)
{
    (void)state;
    sim_arch a;
    open_arch("t4", &a);
    uint64_t xs[64];
    size_t n = bank_sweep(8, xs);
    gd_probe_opts opts = {0};
    snprintf(opts.variant, sizeof opts.variant, "u64");
    gd_curve c;
    measure(&a, NULL, 0, "smem_bank", &opts, xs, n, &c);
    assert_model_equals(&a.arch, &c, "cycles");
    /* two passes at 8 bytes (64 words over 32 banks) */
    assert_true(summary_at(&c, 8, "cycles")->median == a.arch.level[GD_SMEM].latency_cycles + 1);
    gd_inference inf;
    memset(&inf, 0, sizeof inf);
    gd_err err;
    assert_int_equal(gd_infer_smem_bank(&inf, &c, &err), 0);
    const gd_inferred_level *l = &inf.level[GD_INF_SMEM];
    assert_int_equal(l->banks * l->bank_width_bytes, 128);
    assert_true(fabs(l->conflict_cycles - 1) < 1e-6);
    assert_true(l->banks_confidence <= 0.5); /* it cannot tell the width */
    gd_curve_free(&c);
}

/* `gpudissect run`, its CSV read back (summaries only), inferred */
static void test_smem_bank_cli(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    char cmd[2048], out[8192], csv[1400];
    snprintf(cmd, sizeof cmd,
             "%s run --device sim:t4 --probe smem_bank --sweep 4:256:+4 --out %s/run --quiet",
             gd_test_binary(), dir);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s:\n%s", cmd, out);
    snprintf(csv, sizeof csv, "%s/run/smem_bank.csv", dir);
    gd_curve c;
    gd_err err;
    if (gd_curve_read_csv(csv, "smem_bank", gd_probe_find("smem_bank"), &c, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(c.count, 64);
    gd_inference inf;
    memset(&inf, 0, sizeof inf);
    if (gd_infer_smem_bank(&inf, &c, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(inf.level[GD_INF_SMEM].banks, 32);
    assert_int_equal(inf.level[GD_INF_SMEM].bank_width_bytes, 4);
    assert_true(inf.level[GD_INF_SMEM].same_word_broadcast);
    gd_curve_free(&c);
    gd_test_rmrf(dir);
    free(dir);
}

/* Only powers of two: 32 x 4 and 16 x 8 predict the same curve; the
 * inference says so through its confidence.  Fewer than 3 points: an error. */
static void test_smem_bank_ambiguous_sweeps(void **state)
{
    (void)state;
    sim_arch a;
    open_arch("t4", &a);
    uint64_t pow2[] = {4, 8, 16, 32, 64, 128, 256};
    gd_probe_opts opts = {0};
    gd_curve c;
    measure(&a, NULL, 0, "smem_bank", &opts, pow2, 7, &c);
    gd_inference inf;
    memset(&inf, 0, sizeof inf);
    gd_err err;
    assert_int_equal(gd_infer_smem_bank(&inf, &c, &err), 0);
    assert_int_equal(inf.level[GD_INF_SMEM].banks * inf.level[GD_INF_SMEM].bank_width_bytes,
                     128);
    assert_true(inf.level[GD_INF_SMEM].banks_confidence <= 0.5);
    gd_curve_free(&c);
    uint64_t two[] = {4, 8};
    measure(&a, NULL, 0, "smem_bank", &opts, two, 2, &c);
    assert_int_equal(gd_infer_smem_bank(&inf, &c, &err), -1);
    assert_non_null(strstr(err.msg, "at least 3"));
    gd_curve_free(&c);
}

/* ------------------------------------------------------------------------- */
/* coalesce                                                                  */

static uint64_t expected_requests(uint64_t stride, uint64_t line)
{
    uint64_t r = (32 * stride + line - 1) / line;
    return r > 32 ? 32 : r;
}

/* the stride sweep 4..256 on an arch: requests, the model, the inferred line */
static void check_coalesce_strides(const sim_arch *a, const char *const *overrides,
                                   size_t override_count, int exact)
{
    uint64_t line = a->arch.level[GD_L1D].line_bytes;
    uint64_t xs[64];
    size_t n = bank_sweep(4, xs);
    gd_probe_opts opts = {0};
    gd_curve c;
    measure(a, overrides, override_count, "coalesce", &opts, xs, n, &c);
    if (exact) {
        for (size_t i = 0; i < n; i++) {
            double got = summary_at(&c, xs[i], "requests")->median;
            if (got != (double)expected_requests(xs[i], line))
                fail_msg("%s: stride %llu: %.3f requests, expected %llu", a->arch.name,
                         (unsigned long long)xs[i], got,
                         (unsigned long long)expected_requests(xs[i], line));
        }
        assert_model_equals(&a->arch, &c, "requests");
    }
    gd_inference inf;
    memset(&inf, 0, sizeof inf);
    gd_err err;
    if (gd_infer_coalesce(&inf, &c, &err) != 0)
        fail_msg("%s", err.msg);
    const gd_inferred_level *l = &inf.level[GD_INF_L1D];
    assert_true(l->has_alloc_line);
    if (l->alloc_line_bytes != line)
        fail_msg("%s: inferred a %llu-byte line, arch %llu", a->arch.name,
                 (unsigned long long)l->alloc_line_bytes, (unsigned long long)line);
    assert_true(l->alloc_line_confidence > (exact ? 0.99 : 0.5));
    gd_curve_free(&c);
}

static void test_coalesce_t4(void **state)
{
    (void)state;
    sim_arch a;
    open_arch("t4", &a);
    assert_int_equal(a.arch.level[GD_L1D].line_bytes, 128);
    check_coalesce_strides(&a, NULL, 0, 1);
}

static void test_coalesce_line64(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    static const char *const edits[] = {"L1D", "line", "64", NULL};
    sim_arch a;
    open_arch(write_variant(dir, "line64", edits), &a);
    assert_int_equal(a.arch.level[GD_L1D].line_bytes, 64);
    check_coalesce_strides(&a, NULL, 0, 1);
    gd_test_rmrf(dir);
    free(dir);
}

/* timer jitter and outliers on every load: the line still comes out */
static void test_coalesce_noise(void **state)
{
    (void)state;
    static const char *const noise[] = {"noise.jitter=3", "noise.outlier_rate=0.005",
                                        "noise.outlier_cycles=100", "noise.seed=5"};
    sim_arch a;
    open_arch("t4", &a);
    check_coalesce_strides(&a, noise, 4, 0);
}

static void test_coalesce_lanes(void **state)
{
    (void)state;
    sim_arch a;
    open_arch("t4", &a);
    uint64_t xs[32];
    for (size_t i = 0; i < 32; i++)
        xs[i] = i + 1;
    gd_probe_opts opts = {0};
    snprintf(opts.variant, sizeof opts.variant, "lanes");
    gd_curve c;
    measure(&a, NULL, 0, "coalesce", &opts, xs, 32, &c);
    for (size_t i = 0; i < 32; i++)
        assert_true(summary_at(&c, xs[i], "requests")->median == (double)xs[i]);
    assert_model_equals(&a.arch, &c, "requests");
    /* at a stride of a line every lane is its own request, whatever the line:
     * nothing to infer */
    gd_inference inf;
    memset(&inf, 0, sizeof inf);
    gd_err err;
    assert_int_equal(gd_infer_coalesce(&inf, &c, &err), 0);
    assert_false(inf.level[GD_INF_L1D].has_alloc_line);
    gd_curve_free(&c);
    /* at 32 bytes, four lanes share a line */
    opts.stride_bytes = 32;
    measure(&a, NULL, 0, "coalesce", &opts, xs, 32, &c);
    for (size_t i = 0; i < 32; i++)
        assert_true(summary_at(&c, xs[i], "requests")->median == (double)(i / 4 + 1));
    assert_model_equals(&a.arch, &c, "requests");
    assert_int_equal(gd_infer_coalesce(&inf, &c, &err), 0);
    assert_true(inf.level[GD_INF_L1D].has_alloc_line);
    assert_int_equal(inf.level[GD_INF_L1D].alloc_line_bytes, 128);
    gd_curve_free(&c);
}

static void test_coalesce_bad_points(void **state)
{
    (void)state;
    const gd_probe *p = gd_probe_find("coalesce");
    gd_device_info info;
    memset(&info, 0, sizeof info);
    info.cc_major = 7;
    info.cc_minor = 5;
    gd_probe_opts opts = {0};
    gd_probe_plan plan;
    gd_err err;
    assert_int_equal(p->plan(&opts, &info, 6, &plan, &err), -1); /* not a multiple of 4 */
    snprintf(opts.variant, sizeof opts.variant, "lanes");
    assert_int_equal(p->plan(&opts, &info, 33, &plan, &err), -1);
    snprintf(opts.variant, sizeof opts.variant, "diagonal");
    assert_int_equal(p->plan(&opts, &info, 4, &plan, &err), -1);
    const gd_probe *b = gd_probe_find("smem_bank");
    memset(&opts, 0, sizeof opts);
    snprintf(opts.variant, sizeof opts.variant, "u64");
    assert_int_equal(b->plan(&opts, &info, 12, &plan, &err), -1); /* 8-byte alignment */
    memset(&opts, 0, sizeof opts);
    assert_int_equal(b->plan(&opts, &info, 0, &plan, &err), 0); /* x = 0: broadcast */
    gd_probe_plan_free(b, &plan);
}

/* ------------------------------------------------------------------------- */
/* clock, (DEPBAR/NOP), LDS, STS, clock: how many times */
static int smem_timed_sequences(const gd_sass *s)
{
    int found = 0;
    for (int i = 0; i < s->n; i++) {
        if (!gd_sass_is_clock(s->line[i]))
            continue;
        int j = i + 1;
        while (j < s->n && (gd_sass_is(s->line[j], "DEPBAR") || gd_sass_is(s->line[j], "NOP")))
            j++;
        if (j + 2 < s->n && gd_sass_is(s->line[j], "LDS") && gd_sass_is(s->line[j + 1], "STS") &&
            gd_sass_is_clock(s->line[j + 2]))
            found++;
    }
    return found;
}

/* Between consecutive clock reads: the LDG counts of the timed blocks (only
 * windows holding loads), each block's loads all before its first STS. */
static int coalesce_blocks(const gd_sass *s, const char *name, int *ldg_per_block, int max)
{
    int blocks = 0, prev = -1;
    for (int i = 0; i < s->n; i++) {
        if (!gd_sass_is_clock(s->line[i]))
            continue;
        if (prev >= 0) {
            int ldg = 0, sts = 0, sts_before_last_ldg = 0, others = 0;
            for (int j = prev + 1; j < i; j++) {
                if (gd_sass_is(s->line[j], "LDG")) {
                    ldg++;
                    sts_before_last_ldg += sts > 0;
                } else if (gd_sass_is(s->line[j], "STS")) {
                    sts++;
                } else if (!gd_sass_is(s->line[j], "DEPBAR") && !gd_sass_is(s->line[j], "NOP")) {
                    others++;
                }
            }
            if (ldg) {
                if (sts_before_last_ldg || sts != ldg || others)
                    fail_msg("%s: a timed block of %d LDG has %d STS (%d before a load) and %d "
                             "other instructions",
                             name, ldg, sts, sts_before_last_ldg, others);
                if (blocks < max)
                    ldg_per_block[blocks] = ldg;
                blocks++;
            }
        }
        prev = i;
    }
    return blocks;
}

static void test_machine_code(void **state)
{
    (void)state;
    if (!gd_test_ptxas())
        GD_SKIP("ptxas not found");
    char *dir = gd_test_tmpdir();
    struct {
        const char *probe, *variant;
        uint64_t point;
    } cases[] = {
        {"smem_bank", "u32", 12}, {"smem_bank", "u64", 24}, {"smem_bank", "u32", 0},
        {"coalesce", "stride", 64}, {"coalesce", "lanes", 7},
    };
    int sass_read = 0;
    size_t ncases = sizeof cases / sizeof cases[0];
    for (size_t t = 0; t < GD_TEST_TARGET_COUNT; t++) {
        int sm = gd_test_targets[t];
        /* every case in one batch per target (tests/sass_batch.h) */
        gd_sass_batch b;
        char batch_name[64];
        snprintf(batch_name, sizeof batch_name, "access-sm%d", sm);
        gd_sass_batch_init(&b, dir, batch_name, sm);
        uint32_t code_min[8], code_max[8];
        for (size_t k = 0; k < ncases; k++) {
            const gd_probe *probe = gd_probe_find(cases[k].probe);
            assert_non_null(probe);
            gd_device_info info = gd_test_device_info(sm);
            gd_probe_opts opts = {0};
            snprintf(opts.variant, sizeof opts.variant, "%s", cases[k].variant);
            gd_probe_plan plan;
            gd_err err;
            if (probe->plan(&opts, &info, cases[k].point, &plan, &err) != 0)
                fail_msg("%s", err.msg);
            assert_true(plan.code_min_instructions > 0);
            code_min[k] = plan.code_min_instructions;
            code_max[k] = plan.code_max_instructions;
            char name[96];
            snprintf(name, sizeof name, "%s-%s-%llu-sm%d", cases[k].probe, cases[k].variant,
                     (unsigned long long)cases[k].point, sm);
            gd_sass_batch_add(&b, name, plan.ptx, plan.entry);
            gd_probe_plan_free(probe, &plan);
        }
        gd_sass_batch_build(&b, 1);
        for (size_t k = 0; k < ncases; k++) {
            const char *name = b.k[k].label;
            uint64_t insns = b.text_bytes[k] / 16;
            if (insns < code_min[k] || insns > code_max[k])
                fail_msg("%s: %llu instructions, expected %u..%u", name, (unsigned long long)insns,
                         code_min[k], code_max[k]);
            const gd_sass *s = &b.sass[k];
            if (!s->n)
                continue; /* no nvdisasm */
            sass_read++;
            if (!strcmp(cases[k].probe, "smem_bank")) {
                /* the strided and the same-word loops */
                int n = smem_timed_sequences(s);
                if (n != 2)
                    fail_msg("%s: %d clock / LDS / STS / clock sequences, expected 2", name, n);
            } else {
                int ldg[8], n = coalesce_blocks(s, name, ldg, 8);
                if (n != 6)
                    fail_msg("%s: %d timed blocks with loads, expected 6", name, n);
                for (int bl = 0; bl < 6; bl++)
                    if (ldg[bl] != (bl % 2 ? CO_LOADS : 1))
                        fail_msg("%s: timed block %d has %d LDG, expected %d", name, bl, ldg[bl],
                                 bl % 2 ? CO_LOADS : 1);
            }
        }
        gd_sass_batch_free(&b);
    }
    if (!sass_read)
        printf("note: nvdisasm not found: machine-code sizes checked, SASS not read\n");
    gd_test_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_smem_bank_t4),
        cmocka_unit_test(test_smem_bank_variant_archs),
        cmocka_unit_test(test_smem_bank_u64),
        cmocka_unit_test(test_smem_bank_cli),
        cmocka_unit_test(test_smem_bank_ambiguous_sweeps),
        cmocka_unit_test(test_coalesce_t4),
        cmocka_unit_test(test_coalesce_line64),
        cmocka_unit_test(test_coalesce_noise),
        cmocka_unit_test(test_coalesce_lanes),
        cmocka_unit_test(test_coalesce_bad_points),
        cmocka_unit_test(test_machine_code),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
