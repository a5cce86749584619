/* model.c -- the expected p-chase curve of an arch, in closed form.
 *
 * A pointer chase repeats one fixed cycle over its n elements, and each timed
 * access's level follows from the geometry alone:
 *
 *   - Under LRU (and FIFO, which cyclic access cannot tell apart from LRU), a set
 *     that holds the lines of at most `ways` chain lines keeps them all: every
 *     access to such a line hits.  A set with more lines thrashes: every line is
 *     evicted before the lap comes back, so every access misses -- except one that
 *     falls into the sector its predecessor just fetched (strides below the fetch
 *     granularity).  So a level hits iff its set fits, or the previous access was
 *     to the same sector.
 *   - Under random replacement a thrashing set of N lines keeps a line for a lap
 *     with the steady-state probability h solving h = (1 - 1/W)^((N-1)(1-h)): each
 *     of the (N-1)(1-h) misses of the other lines evicts it with probability 1/W.
 *     This mean-field fixed point is the textbook estimate, not exact.
 *   - Accesses that miss the L1 (all of them for ld.cg) go to the L2, whose sets
 *     are counted over the L2 lines that see such accesses; L2 misses go to DRAM.
 *
 * The expectation is over exactly the accesses the probe records: every access
 * of the timed lap, in the chain's order (the random chain is regenerated with
 * the probe's own permutation), so on an LRU arch the model equals the
 * simulator's noiseless mean point by point.
 *
 * Assumptions, stated: the L1 is much smaller than the L2 (lines that hit the L1
 * do not crowd the L2 sets the missing lines use); one thread, so no contention
 * adds latency; the chain's base address is known (or 0) because sets that are
 * not a power of two map lines according to it.
 */
#include "analysis/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/model_access.h"
#include "analysis/model_below_l1.h"
#include "analysis/model_icache.h"

#define DEFAULT_STRIDE 32
#define DEFAULT_STRIDE_FOOTPRINT (256 * 1024) /* kernels/pchase_stride.c */
#define FIXED_POINT_ITERATIONS 60             /* bisection to well below 1e-15 */

