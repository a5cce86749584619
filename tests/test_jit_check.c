/* test_jit_check.c -- the run-time check of the JIT's machine code (host/jit_check.c).
 *
 *   - the cubin hash is FNV-1a 64 (reference vectors);
 *   - on real machine code (the toolkit's ptxas output for an icache_seq
 *     plan): the code range and the FFMA count pass, and a plan that expects
 *     what the code does not hold fails, naming the entry; without nvdisasm the
 *     count is "unchecked: no nvdisasm", never a pass;
 *   - the timed-region order on real machine code: ptxas' cubin of the plan
 *     read with the parameter base measured from ptxas' own gd_param_base
 *     kernel is "ok"; without that base, or past a reader's limit (17 kernel
 *     parameters), the order is "unchecked: ...", never a pass and never an
 *     abort;
 *   - through the runner on the mock driver: a JIT that leaves out one FFMA
 *     (GD_MOCK_CUDA_JIT_DROP) makes the point fail before any launch, naming
 *     the probe, and meta.json's "jit_checks" records the verdict, the JIT's info
 *     log and the cubin's hash; a JIT that issues mshr's follower load ahead
 *     of the line loads (GD_MOCK_CUDA_JIT_MOVE: the old probe's order) is
 *     refused with an order mismatch naming mshr; a faithful JIT passes --
 *     order "ok" with the parameter base the runner measured through the
 *     mock's JIT -- and the kernel runs.
 */
#include "tests/testing.h"

#include "host/cuda_device.h"
#include "host/device.h"
#include "host/device_registry.h"
#include "host/jit_check.h"
#include "host/runner.h"
#include "host/sass_order.h"
#include "tests/mock_libcuda.h"
#include "tests/ptx_toolchain.h"

#include <dlfcn.h>

#define assert_contains(text, needle)                                                          \
    do {                                                                                       \
        const char *haystack_ = (text);                                                        \
        if (!strstr(haystack_, (needle)))                                                      \
            fail_msg("\"%s\" lacks \"%s\"", haystack_, (needle));                              \
    } while (0)

#define ICACHE_POINT_BYTES 2048

/* The FFMA block icache_seq plans for that point (the probe's own count). */
static uint32_t icache_intended(void)
{
    const gd_probe *probe = gd_probe_find("icache_seq");
    gd_device_info info = gd_test_device_info(75);
    gd_probe_opts opts = {0};
    snprintf(opts.variant, sizeof opts.variant, "ffma");
    gd_probe_plan plan;
    gd_err err;
    if (probe->plan(&opts, &info, ICACHE_POINT_BYTES, &plan, &err) != 0)
        fail_msg("%s", err.msg);
    uint32_t n = plan.intended_instructions;
    gd_probe_plan_free(probe, &plan);
    return n;
}

static void test_hash(void **unused)
{
    (void)unused;
    char h[17];
    gd_jit_cubin_hash("", 0, h);
    assert_string_equal(h, "cbf29ce484222325"); /* the offset basis */
    gd_jit_cubin_hash("a", 1, h);
    assert_string_equal(h, "af63dc4c8601ec8c");
    gd_jit_cubin_hash("foobar", 6, h);
    assert_string_equal(h, "85944171f73967e8");
}

static void test_find_nvdisasm(void **unused)
{
    (void)unused;
    char buf[1024];
    char *old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv(GD_NVDISASM_ENV, "/nonexistent/nvdisasm", 1);
    assert_null(gd_jit_find_nvdisasm(buf, sizeof buf));
    unsetenv(GD_NVDISASM_ENV);
    setenv("PATH", "/nonexistent-a:/nonexistent-b", 1);
    assert_null(gd_jit_find_nvdisasm(buf, sizeof buf));
    const char *nvdisasm = gd_test_nvdisasm();
    if (nvdisasm) {
        setenv(GD_NVDISASM_ENV, nvdisasm, 1);
        assert_non_null(gd_jit_find_nvdisasm(buf, sizeof buf));
        assert_string_equal(buf, nvdisasm);
        unsetenv(GD_NVDISASM_ENV);
    }
    if (old_path)
        setenv("PATH", old_path, 1);
    free(old_path);
}

