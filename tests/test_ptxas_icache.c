/* test_ptxas_icache.c -- the instruction- and constant-cache probes' machine
 * code is what they intend, on every target (sm_75, 80, 86, 89, 90).
 *
 *   - icache_seq: at every point of a sweep from 1 KiB to 64 KiB of code (and
 *     on to 256 KiB on sm_75), the timed pass holds exactly the block's L FFMA
 *     instructions, as one unbroken run between its two clock reads, and no
 *     FFMA is anywhere else (so the NOP patch finds exactly that run);
 *   - icache_av and const_icache_share: the FFMA blocks are all there (ptxas
 *     keeps every instruction of the victim's and the attacker's blocks);
 *   - icache_seq's nop variant: the cubin the JIT would return, patched as the
 *     CUDA backend patches it on load, has exactly L NOPs and no FFMA between
 *     the clock reads of its timed pass;
 *   - const_seq and const_bcast: the timed sequence is clock read, LDC, the
 *     shared store that consumes it, clock read.
 * Without ptxas the tests say "skipped: ptxas not found"; without nvdisasm the
 * SASS checks say so and only the ELF sizes are checked. */
#include "tests/testing.h"
#include "tests/ptx_toolchain.h"

#include "kernels/probe.h"
#include "kernels/sass_patch.h"

static void test_icache_seq_counts(void **state)
{
    (void)state;
    if (!gd_test_ptxas())
        GD_SKIP("ptxas not found");
    char *dir = gd_test_tmpdir();
    const gd_probe *probe = gd_probe_find("icache_seq");
    assert_non_null(probe);
    int sass_checked = 0, built = 0;
    for (size_t t = 0; t < GD_TEST_TARGET_COUNT; t++) {
        int sm = gd_test_targets[t];
        gd_device_info info = gd_test_device_info(sm);
        /* the suite's coarse grid, one point per octave: 1 KiB..64 KiB on every
         * target, on to 256 KiB on sm_75 (ptxas takes a second per 16 K
         * instructions) */
        for (uint64_t bytes = 1024; bytes <= (sm == 75 ? 256u : 64u) * 1024; bytes *= 2) {
            gd_probe_opts opts = {0};
            gd_probe_plan plan;
            gd_err err;
            if (probe->plan(&opts, &info, bytes, &plan, &err) != 0)
                fail_msg("%s", err.msg);
            char name[64];
            snprintf(name, sizeof name, "icache-%llu-sm%d", (unsigned long long)bytes, sm);
            gd_sass s;
            built++;
            if (gd_test_build_plan(&plan, name, sm, dir, &s) == 0) {
                /* the pass loop: the second pair of clock reads (the first is
                 * the calibration, with nothing between) */
                int c[4], nc = 0;
                for (int i = 0; i < s.n && nc < 4; i++)
                    if (gd_sass_is_clock(s.line[i]))
                        c[nc++] = i;
                assert_int_equal(nc, 4);
                int ffma_inside = 0, first = -1, last = -1;
                for (int i = c[2] + 1; i < c[3]; i++)
                    if (gd_sass_is(s.line[i], "FFMA")) {
                        ffma_inside++;
                        if (first < 0)
                            first = i;
                        last = i;
                    }
                if (ffma_inside != (int)plan.intended_instructions)
                    fail_msg("%s: %d FFMA between the clock reads, intended %u", name,
                             ffma_inside, plan.intended_instructions);
                /* one unbroken run, and none elsewhere */
                assert_int_equal(last - first + 1, ffma_inside);
                assert_int_equal(gd_sass_count(&s, "FFMA"), ffma_inside);
                sass_checked++;
                gd_sass_free(&s);
            }
            gd_probe_plan_free(probe, &plan);
        }
    }
    if (!sass_checked)
        print_message("note: nvdisasm not found: machine-code sizes checked, SASS not read\n");
    printf("note: icache_seq: %d points assembled, %d read back with nvdisasm\n", built,
           sass_checked);
    gd_test_rmrf(dir);
    free(dir);
}

/* The four clock reads of icache_seq: calibration pair, then the timed pass. */
static void timed_pass(const gd_sass *s, int c[4])
{
    int nc = 0;
    for (int i = 0; i < s->n && nc < 4; i++)
        if (gd_sass_is_clock(s->line[i]))
            c[nc++] = i;
    assert_int_equal(nc, 4);
}

