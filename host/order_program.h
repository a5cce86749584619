/* order_program.h -- one instruction listing, PTX or SASS, reduced to what an
 * order check needs (host/sass_order.h includes it; header-only, so the tests
 * and host/jit_check.c read listings with the very same code).
 *
 * Per instruction: the registers it writes and reads, its guard, its branch
 * target, and whether it is an event that gives a timed region its meaning (a
 * clock read, a load from memory, a store).  The readers (tests/ptx_reader.h,
 * tests/sass_reader.h) fill it; gd_order_flow follows the dataflow over the
 * control-flow graph: reaching definitions, joined at merges, iterated to a
 * fixed point, so a value carried around a loop has every source it can have.
 * What a value is made of is named by its *roots*: the kernel parameters it
 * was computed from, the special registers (%tid <-> SR_TID, ...), a loaded
 * value or a clock; immediates and the shared-memory window name nothing.
 *
 * Out of memory and the fixed capacities (labels, registers, dataflow passes,
 * parameters) never abort: the first one met is named in p->limit ("1024
 * labels exceeded", "out of memory"), the reading goes on harmlessly, and
 * gd_order_check then refuses to judge ("unchecked: ..." at run time, a
 * failure in the tests).
 */
#ifndef GD_ORDER_PROGRAM_H
#define GD_ORDER_PROGRAM_H

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Roots of a value: bit i < 16 is kernel parameter i. */
#define GD_ROOT_PARAM(i) (1u << (i))
#define GD_ROOT_TID (1u << 16)
#define GD_ROOT_CTAID (1u << 17)
#define GD_ROOT_LANE (1u << 18)
#define GD_ROOT_SMID (1u << 19)
#define GD_ROOT_DRV (1u << 20)   /* %ntid, %nctaid: what the driver puts below the params */
#define GD_ROOT_CLOCK (1u << 21)
#define GD_ROOT_LOAD (1u << 22)  /* a value loaded from memory */
#define GD_ROOT_OTHER (1u << 23) /* another special register */

enum { GD_OE_NONE, GD_OE_CLOCK, GD_OE_LOAD, GD_OE_STORE };

#define GD_OI_MAX_REGS 16
#define GD_ORDER_MAX_PARAMS 16
#define GD_ORDER_HASH_SLOTS (1u << 16)
#define GD_ORDER_MAX_LABELS 1024
#define GD_ORDER_MAX_PASSES 1000
#define GD_ORDER_LIMIT_BYTES 96

/* One instruction of either listing, reduced to what the check needs. */
typedef struct gd_oi {
    const char *text;
    int event;                      /* GD_OE_* */
    char space;                     /* g(lobal) s(hared) c(onst) l(ocal) f (generic) */
    int defs[GD_OI_MAX_REGS], ndefs;
    uint32_t def_fixed[GD_OI_MAX_REGS]; /* roots a def takes whatever the sources */
    int fixed_only;                 /* defs take def_fixed only (loads, clocks, params) */
    int srcs[GD_OI_MAX_REGS * 2], nsrcs;
    uint32_t src_roots;             /* parameters and special registers read directly */
    int guard;                      /* guarding predicate register, -1: none */
    int addr[GD_OI_MAX_REGS], naddr;
    int data[GD_OI_MAX_REGS], ndata;
    uint32_t data_fixed;
    int target;                     /* branch target label, -1: none */
    int falls;                      /* 0: control never reaches the next instruction */
    int is_label;                   /* a label line (no instruction) */
    int label;                      /* its label number */
    uint32_t addr_sig, data_sig;    /* after gd_order_flow */
} gd_oi;

typedef struct gd_order_prog {
    int sass;                       /* 1: nvdisasm listing, 0: PTX */
    char *text;                     /* owned copy, cut into lines */
    gd_oi *insn;
    int n, cap;
    char *label_name[GD_ORDER_MAX_LABELS];
    int nlabels;
    char **reg_slot;                /* open-addressing table of register names */
    int *reg_index;
    int nregs;
    /* PTX parameter layout (from the PTX; the SASS program borrows it) */
    char param_name[GD_ORDER_MAX_PARAMS][64];
    unsigned param_offset[GD_ORDER_MAX_PARAMS], param_size[GD_ORDER_MAX_PARAMS];
    int nparams;
    unsigned param_base;            /* SASS: c[0x0] offset of the first parameter */
    gd_oi spill;                    /* where an instruction goes when memory ran out */
    char limit[GD_ORDER_LIMIT_BYTES]; /* the first limit met ("" : none): nothing judged */
} gd_order_prog;