static void test_real_machine_code(void **unused)
{
    (void)unused;
    const char *ptxas = gd_test_ptxas();
    if (!ptxas)
        GD_SKIP("ptxas not found");
    const gd_probe *probe = gd_probe_find("icache_seq");
    assert_non_null(probe);
    gd_device_info info = gd_test_device_info(75);
    gd_probe_opts opts = {0};
    snprintf(opts.variant, sizeof opts.variant, "ffma");
    gd_probe_plan plan;
    gd_err err = {{0}};
    if (probe->plan(&opts, &info, ICACHE_POINT_BYTES, &plan, &err) != 0)
        fail_msg("%s", err.msg);
    char *dir = gd_test_tmpdir();
    size_t size = 0;
    void *cubin = gd_test_ptxas_compile(ptxas, dir, "icache", plan.ptx, 75, &size);
    assert_non_null(cubin);

    /* without nvdisasm: the size is checked, the count is not claimed */
    gd_jit_verdict v;
    assert_int_equal(gd_jit_check("icache_seq", &plan, cubin, size, NULL, 0, &v, &err), 0);
    assert_int_equal(v.status, GD_JIT_OK);
    assert_contains(v.code_range, "ok: ");
    assert_string_equal(v.intended, "unchecked: no nvdisasm");
    assert_int_equal(v.intended_found, -1);
    assert_contains(v.order, "unchecked");
    assert_true(v.instructions >= plan.code_min_instructions &&
                v.instructions <= plan.code_max_instructions);

    /* a range the machine code misses: a mismatch naming the entry */
    gd_probe_plan narrow = plan;
    narrow.code_min_instructions = v.instructions + 1;
    narrow.code_max_instructions = v.instructions + 10;
    assert_int_equal(gd_jit_check("icache_seq", &narrow, cubin, size, NULL, 0, &v, &err), 0);
    assert_int_equal(v.status, GD_JIT_MISMATCH);
    assert_contains(v.code_range, "mismatch: ");
    assert_contains(v.code_range, "gd_icache_seq");

    /* a probe the check knows nothing intended of, and no range: unchecked */
    gd_probe_plan bare = plan;
    bare.code_min_instructions = bare.code_max_instructions = 0;
    assert_int_equal(gd_jit_check("pchase", &bare, cubin, size, NULL, 0, &v, &err), 0);
    assert_int_equal(v.status, GD_JIT_UNCHECKED);

    /* a cubin without the entry: an error, not a verdict */
    gd_probe_plan other = plan;
    snprintf(other.entry, sizeof other.entry, "gd_no_such_entry");
    assert_int_equal(gd_jit_check("icache_seq", &other, cubin, size, NULL, 0, &v, &err), -1);
    assert_contains(err.msg, "icache_seq");

    const char *nvdisasm = gd_test_nvdisasm();
    if (nvdisasm) {
        /* the parameter base of sm_75, from ptxas' own gd_param_base */
        char *base_ptx = gd_sass_param_base_ptx(75);
        size_t base_size = 0;
        void *base_cubin = gd_test_ptxas_compile(ptxas, dir, "base", base_ptx, 75, &base_size);
        assert_non_null(base_cubin);
        char *base_sass = gd_jit_disassemble(nvdisasm, base_cubin, base_size, &err);
        if (!base_sass)
            fail_msg("%s", err.msg);
        unsigned base = gd_sass_param_base(base_sass);
        assert_true(base > 0);
        free(base_sass);
        free(base_cubin);
        free(base_ptx);

        /* without the base the order is not claimed */
        assert_int_equal(gd_jit_check("icache_seq", &plan, cubin, size, nvdisasm, 0, &v, &err), 0);
        assert_int_equal(v.status, GD_JIT_OK);
        assert_string_equal(v.order, "unchecked: the target's parameter base was not measured");

        assert_int_equal(gd_jit_check("icache_seq", &plan, cubin, size, nvdisasm, base, &v, &err),
                         0);
        assert_int_equal(v.status, GD_JIT_OK);
        assert_contains(v.order, "ok: ");
        assert_contains(v.order, "in PTX order");
        assert_int_equal(v.intended_found, (int)plan.intended_instructions);
        char want[128];
        snprintf(want, sizeof want, "ok: %u FFMA, as intended", plan.intended_instructions);
        assert_string_equal(v.intended, want);
        gd_probe_plan more = plan;
        more.intended_instructions++;
        assert_int_equal(gd_jit_check("icache_seq", &more, cubin, size, nvdisasm, base, &v, &err),
                         0);
        assert_int_equal(v.status, GD_JIT_MISMATCH);
        snprintf(want, sizeof want,
                 "mismatch: %u FFMA in the machine code of gd_icache_seq, the probe intends %u",
                 plan.intended_instructions, more.intended_instructions);
        assert_string_equal(v.intended, want);
    } else {
        printf("note: nvdisasm not found; the FFMA count was not checked on real code\n");
    }
    free(cubin);
    gd_probe_plan_free(probe, &plan);
    gd_test_rmrf(dir);
    free(dir);
}

