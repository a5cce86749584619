/* probe_sass_checks.h -- what every emission of the probes must pass in
 * machine code, shared by the %clock64 emission's tests (tests/test_ptxas.c)
 * and the clock32 emission's (tests/test_ptxas_clock32.c): each probe
 * assembles for every target ptxas lists, and the p-chase's timed sequence
 * keeps its order.  Include after testing.h and ptx_toolchain.h.
 */
#ifndef GD_PROBE_SASS_CHECKS_H
#define GD_PROBE_SASS_CHECKS_H

#include "kernels/cubin_elf.h"
#include "kernels/probe.h"
#include "kernels/ptx_emit.h"
#include "tests/sass_batch.h"

/* Every probe and variant at its example point, for every target ptxas lists:
 * the PTX header names the target and its PTX ISA, the cubin is for that
 * target, and the entry's machine code is within the plan's range.
 * `transform` (may be NULL) rewrites each plan's PTX first (the clock32
 * emission); `prefix` keeps the two emissions' files apart. */
static inline void gd_test_assemble_every_probe(const char *ptxas, const char *prefix,
                                                void (*transform)(gd_probe_plan *, const char *))
{
    (void)ptxas; /* gd_sass_batch_build finds it */
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    size_t count;
    const gd_probe *const *probes = gd_probe_list(&count);
    int checked = 0;
    /* one batch per target (tests/sass_batch.h): a few ptxas runs, not one per kernel */
    for (size_t t = 0; t < GD_TEST_TARGET_COUNT; t++) {
        int sm = gd_test_targets[t];
        char batch_name[64];
        snprintf(batch_name, sizeof batch_name, "%severy-probe-sm%d", prefix, sm);
        gd_sass_batch b;
        gd_sass_batch_init(&b, dir, batch_name, sm);
        size_t cap = 16, n = 0;
        uint32_t (*range)[2] = malloc(cap * sizeof *range);
        assert_non_null(range);
        for (size_t p = 0; p < count; p++) {
            const gd_probe *probe = probes[p];
            for (const char *const *v = probe->variants; v && *v; v++) {
                gd_device_info info = gd_test_device_info(sm);
                gd_probe_opts opts = {0};
                snprintf(opts.variant, sizeof opts.variant, "%s", *v);
                gd_probe_plan plan;
                gd_err err;
                if (probe->plan(&opts, &info, probe->example_point, &plan, &err) != 0)
                    fail_msg("%s/%s sm_%d: %s", probe->name, *v, sm, err.msg);
                if (transform)
                    transform(&plan, probe->name);
                /* the header names the target and the oldest PTX ISA that has it */
                char expect[64];
                int isa = gd_ptx_isa_for_target(sm);
                snprintf(expect, sizeof expect, ".version %d.%d\n.target sm_%d\n", isa / 10,
                         isa % 10, sm);
                assert_non_null(strstr(plan.ptx, expect));
                char name[128];
                snprintf(name, sizeof name, "%s%s-%s-sm%d", prefix, probe->name, *v, sm);
                if (n == cap) {
                    cap *= 2;
                    range = realloc(range, cap * sizeof *range);
                    assert_non_null(range);
                }
                range[n][0] = plan.code_min_instructions;
                range[n][1] = plan.code_max_instructions;
                assert_int_equal(gd_sass_batch_add(&b, name, plan.ptx, plan.entry), n);
                n++;
                gd_probe_plan_free(probe, &plan);
            }
        }
        gd_sass_batch_build(&b, 0);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(b.cubin_sm[i], sm);
            assert_int_equal(b.text_bytes[i] % 16, 0);
            uint64_t instructions = b.text_bytes[i] / 16;
            if (range[i][0] && (instructions < range[i][0] || instructions > range[i][1]))
                fail_msg("%s: %llu instructions, expected %u..%u", b.k[i].label,
                         (unsigned long long)instructions, range[i][0], range[i][1]);
            checked++;
        }
        free(range);
        gd_sass_batch_free(&b);
    }
    printf("note: %d probe/variant/target combinations assembled\n", checked);
    assert_true(checked >= 10);
    gd_test_rmrf(dir);
    free(dir);
}

