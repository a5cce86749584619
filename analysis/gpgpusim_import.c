/* gpgpusim_import.c -- from a gpgpusim.config to an arch text.
 *
 * The mapping, option by option (each value's comment cites it):
 *   [gpu]  sms = -gpgpu_n_clusters x -gpgpu_n_cores_per_cluster; subpartitions =
 *          -gpgpu_num_sched_per_core; clock_mhz = the core clock of
 *          -gpgpu_clock_domains; warps and CTAs per SM from
 *          -gpgpu_shader_core_pipeline and -gpgpu_shader_cta; alu_latency = the
 *          first of -ptx_opcode_latency_int; shared_per_block =
 *          -gpgpu_shmem_per_block; compute_capability from
 *          -gpgpu_compute_capability_major/minor (7.5 at least: the oldest
 *          target ptxas 13 accepts, which the probes' PTX names).
 *   [L1D]  -gpgpu_cache:dl1 (sets x line x ways, sectored, LRU/FIFO, MSHRs and
 *          merges, miss queue), latency = -gpgpu_l1_latency + the L1 offset.
 *   [SMEM] -gpgpu_shmem_size, -gpgpu_shmem_num_banks, -gpgpu_smem_latency.
 *   [L1C]  -gpgpu_const_cache:l1, latency that of the L1 (GPGPU-Sim has no
 *          constant-cache latency option).
 *   [L2]   -gpgpu_cache:dl2 x -gpgpu_n_mem x -gpgpu_n_sub_partition_per_mchannel
 *          (sets, MSHRs and request ports per sub-partition, summed);
 *          latency = l1 + -gpgpu_l2_rop_latency + the L2 offset.
 *   [DRAM] latency = l1 + rop + -dram_latency + the DRAM offset; requests per
 *          cycle = -gpgpu_n_mem.
 * The offsets (gpgpusim_config.h) make the arch latency what GPGPU-Sim
 * measures on a pointer chase, which is what an arch latency means.
 *
 * What the simulator does not model is written as comments at the end, option
 * by option: policy letters it ignores (write policy, allocation, set-index
 * hash, ports), the adaptive L1 carve-out, the instruction and texture caches,
 * DRAM timing and scheduling, and every other option of the file.
 */
#include "analysis/gpgpusim_import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/results.h"

#define GS_MIN_CC_MAJOR 7  /* ptxas 13 targets sm_75 and later: the probes' PTX */
#define GS_MIN_CC_MINOR 5
#define GS_MAX_SUBPARTITIONS 8 /* what the arch format accepts */
#define GS_MAX_WARPS_PER_SM 64
#define GS_WARP_THREADS 32
#define GS_COMMENT_CHARS 150 /* arch lines stay under 200 characters */

void gd_gs_config_name(const char *path, char *name, size_t name_bytes)
{
    const char *base = strrchr(path, '/');
    const char *file = base ? base + 1 : path;
    if (!strcmp(file, "gpgpusim.config") && base && base > path) {
        const char *dir = base - 1;
        while (dir > path && dir[-1] != '/')
            dir--;
        snprintf(name, name_bytes, "%.*s", (int)(base - dir), dir);
    } else {
        snprintf(name, name_bytes, "%s", file);
        char *dot = strrchr(name, '.');
        if (dot && !strcmp(dot, ".config"))
            *dot = 0;
    }
    if (!name[0])
        snprintf(name, name_bytes, "gpgpusim");
}

int gd_gs_is_config_path(const char *path)
{
    size_t n = strlen(path);
    return n > 7 && !strcmp(path + n - 7, ".config");
}

