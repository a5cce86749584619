/* fleet_plot.c -- the fleet's p-chase curves overlaid, through analysis/plot.c.
 *
 * One picture answers "which card is not like the others" faster than any
 * table: every card's median latency vs footprint on the same log axes, so a
 * card whose L1 knee sits elsewhere, or whose L2 plateau is higher, shows as
 * the one line that leaves the bundle.  The first card is drawn as the plot's
 * measured curve, the others as its extra series (gd_plot_write draws each as
 * a line with points, writes the data and script beside the pictures, and
 * renames the pictures into place only once gnuplot made them whole).
 */
#include "host/fleet_plot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/plot.h"

#define CSV_LINE_BYTES 512
#define TITLE_BYTES 300

void gd_fleet_curve_free(gd_fleet_curve *c)
{
    free(c->x);
    free(c->median);
    memset(c, 0, sizeof *c);
}

int gd_fleet_curve_read(const char *path, gd_fleet_curve *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return gd_fail(err, "%s: cannot open", path);
    char line[CSV_LINE_BYTES], first_series[64] = "";
    size_t cap = 0;
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (lineno == 1)
            continue; /* header */
        double x, lo, med;
        char series[64];
        if (sscanf(line, "%lf,%63[^,],%lf,%lf", &x, series, &lo, &med) != 4) {
            rc = gd_fail(err, "%s:%d: not a footprint,series,min,median,... row", path, lineno);
            break;
        }
        if (!first_series[0])
            snprintf(first_series, sizeof first_series, "%s", series);
        if (strcmp(series, first_series))
            continue;
        if (out->count == cap) {
            cap = cap ? 2 * cap : 64;
            double *nx = realloc(out->x, cap * sizeof *nx);
            if (nx)
                out->x = nx;
            double *ny = realloc(out->median, cap * sizeof *ny);
            if (ny)
                out->median = ny;
            if (!nx || !ny) {
                rc = gd_fail(err, "out of memory");
                break;
            }
        }
        out->x[out->count] = x;
        out->median[out->count++] = med;
    }
    fclose(f);
    if (rc != 0)
        gd_fleet_curve_free(out);
    return rc;
}

int gd_fleet_plot(const char *dir, const gd_fleet_curve *const *curves, const char *const *titles,
                  const int *flagged, size_t n, gd_err *err)
{
    if (n == 0)
        return gd_fail(err, "no curve to plot");
    char(*names)[TITLE_BYTES] = calloc(n, sizeof *names);
    gd_plot_series *extra = n > 1 ? calloc(n - 1, sizeof *extra) : NULL;
    if (!names || (n > 1 && !extra)) {
        free(names);
        free(extra);
        return gd_fail(err, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        snprintf(names[i], TITLE_BYTES, "%s%s", titles[i], flagged[i] ? " (outlier)" : "");
    for (size_t i = 1; i < n; i++)
        extra[i - 1] = (gd_plot_series){.title = names[i], .x = curves[i]->x,
                                        .y = curves[i]->median, .count = curves[i]->count};
    gd_plot_spec spec = {
        .name = "fleet-pchase",
        .title = "p-chase on every card",
        .xlabel = "footprint",
        .ylabel = "cycles per access (median)",
        .log_x = 1,
        .x_is_bytes = 1,
        .x = curves[0]->x,
        .median = curves[0]->median,
        .count = curves[0]->count,
        .measured_title = names[0],
        .extra = extra,
        .extra_count = n - 1,
    };
    char plots[1100];
    snprintf(plots, sizeof plots, "%s/plots", dir);
    int rc = gd_plot_write(plots, &spec, err);
    free(names);
    free(extra);
    return rc;
}
