/* pcm_rows.c -- the row writer's PTX and plan (pcm_rows.h), shared by the
 * write-skew workloads of issue 13 (pcm_kmeans, pcm_libor, pcm_stream).
 *
 * Kernel: warp w of launch r reads lines[r * per_round + w] and its 32 lanes
 * store r + 1 to the 32 words of that line (one coalesced 128-byte store);
 * an entry with GD_PCM_READ set names a line of `in` (zeros) that the warp
 * reads instead (storing only a non-zero word, never: the load is kept on
 * every target); warps past per_round exit.  The round is the launch number (gd_wl_split).
 */
#include <stdlib.h>

#include "kernels/ptx_emit.h"
#include "kernels/workloads/pcm_rows.h"

#define PR_CTA_THREADS 256u

static char *pr_ptx(const gd_device_info *dev)
{
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_wl_pcm_rows(.param .u64 out, .param .u64 lines, .param .u64 in,\n"
        "                               .param .u32 per_round, .param .u32 round)\n"
        "{\n"
        "    .reg .pred %%p<4>;\n    .reg .b32 %%r<16>;\n    .reg .b64 %%rd<14>;\n"
        "    ld.param.u64 %%rd1, [out];\n    ld.param.u64 %%rd2, [lines];\n"
        "    ld.param.u64 %%rd9, [in];\n"
        "    ld.param.u32 %%r1, [per_round];\n    ld.param.u32 %%r2, [round];\n"
        "    mov.u32 %%r3, %%ctaid.x;\n    mov.u32 %%r4, %%ntid.x;\n    mov.u32 %%r5, %%tid.x;\n"
        "    mad.lo.u32 %%r6, %%r3, %%r4, %%r5;\n"
        "    shr.u32 %%r7, %%r6, 5;\n"
        "    and.b32 %%r8, %%r6, 31;\n"
        "    setp.ge.u32 %%p1, %%r7, %%r1;\n"
        "    @%%p1 bra DONE;\n"
        "    mad.lo.u32 %%r9, %%r2, %%r1, %%r7;\n"
        "    mul.wide.u32 %%rd3, %%r9, 4;\n"
        "    add.s64 %%rd4, %%rd2, %%rd3;\n"
        "    ld.global.u32 %%r10, [%%rd4];\n"
        "    and.b32 %%r12, %%r10, 0x7fffffff;\n"
        "    setp.ne.u32 %%p2, %%r12, %%r10;\n"
        "    mul.wide.u32 %%rd5, %%r12, 128;\n"
        "    mul.wide.u32 %%rd6, %%r8, 4;\n"
        "    @%%p2 bra READ;\n"
        "    add.s64 %%rd7, %%rd1, %%rd5;\n"
        "    add.s64 %%rd8, %%rd7, %%rd6;\n"
        "    add.u32 %%r11, %%r2, 1;\n"
        "    st.global.u32 [%%rd8], %%r11;\n"
        "    bra DONE;\n"
        "READ:\n"
        "    add.s64 %%rd10, %%rd9, %%rd5;\n"
        "    add.s64 %%rd11, %%rd10, %%rd6;\n"
        "    ld.global.u32 %%r13, [%%rd11];\n"
        "    setp.ne.u32 %%p3, %%r13, 0;\n"
        "    @%%p3 st.global.u32 [%%rd1], %%r13;\n"
        "DONE:\n"
        "    ret;\n"
        "}\n");
    return gd_ptx_finish(&p);
}

void gd_pcm_rows_round(uint32_t *lines, uint32_t hot_rows, uint32_t cold, uint32_t *next_cold_row,
                       uint32_t sweep_lines, uint32_t salt)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < hot_rows; i++) {
        uint32_t r = (i + salt) % hot_rows;
        for (uint32_t l = 0; l < GD_PCM_LINES_PER_ROW; l++)
            lines[k++] = r * GD_PCM_LINES_PER_ROW + l;
    }
    for (uint32_t c = 0; c < cold; c++, (*next_cold_row)++)
        lines[k++] = *next_cold_row * GD_PCM_LINES_PER_ROW +
                     ((*next_cold_row * 2654435761u + salt) >> 29); /* a hashed line: every L2 set */
    for (uint32_t s = 0; s < sweep_lines; s++)
        lines[k++] = GD_PCM_READ | ((s + salt) % sweep_lines);
}

