/* arch_read.c -- read an arch file (INI, via inih) into a gd_arch.
 *
 * The parser is table-driven: every key that may appear in a section is listed
 * once in `arch_keys` with its type and where it lands in the struct, so adding
 * a parameter is one line here and one field in arch.h.  Unknown sections and
 * keys are errors, not silently ignored: a typo in an arch file would otherwise
 * produce a plausible but wrong simulation.
 *
 * inih does not tell the handler which line it is on (Debian builds it without
 * INI_HANDLER_LINENO), so we feed it through ini_parse_stream with our own line
 * reader that counts lines.  Every error is reported as "FILE:LINE: message".
 * After parsing, `arch_validate` (arch_validate.c) checks the geometry (sizes
 * divide into sets of ways of lines, sectors divide lines, ...) and names the
 * line of the key at fault.
 */
#include "analysis/arch.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "analysis/arch_parse.h"
#include "analysis/arch_validate.h"
#include "analysis/results.h"
#include "analysis/gpgpusim_import.h"

/* ------------------------------------------------------------------------- */
/* The key table.                                                            */

typedef enum key_type {
    K_U32,
    K_U64,
    K_BYTES32,  /* size with units, stored as uint32_t */
    K_BYTES64,  /* size with units, stored as uint64_t */
    K_DOUBLE,
    K_BOOL,
    K_STRING,   /* char[128] */
    K_CC,       /* "7.5" -> cc_major, cc_minor */
    K_REPL,
    K_SCOPE,
    K_LEVEL,    /* a level name, stored as int */
    K_CARVEOUTS,/* "0 8KiB 16KiB ...": sizes, ascending, into carveout_bytes/count */
    K_L2HASH,   /* modulo | xor */
    K_BITRANGES,/* "13-15 20-22": address bit ranges of the XOR fold */
    K_MEMKIND,  /* dram | pcm */
    K_L2WRITE,  /* sector | line | none */
    K_PARTIAL,  /* validate | fetch | mask */
} key_type;

typedef enum key_home { HOME_GPU, HOME_LEVEL, HOME_NOISE, HOME_WB } key_home;

typedef struct arch_key {
    key_home home;
    const char *name;
    key_type type;
    size_t offset;
    unsigned levels; /* HOME_LEVEL: bit mask of sections that accept it */
} arch_key;

#define LV(x) (1u << (x))
#define ALL_CACHES                                                                             \
    (LV(GD_L0I) | LV(GD_L1I) | LV(GD_L15I) | LV(GD_L1C) | LV(GD_L15C) | LV(GD_L1D) | LV(GD_L2) | \
     LV(GD_TLB1) | LV(GD_TLB2))
#define ALL_LEVELS (ALL_CACHES | LV(GD_SMEM) | LV(GD_DRAM) | LV(GD_L2C))
#define ICACHES (LV(GD_L0I) | LV(GD_L1I) | LV(GD_L15I))
#define GPU(f) offsetof(gd_arch_gpu, f)
#define LVL(f) offsetof(gd_arch_level, f)
#define NOISE(f) offsetof(gd_arch_noise, f)
#define WB(f) offsetof(gd_arch_wb, f)

