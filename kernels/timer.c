/* timer.c -- the cost of reading %clock64, and the effective SM clock (timer.h). */
#include "kernels/timer.h"

#include <math.h>
#include <stdio.h>
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
    double m;
    return gd_timer_median_p95(v, n, &m);
}

double gd_timer_median_p95(const double *v, size_t n, double *p95)
{
    *p95 = NAN;
    if (n == 0)
        return NAN;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return NAN;
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    *p95 = s[(size_t)(0.95 * (double)(n - 1) + 0.5)];
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

void gd_timer_ptx_cta_span_end(gd_ptx *p, const char *sink, const char *tid, const char *sum,
                               const char *pred_thread0, const char *cta, const char *out)
{
    gd_ptx_printf(p,
                  "    mov.u32 %%r23, %s;\n"
                  "    shl.b32 %%r24, %s, 2;\n"
                  "    add.u32 %%r23, %%r23, %%r24;\n"
                  "    st.shared.u32 [%%r23], %s;        // every load consumed\n"
                  "    bar.sync 0;\n"
                  "    mov.u64 %%rd22, %%clock64;\n"
                  "    mov.u64 %%rd23, %%globaltimer;\n"
                  "    sub.s64 %%rd24, %%rd22, %%rd20;      // the span's cycles\n"
                  "    @!%s bra $L_done;\n"
                  "    mul.wide.u32 %%rd12, %s, %d;\n"
                  "    add.s64 %%rd12, %s, %%rd12;\n"
                  "    st.global.u64 [%%rd12], %%rd24;\n"
                  "    st.global.u64 [%%rd12+8], %%rd24;\n"
                  "    st.global.u64 [%%rd12+16], %%rd21;\n"
                  "    st.global.u64 [%%rd12+24], %%rd23;\n"
                  "$L_done:\n"
                  "    ret;\n"
                  "}\n",
                  sink, tid, sum, pred_thread0, cta, GD_TIMER_SPAN_BYTES, out);
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

/* ---- --timer clock32: the probe PTX for GPGPU-Sim (issue 16) ----
 *
 * GPGPU-Sim implements %clock but aborts on the first read of %clock64.  This
 * rewrites every "mov.u64 %rdN, %clock64;" of a probe's PTX into a 32-bit
 * read widened into the same register:
 *     mov.u32 %gd_clock32, %clock;
 *     cvt.u64.u32 %rdN, %gd_clock32;
 * declaring %gd_clock32 beside each entry's first .reg line.  The probes keep
 * their deltas as 32-bit words (sub.s64 then cvt.u32.u64), so the delta of
 * two widened reads is (t1 - t0) mod 2^32: right across a wrap of the 32-bit
 * clock, as long as one timed interval is under 2^32 cycles. */
#define GD_CLOCK32_REG "%gd_clock32"

static int clock64_read(const char *line, size_t len, char *reg, size_t reg_bytes)
{
    static const char mov[] = "mov.u64", src[] = "%clock64;";
    const char *p = line, *end = line + len;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if ((size_t)(end - p) < sizeof mov || strncmp(p, mov, sizeof mov - 1))
        return 0;
    p += sizeof mov - 1;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    const char *r = p;
    while (p < end && *p != ',' && *p != ' ')
        p++;
    size_t rlen = (size_t)(p - r);
    while (p < end && (*p == ',' || *p == ' ' || *p == '\t'))
        p++;
    if (rlen == 0 || rlen >= reg_bytes || (size_t)(end - p) < sizeof src - 1 ||
        strncmp(p, src, sizeof src - 1))
        return 0;
    memcpy(reg, r, rlen);
    reg[rlen] = 0;
    return 1;
}

int gd_timer_clock32_ptx(const char *ptx, char **out, unsigned *reads, gd_err *err)
{
    *out = NULL;
    *reads = 0;
    size_t cap = strlen(ptx) * 3 + 4096, used = 0;
    char *text = malloc(cap);
    if (!text)
        return gd_fail(err, "timer clock32: out of memory");
    int in_entry = 0, declared = 0;
    for (const char *line = ptx; *line;) {
        size_t len = strcspn(line, "\n");
        char reg[64];
        const char *piece = line;
        size_t piece_len = len;
        char buf[256];
        if (clock64_read(line, len, reg, sizeof reg)) {
            int n = snprintf(buf, sizeof buf, "    mov.u32 %s, %%clock;\n    cvt.u64.u32 %s, %s;",
                             GD_CLOCK32_REG, reg, GD_CLOCK32_REG);
            piece = buf;
            piece_len = (size_t)n;
            ++*reads;
        }
        if (used + piece_len + 64 > cap) {
            free(text);
            return gd_fail(err, "timer clock32: the rewritten PTX outgrew its buffer");
        }
        memcpy(text + used, piece, piece_len);
        used += piece_len;
        text[used++] = '\n';
        if (strstr(line, ".entry") && strstr(line, ".entry") < line + len) {
            in_entry = 1;
            declared = 0;
        }
        const char *dot_reg = strstr(line, ".reg ");
        if (in_entry && !declared && dot_reg && dot_reg < line + len) {
            used += (size_t)sprintf(text + used, "    .reg .u32 %s;\n", GD_CLOCK32_REG);
            declared = 1;
        }
        line += len + (line[len] == '\n');
    }
    text[used] = 0;
    if (*reads == 0) {
        free(text);
        return gd_fail(err, "timer clock32: the PTX reads no %%clock64 to rewrite");
    }
    *out = text;
    return 0;
}

double gd_timer_miss_threshold(const double *reference, size_t n)
{
    double p95;
    double median = gd_timer_median_p95(reference, n, &p95);
    double margin = 2 * (p95 - median);
    if (!(margin > GD_TIMER_MISS_MARGIN))
        margin = GD_TIMER_MISS_MARGIN;
    double t = median + margin;
    return t < GD_TIMER_MISS_FACTOR * median ? t : GD_TIMER_MISS_FACTOR * median;
}
