/* const_fine.c -- the fine-grained constant chase: the L1 constant cache's
 * associativity and replacement policy from chains that stay in one of its
 * sets (Mei & Chu's fine-grained p-chase, kernels/pchase_fine.c, on the
 * constant path; Jia et al. 2019 sec. 3.4 size the L1C, not its sets).
 *
 * One thread chases 32-bit offsets through the module's 64 KiB `.const` array
 * (kernels/chase.c, the same kernel as const_seq).  Every element sits a
 * multiple of --stride apart; with the stride equal to the L1C's capacity
 * (sets x ways x line, measured by const_seq) every element maps to one set
 * whatever the set count.
 *
 *   ways    the sweep value N is the number of elements: while N <= ways every
 *           access hits the L1C; from N = ways + 1 a cyclic walk misses to the
 *           L1.5 on every access under LRU and FIFO (and on many under random
 *           replacement).  The knee is the associativity.  One bank holds
 *           64 KiB / stride elements: beyond that the stride halves (and again)
 *           until N of them fit -- still one set wherever the associativity is a
 *           multiple of the halvings (the set stride is capacity / ways: a
 *           2 KiB L1C holds 32 lines of its stride, an 8 KiB one 8, and its
 *           9th line a 4 KiB stride; the plan note says so).  No knee within
 *           the sweep is a lower bound on the ways (analysis/infer_l1.c).
 *   policy  the sweep value is the associativity W (measured by `ways`) and
 *           --stride the set stride (capacity / W): lines A0..A(W-1), A0 again,
 *           a new line AW, A0 once more, A1 again -- revisits through other
 *           words of the same lines.  AW evicts A1 under LRU, A0 under FIFO,
 *           either at random: the last two visits' hits and misses, lap after
 *           lap, name the policy (the same reading as pchase_fine's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/chase.h"

#define CFINE_LINE 64                 /* the L1C line of every GPU Jia et al. examined */
#define CFINE_DEFAULT_STRIDE 2048     /* 2 KiB: the L1C of Volta and Turing (Jia et al. Table 3.1) */
#define CFINE_MAX_ELEMENTS (GD_CHASE_CONST_BYTES / CFINE_LINE)

static int cfine_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                      gd_probe_plan *out, gd_err *err)
{
    gd_probe_opts o = *opts;
    if (!o.variant[0])
        strcpy(o.variant, "ways");
    int policy = !strcmp(o.variant, "policy");
    if (!policy && strcmp(o.variant, "ways"))
        return gd_fail(err, "const_fine: unknown variant '%s' (expected ways or policy)",
                       o.variant);
    uint64_t s = o.stride_bytes ? o.stride_bytes : CFINE_DEFAULT_STRIDE;
    if (s % CFINE_LINE || s > GD_CHASE_CONST_BYTES / 2)
        return gd_fail(err, "const_fine: --stride must be a multiple of %d bytes (a constant "
                            "line) up to %d, got %llu",
                       CFINE_LINE, GD_CHASE_CONST_BYTES / 2, (unsigned long long)s);
    if (point < 1 || point > CFINE_MAX_ELEMENTS)
        return gd_fail(err, "const_fine: %llu is outside 1..%d", (unsigned long long)point,
                       CFINE_MAX_ELEMENTS);
    if (policy && point < 2)
        return gd_fail(err, "const_fine: the policy chain needs at least 2 ways");
    uint64_t lines = policy ? point + 1 : point; /* distinct lines of the chain */
    uint64_t used = s;
    if (!policy)
        while (lines * used > GD_CHASE_CONST_BYTES && used % (2 * CFINE_LINE) == 0)
            used /= 2;
    if (lines * used > GD_CHASE_CONST_BYTES)
        return gd_fail(err, "const_fine: %llu lines %llu bytes apart do not fit the %d-byte "
                            "constant bank",
                       (unsigned long long)lines, (unsigned long long)used, GD_CHASE_CONST_BYTES);
    uint64_t n = policy ? point + 4 : point;
    uint64_t *order = malloc(n * sizeof *order);
    if (!order)
        return gd_fail(err, "const_fine: out of memory");
    for (uint64_t k = 0; k < point; k++)
        order[k] = k * used;
    if (policy) {
        order[point] = 8;                 /* A0 again */
        order[point + 1] = point * used;  /* AW: a new line, the set was full */
        order[point + 2] = 16;            /* A0 once more: LRU keeps it, FIFO evicted it */
        order[point + 3] = used + 8;      /* A1 again: FIFO keeps it, LRU evicted it */
    }
    o.stride_bytes = s;
    strcpy(o.variant, "const");
    int rc = gd_chase_plan_order(GD_CHASE_CONST, "const_fine", &o, dev, order, n, point, out, err);
    free(order);
    if (rc != 0)
        return rc;
    strcpy(out->opts.variant, policy ? "policy" : "ways");
    if (used != s)
        snprintf(out->note, sizeof out->note,
                 "%llu lines at a %llu-byte stride overflow one constant bank: %llu bytes apart "
                 "(one set where the ways are a multiple of %llu)",
                 (unsigned long long)lines, (unsigned long long)s, (unsigned long long)used,
                 (unsigned long long)(s / used));
    return 0;
}

static const char *const cfine_variants[] = {"ways", "policy", NULL};

const gd_probe gd_probe_const_fine = {
    .name = "const_fine",
    .summary = "fine-grained constant chase in one L1C set: associativity and replacement policy",
    .sweep_name = "lines",
    .value_unit = "cycles",
    .default_stride_bytes = CFINE_DEFAULT_STRIDE,
    .sweep_granularity = 1,
    .mean_rise_knee = 1,
    .variants = cfine_variants,
    .example_point = 4,
    .plan = cfine_plan,
    .fill = gd_chase_fill,
    .decode = gd_chase_decode,
    .split = gd_chase_split,
    .release = gd_chase_release,
};
