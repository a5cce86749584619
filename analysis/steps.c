/* steps.c -- steps in ramp-like curves.
 *
 * Some probes' times grow by a cycle or two per request issued and jump when a
 * request has to wait for a fill (kernels/mshr.c, kernels/resv_stall.c): a ramp
 * with steps, not plateaus, which plateau detection cuts into many short
 * pieces.  Here the ramp's own slope is estimated as the median slope between
 * neighbouring points (a few steps do not move the median), and a step is a
 * rise beyond that slope by more than max(STEP_MIN_CYCLES, STEP_MIN_SHARE x the
 * first point's value): a fill's round trip is at least a hundred cycles on
 * every GPU, the noise of a median a few.  The adaptive sweep bisects between
 * the two points of every step until they are adjacent.
 */
#include "analysis/steps.h"

#include <math.h>
#include <stdlib.h>

#include "analysis/run_load.h"
#include "analysis/stats.h"

#define STEP_MIN_CYCLES 8.0
#define STEP_MIN_SHARE 0.05

double gd_curve_step_threshold(const gd_curve *c, const char *series)
{
    const gd_summary *s = c->count ? gd_point_summary(&c->points[0], series) : NULL;
    double y0 = s && s->count ? s->median : 0;
    return fmax(STEP_MIN_CYCLES, STEP_MIN_SHARE * fabs(y0));
}

double gd_curve_slope(const gd_curve *c, const char *series)
{
    size_t n = c->count;
    if (n < 2)
        return 0;
    double *slope = malloc((n - 1) * sizeof *slope);
    if (!slope)
        return 0;
    size_t k = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        const gd_summary *a = gd_point_summary(&c->points[i], series);
        const gd_summary *b = gd_point_summary(&c->points[i + 1], series);
        if (a && b && a->count && b->count)
            slope[k++] = (b->median - a->median) / (double)(c->points[i + 1].x - c->points[i].x);
    }
    double typical = k ? gd_median(slope, k) : 0;
    free(slope);
    return typical > 0 ? typical : 0;
}

size_t gd_curve_steps(const gd_curve *c, const char *series, gd_step *steps, size_t max)
{
    size_t n = c->count;
    if (n < 2)
        return 0;
    double *y = malloc(n * sizeof *y), *slope = malloc(n * sizeof *slope);
    if (!y || !slope) {
        free(y);
        free(slope);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        const gd_summary *s = gd_point_summary(&c->points[i], series);
        y[i] = s && s->count ? s->median : NAN;
    }
    for (size_t i = 0; i + 1 < n; i++)
        slope[i] = (y[i + 1] - y[i]) / (double)(c->points[i + 1].x - c->points[i].x);
    double typical = gd_median(slope, n - 1);
    if (!(typical > 0))
        typical = 0;
    double threshold = gd_curve_step_threshold(c, series);
    size_t found = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        double dx = (double)(c->points[i + 1].x - c->points[i].x);
        double r = y[i + 1] - y[i] - typical * dx;
        if (!(r > threshold))
            continue;
        if (found < max)
            steps[found] = (gd_step){
                .below = i,
                .above = i + 1,
                .jump = r,
                .confidence = (dx <= 1 ? 1.0 : 0.5) * fmin(1.0, r / (2 * threshold)),
            };
        found++;
    }
    free(y);
    free(slope);
    return found;
}
