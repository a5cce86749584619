/* sass_order.h -- does the machine code issue a probe's memory accesses in the
 * order its PTX writes them?  (header-only: tests/test_sass_order.c checks
 * ptxas' output with it, host/jit_check.c the driver JIT's at run time)
 *
 * The simulator runs PTX in program order; a GPU runs what ptxas made of it,
 * and ptxas schedules independent loads freely: the follower load of the mshr
 * probe, written after the n line loads, came out first on every target, so a
 * card would never have shown what the probe is about.  This check reads the
 * PTX (host/ptx_reader.h) and nvdisasm's listing of its cubin
 * (host/sass_reader.h) into one form (host/order_program.h) and follows the
 * dataflow of both.  An access is named by the *roots* of its address (the
 * kernel parameters it was computed from, %tid, a loaded value, a clock), a
 * store also by the roots of its data.  So "the LDG whose address comes from
 * gd_mshr_buf, gd_mshr_lines and gd_mshr_rounds, not %tid" is mshr's follower
 * on every target, and the lines are the LDGs whose addresses read %tid.
 *
 * Timed regions: the clock reads whose value is used (ptxas deletes one that
 * is not), and between two consecutive ones a *segment*, timed when some
 * instruction takes the difference of a clock read at or before its start and
 * one at or after its end (PTX sub; SASS IADD3 x, -y / VIADD).  Every timed
 * segment of the PTX must have a timed segment in the SASS with the same
 * events -- kind, space, roots -- in the same order; two accesses with the
 * same roots may trade places (two lines of one sweep).  Segments are paired
 * as a multiset, not by position, because ptxas may lay out basic blocks in
 * another order than the PTX text (icache_av's attacker lands ahead of its
 * victim).  A load that overtakes another with other roots, a store that moves
 * between loads, a load that leaves its region: each fails, and the message
 * shows both orders with the roots of every access.
 *
 * Limits, knowingly simple: text order is issue order within a segment (true
 * of the probes' straight-line timed code; a region ptxas unrolled or peeled
 * shows as a different count and fails loudly rather than passing); roots do
 * not see immediates, so accesses that differ only by a constant offset are
 * interchangeable here; ptxas' algebra could in principle drop a root (x * 0)
 * and fail the check spuriously -- the message then shows both sides' roots.
 */
#ifndef GD_SASS_ORDER_H
#define GD_SASS_ORDER_H

#include "kernels/ptx_emit.h"
#include "host/ptx_reader.h"
#include "host/sass_reader.h"

/* Cuts text into lines and parses them.  Returns 0, or -1 when a limit was
 * met (named in p->limit; p must still be freed). */
static inline int gd_order_parse(gd_order_prog *p, const char *text, int sass)
{
    p->sass = sass;
    p->text = strdup(text);
    if (!p->text) {
        gd_order_limit(p, "out of memory for the listing");
        return -1;
    }
    if (!sass)
        gd_ptx_params(p, text);
    for (char *save = NULL, *l = strtok_r(p->text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char *c = strstr(l, "//");
        if (c)
            *c = 0;
        while (*l == ' ' || *l == '\t')
            l++;
        size_t len = strlen(l);
        while (len && (l[len - 1] == ' ' || l[len - 1] == '\t' || l[len - 1] == ';' ||
                       l[len - 1] == '\r'))
            l[--len] = 0;
        if (!len)
            continue;
        if (sass)
            gd_sass_line(p, l);
        else
            gd_ptx_line(p, l);
    }
    gd_order_flow(p);
    return p->limit[0] ? -1 : 0;
}

/* A PTX program and the SASS ptxas made of it; the SASS borrows the PTX's
 * parameter layout and is read with the target's parameter base.  Returns 0,
 * or -1 when either met a limit (ptx->limit or sass->limit names it; both
 * must still be freed; gd_order_check then refuses to judge them). */
static inline int gd_order_parse_pair(gd_order_prog *ptx, gd_order_prog *sass, const char *ptx_text,
                                       const char *sass_text, unsigned param_base)
{
    memset(ptx, 0, sizeof *ptx);
    memset(sass, 0, sizeof *sass);
    int rc = gd_order_parse(ptx, ptx_text, 0);
    memcpy(sass->param_name, ptx->param_name, sizeof ptx->param_name);
    memcpy(sass->param_offset, ptx->param_offset, sizeof ptx->param_offset);
    memcpy(sass->param_size, ptx->param_size, sizeof ptx->param_size);
    sass->nparams = ptx->nparams;
    sass->param_base = param_base;
    if (gd_order_parse(sass, sass_text, 1) != 0)
        rc = -1;
    return rc;
}

/* ---------------------------------------------------------------- check */

/* "params buf,lines tid load" for messages. */
static inline void gd_order_roots_str(const gd_order_prog *p, uint32_t r, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = 0;
    for (int i = 0; i < GD_ORDER_MAX_PARAMS; i++)
        if (r & GD_ROOT_PARAM(i))
            n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s", n ? "," : "",
                                  i < p->nparams ? p->param_name[i] : "param?");
    static const struct { uint32_t bit; const char *name; } named[] = {
        {GD_ROOT_TID, "tid"},     {GD_ROOT_CTAID, "ctaid"}, {GD_ROOT_LANE, "laneid"},
        {GD_ROOT_SMID, "smid"},   {GD_ROOT_DRV, "ntid"},    {GD_ROOT_CLOCK, "clock"},
        {GD_ROOT_LOAD, "loaded"}, {GD_ROOT_OTHER, "other"}};
    for (size_t k = 0; k < sizeof named / sizeof named[0]; k++)
        if ((r & named[k].bit) && n < cap)
            n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? "," : "", named[k].name);
    if (!n)
        snprintf(out, cap, "-");
}

