/* test_ptxas.c -- every probe's PTX assembles with ptxas for every target the
 * installed ptxas lists (tests/ptx_toolchain.h: sm_75 ... sm_121 for CUDA 13.0),
 * the PTX header names the right ISA version for each, and the machine code is
 * what the probe intends.
 *
 * The header: every listed target is in the emitter's table; ptxas accepts the
 * table's .version for it and rejects the PTX ISA version just before (sm_88,
 * which this ptxas takes from 7.3 though the PTX ISA notes introduce it with
 * 9.0, excepted and said); a compute capability the table does not know (13.0,
 * 10.4, 9.5) gets the newest known plain target below it, a comment saying so,
 * and that PTX assembles; meta.json of a run on such a device records it.
 *
 * For every registered probe, variant and target the emitted PTX must assemble,
 * and the size of .text.<entry> in the cubin's ELF must fall in the range the
 * probe declares (ptxas drops code that feeds no store and merges identical
 * chains; a size far off means the probe no longer measures what it says).
 * With nvdisasm the p-chase's timed sequence is checked instruction by
 * instruction: clock read, load, consuming store, clock read. */
#include "tests/testing.h"
#include "tests/ptx_toolchain.h"
#include "tests/probe_sass_checks.h"

#include "kernels/probe.h"
#include "kernels/ptx_emit.h"
#include "analysis/results.h"

static void assert_has(const char *text, const char *needle)
{
    if (!strstr(text, needle))
        fail_msg("'%s' not in:\n%s", needle, text);
}

/* The PTX ISA versions (times ten) in order, to name the one before a version. */
static const int isa_versions[] = {60, 61, 62, 63, 64, 65, 70, 71, 72, 73, 74, 75, 76, 77,
                                   78, 80, 81, 82, 83, 84, 85, 86, 87, 88, 90};

static int previous_isa(int isa_x10)
{
    for (size_t i = 1; i < sizeof isa_versions / sizeof isa_versions[0]; i++)
        if (isa_versions[i] == isa_x10)
            return isa_versions[i - 1];
    return 0;
}

/* Whether ptxas assembles an empty kernel with .version isa_x10 for sm_<sm>. */
static int ptxas_accepts(const char *ptxas, const char *dir, int sm, int isa_x10)
{
    char ptx[256], path[1200], cmd[4096], out[4096];
    snprintf(ptx, sizeof ptx,
             ".version %d.%d\n.target sm_%d\n.address_size 64\n.visible .entry k()\n{\n    ret;\n}\n",
             isa_x10 / 10, isa_x10 % 10, sm);
    snprintf(path, sizeof path, "%s/v%d-sm%d.ptx", dir, isa_x10, sm);
    gd_err err;
    assert_int_equal(gd_write_atomic(path, ptx, strlen(ptx), &err), 0);
    snprintf(cmd, sizeof cmd, "'%s' -arch=sm_%d '%s' -o '%s.cubin'", ptxas, sm, path, path);
    return gd_test_run(cmd, out, sizeof out) == 0;
}