/* A reader's limit is "unchecked", not an abort and not a pass: a kernel of 17
 * parameters (the readers hold 16).  Needs no tools. */
static void test_order_limit_is_unchecked(void **unused)
{
    (void)unused;
    char ptx[4096];
    size_t n = (size_t)snprintf(ptx, sizeof ptx, ".visible .entry k(\n");
    for (int i = 0; i < GD_ORDER_MAX_PARAMS + 1; i++)
        n += (size_t)snprintf(ptx + n, sizeof ptx - n, "    .param .u32 p%d%s\n", i,
                              i < GD_ORDER_MAX_PARAMS ? "," : "");
    snprintf(ptx + n, sizeof ptx - n,
             ")\n{\n    mov.u64 %%rd1, %%clock64;\n    ld.param.u32 %%r1, [p0];\n"
             "    mov.u64 %%rd2, %%clock64;\n    sub.s64 %%rd3, %%rd2, %%rd1;\n    ret;\n}\n");
    gd_probe_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.ptx = ptx;
    snprintf(plan.entry, sizeof plan.entry, "k");
    char verdict[GD_JIT_VERDICT_BYTES];
    assert_int_equal(gd_jit_check_order("k", &plan, "CS2R R2, SR_CLOCKLO\nEXIT\n", 0x160, verdict,
                                        sizeof verdict),
                     GD_JIT_UNCHECKED);
    char want[128];
    snprintf(want, sizeof want, "unchecked: PTX: %d kernel parameters exceeded",
             GD_ORDER_MAX_PARAMS);
    assert_string_equal(verdict, want);
    /* and no nvdisasm: unchecked too */
    assert_int_equal(gd_jit_check_order("k", &plan, NULL, 0x160, verdict, sizeof verdict),
                     GD_JIT_UNCHECKED);
    assert_string_equal(verdict, "unchecked: no nvdisasm");
}

/* ---- through the runner, on the mock driver ----------------------------------- */

typedef struct mock_run {
    void *library;
    mock_cuda_state_fn state;
    mock_cuda_last_image_fn last_image;
    gd_device *dev;
} mock_run;

static void open_mock(mock_run *m)
{
#ifndef GD_HAVE_CUDA
    GD_SKIP("built without CUDA headers");
#endif
    const char *path = gd_test_mock_libcuda();
    if (!path)
        GD_SKIP("mock driver libmockcuda.so not found");
    const char *ptxas = gd_test_ptxas();
    if (!ptxas)
        GD_SKIP("ptxas not found (the mock driver JITs with it)");
    setenv("PTXAS", ptxas, 1);
    m->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(m->library);
    m->state = (mock_cuda_state_fn)dlsym(m->library, MOCK_CUDA_STATE_SYMBOL);
    m->last_image = (mock_cuda_last_image_fn)dlsym(m->library, MOCK_CUDA_LAST_IMAGE_SYMBOL);
    assert_non_null(m->state);
    assert_non_null(m->last_image);
    setenv("GPUDISSECT_LIBCUDA", path, 1);
    /* counters are tested in test_cupti.c; keep the toolkit's real CUPTI out */
    setenv("GPUDISSECT_LIBCUPTI", "/nonexistent/libcupti.so", 1);
    gd_err err = {{0}};
    if (gd_device_open("cuda:0", NULL, &m->dev, &err) != 0)
        fail_msg("%s", err.msg);
}

static void close_mock(mock_run *m)
{
    gd_device_close(m->dev);
    unsetenv("GPUDISSECT_LIBCUDA");
    unsetenv("GPUDISSECT_LIBCUPTI");
    unsetenv(MOCK_CUDA_JIT_DROP_ENV);
    unsetenv(MOCK_CUDA_JIT_MOVE_ENV);
    unsetenv(GD_NVDISASM_ENV);
    dlclose(m->library);
}

/* Measures one point of probe/variant on the mock; returns the runner's rc. */
static int measure(mock_run *m, const char *name, const char *variant, uint64_t point,
                   json_t *meta, gd_err *err)
{
    const gd_probe *probe = gd_probe_find(name);
    assert_non_null(probe);
    gd_probe_opts opts = {0};
    snprintf(opts.variant, sizeof opts.variant, "%s", variant);
    gd_curve curve;
    gd_curve_init(&curve, name, probe, &opts);
    gd_runner runner;
    gd_runner_init(&runner, m->dev, NULL, NULL);
    runner.meta = meta;
    int rc = gd_runner_measure(&runner, &curve, point, 0, 1, err);
    gd_runner_close(&runner);
    gd_curve_free(&curve);
    return rc;
}