/* One event as the messages show it: "LDG ... {addr: buf,lines,rounds}". */
static inline void gd_order_event_str(const gd_order_prog *p, const gd_oi *i, char *out, size_t cap)
{
    char a[160], d[160];
    gd_order_roots_str(p, i->addr_sig, a, sizeof a);
    gd_order_roots_str(p, i->data_sig, d, sizeof d);
    if (i->event == GD_OE_CLOCK)
        snprintf(out, cap, "%s", i->text);
    else if (i->event == GD_OE_LOAD)
        snprintf(out, cap, "%s   {address from: %s}", i->text, a);
    else
        snprintf(out, cap, "%s   {address from: %s; data from: %s}", i->text, a, d);
}

/* The indices of p's events of kind `event` (all events with GD_OE_NONE). */
static inline int gd_order_events(const gd_order_prog *p, int event, int *out, int cap)
{
    int n = 0;
    for (int k = 0; k < p->n; k++)
        if (p->insn[k].event != GD_OE_NONE && (event == GD_OE_NONE || p->insn[k].event == event)) {
            if (n < cap)
                out[n] = k;
            n++;
        }
    return n;
}

/* The instruction of p that last defined register `reg` before k (text order), or -1. */
static inline int gd_order_def_before(const gd_order_prog *p, int k, int reg)
{
    for (int j = k - 1; j >= 0; j--)
        for (int d = 0; d < p->insn[j].ndefs; d++)
            if (p->insn[j].defs[d] == reg)
                return j;
    return -1;
}

/* Which clock read (its number among clocks[]) register `reg`, read by
 * instruction k, comes from, through copies (a definition with one register
 * source: mov, cvt, MOV, IMAD.MOV, R2UR); -1 if none. */
static inline int gd_order_clock_of(const gd_order_prog *p, int k, int reg, const int *clocks,
                                    int nclk)
{
    for (int depth = 0; depth < 8; depth++) {
        int j = gd_order_def_before(p, k, reg);
        if (j < 0)
            return -1;
        for (int c = 0; c < nclk; c++)
            if (clocks[c] == j)
                return c;
        const gd_oi *i = &p->insn[j];
        if (i->nsrcs != 1 || i->src_roots || i->event != GD_OE_NONE)
            return -1;
        k = j;
        reg = i->srcs[0];
    }
    return -1;
}

#define GD_ORDER_MAX_CLOCKS 256

/* Whether the value of PTX clock read k is ever read (text order, up to its
 * register's next definition): ptxas deletes a clock read nothing uses, so
 * such a read is not one of the events. */
static inline int gd_order_clock_used(const gd_order_prog *p, int k)
{
    if (p->sass || p->insn[k].ndefs < 1)
        return 1;
    int reg = p->insn[k].defs[0];
    for (int j = k + 1; j < p->n; j++) {
        const gd_oi *i = &p->insn[j];
        for (int s = 0; s < i->nsrcs; s++)
            if (i->srcs[s] == reg)
                return 1;
        for (int s = 0; s < i->ndata; s++)
            if (i->data[s] == reg)
                return 1;
        for (int s = 0; s < i->naddr; s++)
            if (i->addr[s] == reg)
                return 1;
        for (int d = 0; d < i->ndefs; d++)
            if (i->defs[d] == reg)
                return 0;
    }
    return 0;
}

