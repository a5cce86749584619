/* gpgpusim_config.h -- a GPGPU-Sim / Accel-Sim gpgpusim.config, read and checked.
 *
 * A gpgpusim.config is a list of "-option value" lines with '#' comments
 * (GPGPU-Sim's option parser: the last occurrence of an option wins).  This
 * header reads one into its options, each with the line it came from, and
 * parses the cache strings of -gpgpu_cache:dl1/dl2/il1, -gpgpu_const_cache:l1
 * and -gpgpu_tex_cache:l1 with the field layout of GPGPU-Sim's
 * cache_config::init (see ../shared/reference/gpgpusim/README.md).  Errors read
 * "FILE:LINE: option: what is wrong".
 *
 * The importer (gpgpusim_import.c) turns a config into an arch text; export and
 * validate (gpgpusim_export.c) hold a results directory's inference against one.
 */
#ifndef GD_GPGPUSIM_CONFIG_H
#define GD_GPGPUSIM_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "host/device.h"

/* Latencies as GPGPU-Sim measures them, not as its options add up.  The
 * issue's author (issue 16) ran GPGPU-Sim on gpudissect's own p-chase PTX with
 * the real SM75_RTX2060 config and measured L1 39 cycles (-gpgpu_l1_latency
 * 32), L2 242 (32 + -gpgpu_l2_rop_latency 194 = 226) and DRAM 351 (226 +
 * -dram_latency 96 = 322): the pipeline adds a constant per level on top of
 * the options.  These are those offsets, measured on that one config and
 * assumed to hold for every config (not re-measured here: GPGPU-Sim is not
 * installed).  Shared memory has no measured offset: taken as 0. */
#define GD_GS_L1_OFFSET_CYCLES 7    /* 39 - 32 */
#define GD_GS_L2_OFFSET_CYCLES 16   /* 242 - 226 */
#define GD_GS_DRAM_OFFSET_CYCLES 29 /* 351 - 322 */
#define GD_GS_SMEM_OFFSET_CYCLES 0  /* not measured on GPGPU-Sim */

typedef struct gd_gs_option {
    char name[64];   /* without the leading '-' */
    char value[512];
    int line;
    int used;        /* the importer took it (the rest is listed as not modelled) */
} gd_gs_option;

typedef struct gd_gs_config {
    char path[512];
    char file[128];  /* the base name, for comments */
    gd_gs_option *options;
    size_t count;
} gd_gs_config;

/* One cache string.  `disabled`: "none". */
typedef struct gd_gs_cache {
    int disabled;
    int fields;
    char type;            /* N normal, S sectored */
    uint32_t sets, line_bytes, ways;
    char replacement;     /* L LRU, F FIFO */
    char write_policy;    /* R B T E L */
    char allocation;      /* m f s */
    char write_allocate;  /* N W F L */
    char set_index;       /* L H P X C */
    char mshr_type;       /* A S (texture F T) */
    uint32_t mshr_entries, mshr_merge;
    uint32_t miss_queue, result_fifo; /* 0 when absent */
    uint32_t port_bytes;              /* 0 when absent */
} gd_gs_cache;

#define GD_GS_SECTOR_BYTES 32 /* a sectored line is 4 x 32-byte sectors */

int gd_gs_config_load(const char *path, gd_gs_config *cfg, gd_err *err);
int gd_gs_config_parse_string(const char *text, const char *path, gd_gs_config *cfg, gd_err *err);
void gd_gs_config_free(gd_gs_config *cfg);

/* The last occurrence of `name` (without '-'), or NULL. */
gd_gs_option *gd_gs_find(const gd_gs_config *cfg, const char *name);

/* Parses a cache string; `where` ("FILE:LINE: -gpgpu_cache:dl1") prefixes errors. */
int gd_gs_cache_parse(const char *text, const char *where, gd_gs_cache *out, gd_err *err);
uint64_t gd_gs_cache_bytes(const gd_gs_cache *c);

/* Option `name` as an unsigned integer (the first of a comma/colon list when
 * `first_of_list`); 1 found, 0 absent, -1 malformed (err: FILE:LINE: -name: ...).
 * Marks the option used. */
int gd_gs_uint(const gd_gs_config *cfg, const char *name, int first_of_list, uint64_t *out,
               gd_err *err);
/* The same for a cache option: 1 found and enabled, 0 absent or "none", -1 error. */
int gd_gs_cache_option(const gd_gs_config *cfg, const char *name, gd_gs_cache *out, gd_err *err);

#endif
