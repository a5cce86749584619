/* gpgpusim_export.c -- the config lines a run's measurements determine.
 *
 * Accel-Sim's tuner turns microbenchmark numbers into config lines, partly by
 * hand; this is that step done from a results directory.  The measured table
 * (gd_gs_measured) converts inferred.json into option units: latencies split
 * as GPGPU-Sim sums them (-gpgpu_l1_latency = L1 - offset, -gpgpu_l2_rop_latency
 * = L2 - L1 - its offset's share, -dram_latency = DRAM - L2 - ...), cache sizes
 * into sets of the measured line and ways.  A cache string keeps the fields
 * nothing measured (write policy, allocation, set-index hash, miss queue,
 * port): from --base when given, else the letters of GPGPU-Sim's recent tested
 * configs, and its comment says which fields were measured.  With --base the
 * output is the whole base config with only measured options changed, and a
 * diff of those lines.
 */
#include "analysis/gpgpusim_export.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/results.h"

static const struct {
    const char *option, *what;
} gs_fields[GD_GS_FIELD_COUNT] = {
    [GD_GS_DL1_SIZE] = {"gpgpu_cache:dl1", "size (sets x line x ways), bytes"},
    [GD_GS_DL1_LINE] = {"gpgpu_cache:dl1", "line, bytes"},
    [GD_GS_DL1_SECTORED] = {"gpgpu_cache:dl1", "sectored (S=1, N=0)"},
    [GD_GS_DL1_WAYS] = {"gpgpu_cache:dl1", "ways"},
    [GD_GS_DL1_REPLACEMENT] = {"gpgpu_cache:dl1", "replacement (L=0, F=1, random=2)"},
    [GD_GS_DL1_MSHR] = {"gpgpu_cache:dl1", "MSHR entries"},
    [GD_GS_DL1_MERGE] = {"gpgpu_cache:dl1", "MSHR max merges"},
    [GD_GS_L1_LATENCY] = {"gpgpu_l1_latency", "cycles"},
    [GD_GS_ROP_LATENCY] = {"gpgpu_l2_rop_latency", "cycles"},
    [GD_GS_DRAM_LATENCY] = {"dram_latency", "cycles"},
    [GD_GS_DL2_SIZE] = {"gpgpu_cache:dl2", "total size (x n_mem x sub-partitions), bytes"},
    [GD_GS_DL2_GRANULE] = {"gpgpu_cache:dl2", "fetch granule (32 sectored, else line), bytes"},
    [GD_GS_SMEM_BANKS] = {"gpgpu_shmem_num_banks", "banks"},
    [GD_GS_SMEM_LATENCY] = {"gpgpu_smem_latency", "cycles"},
    [GD_GS_L1C_SIZE] = {"gpgpu_const_cache:l1", "size, bytes"},
    [GD_GS_L1C_LINE] = {"gpgpu_const_cache:l1", "line, bytes"},
    [GD_GS_L1C_WAYS] = {"gpgpu_const_cache:l1", "ways"},
};

const char *gd_gs_field_option(gd_gs_field f)
{
    return gs_fields[f].option;
}

const char *gd_gs_field_what(gd_gs_field f)
{
    return gs_fields[f].what;
}

static void set_value(gd_gs_value *v, double value, double confidence, const char *from)
{
    v->has = 1;
    v->value = value;
    v->confidence = confidence;
    snprintf(v->from, sizeof v->from, "%s", from ? from : "");
}

