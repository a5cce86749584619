/* test_store_path.c -- the store path as arch choices (issue 12,
 * sim/l1d_store.c, sim/l2_store.c) and the store_path probe that tells them
 * apart (kernels/store_path.c, analysis/infer_store.c, compare_store.c):
 *   - a load right after a store to the same sector hits the L1 under [L1D]
 *     write_allocate and goes to the L2 without it; the value loaded is the
 *     one stored either way;
 *   - a write-back L1 writes dirty lines back when they are evicted (counted
 *     apart from the kernel-end write-back) and the values survive;
 *   - a dirty L2 line evicted by an instruction fetch (a kernel's code read
 *     through the L2 after its stores) is written back and the kernel ends:
 *     the write-back once sat in the DRAM queue with no cycle due for it
 *     ("deadlocked ... nothing is in flight", generated seed 1011's
 *     store-path step after the steps before it);
 *   - `characterize` with the store step alone, on sim:t4 with every policy
 *     set both ways (--set), on other bundled archs (one with noise) and on
 *     generated ones: each verdict in inferred.json is the one the arch
 *     implies and every store row of compare.json matches.
 */
#include "tests/testing.h"

#include <jansson.h>

#include "analysis/arch.h"
#include "host/device.h"
#include "host/device_registry.h"
#include "tests/arch_gen.h"
#include "tests/results_json.h"

#define HEADER ".version 6.3\n.target sm_75\n.address_size 64\n"

/* store `st` at out+256, then time a dependent ld.ca of the same address */
static const char *kernel_fmt =
    HEADER
    ".visible .entry k(.param .u64 out)\n{\n"
    ".reg .b32 %%r<4>;\n.reg .b64 %%rd<16>;\n"
    "ld.param.u64 %%rd1, [out];\n"
    "mov.u64 %%rd2, 77;\n"
    "mov.u32 %%r1, 77;\n"
    "%s\n"
    "mov.u64 %%rd3, %%clock64;\n"
    "ld.global.ca.u64 %%rd4, [%%rd1+256];\n"
    "add.u64 %%rd5, %%rd4, 1;\n"
    "mov.u64 %%rd6, %%clock64;\n"
    "sub.u64 %%rd7, %%rd6, %%rd3;\n"
    "st.global.u64 [%%rd1], %%rd7;\n"
    "st.global.u64 [%%rd1+8], %%rd5;\n"
    "ret;\n}\n";

