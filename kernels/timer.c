/* timer.c -- the cost of reading %clock64 (timer.h). */
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