void gd_gs_measured(const gd_inference *inf, gd_gs_value out[GD_GS_FIELD_COUNT])
{
    memset(out, 0, sizeof(gd_gs_value) * GD_GS_FIELD_COUNT);
    const gd_inferred_level *l1 = &inf->level[GD_INF_L1D], *l2 = &inf->level[GD_INF_L2];
    const gd_inferred_level *dram = &inf->level[GD_INF_DRAM], *smem = &inf->level[GD_INF_SMEM];
    const gd_inferred_level *l1c = &inf->level[GD_INF_L1C];
    if (l1->present && l1->has_size) {
        set_value(&out[GD_GS_DL1_SIZE], (double)l1->size_bytes, l1->size_confidence, l1->size_from);
        out[GD_GS_DL1_SIZE].lower_bound = l1->size_is_lower_bound;
    }
    if (l1->present && l1->has_alloc_line) {
        set_value(&out[GD_GS_DL1_LINE], (double)l1->alloc_line_bytes, l1->alloc_line_confidence,
                  l1->alloc_line_from);
        if (l1->has_sector)
            set_value(&out[GD_GS_DL1_SECTORED], l1->alloc_line_bytes > l1->sector_bytes ? 1 : 0,
                      fmin(l1->alloc_line_confidence, l1->sector_confidence), l1->alloc_line_from);
    }
    if (l1->present && l1->has_ways)
        set_value(&out[GD_GS_DL1_WAYS], l1->ways, l1->ways_confidence, l1->ways_from);
    if (l1->present && l1->has_replacement) {
        double code = l1->replacement == GD_REPL_LRU ? 0 : l1->replacement == GD_REPL_FIFO ? 1 : 2;
        set_value(&out[GD_GS_DL1_REPLACEMENT], code, l1->replacement_confidence, l1->replacement_from);
        out[GD_GS_DL1_REPLACEMENT].lru_or_fifo = l1->replacement_lru_or_fifo;
    }
    if (l1->present && l1->has_mshr) {
        set_value(&out[GD_GS_DL1_MSHR], l1->mshr_entries, l1->mshr_confidence, l1->mshr_from);
        out[GD_GS_DL1_MSHR].lower_bound = l1->mshr_is_lower_bound;
    }
    if (l1->present && l1->has_mshr_merge) {
        set_value(&out[GD_GS_DL1_MERGE], l1->mshr_merge, l1->mshr_merge_confidence, l1->mshr_merge_from);
        out[GD_GS_DL1_MERGE].lower_bound = l1->mshr_merge_is_lower_bound;
    }
    int has_l1 = l1->present && l1->has_latency, has_l2 = l2->present && l2->has_latency;
    if (has_l1)
        set_value(&out[GD_GS_L1_LATENCY], l1->latency_cycles - GD_GS_L1_OFFSET_CYCLES,
                  l1->latency_confidence, l1->latency_from);
    if (has_l1 && has_l2)
        set_value(&out[GD_GS_ROP_LATENCY],
                  l2->latency_cycles - l1->latency_cycles -
                      (GD_GS_L2_OFFSET_CYCLES - GD_GS_L1_OFFSET_CYCLES),
                  fmin(l1->latency_confidence, l2->latency_confidence), l2->latency_from);
    if (has_l2 && dram->present && dram->has_latency)
        set_value(&out[GD_GS_DRAM_LATENCY],
                  dram->latency_cycles - l2->latency_cycles -
                      (GD_GS_DRAM_OFFSET_CYCLES - GD_GS_L2_OFFSET_CYCLES),
                  fmin(dram->latency_confidence, l2->latency_confidence), dram->latency_from);
    if (l2->present && l2->has_size) {
        set_value(&out[GD_GS_DL2_SIZE], (double)l2->size_bytes, l2->size_confidence, l2->size_from);
        out[GD_GS_DL2_SIZE].lower_bound = l2->size_is_lower_bound;
    }
    if (l2->present && l2->has_sector)
        set_value(&out[GD_GS_DL2_GRANULE], (double)l2->sector_bytes, l2->sector_confidence, l2->sector_from);
    if (smem->present && smem->has_banks)
        set_value(&out[GD_GS_SMEM_BANKS], smem->banks, smem->banks_confidence, smem->banks_from);
    if (smem->present && smem->has_latency)
        set_value(&out[GD_GS_SMEM_LATENCY], smem->latency_cycles - GD_GS_SMEM_OFFSET_CYCLES,
                  smem->latency_confidence, smem->latency_from);
    if (l1c->present && l1c->has_size) {
        set_value(&out[GD_GS_L1C_SIZE], (double)l1c->size_bytes, l1c->size_confidence, l1c->size_from);
        out[GD_GS_L1C_SIZE].lower_bound = l1c->size_is_lower_bound;
    }
    if (l1c->present && l1c->has_sector)
        set_value(&out[GD_GS_L1C_LINE], (double)l1c->sector_bytes, l1c->sector_confidence, l1c->sector_from);
    if (l1c->present && l1c->has_ways) {
        set_value(&out[GD_GS_L1C_WAYS], l1c->ways, l1c->ways_confidence, l1c->ways_from);
        out[GD_GS_L1C_WAYS].lower_bound = l1c->ways_is_lower_bound;
    }
}