static const arch_key arch_keys[] = {
    {HOME_GPU, "name", K_STRING, GPU(name), 0},
    {HOME_GPU, "compute_capability", K_CC, 0, 0},
    {HOME_GPU, "sms", K_U32, GPU(sm_count), 0},
    {HOME_GPU, "subpartitions", K_U32, GPU(subpartitions), 0},
    {HOME_GPU, "clock_mhz", K_DOUBLE, GPU(clock_mhz), 0},
    {HOME_GPU, "max_warps_per_sm", K_U32, GPU(max_warps_per_sm), 0},
    {HOME_GPU, "max_ctas_per_sm", K_U32, GPU(max_ctas_per_sm), 0},
    {HOME_GPU, "global_mem", K_BYTES64, GPU(global_mem_bytes), 0},
    {HOME_GPU, "alu_latency", K_U32, GPU(alu_latency_cycles), 0},
    {HOME_GPU, "shared_per_block", K_BYTES32, GPU(shared_per_block_bytes), 0},
    {HOME_GPU, "seed", K_U64, GPU(seed), 0},

    {HOME_LEVEL, "size", K_BYTES64, LVL(size_bytes), ALL_CACHES | LV(GD_SMEM)},
    {HOME_LEVEL, "line", K_BYTES32, LVL(line_bytes), ALL_CACHES},
    {HOME_LEVEL, "sector", K_BYTES32, LVL(sector_bytes), ALL_CACHES},
    {HOME_LEVEL, "ways", K_U32, LVL(ways), ALL_CACHES},
    {HOME_LEVEL, "replacement", K_REPL, LVL(replacement), ALL_CACHES},
    {HOME_LEVEL, "latency", K_U32, LVL(latency_cycles), ALL_LEVELS},
    {HOME_LEVEL, "scope", K_SCOPE, LVL(scope), ALL_LEVELS},
    {HOME_LEVEL, "shared_with", K_LEVEL, LVL(shared_with), ALL_CACHES},
    {HOME_LEVEL, "prefetch", K_U32, LVL(prefetch_lines), ICACHES},
    {HOME_LEVEL, "banks", K_U32, LVL(banks), LV(GD_SMEM)},
    {HOME_LEVEL, "bank_width", K_BYTES32, LVL(bank_width_bytes), LV(GD_SMEM)},
    {HOME_LEVEL, "unified", K_BYTES64, LVL(unified_bytes), LV(GD_SMEM)},
    {HOME_LEVEL, "carveouts", K_CARVEOUTS, LVL(carveout_bytes), LV(GD_SMEM)},
    {HOME_LEVEL, "fifo_entries", K_U32, LVL(fifo_entries), LV(GD_L1D)},
    {HOME_LEVEL, "mshr_entries", K_U32, LVL(mshr_entries), LV(GD_L1D) | LV(GD_L2)},
    {HOME_LEVEL, "mshr_merge", K_U32, LVL(mshr_merge), LV(GD_L1D) | LV(GD_L2)},
    {HOME_LEVEL, "miss_queue", K_U32, LVL(miss_queue_entries), LV(GD_L1D) | LV(GD_L2)},
    {HOME_LEVEL, "reorder", K_BOOL, LVL(reorder), LV(GD_L1D)},
    {HOME_LEVEL, "pipelined_issue", K_BOOL, LVL(pipelined_issue), LV(GD_L1D)},
    {HOME_LEVEL, "fifo_tail_ports", K_U32, LVL(fifo_tail_ports), LV(GD_L1D)},
    {HOME_LEVEL, "coalescer_rate", K_U32, LVL(coalescer_rate), LV(GD_L1D)},
    {HOME_LEVEL, "tag_lookups", K_U32, LVL(tag_lookups), LV(GD_L1D)},
    {HOME_LEVEL, "queued_instructions", K_U32, LVL(queued_instructions), LV(GD_L1D)},
    {HOME_LEVEL, "write_allocate", K_BOOL, LVL(write_allocate), LV(GD_L1D)},
    /* the store path (issue 12): a write-back L1; the L2's allocation and partial sectors */
    {HOME_LEVEL, "write_back", K_BOOL, LVL(write_back), LV(GD_L1D)},
    {HOME_LEVEL, "write_allocate", K_L2WRITE, LVL(l2_write_alloc), LV(GD_L2)},
    {HOME_LEVEL, "partial_write", K_PARTIAL, LVL(partial_write), LV(GD_L2)},
    {HOME_LEVEL, "requests_per_cycle", K_U32, LVL(requests_per_cycle), LV(GD_L2) | LV(GD_DRAM)},
    /* below the L1 (issue 12): L2 slices and partitions, DRAM organisation */
    {HOME_LEVEL, "slices", K_U32, LVL(l2map.slices), LV(GD_L2)},
    {HOME_LEVEL, "partitions", K_U32, LVL(l2map.partitions), LV(GD_L2)},
    {HOME_LEVEL, "far_latency", K_U32, LVL(l2map.far_latency_cycles), LV(GD_L2)},
    {HOME_LEVEL, "slice_requests_per_cycle", K_U32, LVL(l2map.slice_requests_per_cycle), LV(GD_L2)},
    {HOME_LEVEL, "hash", K_L2HASH, LVL(l2map.hash), LV(GD_L2)},
    {HOME_LEVEL, "xor_bits", K_BITRANGES, LVL(l2map), LV(GD_L2)},
    {HOME_LEVEL, "channels", K_U32, LVL(dram.channels), LV(GD_DRAM)},
    {HOME_LEVEL, "banks", K_U32, LVL(dram.banks), LV(GD_DRAM)},
    {HOME_LEVEL, "row", K_BYTES32, LVL(dram.row_bytes), LV(GD_DRAM)},
    {HOME_LEVEL, "interleave", K_BYTES32, LVL(dram.interleave_bytes), LV(GD_DRAM)},
    {HOME_LEVEL, "tRCD", K_U32, LVL(dram.t_rcd), LV(GD_DRAM)},
    {HOME_LEVEL, "tRP", K_U32, LVL(dram.t_rp), LV(GD_DRAM)},
    {HOME_LEVEL, "tCL", K_U32, LVL(dram.t_cl), LV(GD_DRAM)},
    {HOME_LEVEL, "tRAS", K_U32, LVL(dram.t_ras), LV(GD_DRAM)},
    {HOME_LEVEL, "tCCD", K_U32, LVL(dram.t_ccd), LV(GD_DRAM)},
    {HOME_LEVEL, "tWR", K_U32, LVL(dram.t_wr), LV(GD_DRAM)},
    {HOME_LEVEL, "tRTW", K_U32, LVL(dram.t_rtw), LV(GD_DRAM)},
    {HOME_LEVEL, "tWTR", K_U32, LVL(dram.t_wtr), LV(GD_DRAM)},
    {HOME_LEVEL, "burst_cycles", K_U32, LVL(dram.burst_cycles), LV(GD_DRAM)},
    {HOME_LEVEL, "queue_entries", K_U32, LVL(dram.queue_entries), LV(GD_DRAM)},
    {HOME_LEVEL, "write_high", K_U32, LVL(dram.write_high), LV(GD_DRAM)},
    {HOME_LEVEL, "write_low", K_U32, LVL(dram.write_low), LV(GD_DRAM)},
    {HOME_LEVEL, "row_timeout", K_U32, LVL(dram.row_timeout), LV(GD_DRAM)},
    /* phase-change main memory and its write buffer (issue 13) */
    {HOME_LEVEL, "kind", K_MEMKIND, LVL(dram.kind), LV(GD_DRAM)},
    {HOME_LEVEL, "pcm_write", K_U32, LVL(dram.pcm_write_cycles), LV(GD_DRAM)},
    {HOME_LEVEL, "pcm_read_extra", K_U32, LVL(dram.pcm_read_cycles), LV(GD_DRAM)},
    {HOME_LEVEL, "pcm_write_pj_per_bit", K_DOUBLE, LVL(dram.pcm_write_pj_per_bit), LV(GD_DRAM)},
    {HOME_WB, "size", K_BYTES64, WB(size_bytes), 0},
    {HOME_WB, "row_bytes", K_BYTES32, WB(row_bytes), 0},
    {HOME_WB, "active_rows", K_U32, WB(active_rows), 0},
    {HOME_WB, "latency", K_U32, WB(latency_cycles), 0},
    {HOME_WB, "read_bypass", K_BOOL, WB(read_bypass), 0},
    {HOME_WB, "request_fetch", K_BOOL, WB(request_fetch), 0},

    {HOME_NOISE, "jitter", K_DOUBLE, NOISE(jitter_cycles), 0},
    {HOME_NOISE, "outlier_rate", K_DOUBLE, NOISE(outlier_rate), 0},
    {HOME_NOISE, "outlier_cycles", K_U32, NOISE(outlier_cycles), 0},
    {HOME_NOISE, "seed", K_U64, NOISE(seed), 0},
};
#define ARCH_KEY_COUNT (sizeof arch_keys / sizeof arch_keys[0])