/* "key = value ; FILE:LINE -option value" */
static void kv(gd_text *t, const gd_gs_config *cfg, const char *key, const char *value,
               const char *option, const char *note)
{
    char comment[512];
    const gd_gs_option *o = option ? gd_gs_find(cfg, option) : NULL;
    if (o)
        snprintf(comment, sizeof comment, "%s:%d -%s %s%s%s", cfg->file, o->line, o->name, o->value,
                 note ? ": " : "", note ? note : "");
    else if (option)
        snprintf(comment, sizeof comment, "-%s absent: GPGPU-Sim's default%s%s", option,
                 note ? ": " : "", note ? note : "");
    else
        snprintf(comment, sizeof comment, "%s", note ? note : "");
    if (strlen(comment) > GS_COMMENT_CHARS)
        snprintf(comment + GS_COMMENT_CHARS - 3, 4, "...");
    gd_text_printf(t, "%-12s = %-14s ; %s\n", key, value, comment);
}

static void kv_u(gd_text *t, const gd_gs_config *cfg, const char *key, uint64_t value,
                 const char *option, const char *note)
{
    char v[32];
    snprintf(v, sizeof v, "%llu", (unsigned long long)value);
    kv(t, cfg, key, v, option, note);
}

/* GPGPU-Sim's built-in defaults (the option registrations of
 * src/gpgpu-sim/gpu-sim.cc, dev branch) for the options the importer reads:
 * a config that omits one runs with these, so the import does too and its
 * comment says so. */
static const struct {
    const char *name;
    uint64_t value;
} gs_defaults[] = {
    {"gpgpu_n_clusters", 10},        {"gpgpu_n_cores_per_cluster", 3},
    {"gpgpu_n_mem", 8},              {"gpgpu_n_sub_partition_per_mchannel", 1},
    {"gpgpu_num_sched_per_core", 1}, {"gpgpu_clock_domains", 500},
    {"gpgpu_l1_latency", 1},         {"gpgpu_l2_rop_latency", 85},
    {"dram_latency", 30},            {"gpgpu_shmem_size", 16384},
    {"gpgpu_shmem_num_banks", 16},   {"gpgpu_smem_latency", 3},
    {"gpgpu_shader_core_pipeline", 1024}, {"gpgpu_shader_cta", 32},
    {"gpgpu_shmem_per_block", 49152}, {"ptx_opcode_latency_int", 4},
    {"gpgpu_compute_capability_major", 7}, {"gpgpu_compute_capability_minor", 0},
};
#define GS_DEFAULT_DL2 "S:32:128:24,L:B:m:L:P,A:192:4,32:0,32" /* gpu-sim.cc's default dl2 */

/* An integer option, or GPGPU-Sim's default when the config omits it. */
static int gs_value(gd_gs_config *cfg, const char *name, int first, uint64_t *out, gd_err *err)
{
    int rc = gd_gs_uint(cfg, name, first, out, err);
    if (rc < 0)
        return -1;
    if (rc == 1)
        return 0;
    for (size_t i = 0; i < sizeof gs_defaults / sizeof gs_defaults[0]; i++)
        if (!strcmp(gs_defaults[i].name, name)) {
            *out = gs_defaults[i].value;
            return 0;
        }
    return gd_fail(err, "%s: -%s: missing, and no default known", cfg->path, name);
}

static int need_cache(gd_gs_config *cfg, const char *name, gd_gs_cache *c, gd_err *err)
{
    int rc = gd_gs_cache_option(cfg, name, c, err);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        const gd_gs_option *o = gd_gs_find(cfg, name);
        if (o)
            return gd_fail(err, "%s:%d: -%s: disabled ('none'), but the simulator needs this cache",
                           cfg->path, o->line, name);
        return gd_fail(err, "%s: -%s: missing (the simulator needs this cache)", cfg->path, name);
    }
    return 0;
}

static const char *repl_name(char r)
{
    return r == 'F' ? "fifo" : "lru";
}