/* Index of the first line at or after `from` that contains `needle`, or -1. */
static inline int gd_test_find_line(char **lines, int n, int from, const char *needle)
{
    for (int i = from; i < n; i++)
        if (strstr(lines[i], needle))
            return i;
    return -1;
}

/* The p-chase's timed sequence in the SASS of every target, .ca and .cg: two
 * chain loads (warm-up and timed lap) of the right scope, the timed one right
 * after a clock read, then the store that consumes it, then the closing clock
 * read; the calibration is the same sequence without the load.  `transform`
 * and `prefix` as for gd_test_assemble_every_probe. */
static inline void gd_test_pchase_timed_sequence(const char *ptxas, const char *nvdisasm,
                                                 const char *prefix,
                                                 void (*transform)(gd_probe_plan *, const char *))
{
    (void)ptxas;
    (void)nvdisasm; /* gd_sass_batch_build finds both */
    char *dir = gd_test_tmpdir();
    const gd_probe *probe = gd_probe_find("pchase");
    for (size_t t = 0; t < GD_TEST_TARGET_COUNT; t++) {
        int sm = gd_test_targets[t];
        /* .ca and .cg in one batch (tests/sass_batch.h): one nvdisasm run */
        gd_sass_batch b;
        char batch_name[64];
        snprintf(batch_name, sizeof batch_name, "%spchase-sm%d", prefix, sm);
        gd_sass_batch_init(&b, dir, batch_name, sm);
        int scratch_global[2];
        for (int cg = 0; cg < 2; cg++) {
            gd_device_info info = gd_test_device_info(sm);
            gd_probe_opts opts = {0};
            snprintf(opts.variant, sizeof opts.variant, "%s", cg ? "cg" : "ca");
            gd_probe_plan plan;
            gd_err err;
            assert_int_equal(probe->plan(&opts, &info, 4096, &plan, &err), 0);
            if (transform)
                transform(&plan, "pchase");
            char name[64];
            snprintf(name, sizeof name, "%spchase-sm%d-%d", prefix, sm, cg);
            gd_sass_batch_add(&b, name, plan.ptx, plan.entry);
            scratch_global[cg] = !strstr(plan.ptx, ".shared");
            gd_probe_plan_free(probe, &plan);
        }
        gd_sass_batch_build(&b, 1);
        for (int cg = 0; cg < 2; cg++) {
            const char *variant = cg ? "cg" : "ca";
            char *lines[1024];
            int n = 0;
            for (int j = 0; j < b.sass[cg].n && n < 1024; j++) {
                char *l = b.sass[cg].line[j];
                /* scoreboard waits and issue-slot fillers are not instructions we time */
                if (!strncmp(l, "DEPBAR", 6) || !strncmp(l, "NOP", 3))
                    continue;
                lines[n++] = l;
            }
            /* exactly two chain loads: the warm-up lap and the timed lap; at
             * this footprint the scratch is in global memory (no shared memory
             * declared: the whole L1 stays the probe's), so one more LDG, the
             * histogram's read-modify-write through the L2 (.cg) */
            assert_true(scratch_global[cg]);
            int loads = 0, scratch_loads = 0, timed = -1;
            for (int i = 0; i < n; i++) {
                if (!strncmp(lines[i], "LDG", 3)) {
                    const char *scope = cg ? ".STRONG.GPU" : (sm == 75 ? ".STRONG.CTA" : ".STRONG.SM");
                    if (i > 0 && strstr(lines[i - 1], "SR_CLOCKLO"))
                        timed = i;
                    if (!cg && strstr(lines[i], ".STRONG.GPU")) {
                        scratch_loads++;
                        continue;
                    }
                    loads++;
                    if (!strstr(lines[i], scope))
                        fail_msg("sm_%d %s: load '%s' lacks %s", sm, variant, lines[i], scope);
                }
            }
            /* cg: the scratch load has the chain's scope; 3 in all */
            if (cg) {
                assert_int_equal(loads, 3);
            } else {
                assert_int_equal(loads, 2);
                assert_int_equal(scratch_loads, 1);
            }
            if (timed < 0)
                fail_msg("sm_%d: no load right after a clock read", sm);
            /* load, then the store that consumes it, then the closing clock read */
            assert_true(timed + 2 < n);
            if (strncmp(lines[timed + 1], "STG", 3) || !strstr(lines[timed + 2], "SR_CLOCKLO"))
                fail_msg("sm_%d: timed sequence is '%s' / '%s' / '%s'", sm, lines[timed],
                         lines[timed + 1], lines[timed + 2]);
            /* the calibration is the same sequence without the load */
            int cal = gd_test_find_line(lines, n, 0, "SR_CLOCKLO");
            assert_true(cal >= 0 && cal + 2 < n);
            if (strncmp(lines[cal + 1], "STG", 3))
                fail_msg("sm_%d: calibration is %s / %s / %s", sm, lines[cal], lines[cal + 1], lines[cal + 2]);
            assert_non_null(strstr(lines[cal + 2], "SR_CLOCKLO"));
        }
        gd_sass_batch_free(&b);
    }
    gd_test_rmrf(dir);
    free(dir);
}

