/* test_ptxas_icache.c -- the instruction- and constant-cache probes' machine
 * code is what they intend, on every target the installed ptxas lists
 * (tests/ptx_toolchain.h: sm_75 ... sm_121 with CUDA 13.0).
 *
 *   - icache_seq: the timed pass holds exactly the block's L FFMA
 *     instructions, as one unbroken run between its two clock reads, and no
 *     FFMA is anywhere else (so the NOP patch finds exactly that run) -- at
 *     every octave from 1 KiB to 64 KiB of code on sm_75 (on to 256 KiB) and
 *     sm_90 (the two families of FFMA encodings), at 1 KiB and 64 KiB on the
 *     other targets;
 *   - icache_av and const_icache_share, every variant: the FFMA blocks are all
 *     there (ptxas keeps every instruction of the victim's and the attacker's
 *     blocks), read with nvdisasm on sm_75, sm_90 and the newest target, the
 *     code size checked on every target;
 *   - icache_seq's nop variant: where the patch is verified, the cubin the JIT
 *     would return, patched as the CUDA backend patches it on load, has exactly
 *     L NOPs and no FFMA between the clock reads of its timed pass; elsewhere
 *     (sm_100 and later) the plan is the ffma variant, unpatched, with a note;
 *   - the CPI floor of the timed block, from the stall counts in the control
 *     words (hi bits 41..44, bits 105..108 of the instruction): the FFMA block's
 *     and, where the patch is verified, the patched NOPs'.  FFMA carries a
 *     2-cycle stall on sm_75 and sm_80 (floor 2: the reason Jia et al. moved to
 *     NOPs), the NOPs 1; the variant the suites run (nop, falling back to ffma)
 *     is printed with its floor per target;
 *   - const_seq, const_fine (both variants), const_av and const_bcast: the timed
 *     sequence is clock read, LDC, the store that consumes it, clock read --
 *     nothing else between the clocks, so no constant operand of another
 *     instruction (a kernel parameter in bank 0) is fetched inside the window.
 * Without ptxas the tests say "skipped: ptxas not found"; without nvdisasm the
 * SASS checks say so and only the ELF sizes are checked. */
#include "tests/testing.h"
#include "tests/ptx_toolchain.h"
#include "tests/sass_batch.h"

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
        /* the suite's coarse grid, one point per octave, 1 KiB..64 KiB on sm_75
         * (on to 256 KiB) and sm_90, the two encoding families; the ends of
         * it elsewhere (ptxas takes a second per 16 K instructions); one batch
         * per target (tests/sass_batch.h: one nvdisasm run) */
        int full_grid = sm == 75 || sm == 90;
        gd_sass_batch b;
        char batch_name[64];
        snprintf(batch_name, sizeof batch_name, "icache-sm%d", sm);
        gd_sass_batch_init(&b, dir, batch_name, sm);
        uint32_t intended[16], code_min[16], code_max[16];
        for (uint64_t bytes = 1024; bytes <= (sm == 75 ? 256u : 64u) * 1024;
             bytes = full_grid || bytes == 64 * 1024 ? bytes * 2 : 64 * 1024) {
            gd_probe_opts opts = {0};
            gd_probe_plan plan;
            gd_err err;
            if (probe->plan(&opts, &info, bytes, &plan, &err) != 0)
                fail_msg("%s", err.msg);
            char name[64];
            snprintf(name, sizeof name, "icache-%llu-sm%d", (unsigned long long)bytes, sm);
            assert_true(b.n < 16);
            intended[b.n] = plan.intended_instructions;
            code_min[b.n] = plan.code_min_instructions;
            code_max[b.n] = plan.code_max_instructions;
            gd_sass_batch_add(&b, name, plan.ptx, plan.entry);
            gd_probe_plan_free(probe, &plan);
            built++;
        }
        gd_sass_batch_build(&b, 1);
        for (size_t k = 0; k < b.n; k++) {
            const char *name = b.k[k].label;
            uint64_t insns = b.text_bytes[k] / 16;
            if (code_min[k] && (insns < code_min[k] || insns > code_max[k]))
                fail_msg("%s: %llu instructions, expected %u..%u", name,
                         (unsigned long long)insns, code_min[k], code_max[k]);
            const gd_sass *s = &b.sass[k];
            if (!s->n)
                continue; /* no nvdisasm */
            /* the pass loop: the second pair of clock reads (the first is
             * the calibration, with nothing between) */
            int c[4], nc = 0;
            for (int i = 0; i < s->n && nc < 4; i++)
                if (gd_sass_is_clock(s->line[i]))
                    c[nc++] = i;
            assert_int_equal(nc, 4);
            int ffma_inside = 0, first = -1, last = -1;
            for (int i = c[2] + 1; i < c[3]; i++)
                if (gd_sass_is(s->line[i], "FFMA")) {
                    ffma_inside++;
                    if (first < 0)
                        first = i;
                    last = i;
                }
            if (ffma_inside != (int)intended[k])
                fail_msg("%s: %d FFMA between the clock reads, intended %u", name, ffma_inside,
                         intended[k]);
            /* one unbroken run, and none elsewhere */
            assert_int_equal(last - first + 1, ffma_inside);
            assert_int_equal(gd_sass_count(s, "FFMA"), ffma_inside);
            sass_checked++;
        }
        gd_sass_batch_free(&b);
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
        char why[GD_SASS_REFUSAL_BYTES];
        if (gd_sass_nop_patch_refusal(sm, why, sizeof why)) {
            /* not verified there: the ffma variant, unpatched, and why */
            assert_int_equal(plan.load.patch, GD_PATCH_NONE);
            assert_string_equal(plan.opts.variant, "ffma");
            if (!strstr(plan.note, why))
                fail_msg("sm_%d: note '%s' lacks '%s'", sm, plan.note, why);
            gd_probe_plan_free(probe, &plan);
            continue;
        }
        assert_int_equal(plan.load.patch, GD_PATCH_FFMA_TO_NOP);
        assert_string_equal(plan.note, "");
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

