/* whatif_report_mem.c -- the main-memory section of a what-if report.md
 * (issue 13): for every run whose arch has PCM or its write buffer, the
 * writes that reached memory and what the buffer did with them, and seed
 * 003's Figure-2 figures (how unevenly the writes fall on 1 KiB rows).
 * Nothing when no run has these counters (every arch without [WB] or
 * `[DRAM] kind`), so reports of other experiments are unchanged.
 */
#include <math.h>
#include <stdio.h>

#include "analysis/results.h"
#include "analysis/whatif_table.h"

static void put_num(gd_text *t, double v, const char *fmt)
{
    if (isfinite(v))
        gd_text_printf(t, fmt, v);
    else
        gd_text_printf(t, "–");
}

void gd_whatif_report_mem(const gd_whatif *w, gd_text *t)
{
    int any = 0;
    for (size_t c = 0; c < w->combos_done && !any; c++)
        for (size_t k = 0; k < w->workload_count; k++)
            any |= gd_whatif_at(w, c, k)->ran && isfinite(gd_whatif_at(w, c, k)->mem_writes);
    if (!any)
        return;
    gd_text_printf(t, "\n## Main memory: PCM and the write buffer\n\n"
                      "*Writes in*: dirty L2 evictions reaching memory (before the buffer); "
                      "*bytes out / in*: the share of their bytes the memory array writes "
                      "(dirty bytes the buffer still holds count as written); *array writes*: "
                      "write commands that held a PCM bank; buffer hits and misses (read / "
                      "write).  Figure 2 (seed 003): rows written, the most written row, the "
                      "share of the writes the top 3%% and 2.6%% of rows take, the share of "
                      "rows written fewer than 20 times.\n\n"
                      "| workload | combination | writes in | bytes out / in | array writes | "
                      "buffer hits (r / w) | buffer misses (r / w) | rows | max | top 3%% | "
                      "top 2.6%% | rows < 20 |\n"
                      "|---|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|\n");
    for (size_t k = 0; k < w->workload_count; k++)
        for (size_t c = 0; c < w->combos_done; c++) {
            const gd_whatif_cell *x = gd_whatif_at(w, c, k);
            if (!x->ran || !isfinite(x->mem_writes))
                continue;
            gd_text_printf(t, "| %s | c%zu | %.0f | ", w->workload[k], c, x->mem_writes);
            put_num(t, x->write_bytes_in > 0 ? x->write_bytes_out / x->write_bytes_in : NAN,
                    "%.3f");
            gd_text_printf(t, " | ");
            put_num(t, x->pcm_writes, "%.0f");
            gd_text_printf(t, " | ");
            put_num(t, x->wb_read_hits, "%.0f");
            gd_text_printf(t, " / ");
            put_num(t, x->wb_write_hits, "%.0f");
            gd_text_printf(t, " | ");
            put_num(t, x->wb_read_misses, "%.0f");
            gd_text_printf(t, " / ");
            put_num(t, x->wb_write_misses, "%.0f");
            gd_text_printf(t, " | ");
            put_num(t, x->rows_written, "%.0f");
            gd_text_printf(t, " | ");
            put_num(t, x->row_writes_max, "%.0f");
            gd_text_printf(t, " | ");
            put_num(t, 100 * x->top3_share, "%.1f%%");
            gd_text_printf(t, " | ");
            put_num(t, 100 * x->top2p6_share, "%.1f%%");
            gd_text_printf(t, " | ");
            put_num(t, 100 * x->rows_below20, "%.1f%%");
            gd_text_printf(t, " |\n");
        }
}
