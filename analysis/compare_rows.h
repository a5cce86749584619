/* compare_rows.h -- the rows of compare.json's "parameters" (compare_rows.c),
 * shared by the files that hold a measured hierarchy against an arch
 * (compare.c, compare_l1.c). */
#ifndef GD_COMPARE_ROWS_H
#define GD_COMPARE_ROWS_H

#include <jansson.h>

#include "analysis/arch.h"
#include "analysis/run_load.h"

typedef struct gd_compare_counts {
    int match, mismatch, not_measured;
} gd_compare_counts;

/* A numeric parameter: match when |measured - expected| <= tolerance. */
void gd_compare_add_parameter(json_t *params, gd_compare_counts *c, const char *level,
                              const char *what, int measured_ok, double measured, double expected,
                              double tolerance, double published, const char *source);
/* A parameter whose value is a name (a scope, a policy): match when equal. */
void gd_compare_add_categorical(json_t *params, gd_compare_counts *c, const char *level,
                                const char *what, int measured_ok, const char *measured,
                                const char *expected, const char *source);
/* A count the run could only bound from below: "not measured" while the bound
 * is at most the expected value (with the bound recorded), "mismatch" above. */
void gd_compare_add_lower_bound(json_t *params, gd_compare_counts *c, const char *level,
                                const char *what, double bound, double expected,
                                const char *source);
/* Tolerances (compare_rows.c's top comment; README "Verdicts"): an absolute
 * floor, a relative part and the measured noise. */
#define GD_TOLERANCE_FLOOR_CYCLES 0.5   /* half a timer tick */
#define GD_TOLERANCE_RELATIVE 0.02      /* run-to-run drift of a card */
#define GD_TOLERANCE_NOISE_SIGMAS 3.0   /* standard errors of the measured level */
/* floor + GD_TOLERANCE_RELATIVE x |expected| + GD_TOLERANCE_NOISE_SIGMAS x noise_sd */
double gd_compare_tolerance(double expected, double floor, double noise_sd);
/* A latency with no noise figure: GD_TOLERANCE_FLOOR_CYCLES + 2% of expected. */
double gd_compare_latency_tolerance(double expected);
/* Adds "note" (why the model expects what it does, or why nothing was
 * measured) to the row added last. */
void gd_compare_note(json_t *params, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Did the run use this probe? */
int gd_compare_run_probed(const gd_run *run, const char *probe);

#endif
