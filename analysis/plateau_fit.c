/* plateau_fit.c -- does a curve's segmentation describe its points?
 *
 * Plateau detection (plateau.c) works in units of the measured noise, with a
 * floor in cycles; a curve in other units (a miss rate from 0 to 1) can come
 * out as one "plateau" that the curve leaves: const-share on sim:t4 was one
 * plateau at 0.0 from 1 to 93 KiB while its miss rate rose to 1.0.  Labels and
 * report lines drawn from such a segmentation say what the curve does not.  So
 * the plots (figures.c) and the report (through compare.json's
 * "segmentations", written by compare.c) both ask this one check, and a curve
 * that fails it is drawn and listed without plateau labels, saying why.
 *
 * A point inside a plateau's span belongs to it when its median lies within
 *     max(GD_PLATEAU_FIT_SPREADS x the plateau's spread,
 *         GD_PLATEAU_FIT_RELATIVE x |level|, GD_PLATEAU_FIT_RANGE x the curve's range)
 * of the level: the noise the plateau itself shows, a relative part for
 * levels that drift a little, and a floor tied to the curve's own scale (so
 * it means the same for a miss rate and for cycles).
 */
#include "analysis/plateau_fit.h"

#include "kernels/probe_layout.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int gd_plateau_fit(const gd_curve *curve, const json_t *info, char *why, size_t why_bytes)
{
    const json_t *plateaus = json_object_get(info, "plateaus");
    const char *series = gd_probe_primary_series(curve->probe);
    if (!json_is_array(plateaus) || json_array_size(plateaus) == 0) {
        snprintf(why, why_bytes, "no plateau found");
        return 0;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < curve->count; i++) {
        const gd_summary *s = gd_point_summary(&curve->points[i], series);
        if (s && s->count) {
            lo = fmin(lo, s->median);
            hi = fmax(hi, s->median);
        }
    }
    double range = isfinite(hi - lo) ? hi - lo : 0;
    size_t k;
    const json_t *p;
    json_array_foreach(plateaus, k, p) {
        double level = json_number_value(json_object_get(p, "level"));
        double spread = json_number_value(json_object_get(p, "spread"));
        double x0 = json_number_value(json_object_get(p, "x_first"));
        double x1 = json_number_value(json_object_get(p, "x_last"));
        double tol = fmax(GD_PLATEAU_FIT_SPREADS * spread,
                          fmax(GD_PLATEAU_FIT_RELATIVE * fabs(level), GD_PLATEAU_FIT_RANGE * range));
        for (size_t i = 0; i < curve->count; i++) {
            double x = (double)curve->points[i].x;
            const gd_summary *s = gd_point_summary(&curve->points[i], series);
            if (x < x0 || x > x1 || !s || !s->count)
                continue;
            if (fabs(s->median - level) > tol) {
                snprintf(why, why_bytes,
                         "the plateau at %.3g over %.0f..%.0f does not hold its point at %.0f "
                         "(%.3g)",
                         level, x0, x1, x, s->median);
                return 0;
            }
        }
    }
    why[0] = 0;
    return 1;
}

const char *gd_plateau_unit(const char *probe)
{
    if (!strcmp(probe, "icache_seq") || !strcmp(probe, "icache_av"))
        return "CPI";
    if (!strcmp(probe, "coalesce"))
        return "requests";
    if (!strcmp(probe, "const_icache_share"))
        return "";
    return "cycles";
}
