/* kmeans.c -- the assignment step of k-means: each point finds its nearest
 * centroid.
 *
 * Rodinia's kmeans layout: features point-major (feature[p][f], KM_DIMS 32-bit
 * integer features a point), centroids in global memory.  One thread a point,
 * for every centroid c and feature f it reads feature[p][f] (lanes KM_DIMS x 4
 * = 64 bytes apart: a warp load spans 16 lines, so each instruction puts 16
 * requests in the FIFO, re-read per centroid as Rodinia's kernel does) and
 * centroid[c][f] (one address for the warp: a broadcast).  Distances are
 * squared differences summed in 32-bit integers (exact: features < 256), the
 * first minimum wins; membership[p] is checked against the host.  `point` x
 * 4096 points (default 2: 8192), KM_CLUSTERS centroids, seeded.
 */
#include <stdlib.h>

#include "kernels/ptx_emit.h"
#include "kernels/workloads/workload.h"

#define KM_CTA_THREADS 256u
#define KM_UNIT_POINTS 4096u
#define KM_DIMS 16u
#define KM_CLUSTERS 8u
#define KM_FEATURE_MAX 256u

static char *km_ptx(const gd_device_info *dev)
{
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_wl_kmeans(.param .u64 feature, .param .u64 centroid,\n"
        "                             .param .u64 membership, .param .u32 n)\n"
        "{\n"
        "    .reg .pred %%p<4>;\n    .reg .b32 %%r<24>;\n    .reg .b64 %%rd<12>;\n"
        "    ld.param.u64 %%rd1, [feature];\n    ld.param.u64 %%rd2, [centroid];\n"
        "    ld.param.u64 %%rd3, [membership];\n    ld.param.u32 %%r1, [n];\n"
        "    mov.u32 %%r2, %%ctaid.x;\n    mov.u32 %%r3, %%ntid.x;\n    mov.u32 %%r4, %%tid.x;\n"
        "    mad.lo.u32 %%r5, %%r2, %%r3, %%r4;\n"
        "    setp.ge.u32 %%p1, %%r5, %%r1;\n"
        "    @%%p1 bra DONE;\n"
        "    mul.wide.u32 %%rd4, %%r5, %u;\n    add.s64 %%rd4, %%rd1, %%rd4;\n" /* its features */
        "    mov.u32 %%r6, 0;\n"            /* c */
        "    mov.u32 %%r7, 4294967295;\n"   /* best distance */
        "    mov.u32 %%r8, 0;\n"            /* best c */
        "    mov.u64 %%rd5, %%rd2;\n"       /* centroid c */
        "CLUSTER:\n"
        "    mov.u32 %%r9, 0;\n"            /* f */
        "    mov.u32 %%r10, 0;\n"           /* distance */
        "    mov.u64 %%rd6, %%rd4;\n"
        "FEATURE:\n"
        "    ld.global.u32 %%r11, [%%rd6];\n"
        "    ld.global.u32 %%r12, [%%rd5];\n"
        "    sub.u32 %%r13, %%r11, %%r12;\n"
        "    mad.lo.u32 %%r10, %%r13, %%r13, %%r10;\n"
        "    add.s64 %%rd6, %%rd6, 4;\n    add.s64 %%rd5, %%rd5, 4;\n"
        "    add.u32 %%r9, %%r9, 1;\n"
        "    setp.lt.u32 %%p2, %%r9, %u;\n"
        "    @%%p2 bra FEATURE;\n"
        "    setp.lt.u32 %%p3, %%r10, %%r7;\n"
        "    selp.u32 %%r8, %%r6, %%r8, %%p3;\n"
        "    selp.u32 %%r7, %%r10, %%r7, %%p3;\n"
        "    add.u32 %%r6, %%r6, 1;\n"
        "    setp.lt.u32 %%p2, %%r6, %u;\n"
        "    @%%p2 bra CLUSTER;\n"
        "    mul.wide.u32 %%rd7, %%r5, 4;\n    add.s64 %%rd8, %%rd3, %%rd7;\n"
        "    st.global.u32 [%%rd8], %%r8;\n"
        "DONE:\n"
        "    ret;\n"
        "}\n", KM_DIMS * 4, KM_DIMS, KM_CLUSTERS);
    return gd_ptx_finish(&p);
}

static int km_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                   gd_probe_plan *out, gd_err *err)
{
    if (point == 0)
        point = 2;
    if (point > 64)
        return gd_fail(err, "kmeans: scale %llu is outside 1..64 (x 4096 points)",
                       (unsigned long long)point);
    uint32_t n = (uint32_t)point * KM_UNIT_POINTS;
    gd_wl_state *st;
    if (gd_wl_plan_begin(out, "gd_wl_kmeans", KM_CTA_THREADS, &st, err))
        return -1;
    uint32_t *feature = malloc((size_t)n * KM_DIMS * 4);
    uint32_t *centroid = malloc(KM_CLUSTERS * KM_DIMS * 4);
    st->expect = malloc((size_t)n * 4);
    out->ptx = km_ptx(dev);
    if (!feature || !centroid || !st->expect || !out->ptx) {
        free(feature);
        free(centroid);
        return gd_fail(err, "kmeans: out of memory");
    }
    uint64_t rng = gd_wl_seed(opts, 0x6b6d65616e73ull);
    for (uint32_t i = 0; i < n * KM_DIMS; i++)
        feature[i] = gd_wl_rand(&rng, KM_FEATURE_MAX);
    for (uint32_t i = 0; i < KM_CLUSTERS * KM_DIMS; i++)
        centroid[i] = gd_wl_rand(&rng, KM_FEATURE_MAX);
    for (uint32_t p = 0; p < n; p++) {
        uint32_t best = UINT32_MAX, best_c = 0;
        for (uint32_t c = 0; c < KM_CLUSTERS; c++) {
            uint32_t d = 0;
            for (uint32_t f = 0; f < KM_DIMS; f++) {
                uint32_t diff = feature[(size_t)p * KM_DIMS + f] - centroid[c * KM_DIMS + f];
                d += diff * diff;
            }
            if (d < best) {
                best = d;
                best_c = c;
            }
        }
        st->expect[p] = best_c;
    }
    gd_wl_buffer(out, st, "feature", (size_t)n * KM_DIMS * 4, feature, 0);
    gd_wl_buffer(out, st, "centroid", KM_CLUSTERS * KM_DIMS * 4, centroid, 0);
    st->check_buffer = gd_wl_buffer(out, st, "membership", (size_t)n * 4, NULL, 1);
    st->check_words = n;
    gd_wl_param_u32(out, n);
    out->grid[0] = (n + KM_CTA_THREADS - 1) / KM_CTA_THREADS;
    out->point = point;
    return 0;
}

const gd_probe gd_workload_kmeans = {
    .name = "kmeans",
    .summary = "k-means assignment, point-major features (16 lines a warp load), 8 centroids",
    .sweep_name = "scale_4ki_points",
    .value_unit = "errors",
    .primary_series = "errors",
    .sweep_granularity = 1,
    .example_point = 2,
    .plan = km_plan,
    .fill = gd_wl_fill,
    .decode = gd_wl_decode,
    .release = gd_wl_release,
};