/* resv_stall --variant hol: the warm-up that puts the refused line (and its
 * twin and the L2 reference line) in the L2 must be complete before the first
 * clock read, or A's refused line is a DRAM miss and the timed region starts
 * with a wait: in the SASS of every target, after the last ld.cg (LDG
 * .STRONG.GPU: the flush's and the warm-up's) a shared store that waits for
 * their sum comes before the first clock read, and at least the flush's loads
 * and the warm-up's three are there.  At the example point and at 128 reservers
 * (four full load instructions).  `transform` and `prefix` as above. */
static inline void gd_test_resv_hol_warm_sequence(const char *ptxas, const char *nvdisasm,
                                                  const char *prefix,
                                                  void (*transform)(gd_probe_plan *, const char *))
{
    char *dir = gd_test_tmpdir();
    const gd_probe *probe = gd_probe_find("resv_stall");
    assert_non_null(probe);
    const uint64_t points[] = {probe->example_point, 128};
    (void)ptxas;
    (void)nvdisasm; /* gd_sass_batch_build finds both */
    for (size_t t = 0; t < GD_TEST_TARGET_COUNT; t++) {
        int sm = gd_test_targets[t];
        gd_sass_batch b;
        char batch_name[64];
        snprintf(batch_name, sizeof batch_name, "%sresv-hol-sm%d", prefix, sm);
        gd_sass_batch_init(&b, dir, batch_name, sm);
        for (size_t k = 0; k < sizeof points / sizeof points[0]; k++) {
            gd_device_info info = gd_test_device_info(sm);
            gd_probe_opts opts = {0};
            snprintf(opts.variant, sizeof opts.variant, "hol");
            gd_probe_plan plan;
            gd_err err;
            assert_int_equal(probe->plan(&opts, &info, points[k], &plan, &err), 0);
            if (transform)
                transform(&plan, "resv_stall");
            char name[64];
            snprintf(name, sizeof name, "%sresv-hol-sm%d-%llu", prefix, sm,
                     (unsigned long long)points[k]);
            gd_sass_batch_add(&b, name, plan.ptx, plan.entry);
            gd_probe_plan_free(probe, &plan);
        }
        gd_sass_batch_build(&b, 1);
        for (size_t k = 0; k < b.n; k++) {
            const char *name = b.k[k].label;
            int clock = -1, last_cg = -1, cg = 0, store_after = 0, line = 0;
            for (int j = 0; j < b.sass[k].n && clock < 0; j++, line++) {
                const char *l = b.sass[k].line[j];
                if (strstr(l, "SR_CLOCKLO")) {
                    clock = line;
                } else if (!strncmp(l, "LDG", 3) && strstr(l, ".STRONG.GPU")) {
                    last_cg = line;
                    cg++;
                    store_after = 0;
                } else if (!strncmp(l, "STS", 3) && last_cg >= 0) {
                    store_after = 1;
                }
            }
            if (clock < 0 || cg < 3 + 1 || !store_after)
                fail_msg("%s: before the first clock read %d ld.cg loads, %s shared store after "
                         "the last of them",
                         name, cg, store_after ? "a" : "no");
        }
        gd_sass_batch_free(&b);
    }
    gd_test_rmrf(dir);
    free(dir);
}

#endif