static int config_uint(gd_gs_config *cfg, const char *name, uint64_t fallback, uint64_t *out,
                       gd_err *err)
{
    int rc = gd_gs_uint(cfg, name, 0, out, err);
    if (rc == 0)
        *out = fallback;
    return rc < 0 ? -1 : 0;
}

int gd_gs_config_values(gd_gs_config *cfg, gd_gs_value out[GD_GS_FIELD_COUNT], gd_err *err)
{
    memset(out, 0, sizeof(gd_gs_value) * GD_GS_FIELD_COUNT);
    gd_gs_cache dl1, dl2, l1c;
    int rc1 = gd_gs_cache_option(cfg, "gpgpu_cache:dl1", &dl1, err);
    if (rc1 < 0)
        return -1;
    int rc2 = gd_gs_cache_option(cfg, "gpgpu_cache:dl2", &dl2, err);
    if (rc2 < 0)
        return -1;
    int rc3 = gd_gs_cache_option(cfg, "gpgpu_const_cache:l1", &l1c, err);
    if (rc3 < 0)
        return -1;
    const char *src = cfg->file;
    if (rc1 > 0) {
        set_value(&out[GD_GS_DL1_SIZE], (double)gd_gs_cache_bytes(&dl1), 1, src);
        set_value(&out[GD_GS_DL1_LINE], dl1.line_bytes, 1, src);
        set_value(&out[GD_GS_DL1_SECTORED], dl1.type == 'S', 1, src);
        set_value(&out[GD_GS_DL1_WAYS], dl1.ways, 1, src);
        set_value(&out[GD_GS_DL1_REPLACEMENT], dl1.replacement == 'F', 1, src);
        set_value(&out[GD_GS_DL1_MSHR], dl1.mshr_entries, 1, src);
        set_value(&out[GD_GS_DL1_MERGE], dl1.mshr_merge, 1, src);
    }
    uint64_t l1_lat, rop, dram, n_mem, subparts, banks, smem_lat;
    int h1 = gd_gs_uint(cfg, "gpgpu_l1_latency", 0, &l1_lat, err);
    int h2 = gd_gs_uint(cfg, "gpgpu_l2_rop_latency", 0, &rop, err);
    int h3 = gd_gs_uint(cfg, "dram_latency", 0, &dram, err);
    int h4 = gd_gs_uint(cfg, "gpgpu_shmem_num_banks", 0, &banks, err);
    int h5 = gd_gs_uint(cfg, "gpgpu_smem_latency", 0, &smem_lat, err);
    if (h1 < 0 || h2 < 0 || h3 < 0 || h4 < 0 || h5 < 0 ||
        config_uint(cfg, "gpgpu_n_mem", 0, &n_mem, err) ||
        config_uint(cfg, "gpgpu_n_sub_partition_per_mchannel", 1, &subparts, err))
        return -1;
    if (h1)
        set_value(&out[GD_GS_L1_LATENCY], (double)l1_lat, 1, src);
    if (h2)
        set_value(&out[GD_GS_ROP_LATENCY], (double)rop, 1, src);
    if (h3)
        set_value(&out[GD_GS_DRAM_LATENCY], (double)dram, 1, src);
    if (h4)
        set_value(&out[GD_GS_SMEM_BANKS], (double)banks, 1, src);
    if (h5)
        set_value(&out[GD_GS_SMEM_LATENCY], (double)smem_lat, 1, src);
    if (rc2 > 0) {
        if (n_mem)
            set_value(&out[GD_GS_DL2_SIZE], (double)(gd_gs_cache_bytes(&dl2) * n_mem * subparts), 1, src);
        set_value(&out[GD_GS_DL2_GRANULE], dl2.type == 'S' ? GD_GS_SECTOR_BYTES : dl2.line_bytes, 1, src);
    }
    if (rc3 > 0) {
        set_value(&out[GD_GS_L1C_SIZE], (double)gd_gs_cache_bytes(&l1c), 1, src);
        set_value(&out[GD_GS_L1C_LINE], l1c.line_bytes, 1, src);
        set_value(&out[GD_GS_L1C_WAYS], l1c.ways, 1, src);
    }
    return 0;
}

