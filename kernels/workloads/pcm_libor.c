/* pcm_libor.c -- the write pattern seed 003 measures for LIBOR (Figure 2:
 * "2.6% of the rows take 66.8% of the writes, about 93% of the rows see
 * fewer than 20 writes, the most written row more than 1000"), for the PCM
 * experiments of issue 13.
 *
 * LIBOR's paths rewrite a small per-path state every time step (hot rows) and
 * write each result once (cold rows).  Per round (one launch, a time step):
 * every line of LB_HOT_ROWS hot rows, LB_COLD fresh rows one line each, then
 * a read sweep of LB_SWEEP lines (more than a 768-KiB L2) that evicts the
 * round's dirty lines.  With 9 rounds: 100 of 3700 rows (2.7%) take 7200 of
 * 10800 writes (67%), 97% of rows see fewer than 20 writes.  The most written
 * row sees 72, not >1000: that needs ~125 rounds (seconds per run is the
 * budget); the shape is kept, the scale is not.  The sweep value is the
 * number of rounds (default 9).
 */

#include "kernels/workloads/pcm_rows.h"

#define LB_HOT_ROWS 100u
#define LB_COLD 400u
#define LB_SWEEP 10240u

static const gd_pcm_rows_shape lb_shape = {
    .name = "pcm_libor",
    .hot_rows = LB_HOT_ROWS,
    .cold_per_round = LB_COLD,
    .sweep_lines = LB_SWEEP,
    .max_rounds = 64,
    .seed = 0x5eed00c2ull,
};

static int pl_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                   gd_probe_plan *out, gd_err *err)
{
    return gd_pcm_rows_plan_shape(&lb_shape, opts, dev, point, 9, out, err);
}

const gd_probe gd_workload_pcm_libor = {
    .name = "pcm_libor",
    .summary = "LIBOR-like writes: ~2.6% of rows take ~67% of writes (seed 003 Fig. 2)",
    .sweep_name = "rounds",
    .value_unit = "errors",
    .primary_series = "errors",
    .sweep_granularity = 1,
    .example_point = 9,
    .plan = pl_plan,
    .fill = gd_wl_fill,
    .decode = gd_wl_decode,
    .release = gd_wl_release,
    .split = gd_wl_split,
};
