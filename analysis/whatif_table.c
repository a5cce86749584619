/* whatif_table.c -- the numbers of a what-if experiment as CSV: every counter
 * of every cell (results.csv), and the speedup matrix with its geometric mean
 * (speedup.csv), the two files a reader puts in a spreadsheet.  Written
 * atomically after every combination, so an interrupted experiment keeps the
 * combinations it finished.
 */
#include "analysis/whatif_table.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/results.h"

double gd_whatif_speedup(const gd_whatif *w, size_t combo, size_t workload)
{
    const gd_whatif_cell *b = gd_whatif_at(w, 0, workload), *c = gd_whatif_at(w, combo, workload);
    if (!b->ran || !c->ran || b->errors != 0 || c->errors != 0 || !(b->cycles > 0) ||
        !(c->cycles > 0))
        return NAN;
    return b->cycles / c->cycles;
}

double gd_whatif_gmean(const gd_whatif *w, size_t combo, size_t *used)
{
    double log_sum = 0;
    size_t n = 0;
    for (size_t k = 0; k < w->workload_count; k++) {
        double s = gd_whatif_speedup(w, combo, k);
        if (isfinite(s)) {
            log_sum += log(s);
            n++;
        }
    }
    if (used)
        *used = n;
    return n ? exp(log_sum / (double)n) : NAN;
}

/* A CSV field: quoted, quotes doubled (combination labels hold spaces). */
static void put_csv_string(gd_text *t, const char *s)
{
    gd_text_printf(t, "\"");
    for (; *s; s++)
        gd_text_printf(t, *s == '"' ? "\"\"" : "%c", *s);
    gd_text_printf(t, "\"");
}

static void put_num(gd_text *t, double v)
{
    if (isfinite(v))
        gd_text_printf(t, ",%.10g", v);
    else
        gd_text_printf(t, ",");
}

int gd_whatif_write_tables(const gd_whatif *w, const char *dir, gd_err *err)
{
    char path[1024];
    gd_text t;
    gd_text_init(&t);
    gd_text_printf(&t, "combination,workload,ran,errors,cycles,warp_insns,ipc,speedup,wall_ms,"
                       "resv_fails,resv_fails_set,resv_fails_mshr,resv_fails_merge,"
                       "resv_fails_miss_queue,requeues,hol_stall_cycles,fifo_occupancy_mean,"
                       "fifo_occupancy_max,coalescer_stall_cycles,issue_stall_cycles,l1_hits,"
                       "l1_misses,mem_writes,write_bytes_in,write_bytes_out,pcm_writes,"
                       "wb_read_hits,wb_read_misses,wb_write_hits,wb_write_misses,"
                       "wb_dirty_evictions,rows_written,row_writes_max,top3pct_write_share,"
                       "top2.6pct_write_share,rows_below20_share,note\n");
    for (size_t c = 0; c < w->combos_done; c++)
        for (size_t k = 0; k < w->workload_count; k++) {
            const gd_whatif_cell *x = gd_whatif_at(w, c, k);
            put_csv_string(&t, w->combo[c]);
            gd_text_printf(&t, ",");
            put_csv_string(&t, w->workload[k]);
            gd_text_printf(&t, ",%d", x->ran);
            const double v[] = {x->errors, x->cycles, x->warp_insns,
                                x->cycles > 0 ? x->warp_insns / x->cycles : NAN,
                                gd_whatif_speedup(w, c, k), x->wall_ms, x->resv_fails,
                                x->resv_set, x->resv_mshr, x->resv_merge, x->resv_miss_queue,
                                x->requeues, x->hol_cycles, x->fifo_mean, x->fifo_max,
                                x->coalescer_stalls, x->issue_stalls, x->l1_hits, x->l1_misses,
                                x->mem_writes, x->write_bytes_in, x->write_bytes_out,
                                x->pcm_writes, x->wb_read_hits, x->wb_read_misses,
                                x->wb_write_hits, x->wb_write_misses, x->wb_dirty_evictions,
                                x->rows_written, x->row_writes_max, x->top3_share,
                                x->top2p6_share, x->rows_below20};
            for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
                put_num(&t, x->ran ? v[i] : NAN);
            gd_text_printf(&t, ",");
            put_csv_string(&t, x->note);
            gd_text_printf(&t, "\n");
        }
    snprintf(path, sizeof path, "%s/results.csv", dir);
    int rc = gd_text_write_atomic(&t, path, err);
    gd_text_free(&t);
    if (rc)
        return -1;

    gd_text_init(&t);
    gd_text_printf(&t, "workload");
    for (size_t c = 0; c < w->combos_done; c++) {
        gd_text_printf(&t, ",");
        put_csv_string(&t, w->combo[c]);
    }
    gd_text_printf(&t, "\n");
    for (size_t k = 0; k < w->workload_count; k++) {
        put_csv_string(&t, w->workload[k]);
        for (size_t c = 0; c < w->combos_done; c++)
            put_num(&t, gd_whatif_speedup(w, c, k));
        gd_text_printf(&t, "\n");
    }
    gd_text_printf(&t, "\"geometric mean\"");
    for (size_t c = 0; c < w->combos_done; c++)
        put_num(&t, gd_whatif_gmean(w, c, NULL));
    gd_text_printf(&t, "\n");
    snprintf(path, sizeof path, "%s/speedup.csv", dir);
    rc = gd_text_write_atomic(&t, path, err);
    gd_text_free(&t);
    return rc;
}