size_t arch_key_count(void)
{
    return ARCH_KEY_COUNT;
}

const char *arch_key_name(size_t i, int *numeric)
{
    if (i >= ARCH_KEY_COUNT)
        return NULL;
    key_type t = arch_keys[i].type;
    *numeric = t == K_U32 || t == K_U64 || t == K_BYTES32 || t == K_BYTES64 || t == K_DOUBLE;
    return arch_keys[i].name;
}

/* ------------------------------------------------------------------------- */
/* Reading                                                                   */

static int parse_u64(const char *v, uint64_t *out)
{
    while (isspace((unsigned char)*v))
        v++;
    if (!isdigit((unsigned char)*v))
        return -1;
    errno = 0;
    char *end = NULL;
    unsigned long long x = strtoull(v, &end, 0);
    while (isspace((unsigned char)*end))
        end++;
    if (errno || *end)
        return -1;
    *out = x;
    return 0;
}

static int store_value(parse_ctx *ctx, const arch_key *k, char *base, const char *value)
{
    uint64_t u;
    switch (k->type) {
    case K_U32:
        if (parse_u64(value, &u) || u > UINT32_MAX)
            return arch_ctx_error(ctx, "'%s' must be a non-negative integer, got '%s'", k->name, value);
        *(uint32_t *)(base + k->offset) = (uint32_t)u;
        return 1;
    case K_U64:
        if (parse_u64(value, &u))
            return arch_ctx_error(ctx, "'%s' must be a non-negative integer, got '%s'", k->name, value);
        *(uint64_t *)(base + k->offset) = u;
        return 1;
    case K_BYTES32:
    case K_BYTES64:
        if (gd_parse_bytes(value, &u))
            return arch_ctx_error(ctx, "'%s' must be a size in bytes (e.g. 128, 64KiB, 4MiB), got '%s'",
                             k->name, value);
        if (k->type == K_BYTES32) {
            if (u > UINT32_MAX)
                return arch_ctx_error(ctx, "'%s' is too large: '%s'", k->name, value);
            *(uint32_t *)(base + k->offset) = (uint32_t)u;
        } else {
            *(uint64_t *)(base + k->offset) = u;
        }
        return 1;
    case K_DOUBLE: {
        errno = 0;
        char *end = NULL;
        double d = strtod(value, &end);
        while (end && isspace((unsigned char)*end))
            end++;
        if (end == value || errno || *end || !isfinite(d) || d < 0)
            return arch_ctx_error(ctx, "'%s' must be a non-negative number, got '%s'", k->name, value);
        *(double *)(base + k->offset) = d;
        return 1;
    }
    case K_BOOL:
        if (!strcasecmp(value, "1") || !strcasecmp(value, "true") || !strcasecmp(value, "yes") ||
            !strcasecmp(value, "on"))
            *(int *)(base + k->offset) = 1;
        else if (!strcasecmp(value, "0") || !strcasecmp(value, "false") ||
                 !strcasecmp(value, "no") || !strcasecmp(value, "off"))
            *(int *)(base + k->offset) = 0;
        else
            return arch_ctx_error(ctx, "'%s' must be true or false, got '%s'", k->name, value);
        return 1;
    case K_STRING:
        if (strlen(value) >= sizeof ctx->arch->gpu.name)
            return arch_ctx_error(ctx, "'%s' is too long", k->name);
        snprintf(base + k->offset, sizeof ctx->arch->gpu.name, "%s", value);
        return 1;
    case K_CC: {
        int major, minor;
        char tail;
        if (sscanf(value, "%d.%d%c", &major, &minor, &tail) != 2 || major < 1 || major > 20 ||
            minor < 0 || minor > 9)
            return arch_ctx_error(ctx, "'%s' must look like 7.5, got '%s'", k->name, value);
        ctx->arch->gpu.cc_major = major;
        ctx->arch->gpu.cc_minor = minor;
        return 1;
    }
    case K_REPL:
        if (!strcasecmp(value, "lru"))
            *(gd_replacement *)(base + k->offset) = GD_REPL_LRU;
        else if (!strcasecmp(value, "fifo"))
            *(gd_replacement *)(base + k->offset) = GD_REPL_FIFO;
        else if (!strcasecmp(value, "random"))
            *(gd_replacement *)(base + k->offset) = GD_REPL_RANDOM;
        else
            return arch_ctx_error(ctx, "'%s' must be lru, fifo or random, got '%s'", k->name, value);
        return 1;
    case K_SCOPE:
        if (!strcasecmp(value, "subpartition"))
            *(gd_scope *)(base + k->offset) = GD_SCOPE_SUBPARTITION;
        else if (!strcasecmp(value, "sm"))
            *(gd_scope *)(base + k->offset) = GD_SCOPE_SM;
        else if (!strcasecmp(value, "chip"))
            *(gd_scope *)(base + k->offset) = GD_SCOPE_CHIP;
        else
            return arch_ctx_error(ctx, "'%s' must be subpartition, sm or chip, got '%s'", k->name,
                             value);
        return 1;
    case K_CARVEOUTS: {
        gd_arch_level *lv = (gd_arch_level *)base;
        char buf[256];
        if (strlen(value) >= sizeof buf)
            return arch_ctx_error(ctx, "'%s' is too long", k->name);
        snprintf(buf, sizeof buf, "%s", value);
        lv->carveout_count = 0;
        for (char *save = NULL, *tok = strtok_r(buf, ", \t", &save); tok;
             tok = strtok_r(NULL, ", \t", &save)) {
            uint64_t bytes;
            if (gd_parse_bytes(tok, &bytes) != 0 || bytes > UINT32_MAX)
                return arch_ctx_error(ctx, "'%s' must list sizes (0 8KiB 16KiB ...), got '%s'",
                                      k->name, tok);
            if (lv->carveout_count == GD_ARCH_MAX_CARVEOUTS)
                return arch_ctx_error(ctx, "'%s' lists more than %d sizes", k->name,
                                      GD_ARCH_MAX_CARVEOUTS);
            if (lv->carveout_count && bytes <= lv->carveout_bytes[lv->carveout_count - 1])
                return arch_ctx_error(ctx, "'%s' must be ascending, got '%s' after %u bytes",
                                      k->name, tok, lv->carveout_bytes[lv->carveout_count - 1]);
            lv->carveout_bytes[lv->carveout_count++] = (uint32_t)bytes;
        }
        if (!lv->carveout_count)
            return arch_ctx_error(ctx, "'%s' lists no size", k->name);
        return 1;
    }
    case K_L2HASH:
        if (!strcasecmp(value, "modulo"))
            *(gd_l2_hash *)(base + k->offset) = GD_L2_HASH_MODULO;
        else if (!strcasecmp(value, "xor"))
            *(gd_l2_hash *)(base + k->offset) = GD_L2_HASH_XOR;
        else
            return arch_ctx_error(ctx, "'%s' must be modulo or xor, got '%s'", k->name, value);
        return 1;
    case K_BITRANGES: {
        gd_arch_l2_map *m = (gd_arch_l2_map *)(base + k->offset);
        char buf[256];
        if (strlen(value) >= sizeof buf)
            return arch_ctx_error(ctx, "'%s' is too long", k->name);
        snprintf(buf, sizeof buf, "%s", value);
        m->xor_range_count = 0;
        for (char *save = NULL, *tok = strtok_r(buf, ", \t", &save); tok;
             tok = strtok_r(NULL, ", \t", &save)) {
            unsigned lo, hi;
            char tail;
            int n = sscanf(tok, "%u-%u%c", &lo, &hi, &tail);
            if (n == 1 && sscanf(tok, "%u%c", &lo, &tail) == 1)
                hi = lo;
            else if (n != 2)
                return arch_ctx_error(ctx, "'%s' must list address bit ranges (13-15 20-22), got '%s'",
                                      k->name, tok);
            if (lo > hi || hi > 47)
                return arch_ctx_error(ctx, "'%s': range '%s' must be LO-HI with LO <= HI <= 47",
                                      k->name, tok);
            if (m->xor_range_count == GD_ARCH_MAX_HASH_RANGES)
                return arch_ctx_error(ctx, "'%s' lists more than %d ranges", k->name,
                                      GD_ARCH_MAX_HASH_RANGES);
            m->xor_lo[m->xor_range_count] = (uint8_t)lo;
            m->xor_hi[m->xor_range_count++] = (uint8_t)hi;
        }
        if (!m->xor_range_count)
            return arch_ctx_error(ctx, "'%s' lists no range", k->name);
        return 1;
    }
    case K_MEMKIND:
        if (strcasecmp(value, "dram") == 0)
            *(int *)(base + k->offset) = GD_MEM_DRAM;
        else if (strcasecmp(value, "pcm") == 0)
            *(int *)(base + k->offset) = GD_MEM_PCM;
        else
            return arch_ctx_error(ctx, "'%s' must be dram or pcm, got '%s'", k->name, value);
        return 1;
    case K_L2WRITE:
        if (!strcasecmp(value, "sector"))
            *(gd_l2_write_alloc *)(base + k->offset) = GD_L2_WRITE_SECTOR;
        else if (!strcasecmp(value, "line"))
            *(gd_l2_write_alloc *)(base + k->offset) = GD_L2_WRITE_LINE;
        else if (!strcasecmp(value, "none"))
            *(gd_l2_write_alloc *)(base + k->offset) = GD_L2_WRITE_NONE;
        else
            return arch_ctx_error(ctx, "'%s' must be sector, line or none, got '%s'", k->name,
                                  value);
        return 1;
    case K_PARTIAL:
        if (!strcasecmp(value, "validate"))
            *(gd_l2_partial_write *)(base + k->offset) = GD_L2_PARTIAL_VALIDATE;
        else if (!strcasecmp(value, "fetch"))
            *(gd_l2_partial_write *)(base + k->offset) = GD_L2_PARTIAL_FETCH;
        else if (!strcasecmp(value, "mask"))
            *(gd_l2_partial_write *)(base + k->offset) = GD_L2_PARTIAL_MASK;
        else
            return arch_ctx_error(ctx, "'%s' must be validate, fetch or mask, got '%s'", k->name,
                                  value);
        return 1;
    case K_LEVEL: {
        int id = gd_level_from_name(value);
        if (id < 0)
            return arch_ctx_error(ctx, "'%s' must name a level (L1I, L15C, ...), got '%s'", k->name,
                             value);
        *(int *)(base + k->offset) = id;
        return 1;
    }
    }
    return arch_ctx_error(ctx, "internal: bad key type");
}

