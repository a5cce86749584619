/* compare_rows.c -- the rows of compare.json's "parameters": one per measured
 * value held against the arch, with its verdict.
 *
 * compare.c (the caches, instruction and constant caches) and compare_l1.c
 * (the L1 load path) both add rows here; neither calls the other back.
 * Tolerances that make sense at every scale: a latency may differ from the
 * model by
 *     GD_TOLERANCE_FLOOR_CYCLES + GD_TOLERANCE_RELATIVE x expected
 *     + GD_TOLERANCE_NOISE_SIGMAS x (standard error of the measured level)
 * -- half a timer tick (a median of whole clock deltas that is one cycle off
 * is another value: a 1-cycle latency measured as 2 is a mismatch), 2% for
 * what repeated runs on a card drift by (clocks, refresh), and three standard
 * errors of what the run itself measured (zero on a noiseless simulator).  A
 * capacity within one line of the arch's line; a line, sector, count or name
 * exactly.
 */
#include "analysis/compare_rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>

void gd_compare_add_parameter(json_t *params, gd_compare_counts *c, const char *level, const char *what,
                          int measured_ok, double measured, double expected, double tolerance,
                          double published, const char *source)
{
    char name[64];
    snprintf(name, sizeof name, "%s.%s", level, what);
    json_t *o = json_object();
    json_object_set_new(o, "parameter", json_string(name));
    json_object_set_new(o, "level", json_string(level));
    json_object_set_new(o, "measured", measured_ok ? json_real(measured) : json_null());
    json_object_set_new(o, "expected", json_real(expected));
    json_object_set_new(o, "published", json_real(published));
    json_object_set_new(o, "source", source ? json_string(source) : json_null());
    const char *verdict;
    if (!measured_ok) {
        json_object_set_new(o, "error", json_null());
        json_object_set_new(o, "relative_error", json_null());
        verdict = "not measured";
        c->not_measured++;
    } else {
        double e = measured - expected;
        json_object_set_new(o, "error", json_real(e));
        json_object_set_new(o, "relative_error", expected ? json_real(e / expected) : json_null());
        int ok = fabs(e) <= tolerance + 1e-9;
        verdict = ok ? "match" : "mismatch";
        if (ok)
            c->match++;
        else
            c->mismatch++;
    }
    json_object_set_new(o, "tolerance", json_real(tolerance));
    json_object_set_new(o, "verdict", json_string(verdict));
    json_array_append_new(params, o);
}

/* A parameter whose value is a name (a scope, a policy, a level): match when
 * the names agree. */
void gd_compare_add_categorical(json_t *params, gd_compare_counts *c, const char *level, const char *what,
                            int measured_ok, const char *measured, const char *expected,
                            const char *source)
{
    char name[64];
    snprintf(name, sizeof name, "%s.%s", level, what);
    json_t *o = json_object();
    json_object_set_new(o, "parameter", json_string(name));
    json_object_set_new(o, "level", json_string(level));
    json_object_set_new(o, "measured", measured_ok ? json_string(measured) : json_null());
    json_object_set_new(o, "expected", json_string(expected));
    json_object_set_new(o, "published", json_string(expected));
    json_object_set_new(o, "source", source ? json_string(source) : json_null());
    json_object_set_new(o, "error", json_null());
    json_object_set_new(o, "relative_error", json_null());
    json_object_set_new(o, "tolerance", json_null());
    const char *verdict = !measured_ok ? "not measured"
                          : !strcmp(measured, expected) ? "match"
                                                        : "mismatch";
    if (!measured_ok)
        c->not_measured++;
    else if (!strcmp(verdict, "match"))
        c->match++;
    else
        c->mismatch++;
    json_object_set_new(o, "verdict", json_string(verdict));
    json_array_append_new(params, o);
}

void gd_compare_add_lower_bound(json_t *params, gd_compare_counts *c, const char *level,
                                const char *what, double bound, double expected,
                                const char *source)
{
    char name[64];
    snprintf(name, sizeof name, "%s.%s", level, what);
    json_t *o = json_object();
    json_object_set_new(o, "parameter", json_string(name));
    json_object_set_new(o, "level", json_string(level));
    json_object_set_new(o, "measured", json_null());
    json_object_set_new(o, "lower_bound", json_real(bound));
    json_object_set_new(o, "expected", json_real(expected));
    json_object_set_new(o, "published", json_real(expected));
    json_object_set_new(o, "source", source ? json_string(source) : json_null());
    json_object_set_new(o, "error", json_null());
    json_object_set_new(o, "relative_error", json_null());
    json_object_set_new(o, "tolerance", json_null());
    int contradicts = bound > expected + 1e-9;
    json_object_set_new(o, "verdict", json_string(contradicts ? "mismatch" : "not measured"));
    if (contradicts)
        c->mismatch++;
    else
        c->not_measured++;
    json_array_append_new(params, o);
}

double gd_compare_tolerance(double expected, double floor, double noise_sd)
{
    return floor + GD_TOLERANCE_RELATIVE * fabs(expected) +
           GD_TOLERANCE_NOISE_SIGMAS * (noise_sd > 0 ? noise_sd : 0);
}

double gd_compare_latency_tolerance(double expected)
{
    return gd_compare_tolerance(expected, GD_TOLERANCE_FLOOR_CYCLES, 0);
}

void gd_compare_note(json_t *params, const char *fmt, ...)
{
    json_t *last = json_array_get(params, json_array_size(params) - 1);
    if (!last)
        return;
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    json_object_set_new(last, "note", json_string(text));
}


/* Did the run use this probe?  A parameter only a probe the run did not use
 * could measure is left out, rather than listed as "not measured". */
int gd_compare_run_probed(const gd_run *run, const char *probe)
{
    for (size_t i = 0; i < run->curve_count; i++)
        if (!strcmp(gd_probe_describe(run->curves[i].probe).name, probe))
            return 1;
    return 0;
}
