/* recovery_score.h -- every parameter characterize claims, scored against the
 * arch file that generated the GPU.
 *
 * One row per parameter the README says `characterize --suite full` infers,
 * with the rule a careful reader would apply: a capacity within one line (the
 * sweep's resolution; a fitted size, a randomly replacing L2's, or a knee
 * extrapolated under noise, within the resolution it states in
 * size_resolution_bytes, if that is at most 5 % of it), a fetch granularity (sector_bytes) / allocation line
 * (line_bytes) / way count / bank count / policy / scope exactly (an instruction
 * cache's policy as random or lru-or-fifo), a latency within 1 cycle (2 with noise).  A parameter of a
 * level the arch does not have is not scored, nor the size of a separate L1.5
 * constant cache of 64 KiB or more (no scan of one constant bank reaches past
 * it: the README claims a lower bound there), nor the L2 constant latency
 * behind such an L1.5 unless a run reports one; one the run did not report is a
 * miss ("not reported"), as is a lower bound where the value is claimed.
 * Used by tests/test_recovery.c (the fast subset in `make test`, the large
 * sweep in `make recovery`).
 */
#ifndef GD_RECOVERY_SCORE_H
#define GD_RECOVERY_SCORE_H

/* the widest stated size resolution scored, as a share of the size */
#define GD_SCORE_MAX_RESOLUTION 0.05

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/arch.h"
#include "kernels/probe_layout.h"

typedef enum gd_score_kind {
    GD_SCORE_SIZE,       /* size_bytes within one line of the level's (allocation) line */
    GD_SCORE_FETCH,      /* sector_bytes == the fill granularity (sector, else line) */
    GD_SCORE_LINE,       /* line_bytes == the allocation line */
    GD_SCORE_LATENCY,    /* latency_cycles within 1 cycle (2 with noise) */
    GD_SCORE_WAYS,       /* ways exactly */
    GD_SCORE_POLICY,     /* replacement exactly (lru / fifo / random) */
    GD_SCORE_BANKS,      /* banks exactly */
    GD_SCORE_BANK_WIDTH, /* bank width exactly */
    GD_SCORE_SCOPE,      /* scope exactly */
    GD_SCORE_POLICY_CLASS, /* random, or lru-or-fifo (a loop of code cannot tell those apart) */
} gd_score_kind;

typedef struct gd_score_param {
    const char *level;   /* schema name */
    gd_level_id id;
    gd_score_kind kind;
    const char *what;
} gd_score_param;

static const gd_score_param gd_score_params[] = {
    {"L1D", GD_L1D, GD_SCORE_SIZE, "size"},
    {"L1D", GD_L1D, GD_SCORE_FETCH, "sector"},
    {"L1D", GD_L1D, GD_SCORE_LINE, "line"},
    {"L1D", GD_L1D, GD_SCORE_LATENCY, "latency"},
    {"L1D", GD_L1D, GD_SCORE_WAYS, "ways"},
    {"L1D", GD_L1D, GD_SCORE_POLICY, "replacement"},
    {"SMEM", GD_SMEM, GD_SCORE_LATENCY, "latency"},
    {"SMEM", GD_SMEM, GD_SCORE_BANKS, "banks"},
    {"SMEM", GD_SMEM, GD_SCORE_BANK_WIDTH, "bank_width"},
    {"L2", GD_L2, GD_SCORE_SIZE, "size"},
    {"L2", GD_L2, GD_SCORE_FETCH, "sector"},
    {"L2", GD_L2, GD_SCORE_LATENCY, "latency"},
    {"DRAM", GD_DRAM, GD_SCORE_LATENCY, "latency"},
    {"L1C", GD_L1C, GD_SCORE_SIZE, "size"},
    {"L1C", GD_L1C, GD_SCORE_FETCH, "sector"},
    {"L1C", GD_L1C, GD_SCORE_LATENCY, "latency"},
    {"L1C", GD_L1C, GD_SCORE_WAYS, "ways"},
    {"L1C", GD_L1C, GD_SCORE_POLICY, "replacement"},
    {"L15C", GD_L15C, GD_SCORE_SIZE, "size"},
    {"L15C", GD_L15C, GD_SCORE_LATENCY, "latency"},
    {"L15C", GD_L15C, GD_SCORE_SCOPE, "scope"},
    {"L2C", GD_L2C, GD_SCORE_LATENCY, "latency"},
    {"L0I", GD_L0I, GD_SCORE_SIZE, "size"},
    {"L0I", GD_L0I, GD_SCORE_SCOPE, "scope"},
    {"L0I", GD_L0I, GD_SCORE_POLICY_CLASS, "replacement"},
    {"L1I", GD_L1I, GD_SCORE_SIZE, "size"},
    {"L1I", GD_L1I, GD_SCORE_SCOPE, "scope"},
    {"L1I", GD_L1I, GD_SCORE_POLICY_CLASS, "replacement"},
};

