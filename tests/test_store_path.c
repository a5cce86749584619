/* test_store_path.c -- the L1's store policy as an arch choice (issue 12,
 * sim/l1d_store.c): a load right after a store to the same sector hits the L1
 * under [L1D] write_allocate and goes to the L2 without it; the value loaded
 * is the one stored either way.
 */
#include "tests/testing.h"

#include "analysis/arch.h"
#include "host/device.h"
#include "host/device_registry.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_allocate_tells),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