int gd_gs_load_inference(const char *run_dir, gd_inference *inf, gd_err *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/inferred.json", run_dir);
    gd_err load_err;
    json_t *doc = gd_json_load(path, 0, &load_err);
    if (!doc)
        return gd_fail(err, "%s (run `gpudissect characterize` or `infer` first)", load_err.msg);
    int rc = gd_inference_from_json(doc, inf, path, err);
    json_decref(doc);
    return rc;
}

/* ---- export ---- */

/* Cache-string fields a config without --base takes: GPGPU-Sim's recent tested
 * configs (SM75_RTX2060, SM86_RTX3070: dl1 L:T:m:L:L,A:...,16:0,32). */
static const gd_gs_cache gs_default_dl1 = {
    .fields = 15, .type = 'S', .sets = 4, .line_bytes = 128, .ways = 64, .replacement = 'L',
    .write_policy = 'T', .allocation = 'm', .write_allocate = 'L', .set_index = 'L',
    .mshr_type = 'A', .mshr_entries = 256, .mshr_merge = 32, .miss_queue = 16, .result_fifo = 0,
    .port_bytes = 32};

static void cache_format(const gd_gs_cache *c, char *buf, size_t bytes)
{
    int n = snprintf(buf, bytes, "%c:%u:%u:%u,%c:%c:%c:%c:%c,%c:%u:%u", c->type, c->sets,
                     c->line_bytes, c->ways, c->replacement, c->write_policy, c->allocation,
                     c->write_allocate, c->set_index, c->mshr_type, c->mshr_entries, c->mshr_merge);
    if (n < 0 || (size_t)n >= bytes)
        return;
    if (c->fields >= 13)
        n += snprintf(buf + n, bytes - (size_t)n, ",%u", c->miss_queue);
    if (c->fields >= 14 && (size_t)n < bytes)
        n += snprintf(buf + n, bytes - (size_t)n, ":%u", c->result_fifo);
    if (c->fields >= 15 && (size_t)n < bytes)
        snprintf(buf + n, bytes - (size_t)n, ",%u", c->port_bytes);
}

/* One exported option: its new value and the comment lines above it. */
typedef struct gs_line {
    char option[64];
    char value[512];
    char comment[1024];
} gs_line;

typedef struct gs_lines {
    gs_line items[16];
    unsigned count;
} gs_lines;

static gs_line *lines_add(gs_lines *ls, const char *option)
{
    if (ls->count == sizeof ls->items / sizeof ls->items[0])
        return NULL;
    gs_line *l = &ls->items[ls->count++];
    memset(l, 0, sizeof *l);
    snprintf(l->option, sizeof l->option, "%s", option);
    return l;
}

static void comment_add(gs_line *l, const char *fmt_what, const gd_gs_value *v, double shown)
{
    size_t used = strlen(l->comment);
    snprintf(l->comment + used, sizeof l->comment - used,
             "# %s: measured %s%.10g (confidence %.2f, probe %s)\n", fmt_what,
             v->lower_bound ? ">= " : "", shown, v->confidence, v->from[0] ? v->from : "-");
}

static int usable(const gd_gs_value *v)
{
    return v->has && !v->lower_bound;
}

static void export_latency(gs_lines *ls, const gd_gs_value *m, gd_gs_field f, const char *how)
{
    if (!usable(&m[f]))
        return;
    gs_line *l = lines_add(ls, gd_gs_field_option(f));
    if (!l)
        return;
    comment_add(l, how, &m[f], m[f].value);
    snprintf(l->value, sizeof l->value, "%ld", lround(m[f].value));
}

