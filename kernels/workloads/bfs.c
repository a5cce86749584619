/* bfs.c -- level-synchronous breadth-first search: frontier expansion on a
 * generated graph (CSR), one launch per level.
 *
 * Launch `cur` gives each vertex a thread; a vertex at level `cur` reads its
 * edge list (row[v] .. row[v+1], a contiguous run of col[]) and, for each
 * neighbour u, gathers level[u] and writes cur + 1 where it is unset.  The
 * neighbour gathers are the irregular part: a warp's lanes read 32 random
 * vertices' levels (up to 32 lines, any sets), the pattern of Rodinia's and
 * Lonestar's BFS.  Writes race only with equal values (every writer of level[u]
 * in one launch writes cur + 1), so the result is deterministic.
 *
 * The graph: `point` x 4096 vertices (default 8: 32768), out-degree 8, edges to
 * uniformly random vertices, seeded; the host runs the same BFS from vertex 0
 * and the plan has one launch per level it found.
 */
#include <stdlib.h>

#include "kernels/ptx_emit.h"
#include "kernels/workloads/workload.h"

#define BFS_CTA_THREADS 256u
#define BFS_UNIT_VERTICES 4096u
#define BFS_DEGREE 8u
#define BFS_UNSET 0xffffffffu

static char *bfs_ptx(const gd_device_info *dev)
{
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_wl_bfs(.param .u64 row, .param .u64 col, .param .u64 level,\n"
        "                          .param .u32 n, .param .u32 cur)\n"
        "{\n"
        "    .reg .pred %%p<4>;\n    .reg .b32 %%r<16>;\n    .reg .b64 %%rd<12>;\n"
        "    ld.param.u64 %%rd1, [row];\n    ld.param.u64 %%rd2, [col];\n"
        "    ld.param.u64 %%rd3, [level];\n    ld.param.u32 %%r1, [n];\n"
        "    ld.param.u32 %%r2, [cur];\n"
        "    mov.u32 %%r3, %%ctaid.x;\n    mov.u32 %%r4, %%ntid.x;\n    mov.u32 %%r5, %%tid.x;\n"
        "    mad.lo.u32 %%r6, %%r3, %%r4, %%r5;\n"
        "    setp.ge.u32 %%p1, %%r6, %%r1;\n"
        "    @%%p1 bra DONE;\n"
        "    mul.wide.u32 %%rd4, %%r6, 4;\n"
        "    add.s64 %%rd5, %%rd3, %%rd4;\n    ld.global.u32 %%r7, [%%rd5];\n"
        "    setp.ne.u32 %%p2, %%r7, %%r2;\n"
        "    @%%p2 bra DONE;\n"
        "    add.s64 %%rd6, %%rd1, %%rd4;\n"
        "    ld.global.u32 %%r8, [%%rd6];\n    ld.global.u32 %%r9, [%%rd6+4];\n"
        "    add.u32 %%r10, %%r2, 1;\n"
        "EDGE:\n"
        "    setp.ge.u32 %%p3, %%r8, %%r9;\n"
        "    @%%p3 bra DONE;\n"
        "    mul.wide.u32 %%rd7, %%r8, 4;\n    add.s64 %%rd8, %%rd2, %%rd7;\n"
        "    ld.global.u32 %%r11, [%%rd8];\n"
        "    mul.wide.u32 %%rd9, %%r11, 4;\n    add.s64 %%rd10, %%rd3, %%rd9;\n"
        "    ld.global.u32 %%r12, [%%rd10];\n"
        "    setp.ne.u32 %%p1, %%r12, %u;\n"
        "    @%%p1 bra NEXT;\n"
        "    st.global.u32 [%%rd10], %%r10;\n"
        "NEXT:\n"
        "    add.u32 %%r8, %%r8, 1;\n"
        "    bra EDGE;\n"
        "DONE:\n"
        "    ret;\n"
        "}\n", BFS_UNSET);
    return gd_ptx_finish(&p);
}

static int bfs_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                    gd_probe_plan *out, gd_err *err)
{
    if (point == 0)
        point = 8;
    if (point > 64)
        return gd_fail(err, "bfs: scale %llu is outside 1..64 (x 4096 vertices)",
                       (unsigned long long)point);
    uint32_t n = (uint32_t)point * BFS_UNIT_VERTICES, edges = n * BFS_DEGREE;
    gd_wl_state *st;
    if (gd_wl_plan_begin(out, "gd_wl_bfs", BFS_CTA_THREADS, &st, err))
        return -1;
    uint32_t *row = malloc(((size_t)n + 1) * 4), *col = malloc((size_t)edges * 4);
    uint32_t *level = malloc((size_t)n * 4), *queue = malloc((size_t)n * 4);
    st->expect = malloc((size_t)n * 4);
    out->ptx = bfs_ptx(dev);
    if (!row || !col || !level || !queue || !st->expect || !out->ptx) {
        free(row);
        free(col);
        free(level);
        free(queue);
        return gd_fail(err, "bfs: out of memory");
    }
    uint64_t rng = gd_wl_seed(opts, 0xda942042e4dd58b5ull);
    for (uint32_t v = 0; v <= n; v++)
        row[v] = v * BFS_DEGREE;
    for (uint32_t e = 0; e < edges; e++)
        col[e] = gd_wl_rand(&rng, n);
    /* the host's BFS from vertex 0: the expected levels and the launch count */
    for (uint32_t v = 0; v < n; v++)
        st->expect[v] = level[v] = BFS_UNSET;
    st->expect[0] = level[0] = 0;
    uint32_t head = 0, tail = 0, depth = 0;
    queue[tail++] = 0;
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t e = row[v]; e < row[v + 1]; e++)
            if (st->expect[col[e]] == BFS_UNSET) {
                st->expect[col[e]] = st->expect[v] + 1;
                if (st->expect[col[e]] > depth)
                    depth = st->expect[col[e]];
                queue[tail++] = col[e];
            }
    }
    free(queue);
    gd_wl_buffer(out, st, "row", ((size_t)n + 1) * 4, row, 0);
    gd_wl_buffer(out, st, "col", (size_t)edges * 4, col, 0);
    st->check_buffer = gd_wl_buffer(out, st, "level", (size_t)n * 4, level, 1);
    st->check_words = n;
    gd_wl_param_u32(out, n);
    st->cur_param = out->param_count;
    gd_wl_param_u32(out, 0);
    out->launches = depth; /* levels 0 .. depth-1 expand; the last finds nothing new */
    out->grid[0] = (n + BFS_CTA_THREADS - 1) / BFS_CTA_THREADS;
    out->point = point;
    return 0;
}

const gd_probe gd_workload_bfs = {
    .name = "bfs",
    .summary = "level-synchronous BFS on a random CSR graph (degree 8): neighbour gathers",
    .sweep_name = "scale_4ki_vertices",
    .value_unit = "errors",
    .primary_series = "errors",
    .sweep_granularity = 1,
    .example_point = 8,
    .plan = bfs_plan,
    .fill = gd_wl_fill,
    .decode = gd_wl_decode,
    .release = gd_wl_release,
    .split = gd_wl_split,
};
