/* timer.c -- the cost of reading %clock64, and the effective SM clock (timer.h). */
#include "kernels/timer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TIMER_MAX_CALIBRATION 256

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gd_timer_median(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return NAN;
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    free(s);
    return m;
}

double gd_timer_median_u32(const uint8_t *buf, size_t n)
{
    double v[TIMER_MAX_CALIBRATION];
    if (n > TIMER_MAX_CALIBRATION)
        n = TIMER_MAX_CALIBRATION;
    for (size_t i = 0; i < n; i++) {
        uint32_t w;
        memcpy(&w, buf + 4 * i, 4);
        v[i] = w;
    }
    return gd_timer_median(v, n);
}

double gd_timer_min_u32(const uint8_t *buf, size_t n)
{
    double m = NAN;
    for (size_t i = 0; i < n; i++) {
        uint32_t w;
        memcpy(&w, buf + 4 * i, 4);
        if (i == 0 || w < m)
            m = w;
    }
    return m;
}

void gd_timer_ptx_region_start(gd_ptx *p, const char *clock_reg, const char *ns_reg)
{
    gd_ptx_printf(p,
                  "    mov.u64 %s, %%clock64;      // the clocked region: cycles ...\n"
                  "    mov.u64 %s, %%globaltimer;  // ... against nanoseconds\n",
                  clock_reg, ns_reg);
}

void gd_timer_ptx_region_stop(gd_ptx *p, const char *clock_reg, const char *ns_reg,
                              const char *tmp_reg)
{
    /* the same order as the start (clock, then timer): both reads span the same
     * stretch, shifted by one instruction */
    gd_ptx_printf(p,
                  "    mov.u64 %s, %%clock64;\n"
                  "    sub.s64 %s, %s, %s;\n"
                  "    mov.u64 %s, %%globaltimer;\n"
                  "    sub.s64 %s, %s, %s;\n",
                  tmp_reg, clock_reg, tmp_reg, clock_reg, tmp_reg, ns_reg, tmp_reg, ns_reg);
}

#define TIMER_NS_PER_US 1000.0

double gd_timer_effective_mhz(uint64_t cycles, uint64_t ns)
{
    if (ns == 0)
        return NAN;
    return (double)cycles * TIMER_NS_PER_US / (double)ns;
}

int gd_timer_add_clock_series(gd_probe_result *out, uint64_t cycles, uint64_t ns)
{
    gd_series *s = gd_probe_result_add(out, GD_TIMER_CLOCK_SERIES, 1);
    if (!s)
        return -1;
    s->samples[0] = gd_timer_effective_mhz(cycles, ns);
    return 0;
}