/* Where the attacker-victim blocks are read back with nvdisasm: the two FFMA
 * encoding families (sm_75, sm_90) and the newest target listed. */
static int read_sass_on(int sm)
{
    return sm == 75 || sm == 90 || sm == gd_test_targets[GD_TEST_TARGET_COUNT - 1];
}

/* The mean stall count (cycles before the next issue, hi bits 41..44) over
 * instructions [from, to) of the code: the fewest cycles per instruction the
 * stretch can issue at. */
static double stall_floor(const unsigned char *code, int from, int to)
{
    double cycles = 0;
    for (int i = from; i < to; i++) {
        uint64_t hi;
        memcpy(&hi, code + 16 * (size_t)i + 8, 8);
        cycles += (double)((hi >> 41) & 0xfu);
    }
    return cycles / (to - from);
}

/* The --variant of the icache_seq steps of bench/suites/NAME.suite ("" if
 * none); every icache_seq step of a suite must run the same variant. */
static void suite_icache_variant(const char *name, char *variant, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, GD_SOURCE_DIR "/bench/suites/%s.suite", name);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    char line[512];
    int steps = 0;
    variant[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || !strstr(line, " icache_seq "))
            continue;
        char this_variant[32] = "";
        const char *v = strstr(line, "--variant ");
        if (v)
            sscanf(v + 10, "%31s", this_variant);
        if (steps++ && strcmp(this_variant, variant))
            fail_msg("%s: icache_seq steps run variants '%s' and '%s'", path, variant,
                     this_variant);
        snprintf(variant, size, "%s", this_variant);
    }
    fclose(f);
    if (steps < 1)
        fail_msg("%s: no icache_seq step", path);
}

