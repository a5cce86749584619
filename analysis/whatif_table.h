/* whatif_table.h -- the results of `gpudissect whatif`: every workload under
 * every combination of arch overrides, and what is written from them.
 *
 * host/whatif.c runs the workloads and fills a gd_whatif; the files are
 * written from it here (tables: whatif_table.c), in whatif_plot.c (the
 * Figure-3-style bar chart) and whatif_report.c (report.md).  Speedups are
 * against the FIRST combination (cycles of combination 0 / cycles of
 * combination c, per workload), the geometric mean over the workloads that
 * ran in both; a workload that failed, or whose output was wrong, is left out
 * of every mean and said so.
 */
#ifndef GD_WHATIF_TABLE_H
#define GD_WHATIF_TABLE_H

#include <stddef.h>

#include "host/device.h"

#define GD_WHATIF_LABEL_BYTES 256
#define GD_WHATIF_NOTE_BYTES 256

/* One workload under one combination. */
typedef struct gd_whatif_cell {
    int ran;                  /* 1: it ran (see errors); 0: it failed, `note` says why */
    double cycles;            /* sim.cycles (sim); NaN on a device without them */
    double warp_insns;        /* sim.warp_insns */
    double wall_ms;           /* host time of the launches (synchronized) */
    double errors;            /* output words unlike the host's (0: correct) */
    double resv_fails, resv_set, resv_mshr, resv_merge, resv_miss_queue;
    double requeues;          /* l1d.requeues */
    double hol_cycles;        /* l1d.reservation_stall_cycles */
    double fifo_mean, fifo_max; /* l1d.fifo_occupancy_mean / _max */
    double coalescer_stalls, issue_stalls; /* lsu.*_stall_cycles */
    double l1_hits, l1_misses;
    /* PCM main memory and its write buffer (issue 13): NaN where the arch has none */
    double mem_writes, write_bytes_in, write_bytes_out; /* before / after the buffer */
    double pcm_writes;        /* pcm.array_writes: write commands that held a PCM bank */
    double wb_read_hits, wb_read_misses, wb_write_hits, wb_write_misses, wb_dirty_evictions;
    double rows_written, row_writes_max;     /* seed 003 Figure 2, at memory's input */
    double top3_share, top2p6_share, rows_below20; /* fractions 0..1 */
    char note[GD_WHATIF_NOTE_BYTES];
} gd_whatif_cell;

typedef struct gd_whatif {
    char device[128];         /* as opened, e.g. "sim:cn110457238" */
    char device_name[128];
    char command[2048];       /* the command line that made it */
    size_t combo_count;
    char (*combo)[GD_WHATIF_LABEL_BYTES];    /* "L1D.reorder=true L1D.pipelined_issue=false";
                                              * "(arch as is)" without --vary */
    size_t workload_count;
    char (*workload)[64];                    /* "bfs", "scatter:50" */
    gd_whatif_cell *cells;    /* combo-major: cells[c * workload_count + w] */
    size_t combos_done;       /* combinations finished (the files cover these) */
} gd_whatif;

static inline gd_whatif_cell *gd_whatif_at(const gd_whatif *w, size_t combo, size_t workload)
{
    return &w->cells[combo * w->workload_count + workload];
}

/* Cycles of combination 0 over cycles of `combo` for one workload; NaN when
 * either did not run correctly or has no cycles. */
double gd_whatif_speedup(const gd_whatif *w, size_t combo, size_t workload);
/* Geometric mean of the speedups of `combo` over the workloads with one;
 * NaN when none has.  *used (may be NULL) gets how many went into it. */
double gd_whatif_gmean(const gd_whatif *w, size_t combo, size_t *used);

/* DIR/results.csv (one row per cell: every counter) and DIR/speedup.csv (one
 * row per workload, one column per combination, then the geometric mean row),
 * both atomically.  Only the first combos_done combinations. */
int gd_whatif_write_tables(const gd_whatif *w, const char *dir, gd_err *err);

/* The Figure-3-style bar chart: DIR/plots/speedup.{dat,gp,png,svg} (whatif_plot.c).
 * `claim` > 0 draws a dashed line at that speedup labelled `claim_label`. */
int gd_whatif_plot(const gd_whatif *w, const char *dir, double claim, const char *claim_label,
                   gd_err *err);

/* DIR/report.md (whatif_report.c): the command, the table of cycles / IPC /
 * speedup, the counters, the picture, the geometric means (and the claim). */
/* whatif_report_mem.c: report.md's main-memory section (PCM, the write
 * buffer, the Figure-2 figures; issue 13), appended to t when any run has
 * those counters. */
struct gd_text;
void gd_whatif_report_mem(const gd_whatif *w, struct gd_text *t);
int gd_whatif_write_report(const gd_whatif *w, const char *dir, double claim,
                           const char *claim_label, gd_err *err);

#endif