/* dl1: the measured geometry, policy and MSHRs over the base's other fields. */
static void export_dl1(gs_lines *ls, const gd_gs_value *m, gd_gs_config *base)
{
    gd_gs_cache c = gs_default_dl1;
    gd_err ignored;
    int from_base = base && gd_gs_cache_option(base, "gpgpu_cache:dl1", &c, &ignored) > 0;
    if (!from_base)
        c = gs_default_dl1;
    gs_line *l = lines_add(ls, "gpgpu_cache:dl1");
    if (!l)
        return;
    int changed = 0;
    if (usable(&m[GD_GS_DL1_SECTORED])) {
        c.type = m[GD_GS_DL1_SECTORED].value > 0.5 ? 'S' : 'N';
        comment_add(l, "sectored", &m[GD_GS_DL1_SECTORED], m[GD_GS_DL1_SECTORED].value);
        changed++;
    }
    if (usable(&m[GD_GS_DL1_LINE])) {
        c.line_bytes = (uint32_t)m[GD_GS_DL1_LINE].value;
        comment_add(l, "line", &m[GD_GS_DL1_LINE], m[GD_GS_DL1_LINE].value);
        changed++;
    }
    if (usable(&m[GD_GS_DL1_WAYS])) {
        c.ways = (uint32_t)m[GD_GS_DL1_WAYS].value;
        comment_add(l, "ways", &m[GD_GS_DL1_WAYS], m[GD_GS_DL1_WAYS].value);
        changed++;
    }
    if (usable(&m[GD_GS_DL1_SIZE])) {
        uint64_t per_set = (uint64_t)c.line_bytes * c.ways;
        uint64_t size = (uint64_t)m[GD_GS_DL1_SIZE].value;
        comment_add(l, "size, bytes", &m[GD_GS_DL1_SIZE], m[GD_GS_DL1_SIZE].value);
        if (per_set && size % per_set == 0 && size / per_set > 0) {
            c.sets = (uint32_t)(size / per_set);
            changed++;
        } else {
            size_t used = strlen(l->comment);
            snprintf(l->comment + used, sizeof l->comment - used,
                     "#   (not a whole number of sets of %u ways x %u B: sets left as they were)\n",
                     c.ways, c.line_bytes);
        }
    }
    const gd_gs_value *r = &m[GD_GS_DL1_REPLACEMENT];
    if (usable(r)) {
        comment_add(l, r->lru_or_fifo ? "replacement (LRU or FIFO: letter kept)" : "replacement (0 L, 1 F, 2 random)",
                    r, r->value);
        if (!r->lru_or_fifo && r->value < 1.5) {
            c.replacement = r->value < 0.5 ? 'L' : 'F';
            changed++;
        }
    }
    if (usable(&m[GD_GS_DL1_MSHR])) {
        c.mshr_entries = (uint32_t)m[GD_GS_DL1_MSHR].value;
        comment_add(l, "MSHR entries", &m[GD_GS_DL1_MSHR], m[GD_GS_DL1_MSHR].value);
        changed++;
    } else if (m[GD_GS_DL1_MSHR].has) {
        comment_add(l, "MSHR entries (a lower bound: left as they were)", &m[GD_GS_DL1_MSHR],
                    m[GD_GS_DL1_MSHR].value);
    }
    if (usable(&m[GD_GS_DL1_MERGE])) {
        c.mshr_merge = (uint32_t)m[GD_GS_DL1_MERGE].value;
        comment_add(l, "MSHR merges", &m[GD_GS_DL1_MERGE], m[GD_GS_DL1_MERGE].value);
        changed++;
    }
    if (!changed) {
        ls->count--;
        return;
    }
    char unmeasured[128] = "";
    static const struct {
        gd_gs_field field;
        const char *name;
    } geometry[] = {{GD_GS_DL1_SECTORED, "type"}, {GD_GS_DL1_LINE, "line"}, {GD_GS_DL1_WAYS, "ways"},
                    {GD_GS_DL1_SIZE, "sets"}, {GD_GS_DL1_MSHR, "MSHRs"}, {GD_GS_DL1_MERGE, "merges"}};
    for (size_t i = 0; i < sizeof geometry / sizeof geometry[0]; i++)
        if (!usable(&m[geometry[i].field])) {
            size_t u = strlen(unmeasured);
            snprintf(unmeasured + u, sizeof unmeasured - u, "%s, ", geometry[i].name);
        }
    size_t used = strlen(l->comment);
    snprintf(l->comment + used, sizeof l->comment - used,
             "#   fields not measured (%swrite policy, allocation, index, miss queue, port) from %s\n",
             unmeasured, from_base ? "--base" : "GPGPU-Sim's tested SM75/SM86 configs");
    cache_format(&c, l->value, sizeof l->value);
}

