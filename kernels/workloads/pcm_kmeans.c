/* pcm_kmeans.c -- the write pattern seed 003 measures for k-means (Figure 2:
 * "about 3% of the rows take more than 30% of the writes"), for the PCM
 * experiments of issue 13.
 *
 * K-means rewrites its small centroid and membership-count arrays every
 * iteration (hot rows) and writes each point's new membership once (cold
 * rows).  Per round (one launch, an iteration): every line of the
 * KM_HOT_ROWS hot rows, KM_COLD fresh rows one line each, then a read sweep
 * of KM_SWEEP lines (1.3 MiB, more than a 768-KiB L2) that evicts the
 * round's dirty lines, so each reaches memory once a round.  With 4 rounds:
 * 100 of 6500 rows (1.5%) take 3200 of 9600 writes (33%); the top 3% of rows
 * take ~34%.  Tuned on sim:pcm with the mem.* counters (README "PCM").  The
 * sweep value is the number of rounds (default 4).
 */
#include <stdlib.h>

#include "kernels/workloads/pcm_rows.h"

#define KM_HOT_ROWS 100u
#define KM_COLD 1600u
#define KM_SWEEP 10240u

static int pk_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                   gd_probe_plan *out, gd_err *err)
{
    if (point == 0)
        point = 4;
    if (point > 32)
        return gd_fail(err, "pcm_kmeans: %llu rounds is outside 1..32", (unsigned long long)point);
    uint32_t rounds = (uint32_t)point, per = KM_HOT_ROWS * GD_PCM_LINES_PER_ROW + KM_COLD + KM_SWEEP;
    uint32_t *lines = malloc((size_t)rounds * per * 4);
    if (!lines)
        return gd_fail(err, "pcm_kmeans: out of memory");
    uint32_t next_cold = KM_HOT_ROWS;
    uint64_t rng = gd_wl_seed(opts, 0x5eed00c1ull);
    uint32_t salt = gd_wl_rand(&rng, 1u << 30);
    for (uint32_t r = 0; r < rounds; r++)
        gd_pcm_rows_round(lines + (size_t)r * per, KM_HOT_ROWS, KM_COLD, &next_cold, KM_SWEEP, salt);
    return gd_pcm_rows_plan("pcm_kmeans", dev, rounds, per, lines,
                            next_cold * GD_PCM_LINES_PER_ROW, KM_SWEEP, point, out, err);
}

const gd_probe gd_workload_pcm_kmeans = {
    .name = "pcm_kmeans",
    .summary = "k-means-like writes: ~3% of rows take >30% of writes (seed 003 Fig. 2)",
    .sweep_name = "rounds",
    .value_unit = "errors",
    .primary_series = "errors",
    .sweep_granularity = 1,
    .example_point = 4,
    .plan = pk_plan,
    .fill = gd_wl_fill,
    .decode = gd_wl_decode,
    .release = gd_wl_release,
    .split = gd_wl_split,
};