/* The timed segments of a program: the clock reads (whose values are used),
 * and per segment between clock read s and s+1 whether some instruction takes
 * the difference of a clock read at or before s and one at or after s+1 (two
 * sources that come from two clock reads: PTX sub, SASS IADD3 x, -y / VIADD). */
typedef struct gd_order_segments {
    int clock[GD_ORDER_MAX_CLOCKS];
    int nclocks;
    char timed[GD_ORDER_MAX_CLOCKS];
    int ntimed;
} gd_order_segments;

static inline int gd_order_find_segments(const gd_order_prog *p, gd_order_segments *g)
{
    memset(g, 0, sizeof *g);
    int all[GD_ORDER_MAX_CLOCKS];
    int n = gd_order_events(p, GD_OE_CLOCK, all, GD_ORDER_MAX_CLOCKS);
    if (n > GD_ORDER_MAX_CLOCKS)
        return -1;
    for (int c = 0; c < n; c++)
        if (gd_order_clock_used(p, all[c]))
            g->clock[g->nclocks++] = all[c];
    for (int k = 0; k < p->n; k++) {
        const gd_oi *i = &p->insn[k];
        int lo = -1, hi = -1;
        for (int s = 0; s < i->nsrcs; s++) {
            int c = gd_order_clock_of(p, k, i->srcs[s], g->clock, g->nclocks);
            if (c < 0)
                continue;
            if (lo < 0 || c < lo)
                lo = c;
            if (c > hi)
                hi = c;
        }
        for (int s = lo; lo >= 0 && s < hi; s++)
            g->timed[s] = 1;
    }
    for (int s = 0; s + 1 < g->nclocks; s++)
        g->ntimed += g->timed[s];
    return 0;
}

static inline int gd_order_same(const gd_oi *a, const gd_oi *b)
{
    return a->event == b->event && a->space == b->space && a->addr_sig == b->addr_sig &&
           (a->event != GD_OE_STORE || a->data_sig == b->data_sig);
}

/* Whether segment s of p and segment t of q hold the same events in the same
 * order; *first_diff: the first event that differs. */
static inline int gd_order_segment_same(const gd_order_prog *p, const gd_order_segments *g, int s,
                                        const gd_order_prog *q, const gd_order_segments *h, int t,
                                        int *first_diff)
{
    int a = g->clock[s] + 1, b = h->clock[t] + 1, e = 0;
    for (;; e++) {
        while (a < g->clock[s + 1] && p->insn[a].event == GD_OE_NONE)
            a++;
        while (b < h->clock[t + 1] && q->insn[b].event == GD_OE_NONE)
            b++;
        int end_a = a >= g->clock[s + 1], end_b = b >= h->clock[t + 1];
        if (end_a && end_b)
            return 1;
        if (end_a || end_b || !gd_order_same(&p->insn[a], &q->insn[b])) {
            *first_diff = e;
            return 0;
        }
        a++;
        b++;
    }
}

/* Appends segment s of p to msg, marking event `mark`. */
static inline size_t gd_order_segment_str(const gd_order_prog *p, const gd_order_segments *g,
                                          int s, int mark, char *msg, size_t n, size_t cap)
{
    char ev[400];
    if (n < cap)
        n += (size_t)snprintf(msg + n, cap - n, "      %s\n", p->insn[g->clock[s]].text);
    for (int k = g->clock[s] + 1, e = 0; k < g->clock[s + 1] && n < cap; k++) {
        if (p->insn[k].event == GD_OE_NONE)
            continue;
        gd_order_event_str(p, &p->insn[k], ev, sizeof ev);
        n += (size_t)snprintf(msg + n, cap - n, "   %s %s\n", e == mark ? "->" : "  ", ev);
        e++;
    }
    if (n < cap)
        n += (size_t)snprintf(msg + n, cap - n, "      %s\n", p->insn[g->clock[s + 1]].text);
    return n;
}

/* Checks that the SASS has the PTX's timed segments, each with the PTX's
 * events in the PTX's order.  Returns GD_ORDER_UNCHECKED (-2) with msg naming
 * the limit when either program met one (or holds too many clock reads):
 * nothing is judged then.  Segments are paired as a multiset (ptxas may lay
 * out basic blocks in another order than the PTX text: icache_av's attacker
 * code lands ahead of its victim's), each PTX segment with an unused SASS
 * segment of the same events.  Returns 0, or -1 with a message that shows the
 * first PTX segment that differs from the SASS segment in its place (the nth
 * timed segment of each), and that SASS segment.  *timed:
 * the timed segments of the PTX. */