/* Measures one icache_seq (ffma) point on the mock; returns the runner's rc. */
static int measure_icache(mock_run *m, json_t *meta, gd_err *err)
{
    return measure(m, "icache_seq", "ffma", ICACHE_POINT_BYTES, meta, err);
}

#define MSHR_POINT_LINES 8
/* mshr's first pass, as the JIT of GD_MOCK_CUDA_JIT_MOVE below reorders it:
 * the follower's clock read, address and load (kernels/mshr.c) go up ahead of
 * the first line load -- the follower ahead of the lines, as the probe had it
 * before its fix.  (Its address still waits for that clock read, and ptxas
 * keeps clock reads in place among loads, so the line load now issues after
 * the clock read that closes its timed region.) */
#define MSHR_HOIST_FOLLOWER "%rd15, %clock64|// the follower|@%q0 ld.global"

static void test_runner_refuses_a_reordered_timed_region(void **unused)
{
    (void)unused;
    const char *nvdisasm = gd_test_nvdisasm();
    if (!nvdisasm)
        GD_SKIP("nvdisasm not found (the order check reads its listing)");
    mock_run m;
    open_mock(&m);
    setenv(GD_NVDISASM_ENV, nvdisasm, 1);

    /* the faithful JIT first: the order holds */
    json_t *meta = json_object();
    gd_err err = {{0}};
    int launches = m.state()->launches;
    if (measure(&m, "mshr", "entries", MSHR_POINT_LINES, meta, &err) != 0)
        printf("note: the point failed after the check (expected on a mock): %s\n", err.msg);
    assert_true(m.state()->launches > launches);
    json_t *k = json_array_get(json_object_get(meta, "jit_checks"), 0);
    assert_non_null(k);
    assert_string_equal(json_string_value(json_object_get(k, "probe")), "mshr");
    assert_string_equal(json_string_value(json_object_get(k, "machine_code")), "ok");
    const char *order = json_string_value(json_object_get(k, "timed_region_order"));
    assert_non_null(order);
    assert_contains(order, "ok: ");
    assert_contains(order, "timed regions in PTX order");
    assert_true(json_integer_value(json_object_get(k, "param_base")) > 0);
    json_decref(meta);

    /* the follower hoisted ahead of the lines: refused before any launch */
    setenv(MOCK_CUDA_JIT_MOVE_ENV, MSHR_HOIST_FOLLOWER, 1);
    meta = json_object();
    launches = m.state()->launches;
    assert_int_equal(measure(&m, "mshr", "entries", MSHR_POINT_LINES, meta, &err), -1);
    assert_contains(err.msg, "mshr: the driver's JIT made machine code that does not mean");
    assert_contains(err.msg, "refused before its first launch: timed-region order mismatch: ");
    assert_null(strchr(err.msg, '\n'));
    assert_int_equal(m.state()->launches, launches);
    k = json_array_get(json_object_get(meta, "jit_checks"), 0);
    assert_non_null(k);
    assert_string_equal(json_string_value(json_object_get(k, "probe")), "mshr");
    assert_string_equal(json_string_value(json_object_get(k, "machine_code")), "mismatch");
    order = json_string_value(json_object_get(k, "timed_region_order"));
    /* the JIT issued the follower's clock read ahead of the line load, so the
     * first timed region of the machine code holds no load where the PTX's
     * holds the line (the follower and the line come after it) */
    assert_contains(order, "mismatch: timed region 1 (from clock read 1 of ");
    assert_contains(order, "has no match in the SASS; first difference at event 1; ");
    assert_contains(order, "PTX `@%q0 ld.global.ca.u32 %v0, [%a0]   {address from: "
                           "gd_mshr_buf,gd_mshr_lines,tid}`, SASS `nothing: the region ends "
                           "there`");
    assert_null(strchr(order, '\n'));
    /* the LDG count still passes, the range is no mismatch: the order refused it */
    assert_contains(json_string_value(json_object_get(k, "intended_instructions")), "ok: ");
    assert_null(strstr(json_string_value(json_object_get(k, "code_range")), "mismatch"));
    printf("note: %s\n", order);
    json_decref(meta);
    close_mock(&m);
}