/* The fields of a cache string the simulator does not model, as one line. */
static void cache_unmodelled(gd_text *t, const gd_gs_config *cfg, const char *option,
                             const gd_gs_cache *c, const char *extra)
{
    const gd_gs_option *o = gd_gs_find(cfg, option);
    gd_text_printf(t, ";   -%s (line %d): write policy '%c', allocation '%c', write-allocate '%c', "
                      "set index '%c'%s, MSHR type '%c', result FIFO %u, port %u B: not modelled%s%s\n",
                   option, o ? o->line : 0, c->write_policy, c->allocation, c->write_allocate,
                   c->set_index, c->set_index != 'L' ? " (the sim indexes sets linearly)" : "",
                   c->mshr_type, c->result_fifo, c->port_bytes, extra ? "; " : "", extra ? extra : "");
}

int gd_gs_import(gd_gs_config *cfg, const char *name, char **arch_text, gd_err *err)
{
    *arch_text = NULL;
    char short_name[128];
    if (!name) {
        gd_gs_config_name(cfg->path, short_name, sizeof short_name);
        name = short_name;
    }
    uint64_t clusters, cores, n_mem, subparts, sched, clock, l1_lat, rop_lat, dram_lat;
    uint64_t smem_bytes, smem_banks, smem_lat, pipeline, ctas, alu, per_block, cc_major, cc_minor;
    gd_gs_cache dl1, dl2, l1c;
    if (gs_value(cfg, "gpgpu_n_clusters", 0, &clusters, err) ||
        gs_value(cfg, "gpgpu_n_cores_per_cluster", 0, &cores, err) ||
        gs_value(cfg, "gpgpu_n_mem", 0, &n_mem, err) ||
        gs_value(cfg, "gpgpu_n_sub_partition_per_mchannel", 0, &subparts, err) ||
        gs_value(cfg, "gpgpu_num_sched_per_core", 0, &sched, err) ||
        gs_value(cfg, "gpgpu_clock_domains", 1, &clock, err) ||
        gs_value(cfg, "gpgpu_l1_latency", 0, &l1_lat, err) ||
        gs_value(cfg, "gpgpu_l2_rop_latency", 0, &rop_lat, err) ||
        gs_value(cfg, "dram_latency", 0, &dram_lat, err) ||
        gs_value(cfg, "gpgpu_shmem_size", 0, &smem_bytes, err) ||
        gs_value(cfg, "gpgpu_shmem_num_banks", 0, &smem_banks, err) ||
        gs_value(cfg, "gpgpu_smem_latency", 0, &smem_lat, err) ||
        gs_value(cfg, "gpgpu_shader_core_pipeline", 1, &pipeline, err) ||
        gs_value(cfg, "gpgpu_shader_cta", 0, &ctas, err) ||
        gs_value(cfg, "ptx_opcode_latency_int", 1, &alu, err) ||
        gs_value(cfg, "gpgpu_shmem_per_block", 0, &per_block, err) ||
        gs_value(cfg, "gpgpu_compute_capability_major", 0, &cc_major, err) ||
        gs_value(cfg, "gpgpu_compute_capability_minor", 0, &cc_minor, err) ||
        need_cache(cfg, "gpgpu_cache:dl1", &dl1, err) ||
        (gd_gs_find(cfg, "gpgpu_cache:dl2") ? need_cache(cfg, "gpgpu_cache:dl2", &dl2, err)
                                            : gd_gs_cache_parse(GS_DEFAULT_DL2, "GPGPU-Sim's default dl2", &dl2, err)) ||
        need_cache(cfg, "gpgpu_const_cache:l1", &l1c, err))
        return -1;
    if (clusters * cores == 0 || n_mem == 0 || subparts == 0)
        return gd_fail(err, "%s: -gpgpu_n_clusters, -gpgpu_n_cores_per_cluster, -gpgpu_n_mem and "
                            "-gpgpu_n_sub_partition_per_mchannel must not be zero",
                       cfg->path);
    if (clock == 0)
        return gd_fail(err, "%s: -gpgpu_clock_domains: the core clock must not be zero", cfg->path);

    gd_text t;
    gd_text_init(&t);
    gd_text_printf(&t, "; %s, imported by gpudissect import-config from %s\n", name, cfg->path);
    gd_text_printf(&t, "; Every value cites its option (FILE:LINE -option value).  Latencies are what\n"
                       "; GPGPU-Sim measures on a pointer chase: the options' sum plus %d (L1), %d (L2),\n"
                       "; %d (DRAM) cycles, as measured on GPGPU-Sim with SM75_RTX2060 by the author of\n"
                       "; gpudissect issue 16 (assumed alike for every config).\n",
                   GD_GS_L1_OFFSET_CYCLES, GD_GS_L2_OFFSET_CYCLES, GD_GS_DRAM_OFFSET_CYCLES);

    char v[64];
    gd_text_printf(&t, "\n[gpu]\n");
    snprintf(v, sizeof v, "%s (GPGPU-Sim)", name);
    gd_text_printf(&t, "name = %s ; %s\n", v, cfg->file);
    int cc_clamped = cc_major * 10 + cc_minor < GS_MIN_CC_MAJOR * 10 + GS_MIN_CC_MINOR;
    snprintf(v, sizeof v, "%u.%u", cc_clamped ? GS_MIN_CC_MAJOR : (unsigned)cc_major,
             cc_clamped ? GS_MIN_CC_MINOR : (unsigned)cc_minor);
    kv(&t, cfg, "compute_capability", v, "gpgpu_compute_capability_major",
       cc_clamped ? "below 7.5, the oldest target ptxas 13 accepts: PTX is emitted for 7.5" : NULL);
    snprintf(v, sizeof v, "x %llu cores per cluster", (unsigned long long)cores);
    kv_u(&t, cfg, "sms", clusters * cores, "gpgpu_n_clusters", v);
    uint64_t sp = sched < 1 ? 1 : sched > GS_MAX_SUBPARTITIONS ? GS_MAX_SUBPARTITIONS : sched;
    kv_u(&t, cfg, "subpartitions", sp, "gpgpu_num_sched_per_core", NULL);
    kv_u(&t, cfg, "clock_mhz", clock, "gpgpu_clock_domains", "the core clock");
    uint64_t warps = pipeline / GS_WARP_THREADS;
    if (warps < 1)
        warps = 1;
    kv_u(&t, cfg, "max_warps_per_sm", warps > GS_MAX_WARPS_PER_SM ? GS_MAX_WARPS_PER_SM : warps,
         "gpgpu_shader_core_pipeline", "threads / 32");
    kv_u(&t, cfg, "max_ctas_per_sm", ctas ? ctas : 1, "gpgpu_shader_cta", NULL);
    kv_u(&t, cfg, "alu_latency", alu ? alu : 1, "ptx_opcode_latency_int", "ADD");
    if (per_block > smem_bytes)
        per_block = smem_bytes; /* a block cannot have more than the SM */
    kv_u(&t, cfg, "shared_per_block", per_block, "gpgpu_shmem_per_block", "at most -gpgpu_shmem_size");
    gd_text_printf(&t, "seed = 1 ; simulator setting: seed of random replacement\n");

    gd_text_printf(&t, "\n[L1D]\n");
    kv_u(&t, cfg, "size", gd_gs_cache_bytes(&dl1), "gpgpu_cache:dl1", "sets x line x ways");
    kv_u(&t, cfg, "line", dl1.line_bytes, "gpgpu_cache:dl1", NULL);
    kv_u(&t, cfg, "sector", dl1.type == 'S' ? GD_GS_SECTOR_BYTES : dl1.line_bytes, "gpgpu_cache:dl1",
         dl1.type == 'S' ? "sectored" : "not sectored");
    kv_u(&t, cfg, "ways", dl1.ways, "gpgpu_cache:dl1", NULL);
    kv(&t, cfg, "replacement", repl_name(dl1.replacement), "gpgpu_cache:dl1", NULL);
    snprintf(v, sizeof v, "+ %d (GPGPU-Sim's L1 offset)", GD_GS_L1_OFFSET_CYCLES);
    kv_u(&t, cfg, "latency", l1_lat + GD_GS_L1_OFFSET_CYCLES, "gpgpu_l1_latency", v);
    gd_text_printf(&t, "scope = sm ; GPGPU-Sim: one L1D per shader core\n");
    kv_u(&t, cfg, "mshr_entries", dl1.mshr_entries, "gpgpu_cache:dl1", NULL);
    kv_u(&t, cfg, "mshr_merge", dl1.mshr_merge, "gpgpu_cache:dl1", NULL);
    /* the arch needs room for the messages one request sends to the L2 (2 or 4) */
    uint64_t mq = dl1.miss_queue < 4 ? 4 : dl1.miss_queue;
    kv_u(&t, cfg, "miss_queue", mq, "gpgpu_cache:dl1",
         mq != dl1.miss_queue ? "raised to 4, the messages one request can send" : NULL);

    gd_text_printf(&t, "\n[SMEM]\n");
    kv_u(&t, cfg, "size", smem_bytes, "gpgpu_shmem_size", NULL);
    kv_u(&t, cfg, "banks", smem_banks, "gpgpu_shmem_num_banks", NULL);
    kv_u(&t, cfg, "latency", smem_lat + GD_GS_SMEM_OFFSET_CYCLES, "gpgpu_smem_latency",
         "no offset measured for shared memory");

    gd_text_printf(&t, "\n[L1C]\n");
    kv_u(&t, cfg, "size", gd_gs_cache_bytes(&l1c), "gpgpu_const_cache:l1", "sets x line x ways");
    kv_u(&t, cfg, "line", l1c.line_bytes, "gpgpu_const_cache:l1", NULL);
    kv_u(&t, cfg, "ways", l1c.ways, "gpgpu_const_cache:l1", NULL);
    kv(&t, cfg, "replacement", repl_name(l1c.replacement), "gpgpu_const_cache:l1", NULL);
    kv_u(&t, cfg, "latency", l1_lat + GD_GS_L1_OFFSET_CYCLES, "gpgpu_l1_latency",
         "no constant-cache latency option: the L1's");
    gd_text_printf(&t, "scope = sm ; GPGPU-Sim: one constant cache per shader core\n");

    uint64_t parts = n_mem * subparts;
    gd_text_printf(&t, "\n[L2]\n");
    snprintf(v, sizeof v, "x %llu sub-partitions (-gpgpu_n_mem x per channel)", (unsigned long long)parts);
    kv_u(&t, cfg, "size", gd_gs_cache_bytes(&dl2) * parts, "gpgpu_cache:dl2", v);
    kv_u(&t, cfg, "line", dl2.line_bytes, "gpgpu_cache:dl2", NULL);
    kv_u(&t, cfg, "sector", dl2.type == 'S' ? GD_GS_SECTOR_BYTES : dl2.line_bytes, "gpgpu_cache:dl2",
         dl2.type == 'S' ? "sectored" : "not sectored");
    kv_u(&t, cfg, "ways", dl2.ways, "gpgpu_cache:dl2", NULL);
    kv(&t, cfg, "replacement", repl_name(dl2.replacement), "gpgpu_cache:dl2", NULL);
    snprintf(v, sizeof v, "l1 %llu + rop + %d (GPGPU-Sim's L2 offset)", (unsigned long long)l1_lat,
             GD_GS_L2_OFFSET_CYCLES);
    kv_u(&t, cfg, "latency", l1_lat + rop_lat + GD_GS_L2_OFFSET_CYCLES, "gpgpu_l2_rop_latency", v);
    gd_text_printf(&t, "scope = chip ; GPGPU-Sim: the memory partitions serve every core\n");
    kv_u(&t, cfg, "mshr_entries", (uint64_t)dl2.mshr_entries * parts, "gpgpu_cache:dl2", "x sub-partitions");
    kv_u(&t, cfg, "mshr_merge", dl2.mshr_merge, "gpgpu_cache:dl2", NULL);
    kv_u(&t, cfg, "requests_per_cycle", parts, "gpgpu_n_sub_partition_per_mchannel",
         "x -gpgpu_n_mem: one request per sub-partition per cycle");

    gd_text_printf(&t, "\n[DRAM]\n");
    snprintf(v, sizeof v, "L2 %llu + dram + %d (GPGPU-Sim's DRAM offset - %d)",
             (unsigned long long)(l1_lat + rop_lat), GD_GS_DRAM_OFFSET_CYCLES, GD_GS_L2_OFFSET_CYCLES);
    kv_u(&t, cfg, "latency", l1_lat + rop_lat + dram_lat + GD_GS_DRAM_OFFSET_CYCLES, "dram_latency", v);
    gd_text_printf(&t, "scope = chip ; one device memory\n");
    kv_u(&t, cfg, "requests_per_cycle", n_mem, "gpgpu_n_mem", "channels");

    /* What the simulator does not model, by option. */
    gd_text_printf(&t, "\n; ---- not modelled by the simulator (listed, not dropped) ----\n");
    cache_unmodelled(&t, cfg, "gpgpu_cache:dl1", &dl1, NULL);
    cache_unmodelled(&t, cfg, "gpgpu_cache:dl2", &dl2, NULL);
    cache_unmodelled(&t, cfg, "gpgpu_const_cache:l1", &l1c, NULL);
    gd_gs_option *adaptive = gd_gs_find(cfg, "gpgpu_unified_l1d_size");
    if (adaptive)
        gd_text_printf(&t, ";   -gpgpu_unified_l1d_size %s (line %d), -gpgpu_shmem_option, "
                           "-gpgpu_adaptive_cache_config: GPGPU-Sim rescales the dl1 ways per kernel to the\n"
                           ";     carve-out its shared memory leaves; the sim keeps the dl1 string as written "
                           "(%llu B), the L1 GPGPU-Sim showed under the p-chase (issue 16)\n",
                       adaptive->value, adaptive->line, (unsigned long long)gd_gs_cache_bytes(&dl1));
    uint64_t skip_l1 = 0;
    if (gd_gs_uint(cfg, "gpgpu_gmem_skip_L1D", 0, &skip_l1, err) < 0) {
        gd_text_free(&t);
        return -1;
    }
    if (skip_l1)
        gd_text_printf(&t, ";   -gpgpu_gmem_skip_L1D %llu: GPGPU-Sim's global loads bypass the L1 (as ld.cg); the "
                           "sim's ld.ca loads still use it, so its L1 plateau is one GPGPU-Sim would not show\n",
                       (unsigned long long)skip_l1);
    for (size_t i = 0; i < cfg->count; i++) {
        gd_gs_option *o = &cfg->options[i];
        if (o->used || gd_gs_find(cfg, o->name) != o)
            continue;
        if (adaptive && (!strcmp(o->name, "gpgpu_unified_l1d_size") ||
                         !strcmp(o->name, "gpgpu_shmem_option") ||
                         !strcmp(o->name, "gpgpu_adaptive_cache_config")))
            continue;
        char line[256];
        snprintf(line, sizeof line, ";   -%s %s (line %d)", o->name, o->value, o->line);
        gd_text_printf(&t, "%s: not modelled\n", line);
    }
    if (t.failed) {
        gd_text_free(&t);
        return gd_fail(err, "%s: out of memory", cfg->path);
    }
    *arch_text = t.data;
    return 0;
}

int gd_gs_import_file(const char *path, const char *name, char **arch_text, gd_err *err)
{
    gd_gs_config cfg;
    if (gd_gs_config_load(path, &cfg, err) != 0)
        return -1;
    int rc = gd_gs_import(&cfg, name, arch_text, err);
    gd_gs_config_free(&cfg);
    return rc;
}