#define GD_ORDER_UNCHECKED (-2)
static inline int gd_order_check(const gd_order_prog *ptx, const gd_order_prog *sass, int *timed,
                                 char *msg, size_t cap)
{
    gd_order_segments g, h;
    *timed = 0;
    if (ptx->limit[0] || sass->limit[0]) {
        snprintf(msg, cap, "%s: %s", ptx->limit[0] ? "PTX" : "SASS",
                 ptx->limit[0] ? ptx->limit : sass->limit);
        return GD_ORDER_UNCHECKED;
    }
    if (gd_order_find_segments(ptx, &g) != 0 || gd_order_find_segments(sass, &h) != 0) {
        snprintf(msg, cap, "%d clock reads exceeded", GD_ORDER_MAX_CLOCKS);
        return GD_ORDER_UNCHECKED;
    }
    *timed = g.ntimed;
    if (g.nclocks != h.nclocks || g.ntimed != h.ntimed) {
        snprintf(msg, cap,
                 "%d clock reads (whose value is used) and %d timed segments in the PTX, %d and "
                 "%d in the SASS",
                 g.nclocks, g.ntimed, h.nclocks, h.ntimed);
        return -1;
    }
    /* In place first: the nth timed region of the PTX against the nth of the
     * SASS; the first that differs is what a failure shows. */
    int first_s = -1, first_t = -1, first_d = 0, first_nth = 0;
    for (int s = 0, t = 0, nth = 0; s + 1 < g.nclocks; s++) {
        if (!g.timed[s])
            continue;
        nth++;
        while (t + 1 < h.nclocks && !h.timed[t])
            t++;
        int d = 0;
        if (t + 1 >= h.nclocks || !gd_order_segment_same(ptx, &g, s, sass, &h, t, &d)) {
            first_s = s;
            first_t = t + 1 < h.nclocks ? t : -1;
            first_d = d;
            first_nth = nth;
            break;
        }
        t++;
    }
    if (first_s < 0)
        return 0;
    /* Then as a multiset: each PTX region with an unused SASS region of the
     * same events (being the same is an equivalence, so taking the first
     * unused one never blocks a later region's match). */
    char used[GD_ORDER_MAX_CLOCKS] = {0};
    int all = 1;
    for (int s = 0; s + 1 < g.nclocks && all; s++) {
        if (!g.timed[s])
            continue;
        int match = -1;
        for (int t = 0; t + 1 < h.nclocks && match < 0; t++) {
            int d = 0;
            if (h.timed[t] && !used[t] && gd_order_segment_same(ptx, &g, s, sass, &h, t, &d))
                match = t;
        }
        if (match < 0)
            all = 0;
        else
            used[match] = 1;
    }
    if (all)
        return 0;
    size_t n = (size_t)snprintf(msg, cap,
                                "timed region %d (from clock read %d of %d) has no match in "
                                "the SASS; first difference at event %d\n  PTX order:\n",
                                first_nth, first_s + 1, g.nclocks, first_d + 1);
    n = gd_order_segment_str(ptx, &g, first_s, first_d, msg, n, cap);
    if (first_t >= 0 && n < cap) {
        n += (size_t)snprintf(msg + n, cap - n, "  SASS order (its place in the listing):\n");
        gd_order_segment_str(sass, &h, first_t, first_d, msg, n, cap);
    }
    return -1;
}

/* The c[0x0] offset of the first kernel parameter differs by target (0x160
 * on sm_75..sm_89, 0x210 on sm_90, ...); it is measured rather than tabled: a
 * kernel "gd_param_base" stores its second parameter (a u32 at offset 8)
 * through its first, and the largest c[0x0] offset its SASS reads is base + 8.
 * The kernel's PTX for sm_<sm> (caller frees): */
static inline char *gd_sass_param_base_ptx(int sm)
{
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, sm / 10, sm % 10, 63);
    gd_ptx_printf(&p, ".visible .entry gd_param_base(.param .u64 a, .param .u32 b)\n{\n"
                      "    .reg .b64 %%rd<2>;\n    .reg .b32 %%r<2>;\n"
                      "    ld.param.u64 %%rd1, [a];\n    ld.param.u32 %%r1, [b];\n"
                      "    st.global.u32 [%%rd1], %%r1;\n    ret;\n}\n");
    return gd_ptx_finish(&p);
}

/* ... and the base read from its SASS listing (0: none found). */
static inline unsigned gd_sass_param_base(const char *sass)
{
    unsigned best = 0;
    for (const char *s = strstr(sass, "c[0x0][0x"); s; s = strstr(s + 1, "c[0x0][0x")) {
        unsigned off = (unsigned)strtoul(s + 7, NULL, 16);
        if (off > best)
            best = off;
    }
    return best >= 8 ? best - 8 : 0;
}

#endif