static void test_runner_refuses_a_mismatch(void **unused)
{
    (void)unused;
    const char *nvdisasm = gd_test_nvdisasm();
    if (!nvdisasm)
        GD_SKIP("nvdisasm not found (the FFMA count needs it)");
    mock_run m;
    open_mock(&m);
    setenv(GD_NVDISASM_ENV, nvdisasm, 1);
    setenv(MOCK_CUDA_JIT_DROP_ENV, "fma.rn.f32", 1);
    int launches = m.state()->launches;
    json_t *meta = json_object();
    gd_err err = {{0}};
    assert_int_equal(measure_icache(&m, meta, &err), -1);
    assert_contains(err.msg, "icache_seq: the driver's JIT made machine code that does not mean");
    char want[160];
    snprintf(want, sizeof want,
             "mismatch: %u FFMA in the machine code of gd_icache_seq, the probe intends %u",
             icache_intended() - 1, icache_intended());
    assert_contains(err.msg, want);
    assert_int_equal(m.state()->launches, launches); /* refused before the first launch */
    json_t *k = json_array_get(json_object_get(meta, "jit_checks"), 0);
    assert_non_null(k);
    assert_string_equal(json_string_value(json_object_get(k, "machine_code")), "mismatch");
    assert_string_equal(json_string_value(json_object_get(k, "probe")), "icache_seq");
    json_decref(meta);
    close_mock(&m);
}

static void test_runner_records_a_faithful_jit(void **unused)
{
    (void)unused;
    mock_run m;
    open_mock(&m);
    const char *nvdisasm = gd_test_nvdisasm();
    if (nvdisasm)
        setenv(GD_NVDISASM_ENV, nvdisasm, 1);
    else
        setenv(GD_NVDISASM_ENV, "/nonexistent/nvdisasm", 1);
    int launches = m.state()->launches;
    json_t *meta = json_object();
    gd_err err = {{0}};
    /* the mock runs nothing, so decode may refuse the zeroed samples: what
     * counts here is that the check passed and the kernel was launched */
    if (measure_icache(&m, meta, &err) != 0)
        printf("note: the point failed after the check (expected on a mock): %s\n", err.msg);
    assert_true(m.state()->launches > launches);
    json_t *k = json_array_get(json_object_get(meta, "jit_checks"), 0);
    assert_non_null(k);
    assert_string_equal(json_string_value(json_object_get(k, "entry")), "gd_icache_seq");
    assert_string_equal(json_string_value(json_object_get(k, "machine_code")), "ok");
    assert_contains(json_string_value(json_object_get(k, "code_range")), "ok: ");
    char want[128];
    snprintf(want, sizeof want, "ok: %u FFMA, as intended", icache_intended());
    assert_string_equal(json_string_value(json_object_get(k, "intended_instructions")),
                        nvdisasm ? want : "unchecked: no nvdisasm");
    /* the order, read with the parameter base measured through the mock's JIT */
    if (nvdisasm) {
        assert_contains(json_string_value(json_object_get(k, "timed_region_order")), "ok: ");
        assert_true(json_integer_value(json_object_get(k, "param_base")) > 0);
    } else {
        assert_string_equal(json_string_value(json_object_get(k, "timed_region_order")),
                            "unchecked: no nvdisasm");
    }
    /* the hash is of the very image the driver loaded (no patch: the JIT's) */
    size_t bytes = 0;
    const void *image = m.last_image(&bytes);
    assert_non_null(image);
    char h[17];
    gd_jit_cubin_hash(image, bytes, h);
    assert_string_equal(json_string_value(json_object_get(k, "jit_cubin_fnv1a64")), h);
    assert_string_equal(json_string_value(json_object_get(k, "loaded_cubin_fnv1a64")), h);
    assert_int_equal(json_integer_value(json_object_get(k, "jit_cubin_bytes")), (json_int_t)bytes);
    /* ptxas -v (the verbose JIT log) names the entry */
    assert_contains(json_string_value(json_object_get(k, "jit_info_log")), "gd_icache_seq");
    json_decref(meta);
    close_mock(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash),
        cmocka_unit_test(test_find_nvdisasm),
        cmocka_unit_test(test_real_machine_code),
        cmocka_unit_test(test_order_limit_is_unchecked),
        cmocka_unit_test(test_runner_refuses_a_mismatch),
        cmocka_unit_test(test_runner_refuses_a_reordered_timed_region),
        cmocka_unit_test(test_runner_records_a_faithful_jit),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
