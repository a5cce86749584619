/* whatif_plot.c -- a what-if experiment as the bar chart of CN110457238A's
 * Figure 3: per workload, one bar per combination of overrides, the height its
 * speedup over the first combination (so the first is 1.0 everywhere), and a
 * last group "GM" with the geometric means.  A dashed line marks a claimed
 * speedup when one is given (the patent's 1.23).
 *
 * Beside the pictures (plots/speedup.png and .svg) lie speedup.dat -- tab
 * separated, a header row naming the combinations, NaN for a workload that did
 * not run correctly -- and speedup.gp, which a user can restyle and re-run in
 * that directory; the pictures are drawn and put in place by gd_plot_draw
 * (analysis/plot.c), atomically as every plot of a run.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/plot.h"
#include "analysis/results.h"
#include "analysis/whatif_table.h"

#define WHATIF_PLOT_WIDTH_PX 1100
#define WHATIF_PLOT_HEIGHT_PX 600

/* A label as one tab-separated field (tabs and newlines become spaces). */
static void put_field(gd_text *t, const char *s)
{
    for (; *s; s++)
        gd_text_printf(t, "%c", *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

/* A single-quoted gnuplot string: a quote doubles. */
static void put_gp_string(gd_text *t, const char *s)
{
    gd_text_printf(t, "'");
    for (; *s; s++)
        gd_text_printf(t, *s == '\'' ? "''" : (*s == '\n' ? " " : "%c"), *s);
    gd_text_printf(t, "'");
}

static void put_value(gd_text *t, double v)
{
    if (isfinite(v))
        gd_text_printf(t, "\t%.6f", v);
    else
        gd_text_printf(t, "\tNaN");
}

int gd_whatif_plot(const gd_whatif *w, const char *dir, double claim, const char *claim_label,
                   gd_err *err)
{
    if (w->combos_done == 0)
        return gd_fail(err, "whatif: no combination finished: nothing to draw");
    char plots[1024], path[1100];
    snprintf(plots, sizeof plots, "%s/plots", dir);
    if (gd_mkdirs(plots, err) != 0)
        return -1;

    gd_text t;
    gd_text_init(&t);
    gd_text_printf(&t, "workload");
    for (size_t c = 0; c < w->combos_done; c++) {
        gd_text_printf(&t, "\t");
        put_field(&t, w->combo[c]);
    }
    gd_text_printf(&t, "\n");
    for (size_t k = 0; k < w->workload_count; k++) {
        put_field(&t, w->workload[k]);
        for (size_t c = 0; c < w->combos_done; c++)
            put_value(&t, gd_whatif_speedup(w, c, k));
        gd_text_printf(&t, "\n");
    }
    gd_text_printf(&t, "GM");
    for (size_t c = 0; c < w->combos_done; c++)
        put_value(&t, gd_whatif_gmean(w, c, NULL));
    gd_text_printf(&t, "\n");
    snprintf(path, sizeof path, "%s/speedup.dat", plots);
    int rc = gd_text_write_atomic(&t, path, err);
    gd_text_free(&t);
    if (rc)
        return -1;

    gd_text_init(&t);
    gd_text_printf(&t, "# speedup.gp -- written by gpudissect whatif.\n"
                       "# Restyle at will and re-run in this directory:  gnuplot speedup.gp\n"
                       "# It reads speedup.dat and draws speedup.png and speedup.svg (or out_png /\n"
                       "# out_svg when those are defined first).\n"
                       "if (!exists(\"out_png\")) out_png = 'speedup.png'\n"
                       "if (!exists(\"out_svg\")) out_svg = 'speedup.svg'\n"
                       "set encoding utf8\n"
                       "set datafile separator '\\t'\n"
                       "set datafile missing 'NaN'\n"
                       "set style data histograms\n"
                       "set style histogram clustered gap 1\n"
                       "set style fill solid 0.85 border -1\n"
                       "set boxwidth 0.9\n"
                       "set grid ytics\n"
                       "set yrange [0:*]\n"
                       "set key outside bottom center horizontal maxrows 4\n"
                       "set xtics nomirror rotate by -20\n"
                       "set ylabel 'speedup over the first combination (cycles)'\n");
    gd_text_printf(&t, "set title ");
    char title[512];
    snprintf(title, sizeof title, "what-if on %s: speedup per workload, GM = geometric mean",
             w->device);
    put_gp_string(&t, title);
    gd_text_printf(&t, "\n");
    if (claim > 0) {
        gd_text_printf(&t, "set arrow from graph 0, first %.6f to graph 1, first %.6f nohead "
                           "dt 2 lw 2 lc rgb '#c00000'\n",
                       claim, claim);
        gd_text_printf(&t, "set label ");
        put_gp_string(&t, claim_label && *claim_label ? claim_label : "claim");
        gd_text_printf(&t, " at graph 0.01, first %.6f offset 0,0.7 tc rgb '#c00000'\n", claim);
    }
    gd_text_printf(&t, "set terminal pngcairo size %d,%d noenhanced font 'sans,10'\n"
                       "set output out_png\n"
                       "plot for [i=2:%zu] 'speedup.dat' using i:xtic(1) title columnheader(i)\n"
                       "set terminal svg size %d,%d dynamic noenhanced font 'sans,10' "
                       "background rgb 'white'\n"
                       "set output out_svg\n"
                       "replot\n"
                       "unset output\n",
                   WHATIF_PLOT_WIDTH_PX, WHATIF_PLOT_HEIGHT_PX, w->combos_done + 1,
                   WHATIF_PLOT_WIDTH_PX, WHATIF_PLOT_HEIGHT_PX);
    snprintf(path, sizeof path, "%s/speedup.gp", plots);
    rc = gd_text_write_atomic(&t, path, err);
    gd_text_free(&t);
    if (rc)
        return -1;
    return gd_plot_draw(plots, "speedup", err);
}
