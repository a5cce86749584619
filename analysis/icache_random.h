/* icache_random.h -- randomly replacing instruction caches (analysis/icache_random.c). */
#ifndef GD_ICACHE_RANDOM_H
#define GD_ICACHE_RANDOM_H

#include "analysis/curve.h"
#include "analysis/infer.h"
#include "analysis/plateau.h"

/* a last plateau whose two ends are flat levels this far apart is two levels
 * (infer_icache.c); a kink stands this far below the last plateau */
#define GD_ICACHE_SPLIT_ABOVE 1.15

/* The median CPI of point i (NAN without one). */
double gd_icache_cpi(const gd_curve *c, size_t i);
/* Points of curve in [lo, hi] (x) whose timed passes get cheaper one after
 * the other: a random cache converging. */
unsigned gd_icache_transients(const gd_curve *curve, double lo, double hi);
/* The replacement verdict of a level whose knee is at `knee`: random where
 * transient points lie both below and past it, else LRU-or-FIFO (a loop of
 * code cannot tell those apart). */
void gd_icache_replacement(gd_inferred_level *l, const gd_curve *curve, double knee);
/* 1 where inf holds level n as replacing at random. */
int gd_icache_level_random(const gd_inference *inf, gd_inferred_name n);
/* Past a random level whose plateau is `random_level`, with `last` the
 * curve's last plateau: the index of the point where the gentle climb turns
 * steep (the next level's knee), or -1. */
long gd_icache_random_tail_kink(const gd_curve *curve, const gd_plateau *random_level,
                                const gd_plateau *last);

#endif