/* dl2 and the constant cache: sets from the measured size, with the measured
 * ways where a probe measured them (ways_field: the constant cache's,
 * const_fine), else the base's (and for dl2 its partitions). */
static void export_sets(gs_lines *ls, const gd_gs_value *m, gd_gs_config *base, const char *option,
                        gd_gs_field size_field, gd_gs_field line_field, gd_gs_field ways_field,
                        int partitioned)
{
    if (!usable(&m[size_field]))
        return;
    gs_line *l = lines_add(ls, option);
    if (!l)
        return;
    comment_add(l, "size, bytes", &m[size_field], m[size_field].value);
    if (m[line_field].has)
        comment_add(l, gd_gs_field_what(line_field), &m[line_field], m[line_field].value);
    int ways_measured = ways_field < GD_GS_FIELD_COUNT && usable(&m[ways_field]);
    if (ways_measured)
        comment_add(l, "ways", &m[ways_field], m[ways_field].value);
    gd_gs_cache c;
    gd_err ignored;
    if (!base || gd_gs_cache_option(base, option, &c, &ignored) <= 0) {
        size_t used = strlen(l->comment);
        if (ways_measured)
            snprintf(l->comment + used, sizeof l->comment - used,
                     "#   (its other fields are not measured: give --base to write the string)\n");
        else
            snprintf(l->comment + used, sizeof l->comment - used,
                     "#   (the ways%s are not measured: give --base to write the string)\n",
                     partitioned ? " and memory partitions" : "");
        l->value[0] = 0;
        return;
    }
    if (ways_measured)
        c.ways = (uint32_t)m[ways_field].value;
    uint64_t parts = 1;
    if (partitioned) {
        uint64_t n_mem = 0, sub = 1;
        gd_gs_uint(base, "gpgpu_n_mem", 0, &n_mem, &ignored);
        gd_gs_uint(base, "gpgpu_n_sub_partition_per_mchannel", 0, &sub, &ignored);
        parts = n_mem * sub;
    }
    uint64_t per_set = (uint64_t)c.line_bytes * c.ways * parts;
    uint64_t size = (uint64_t)m[size_field].value;
    if (!per_set || size % per_set) {
        size_t used = strlen(l->comment);
        snprintf(l->comment + used, sizeof l->comment - used,
                 "#   (not a whole number of sets of %u ways x %u B x %llu partitions: left as it was)\n",
                 c.ways, c.line_bytes, (unsigned long long)parts);
    } else {
        c.sets = (uint32_t)(size / per_set);
    }
    cache_format(&c, l->value, sizeof l->value);
}

static void export_lines(gs_lines *ls, const gd_gs_value *m, gd_gs_config *base)
{
    export_dl1(ls, m, base);
    char how[160];
    snprintf(how, sizeof how, "L1 hit - %d (GPGPU-Sim's L1 offset)", GD_GS_L1_OFFSET_CYCLES);
    export_latency(ls, m, GD_GS_L1_LATENCY, how);
    snprintf(how, sizeof how, "L2 hit - L1 hit - %d (GPGPU-Sim's L2 offset less its L1 offset)",
             GD_GS_L2_OFFSET_CYCLES - GD_GS_L1_OFFSET_CYCLES);
    export_latency(ls, m, GD_GS_ROP_LATENCY, how);
    snprintf(how, sizeof how, "DRAM - L2 hit - %d (GPGPU-Sim's DRAM offset less its L2 offset)",
             GD_GS_DRAM_OFFSET_CYCLES - GD_GS_L2_OFFSET_CYCLES);
    export_latency(ls, m, GD_GS_DRAM_LATENCY, how);
    export_sets(ls, m, base, "gpgpu_cache:dl2", GD_GS_DL2_SIZE, GD_GS_DL2_GRANULE,
                GD_GS_FIELD_COUNT, 1);
    export_latency(ls, m, GD_GS_SMEM_BANKS, "shared-memory banks");
    export_latency(ls, m, GD_GS_SMEM_LATENCY, "shared-memory no-conflict latency");
    export_sets(ls, m, base, "gpgpu_const_cache:l1", GD_GS_L1C_SIZE, GD_GS_L1C_LINE, GD_GS_L1C_WAYS,
                0);
}