static void test_icache_nop_patch(void **state)
{
    (void)state;
    if (!gd_test_ptxas())
        GD_SKIP("ptxas not found");
    if (!gd_test_nvdisasm())
        GD_SKIP("nvdisasm not found (pip install nvidia-cuda-nvdisasm)");
    char *dir = gd_test_tmpdir();
    const gd_probe *probe = gd_probe_find("icache_seq");
    for (size_t t = 0; t < GD_TEST_TARGET_COUNT; t++) {
        int sm = gd_test_targets[t];
        gd_device_info info = gd_test_device_info(sm);
        gd_probe_opts opts = {0};
        snprintf(opts.variant, sizeof opts.variant, "nop");
        gd_probe_plan plan;
        gd_err err;
        assert_int_equal(probe->plan(&opts, &info, 8192, &plan, &err), 0);
        assert_int_equal(plan.load.patch, GD_PATCH_FFMA_TO_NOP);
        assert_int_equal(plan.load.patch_count, plan.intended_instructions);
        char name[64], patched_name[80], path[1200];
        snprintf(name, sizeof name, "icache-nop-sm%d", sm);
        snprintf(patched_name, sizeof patched_name, "%s-patched", name);
        size_t size;
        void *cubin = gd_test_ptxas_compile(gd_test_ptxas(), dir, name, plan.ptx, sm, &size);
        assert_non_null(cubin);
        int before_nops = 0;
        {
            gd_sass b;
            gd_test_read_sass(dir, name, &b);
            int c[4];
            timed_pass(&b, c);
            for (int i = c[2] + 1; i < c[3]; i++)
                before_nops += gd_sass_is(b.line[i], "NOP"); /* ptxas' own issue-slot fillers */
            gd_sass_free(&b);
        }
        if (gd_sass_ffma_to_nop(cubin, size, plan.entry, plan.load.patch_count, &err) != 0)
            fail_msg("%s: %s", name, err.msg);
        snprintf(path, sizeof path, "%s/%s.cubin", dir, patched_name);
        assert_int_equal(gd_write_atomic(path, cubin, size, &err), 0);
        free(cubin);
        gd_sass s;
        gd_test_read_sass(dir, patched_name, &s);
        int c[4];
        timed_pass(&s, c);
        int nops = 0;
        for (int i = c[2] + 1; i < c[3]; i++)
            nops += gd_sass_is(s.line[i], "NOP");
        if (nops != before_nops + (int)plan.intended_instructions)
            fail_msg("%s: %d NOPs in the timed pass, %d before the patch, intended %u more", name,
                     nops, before_nops, plan.intended_instructions);
        assert_int_equal(gd_sass_count(&s, "FFMA"), 0);
        gd_sass_free(&s);
        gd_probe_plan_free(probe, &plan);
    }
    gd_test_rmrf(dir);
    free(dir);
}

static void test_av_and_share_keep_their_blocks(void **state)
{
    (void)state;
    if (!gd_test_ptxas())
        GD_SKIP("ptxas not found");
    char *dir = gd_test_tmpdir();
    const char *probes[] = {"icache_av", "const_icache_share"};
    for (size_t p = 0; p < 2; p++) {
        const gd_probe *probe = gd_probe_find(probes[p]);
        for (const char *const *v = probe->variants; *v; v++) {
            for (size_t t = 0; t < GD_TEST_TARGET_COUNT; t++) {
                int sm = gd_test_targets[t];
                gd_device_info info = gd_test_device_info(sm);
                gd_probe_opts opts = {0};
                snprintf(opts.variant, sizeof opts.variant, "%s", *v);
                opts.footprint_bytes = 8192;
                gd_probe_plan plan;
                gd_err err;
                if (probe->plan(&opts, &info, 6144, &plan, &err) != 0)
                    fail_msg("%s", err.msg);
                char name[96];
                snprintf(name, sizeof name, "%s-%s-sm%d", probes[p], *v, sm);
                gd_sass s;
                if (gd_test_build_plan(&plan, name, sm, dir, &s) == 0) {
                    int ffma = gd_sass_count(&s, "FFMA");
                    if (ffma != (int)plan.intended_instructions)
                        fail_msg("%s: %d FFMA, intended %u", name, ffma,
                                 plan.intended_instructions);
                    gd_sass_free(&s);
                }
                gd_probe_plan_free(probe, &plan);
            }
        }
    }
    gd_test_rmrf(dir);
    free(dir);
}

/* clock, LDC, a store that consumes it, clock -- somewhere in the kernel: STG
 * for the chase (its scratch is in global memory: no shared memory, the whole
 * L1 carve-out), STS for the broadcast probe */
static void test_constant_timed_sequences(void **state)
{
    (void)state;
    if (!gd_test_ptxas())
        GD_SKIP("ptxas not found");
    if (!gd_test_nvdisasm())
        GD_SKIP("nvdisasm not found (pip install nvidia-cuda-nvdisasm)");
    char *dir = gd_test_tmpdir();
    const char *probes[] = {"const_seq", "const_bcast"};
    const char *stores[] = {"STG", "STS"};
    for (size_t p = 0; p < 2; p++) {
        const gd_probe *probe = gd_probe_find(probes[p]);
        for (size_t t = 0; t < GD_TEST_TARGET_COUNT; t++) {
            int sm = gd_test_targets[t];
            gd_device_info info = gd_test_device_info(sm);
            gd_probe_opts opts = {0};
            gd_probe_plan plan;
            gd_err err;
            assert_int_equal(probe->plan(&opts, &info, probe->example_point, &plan, &err), 0);
            char name[96];
            snprintf(name, sizeof name, "%s-sm%d", probes[p], sm);
            gd_sass s;
            assert_int_equal(gd_test_build_plan(&plan, name, sm, dir, &s), 0);
            int found = 0;
            for (int i = 0; i + 3 < s.n && !found; i++) {
                if (!gd_sass_is_clock(s.line[i]))
                    continue;
                int j = i + 1;
                while (j < s.n && (gd_sass_is(s.line[j], "DEPBAR") || gd_sass_is(s.line[j], "NOP")))
                    j++;
                if (j + 2 < s.n && gd_sass_is(s.line[j], "LDC") &&
                    gd_sass_is(s.line[j + 1], stores[p]) &&
                    gd_sass_is_clock(s.line[j + 2]))
                    found = 1;
            }
            if (!found)
                fail_msg("%s: no clock / LDC / %s / clock sequence", name, stores[p]);
            gd_sass_free(&s);
            gd_probe_plan_free(probe, &plan);
        }
    }
    gd_test_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_icache_seq_counts),
        cmocka_unit_test(test_icache_nop_patch),
        cmocka_unit_test(test_av_and_share_keep_their_blocks),
        cmocka_unit_test(test_constant_timed_sequences),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