static void test_cpi_floor_from_control_words(void **state)
{
    (void)state;
    /* the suites ask for the NOPs (their floor is 1 wherever the patch is
     * verified; the FFMAs' is 2 on sm_75/80) */
    const char *suites[] = {"full", "icache"};
    for (size_t i = 0; i < 2; i++) {
        char variant[32];
        suite_icache_variant(suites[i], variant, sizeof variant);
        if (strcmp(variant, "nop"))
            fail_msg("%s.suite runs icache_seq variant '%s', not nop", suites[i],
                     variant[0] ? variant : "(default: ffma)");
    }
    if (!gd_test_ptxas())
        GD_SKIP("ptxas not found");
    if (!gd_test_nvdisasm())
        GD_SKIP("nvdisasm not found (pip install nvidia-cuda-nvdisasm)");
    char *dir = gd_test_tmpdir();
    const gd_probe *probe = gd_probe_find("icache_seq");
    for (size_t t = 0; t < GD_TEST_TARGET_COUNT; t++) {
        int sm = gd_test_targets[t];
        gd_device_info info = gd_test_device_info(sm);
        /* the variant the suites ask for */
        gd_probe_opts opts = {0};
        snprintf(opts.variant, sizeof opts.variant, "nop");
        gd_probe_plan plan;
        gd_err err;
        assert_int_equal(probe->plan(&opts, &info, 8192, &plan, &err), 0);
        char name[64];
        snprintf(name, sizeof name, "floor-sm%d", sm);
        size_t size;
        unsigned char *cubin = gd_test_ptxas_compile(gd_test_ptxas(), dir, name, plan.ptx, sm,
                                                     &size);
        assert_non_null(cubin);
        uint64_t offset, bytes;
        assert_int_equal(gd_cubin_text_section(cubin, size, plan.entry, &offset, &bytes, &err), 0);
        gd_sass s;
        gd_test_read_sass(dir, name, &s);
        assert_int_equal((uint64_t)s.n, bytes / 16); /* line i is instruction i */
        int c[4];
        timed_pass(&s, c);
        /* the block: the run of FFMAs between the clock reads */
        int first = c[2] + 1;
        while (first < c[3] && !gd_sass_is(s.line[first], "FFMA"))
            first++;
        int end = first;
        while (end < c[3] && gd_sass_is(s.line[end], "FFMA"))
            end++;
        assert_int_equal(end - first, (int)plan.intended_instructions);
        double ffma_floor = stall_floor(cubin + offset, first, end);
        assert_true(ffma_floor >= 1.0);
        if (sm == 75 || sm == 80) /* [Jia19]: the FFMA variant cannot go below 2 */
            if (ffma_floor < 2.0)
                fail_msg("sm_%d: FFMA block floor %.2f, expected the 2-cycle stall", sm,
                         ffma_floor);
        double nop_floor = 0;
        if (plan.load.patch == GD_PATCH_FFMA_TO_NOP) {
            if (gd_sass_ffma_to_nop(cubin, size, plan.entry, plan.load.patch_count, &err) != 0)
                fail_msg("%s: %s", name, err.msg);
            for (int i = first; i < end; i++) {
                uint64_t lo, hi;
                memcpy(&lo, cubin + offset + 16 * (size_t)i, 8);
                memcpy(&hi, cubin + offset + 16 * (size_t)i + 8, 8);
                assert_true(gd_sass_is_nop(lo, hi));
            }
            nop_floor = stall_floor(cubin + offset, first, end);
            assert_true(nop_floor == 1.0);
            assert_true(nop_floor <= ffma_floor);
        }
        char nop_text[32] = "- (patch refused)";
        if (plan.load.patch == GD_PATCH_FFMA_TO_NOP)
            snprintf(nop_text, sizeof nop_text, "%.2f", nop_floor);
        printf("note: sm_%d: CPI floor of the timed block: ffma %.2f, nop %s; the suites run "
               "%s (floor %.2f)\n", sm, ffma_floor, nop_text, plan.opts.variant,
               plan.load.patch == GD_PATCH_FFMA_TO_NOP ? nop_floor : ffma_floor);
        free(cubin);
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
    for (size_t t = 0; t < GD_TEST_TARGET_COUNT; t++) {
        int sm = gd_test_targets[t];
        /* every variant of both in one batch per target (tests/sass_batch.h) */
        gd_sass_batch b;
        char batch_name[64];
        snprintf(batch_name, sizeof batch_name, "av-share-sm%d", sm);
        gd_sass_batch_init(&b, dir, batch_name, sm);
        uint32_t intended[32], code_min[32], code_max[32];
        for (size_t p = 0; p < 2; p++) {
            const gd_probe *probe = gd_probe_find(probes[p]);
            for (const char *const *v = probe->variants; *v; v++) {
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
                assert_true(b.n < 32);
                intended[b.n] = plan.intended_instructions;
                code_min[b.n] = plan.code_min_instructions;
                code_max[b.n] = plan.code_max_instructions;
                gd_sass_batch_add(&b, name, plan.ptx, plan.entry);
                gd_probe_plan_free(probe, &plan);
            }
        }
        /* the code size everywhere, the FFMA blocks where read_sass_on */
        gd_sass_batch_build(&b, read_sass_on(sm));
        for (size_t k = 0; k < b.n; k++) {
            uint64_t insns = b.text_bytes[k] / 16;
            if (insns < code_min[k] || insns > code_max[k])
                fail_msg("%s: %llu instructions, expected %u..%u", b.k[k].label,
                         (unsigned long long)insns, code_min[k], code_max[k]);
            if (!b.sass[k].n)
                continue;
            int ffma = gd_sass_count(&b.sass[k], "FFMA");
            if (ffma != (int)intended[k])
                fail_msg("%s: %d FFMA, intended %u", b.k[k].label, ffma, intended[k]);
        }
        gd_sass_batch_free(&b);
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
    /* const_fine: the same chase over an explicit chain (the policy lap's
     * revisits through other words of a line) */
    const char *probes[] = {"const_seq", "const_bcast", "const_fine", "const_fine", "const_av"};
    const char *variants[] = {"", "", "ways", "policy", ""};
    const char *stores[] = {"STG", "STS", "STG", "STG", "STS"};
    for (size_t p = 0; p < 5; p++) {
        const gd_probe *probe = gd_probe_find(probes[p]);
        for (size_t t = 0; t < GD_TEST_TARGET_COUNT; t++) {
            int sm = gd_test_targets[t];
            gd_device_info info = gd_test_device_info(sm);
            gd_probe_opts opts = {0};
            snprintf(opts.variant, sizeof opts.variant, "%s", variants[p]);
            gd_probe_plan plan;
            gd_err err;
            assert_int_equal(probe->plan(&opts, &info, probe->example_point, &plan, &err), 0);
            char name[96];
            snprintf(name, sizeof name, "%s%s-sm%d", probes[p], variants[p], sm);
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
        cmocka_unit_test(test_cpi_floor_from_control_words),
        cmocka_unit_test(test_av_and_share_keep_their_blocks),
        cmocka_unit_test(test_constant_timed_sequences),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