/* The base config with the measured options' lines replaced, and the diff. */
static int export_with_base(const gs_lines *ls, gd_gs_config *base, const char *base_path,
                            gd_text *out, gd_text *diff, gd_err *err)
{
    size_t bytes = 0;
    char *text = gd_read_file(base_path, &bytes, err);
    if (!text)
        return -1;
    int line_no = 1;
    char *p = text;
    while (*p) {
        char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        const gs_line *replace = NULL;
        for (unsigned i = 0; i < ls->count; i++) {
            const gd_gs_option *o = gd_gs_find(base, ls->items[i].option);
            if (o && o->line == line_no && ls->items[i].value[0] && strcmp(o->value, ls->items[i].value))
                replace = &ls->items[i];
        }
        if (replace) {
            gd_text_printf(out, "%s-%s %s\n", replace->comment, replace->option, replace->value);
            gd_text_printf(diff, "@@ %s:%d\n-%.*s\n+-%s %s\n", base->file, line_no, (int)len, p,
                           replace->option, replace->value);
        } else {
            gd_text_printf(out, "%.*s\n", (int)len, p);
        }
        p += len + (nl ? 1 : 0);
        line_no++;
    }
    for (unsigned i = 0; i < ls->count; i++)
        if (!gd_gs_find(base, ls->items[i].option) && ls->items[i].value[0]) {
            gd_text_printf(out, "%s-%s %s\n", ls->items[i].comment, ls->items[i].option,
                           ls->items[i].value);
            gd_text_printf(diff, "@@ %s: end\n+-%s %s\n", base->file, ls->items[i].option,
                           ls->items[i].value);
        }
    free(text);
    return 0;
}

int gd_gs_export_run(const char *run_dir, const char *base_path, gd_gs_export *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    gd_inference inf;
    if (gd_gs_load_inference(run_dir, &inf, err) != 0)
        return -1;
    gd_gs_value m[GD_GS_FIELD_COUNT];
    gd_gs_measured(&inf, m);
    gd_gs_config base;
    memset(&base, 0, sizeof base);
    if (base_path && gd_gs_config_load(base_path, &base, err) != 0)
        return -1;
    gs_lines ls;
    memset(&ls, 0, sizeof ls);
    export_lines(&ls, m, base_path ? &base : NULL);
    gd_text t, diff;
    gd_text_init(&t);
    gd_text_init(&diff);
    int rc = 0;
    if (base_path) {
        rc = export_with_base(&ls, &base, base_path, &t, &diff, err);
    } else {
        gd_text_printf(&t, "# gpudissect export-config %s: the options its measurements determine\n"
                           "# (latencies less GPGPU-Sim's per-level offsets: L1 %d, L2 %d, DRAM %d cycles)\n",
                       run_dir, GD_GS_L1_OFFSET_CYCLES, GD_GS_L2_OFFSET_CYCLES, GD_GS_DRAM_OFFSET_CYCLES);
        for (unsigned i = 0; i < ls.count; i++) {
            if (ls.items[i].value[0])
                gd_text_printf(&t, "%s-%s %s\n", ls.items[i].comment, ls.items[i].option,
                               ls.items[i].value);
            else
                gd_text_printf(&t, "%s# -%s: not written\n", ls.items[i].comment, ls.items[i].option);
        }
    }
    for (unsigned i = 0; i < ls.count; i++)
        out->measured_options += ls.items[i].value[0] != 0;
    gd_gs_config_free(&base);
    if (rc == 0 && (t.failed || diff.failed))
        rc = gd_fail(err, "export-config: out of memory");
    if (rc != 0) {
        gd_text_free(&t);
        gd_text_free(&diff);
        return -1;
    }
    out->config_text = t.data ? t.data : strdup("");
    out->diff_text = base_path ? (diff.data ? diff.data : strdup("")) : NULL;
    if (!base_path)
        gd_text_free(&diff);
    return 0;
}

void gd_gs_export_free(gd_gs_export *e)
{
    free(e->config_text);
    free(e->diff_text);
    e->config_text = e->diff_text = NULL;
}
