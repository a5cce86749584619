/* spmv.c -- sparse matrix-vector product, CSR, one thread per row, on a
 * matrix whose row lengths follow a power law.
 *
 * y[r] = sum over j in row[r] .. row[r+1] of val[j] * x[col[j]] (32-bit
 * integers, wrapping, so the host's sums are exact).  Each lane walks its own
 * row: the loads of val[] and col[] are 32 lanes at 32 unrelated places (up to
 * 32 lines a warp load), and x[col[j]] is a random gather -- the scalar CSR
 * kernel of Bell & Garland (SC'09) on the kind of matrix where it is irregular.
 * Row lengths: Pareto with exponent 2 (len = floor(2 / u), u uniform in (0,1],
 * capped at 512: most rows 2-3 entries, a few hundreds), so warps also diverge.
 * Columns are uniform.  `point` x 4096 rows (default 4: 16384 rows, ~15 entries
 * a row on average), seeded.
 */
#include <stdlib.h>

#include "kernels/ptx_emit.h"
#include "kernels/workloads/workload.h"

#define SPMV_CTA_THREADS 256u
#define SPMV_UNIT_ROWS 4096u
#define SPMV_MAX_ROW 512u
#define SPMV_PARETO_MIN 2.0 /* len = floor(min / u): P(len >= l) ~ min / l */

static char *spmv_ptx(const gd_device_info *dev)
{
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_wl_spmv(.param .u64 row, .param .u64 col, .param .u64 val,\n"
        "                           .param .u64 x, .param .u64 y, .param .u32 n)\n"
        "{\n"
        "    .reg .pred %%p<3>;\n    .reg .b32 %%r<16>;\n    .reg .b64 %%rd<16>;\n"
        "    ld.param.u64 %%rd1, [row];\n    ld.param.u64 %%rd2, [col];\n"
        "    ld.param.u64 %%rd3, [val];\n    ld.param.u64 %%rd4, [x];\n"
        "    ld.param.u64 %%rd5, [y];\n    ld.param.u32 %%r1, [n];\n"
        "    mov.u32 %%r2, %%ctaid.x;\n    mov.u32 %%r3, %%ntid.x;\n    mov.u32 %%r4, %%tid.x;\n"
        "    mad.lo.u32 %%r5, %%r2, %%r3, %%r4;\n"
        "    setp.ge.u32 %%p1, %%r5, %%r1;\n"
        "    @%%p1 bra DONE;\n"
        "    mul.wide.u32 %%rd6, %%r5, 4;\n    add.s64 %%rd7, %%rd1, %%rd6;\n"
        "    ld.global.u32 %%r6, [%%rd7];\n    ld.global.u32 %%r7, [%%rd7+4];\n"
        "    mov.u32 %%r8, 0;\n"
        "LOOP:\n"
        "    setp.ge.u32 %%p2, %%r6, %%r7;\n"
        "    @%%p2 bra STORE;\n"
        "    mul.wide.u32 %%rd8, %%r6, 4;\n"
        "    add.s64 %%rd9, %%rd2, %%rd8;\n    ld.global.u32 %%r9, [%%rd9];\n"
        "    add.s64 %%rd10, %%rd3, %%rd8;\n    ld.global.u32 %%r10, [%%rd10];\n"
        "    mul.wide.u32 %%rd11, %%r9, 4;\n    add.s64 %%rd12, %%rd4, %%rd11;\n"
        "    ld.global.u32 %%r11, [%%rd12];\n"
        "    mad.lo.u32 %%r8, %%r10, %%r11, %%r8;\n"
        "    add.u32 %%r6, %%r6, 1;\n"
        "    bra LOOP;\n"
        "STORE:\n"
        "    add.s64 %%rd13, %%rd5, %%rd6;\n    st.global.u32 [%%rd13], %%r8;\n"
        "DONE:\n"
        "    ret;\n"
        "}\n");
    return gd_ptx_finish(&p);
}

static int spmv_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                     gd_probe_plan *out, gd_err *err)
{
    if (point == 0)
        point = 4;
    if (point > 64)
        return gd_fail(err, "spmv: scale %llu is outside 1..64 (x 4096 rows)",
                       (unsigned long long)point);
    uint32_t n = (uint32_t)point * SPMV_UNIT_ROWS;
    gd_wl_state *st;
    if (gd_wl_plan_begin(out, "gd_wl_spmv", SPMV_CTA_THREADS, &st, err))
        return -1;
    uint32_t *row = malloc(((size_t)n + 1) * 4), *x = malloc((size_t)n * 4);
    st->expect = malloc((size_t)n * 4);
    out->ptx = spmv_ptx(dev);
    if (!row || !x || !st->expect || !out->ptx) {
        free(row);
        free(x);
        return gd_fail(err, "spmv: out of memory");
    }
    uint64_t rng = gd_wl_seed(opts, 0x853c49e6748fea9bull);
    row[0] = 0;
    for (uint32_t r = 0; r < n; r++) {
        double u = (gd_wl_rand(&rng, 1u << 30) + 1.0) / (double)(1u << 30);
        double len = SPMV_PARETO_MIN / u;
        row[r + 1] = row[r] + (len >= SPMV_MAX_ROW ? SPMV_MAX_ROW : (uint32_t)len);
    }
    uint32_t nnz = row[n];
    uint32_t *col = malloc((size_t)nnz * 4), *val = malloc((size_t)nnz * 4);
    if (!col || !val) {
        free(row);
        free(x);
        free(col);
        free(val);
        return gd_fail(err, "spmv: out of memory");
    }
    for (uint32_t i = 0; i < n; i++)
        x[i] = gd_wl_rand(&rng, 1000);
    for (uint32_t j = 0; j < nnz; j++) {
        col[j] = gd_wl_rand(&rng, n);
        val[j] = gd_wl_rand(&rng, 1000);
    }
    for (uint32_t r = 0; r < n; r++) {
        uint32_t sum = 0;
        for (uint32_t j = row[r]; j < row[r + 1]; j++)
            sum += val[j] * x[col[j]];
        st->expect[r] = sum;
    }
    gd_wl_buffer(out, st, "row", ((size_t)n + 1) * 4, row, 0);
    gd_wl_buffer(out, st, "col", (size_t)nnz * 4, col, 0);
    gd_wl_buffer(out, st, "val", (size_t)nnz * 4, val, 0);
    gd_wl_buffer(out, st, "x", (size_t)n * 4, x, 0);
    st->check_buffer = gd_wl_buffer(out, st, "y", (size_t)n * 4, NULL, 1);
    st->check_words = n;
    gd_wl_param_u32(out, n);
    out->grid[0] = (n + SPMV_CTA_THREADS - 1) / SPMV_CTA_THREADS;
    out->point = point;
    return 0;
}

const gd_probe gd_workload_spmv = {
    .name = "spmv",
    .summary = "CSR sparse matrix x vector, one thread a row, power-law row lengths",
    .sweep_name = "scale_4ki_rows",
    .value_unit = "errors",
    .primary_series = "errors",
    .sweep_granularity = 1,
    .example_point = 4,
    .plan = spmv_plan,
    .fill = gd_wl_fill,
    .decode = gd_wl_decode,
    .release = gd_wl_release,
};