static int arch_handler(void *user, const char *section, const char *name, const char *value)
{
    parse_ctx *ctx = user;
    int sec = arch_section_index(section);
    if (sec < 0)
        return arch_ctx_error(ctx, "unknown section [%s] (expected gpu, noise, WB or a level: L0I L1I L15I "
                              "L1C L15C L2C L1D SMEM L2 TLB1 TLB2 DRAM)",
                         section);
    if (!ctx->section_line[sec])
        ctx->section_line[sec] = ctx->line;
    if (!*value)
        return arch_ctx_error(ctx, "[%s] %s has no value", section, name);

    const arch_key *key = NULL;
    for (size_t i = 0; i < ARCH_KEY_COUNT; i++) {
        const arch_key *k = &arch_keys[i];
        if (strcmp(k->name, name) != 0)
            continue;
        if ((sec == SECTION_GPU && k->home == HOME_GPU) ||
            (sec == SECTION_NOISE && k->home == HOME_NOISE) ||
            (sec == SECTION_WB && k->home == HOME_WB) ||
            (sec < GD_LEVEL_COUNT && k->home == HOME_LEVEL && (k->levels & LV(sec)))) {
            key = k;
            break;
        }
    }
    if (!key)
        return arch_ctx_error(ctx, "unknown key '%s' in [%s]", name, section);

    char *base;
    if (sec == SECTION_GPU)
        base = (char *)&ctx->arch->gpu;
    else if (sec == SECTION_NOISE)
        base = (char *)&ctx->arch->noise;
    else if (sec == SECTION_WB)
        base = (char *)&ctx->arch->wb;
    else {
        base = (char *)&ctx->arch->level[sec];
        ctx->arch->level[sec].present = 1;
    }
    /* a key given twice is a mistake (which one was meant?); --set may repeat a
     * file's key: that is what it is for */
    for (int i = 0; !ctx->from_override && i < ctx->seen_count; i++)
        if (!strcasecmp(ctx->seen[i].section, section) && !strcmp(ctx->seen[i].key, name))
            return arch_ctx_error(ctx, "[%s] %s given twice (first at line %d)", section, name,
                                  ctx->seen[i].line);
    if (ctx->seen_count < MAX_SEEN) {
        seen_key *s = &ctx->seen[ctx->seen_count++];
        snprintf(s->section, sizeof s->section, "%s", section);
        snprintf(s->key, sizeof s->key, "%s", name);
        s->line = ctx->line;
    }
    if ((ctx->line_comment[0] || ctx->from_override) &&
        ctx->arch->source_count < GD_ARCH_MAX_SOURCES) {
        gd_arch_source *src = &ctx->arch->sources[ctx->arch->source_count++];
        snprintf(src->section, sizeof src->section, "%s", section);
        snprintf(src->key, sizeof src->key, "%s", name);
        snprintf(src->text, sizeof src->text, "%s",
                 ctx->from_override ? "set on the command line (--set)" : ctx->line_comment);
    }
    return store_value(ctx, key, base, value);
}

