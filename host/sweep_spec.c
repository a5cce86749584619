/* sweep_spec.c -- a sweep's points from its text ("A:B", "A:B:N", "A:B:+S";
 * runner.h's gd_sweep_parse).
 */
#include "host/runner.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/arch.h"

/* Appends a point; duplicates are removed once, after sorting (gd_sweep_parse):
 * a search here made building a sweep quadratic in its points. */
static int sweep_add(gd_sweep *s, size_t *cap, uint64_t v)
{
    if (s->count == *cap) {
        size_t nc = *cap ? *cap * 2 : 32;
        uint64_t *np = realloc(s->points, nc * sizeof *np);
        if (!np)
            return -1;
        s->points = np;
        *cap = nc;
    }
    s->points[s->count++] = v;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* v to the nearest multiple of g (at least g); rounds down where rounding up
 * would pass 2^64 */
static uint64_t snap(uint64_t v, uint64_t g)
{
    uint64_t s = v > UINT64_MAX - g / 2 ? v / g * g : (v + g / 2) / g * g;
    return s < g ? g : s;
}

/* A double sweep value as an integer in [lo, hi]: no conversion of a value
 * outside uint64_t's range (undefined behaviour) */
static uint64_t clamp_point(double v, uint64_t lo, uint64_t hi)
{
    double r = floor(v + 0.5);
    if (!(r >= (double)lo))
        return lo;
    if (r >= 0x1p64 || (uint64_t)r > hi)
        return hi;
    return (uint64_t)r;
}

#define SWEEP_MAX_POINTS 100000

int gd_sweep_parse(const char *spec, uint64_t granularity, gd_sweep *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    if (!granularity)
        granularity = 1;
    char buf[128];
    if (snprintf(buf, sizeof buf, "%s", spec) >= (int)sizeof buf)
        return gd_fail(err, "sweep '%.40s...': too long", spec);
    for (const char *c = spec; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) /* never echoed: the error stays one line */
            return gd_fail(err, "sweep: a control character at offset %zu", (size_t)(c - spec));
    char *parts[3] = {buf, NULL, NULL};
    int n = 1;
    for (char *p = buf; *p && n < 4; p++) {
        if (*p == ':') {
            if (n == 3)
                return gd_fail(err, "sweep '%s': expected FROM:TO[:STEPS]", spec);
            *p = 0;
            parts[n++] = p + 1;
        }
    }
    if (n < 2)
        return gd_fail(err, "sweep '%s': expected FROM:TO[:STEPS] (e.g. 1KiB:8MiB)", spec);
    uint64_t from, to;
    if (gd_parse_bytes(parts[0], &from) || gd_parse_bytes(parts[1], &to))
        return gd_fail(err, "sweep '%s': FROM and TO must be sizes like 1KiB or 8MiB", spec);
    if (from == 0 || to < from)
        return gd_fail(err, "sweep '%s': need 0 < FROM <= TO", spec);
    if (granularity > to)
        return gd_fail(err, "sweep '%s': every point is a multiple of %llu bytes (the stride or the "
                            "probe's granularity), larger than TO",
                       spec, (unsigned long long)granularity);
    size_t cap = 0;
    int rc = 0;
    if (n == 2) {
        for (uint64_t v = from; v <= to && rc == 0; v *= 2) {
            rc = sweep_add(out, &cap, snap(v, granularity));
            if (v > UINT64_MAX / 2)
                break;
        }
        if (rc == 0)
            rc = sweep_add(out, &cap, snap(to, granularity));
    } else if (parts[2][0] == '+') {
        uint64_t step;
        if (gd_parse_bytes(parts[2] + 1, &step) || step == 0)
            return gd_fail(err, "sweep '%s': +STEP must be a positive size", spec);
        if ((to - from) / step + 1 > SWEEP_MAX_POINTS)
            return gd_fail(err, "sweep '%s': more than %d points", spec, SWEEP_MAX_POINTS);
        /* from + i * step <= to for every i below: no sum can wrap past 2^64 */
        uint64_t count = (to - from) / step + 1;
        for (uint64_t i = 0; i < count && rc == 0; i++)
            rc = sweep_add(out, &cap, snap(from + i * step, granularity));
    } else {
        char *end;
        errno = 0;
        unsigned long steps = strtoul(parts[2], &end, 10);
        if (*end || errno || steps < 2 || steps > SWEEP_MAX_POINTS)
            return gd_fail(err, "sweep '%s': STEPS must be a number of points, 2..%d", spec,
                           SWEEP_MAX_POINTS);
        double ratio = pow((double)to / (double)from, 1.0 / (double)(steps - 1));
        for (unsigned long i = 0; i < steps && rc == 0; i++) {
            double v = (double)from * pow(ratio, (double)i);
            rc = sweep_add(out, &cap, snap(i + 1 == steps ? to : clamp_point(v, from, to), granularity));
        }
    }
    if (rc != 0) {
        gd_sweep_free(out);
        return gd_fail(err, "sweep: out of memory");
    }
    qsort(out->points, out->count, sizeof *out->points, cmp_u64);
    size_t kept = 0;
    for (size_t i = 0; i < out->count; i++)
        if (kept == 0 || out->points[i] != out->points[kept - 1])
            out->points[kept++] = out->points[i];
    out->count = kept;
    return 0;
}

void gd_sweep_free(gd_sweep *sweep)
{
    free(sweep->points);
    memset(sweep, 0, sizeof *sweep);
}