int gd_pcm_rows_plan(const char *name, const gd_device_info *dev, uint32_t rounds,
                     uint32_t per_round, uint32_t *lines, uint32_t span_lines,
                     uint32_t sweep_lines, uint64_t point, gd_probe_plan *out, gd_err *err)
{
    gd_wl_state *st;
    if (gd_wl_plan_begin(out, "gd_wl_pcm_rows", PR_CTA_THREADS, &st, err)) {
        free(lines);
        return -1;
    }
    size_t words = (size_t)span_lines * 32;
    st->expect = calloc(words, 4);
    out->ptx = pr_ptx(dev);
    if (!st->expect || !out->ptx) {
        free(lines);
        return gd_fail(err, "%s: out of memory", name);
    }
    for (uint32_t r = 0; r < rounds; r++)
        for (uint32_t w = 0; w < per_round; w++) {
            uint32_t line = lines[(size_t)r * per_round + w];
            if (line & GD_PCM_READ) {
                if ((line & ~GD_PCM_READ) >= sweep_lines) {
                    free(lines);
                    return gd_fail(err, "%s: read line outside the sweep", name);
                }
                continue;
            }
            if (line >= span_lines) {
                free(lines);
                return gd_fail(err, "%s: line %u outside the %u-line buffer", name, line, span_lines);
            }
            for (uint32_t i = 0; i < 32; i++)
                st->expect[(size_t)line * 32 + i] = r + 1;
        }
    st->check_buffer = gd_wl_buffer(out, st, "out", words * 4, NULL, 1);
    st->check_words = words;
    gd_wl_buffer(out, st, "lines", (size_t)rounds * per_round * 4, lines, 0);
    gd_wl_buffer(out, st, "in", (size_t)(sweep_lines ? sweep_lines : 1) * 128, NULL, 0);
    gd_wl_param_u32(out, per_round);
    st->cur_param = out->param_count;
    gd_wl_param_u32(out, 0);
    out->launches = rounds;
    out->grid[0] = (uint32_t)(((uint64_t)per_round * 32 + PR_CTA_THREADS - 1) / PR_CTA_THREADS);
    out->point = point;
    return 0;
}

int gd_pcm_rows_plan_shape(const gd_pcm_rows_shape *shape, const gd_probe_opts *opts,
                           const gd_device_info *dev, uint64_t point, uint64_t default_rounds,
                           gd_probe_plan *out, gd_err *err)
{
    if (point == 0)
        point = default_rounds;
    if (point > shape->max_rounds)
        return gd_fail(err, "%s: %llu rounds is outside 1..%u", shape->name, (unsigned long long)point,
                       shape->max_rounds);
    uint32_t rounds = (uint32_t)point;
    uint32_t per = shape->hot_rows * GD_PCM_LINES_PER_ROW + shape->cold_per_round + shape->sweep_lines;
    uint32_t *lines = malloc((size_t)rounds * per * 4);
    if (!lines)
        return gd_fail(err, "%s: out of memory", shape->name);
    uint32_t next_cold = shape->hot_rows;
    uint64_t rng = gd_wl_seed(opts, shape->seed);
    uint32_t salt = gd_wl_rand(&rng, 1u << 30);
    for (uint32_t r = 0; r < rounds; r++)
        gd_pcm_rows_round(lines + (size_t)r * per, shape->hot_rows, shape->cold_per_round, &next_cold,
                          shape->sweep_lines, salt);
    return gd_pcm_rows_plan(shape->name, dev, rounds, per, lines, next_cold * GD_PCM_LINES_PER_ROW,
                            shape->sweep_lines, point, out, err);
}
