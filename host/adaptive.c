/* adaptive.c -- adaptive sweeps: a coarse sweep, then bisection at every knee.
 *
 * A uniform sweep that pins a 64 KiB L1 and a 4 MiB L2 to one 32-byte stride
 * needs over a hundred thousand points; the curve is flat almost everywhere.
 * Here a coarse geometric sweep finds the plateaus (analysis/plateau.c), and each
 * knee's bracket [last point on the plateau, first point off it) is halved by
 * measuring its midpoint, snapped to the resolution, until it is one resolution
 * step wide.  Every round re-segments the whole curve, so a midpoint that turns
 * out to be a transition (part hits, part misses) simply becomes the new upper
 * end of the bracket.  Cost: the coarse points plus about log2(bracket /
 * resolution) points per knee.
 */
#include "host/adaptive.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/plateau.h"
#include "analysis/steps.h"


static uint64_t snap_down(uint64_t v, uint64_t g)
{
    return v / g * g;
}

int gd_runner_adaptive(gd_runner *r, gd_curve *curve, const gd_sweep *coarse, uint64_t resolution,
                       gd_adaptive_stats *stats, gd_err *err)
{
    memset(stats, 0, sizeof *stats);
    if (!resolution)
        resolution = 1;
    if (gd_runner_sweep(r, curve, coarse, err) != 0)
        return -1;
    stats->coarse_points = coarse->count;
    size_t measured = coarse->count;
    for (int round = 0; round < GD_ADAPTIVE_MAX_ROUNDS; round++) {
        /* the brackets to halve: knees between plateaus, or the steps of a ramp */
        uint64_t lows[64], highs[64];
        size_t nb = 0;
        if (curve->probe->ramp_curve) {
            gd_step steps[64];
            size_t ns = gd_curve_steps(curve, gd_probe_primary_series(curve->probe), steps, 64);
            for (size_t k = 0; k < ns && k < 64; k++, nb++) {
                lows[nb] = curve->points[steps[k].below].x;
                highs[nb] = curve->points[steps[k].above].x;
            }
        } else {
            gd_segmentation seg;
            if (gd_curve_segment(curve, gd_probe_primary_series(curve->probe), &seg, err) != 0)
                return -1;
            for (size_t k = 0; k < seg.knee_count && nb < 64; k++, nb++) {
                lows[nb] = (uint64_t)seg.knees[k].x_below;
                highs[nb] = (uint64_t)seg.knees[k].x_above;
            }
            gd_segmentation_free(&seg);
        }
        uint64_t todo[64];
        size_t ntodo = 0;
        for (size_t k = 0; k < nb && ntodo < 64; k++) {
            uint64_t lo = lows[k], hi = highs[k];
            if (hi - lo <= resolution)
                continue;
            uint64_t mid = snap_down(lo + (hi - lo) / 2, resolution);
            if (mid <= lo)
                mid = lo + resolution;
            if (mid >= hi || gd_curve_find(curve, mid))
                continue;
            todo[ntodo++] = mid;
        }
        if (!ntodo)
            break;
        /* the round's midpoints are decided before any is measured: one batch,
         * in parallel on a sim device (host/sweep_workers.c), added in order */
        size_t room = measured < GD_ADAPTIVE_MAX_POINTS ? GD_ADAPTIVE_MAX_POINTS - measured : 0;
        size_t batch = ntodo < room ? ntodo : room;
        if (gd_runner_measure_batch(r, curve, todo, batch, measured, 0, err) != 0)
            return -1;
        measured += batch;
        stats->refine_points += batch;
        if (batch < ntodo)
            return gd_fail(err, "%s: adaptive sweep gave up after %d points", curve->label,
                           GD_ADAPTIVE_MAX_POINTS);
        stats->rounds = round + 1;
    }
    stats->points = measured;
    uint64_t from = coarse->points[0], to = coarse->points[coarse->count - 1];
    stats->uniform_points = (to - from) / resolution + 1;
    return 0;
}
