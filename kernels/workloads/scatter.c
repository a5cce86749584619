/* scatter.c -- histogram-style read-modify-write scatter with a tunable share
 * of L1 set conflicts.
 *
 * Each thread takes SC_KEYS keys (coalesced loads of key[]), and for each
 * reads table[key] (a gather) and writes dst[key] = table[key] + src (a
 * scatter), the update step of a histogram or a hash-join build.  A real
 * histogram increments shared bins with atomics, which the simulator's PTX
 * subset lacks (sim/README.md), so the keys are distinct (a seeded partial
 * permutation): the result is deterministic and the access pattern is the
 * histogram's.  The knob, `point`: the percent of each warp load's lanes whose
 * keys lie in distinct lines of ONE L1 set (lines `stride` apart; default
 * 4 KiB, the set stride of a 32-set L1 of 128-B lines such as CN110457238A's);
 * the other lanes' keys are uniform.  At 0 the set conflicts are chance; at 25
 * eight lines of one set per warp load, twice a 4-way set's ways.  Default 25.
 */
#include <stdlib.h>

#include "kernels/ptx_emit.h"
#include "kernels/workloads/workload.h"

#define SC_CTA_THREADS 256u
#define SC_CTAS 128u                 /* 32768 threads */
#define SC_KEYS 4u                   /* independent updates per thread (in flight together) */
#define SC_TABLE_WORDS (256u * 1024) /* 1 MiB table: 8192 lines */
#define SC_DEFAULT_STRIDE 4096u

static char *sc_ptx(const gd_device_info *dev)
{
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_wl_scatter(.param .u64 key, .param .u64 src, .param .u64 table,\n"
        "                              .param .u64 dst, .param .u32 threads)\n"
        "{\n"
        "    .reg .b32 %%r<32>;\n    .reg .b64 %%rd<32>;\n"
        "    ld.param.u64 %%rd1, [key];\n    ld.param.u64 %%rd2, [src];\n"
        "    ld.param.u64 %%rd3, [table];\n    ld.param.u64 %%rd4, [dst];\n"
        "    ld.param.u32 %%r1, [threads];\n"
        "    mov.u32 %%r2, %%ctaid.x;\n    mov.u32 %%r3, %%ntid.x;\n    mov.u32 %%r4, %%tid.x;\n"
        "    mad.lo.u32 %%r5, %%r2, %%r3, %%r4;\n"
        "    mul.wide.u32 %%rd5, %%r5, 4;\n    mul.wide.u32 %%rd6, %%r1, 4;\n"
        "    add.s64 %%rd7, %%rd1, %%rd5;\n    add.s64 %%rd8, %%rd2, %%rd5;\n");
    /* the keys and sources of the SC_KEYS updates: key[i + k * threads] */
    for (unsigned k = 0; k < SC_KEYS; k++)
        gd_ptx_printf(&p,
            "    ld.global.u32 %%r%u, [%%rd7];\n    ld.global.u32 %%r%u, [%%rd8];\n"
            "    add.s64 %%rd7, %%rd7, %%rd6;\n    add.s64 %%rd8, %%rd8, %%rd6;\n",
            10 + k, 20 + k);
    /* the gathers, all issued before any is used */
    for (unsigned k = 0; k < SC_KEYS; k++)
        gd_ptx_printf(&p,
            "    mul.wide.u32 %%rd%u, %%r%u, 4;\n    add.s64 %%rd%u, %%rd3, %%rd%u;\n"
            "    ld.global.u32 %%r%u, [%%rd%u];\n",
            10 + k, 10 + k, 14 + k, 10 + k, 14 + k, 14 + k);
    for (unsigned k = 0; k < SC_KEYS; k++)
        gd_ptx_printf(&p,
            "    add.u32 %%r%u, %%r%u, %%r%u;\n    add.s64 %%rd%u, %%rd4, %%rd%u;\n"
            "    st.global.u32 [%%rd%u], %%r%u;\n",
            20 + k, 20 + k, 14 + k, 18 + k, 10 + k, 18 + k, 20 + k);
    gd_ptx_printf(&p, "    ret;\n}\n");
    return gd_ptx_finish(&p);
}

/* A free word of `line`, or -1 when all its words are taken. */
static int64_t sc_take_word(uint8_t *used, uint32_t line, uint64_t *rng)
{
    const uint32_t words = GD_WL_LINE_BYTES / 4;
    uint32_t start = gd_wl_rand(rng, words);
    for (uint32_t i = 0; i < words; i++) {
        uint32_t w = line * words + (start + i) % words;
        if (!used[w]) {
            used[w] = 1;
            return w;
        }
    }
    return -1;
}

