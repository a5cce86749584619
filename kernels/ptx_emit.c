/* ptx_emit.c -- a growable PTX text buffer and the module header.
 *
 * THE TARGET TABLE.  Each plain target sm_XY with the PTX ISA version that
 * introduced it: the PTX ISA release notes ("PTX ISA version N.M adds support
 * for sm_XY"), as LLVM's NVPTX backend records them (NVPTX.td, `Proc<"sm_88",
 * [SM88, PTX90]>` ...).  Checked against the installed ptxas (CUDA 13.0,
 * V13.0.88): for every target its `--help` lists, a loop over `.version 6.3 ..
 * 9.0` finds the oldest version it accepts, and that is the table's value for
 * all but sm_88, which ptxas already takes at 7.3 although the notes introduce
 * it with 9.0 (we keep 9.0: a driver is not bound to be as lenient).
 * tests/test_ptxas.c re-checks that every target the installed ptxas lists is in
 * the table and that ptxas rejects the version just below each entry.
 *
 * AN UNKNOWN COMPUTE CAPABILITY.  A GPU newer than the table (or one in a gap,
 * cc 10.4, say) gets `.target` the newest known plain target below it, with
 * that target's version.  That is the only safe choice: PTX for a plain sm_XY is
 * JIT-compiled by the driver for any GPU of compute capability X.Y or later
 * (ptxas --help: "PTX for .target sm_XY can be compiled to all GPU targets sm_MN
 * ... where MN >= XY"), while machine code (and the a/f feature targets) is
 * not portable across majors, and a .target newer than the driver's PTX ISA
 * fails outright.  The header then carries a comment line that says so, and
 * gd_ptx_target_for_cc's note is what meta.json records.
 */
#include "kernels/ptx_emit.h"

#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gd_ptx_init(gd_ptx *p)
{
    memset(p, 0, sizeof *p);
}

/* Room for `need` bytes in all: at least twice the capacity (or exactly
 * `need` when that is more, a block's copies at once).  0, or -1 (failed). */
static int ptx_reserve(gd_ptx *p, size_t need)
{
    if (need <= p->capacity)
        return 0;
    size_t cap = p->capacity ? p->capacity * 2 : 4096;
    if (cap < need)
        cap = need;
    char *t = realloc(p->text, cap);
    if (!t) {
        p->failed = 1;
        return -1;
    }
    p->text = t;
    p->capacity = cap;
    return 0;
}

void gd_ptx_printf(gd_ptx *p, const char *fmt, ...)
{
    if (p->failed)
        return;
    for (;;) {
        size_t room = p->capacity - p->length;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(p->text ? p->text + p->length : NULL, p->text ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            p->failed = 1;
            return;
        }
        if (p->text && (size_t)n < room) {
            p->length += (size_t)n;
            return;
        }
        if (ptx_reserve(p, p->length + (size_t)n + 1) != 0)
            return;
    }
}

void gd_ptx_repeat(gd_ptx *p, size_t from, size_t times)
{
    if (p->failed || from >= p->length || !times)
        return;
    size_t unit = p->length - from;
    if (unit > (SIZE_MAX - p->length - 1) / times) {
        p->failed = 1;
        return;
    }
    if (ptx_reserve(p, p->length + unit * times + 1) != 0)
        return;
    /* doubling: each copy takes as many units as are there already */
    size_t done = 0;
    while (done < times) {
        size_t n = times - done < done + 1 ? times - done : done + 1;
        memcpy(p->text + p->length, p->text + from, n * unit);
        p->length += n * unit;
        done += n;
    }
    p->text[p->length] = 0;
}

char *gd_ptx_finish(gd_ptx *p)
{
    char *t = p->failed ? NULL : p->text;
    if (p->failed)
        free(p->text);
    memset(p, 0, sizeof *p);
    return t;
}

void gd_ptx_free(gd_ptx *p)
{
    free(p->text);
    memset(p, 0, sizeof *p);
}

/* sm_XY -> the PTX ISA (times ten) that introduced it; see the top of the file. */
static const struct {
    int sm;
    int isa_x10;
} target_table[] = {
    {50, 40}, {52, 41}, {53, 42}, {60, 50}, {61, 50}, {62, 50}, {70, 60}, {72, 61},
    {75, 63}, {80, 70}, {86, 71}, {87, 74}, {88, 90}, {89, 78}, {90, 78}, {100, 86},
    {101, 86}, /* Thor before CUDA 13 renamed it sm_110 */
    {103, 88}, {110, 90}, {120, 87}, {121, 88},
};
#define TARGET_COUNT (sizeof target_table / sizeof target_table[0])

int gd_ptx_isa_for_target(int sm)
{
    for (size_t i = 0; i < TARGET_COUNT; i++)
        if (target_table[i].sm == sm)
            return target_table[i].isa_x10;
    return 0;
}

const int *gd_ptx_known_targets(size_t *count)
{
    static int sms[TARGET_COUNT];
    for (size_t i = 0; i < TARGET_COUNT; i++)
        sms[i] = target_table[i].sm;
    *count = TARGET_COUNT;
    return sms;
}

void gd_ptx_target_for_cc(int cc_major, int cc_minor, gd_ptx_target *out)
{
    memset(out, 0, sizeof *out);
    int sm = cc_major * 10 + cc_minor;
    size_t below = TARGET_COUNT; /* the newest known target <= sm */
    for (size_t i = 0; i < TARGET_COUNT; i++) {
        if (target_table[i].sm == sm) {
            out->sm = sm;
            out->isa_x10 = target_table[i].isa_x10;
            return;
        }
        if (target_table[i].sm < sm &&
            (below == TARGET_COUNT || target_table[i].sm > target_table[below].sm))
            below = i;
    }
    out->fallback = 1;
    if (below == TARGET_COUNT) {
        out->sm = target_table[0].sm;
        out->isa_x10 = target_table[0].isa_x10;
        snprintf(out->note, sizeof out->note,
                 "compute capability %d.%d is older than every PTX target known (sm_%d): PTX "
                 "for sm_%d, which its driver cannot run", cc_major, cc_minor, out->sm, out->sm);
        return;
    }
    out->sm = target_table[below].sm;
    out->isa_x10 = target_table[below].isa_x10;
    snprintf(out->note, sizeof out->note,
             "compute capability %d.%d is unknown to the PTX target table: PTX for sm_%d "
             "(.version %d.%d), which the driver JIT-compiles forward", cc_major, cc_minor,
             out->sm, out->isa_x10 / 10, out->isa_x10 % 10);
}

void gd_ptx_header(gd_ptx *p, int cc_major, int cc_minor, int min_isa_x10)
{
    gd_ptx_target t;
    gd_ptx_target_for_cc(cc_major, cc_minor, &t);
    int isa = t.isa_x10 < min_isa_x10 ? min_isa_x10 : t.isa_x10;
    gd_ptx_printf(p, "//\n// Generated by gpudissect\n//\n\n");
    if (t.fallback)
        gd_ptx_printf(p, "// %s\n", t.note);
    gd_ptx_printf(p, ".version %d.%d\n.target sm_%d\n.address_size 64\n\n", isa / 10, isa % 10,
                  t.sm);
}
