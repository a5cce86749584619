/* test_sass_batch.c -- the SASS tests' batches (tests/sass_batch.h) read the
 * same machine code as one cubin per kernel.
 *
 *   - every probe and variant at its example point, on the oldest, sm_90 and
 *     the newest target ptxas lists: the .text.<entry> bytes in the batch's
 *     module are the bytes of the kernel's own cubin (ptxas compiles each
 *     entry on its own), and the batch's .text sizes match;
 *   - the p-chase's and the mshr probe's listings from a batch equal
 *     gd_test_sass's of their own cubins, line for line;
 *   - a kernel with a module-scope .const array is assembled alone, one
 *     without is not, and kernels of different .version go to different
 *     modules;
 *   - a batch with a kernel ptxas rejects fails naming that kernel.
 */
#include "tests/testing.h"
#include "tests/ptx_toolchain.h"
#include "tests/sass_batch.h"

#include "kernels/cubin_elf.h"
#include "kernels/probe.h"

/* The .text.<entry> bytes of a cubin file (caller frees). */
static void *text_of(const char *path, const char *entry, uint64_t *bytes)
{
    size_t size;
    gd_err err;
    void *elf = gd_read_file(path, &size, &err);
    if (!elf)
        fail_msg("%s", err.msg);
    uint64_t off;
    if (gd_cubin_text_section(elf, size, entry, &off, bytes, &err) != 0)
        fail_msg("%s: %s", path, err.msg);
    void *text = malloc(*bytes ? *bytes : 1);
    assert_non_null(text);
    memcpy(text, (const char *)elf + off, *bytes);
    free(elf);
    return text;
}

static void test_batch_code_is_each_kernels_own(void **state)
{
    (void)state;
    if (!gd_test_ptxas())
        GD_SKIP("ptxas not found");
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    size_t count;
    const gd_probe *const *probes = gd_probe_list(&count);
    int targets[3] = {gd_test_targets[0], 90, gd_test_targets[GD_TEST_TARGET_COUNT - 1]};
    int compared = 0, merged = 0;
    for (int t = 0; t < 3; t++) {
        int sm = targets[t];
        gd_sass_batch b;
        gd_sass_batch_init(&b, dir, "batch", sm);
        gd_probe_plan plans[128];
        const gd_probe *owner[128];
        size_t n = 0;
        for (size_t p = 0; p < count; p++)
            for (const char *const *v = probes[p]->variants; v && *v && n < 128; v++) {
                gd_device_info info = gd_test_device_info(sm);
                gd_probe_opts opts = {0};
                snprintf(opts.variant, sizeof opts.variant, "%s", *v);
                gd_err err;
                if (probes[p]->plan(&opts, &info, probes[p]->example_point, &plans[n], &err) != 0)
                    fail_msg("%s/%s: %s", probes[p]->name, *v, err.msg);
                char label[96];
                snprintf(label, sizeof label, "%s-%s", probes[p]->name, *v);
                assert_int_equal(gd_sass_batch_add(&b, label, plans[n].ptx, plans[n].entry), n);
                owner[n++] = probes[p];
            }
        gd_sass_batch_build(&b, 0);
        assert_true(b.modules < n); /* some share a module */
        for (size_t i = 0; i < n; i++) {
            char name[64], own[1200], batch[1200];
            snprintf(name, sizeof name, "own%zu-sm%d", i, sm);
            size_t size;
            void *cubin = gd_test_ptxas_compile(gd_test_ptxas(), dir, name, plans[i].ptx, sm, &size);
            assert_non_null(cubin);
            free(cubin);
            snprintf(own, sizeof own, "%s/%s.cubin", dir, name);
            gd_sass_batch_cubin_path(&b, i, batch, sizeof batch);
            uint64_t a_bytes, b_bytes;
            void *a = text_of(own, plans[i].entry, &a_bytes);
            void *c = text_of(batch, b.k[i].renamed, &b_bytes);
            if (a_bytes != b_bytes || memcmp(a, c, a_bytes))
                fail_msg("%s (sm_%d): the batch's code (%llu bytes) is not its own cubin's "
                         "(%llu bytes)",
                         b.k[i].label, sm, (unsigned long long)b_bytes,
                         (unsigned long long)a_bytes);
            assert_int_equal(b.text_bytes[i], a_bytes);
            assert_int_equal(b.cubin_sm[i], sm);
            free(a);
            free(c);
            merged += !b.k[i].alone;
            compared++;
            gd_probe_plan_free(owner[i], &plans[i]);
        }
        gd_sass_batch_free(&b);
    }
    printf("note: %d kernels compared (%d of them in shared modules)\n", compared, merged);
    assert_true(merged > compared / 2);
    gd_test_rmrf(dir);
    free(dir);
}

