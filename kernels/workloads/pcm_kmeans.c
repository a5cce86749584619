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

#include "kernels/workloads/pcm_rows.h"

#define KM_HOT_ROWS 100u
#define KM_COLD 1600u
#define KM_SWEEP 10240u

static const gd_pcm_rows_shape km_shape = {
    .name = "pcm_kmeans",
    .hot_rows = KM_HOT_ROWS,
    .cold_per_round = KM_COLD,
    .sweep_lines = KM_SWEEP,
    .max_rounds = 32,
    .seed = 0x5eed00c1ull,
};

static int pk_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                   gd_probe_plan *out, gd_err *err)
{
    return gd_pcm_rows_plan_shape(&km_shape, opts, dev, point, 4, out, err);
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
