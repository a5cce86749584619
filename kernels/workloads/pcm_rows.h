/* pcm_rows.h -- the row writer behind the PCM workloads (issue 13): one
 * launch per round, each warp writing one whole 128-byte line that the host
 * chose, so the host decides exactly which memory rows see how many writes.
 *
 * Main memory sees a write only when the L2 evicts a dirty line, so every
 * round ends with a read sweep larger than the L2 (see gd_pcm_rows_round): a
 * line written in every round is evicted between rounds and reaches memory
 * once per round.  Written words hold round + 1;
 * the host's expected buffer is the last round that wrote each line.
 */
#ifndef GD_WL_PCM_ROWS_H
#define GD_WL_PCM_ROWS_H

#include "kernels/workloads/workload.h"

#define GD_PCM_LINES_PER_ROW 8u /* 1 KiB rows (seed 003) of 128-byte lines */
#define GD_PCM_READ 0x80000000u /* a line list entry: read line (entry & ~this) of `in` */

/* lines: rounds x per_round line indices (owned by the plan from now on);
 * span_lines: the output buffer's lines (every written index below it);
 * sweep_lines: the lines of the read-only input `in`. */
int gd_pcm_rows_plan(const char *name, const gd_device_info *dev, uint32_t rounds,
                     uint32_t per_round, uint32_t *lines, uint32_t span_lines,
                     uint32_t sweep_lines, uint64_t point, gd_probe_plan *out, gd_err *err);

/* Fills `lines` for one round: `hot_rows` rows from row 0, all their lines (in
 * order), then `cold` fresh rows from *next_cold_row on, one line each
 * (a hashed line of the row, so the cold lines cover every L2 set), then a
 * read of `sweep_lines` lines of `in` (more than the L2 holds: it evicts the
 * round's dirty lines, so each reaches memory once a round, without writes
 * of its own).  `salt` (from the workload's seed) rotates the hot rows' and
 * the sweep's starting points and the cold rows' hashed line: other inputs,
 * the same counts per row. */
void gd_pcm_rows_round(uint32_t *lines, uint32_t hot_rows, uint32_t cold, uint32_t *next_cold_row,
                       uint32_t sweep_lines, uint32_t salt);

/* A skewed-write workload's shape: what distinguishes k-means-like from
 * LIBOR-like writes is only how many rows are hot and how many cold rows each
 * round adds (the sweep value is the number of rounds). */
typedef struct gd_pcm_rows_shape {
    const char *name;
    uint32_t hot_rows, cold_per_round, sweep_lines;
    uint32_t max_rounds;
    uint64_t seed;      /* the workload's own seed when opts gives none */
} gd_pcm_rows_shape;

/* The whole plan of such a workload for `point` rounds (0: example_point,
 * passed as default_rounds). */
int gd_pcm_rows_plan_shape(const gd_pcm_rows_shape *shape, const gd_probe_opts *opts,
                           const gd_device_info *dev, uint64_t point, uint64_t default_rounds,
                           gd_probe_plan *out, gd_err *err);

#endif