/* The timed load's cycles and the value it read (+1). */
static void run(const char *allocate, const char *store, uint64_t *cycles, uint64_t *value)
{
    const char *ov[] = {allocate};
    gd_device_opts o = {ov, 1};
    gd_device *dev;
    gd_err err;
    if (gd_device_open("sim:tiny", &o, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    char ptx[2048];
    snprintf(ptx, sizeof ptx, kernel_fmt, store);
    gd_kernel *k = NULL;
    gd_devptr buf;
    if (gd_kernel_load(dev, ptx, "k", NULL, &k, &err) != 0 || gd_mem_alloc(dev, 4096, &buf, &err) != 0 ||
        gd_mem_fill(dev, buf, 0, 4096, &err) != 0)
        fail_msg("%s", err.msg);
    const void *values[1] = {&buf};
    size_t sizes[1] = {8};
    gd_launch l = {.grid = {1, 1, 1}, .block = {1, 1, 1}, .param_count = 1,
                   .param_values = values, .param_sizes = sizes};
    uint64_t out[2];
    if (gd_kernel_launch(dev, k, &l, &err) != 0 || gd_device_synchronize(dev, &err) != 0 ||
        gd_mem_copy_out(dev, out, buf, sizeof out, &err) != 0)
        fail_msg("%s", err.msg);
    *cycles = out[0];
    *value = out[1];
    gd_mem_release(dev, buf, &err);
    gd_kernel_unload(dev, k);
    gd_device_close(dev);
}

static void test_write_allocate_tells(void **state)
{
    (void)state;
    gd_arch a;
    gd_err err;
    char path[1024];
    assert_int_equal(gd_arch_resolve("tiny", path, sizeof path, &err), 0);
    assert_int_equal(gd_arch_load(path, NULL, 0, &a, &err), 0);
    assert_false(a.level[GD_L1D].write_allocate); /* the default: no allocation */
    uint64_t l1 = a.level[GD_L1D].latency_cycles, l2 = a.level[GD_L2].latency_cycles;
    const char *full = "st.global.u64 [%rd1+256], %rd2;";
    const char *part = "st.global.u32 [%rd1+256], %r1;";
    uint64_t c, v;
    run("L1D.write_allocate=true", full, &c, &v);
    assert_int_equal(v, 78);
    if (c > l1 + 5)
        fail_msg("write-allocate: the load after a store took %llu cycles, the L1's %llu expected",
                 (unsigned long long)c, (unsigned long long)l1);
    run("L1D.write_allocate=false", full, &c, &v);
    assert_int_equal(v, 78);
    if (c < l2)
        fail_msg("no allocate: the load after a store took %llu cycles, the L2's %llu expected",
                 (unsigned long long)c, (unsigned long long)l2);
    /* 4 bytes of a 32-byte sector: the request names the sector, not the
     * bytes, so it validates it too (README: a limit) and the value is right */
    run("L1D.write_allocate=true", part, &c, &v);
    assert_int_equal(v, 78);
    assert_true(c <= l1 + 5);
}

/* The reader takes the store keys' words and refuses others, naming them. */
static void test_keys_read(void **state)
{
    (void)state;
    gd_arch a;
    gd_err err;
    char path[1024];
    assert_int_equal(gd_arch_resolve("t4", path, sizeof path, &err), 0);
    const char *good[] = {"L1D.write_back=true", "L2.write_allocate=line", "L2.partial_write=mask"};
    assert_int_equal(gd_arch_load(path, good, 3, &a, &err), 0);
    assert_true(a.level[GD_L1D].write_back);
    assert_int_equal(a.level[GD_L2].l2_write_alloc, GD_L2_WRITE_LINE);
    assert_int_equal(a.level[GD_L2].partial_write, GD_L2_PARTIAL_MASK);
    assert_int_equal(gd_arch_load(path, NULL, 0, &a, &err), 0); /* the defaults: as before */
    assert_false(a.level[GD_L1D].write_back);
    assert_int_equal(a.level[GD_L2].l2_write_alloc, GD_L2_WRITE_SECTOR);
    assert_int_equal(a.level[GD_L2].partial_write, GD_L2_PARTIAL_VALIDATE);
    static const struct {
        const char *set, *says;
    } bad[] = {
        {"L2.write_allocate=true", "sector, line or none"},
        {"L2.partial_write=bytes", "validate, fetch or mask"},
        {"L1D.write_back=maybe", "true or false"},
        {"L1D.partial_write=mask", "unknown key"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *ov[] = {bad[i].set};
        assert_int_not_equal(gd_arch_load(path, ov, 1, &a, &err), 0);
        if (!strstr(err.msg, bad[i].says))
            fail_msg("%s: '%s' does not say '%s'", bad[i].set, err.msg, bad[i].says);
    }
}

/* ------------------------------------------------------------------------- */
/* A write-back L1 evicts dirty lines                                        */

/* 64 warp stores of 128 B into lines `set_stride` apart (one L1 set), then
 * each line read back: the L1's ways overflow, so dirty lines leave by
 * eviction before the kernel ends. */
static const char *evict_kernel =
    HEADER
    ".visible .entry k(.param .u64 out, .param .u64 stride)\n{\n"
    ".reg .pred %p<2>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<12>;\n"
    "ld.param.u64 %rd1, [out];\nld.param.u64 %rd2, [stride];\n"
    "mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd1, %rd3;\n"
    "mov.u32 %r2, 0;\n"
    "$L_st:\n"
    "cvt.u64.u32 %rd5, %r2;\nmul.lo.u64 %rd6, %rd5, %rd2;\nadd.s64 %rd7, %rd4, %rd6;\n"
    "add.u32 %r3, %r2, %r1;\nst.global.u32 [%rd7], %r3;\n"
    "add.u32 %r2, %r2, 1;\nsetp.lt.u32 %p1, %r2, 64;\n@%p1 bra $L_st;\n"
    "ret;\n}\n";

static void test_write_back_evicts(void **state)
{
    (void)state;
    const char *ov[] = {"L1D.write_back=true"};
    gd_device_opts o = {ov, 1};
    gd_device *dev;
    gd_err err;
    if (gd_device_open("sim:tiny", &o, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    gd_arch a;
    char path[1024];
    assert_int_equal(gd_arch_resolve("tiny", path, sizeof path, &err), 0);
    assert_int_equal(gd_arch_load(path, NULL, 0, &a, &err), 0);
    uint64_t stride = a.level[GD_L1D].size_bytes / a.level[GD_L1D].ways; /* one set apart */
    gd_kernel *k = NULL;
    gd_devptr buf;
    size_t bytes = (size_t)(64 * stride + 256);
    if (gd_kernel_load(dev, evict_kernel, "k", NULL, &k, &err) != 0 ||
        gd_mem_alloc(dev, bytes, &buf, &err) != 0 || gd_mem_fill(dev, buf, 0, bytes, &err) != 0)
        fail_msg("%s", err.msg);
    const void *values[2] = {&buf, &stride};
    size_t sizes[2] = {8, 8};
    gd_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .param_count = 2,
                   .param_values = values, .param_sizes = sizes};
    if (gd_kernel_launch(dev, k, &l, &err) != 0 || gd_device_synchronize(dev, &err) != 0)
        fail_msg("%s", err.msg);
    gd_counter_list counters = {0};
    if (gd_device_counters(dev, &counters, &err) != 0)
        fail_msg("%s", err.msg);
    double wb = gd_counter_list_get(&counters, "l1d.writebacks", -1);
    double end = gd_counter_list_get(&counters, "l1d.end_writebacks", -1);
    double sectors = gd_counter_list_get(&counters, "l1d.writeback_sectors", -1);
    gd_counter_list_free(&counters);
    /* every line is written back once: by eviction while the set overflows,
     * the ways' worth that remain at the kernel's end */
    assert_true(wb == 64);
    if (end != a.level[GD_L1D].ways)
        fail_msg("write-backs %.0f, at the end %.0f (ways %u), sectors %.0f", wb, end,
                 a.level[GD_L1D].ways, sectors);
    assert_true(sectors == 64 * 128 / a.level[GD_L1D].sector_bytes);
    for (uint32_t i = 0; i < 64; i++) {
        uint32_t v[32];
        if (gd_mem_copy_out(dev, v, buf + i * stride, sizeof v, &err) != 0)
            fail_msg("%s", err.msg);
        for (uint32_t lane = 0; lane < 32; lane++)
            assert_int_equal(v[lane], i + lane);
    }
    gd_mem_release(dev, buf, &err);
    gd_kernel_unload(dev, k);
    gd_device_close(dev);
}

/* ------------------------------------------------------------------------- */
/* The probe's verdicts, both ways                                           */

typedef struct store_expect {
    const char *l1_alloc, *l1_policy, *l2_alloc; /* NULL: no verdict (null in JSON) */
    long granule;                                 /* 0: null */
    const char *partial;
} store_expect;

static void check_string(const json_t *store, const char *key, const char *want, const char *what)
{
    const json_t *v = json_object_get(store, key);
    if (!want) {
        if (!json_is_null(v))
            fail_msg("%s: %s is %s, expected no verdict", what, key, json_string_value(v));
        return;
    }
    if (!json_is_string(v) || strcmp(json_string_value(v), want))
        fail_msg("%s: %s is %s, expected %s", what, key, json_is_string(v) ? json_string_value(v) : "null",
                 want);
}

/* characterize with the store step alone; expect (may be NULL: rows only) */
static void check_store_run(const char *device, const char *const *sets, size_t nsets,
                            const store_expect *want, const char *what)
{
    char *dir = gd_test_tmpdir();
    char suite[1200], run[1200], cmd[4096], out[8192];
    snprintf(suite, sizeof suite, "%s/store.suite", dir);
    FILE *f = fopen(suite, "w");
    assert_non_null(f);
    fprintf(f, "store-path    store_path     --sweep 8:8\n");
    fclose(f);
    snprintf(run, sizeof run, "%s/run", dir);
    int n = snprintf(cmd, sizeof cmd, "%s characterize --device %s --suite %s --out %s --quiet --no-plots",
                     gd_test_binary(), device, suite, run);
    for (size_t i = 0; i < nsets; i++)
        n += snprintf(cmd + n, sizeof cmd - (size_t)n, " --set %s", sets[i]);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s: %s failed:\n%s", what, cmd, out);
    json_t *inf = gd_test_load_json(run, "inferred.json");
    const json_t *store = json_object_get(inf, "store");
    if (!json_is_object(store))
        fail_msg("%s: inferred.json has no store verdict", what);
    if (want) {
        check_string(store, "l1_write_allocate", want->l1_alloc, what);
        check_string(store, "l1_write_policy", want->l1_policy, what);
        check_string(store, "l2_write_allocate", want->l2_alloc, what);
        check_string(store, "l2_partial_write", want->partial, what);
        const json_t *g = json_object_get(store, "l2_write_granule_bytes");
        if (want->granule ? !json_is_integer(g) || json_integer_value(g) != want->granule
                          : !json_is_null(g))
            fail_msg("%s: l2_write_granule_bytes %lld, expected %ld", what,
                     json_is_integer(g) ? (long long)json_integer_value(g) : -1LL, want->granule);
    }
    json_t *cmp = gd_test_load_json(run, "compare.json");
    size_t i;
    const json_t *p;
    int rows = 0;
    json_array_foreach(json_object_get(cmp, "parameters"), i, p) {
        const char *name = json_string_value(json_object_get(p, "parameter"));
        if (!strstr(name, "write_") && !strstr(name, "partial_write"))
            continue;
        rows++;
        const char *verdict = json_string_value(json_object_get(p, "verdict"));
        if (strcmp(verdict, "match"))
            fail_msg("%s: %s is %s (measured %s, expected %s)", what, name, verdict,
                     json_dumps(json_object_get(p, "measured"), JSON_ENCODE_ANY),
                     json_dumps(json_object_get(p, "expected"), JSON_ENCODE_ANY));
    }
    assert_true(rows >= 2); /* at least the two allocation rows */
    json_decref(inf);
    json_decref(cmp);
    gd_test_rmrf(dir);
    free(dir);
}

static void test_verdicts_both_ways(void **state)
{
    (void)state;
    static const struct {
        const char *set[2];
        store_expect want;
    } cases[] = {
        {{NULL, NULL}, {"no-allocate", "write-through", "allocate", 32, "validate"}},
        {{"L1D.write_allocate=true", NULL}, {"allocate", "write-through", "allocate", 32, "validate"}},
        {{"L1D.write_back=true", NULL}, {"allocate", "write-back", "allocate", 32, NULL}},
        {{"L2.write_allocate=line", NULL}, {"no-allocate", "write-through", "allocate", 64, "validate"}},
        {{"L2.write_allocate=line", "L2.line=128"},
         {"no-allocate", "write-through", "allocate", 128, "validate"}},
        {{"L2.write_allocate=none", NULL}, {"no-allocate", NULL, "no-allocate", 0, NULL}},
        {{"L2.partial_write=fetch", NULL}, {"no-allocate", "write-through", "allocate", 32, "fetch"}},
        {{"L2.partial_write=mask", NULL}, {"no-allocate", "write-through", "allocate", 32, "mask"}},
        {{"L2.sector=64", NULL}, {"no-allocate", "write-through", "allocate", 64, "validate"}},
        {{"L2.sector=64", "L2.partial_write=mask"},
         {"no-allocate", "write-through", "allocate", 32, "mask"}},
        {{"L1D.write_back=true", "L2.write_allocate=line"},
         {"allocate", "write-back", "allocate", 64, NULL}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *sets[2];
        size_t n = 0;
        char what[160];
        snprintf(what, sizeof what, "sim:t4");
        for (int s = 0; s < 2 && cases[c].set[s]; s++) {
            sets[n++] = cases[c].set[s];
            snprintf(what + strlen(what), sizeof what - strlen(what), " %s", cases[c].set[s]);
        }
        check_store_run("sim:t4", sets, n, &cases[c].want, what);
    }
}

/* Other bundled hierarchies (one with timer noise) and generated ones: the
 * rows match whatever their store policy, set both ways. */
static void test_other_archs(void **state)
{
    (void)state;
    const char *noisy[] = {"noise.jitter=3", "noise.outlier_rate=0.01", "L1D.write_back=true"};
    check_store_run("sim:v100", noisy, 3, NULL, "sim:v100 write-back, noise");
    const char *k80ish[] = {"L2.partial_write=fetch"};
    check_store_run("sim:gtx480", k80ish, 1, NULL, "sim:gtx480 fetch");
    char *dir = gd_test_tmpdir();
    for (uint64_t seed = 1; seed <= 3; seed++) {
        gd_arch_gen_opts go = {.max_l2_bytes = 4u << 20, .noise = -1};
        static char text[16384];
        assert_int_equal(gd_arch_generate(seed, &go, text, sizeof text), 0);
        char path[1200], dev[1300], what[64];
        snprintf(path, sizeof path, "%s/gen%llu.arch", dir, (unsigned long long)seed);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
        snprintf(dev, sizeof dev, "sim:%s", path);
        const char *sets_a[] = {seed % 2 ? "L1D.write_back=true" : "L2.write_allocate=line"};
        const char *sets_b[] = {seed % 2 ? "L2.partial_write=mask" : "L1D.write_allocate=true"};
        snprintf(what, sizeof what, "generated seed %llu (a)", (unsigned long long)seed);
        check_store_run(dev, sets_a, 1, NULL, what);
        snprintf(what, sizeof what, "generated seed %llu (b)", (unsigned long long)seed);
        check_store_run(dev, sets_b, 1, NULL, what);
    }
    gd_test_rmrf(dir);
    free(dir);
}

/* Stores dirty every line of a 64 KiB L2 (twice its size, so the last half
 * stays), a spin lets them land, then 8192 instructions of straight code --
 * more than the L0I and L1I hold -- are fetched through the L2, evicting dirty
 * lines from the fetch path (sim_l2_lookup_fill), and the kernel ends.  The
 * memory system has had nothing due since the stores drained; the
 * write-backs must still be served. */
static void test_fetch_evicts_dirty_l2_lines(void **state)
{
    (void)state;
    size_t cap = 1 << 20, n = 0;
    char *ptx = malloc(cap);
    assert_non_null(ptx);
    n += (size_t)snprintf(ptx + n, cap - n,
                          HEADER ".visible .entry k(.param .u64 out)\n{\n"
                          ".reg .pred %%p<2>;\n.reg .b32 %%r<8>;\n.reg .b64 %%rd<8>;\n"
                          "ld.param.u64 %%rd1, [out];\n"
                          "mov.u32 %%r1, 0;\n"
                          "$L_store:\n"
                          "mul.wide.u32 %%rd2, %%r1, 64;\n"
                          "add.s64 %%rd3, %%rd1, %%rd2;\n"
                          "st.global.u32 [%%rd3], %%r1;\n"
                          "add.s32 %%r1, %%r1, 1;\n"
                          "setp.lt.u32 %%p1, %%r1, 2048;\n"
                          "@%%p1 bra $L_store;\n"
                          "mov.u32 %%r2, 0;\n"
                          "$L_spin:\n"
                          "add.s32 %%r2, %%r2, 1;\n"
                          "setp.lt.u32 %%p1, %%r2, 20000;\n"
                          "@%%p1 bra $L_spin;\n"
                          "st.global.u32 [%%rd1+4], %%r1;\n");
    for (int i = 0; i < 8192; i++)
        n += (size_t)snprintf(ptx + n, cap - n, "add.s32 %%r3, %%r3, %d;\n", i & 7);
    /* nothing after the code but its end: the last traffic is the fetches' */
    n += (size_t)snprintf(ptx + n, cap - n, "ret;\n}\n");
    assert_true(n < cap);

    const char *ov[] = {"L2.size=64KiB"};
    gd_device_opts o = {ov, 1};
    gd_device *dev;
    gd_err err;
    if (gd_device_open("sim:t4", &o, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    gd_kernel *k = NULL;
    if (gd_kernel_load(dev, ptx, "k", NULL, &k, &err) != 0)
        fail_msg("%s", err.msg);
    gd_devptr buf;
    assert_int_equal(gd_mem_alloc(dev, 2048 * 64, &buf, &err), 0);
    const void *values[1] = {&buf};
    size_t sizes[1] = {8};
    gd_launch l = {.grid = {1, 1, 1}, .block = {1, 1, 1}, .param_count = 1,
                   .param_values = values, .param_sizes = sizes};
    gd_counter_list before = {0}, after = {0};
    assert_int_equal(gd_device_counters(dev, &before, &err), 0);
    if (gd_kernel_launch(dev, k, &l, &err) != 0 || gd_device_synchronize(dev, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(gd_device_counters(dev, &after, &err), 0);
    /* the fetches evicted dirty lines: their write-backs reached DRAM */
    double writes = gd_counter_list_get(&after, "dram.writes", 0) -
                    gd_counter_list_get(&before, "dram.writes", 0);
    assert_true(writes > 0);
    uint32_t v[2];
    assert_int_equal(gd_mem_copy_out(dev, v, buf, sizeof v, &err), 0);
    assert_int_equal(v[1], 2048);
    gd_counter_list_free(&before);
    gd_counter_list_free(&after);
    gd_mem_release(dev, buf, &err);
    gd_kernel_unload(dev, k);
    gd_device_close(dev);
    free(ptx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_allocate_tells),
        cmocka_unit_test(test_keys_read),
        cmocka_unit_test(test_write_back_evicts),
        cmocka_unit_test(test_fetch_evicts_dirty_l2_lines),
        cmocka_unit_test(test_verdicts_both_ways),
        cmocka_unit_test(test_other_archs),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
