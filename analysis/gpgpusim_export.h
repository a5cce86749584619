/* gpgpusim_export.h -- a run's measurements in GPGPU-Sim's terms: the config
 * lines they determine (export) and the options they contradict (validate).
 *
 * Both start from the same table: for each config option (or field of a cache
 * string) that the suite measures, the measured value in the option's own
 * units -- latencies split as GPGPU-Sim sums them and less its per-level
 * offsets (gpgpusim_config.h), so that a correct config neither "contradicts"
 * the card by 7-29 cycles nor gets exported 7-29 cycles too slow -- with its
 * confidence and the probe (curve label) it came from.
 */
#ifndef GD_GPGPUSIM_EXPORT_H
#define GD_GPGPUSIM_EXPORT_H

#include <jansson.h>

#include "analysis/gpgpusim_config.h"
#include "analysis/infer.h"

typedef enum gd_gs_field {
    GD_GS_DL1_SIZE,       /* -gpgpu_cache:dl1 sets x line x ways, bytes */
    GD_GS_DL1_LINE,       /* -gpgpu_cache:dl1 line */
    GD_GS_DL1_SECTORED,   /* -gpgpu_cache:dl1 type: 1 'S', 0 'N' */
    GD_GS_DL1_WAYS,
    GD_GS_DL1_REPLACEMENT,/* 0 LRU, 1 FIFO, 2 random (GPGPU-Sim has none) */
    GD_GS_DL1_MSHR,
    GD_GS_DL1_MERGE,
    GD_GS_L1_LATENCY,     /* -gpgpu_l1_latency */
    GD_GS_ROP_LATENCY,    /* -gpgpu_l2_rop_latency */
    GD_GS_DRAM_LATENCY,   /* -dram_latency */
    GD_GS_DL2_SIZE,       /* -gpgpu_cache:dl2 x -gpgpu_n_mem x sub-partitions, bytes */
    GD_GS_DL2_GRANULE,    /* -gpgpu_cache:dl2: 32 when sectored, else the line */
    GD_GS_SMEM_BANKS,     /* -gpgpu_shmem_num_banks */
    GD_GS_SMEM_LATENCY,   /* -gpgpu_smem_latency */
    GD_GS_L1C_SIZE,       /* -gpgpu_const_cache:l1 */
    GD_GS_L1C_LINE,
    GD_GS_L1C_WAYS,       /* -gpgpu_const_cache:l1 ways (const_fine) */
    GD_GS_FIELD_COUNT
} gd_gs_field;

/* The option a field belongs to and what the field is. */
const char *gd_gs_field_option(gd_gs_field f);
const char *gd_gs_field_what(gd_gs_field f);

typedef struct gd_gs_value {
    int has;
    double value;
    int lower_bound;          /* measured: at least `value` */
    int lru_or_fifo;          /* replacement: the probe cannot tell LRU from FIFO */
    double confidence;
    char from[64];            /* the curve label (probe step) */
} gd_gs_value;

/* The measured values, in option units (offsets subtracted). */
void gd_gs_measured(const gd_inference *inf, gd_gs_value out[GD_GS_FIELD_COUNT]);
/* What a config says, in the same units. */
int gd_gs_config_values(gd_gs_config *cfg, gd_gs_value out[GD_GS_FIELD_COUNT], gd_err *err);
/* RUN/inferred.json */
int gd_gs_load_inference(const char *run_dir, gd_inference *inf, gd_err *err);

typedef struct gd_gs_export {
    char *config_text;  /* the lines (or, with a base, the whole config) */
    char *diff_text;    /* with a base: the changed lines, "-" old "+" new; else NULL */
    unsigned measured_options;
} gd_gs_export;

/* export-config RUN [--base BASE] */
int gd_gs_export_run(const char *run_dir, const char *base_path, gd_gs_export *out, gd_err *err);
void gd_gs_export_free(gd_gs_export *e);

/* validate RUN --config CONFIG */
typedef struct gd_gs_validation {
    json_t *doc;            /* validate.json */
    char *table_text;       /* the table on stdout */
    char *markdown;         /* the report.md section */
    int contradicted;       /* options the run contradicts */
    int matched, not_measured;
} gd_gs_validation;

int gd_gs_validate_run(const char *run_dir, const char *config_path, gd_gs_validation *out,
                       gd_err *err);
/* RUN/validate.json, and the section of RUN/report.md (replaced if present). */
int gd_gs_validation_write(const char *run_dir, const gd_gs_validation *v, gd_err *err);
void gd_gs_validation_free(gd_gs_validation *v);

#endif