/* Records the first limit the reading met (later ones are consequences). */
static inline void gd_order_limit(gd_order_prog *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void gd_order_limit(gd_order_prog *p, const char *fmt, ...)
{
    if (p->limit[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->limit, sizeof p->limit, fmt, ap);
    va_end(ap);
}

static inline void gd_order_free(gd_order_prog *p)
{
    free(p->text);
    free(p->insn);
    for (int i = 0; i < p->nlabels; i++)
        free(p->label_name[i]);
    if (p->reg_slot)
        for (unsigned i = 0; i < GD_ORDER_HASH_SLOTS; i++)
            free(p->reg_slot[i]);
    free(p->reg_slot);
    free(p->reg_index);
    memset(p, 0, sizeof *p);
}

/* The index of a register name (created on first sight); -1 for the zero
 * registers and true predicates, which carry nothing. */
static inline int gd_order_reg(gd_order_prog *p, const char *name, size_t len)
{
    if ((len == 2 && !strncmp(name, "RZ", 2)) || (len == 3 && !strncmp(name, "URZ", 3)) ||
        (len == 2 && !strncmp(name, "PT", 2)) || (len == 3 && !strncmp(name, "UPT", 3)))
        return -1;
    if (!p->reg_slot || !p->reg_index) {
        if (!p->reg_slot)
            p->reg_slot = calloc(GD_ORDER_HASH_SLOTS, sizeof *p->reg_slot);
        if (!p->reg_index)
            p->reg_index = calloc(GD_ORDER_HASH_SLOTS, sizeof *p->reg_index);
        if (!p->reg_slot || !p->reg_index) {
            gd_order_limit(p, "out of memory for the register table");
            return -1;
        }
    }
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 16777619u;
    for (uint32_t k = 0;; k++) {
        if (k >= GD_ORDER_HASH_SLOTS) {
            gd_order_limit(p, "%u register names exceeded", GD_ORDER_HASH_SLOTS);
            return -1;
        }
        uint32_t s = (h + k) & (GD_ORDER_HASH_SLOTS - 1);
        if (!p->reg_slot[s]) {
            p->reg_slot[s] = strndup(name, len);
            if (!p->reg_slot[s]) {
                gd_order_limit(p, "out of memory for a register name");
                return -1;
            }
            p->reg_index[s] = p->nregs++;
            return p->reg_index[s];
        }
        if (strlen(p->reg_slot[s]) == len && !strncmp(p->reg_slot[s], name, len))
            return p->reg_index[s];
    }
}

static inline int gd_order_label(gd_order_prog *p, const char *name, size_t len)
{
    for (int i = 0; i < p->nlabels; i++)
        if (strlen(p->label_name[i]) == len && !strncmp(p->label_name[i], name, len))
            return i;
    if (p->nlabels >= GD_ORDER_MAX_LABELS) {
        gd_order_limit(p, "%d labels exceeded", GD_ORDER_MAX_LABELS);
        return -1;
    }
    p->label_name[p->nlabels] = strndup(name, len);
    if (!p->label_name[p->nlabels]) {
        gd_order_limit(p, "out of memory for a label");
        return -1;
    }
    return p->nlabels++;
}

/* A new instruction; when memory runs out, p->spill (written, never read). */
static inline gd_oi *gd_order_new(gd_order_prog *p, const char *text)
{
    gd_oi *i = &p->spill;
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 256;
        gd_oi *grown = realloc(p->insn, (size_t)cap * sizeof *p->insn);
        if (grown) {
            p->insn = grown;
            p->cap = cap;
        } else {
            gd_order_limit(p, "out of memory for %d instructions", cap);
        }
    }
    if (p->n < p->cap)
        i = &p->insn[p->n++];
    memset(i, 0, sizeof *i);
    i->text = text;
    i->guard = -1;
    i->target = -1;
    i->falls = 1;
    return i;
}

static inline void gd_order_push(int *list, int *n, int reg)
{
    if (reg >= 0 && *n < GD_OI_MAX_REGS)
        list[(*n)++] = reg;
}

/* Splits s (modified) at top-level commas into at most max operands. */
static inline int gd_order_split(char *s, char **op, int max)
{
    int n = 0, depth = 0;
    while (*s == ' ')
        s++;
    if (!*s)
        return 0;
    op[n++] = s;
    for (; *s; s++) {
        if (*s == '[' || *s == '{' || *s == '(')
            depth++;
        else if (*s == ']' || *s == '}' || *s == ')')
            depth--;
        else if (*s == ',' && depth == 0 && n < max) {
            *s = 0;
            s++;
            while (*s == ' ')
                s++;
            op[n++] = s;
            s--;
        }
    }
    return n;
}

/* The root a special register (SR_TID.X, %tid.x, ...) stands for. */
static inline uint32_t gd_order_special(const char *name)
{
    if (!strncmp(name, "SR_", 3))
        name += 3;
    else if (*name == '%')
        name++;
    if (!strncasecmp(name, "clock", 5) && strncasecmp(name, "clockhi", 7))
        return GD_ROOT_CLOCK;
    if (!strncasecmp(name, "clockhi", 7))
        return GD_ROOT_CLOCK;
    if (!strncasecmp(name, "tid", 3))
        return GD_ROOT_TID;
    if (!strncasecmp(name, "ctaid", 5))
        return GD_ROOT_CTAID;
    if (!strncasecmp(name, "laneid", 6))
        return GD_ROOT_LANE;
    if (!strncasecmp(name, "smid", 4))
        return GD_ROOT_SMID;
    if (!strncasecmp(name, "ntid", 4) || !strncasecmp(name, "nctaid", 6))
        return GD_ROOT_DRV;
    if (!strncasecmp(name, "CgaCtaId", 8) || !strncasecmp(name, "SWIN", 4))
        return 0; /* the shared-memory window: an address base, names nothing */
    return GD_ROOT_OTHER;
}

/* ------------------------------------------------------------- dataflow */

/* Reaching definitions over the control-flow graph, every register's roots the
 * union of the roots of the definitions that reach; fills addr_sig/data_sig. */
static inline void gd_order_flow(gd_order_prog *p)
{
    int n = p->n, nr = p->nregs > 0 ? p->nregs : 1;
    if (n == 0 || p->limit[0])
        return; /* nothing to follow, or a listing read only in part */
    int *label_at = malloc((size_t)(p->nlabels + 1) * sizeof *label_at);
    int *leader = calloc((size_t)n + 1, sizeof *leader);
    int *block_of = malloc(((size_t)n + 1) * sizeof *block_of);
    int *start = NULL;
    uint32_t *in = NULL, *st = NULL;
    if (!label_at || !leader || !block_of) {
        gd_order_limit(p, "out of memory for the control-flow graph");
        goto done;
    }
    for (int l = 0; l < p->nlabels; l++)
        label_at[l] = n;
    for (int k = 0; k < n; k++)
        if (p->insn[k].is_label && p->insn[k].label >= 0) {
            label_at[p->insn[k].label] = k;
            leader[k] = 1;
        }
    leader[0] = 1;
    for (int k = 0; k < n; k++)
        if ((p->insn[k].target >= 0 || !p->insn[k].falls) && k + 1 < n)
            leader[k + 1] = 1;
    int nb = 0;
    for (int k = 0; k < n; k++) {
        nb += leader[k];
        block_of[k] = nb - 1;
    }
    block_of[n] = nb;
    start = malloc(((size_t)nb + 1) * sizeof *start);
    in = calloc((size_t)(nb + 1) * (size_t)nr, sizeof *in);
    st = malloc((size_t)nr * sizeof *st);
    if (!start || !in || !st) {
        gd_order_limit(p, "out of memory for the dataflow of %d registers", nr);
        goto done;
    }
    for (int k = n - 1; k >= 0; k--)
        start[block_of[k]] = k;
    start[nb] = n;
    for (int pass = 0, changed = 1; changed; pass++) {
        if (pass >= GD_ORDER_MAX_PASSES) {
            gd_order_limit(p, "%d dataflow passes exceeded", GD_ORDER_MAX_PASSES);
            break;
        }
        changed = 0;
        for (int b = 0; b < nb; b++) {
            memcpy(st, in + (size_t)b * nr, (size_t)nr * sizeof *st);
            int k = start[b];
            for (; k < start[b + 1]; k++) {
                gd_oi *i = &p->insn[k];
                uint32_t r = i->src_roots;
                for (int s = 0; s < i->nsrcs; s++)
                    r |= st[i->srcs[s]];
                if (i->event == GD_OE_LOAD || i->event == GD_OE_STORE) {
                    uint32_t a = 0, d = i->data_fixed;
                    for (int s = 0; s < i->naddr; s++)
                        a |= st[i->addr[s]];
                    for (int s = 0; s < i->ndata; s++)
                        d |= st[i->data[s]];
                    i->addr_sig = a;
                    i->data_sig = d;
                }
                uint32_t g = i->guard >= 0 ? st[i->guard] : 0;
                for (int d = 0; d < i->ndefs; d++) {
                    uint32_t v = i->fixed_only ? i->def_fixed[d] : r | g;
                    if (i->guard >= 0)
                        v |= st[i->defs[d]];
                    st[i->defs[d]] = v;
                }
            }
            gd_oi *last = &p->insn[start[b + 1] - 1];
            int succ[2] = {-1, -1};
            if (last->falls && b + 1 < nb)
                succ[0] = b + 1;
            if (last->target >= 0 && label_at[last->target] < n)
                succ[1] = block_of[label_at[last->target]];
            for (int s = 0; s < 2; s++) {
                if (succ[s] < 0)
                    continue;
                uint32_t *t = in + (size_t)succ[s] * nr;
                for (int r = 0; r < nr; r++)
                    if ((t[r] | st[r]) != t[r]) {
                        t[r] |= st[r];
                        changed = 1;
                    }
            }
        }
    }
done:
    free(label_at);
    free(leader);
    free(block_of);
    free(start);
    free(in);
    free(st);
}

#endif
