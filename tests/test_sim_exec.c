/* test_sim_exec.c -- the simulator's PTX front end and functional model: what the
 * subset computes (arithmetic, predication, divergence, barriers, shared memory),
 * what it rejects (with the PTX line), and its timing basics (scoreboard). */
#include "tests/testing.h"

#include "host/device.h"
#include "host/device_registry.h"
#include "sim/ptx.h"

#define HEADER ".version 6.3\n.target sm_75\n.address_size 64\n"

static gd_device *open_tiny(void)
{
    gd_device *dev = NULL;
    gd_err err;
    if (gd_device_open("sim:tiny", NULL, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    return dev;
}

/* Runs `ptx` (entry "k", one .u64 param = an output buffer of `words` u64) with
 * grid x block threads; copies the buffer into out. Returns 0 or -1 with err. */
static int run_kernel(gd_device *dev, const char *ptx, unsigned grid, unsigned block,
                      uint64_t *out, size_t words, gd_err *err)
{
    gd_kernel *k = NULL;
    if (gd_kernel_load(dev, ptx, "k", NULL, &k, err) != 0)
        return -1;
    gd_devptr buf;
    int rc = -1;
    if (gd_mem_alloc(dev, words * 8, &buf, err) != 0)
        goto out;
    if (gd_mem_fill(dev, buf, 0, words * 8, err) != 0)
        goto out_free;
    const void *values[1] = {&buf};
    size_t sizes[1] = {8};
    gd_launch l = {.grid = {grid, 1, 1}, .block = {block, 1, 1}, .param_count = 1,
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

static void test_arithmetic(void **state)
{
    (void)state;
    gd_device *dev = open_tiny();
    const char *ptx = HEADER
        ".visible .entry k(.param .u64 out)\n{\n"
        ".reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<16>;\n.reg .f32 %f<8>;\n"
        "ld.param.u64 %rd1, [out];\n"
        "mov.u32 %r1, 7;\n"
        "mov.u32 %r2, -3;\n"
        "mul.wide.s32 %rd2, %r1, %r2;\n"          /* -21 as s64 */
        "st.global.u64 [%rd1], %rd2;\n"
        "shr.s32 %r3, %r2, 1;\n"                  /* -2 */
        "cvt.s64.s32 %rd3, %r3;\n"
        "st.global.u64 [%rd1+8], %rd3;\n"
        "shr.u32 %r4, %r2, 28;\n"                 /* 0xfffffffd >> 28 = 15 */
        "cvt.u64.u32 %rd4, %r4;\n"
        "st.global.u64 [%rd1+16], %rd4;\n"
        "setp.lt.s32 %p1, %r2, %r1;\n"            /* -3 < 7 */
        "selp.u32 %r5, 11, 22, %p1;\n"
        "cvt.u64.u32 %rd5, %r5;\n"
        "st.global.u64 [%rd1+24], %rd5;\n"
        "setp.lt.u32 %p2, %r2, %r1;\n"            /* 0xfffffffd < 7 is false */
        "selp.u32 %r6, 11, 22, %p2;\n"
        "cvt.u64.u32 %rd6, %r6;\n"
        "st.global.u64 [%rd1+32], %rd6;\n"
        "mov.f32 %f1, 0f40000000;\n"              /* 2.0 */
        "mov.f32 %f2, 1.5;\n"
        "mov.f32 %f3, 0f3F800000;\n"              /* 1.0 */
        "fma.rn.f32 %f4, %f1, %f2, %f3;\n"        /* 4.0 */
        "cvt.rzi.u32.f32 %r7, %f4;\n"
        "cvt.u64.u32 %rd7, %r7;\n"
        "st.global.u64 [%rd1+40], %rd7;\n"
        "mad.lo.s32 %r8, %r1, %r1, %r2;\n"        /* 49 - 3 = 46 */
        "rem.u32 %r9, %r8, 5;\n"                  /* 1 */
        "div.s32 %r10, %r2, 2;\n"                 /* -1 (truncation) */
        "add.s32 %r11, %r9, %r10;\n"              /* 0 */
        "min.s32 %r12, %r2, %r1;\n"               /* -3 */
        "sub.s32 %r13, %r11, %r12;\n"             /* 3 */
        "shl.b32 %r14, %r13, 4;\n"                /* 48 */
        "xor.b32 %r15, %r14, 1;\n"                /* 49 */
        "cvt.u64.u32 %rd8, %r15;\n"
        "st.global.u64 [%rd1+48], %rd8;\n"
        "mul.hi.u64 %rd9, %rd1, 0;\n"
        "st.global.u64 [%rd1+56], %rd9;\n"
        "ret;\n}\n";
    uint64_t out[8];
    gd_err err;
    if (run_kernel(dev, ptx, 1, 1, out, 8, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal((int64_t)out[0], -21);
    assert_int_equal((int64_t)out[1], -2);
    assert_int_equal(out[2], 15);
    assert_int_equal(out[3], 11);
    assert_int_equal(out[4], 22);
    assert_int_equal(out[5], 4);
    assert_int_equal(out[6], 49);
    assert_int_equal(out[7], 0);
    gd_device_close(dev);
}

/* 64 threads: even lanes take one side of an if/else, odd ones the other; a
 * loop whose trip count depends on the lane; everything reconverges. */
static void test_divergence_and_loops(void **state)
{
    (void)state;
    gd_device *dev = open_tiny();
    const char *ptx = HEADER
        ".visible .entry k(.param .u64 out)\n{\n"
        ".reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<16>;\n"
        "ld.param.u64 %rd1, [out];\n"
        "mov.u32 %r1, %tid.x;\n"
        "and.b32 %r2, %r1, 1;\n"
        "setp.eq.u32 %p1, %r2, 0;\n"
        "@%p1 bra EVEN;\n"
        "mov.u32 %r3, 1000;\n"
        "bra JOIN;\n"
        "EVEN:\n"
        "mov.u32 %r3, 2000;\n"
        "JOIN:\n"
        /* loop tid%4 times adding 1 */
        "and.b32 %r4, %r1, 3;\n"
        "mov.u32 %r5, 0;\n"
        "LOOP:\n"
        "setp.ge.u32 %p2, %r5, %r4;\n"
        "@%p2 bra DONE;\n"
        "add.s32 %r3, %r3, 1;\n"
        "add.s32 %r5, %r5, 1;\n"
        "bra LOOP;\n"
        "DONE:\n"
        "mul.wide.u32 %rd2, %r1, 8;\n"
        "add.s64 %rd3, %rd1, %rd2;\n"
        "cvt.u64.u32 %rd4, %r3;\n"
        "st.global.u64 [%rd3], %rd4;\n"
        "ret;\n}\n";
    uint64_t out[64];
    gd_err err;
    if (run_kernel(dev, ptx, 1, 64, out, 64, &err) != 0)
        fail_msg("%s", err.msg);
    for (int t = 0; t < 64; t++)
        assert_int_equal(out[t], (t % 2 == 0 ? 2000u : 1000u) + (unsigned)(t % 4));
    gd_device_close(dev);
}

/* Two warps exchange values through shared memory across bar.sync; CTAs on
 * both SMs; %ctaid and %smid are what the launch placed. */
static void test_barrier_shared_and_ctas(void **state)
{
    (void)state;
    gd_device *dev = open_tiny();
    const char *ptx = HEADER
        ".visible .entry k(.param .u64 out)\n{\n"
        ".reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<16>;\n"
        ".shared .align 4 .b8 buf[256];\n"
        "ld.param.u64 %rd1, [out];\n"
        "mov.u32 %r1, %tid.x;\n"
        "mov.u32 %r2, %ctaid.x;\n"
        "mad.lo.s32 %r3, %r2, 100, %r1;\n"     /* value = ctaid*100 + tid */
        "shl.b32 %r4, %r1, 2;\n"
        "mov.u32 %r5, buf;\n"
        "add.s32 %r6, %r5, %r4;\n"
        "st.shared.u32 [%r6], %r3;\n"
        "bar.sync 0;\n"
        "sub.s32 %r7, 63, %r1;\n"              /* read the mirror thread's value */
        "shl.b32 %r8, %r7, 2;\n"
        "add.s32 %r9, %r5, %r8;\n"
        "ld.shared.u32 %r10, [%r9];\n"
        "mad.lo.s32 %r11, %r2, 64, %r1;\n"
        "mul.wide.u32 %rd2, %r11, 8;\n"
        "add.s64 %rd3, %rd1, %rd2;\n"
        "cvt.u64.u32 %rd4, %r10;\n"
        "st.global.u64 [%rd3], %rd4;\n"
        "setp.ne.u32 %p1, %r1, 0;\n"
        "@%p1 bra END;\n"
        "mov.u32 %r12, %smid;\n"
        "cvt.u64.u32 %rd5, %r12;\n"
        "mul.wide.u32 %rd6, %r2, 8;\n"
        "add.s64 %rd7, %rd1, %rd6;\n"
        "st.global.u64 [%rd7+2048], %rd5;\n"
        "END:\n"
        "ret;\n}\n";
    uint64_t out[256 + 4];
    gd_err err;
    if (run_kernel(dev, ptx, 4, 64, out, 260, &err) != 0)
        fail_msg("%s", err.msg);
    for (int c = 0; c < 4; c++)
        for (int t = 0; t < 64; t++)
            assert_int_equal(out[c * 64 + t], (uint64_t)(c * 100 + (63 - t)));
    /* round-robin placement over the 2 SMs of tiny.arch */
    for (int c = 0; c < 4; c++)
        assert_int_equal(out[256 + c], (uint64_t)(c % 2));
    gd_device_close(dev);
}

/* %clock64 deltas: an ALU dependency costs alu_latency; a shared load its latency. */
static void test_timing_basics(void **state)
{
    (void)state;
    gd_device *dev = open_tiny(); /* alu_latency 1, SMEM latency 15 */
    const char *ptx = HEADER
        ".visible .entry k(.param .u64 out)\n{\n"
        ".reg .b32 %r<8>;\n.reg .b64 %rd<16>;\n"
        ".shared .align 8 .b8 s[64];\n"
        "ld.param.u64 %rd1, [out];\n"
        "mov.u32 %r1, s;\n"
        "st.shared.u32 [%r1], 5;\n"
        "mov.u64 %rd2, %clock64;\n"
        "mov.u64 %rd3, %clock64;\n"          /* back-to-back: 1 cycle */
        "ld.shared.u32 %r2, [%r1];\n"
        "add.s32 %r3, %r2, 1;\n"             /* waits for the load */
        "mov.u64 %rd4, %clock64;\n"
        "sub.s64 %rd5, %rd3, %rd2;\n"
        "sub.s64 %rd6, %rd4, %rd3;\n"
        "st.global.u64 [%rd1], %rd5;\n"
        "st.global.u64 [%rd1+8], %rd6;\n"
        "cvt.u64.u32 %rd7, %r3;\n"
        "st.global.u64 [%rd1+16], %rd7;\n"
        "ret;\n}\n";
    uint64_t out[3];
    gd_err err;
    if (run_kernel(dev, ptx, 1, 1, out, 3, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(out[0], 1);
    /* ld.shared at t+1, add at t+1+15, clock at t+1+15+1 */
    assert_int_equal(out[1], 17);
    assert_int_equal(out[2], 6);
    gd_device_close(dev);
}

static void expect_load_error(const char *ptx, const char *needle)
{
    gd_device *dev = open_tiny();
    gd_kernel *k = NULL;
    gd_err err = {{0}};
    int rc = gd_kernel_load(dev, ptx, "k", NULL, &k, &err);
    if (rc == 0) {
        gd_kernel_unload(dev, k);
        gd_device_close(dev);
        fail_msg("expected '%s'", needle);
    }
    if (!strstr(err.msg, needle))
        fail_msg("error '%s' lacks '%s'", err.msg, needle);
    assert_null(strchr(err.msg, '\n'));
    gd_device_close(dev);
}

static void test_unsupported_ptx_is_rejected_with_its_line(void **state)
{
    (void)state;
    expect_load_error(HEADER ".visible .entry k(.param .u64 out)\n{\n.reg .f32 %f<4>;\n"
                             ".reg .b64 %rd<4>;\n"
                             "tex.2d.v4.f32.f32 %f1, [%rd1];\nret;\n}\n",
                      "ptx:8: unsupported instruction 'tex.2d.v4.f32.f32'");
    expect_load_error(HEADER ".visible .entry k(.param .u64 out)\n{\n.reg .b64 %rd<4>;\n"
                             "ld.u64 %rd1, [%rd2];\nret;\n}\n",
                      "ptx:7: 'ld.u64': generic addressing is not in the subset");
    expect_load_error(HEADER ".visible .entry k(.param .u64 out)\n{\n.reg .b64 %rd<4>;\n"
                             "add.u64 %rd1, %rd9, 1;\nret;\n}\n",
                      "ptx:7: undeclared register %rd9");
    expect_load_error(HEADER ".visible .entry k(.param .u64 out)\n{\nbra NOWHERE;\n}\n",
                      "branch to undefined label NOWHERE");
    expect_load_error(".target sm_75\n.visible .entry k()\n{\nret;\n}\n",
                      "missing '.version'");
    expect_load_error(HEADER ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<2>;\n"
                             "atom.global.add.u32 %r1, [out], 1;\nret;\n}\n",
                      "ptx:7: unsupported instruction 'atom.global.add.u32'");
    expect_load_error(HEADER ".visible .func f()\n{\nret;\n}\n", "ptx:4: '.func'");
    expect_load_error(HEADER ".visible .entry other()\n{\nret;\n}\n", "no entry named 'k'");
    expect_load_error(HEADER ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<2>;\n"
                             "mov.u32 %r1, 1\nret;\n}\n",
                      "ptx:8: expected ';'");
}

/* The parser takes an instruction whose one-line text it has seen in the
 * kernel from that earlier parse (sim/ptx_insn.c: a 64 MiB FFMA block is 4 M
 * lines of eight): the same instructions as a text whose every instruction
 * spans two lines (never taken so) -- lines a register, a type, a guard or an
 * immediate apart included. */
static void append(char **buf, size_t *len, size_t *cap, const char *s)
{
    size_t n = strlen(s);
    if (*len + n + 1 > *cap) {
        *cap = (*len + n + 1) * 2;
        *buf = realloc(*buf, *cap);
        assert_non_null(*buf);
    }
    memcpy(*buf + *len, s, n + 1);
    *len += n;
}

static ptx_module *parse_block(int split)
{
    static const char *const lines[][2] = {
        {"add.u32 %r1,", " %r1, 1;"},        {"add.u32 %r1,", " %r2, 1;"},
        {"add.u32 %r2,", " %r1, 1;"},        {"add.s32 %r1,", " %r1, 1;"},
        {"add.u32 %r1,", " %r1, 2;"},        {"@%p1 add.u32 %r1,", " %r1, 1;"},
        {"@!%p1 add.u32 %r1,", " %r1, 1;"},  {"setp.lt.u32 %p1,", " %r1, 7;"},
        {"fma.rn.f32 %f1,", " %f1, %f2, %f3;"}, {"fma.rn.f32 %f2,", " %f2, %f1, %f3;"},
        {"ld.param.u64 %rd1,", " [out];"},   {"st.global.u32 [%rd1+8],", " %r1;"},
    };
    char *text = NULL;
    size_t len = 0, cap = 0;
    append(&text, &len, &cap,
           HEADER ".visible .entry k(.param .u64 out)\n{\n.reg .pred %p<2>;\n"
                  ".reg .b32 %r<3>;\n.reg .f32 %f<4>;\n.reg .b64 %rd<2>;\n");
    for (int i = 0; i < 300; i++) {
        size_t k = (size_t)(i * 7 + i / 5) % (sizeof lines / sizeof *lines);
        char first[64], rest[64];
        snprintf(first, sizeof first, "%s", lines[k][0]);
        snprintf(rest, sizeof rest, "%s", lines[k][1]);
        if (i % 3 == 0) /* and 36 more of one length, a register or a digit apart */
            snprintf(rest, sizeof rest, " %%r%d, %d;", 1 + i / 9 % 2, 1 + i % 9);
        append(&text, &len, &cap, "    ");
        append(&text, &len, &cap, i % 3 == 0 ? (i / 3 % 2 ? "add.u32 %r2," : "add.u32 %r1,") : first);
        append(&text, &len, &cap, split ? "\n" : "");
        append(&text, &len, &cap, rest);
        append(&text, &len, &cap, "   // a comment after it\n");
    }
    append(&text, &len, &cap, "ret;\n}\n");
    ptx_module *m;
    gd_err err;
    if (ptx_parse(text, &m, &err) != 0)
        fail_msg("%s", err.msg);
    free(text);
    return m;
}

static void test_repeated_lines_parse_alike(void **state)
{
    (void)state;
    ptx_module *one = parse_block(0), *two = parse_block(1);
    const ptx_kernel *a = ptx_module_find(one, "k"), *b = ptx_module_find(two, "k");
    assert_int_equal(a->insn_count, 301);
    assert_int_equal(b->insn_count, a->insn_count);
    for (uint32_t i = 0; i < a->insn_count; i++) {
        ptx_insn x = a->insns[i], y = b->insns[i];
        assert_int_equal(x.line, 10 + i);     /* its own line, not the first's */
        x.line = y.line = 0;
        if (memcmp(&x, &y, sizeof x) != 0)
            fail_msg("instruction %u parsed differently from its one-line text", i);
    }
    ptx_module_free(one);
    ptx_module_free(two);
}

static void test_runtime_errors(void **state)
{
    (void)state;
    gd_device *dev = open_tiny();
    uint64_t out[1];
    gd_err err = {{0}};
    /* a load from an address outside every allocation */
    const char *wild = HEADER ".visible .entry k(.param .u64 out)\n{\n.reg .b64 %rd<4>;\n"
                              "mov.u64 %rd1, 4096;\nld.global.u64 %rd2, [%rd1];\nret;\n}\n";
    assert_int_equal(run_kernel(dev, wild, 1, 1, out, 1, &err), -1);
    assert_non_null(strstr(err.msg, "ptx:8: ld.global of 8 bytes at 0x1000 is outside every "
                                    "device allocation"));
    /* an endless loop hits the watchdog */
    setenv("GPUDISSECT_SIM_MAX_CYCLES", "100000", 1);
    gd_device_close(dev);
    dev = open_tiny();
    const char *endless = HEADER ".visible .entry k(.param .u64 out)\n{\nL:\nbra L;\n}\n";
    assert_int_equal(run_kernel(dev, endless, 1, 1, out, 1, &err), -1);
    assert_non_null(strstr(err.msg, "did not finish within 100000 cycles"));
    unsetenv("GPUDISSECT_SIM_MAX_CYCLES");
    /* the device is still usable after a failed launch */
    const char *fine = HEADER ".visible .entry k(.param .u64 out)\n{\n.reg .b64 %rd<4>;\n"
                              "ld.param.u64 %rd1, [out];\nst.global.u64 [%rd1], 77;\nret;\n}\n";
    assert_int_equal(run_kernel(dev, fine, 1, 1, out, 1, &err), 0);
    assert_int_equal(out[0], 77);
    /* wrong parameter count */
    gd_kernel *k;
    assert_int_equal(gd_kernel_load(dev, fine, "k", NULL, &k, &err), 0);
    gd_launch l = {.grid = {1, 1, 1}, .block = {1, 1, 1}, .param_count = 0};
    assert_int_equal(gd_kernel_launch(dev, k, &l, &err), -1);
    assert_non_null(strstr(err.msg, "takes 1 parameters, the launch passes 0"));
    gd_kernel_unload(dev, k);
    gd_device_close(dev);
}

/* gd_mem_fill on the sim writes only the blocks of a zero fill that are not
 * already zero (sim/devmem.c): every byte must still read back as filled, at
 * block edges, in a range that starts and ends inside a block, and over data
 * copied in before. */
static void test_fill_over_written_memory(void **state)
{
    (void)state;
    gd_device *dev = open_tiny();
    gd_err err;
    enum { BYTES = 3 * 4096 + 100 };
    static uint8_t host[BYTES], back[BYTES];
    gd_devptr buf;
    assert_int_equal(gd_mem_alloc(dev, BYTES, &buf, &err), 0);
    memset(host, 0xab, sizeof host);
    assert_int_equal(gd_mem_copy_in(dev, buf + 4000, host, 5000, &err), 0);
    /* zero inside the written range, from mid-block to mid-block */
    assert_int_equal(gd_mem_fill(dev, buf + 4100, 0, 3000, &err), 0);
    assert_int_equal(gd_mem_copy_out(dev, back, buf, BYTES, &err), 0);
    for (size_t i = 0; i < BYTES; i++) {
        uint8_t want = (i >= 4000 && i < 9000 && !(i >= 4100 && i < 7100)) ? 0xab : 0;
        if (back[i] != want)
            fail_msg("byte %zu reads 0x%02x, expected 0x%02x", i, back[i], want);
    }
    /* a non-zero fill, then zero over everything */
    assert_int_equal(gd_mem_fill(dev, buf + 10, 0x5a, 20, &err), 0);
    assert_int_equal(gd_mem_copy_out(dev, back, buf, 40, &err), 0);
    assert_int_equal(back[9], 0);
    assert_int_equal(back[10], 0x5a);
    assert_int_equal(back[29], 0x5a);
    assert_int_equal(back[30], 0);
    assert_int_equal(gd_mem_fill(dev, buf, 0, BYTES, &err), 0);
    assert_int_equal(gd_mem_copy_out(dev, back, buf, BYTES, &err), 0);
    for (size_t i = 0; i < BYTES; i++)
        if (back[i])
            fail_msg("byte %zu reads 0x%02x after the zero fill", i, back[i]);
    assert_int_equal(gd_mem_release(dev, buf, &err), 0);
    gd_device_close(dev);
}

/* A pristine allocation (zero, nothing written, no kernel since) is handed to
 * the host in place of a copy, once and whole; a zero fill of it reads nothing
 * -- so a kernel's stores must end it: after a launch, a zero fill zeroes what
 * the kernel wrote, and no allocation made before the launch is handed out. */
static void test_pristine_allocations(void **state)
{
    (void)state;
    gd_device *dev = open_tiny();
    gd_err err;
    enum { BYTES = 2 * 4096 + 64 };
    static uint8_t back[BYTES];
    gd_devptr a, b;
    assert_int_equal(gd_mem_alloc(dev, BYTES, &a, &err), 0);
    assert_int_equal(gd_mem_alloc(dev, BYTES, &b, &err), 0);
    /* not a part of it, not from inside it */
    assert_null(gd_mem_host_view(dev, a, BYTES - 8));
    assert_null(gd_mem_host_view(dev, a + 8, BYTES - 8));
    uint8_t *view = gd_mem_host_view(dev, a, BYTES);
    assert_non_null(view);
    view[0] = 0x11;
    view[BYTES - 1] = 0x22;
    assert_null(gd_mem_host_view(dev, a, BYTES)); /* once */
    assert_int_equal(gd_mem_copy_out(dev, back, a, BYTES, &err), 0);
    assert_int_equal(back[0], 0x11);
    assert_int_equal(back[BYTES - 1], 0x22);
    assert_int_equal(back[4096], 0);
    /* a zero fill over what the view wrote */
    assert_int_equal(gd_mem_fill(dev, a, 0, BYTES, &err), 0);
    assert_int_equal(gd_mem_copy_out(dev, back, a, BYTES, &err), 0);
    assert_int_equal(back[0], 0);
    assert_int_equal(back[BYTES - 1], 0);
    /* a kernel that stores into b (pristine until then) */
    const char *ptx = HEADER
        ".visible .entry k(.param .u64 out)\n{\n"
        ".reg .b64 %rd<4>;\n"
        "ld.param.u64 %rd1, [out];\n"
        "mov.u64 %rd2, 0x0102030405060708;\n"
        "st.global.u64 [%rd1+4096], %rd2;\n"
        "ret;\n}\n";
    gd_kernel *k = NULL;
    assert_int_equal(gd_kernel_load(dev, ptx, "k", NULL, &k, &err), 0);
    const void *values[1] = {&b};
    size_t sizes[1] = {8};
    gd_launch l = {.grid = {1, 1, 1}, .block = {1, 1, 1}, .param_count = 1,
                   .param_values = values, .param_sizes = sizes};
    if (gd_kernel_launch(dev, k, &l, &err) != 0 || gd_device_synchronize(dev, &err) != 0)
        fail_msg("%s", err.msg);
    assert_null(gd_mem_host_view(dev, b, BYTES));
    assert_int_equal(gd_mem_copy_out(dev, back, b, BYTES, &err), 0);
    assert_int_equal(back[4096], 0x08);
    assert_int_equal(gd_mem_fill(dev, b, 0, BYTES, &err), 0);
    assert_int_equal(gd_mem_copy_out(dev, back, b, BYTES, &err), 0);
    for (size_t i = 0; i < BYTES; i++)
        if (back[i])
            fail_msg("byte %zu reads 0x%02x after the zero fill over the kernel's store", i,
                     back[i]);
    /* a copy ends it too; an allocation after the launch is pristine */
    gd_devptr c;
    assert_int_equal(gd_mem_alloc(dev, 64, &c, &err), 0);
    assert_int_equal(gd_mem_copy_in(dev, c, back, 64, &err), 0);
    assert_null(gd_mem_host_view(dev, c, 64));
    gd_devptr d;
    assert_int_equal(gd_mem_alloc(dev, 64, &d, &err), 0);
    assert_non_null(gd_mem_host_view(dev, d, 64));
    gd_kernel_unload(dev, k);
    gd_device_close(dev);
}

/* A kernel's load of an allocation no byte of which was ever written reads
 * zeros without reading its pages (sim_devmem_zeros); whatever writes into it
 * -- the kernel's own store, a later kernel's load after it, a host copy, a
 * fill of a byte other than 0, a host view -- is read back from then on. */
static void load_from(gd_device *dev, gd_kernel *k, gd_devptr src, gd_devptr out, uint64_t *got)
{
    gd_err err;
    const void *values[2] = {&out, &src};
    size_t sizes[2] = {8, 8};
    gd_launch l = {.grid = {1, 1, 1}, .block = {1, 1, 1}, .param_count = 2,
                   .param_values = values, .param_sizes = sizes};
    if (gd_kernel_launch(dev, k, &l, &err) != 0 || gd_device_synchronize(dev, &err) != 0 ||
        gd_mem_copy_out(dev, got, out, 3 * 8, &err) != 0)
        fail_msg("%s", err.msg);
}

static void test_untouched_allocations(void **state)
{
    (void)state;
    gd_device *dev = open_tiny();
    gd_err err;
    /* out[0] = src[8]; src[16] = 0x77 unless src[24] is nonzero; out[1] = src[16];
     * out[2] = src[24] */
    const char *ptx = HEADER
        ".visible .entry k(.param .u64 out, .param .u64 src)\n{\n"
        ".reg .pred %p<2>;\n.reg .b64 %rd<8>;\n"
        "ld.param.u64 %rd1, [out];\n"
        "ld.param.u64 %rd2, [src];\n"
        "ld.global.u64 %rd3, [%rd2+8];\n"
        "st.global.u64 [%rd1], %rd3;\n"
        "ld.global.u64 %rd6, [%rd2+24];\n"
        "setp.ne.u64 %p1, %rd6, 0;\n"
        "mov.u64 %rd4, 0x77;\n"
        "@!%p1 st.global.u64 [%rd2+16], %rd4;\n"
        "ld.global.u64 %rd5, [%rd2+16];\n"
        "st.global.u64 [%rd1+8], %rd5;\n"
        "st.global.u64 [%rd1+16], %rd6;\n"
        "ret;\n}\n";
    gd_kernel *k = NULL;
    assert_int_equal(gd_kernel_load(dev, ptx, "k", NULL, &k, &err), 0);
    gd_devptr out;
    assert_int_equal(gd_mem_alloc(dev, 64, &out, &err), 0);
    uint64_t got[3];
    /* 64 bytes (calloc'd) and 1 MiB (a mapping of its own) */
    static const uint64_t sizes[] = {64, 1u << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        gd_devptr a;
        assert_int_equal(gd_mem_alloc(dev, sizes[i], &a, &err), 0);
        load_from(dev, k, a, out, got); /* zeros, then its own store read back */
        assert_int_equal(got[0], 0);
        assert_int_equal(got[1], 0x77);
        assert_int_equal(got[2], 0);
        uint64_t back = 0;
        assert_int_equal(gd_mem_copy_out(dev, &back, a + 16, 8, &err), 0);
        assert_int_equal(back, 0x77);
        /* a zero fill over the store, then the next kernel */
        assert_int_equal(gd_mem_fill(dev, a, 0, 32, &err), 0);
        uint64_t nz = 5;
        assert_int_equal(gd_mem_copy_in(dev, a + 24, &nz, 8, &err), 0);
        load_from(dev, k, a, out, got);
        assert_int_equal(got[1], 0); /* the fill, not the first kernel's store */
        assert_int_equal(got[2], 5);

        gd_devptr b, c, d;
        uint64_t v = 0x1234;
        assert_int_equal(gd_mem_alloc(dev, sizes[i], &b, &err), 0);
        assert_int_equal(gd_mem_copy_in(dev, b + 8, &v, 8, &err), 0);
        load_from(dev, k, b, out, got);
        assert_int_equal(got[0], 0x1234);
        assert_int_equal(gd_mem_alloc(dev, sizes[i], &c, &err), 0);
        assert_int_equal(gd_mem_fill(dev, c, 0x01, 32, &err), 0);
        load_from(dev, k, c, out, got);
        assert_int_equal(got[0], 0x0101010101010101ull);
        assert_int_equal(got[1], 0x0101010101010101ull); /* src[24] nonzero: no store */
        assert_int_equal(gd_mem_alloc(dev, sizes[i], &d, &err), 0);
        uint8_t *view = gd_mem_host_view(dev, d, sizes[i]);
        assert_non_null(view);
        view[8] = 0x42;
        load_from(dev, k, d, out, got);
        assert_int_equal(got[0], 0x42);
        assert_int_equal(gd_mem_release(dev, a, &err), 0);
        assert_int_equal(gd_mem_release(dev, b, &err), 0);
        assert_int_equal(gd_mem_release(dev, c, &err), 0);
        assert_int_equal(gd_mem_release(dev, d, &err), 0);
    }
    assert_int_equal(gd_mem_release(dev, out, &err), 0);
    gd_kernel_unload(dev, k);
    gd_device_close(dev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arithmetic),
        cmocka_unit_test(test_divergence_and_loops),
        cmocka_unit_test(test_barrier_shared_and_ctas),
        cmocka_unit_test(test_timing_basics),
        cmocka_unit_test(test_unsupported_ptx_is_rejected_with_its_line),
        cmocka_unit_test(test_runtime_errors),
        cmocka_unit_test(test_repeated_lines_parse_alike),
        cmocka_unit_test(test_fill_over_written_memory),
        cmocka_unit_test(test_pristine_allocations),
        cmocka_unit_test(test_untouched_allocations),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
