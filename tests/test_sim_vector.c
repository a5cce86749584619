/* test_sim_vector.c -- ld/st.global .v2/.v4 in the simulator's PTX subset
 * (issue 12: the bandwidth probe's vector accesses).
 *
 *   - a .v4.u32 store and a .v4.u32 load round-trip four words in element
 *     order, .v2.u64 two doublewords, .v2.s32 sign-extends each element;
 *   - a use of the *last* element of a vector load waits for the load (the
 *     scoreboard holds every register of the vector, not only the first):
 *     clock; ld.v4; use of element 3; clock measures a memory latency;
 *   - refused: a vector outside .global, an immediate element, .v4.u64 (32
 *     bytes), a misaligned vector.
 */
#include "tests/testing.h"

#include "host/device.h"
#include "host/device_registry.h"

#define HEADER ".version 6.3\n.target sm_75\n.address_size 64\n"

static gd_device *open_arch(const char *spec)
{
    gd_device *dev = NULL;
    gd_err err;
    if (gd_device_open(spec, NULL, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    return dev;
}

/* Runs `ptx` (entry "k", one .u64 param: a buffer of `words` u64, filled
 * from `in` and copied back into `out`). */
static int run_kernel(gd_device *dev, const char *ptx, unsigned block, const uint64_t *in,
                      uint64_t *out, size_t words, gd_err *err)
{
    gd_kernel *k = NULL;
    if (gd_kernel_load(dev, ptx, "k", NULL, &k, err) != 0)
        return -1;
    gd_devptr buf;
    int rc = -1;
    if (gd_mem_alloc(dev, words * 8, &buf, err) != 0)
        goto out;
    if (gd_mem_copy_in(dev, buf, in, words * 8, err) != 0)
        goto out_free;
    const void *values[1] = {&buf};
    size_t sizes[1] = {8};
    gd_launch l = {.grid = {1, 1, 1}, .block = {block, 1, 1}, .param_count = 1,
                   .param_values = values, .param_sizes = sizes};
    if (gd_kernel_launch(dev, k, &l, err) != 0 || gd_device_synchronize(dev, err) != 0)
        goto out_free;
    if (gd_mem_copy_out(dev, out, buf, words * 8, err) != 0)
        goto out_free;
    rc = 0;
out_free:
    gd_mem_release(dev, buf, err);
out:
    gd_kernel_unload(dev, k);
    return rc;
}

static void test_round_trip(void **state)
{
    (void)state;
    gd_device *dev = open_arch("sim:tiny");
    const char *ptx = HEADER
        ".visible .entry k(.param .u64 out)\n{\n"
        ".reg .b32 %r<16>;\n.reg .b64 %rd<16>;\n"
        "ld.param.u64 %rd1, [out];\n"
        "mov.u32 %r1, 11;\nmov.u32 %r2, 22;\nmov.u32 %r3, 33;\nmov.u32 %r4, 44;\n"
        "st.global.v4.u32 [%rd1+64], {%r1, %r2, %r3, %r4};\n"
        "ld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd1+64];\n"
        /* written back swapped: element order is register order */
        "st.global.v4.u32 [%rd1+96], {%r8, %r7, %r6, %r5};\n"
        "ld.global.cg.v2.u64 {%rd2, %rd3}, [%rd1];\n"
        "st.global.v2.u64 [%rd1+128], {%rd3, %rd2};\n"
        "ld.global.v2.s32 {%r9, %r10}, [%rd1+16];\n"
        "cvt.s64.s32 %rd4, %r9;\ncvt.s64.s32 %rd5, %r10;\n"
        "st.global.u64 [%rd1+144], %rd4;\nst.global.u64 [%rd1+152], %rd5;\n"
        "ret;\n}\n";
    uint64_t in[20] = {0}, out[20];
    in[0] = 0x1111222233334444ull;
    in[1] = 0x5555666677778888ull;
    in[2] = (uint64_t)(uint32_t)-5 | ((uint64_t)7 << 32);
    gd_err err;
    if (run_kernel(dev, ptx, 1, in, out, 20, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(out[8], 11 | (22ull << 32));
    assert_int_equal(out[9], 33 | (44ull << 32));
    assert_int_equal(out[12], 44 | (33ull << 32));
    assert_int_equal(out[13], 22 | (11ull << 32));
    assert_int_equal(out[16], in[1]);
    assert_int_equal(out[17], in[0]);
    assert_int_equal((int64_t)out[18], -5);
    assert_int_equal((int64_t)out[19], 7);
    gd_device_close(dev);
}

/* clock; ld.v4; use of element `use`; clock -- the cycles between. */
static uint64_t timed_use(gd_device *dev, int use)
{
    char ptx[2048];
    static const char *const regs[] = {"%r5", "%r6", "%r7", "%r8"};
    snprintf(ptx, sizeof ptx, HEADER
        ".visible .entry k(.param .u64 out)\n{\n"
        ".reg .b32 %%r<16>;\n.reg .b64 %%rd<16>;\n"
        "ld.param.u64 %%rd1, [out];\n"
        "mov.u64 %%rd2, %%clock64;\n"
        "ld.global.cg.v4.u32 {%%r5, %%r6, %%r7, %%r8}, [%%rd1+256];\n"
        "st.global.u32 [%%rd1+512], %s;\n"
        "mov.u64 %%rd3, %%clock64;\n"
        "sub.s64 %%rd4, %%rd3, %%rd2;\n"
        "st.global.u64 [%%rd1], %%rd4;\n"
        "ret;\n}\n", regs[use]);
    uint64_t in[80] = {0}, out[80];
    gd_err err;
    if (run_kernel(dev, ptx, 1, in, out, 80, &err) != 0)
        fail_msg("%s", err.msg);
    return out[0];
}

static void test_scoreboard_every_element(void **state)
{
    (void)state;
    gd_device *dev = open_arch("sim:tiny");
    uint64_t first = timed_use(dev, 0), last = timed_use(dev, 3);
    /* tiny: L2 90 cycles, DRAM 200; either way far more than an issue slot */
    assert_true(first >= 90);
    assert_true(last >= 90);
    assert_true(last + 2 >= first && first + 2 >= last);
    gd_device_close(dev);
}

static void test_refused(void **state)
{
    (void)state;
    gd_device *dev = open_arch("sim:tiny");
    static const char *const bad[] = {
        "ld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [%r5];\n",
        "st.global.v2.u32 [%rd1], {%r1, 5};\n",
        "ld.global.v4.u64 {%rd2, %rd3, %rd4, %rd5}, [%rd1];\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char ptx[1024];
        snprintf(ptx, sizeof ptx, HEADER
                 ".visible .entry k(.param .u64 out)\n{\n"
                 ".reg .b32 %%r<16>;\n.reg .b64 %%rd<16>;\n"
                 "ld.param.u64 %%rd1, [out];\n%sret;\n}\n", bad[i]);
        gd_kernel *k = NULL;
        gd_err err;
        if (gd_kernel_load(dev, ptx, "k", NULL, &k, &err) == 0) {
            gd_kernel_unload(dev, k);
            fail_msg("accepted: %s", bad[i]);
        }
        assert_true(strlen(err.msg) > 0);
    }
    /* misaligned: a .v4.u32 at 8 bytes past a 16-byte boundary */
    const char *mis = HEADER
        ".visible .entry k(.param .u64 out)\n{\n"
        ".reg .b32 %r<16>;\n.reg .b64 %rd<16>;\n"
        "ld.param.u64 %rd1, [out];\n"
        "ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1+8];\n"
        "st.global.u32 [%rd1], %r4;\nret;\n}\n";
    uint64_t in[8] = {0}, out[8];
    gd_err err;
    assert_int_not_equal(run_kernel(dev, mis, 1, in, out, 8, &err), 0);
    assert_non_null(strstr(err.msg, "misaligned"));
    gd_device_close(dev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_scoreboard_every_element),
        cmocka_unit_test(test_refused),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