double gd_model_random_hit_rate(uint64_t lines, uint32_t ways)
{
    if (lines <= ways)
        return 1.0;
    if (ways <= 1)
        return 0.0;
    double keep = 1.0 - 1.0 / (double)ways;
    double others = (double)(lines - 1);
    /* f(h) = h - keep^(others (1-h)): negative at 0, zero at the trivial root 1,
     * positive just below 1 when others > ways: bisect for the root inside */
    double lo = 0.0, hi = 1.0 - 1e-9;
    for (int i = 0; i < FIXED_POINT_ITERATIONS; i++) {
        double mid = (lo + hi) / 2;
        double f = mid - pow(keep, others * (1 - mid));
        if (f < 0)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

typedef struct level_geom {
    int present;
    uint64_t line, sector;
    uint32_t sets, ways;
    const gd_arch *sliced;    /* an L2 of slices (arch_mem.c): sets by slice and key */
    uint32_t slice_sets;
    gd_replacement repl;
    uint32_t *lines_in_set;   /* distinct chain lines per set */
    double *keep;             /* per set: probability a line survives a lap */
} level_geom;

static int geom_init(level_geom *g, const gd_arch_level *l)
{
    memset(g, 0, sizeof *g);
    if (!l->present)
        return 0;
    g->present = 1;
    g->line = l->line_bytes;
    g->sector = l->sector_bytes ? l->sector_bytes : l->line_bytes;
    g->sets = l->sets;
    g->ways = l->ways;
    g->repl = l->replacement;
    g->lines_in_set = calloc(g->sets, sizeof *g->lines_in_set);
    g->keep = calloc(g->sets, sizeof *g->keep);
    return g->lines_in_set && g->keep ? 0 : -1;
}

/* The set of `line`: modulo the sets, or for a sliced L2 the partition-0 slice
 * position and the key's set inside it (what sim/l2_slice.c uses). */
static uint32_t geom_set(const level_geom *g, uint64_t line)
{
    if (!g->sliced)
        return (uint32_t)(line % g->sets);
    uint32_t slice;
    uint64_t key;
    gd_arch_l2_slice_of(g->sliced, line, 0, &slice, &key);
    return slice * g->slice_sets + (uint32_t)(key % g->slice_sets);
}

static void geom_free(level_geom *g)
{
    free(g->lines_in_set);
    free(g->keep);
}

static void geom_finish(level_geom *g)
{
    for (uint32_t s = 0; s < g->sets; s++)
        g->keep[s] = g->lines_in_set[s] <= g->ways ? 1.0
                     : g->repl == GD_REPL_RANDOM   ? gd_model_random_hit_rate(g->lines_in_set[s], g->ways)
                                                   : 0.0;
}

/* Probability that an access to `addr`, following an access to `prev`, hits. */
static double hit_probability(const level_geom *g, uint64_t addr, uint64_t prev, int has_prev)
{
    if (has_prev && addr / g->sector == prev / g->sector)
        return 1.0; /* the sector the previous access just brought in */
    uint64_t line = addr / g->line;
    double keep = g->keep[geom_set(g, line)];
    if (keep < 1.0 && has_prev && prev / g->line == line)
        return 0.0; /* the line was just (re)installed, this sector not fetched */
    return keep;
}

/* The levels a chain's accesses go through, nearest first, and the latency of
 * whatever serves what misses them all. */
typedef struct chain_path {
    const gd_arch_level *level[GD_MODEL_MAX_LEVELS - 1];
    double latency[GD_MODEL_MAX_LEVELS - 1]; /* what a chase measures for a hit there (gd_model_hit_cycles) */
    const char *name[GD_MODEL_MAX_LEVELS - 1];
    size_t count;
    double final_latency;
    const char *final_name;
    /* below the L1 (issue 12; model_below_l1.c): the data path's arch, for a
     * sliced L2, TLBs and DRAM rows (NULL on the constant path) */
    const gd_arch *arch;
    int l1_index;             /* the L1D's place in the path, -1 with ld.cg */
    gd_arch_level far_level;  /* L2FAR: the near and far partitions' ways together */
} chain_path;

static const gd_arch_level *storage_of(const gd_arch *arch, gd_level_id id)
{
    const gd_arch_level *l = &arch->level[id];
    return l->shared_with >= 0 ? &arch->level[l->shared_with] : l;
}

double gd_model_hit_cycles(const gd_arch *arch, gd_level_id id)
{
    double cycles = arch->level[id].latency_cycles;
    if ((id == GD_L1D || id == GD_L2) && cycles < GD_MODEL_LOAD_PIPELINE_CYCLES)
        cycles = GD_MODEL_LOAD_PIPELINE_CYCLES;
    return cycles;
}

static int chain_path_for(const gd_arch *arch, const char *probe, const gd_probe_opts *opts,
                          chain_path *path, gd_err *err)
{
    memset(path, 0, sizeof *path);
    if (!strncmp(probe, "const_", 6)) {
        /* ld.const: L1C, then L15C (with the geometry of the structure it shares),
         * then the L2 as the constant path sees it ([L2C] latency); a 64 KiB bank
         * always fits the L2 */
        if (arch->level[GD_L1C].present) {
            path->name[path->count] = "L1C";
            path->latency[path->count] = gd_model_hit_cycles(arch, GD_L1C);
            path->level[path->count++] = &arch->level[GD_L1C];
        }
        if (arch->level[GD_L15C].present) {
            static gd_arch_level l15; /* geometry of the owner, latency of the L1.5 */
            l15 = *storage_of(arch, GD_L15C);
            l15.latency_cycles = arch->level[GD_L15C].latency_cycles;
            l15.present = 1;
            path->name[path->count] = "L15C";
            path->latency[path->count] = l15.latency_cycles;
            path->level[path->count++] = &l15;
        }
        path->final_latency = arch->level[GD_L2C].present ? arch->level[GD_L2C].latency_cycles
                                                          : arch->level[GD_L2].latency_cycles;
        path->final_name = "L2C";
        if (!path->count)
            return gd_fail(err, "model: arch %s has no constant cache", arch->name);
        return 0;
    }
    if (strcmp(opts->variant, "cg") && arch->level[GD_L1D].present) {
        path->name[path->count] = "L1D";
        path->latency[path->count] = gd_model_hit_cycles(arch, GD_L1D);
        path->level[path->count++] = &arch->level[GD_L1D];
    }
    path->l1_index = path->count ? 0 : -1;
    path->name[path->count] = "L2";
    path->latency[path->count] = gd_model_hit_cycles(arch, GD_L2);
    path->level[path->count++] = &arch->level[GD_L2];
    path->arch = arch;
    const gd_arch_l2_map *m = &arch->level[GD_L2].l2map;
    if (m->partitions > 1) {
        /* what the near partition evicts the far one keeps: a chase's line is
         * in one of the two while its set's lines fit both partitions' ways */
        path->far_level = arch->level[GD_L2];
        path->far_level.ways = 2 * arch->level[GD_L2].ways;
        path->name[path->count] = "L2FAR";
        path->latency[path->count] = m->far_latency_cycles;
        path->level[path->count++] = &path->far_level;
    }
    path->final_latency = arch->level[GD_DRAM].latency_cycles;
    path->final_name = "DRAM";
    return 0;
}

int gd_model_pchase(const gd_arch *arch, const gd_probe_opts *opts, uint64_t footprint,
                    uint64_t base, gd_model_point *out, gd_err *err)
{
    chain_path path;
    if (chain_path_for(arch, "pchase", opts, &path, err) != 0)
        return -1;
    return gd_model_chain(&path, opts, footprint, base, out, err);
}

int gd_model_pchase_carveout(const gd_arch *arch, const gd_probe_opts *opts, uint64_t footprint,
                             uint64_t base, int carveout_percent, uint32_t shared_per_cta_bytes,
                             gd_model_point *out, gd_err *err)
{
    gd_carveout_choice split;
    if (gd_arch_carveout(arch, carveout_percent, shared_per_cta_bytes, 1, &split, err) != 0)
        return gd_fail_prefix(err, "model");
    chain_path path;
    if (chain_path_for(arch, "pchase", opts, &path, err) != 0)
        return -1;
    gd_arch_level l1;
    if (path.count && path.level[0] == &arch->level[GD_L1D]) {
        l1 = arch->level[GD_L1D];
        l1.ways = split.l1d_ways;
        l1.size_bytes = split.l1d_bytes;
        path.level[0] = &l1;
    }
    return gd_model_chain(&path, opts, footprint, base, out, err);
}

/* 2^24 elements: 200 MB of host memory, a 512 MiB footprint at a 32-byte stride */
#define GD_MODEL_MAX_ELEMENTS (1ull << 24)
/* and 2^27 over a whole curve: some seconds of model time at most */
#define GD_MODEL_MAX_CURVE_ELEMENTS (1ull << 27)

int gd_model_chain(const chain_path *path, const gd_probe_opts *opts, uint64_t footprint,
                   uint64_t base, gd_model_point *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    uint64_t stride = opts->stride_bytes ? opts->stride_bytes : DEFAULT_STRIDE;
    uint64_t n = footprint / stride;
    if (n == 0)
        return gd_fail(err, "model: footprint %llu holds no %llu-byte element",
                       (unsigned long long)footprint, (unsigned long long)stride);
    /* the chain's walk costs 12 bytes of host memory per element: a results
     * directory claiming a 16 GiB footprint would take gigabytes and minutes */
    if (n > GD_MODEL_MAX_ELEMENTS)
        return gd_fail(err, "model: footprint %llu at stride %llu is %llu elements, more than the "
                            "model's %llu",
                       (unsigned long long)footprint, (unsigned long long)stride,
                       (unsigned long long)n, (unsigned long long)GD_MODEL_MAX_ELEMENTS);
    size_t nl = path->count;
    uint32_t *next = NULL, *order = NULL;
    double *reach = NULL; /* per element: probability an access gets past the levels so far */
    double *below_l1 = NULL, *to_dram = NULL;
    level_geom g[3];
    memset(g, 0, sizeof g);
    int rc = -1;
    for (size_t i = 0; i < nl; i++) {
        const gd_arch_level *lv = path->level[i];
        gd_arch_level sliced;
        const gd_arch *a = path->arch;
        int is_l2 = a && (lv == &a->level[GD_L2] || lv == &path->far_level);
        if (is_l2 && (a->level[GD_L2].l2map.slices > 1 || a->level[GD_L2].l2map.partitions > 1)) {
            /* the sets of one partition's slices */
            sliced = *lv;
            sliced.sets = gd_arch_l2_slice_sets(a) *
                          (a->level[GD_L2].l2map.slices / a->level[GD_L2].l2map.partitions);
            lv = &sliced;
        }
        if (geom_init(&g[i], lv)) {
            gd_fail(err, "model: out of memory");
            goto out;
        }
        if (lv == &sliced) {
            g[i].sliced = a;
            g[i].slice_sets = gd_arch_l2_slice_sets(a);
        }
    }
    /* the timed lap's order: element 0 first, then along the chain */
    order = malloc(n * sizeof *order);
    reach = malloc(n * sizeof *reach);
    if (!order || !reach) {
        gd_fail(err, "model: out of memory");
        goto out;
    }
    if (opts->random_order) {
        next = malloc(n * sizeof *next);
        if (!next || gd_chase_permutation(n, opts->seed, next) != 0) {
            gd_fail(err, "model: out of memory");
            goto out;
        }
        uint32_t e = 0;
        for (uint64_t k = 0; k < n; k++) {
            order[k] = e;
            e = next[e];
        }
    } else {
        for (uint64_t k = 0; k < n; k++)
            order[k] = (uint32_t)k;
    }
#define ADDR(e) (base + (uint64_t)(e)*stride)
    /* level by level: the lines per set of the elements that can reach it */
    for (uint64_t e = 0; e < n; e++)
        reach[e] = 1.0;
    for (size_t i = 0; i < nl; i++) {
        uint64_t last = UINT64_MAX;
        for (uint64_t e = 0; e < n; e++) {
            if (reach[e] <= 0)
                continue;
            uint64_t line = ADDR(e) / g[i].line;
            if (line != last)
                g[i].lines_in_set[geom_set(&g[i], line)]++;
            last = line;
        }
        geom_finish(&g[i]);
        for (uint64_t k = 0; k < n; k++) {
            uint32_t e = order[k], p = order[(k + n - 1) % n];
            reach[e] *= 1 - hit_probability(&g[i], ADDR(e), ADDR(p), n > 1);
        }
    }
    /* expectation over the recorded accesses: every access of the timed lap;
     * below the L1, per element: the chance it passes the L1 and reaches DRAM */
    double sum = 0, served[GD_MODEL_MAX_LEVELS] = {0};
    if (path->arch) {
        below_l1 = malloc(n * sizeof *below_l1);
        to_dram = malloc(n * sizeof *to_dram);
        if (!below_l1 || !to_dram) {
            gd_fail(err, "model: out of memory");
            goto out;
        }
    }
    for (uint64_t k = 0; k < n; k++) {
        uint32_t e = order[k], p = order[(k + n - 1) % n];
        double pass = 1.0;
        if (below_l1)
            below_l1[e] = 1.0;
        for (size_t i = 0; i < nl; i++) {
            double h = pass * hit_probability(&g[i], ADDR(e), ADDR(p), n > 1);
            served[i] += h;
            sum += h * path->latency[i];
            pass -= h;
            if (below_l1 && (int)i == path->l1_index)
                below_l1[e] = pass;
        }
        served[nl] += pass;
        sum += pass * path->final_latency;
        if (to_dram)
            to_dram[e] = pass;
    }
    if (path->arch) {
        double extra = 0;
        if (gd_model_below_l1(path->arch, n, order, base, stride, below_l1, to_dram,
                              gd_model_random_hit_rate, &extra, err) != 0)
            goto out;
        sum += extra;
    }
#undef ADDR
    out->x = (double)footprint;
    out->accesses = n;
    out->mean_cycles = sum / (double)n;
    for (size_t i = 0; i <= nl && i < GD_MODEL_MAX_LEVELS; i++) {
        out->fraction[i] = served[i] / (double)n;
        out->level_name[i] = i < nl ? path->name[i] : path->final_name;
    }
    out->levels = nl + 1;
    rc = 0;
out:
    free(next);
    free(order);
    free(reach);
    free(below_l1);
    free(to_dram);
    for (size_t i = 0; i < nl; i++)
        geom_free(&g[i]);
    return rc;
}

int gd_model_curve(const gd_arch *arch, const char *probe, const gd_probe_opts *opts,
                   const uint64_t *xs, const uint64_t *bases, size_t count, gd_model_point *out,
                   gd_err *err)
{
    if (!strcmp(probe, "icache_seq") || !strcmp(probe, "const_bcast"))
        return gd_model_other_curve(arch, probe, opts, xs, count, out, err);
    if (!strcmp(probe, "smem_bank") || !strcmp(probe, "coalesce"))
        return gd_model_access_curve(arch, probe, opts, xs, count, out, err);
    int stride_sweep = !strcmp(probe, "pchase_stride") || !strcmp(probe, "const_stride");
    int page_sweep = !strcmp(probe, "pchase_page");
    int chain = stride_sweep || page_sweep || !strcmp(probe, "pchase") || !strcmp(probe, "const_seq");
    if (!chain)
        return gd_fail(err, "model: no analytical model for probe '%s'", probe);
    int constant = !strncmp(probe, "const_", 6);
    gd_probe_opts page_opts;
    if (page_sweep && !opts->variant[0]) {
        page_opts = *opts; /* pchase_page's default variant */
        snprintf(page_opts.variant, sizeof page_opts.variant, "cg");
        opts = &page_opts;
    }
    chain_path path;
    if (chain_path_for(arch, probe, opts, &path, err) != 0)
        return -1;
    uint64_t elements = 0; /* the whole curve's, against GD_MODEL_MAX_CURVE_ELEMENTS */
    for (size_t i = 0; i < count; i++) {
        gd_probe_opts o = *opts;
        if (constant && !o.stride_bytes)
            o.stride_bytes = GD_CONST_SEQ_DEFAULT_STRIDE;
        uint64_t footprint = xs[i];
        if (stride_sweep) {
            o.stride_bytes = xs[i];
            footprint = o.footprint_bytes ? o.footprint_bytes
                        : constant        ? GD_CHASE_CONST_BYTES
                                          : DEFAULT_STRIDE_FOOTPRINT;
            footprint -= footprint % xs[i];
        } else if (page_sweep) {
            /* kernels/pchase_page.c: elements a candidate page plus a skew apart */
            o.stride_bytes = gd_pchase_page_spacing(xs[i]);
            footprint = o.footprint_bytes;
            footprint -= footprint % o.stride_bytes;
        }
        uint64_t stride = o.stride_bytes ? o.stride_bytes : DEFAULT_STRIDE;
        elements += footprint / stride;
        if (elements > GD_MODEL_MAX_CURVE_ELEMENTS)
            return gd_fail(err, "model: the curve's %zu points chase more than %llu elements in all "
                                "(a results directory claiming huge footprints?)",
                           count, (unsigned long long)GD_MODEL_MAX_CURVE_ELEMENTS);
        if (gd_model_chain(&path, &o, footprint, bases ? bases[i] : 0, &out[i], err) != 0)
            return -1;
        out[i].x = (double)xs[i];
    }
    return 0;
}