static void test_every_listed_target_has_its_version(void **state)
{
    (void)state;
    const char *ptxas = gd_test_ptxas();
    if (!ptxas)
        GD_SKIP("ptxas not found");
    assert_true(gd_test_target_list_get()->from_ptxas);
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    char listed[512] = "";
    for (size_t t = 0; t < GD_TEST_TARGET_COUNT; t++) {
        int sm = gd_test_targets[t];
        snprintf(listed + strlen(listed), sizeof listed - strlen(listed), " sm_%d", sm);
        int isa = gd_ptx_isa_for_target(sm);
        if (isa == 0)
            fail_msg("ptxas lists sm_%d, which the PTX target table does not know", sm);
        if (!ptxas_accepts(ptxas, dir, sm, isa))
            fail_msg("ptxas rejects .version %d.%d for sm_%d", isa / 10, isa % 10, sm);
        int before = previous_isa(isa);
        assert_true(before > 0);
        if (ptxas_accepts(ptxas, dir, sm, before)) {
            if (sm != 88)
                fail_msg("ptxas accepts .version %d.%d for sm_%d: the table's %d.%d is not the "
                         "oldest", before / 10, before % 10, sm, isa / 10, isa % 10);
            printf("note: sm_88: ptxas accepts .version %d.%d as well (the PTX ISA notes: %d.%d)\n",
                   before / 10, before % 10, isa / 10, isa % 10);
        }
        /* the header of a device of that compute capability names it, no fallback */
        gd_ptx_target target;
        gd_ptx_target_for_cc(sm / 10, sm % 10, &target);
        assert_int_equal(target.sm, sm);
        assert_int_equal(target.isa_x10, isa);
        assert_false(target.fallback);
    }
    printf("note: ptxas lists%s\n", listed);
    /* CUDA 13.0 lists at least these; a newer ptxas may list more */
    static const int cuda13[] = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};
    for (size_t i = 0; i < sizeof cuda13 / sizeof cuda13[0]; i++) {
        int found = 0;
        for (size_t t = 0; t < GD_TEST_TARGET_COUNT; t++)
            found |= gd_test_targets[t] == cuda13[i];
        if (!found)
            printf("note: this ptxas does not list sm_%d\n", cuda13[i]);
    }
    gd_test_rmrf(dir);
    free(dir);
}

/* The parser of ptxas --help on a fixed text (no ptxas needed). */
static void test_parse_gpu_names(void **state)
{
    (void)state;
    static const char help[] =
        "--gpu-name <gpu name>   (-arch)\n"
        "        Allowed values for this option:  'compute_100','compute_75','lto_90',\n"
        "        'sm_100','sm_100a','sm_100f','sm_121','sm_75','sm_90','sm_90a'.\n"
        "        Default value:  'sm_75'.\n"
        "--other  Allowed values for this option: 'sm_999'.\n";
    gd_test_target_list list;
    assert_int_equal(gd_test_parse_gpu_names(help, &list), 4);
    assert_int_equal(list.sm[0], 75);
    assert_int_equal(list.sm[1], 90);
    assert_int_equal(list.sm[2], 100);
    assert_int_equal(list.sm[3], 121);
    assert_int_equal(gd_test_parse_gpu_names("no such paragraph", &list), 0);
}

/* A compute capability the table does not know: the newest known plain
 * target below it, said in the header; that PTX assembles for the target it
 * names (what the driver JIT-compiles forward). */
static void test_unknown_cc_falls_back(void **state)
{
    (void)state;
    static const struct {
        int major, minor, sm, isa;
    } cases[] = {{13, 0, 121, 88}, {10, 4, 103, 88}, {9, 5, 90, 78}, {12, 5, 121, 88}};
    const char *ptxas = gd_test_ptxas();
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    const gd_probe *probe = gd_probe_find("icache_seq");
    assert_non_null(probe);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gd_ptx_target t;
        gd_ptx_target_for_cc(cases[i].major, cases[i].minor, &t);
        assert_true(t.fallback);
        assert_int_equal(t.sm, cases[i].sm);
        assert_int_equal(t.isa_x10, cases[i].isa);
        char cc[16], target[16];
        snprintf(cc, sizeof cc, "%d.%d", cases[i].major, cases[i].minor);
        snprintf(target, sizeof target, "sm_%d", cases[i].sm);
        assert_has(t.note, cc);
        assert_has(t.note, target);
        assert_null(strchr(t.note, '\n'));

        gd_device_info info = gd_test_device_info(cases[i].major * 10 + cases[i].minor);
        gd_probe_opts opts = {0};
        gd_probe_plan plan;
        gd_err err;
        assert_int_equal(probe->plan(&opts, &info, probe->example_point, &plan, &err), 0);
        char expect[64];
        snprintf(expect, sizeof expect, ".version %d.%d\n.target sm_%d\n", cases[i].isa / 10,
                 cases[i].isa % 10, cases[i].sm);
        assert_has(plan.ptx, expect);
        assert_has(plan.ptx, t.note);
        if (ptxas) {
            char name[64];
            snprintf(name, sizeof name, "fallback-%d%d", cases[i].major, cases[i].minor);
            size_t size;
            void *cubin = gd_test_ptxas_compile(ptxas, dir, name, plan.ptx, cases[i].sm, &size);
            if (!cubin)
                fail_msg("the fallback PTX for cc %s does not assemble", cc);
            free(cubin);
        }
        gd_probe_plan_free(probe, &plan);
    }
    /* a known one: no note, no comment */
    gd_ptx_target t;
    gd_ptx_target_for_cc(10, 3, &t);
    assert_false(t.fallback);
    assert_string_equal(t.note, "");
    /* older than the table: its oldest entry, said */
    gd_ptx_target_for_cc(3, 0, &t);
    assert_true(t.fallback);
    assert_has(t.note, "older");
    if (!ptxas)
        printf("note: ptxas not found: fallback headers checked, not assembled\n");
    gd_test_rmrf(dir);
    free(dir);
}