/* An L1I within GD_SCORE_RANDOM_L0I_APART of a randomly replacing L0I: the
 * L0I's miss share climbs through the L1I's range and moves its knee (the
 * README claims no size there, nor the scope sized from it; the inference
 * reports none within 3x of the L0I it measured) */
#define GD_SCORE_RANDOM_L0I_APART 3.2
static inline int gd_score_l1i_hidden(const gd_arch *arch)
{
    const gd_arch_level *l0 = &arch->level[GD_L0I], *l1 = &arch->level[GD_L1I];
    return l0->present && l0->replacement == GD_REPL_RANDOM &&
           (double)l1->size_bytes < GD_SCORE_RANDOM_L0I_APART * (double)l0->size_bytes;
}
#define GD_SCORE_PARAM_COUNT (sizeof gd_score_params / sizeof gd_score_params[0])

typedef enum gd_score_outcome {
    GD_SCORE_NOT_SCORED, /* the arch has no such level (or value) */
    GD_SCORE_RIGHT,
    GD_SCORE_WRONG,
    GD_SCORE_MISSING,    /* not reported, or only a bound */
} gd_score_outcome;

static inline const json_t *gd_score_level(const json_t *inferred, const char *name)
{
    size_t i;
    const json_t *l;
    json_array_foreach(json_object_get(inferred, "levels"), i, l) {
        const char *n = json_string_value(json_object_get(l, "name"));
        if (n && !strcmp(n, name))
            return l;
    }
    return NULL;
}

static inline int gd_score_number(const json_t *level, const char *key, double *out)
{
    const json_t *v = level ? json_object_get(level, key) : NULL;
    if (!v || !json_is_number(v))
        return 0;
    *out = json_number_value(v);
    return 1;
}

/* A string value of level l (`key`) against `want`, both into the table. */
static inline gd_score_outcome gd_score_text(const json_t *l, const char *key, const char *want,
                                             char *measured, size_t mbytes, char *expected,
                                             size_t ebytes)
{
    snprintf(expected, ebytes, "%s", want);
    const char *got = l ? json_string_value(json_object_get(l, key)) : NULL;
    if (!got)
        return GD_SCORE_MISSING;
    snprintf(measured, mbytes, "%s", got);
    return !strcmp(got, want) ? GD_SCORE_RIGHT : GD_SCORE_WRONG;
}

