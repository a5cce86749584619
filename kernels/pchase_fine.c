/* pchase_fine.c -- the fine-grained pointer chase (Mei & Chu 2017): the L1's
 * associativity and replacement policy from chains that stay in one set.
 *
 * Every element of the chain sits a multiple of --stride apart; with the
 * stride equal to the L1's capacity (sets x ways x line) every element maps to
 * the same set, whatever the set count.  The chase kernel (kernels/chase.c)
 * times every access; its last accesses stay in order ("recent_cycles").
 *
 *   ways    the sweep value N is the number of elements: while N <= ways the
 *           set holds them all and every access hits; from N = ways + 1 a
 *           cyclic walk misses every access under LRU and FIFO (and most under
 *           random replacement).  The knee is the associativity.
 *   policy  the sweep value is the associativity W (measured by `ways`).  Each
 *           lap visits lines A0..A(W-1) (filling the set), A0 again, a new line
 *           AW, A0 once more and A1 again -- revisits through other words of the
 *           same lines, so the chain stays a chain.  AW evicts A1 under LRU (A0
 *           was just used), A0 under FIFO (the oldest fill), either at random
 *           under random replacement: the hits and misses of the last two
 *           visits, lap after lap, name the policy (analysis/infer_l1.c
 *           simulates LRU and FIFO on the same sequence and compares).
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/chase.h"

#define FINE_MAX_ELEMENTS 8192
#define FINE_DEFAULT_STRIDE 65536 /* 64 KiB: a multiple of the L1 capacity of most GPUs */

static int fine_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                     gd_probe_plan *out, gd_err *err)
{
    gd_probe_opts o = *opts;
    if (!o.variant[0])
        strcpy(o.variant, "ways");
    int policy = !strcmp(o.variant, "policy");
    if (!policy && strcmp(o.variant, "ways"))
        return gd_fail(err, "pchase_fine: unknown variant '%s' (expected ways or policy)",
                       o.variant);
    uint64_t s = o.stride_bytes ? o.stride_bytes : FINE_DEFAULT_STRIDE;
    if (s % 128)
        return gd_fail(err, "pchase_fine: --stride must be a multiple of 128 bytes (the L1's "
                            "capacity puts every element in one set), got %llu",
                       (unsigned long long)s);
    if (point < 1 || point > FINE_MAX_ELEMENTS)
        return gd_fail(err, "pchase_fine: %llu is outside 1..%d", (unsigned long long)point,
                       FINE_MAX_ELEMENTS);
    uint64_t n = policy ? point + 4 : point;
    uint64_t *order = malloc(n * sizeof *order);
    if (!order)
        return gd_fail(err, "pchase_fine: out of memory");
    for (uint64_t k = 0; k < point; k++)
        order[k] = k * s;
    if (policy) {
        order[point] = 8;              /* A0 again */
        order[point + 1] = point * s;  /* AW: a new line, the set was full */
        order[point + 2] = 16;         /* A0 once more: LRU keeps it, FIFO evicted it */
        order[point + 3] = s + 8;      /* A1 again: FIFO keeps it, LRU evicted it */
        if (point < 2) {
            free(order);
            return gd_fail(err, "pchase_fine: the policy chain needs at least 2 ways");
        }
    }
    o.stride_bytes = s;
    strcpy(o.variant, "ca"); /* the chain itself: ld.global.ca, through the L1 */
    int rc = gd_chase_plan_order(GD_CHASE_GLOBAL, "pchase_fine", &o, dev, order, n, point, out, err);
    free(order);
    if (rc == 0)
        strcpy(out->opts.variant, policy ? "policy" : "ways");
    return rc;
}

static const char *const fine_variants[] = {"ways", "policy", NULL};

const gd_probe gd_probe_pchase_fine = {
    .name = "pchase_fine",
    .summary = "fine-grained pointer chase in one L1 set: associativity and replacement policy",
    .sweep_name = "lines",
    .value_unit = "cycles",
    .default_stride_bytes = FINE_DEFAULT_STRIDE,
    .sweep_granularity = 1,
    .mean_rise_knee = 1,
    .variants = fine_variants,
    .example_point = 8,
    .plan = fine_plan,
    .fill = gd_chase_fill,
    .decode = gd_chase_decode,
    .split = gd_chase_split,
    .release = gd_chase_release,
};