static int sc_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                   gd_probe_plan *out, gd_err *err)
{
    if (point > 100)
        return gd_fail(err, "scatter: %llu%% of a warp's lanes in one set is outside 0..100",
                       (unsigned long long)point);
    uint64_t stride = opts && opts->stride_bytes ? opts->stride_bytes : SC_DEFAULT_STRIDE;
    if (stride % GD_WL_LINE_BYTES || stride / GD_WL_LINE_BYTES > SC_TABLE_WORDS / 32 / 64)
        return gd_fail(err, "scatter: a set stride of %llu bytes is not a multiple of %u up "
                            "to %u", (unsigned long long)stride, GD_WL_LINE_BYTES,
                       SC_TABLE_WORDS / 32 / 64 * GD_WL_LINE_BYTES);
    uint32_t threads = SC_CTAS * SC_CTA_THREADS, keys = threads * SC_KEYS;
    uint32_t lines = SC_TABLE_WORDS / (GD_WL_LINE_BYTES / 4);
    uint32_t sets = (uint32_t)(stride / GD_WL_LINE_BYTES), lines_per_set = lines / sets;
    uint32_t conflicting = (uint32_t)((point * GD_WL_WARP + 50) / 100);
    gd_wl_state *st;
    if (gd_wl_plan_begin(out, "gd_wl_scatter", SC_CTA_THREADS, &st, err))
        return -1;
    uint32_t *key = malloc((size_t)keys * 4), *src = malloc((size_t)keys * 4);
    uint32_t *table = malloc((size_t)SC_TABLE_WORDS * 4);
    uint8_t *used = calloc(SC_TABLE_WORDS, 1);
    st->expect = calloc(SC_TABLE_WORDS, 4);
    out->ptx = sc_ptx(dev);
    if (!key || !src || !table || !used || !st->expect || !out->ptx) {
        free(key);
        free(src);
        free(table);
        free(used);
        return gd_fail(err, "scatter: out of memory");
    }
    uint64_t rng = gd_wl_seed(opts, 0x5ca77e2ull);
    for (uint32_t i = 0; i < SC_TABLE_WORDS; i++)
        table[i] = gd_wl_rand(&rng, 1u << 20);
    /* per warp load (k, warp): `conflicting` lanes, at random places, in
     * distinct lines of one random set; the rest anywhere */
    for (uint32_t k = 0; k < SC_KEYS; k++)
        for (uint32_t w = 0; w < threads / GD_WL_WARP; w++) {
            uint32_t *lane = &key[(size_t)k * threads + w * GD_WL_WARP];
            uint32_t order[GD_WL_WARP], set = gd_wl_rand(&rng, sets);
            for (uint32_t i = 0; i < GD_WL_WARP; i++)
                order[i] = i;
            for (uint32_t i = GD_WL_WARP - 1; i > 0; i--) {
                uint32_t j = gd_wl_rand(&rng, i + 1), t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            for (uint32_t i = 0; i < GD_WL_WARP; i++) {
                int64_t word = -1;
                while (word < 0) {
                    uint32_t line = i < conflicting
                                        ? gd_wl_rand(&rng, lines_per_set) * sets + set
                                        : gd_wl_rand(&rng, lines);
                    int fresh = 1;
                    for (uint32_t m = 0; m < i && i < conflicting; m++)
                        fresh &= lane[order[m]] / (GD_WL_LINE_BYTES / 4) != line;
                    if (fresh)
                        word = sc_take_word(used, line, &rng);
                }
                lane[order[i]] = (uint32_t)word;
            }
        }
    free(used);
    for (uint32_t i = 0; i < keys; i++) {
        src[i] = gd_wl_rand(&rng, 1u << 20);
        st->expect[key[i]] = table[key[i]] + src[i];
    }
    gd_wl_buffer(out, st, "key", (size_t)keys * 4, key, 0);
    gd_wl_buffer(out, st, "src", (size_t)keys * 4, src, 0);
    gd_wl_buffer(out, st, "table", (size_t)SC_TABLE_WORDS * 4, table, 0);
    st->check_buffer = gd_wl_buffer(out, st, "dst", (size_t)SC_TABLE_WORDS * 4, NULL, 1);
    st->check_words = SC_TABLE_WORDS;
    gd_wl_param_u32(out, threads);
    out->grid[0] = SC_CTAS;
    out->point = point;
    return 0;
}

const gd_probe gd_workload_scatter = {
    .name = "scatter",
    .summary = "histogram-style gather + scatter; the knob: % of a warp's lanes in one L1 set",
    .sweep_name = "conflict_percent",
    .value_unit = "errors",
    .primary_series = "errors",
    .default_stride_bytes = SC_DEFAULT_STRIDE,
    .sweep_granularity = 1,
    .example_point = 25,
    .plan = sc_plan,
    .fill = gd_wl_fill,
    .decode = gd_wl_decode,
    .release = gd_wl_release,
};
