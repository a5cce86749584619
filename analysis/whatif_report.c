/* whatif_report.c -- report.md of a what-if experiment.
 *
 * What a reader needs to judge the experiment without the CSVs: the command
 * (to run it again), the combinations, per workload the cycles, IPC and
 * speedup of each combination, the geometric mean beside a claimed figure
 * when one is given, the counters that say *why* (reservation fails by what
 * was missing, refused heads re-enqueued, head-of-line stall cycles, FIFO
 * occupancy, coalescer and issue stalls), the picture, and every workload that
 * failed or computed a wrong result -- those are out of every mean.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/results.h"
#include "analysis/whatif_table.h"

static void put_cell_num(gd_text *t, double v, const char *fmt)
{
    gd_text_printf(t, " | ");
    if (isfinite(v))
        gd_text_printf(t, fmt, v);
    else
        gd_text_printf(t, "–");
}

/* A label inside a Markdown table cell: '|' would split it. */
static void put_md(gd_text *t, const char *s)
{
    for (; *s; s++)
        gd_text_printf(t, *s == '|' ? "\\|" : "%c", *s);
}

int gd_whatif_write_report(const gd_whatif *w, const char *dir, double claim,
                           const char *claim_label, gd_err *err)
{
    gd_text t;
    gd_text_init(&t);
    gd_text_printf(&t, "# What-if on %s\n\n", w->device);
    if (w->device_name[0])
        gd_text_printf(&t, "Device: %s.  ", w->device_name);
    gd_text_printf(&t, "%zu of %zu combinations finished, %zu workloads each.\n\n", w->combos_done,
                   w->combo_count, w->workload_count);
    gd_text_printf(&t, "Made by:\n\n```\n%s\n```\n\n", w->command);
    gd_text_printf(&t, "Combinations (speedups are against c0):\n\n");
    for (size_t c = 0; c < w->combo_count; c++)
        gd_text_printf(&t, "- c%zu: `%s`%s\n", c, w->combo[c],
                       c < w->combos_done ? "" : " (not run)");

    gd_text_printf(&t, "\n## Cycles, IPC, speedup\n\n| workload |");
    for (size_t c = 0; c < w->combos_done; c++)
        gd_text_printf(&t, " c%zu cycles | c%zu IPC | c%zu speedup |", c, c, c);
    gd_text_printf(&t, "\n|---|");
    for (size_t c = 0; c < w->combos_done; c++)
        gd_text_printf(&t, "---:|---:|---:|");
    gd_text_printf(&t, "\n");
    for (size_t k = 0; k < w->workload_count; k++) {
        gd_text_printf(&t, "| ");
        put_md(&t, w->workload[k]);
        for (size_t c = 0; c < w->combos_done; c++) {
            const gd_whatif_cell *x = gd_whatif_at(w, c, k);
            if (x->ran && !isfinite(x->cycles)) /* a cuda device: the host's time */
                put_cell_num(&t, x->wall_ms, "%.3f ms");
            else
                put_cell_num(&t, x->ran ? x->cycles : NAN, "%.0f");
            put_cell_num(&t, x->ran && x->cycles > 0 ? x->warp_insns / x->cycles : NAN, "%.3f");
            put_cell_num(&t, gd_whatif_speedup(w, c, k), "%.3f×");
        }
        gd_text_printf(&t, " |\n");
    }
    gd_text_printf(&t, "| **geometric mean** |");
    for (size_t c = 0; c < w->combos_done; c++) {
        size_t used = 0;
        double gm = gd_whatif_gmean(w, c, &used);
        gd_text_printf(&t, " | |");
        if (isfinite(gm))
            gd_text_printf(&t, " **%.3f×** (%+.1f%%, %zu) |", gm, (gm - 1) * 100, used);
        else
            gd_text_printf(&t, " – |");
    }
    gd_text_printf(&t, "\n\n");
    if (claim > 0) {
        gd_text_printf(&t, "Claimed: **%.2f×** (%+.0f%%), %s.  Measured here (simulated cycles, "
                           "not a GPU):",
                       claim, (claim - 1) * 100, claim_label && *claim_label ? claim_label : "");
        for (size_t c = 1; c < w->combos_done; c++) {
            double gm = gd_whatif_gmean(w, c, NULL);
            gd_text_printf(&t, " c%zu %.3f× (%+.1f%%)%s", c, gm, (gm - 1) * 100,
                           c + 1 < w->combos_done ? ";" : ".");
        }
        gd_text_printf(&t, "\n\n");
    }
    gd_text_printf(&t, "![speedup per workload](plots/speedup.png)\n\n"
                       "(`plots/speedup.svg`; data and script beside it: `speedup.dat`, "
                       "`speedup.gp`.)\n\n");

    gd_text_printf(&t, "## Why: the load/store path's counters\n\n"
                       "Reservation fails count every refused tag probe (a refused request is "
                       "retried every cycle, as in GPGPU-Sim), by what was missing: a free way "
                       "of the set, an MSHR, merge room in an MSHR, miss-queue slots.  "
                       "*Requeues*: refused heads moved to the FIFO tail (reorder).  "
                       "*HOL stall*: cycles a refused head kept requests waiting behind it.  "
                       "FIFO occupancy: requests in the L1 request FIFO per cycle per SM that ran "
                       "(mean / max).  Coalescer stall: cycles it held a request it could not "
                       "enqueue (FIFO full, or the tail taken by a re-enqueued request).  Issue "
                       "stall: cycles a ready memory instruction waited for the LSU to accept "
                       "it.\n\n");
    gd_text_printf(&t, "| workload | combination | resv fails (set / mshr / merge / mq) | "
                       "requeues | HOL stall | FIFO mean / max | coalescer stall | issue stall "
                       "| L1 hit rate |\n|---|---|---|---:|---:|---|---:|---:|---:|\n");
    for (size_t k = 0; k < w->workload_count; k++)
        for (size_t c = 0; c < w->combos_done; c++) {
            const gd_whatif_cell *x = gd_whatif_at(w, c, k);
            gd_text_printf(&t, "| ");
            put_md(&t, w->workload[k]);
            gd_text_printf(&t, " | c%zu", c);
            if (!x->ran) {
                gd_text_printf(&t, " | did not run | | | | | | |\n");
                continue;
            }
            double acc = x->l1_hits + x->l1_misses;
            gd_text_printf(&t, " | %.0f (%.0f / %.0f / %.0f / %.0f) | %.0f | %.0f | %.2f / %.0f | "
                               "%.0f | %.0f | %s",
                           x->resv_fails, x->resv_set, x->resv_mshr, x->resv_merge,
                           x->resv_miss_queue, x->requeues, x->hol_cycles, x->fifo_mean,
                           x->fifo_max, x->coalescer_stalls, x->issue_stalls, acc > 0 ? "" : "–");
            if (acc > 0)
                gd_text_printf(&t, "%.1f%%", 100 * x->l1_hits / acc);
            gd_text_printf(&t, " |\n");
        }

    gd_whatif_report_mem(w, &t);

    int trouble = 0;
    for (size_t c = 0; c < w->combos_done; c++)
        for (size_t k = 0; k < w->workload_count; k++) {
            const gd_whatif_cell *x = gd_whatif_at(w, c, k);
            if (x->ran && x->errors == 0)
                continue;
            if (!trouble++)
                gd_text_printf(&t, "\n## Left out of the means\n\n");
            gd_text_printf(&t, "- %s under c%zu: ", w->workload[k], c);
            if (!x->ran)
                gd_text_printf(&t, "did not run: %s\n", x->note);
            else
                gd_text_printf(&t, "%.0f output words differ from the host's computation\n",
                               x->errors);
        }
    gd_text_printf(&t, "\n## Files\n\n`results.csv` (every counter of every run), `speedup.csv` "
                       "(the matrix above), `plots/`, `meta.json`.\n");
    char path[1100];
    snprintf(path, sizeof path, "%s/report.md", dir);
    int rc = gd_text_write_atomic(&t, path, err);
    gd_text_free(&t);
    return rc;
}