/* Scores one parameter; `measured` and `expected` are filled for the table. */
static inline gd_score_outcome gd_score_one(const gd_score_param *p, const gd_arch *arch,
                                            const json_t *inferred, char *measured,
                                            size_t mbytes, char *expected, size_t ebytes)
{
    const gd_arch_level *t = &arch->level[p->id];
    snprintf(measured, mbytes, "-");
    snprintf(expected, ebytes, "-");
    if (!t->present)
        return GD_SCORE_NOT_SCORED;
    int shares = t->shared_with >= 0;
    const json_t *l = gd_score_level(inferred, p->level);
    double v = 0;
    int noisy = arch->noise.jitter_cycles > 0 || arch->noise.outlier_rate > 0;
    if (p->id == GD_L1I && gd_score_l1i_hidden(arch))
        return GD_SCORE_NOT_SCORED;
    switch (p->kind) {
    case GD_SCORE_SIZE: {
        if (shares)
            return GD_SCORE_NOT_SCORED; /* its size is the level it shares with */
        /* a constant scan cannot reach past one 64 KiB bank: a separate L1.5 that
         * large is claimed as a lower bound only (README) */
        if (p->id == GD_L15C && t->size_bytes >= GD_CHASE_CONST_BYTES)
            return GD_SCORE_NOT_SCORED;
        snprintf(expected, ebytes, "%llu", (unsigned long long)t->size_bytes);
        if (!gd_score_number(l, "size_bytes", &v))
            return GD_SCORE_MISSING;
        snprintf(measured, mbytes, "%.0f%s", v,
                 json_is_true(json_object_get(l, "size_is_lower_bound")) ? " (>=)" : "");
        if (json_is_true(json_object_get(l, "size_is_lower_bound")))
            return GD_SCORE_MISSING;
        /* a fitted size (a randomly replacing L2) or a knee extrapolated under
         * noise states its resolution -- counted up to GD_SCORE_MAX_RESOLUTION
         * of the size: a claim vaguer than that is no recovery */
        double tolerance = t->line_bytes, stated = 0;
        if (gd_score_number(l, "size_resolution_bytes", &stated) && stated > tolerance)
            tolerance = stated;
        if (stated > 0)
            snprintf(measured, mbytes, "%.0f (+-%.0f)", v, stated);
        if (stated > GD_SCORE_MAX_RESOLUTION * (double)t->size_bytes)
            return GD_SCORE_WRONG;
        return fabs(v - (double)t->size_bytes) <= tolerance ? GD_SCORE_RIGHT : GD_SCORE_WRONG;
    }
    case GD_SCORE_FETCH: {
        uint32_t fetch = t->sector_bytes ? t->sector_bytes : t->line_bytes;
        snprintf(expected, ebytes, "%u", fetch);
        if (!gd_score_number(l, "sector_bytes", &v))
            return GD_SCORE_MISSING;
        snprintf(measured, mbytes, "%.0f", v);
        return v == fetch ? GD_SCORE_RIGHT : GD_SCORE_WRONG;
    }
    case GD_SCORE_LINE:
        snprintf(expected, ebytes, "%u", t->line_bytes);
        if (!gd_score_number(l, "line_bytes", &v))
            return GD_SCORE_MISSING;
        snprintf(measured, mbytes, "%.0f", v);
        return v == t->line_bytes ? GD_SCORE_RIGHT : GD_SCORE_WRONG;
    case GD_SCORE_LATENCY: {
        snprintf(expected, ebytes, "%u", t->latency_cycles);
        /* behind a separate L1.5 of a whole 64 KiB constant bank or more, no
         * constant access reaches the L2: its constant latency is scored only
         * where a run reports one (a wrong one is still a miss) */
        const gd_arch_level *l15 = &arch->level[GD_L15C];
        int hidden = p->id == GD_L2C && l15->present && l15->shared_with < 0 &&
                     l15->size_bytes >= GD_CHASE_CONST_BYTES;
        if (!gd_score_number(l, "latency_cycles", &v))
            return hidden ? GD_SCORE_NOT_SCORED : GD_SCORE_MISSING;
        snprintf(measured, mbytes, "%.1f", v);
        return fabs(v - t->latency_cycles) <= (noisy ? 2.0 : 1.0) ? GD_SCORE_RIGHT
                                                                   : GD_SCORE_WRONG;
    }
    case GD_SCORE_WAYS:
        snprintf(expected, ebytes, "%u", t->ways);
        if (!gd_score_number(l, "ways", &v))
            return GD_SCORE_MISSING;
        snprintf(measured, mbytes, "%.0f%s", v,
                 json_is_true(json_object_get(l, "ways_is_lower_bound")) ? " (>=)" : "");
        if (json_is_true(json_object_get(l, "ways_is_lower_bound")))
            return GD_SCORE_MISSING;
        return v == t->ways ? GD_SCORE_RIGHT : GD_SCORE_WRONG;
    case GD_SCORE_POLICY:
        return gd_score_text(l, "replacement", gd_replacement_name(t->replacement), measured,
                             mbytes, expected, ebytes);
    case GD_SCORE_POLICY_CLASS: {
        /* claimed with a size: a level the sweep did not size has no knee
         * whose neighbourhood the verdict reads; nor behind a random L0I,
         * whose transients run on through the L1I's range (README) */
        if (!gd_score_number(l, "size_bytes", &v) ||
            json_is_true(json_object_get(l, "size_is_lower_bound")))
            return GD_SCORE_NOT_SCORED;
        if (p->id == GD_L1I && arch->level[GD_L0I].present &&
            arch->level[GD_L0I].replacement == GD_REPL_RANDOM)
            return GD_SCORE_NOT_SCORED;
        return gd_score_text(l, "replacement",
                             t->replacement == GD_REPL_RANDOM ? "random" : "lru-or-fifo",
                             measured, mbytes, expected, ebytes);
    }
    case GD_SCORE_BANKS:
    case GD_SCORE_BANK_WIDTH: {
        uint32_t want = p->kind == GD_SCORE_BANKS ? t->banks : t->bank_width_bytes;
        snprintf(expected, ebytes, "%u", want);
        const json_t *banks = l ? json_object_get(l, "banks") : NULL;
        if (!gd_score_number(banks, p->kind == GD_SCORE_BANKS ? "banks" : "bank_width_bytes", &v))
            return GD_SCORE_MISSING;
        snprintf(measured, mbytes, "%.0f", v);
        return v == want ? GD_SCORE_RIGHT : GD_SCORE_WRONG;
    }
    case GD_SCORE_SCOPE: {
        /* a separate L1.5's scope (const_av): an attacker on another SM needs
         * two, and one bank must outgrow the L1.5 (a shared one's is the
         * L1I's, scored there) */
        if (p->id == GD_L15C &&
            (shares || t->size_bytes >= GD_CHASE_CONST_BYTES || arch->gpu.sm_count < 2))
            return GD_SCORE_NOT_SCORED;
        return gd_score_text(l, "scope", gd_scope_name(t->scope), measured, mbytes, expected,
                             ebytes);
    }
    }
    return GD_SCORE_NOT_SCORED;
}

#endif
