/* pcm_stream.c -- the streaming-write control of the PCM experiments (issue
 * 13): every round writes every line of a 4-MiB region in order, so every row
 * sees the same number of writes (no skew) and a row, once written, is not
 * written again until the whole region has passed -- four times the rows the
 * largest buffer (1 MiB) holds.  The write buffer should save no PCM write
 * bytes here (a row's 8 line writes become one 1-KiB row write, the same
 * bytes).  The sweep value is the number of rounds (default 1: with more, a
 * 1-MiB buffer keeps the rows its active list holds from round to round).
 */
#include <stdlib.h>

#include "kernels/workloads/pcm_rows.h"

#define ST_ROWS 4096u

static int ps_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                   gd_probe_plan *out, gd_err *err)
{
    if (point == 0)
        point = 1;
    if (point > 16)
        return gd_fail(err, "pcm_stream: %llu rounds is outside 1..16", (unsigned long long)point);
    uint32_t rounds = (uint32_t)point, per = ST_ROWS * GD_PCM_LINES_PER_ROW;
    uint32_t *lines = malloc((size_t)rounds * per * 4);
    if (!lines)
        return gd_fail(err, "pcm_stream: out of memory");
    uint32_t unused = 0;
    uint64_t rng = gd_wl_seed(opts, 0x5eed00c3ull);
    uint32_t salt = gd_wl_rand(&rng, 1u << 30);
    for (uint32_t r = 0; r < rounds; r++)
        gd_pcm_rows_round(lines + (size_t)r * per, ST_ROWS, 0, &unused, 0, salt);
    return gd_pcm_rows_plan("pcm_stream", dev, rounds, per, lines, per, 0, point, out, err);
}

const gd_probe gd_workload_pcm_stream = {
    .name = "pcm_stream",
    .summary = "streaming writes over 4 MiB, every row alike: the no-skew control",
    .sweep_name = "rounds",
    .value_unit = "errors",
    .primary_series = "errors",
    .sweep_granularity = 1,
    .example_point = 1,
    .plan = ps_plan,
    .fill = gd_wl_fill,
    .decode = gd_wl_decode,
    .release = gd_wl_release,
    .split = gd_wl_split,
};