static void test_batch_listing_is_each_kernels_own(void **state)
{
    (void)state;
    if (!gd_test_ptxas())
        GD_SKIP("ptxas not found");
    if (!gd_test_nvdisasm())
        GD_SKIP("nvdisasm not found (pip install nvidia-cuda-nvdisasm)");
    char *dir = gd_test_tmpdir();
    const char *names[] = {"pchase", "mshr"};
    gd_probe_plan plans[2];
    gd_sass_batch b;
    int sm = gd_test_targets[0];
    gd_sass_batch_init(&b, dir, "listing", sm);
    for (int i = 0; i < 2; i++) {
        const gd_probe *p = gd_probe_find(names[i]);
        gd_device_info info = gd_test_device_info(sm);
        gd_probe_opts opts = {0};
        gd_err err;
        assert_int_equal(p->plan(&opts, &info, p->example_point, &plans[i], &err), 0);
        gd_sass_batch_add(&b, names[i], plans[i].ptx, plans[i].entry);
    }
    gd_sass_batch_build(&b, 1);
    assert_int_equal(b.modules, 1);
    for (int i = 0; i < 2; i++) {
        char name[64];
        snprintf(name, sizeof name, "own-%s", names[i]);
        size_t size;
        free(gd_test_ptxas_compile(gd_test_ptxas(), dir, name, plans[i].ptx, sm, &size));
        gd_sass own;
        gd_test_read_sass(dir, name, &own);
        assert_true(own.n > 10);
        assert_int_equal(b.sass[i].n, own.n);
        for (int j = 0; j < own.n; j++)
            assert_string_equal(b.sass[i].line[j], own.line[j]);
        gd_sass_free(&own);
        gd_probe_plan_free(gd_probe_find(names[i]), &plans[i]);
    }
    gd_sass_batch_free(&b);
    gd_test_rmrf(dir);
    free(dir);
}

static void test_module_scope_and_versions_split_modules(void **state)
{
    (void)state;
    static const char with_const[] =
        ".version 7.0\n.target sm_75\n.address_size 64\n\n"
        ".visible .const .align 4 .b8 gd_carr[16];\n\n"
        ".visible .entry k(.param .u64 p)\n{\n    .reg .b32 %r<2>;\n    .reg .b64 %rd<2>;\n"
        "    ld.param.u64 %rd1, [p];\n    ld.const.u32 %r1, [gd_carr];\n"
        "    st.global.u32 [%rd1], %r1;\n    ret;\n}\n";
    static const char plain70[] =
        ".version 7.0\n.target sm_75\n.address_size 64\n\n"
        ".visible .entry k(.param .u64 p)\n{\n    .reg .b64 %rd<2>;\n"
        "    ld.param.u64 %rd1, [p];\n    st.global.u32 [%rd1], 1;\n    ret;\n}\n";
    static const char plain63[] =
        "// a comment\n.version 6.3\n.target sm_75\n.address_size 64\n\n"
        ".visible .entry k(.param .u64 p)\n{\n    .reg .b64 %rd<2>;\n"
        "    ld.param.u64 %rd1, [p];\n    st.global.u32 [%rd1], 2;\n    ret;\n}\n";
    gd_sass_batch b;
    char *dir = gd_test_tmpdir();
    gd_sass_batch_init(&b, dir, "scope", 75);
    gd_sass_batch_add(&b, "const-a", with_const, "k");
    gd_sass_batch_add(&b, "const-b", with_const, "k");
    gd_sass_batch_add(&b, "plain70-a", plain70, "k");
    gd_sass_batch_add(&b, "plain70-b", plain70, "k");
    gd_sass_batch_add(&b, "plain63", plain63, "k");
    assert_true(b.k[0].alone && b.k[1].alone);
    assert_false(b.k[2].alone || b.k[3].alone || b.k[4].alone);
    assert_string_equal(b.k[2].renamed, "k_k2");
    if (gd_test_ptxas()) {
        gd_sass_batch_build(&b, 0);
        /* each .const kernel alone, the two 7.0 kernels together, the 6.3 one apart */
        assert_int_equal(b.modules, 4);
        assert_int_equal(b.k[2].module, b.k[3].module);
        assert_int_not_equal(b.k[0].module, b.k[1].module);
        assert_int_not_equal(b.k[4].module, b.k[2].module);
        for (int i = 0; i < 5; i++)
            assert_true(b.text_bytes[i] > 0);
    }
    gd_sass_batch_free(&b);
    gd_test_rmrf(dir);
    free(dir);
}

static void test_rejected_kernel_is_named(void **state)
{
    (void)state;
    if (!gd_test_ptxas())
        GD_SKIP("ptxas not found");
    static const char good[] =
        ".version 7.0\n.target sm_75\n.address_size 64\n\n"
        ".visible .entry k(.param .u64 p)\n{\n    .reg .b64 %rd<2>;\n"
        "    ld.param.u64 %rd1, [p];\n    st.global.u32 [%rd1], 1;\n    ret;\n}\n";
    static const char bad[] =
        ".version 7.0\n.target sm_75\n.address_size 64\n\n"
        ".visible .entry k(.param .u64 p)\n{\n    .reg .b64 %rd<2>;\n"
        "    ld.param.u64 %rd1, [p];\n    no.such.op %rd1;\n    ret;\n}\n";
    char *dir = gd_test_tmpdir();
    gd_sass_batch b;
    gd_sass_batch_init(&b, dir, "bad", 75);
    gd_sass_batch_add(&b, "the-good-one", good, "k");
    gd_sass_batch_add(&b, "the-bad-one", bad, "k");
    char why[8400];
    assert_int_equal(gd_sass_batch_try(&b, 0, why, sizeof why), -1);
    if (!strstr(why, "the-bad-one") || strstr(why, "the-good-one"))
        fail_msg("the message does not name the rejected kernel alone: %s", why);
    gd_sass_batch_free(&b);
    gd_test_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_module_scope_and_versions_split_modules),
        cmocka_unit_test(test_rejected_kernel_is_named),
        cmocka_unit_test(test_batch_listing_is_each_kernels_own),
        cmocka_unit_test(test_batch_code_is_each_kernels_own),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