/* ini_reader over a string: one physical line per call, counting lines.  A line
 * longer than inih's buffer is an error (inih would silently cut it). */
static char *line_reader(char *str, int num, void *stream)
{
    parse_ctx *ctx = stream;
    const char *s = ctx->cursor;
    if (!s || !*s)
        return NULL;
    size_t len = strcspn(s, "\n");
    size_t advance = len + (s[len] == '\n');
    ctx->line++;
    if (len + 2 > (size_t)num) {
        arch_ctx_error(ctx, "line longer than %d characters", num - 2);
        len = (size_t)num - 2;
    }
    memcpy(str, s, len);
    str[len] = '\n';
    str[len + 1] = 0;
    ctx->cursor = s + advance;
    /* remember the inline comment: it cites the value's source */
    ctx->line_comment[0] = 0;
    const char *semi = strstr(str, " ;");
    if (!semi)
        semi = strstr(str, "\t;");
    if (semi) {
        const char *c = semi + 2;
        while (*c == ' ' || *c == '\t')
            c++;
        size_t cl = strcspn(c, "\r\n");
        while (cl && (c[cl - 1] == ' ' || c[cl - 1] == '\t'))
            cl--;
        if (cl >= sizeof ctx->line_comment)
            cl = sizeof ctx->line_comment - 1;
        memcpy(ctx->line_comment, c, cl);
        ctx->line_comment[cl] = 0;
    }
    /* inih only reports a section through its first key: check headers here so
     * that an unknown one is named at its own line */
    const char *h = str;
    while (*h == ' ' || *h == '\t')
        h++;
    const char *close = *h == '[' ? strchr(h, ']') : NULL;
    if (close && close - h - 1 < 32) {
        char name[32];
        memcpy(name, h + 1, (size_t)(close - h - 1));
        name[close - h - 1] = 0;
        int sec = arch_section_index(name);
        if (sec < 0)
            arch_ctx_error(ctx, "unknown section [%s] (expected gpu, noise, WB or a level: L0I L1I L15I "
                           "L1C L15C L2C L1D SMEM L2 TLB1 TLB2 DRAM)",
                      name);
        else if (!ctx->section_line[sec])
            ctx->section_line[sec] = ctx->line;
    }
    return str;
}