/* meta.json of a run on a device of unknown compute capability says what
 * the PTX was written for. */
static void test_meta_records_ptx_target(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    static const struct {
        const char *cc;
        const char *target;
        int fallback;
    } cases[] = {{"13.0", "sm_121", 1}, {"7.5", "sm_75", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[2048], out[8192], run[1200];
        snprintf(run, sizeof run, "%s/run%zu", dir, i);
        snprintf(cmd, sizeof cmd,
                 "%s run --device sim:tiny --set gpu.compute_capability=%s --probe pchase "
                 "--sweep 1KiB:2KiB --samples 64 --quiet --out %s",
                 gd_test_binary(), cases[i].cc, run);
        if (gd_test_run(cmd, out, sizeof out) != 0)
            fail_msg("%s failed:\n%s", cmd, out);
        char path[1300];
        snprintf(path, sizeof path, "%s/meta.json", run);
        size_t size;
        gd_err err;
        char *meta = gd_read_file(path, &size, &err);
        assert_non_null(meta);
        char expect[96];
        snprintf(expect, sizeof expect, "\"ptx_target\": \"%s\"", cases[i].target);
        assert_has(meta, expect);
        if (cases[i].fallback)
            assert_has(meta, "unknown to the PTX target table");
        else
            assert_has(meta, "\"ptx_target_note\": null");
        free(meta);
    }
    gd_test_rmrf(dir);
    free(dir);
}

static void test_every_probe_assembles_for_every_target(void **state)
{
    (void)state;
    const char *ptxas = gd_test_ptxas();
    if (!ptxas)
        GD_SKIP("ptxas not found");
    gd_test_assemble_every_probe(ptxas, "", NULL);
}

static void test_pchase_timed_sequence_in_sass(void **state)
{
    (void)state;
    const char *ptxas = gd_test_ptxas();
    if (!ptxas)
        GD_SKIP("ptxas not found");
    const char *nvdisasm = gd_test_nvdisasm();
    if (!nvdisasm)
        GD_SKIP("nvdisasm not found (pip install nvidia-cuda-nvdisasm)");
    gd_test_pchase_timed_sequence(ptxas, nvdisasm, "", NULL);
}

static void test_resv_hol_warm_up_before_the_clock(void **state)
{
    (void)state;
    const char *ptxas = gd_test_ptxas();
    if (!ptxas)
        GD_SKIP("ptxas not found");
    const char *nvdisasm = gd_test_nvdisasm();
    if (!nvdisasm)
        GD_SKIP("nvdisasm not found (pip install nvidia-cuda-nvdisasm)");
    gd_test_resv_hol_warm_sequence(ptxas, nvdisasm, "", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_gpu_names),
        cmocka_unit_test(test_every_listed_target_has_its_version),
        cmocka_unit_test(test_unknown_cc_falls_back),
        cmocka_unit_test(test_meta_records_ptx_target),
        cmocka_unit_test(test_every_probe_assembles_for_every_target),
        cmocka_unit_test(test_pchase_timed_sequence_in_sass),
        cmocka_unit_test(test_resv_hol_warm_up_before_the_clock),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
