/* test_ptxas_clock32.c -- the --timer clock32 variant (issue 16) passes the
 * checks of test_ptxas.c: every probe's PTX, with each %clock64 read rewritten
 * into a 32-bit %clock read (kernels/timer.c: gd_timer_clock32_ptx, the form
 * GPGPU-Sim runs), assembles with ptxas for sm_75, sm_80, sm_86, sm_89 and
 * sm_90 with its machine code in the range the probe declares, and the
 * p-chase's timed sequence is still clock read, load, consuming store, clock
 * read.  The rewrite itself is checked without ptxas: every read replaced,
 * none left, the register declared once per entry. */
#include "tests/testing.h"
#include "tests/ptx_toolchain.h"
#include "tests/probe_sass_checks.h"

#include "kernels/probe.h"
#include "kernels/ptx_emit.h"
#include "kernels/timer.h"

/* The plan's PTX rewritten for clock32, in place of the original. */
static void to_clock32(gd_probe_plan *plan, const char *name)
{
    char *ptx32 = NULL;
    unsigned reads = 0;
    gd_err err;
    if (gd_timer_clock32_ptx(plan->ptx, &ptx32, &reads, &err) != 0)
        fail_msg("%s: %s", name, err.msg);
    assert_true(reads >= 2);
    assert_null(strstr(ptx32, "%clock64"));
    free(plan->ptx);
    plan->ptx = ptx32;
}

static void test_rewrite(void **state)
{
    (void)state;
    const char *ptx = ".visible .entry k(\n    .param .u64 p\n)\n{\n    .reg .b64 %rd<4>;\n"
                      "    mov.u64 %rd1, %clock64;\n    mov.u64\t%rd2,  %clock64;\n    sub.s64 %rd3, %rd2, %rd1;\n}\n";
    char *out = NULL;
    unsigned reads = 0;
    gd_err err;
    assert_int_equal(gd_timer_clock32_ptx(ptx, &out, &reads, &err), 0);
    assert_int_equal(reads, 2);
    assert_null(strstr(out, "%clock64"));
    assert_non_null(strstr(out, "    .reg .b64 %rd<4>;\n    .reg .u32 %gd_clock32;\n"));
    assert_non_null(strstr(out, "mov.u32 %gd_clock32, %clock;\n    cvt.u64.u32 %rd1, %gd_clock32;\n"));
    assert_non_null(strstr(out, "cvt.u64.u32 %rd2, %gd_clock32;\n    sub.s64 %rd3, %rd2, %rd1;"));
    free(out);
    assert_int_not_equal(gd_timer_clock32_ptx("{\n}\n", &out, &reads, &err), 0);
    assert_non_null(strstr(err.msg, "no %clock64"));
}

static void test_every_probe_assembles_for_every_target(void **state)
{
    (void)state;
    const char *ptxas = gd_test_ptxas();
    if (!ptxas)
        GD_SKIP("ptxas not found");
    gd_test_assemble_every_probe(ptxas, "c32-", to_clock32);
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
    gd_test_pchase_timed_sequence(ptxas, nvdisasm, "c32-", to_clock32);
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
    gd_test_resv_hol_warm_sequence(ptxas, nvdisasm, "c32-", to_clock32);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rewrite),
        cmocka_unit_test(test_every_probe_assembles_for_every_target),
        cmocka_unit_test(test_pchase_timed_sequence_in_sass),
        cmocka_unit_test(test_resv_hol_warm_up_before_the_clock),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