/* ------------------------------------------------------------------------- */

static int apply_overrides(parse_ctx *ctx, const char *const *overrides, size_t count, gd_err *err)
{
    for (size_t i = 0; i < count; i++) {
        const char *o = overrides[i];
        const char *dot = strchr(o, '.');
        const char *eq = strchr(o, '=');
        if (!dot || !eq || dot > eq || dot == o || eq == dot + 1)
            return gd_fail(err, "override '%s': expected SECTION.key=value (e.g. L1D.ways=8)", o);
        char section[32], key[64], value[256];
        if ((size_t)(dot - o) >= sizeof section || (size_t)(eq - dot - 1) >= sizeof key ||
            strlen(eq + 1) >= sizeof value)
            return gd_fail(err, "override '%s': too long", o);
        memcpy(section, o, (size_t)(dot - o));
        section[dot - o] = 0;
        memcpy(key, dot + 1, (size_t)(eq - dot - 1));
        key[eq - dot - 1] = 0;
        snprintf(value, sizeof value, "%s", eq + 1);
        ctx->line = 0;
        ctx->from_override = 1;
        if (!arch_handler(ctx, section, key, value))
            return gd_fail(err, "override '%s': %s", o, ctx->error);
    }
    return 0;
}

int gd_arch_parse_string(const char *text, const char *path, const char *const *overrides,
                         size_t override_count, gd_arch *out, gd_err *err)
{
    parse_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return gd_fail(err, "%s: out of memory", path);
    arch_defaults(out);
    ctx->arch = out;
    ctx->path = path;
    ctx->cursor = text;
    int rc = ini_parse_stream(line_reader, ctx, arch_handler, ctx);
    if (rc != 0 || ctx->error[0]) {
        if (ctx->error[0])
            gd_fail(err, "%s:%d: %s", path, ctx->error_line, ctx->error);
        else if (rc > 0)
            gd_fail(err, "%s:%d: syntax error (expected [section] or key = value)", path, rc);
        else
            gd_fail(err, "%s: could not be parsed", path);
        free(ctx);
        return -1;
    }
    if (apply_overrides(ctx, overrides, override_count, err) != 0) {
        free(ctx);
        return -1;
    }
    if (!arch_validate(ctx)) {
        if (ctx->error_line > 0)
            gd_fail(err, "%s:%d: %s", path, ctx->error_line, ctx->error);
        else
            gd_fail(err, "%s: %s", path, ctx->error);
        free(ctx);
        return -1;
    }
    /* name = file stem */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(out->name, sizeof out->name, "%s", base);
    char *dot = strrchr(out->name, '.');
    if (dot && !strcmp(dot, ".arch"))
        *dot = 0;
    snprintf(out->path, sizeof out->path, "%s", path);
    free(ctx);
    return 0;
}

int gd_arch_load(const char *path, const char *const *overrides, size_t override_count,
                 gd_arch *out, gd_err *err)
{
    if (gd_gs_is_config_path(path)) {
        /* a GPGPU-Sim config: its arch text, parsed as any other (issue 16) */
        char *imported = NULL;
        if (gd_gs_import_file(path, NULL, &imported, err) != 0)
            return -1;
        int rc = gd_arch_parse_string(imported, path, overrides, override_count, out, err);
        free(imported);
        if (rc == 0)
            gd_gs_config_name(path, out->name, sizeof out->name);
        return rc;
    }
    /* the existence check first: its message names what the file was for */
    if (access(path, R_OK) != 0)
        return gd_fail(err, "%s: cannot open arch file: %s", path, strerror(errno));
    size_t len = 0;
    char *text = gd_read_file(path, &len, err);
    if (!text)
        return -1;
    if (memchr(text, 0, len)) {
        free(text);
        return gd_fail(err, "%s: not a text file (contains NUL bytes)", path);
    }
    int rc = gd_arch_parse_string(text, path, overrides, override_count, out, err);
    free(text);
    return rc;
}
