/* sass_order.h -- does the machine code issue a probe's memory accesses in the
 * order its PTX writes them?  (include after testing.h and ptx_toolchain.h)
 *
 * The simulator runs PTX in program order; a GPU runs what ptxas made of it,
 * and ptxas schedules independent loads freely: the follower load of the mshr
 * probe, written after the n line loads, came out first on every target, so a
 * card would never have shown what the probe is about.  This reader puts the
 * PTX text and nvdisasm's listing of its cubin into one small form -- per
 * instruction the registers it writes and reads, its guard, its branch target,
 * and whether it is one of the events that give a timed region its meaning: a
 * clock read, a load from memory, a store -- and follows the dataflow of both
 * over their control-flow graphs (reaching definitions, joined at merges, to a
 * fixed point, so a value carried around a loop has every source it can have).
 *
 * What an access reads is named by the *roots* of its address: the kernel
 * parameters it was computed from (ld.param [name] in PTX, c[0x0][base+offset]
 * in SASS, the base measured per target by gd_sass_param_base), the special
 * registers (%tid <-> SR_TID, %laneid, ...), a loaded value (a pointer chase)
 * or a clock.  Immediates and the shared-memory window (a symbol in PTX,
 * SR_CgaCtaId or nothing in SASS) name nothing.  A store is named by the roots
 * of its address and of its data.  So "the LDG whose address comes from the
 * buffer, the line count and the round count, not the thread index" is mshr's
 * follower on every target, and the lines are the LDGs whose addresses read
 * %tid.
 *
 * The order check: the clock reads of PTX and SASS are paired by position (a
 * different count fails).  A segment between two consecutive clock reads is
 * timed when some subtraction in the PTX takes the difference of a clock read
 * at or before its start and one at or after its end.  In every timed segment
 * the events of the SASS, in text order, must be the events of the PTX, in
 * text order: same kind, same space, same roots, position by position.  Two
 * accesses with the same roots may trade places (two lines of the same sweep);
 * a load that moves ahead of another that reads other roots, a store that
 * moves between loads, a load that leaves its region, all fail, naming the
 * instructions.
 *
 * Limits, knowingly simple: text order is issue order within a region (true
 * of the probes' straight-line timed code; a region that ptxas unrolled or
 * peeled would show as a different count and fail loudly rather than pass);
 * roots do not see immediates, so accesses that differ only by a constant
 * offset are interchangeable here; ptxas' algebra could in principle drop a
 * root (x * 0) and fail the check spuriously -- the message then shows the
 * roots of both sides.
 */
#ifndef GD_SASS_ORDER_H
#define GD_SASS_ORDER_H

#include <ctype.h>

#include "kernels/ptx_emit.h"

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
    int sub;                        /* PTX sub.*: a candidate elapsed-time subtraction */
    uint32_t addr_sig, data_sig;    /* after gd_order_flow */
} gd_oi;

typedef struct gd_order_prog {
    int sass;                       /* 1: nvdisasm listing, 0: PTX */
    char *text;                     /* owned copy, cut into lines */
    gd_oi *insn;
    int n, cap;
    char *label_name[1024];
    int nlabels;
    char **reg_slot;                /* open-addressing table of register names */
    int *reg_index;
    int nregs;
    /* PTX parameter layout (from the PTX; the SASS program borrows it) */
    char param_name[GD_ORDER_MAX_PARAMS][64];
    unsigned param_offset[GD_ORDER_MAX_PARAMS], param_size[GD_ORDER_MAX_PARAMS];
    int nparams;
    unsigned param_base;            /* SASS: c[0x0] offset of the first parameter */
} gd_order_prog;

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
    if (!p->reg_slot) {
        p->reg_slot = calloc(GD_ORDER_HASH_SLOTS, sizeof *p->reg_slot);
        p->reg_index = calloc(GD_ORDER_HASH_SLOTS, sizeof *p->reg_index);
        assert_non_null(p->reg_slot);
        assert_non_null(p->reg_index);
    }
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 16777619u;
    for (uint32_t k = 0;; k++) {
        assert_true(k < GD_ORDER_HASH_SLOTS);
        uint32_t s = (h + k) & (GD_ORDER_HASH_SLOTS - 1);
        if (!p->reg_slot[s]) {
            p->reg_slot[s] = strndup(name, len);
            assert_non_null(p->reg_slot[s]);
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
    assert_true(p->nlabels < 1024);
    p->label_name[p->nlabels] = strndup(name, len);
    assert_non_null(p->label_name[p->nlabels]);
    return p->nlabels++;
}

static inline gd_oi *gd_order_new(gd_order_prog *p, const char *text)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 256;
        p->insn = realloc(p->insn, (size_t)p->cap * sizeof *p->insn);
        assert_non_null(p->insn);
    }
    gd_oi *i = &p->insn[p->n++];
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

/* ------------------------------------------------------------------ SASS */

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

/* The parameter root of byte `offset` of c[0x0] (SASS). */
static inline uint32_t gd_order_c0(const gd_order_prog *p, unsigned offset)
{
    if (offset < p->param_base)
        return GD_ROOT_DRV;
    unsigned rel = offset - p->param_base;
    for (int i = 0; i < p->nparams; i++)
        if (rel >= p->param_offset[i] && rel < p->param_offset[i] + p->param_size[i])
            return GD_ROOT_PARAM(i);
    return GD_ROOT_OTHER;
}

/* The registers of one SASS operand (c[..][..] and desc[..] handled by the
 * caller); `.64` reads a register pair, `.128` four. */
static inline void gd_sass_operand_regs(gd_order_prog *p, const char *s, const char *end, int *list,
                                        int *n, uint32_t *roots)
{
    while (s < end) {
        if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '.')) {
            s++;
            continue;
        }
        const char *t = s;
        while (t < end && (isalnum((unsigned char)*t) || *t == '_' || *t == '.'))
            t++;
        size_t len = (size_t)(t - s);
        if (len > 3 && !strncmp(s, "SR_", 3)) {
            char name[32];
            snprintf(name, sizeof name, "%.*s", (int)len, s);
            if (roots)
                *roots |= gd_order_special(name);
        } else {
            size_t pre = (*s == 'U') ? 1 : 0;
            if ((s[pre] == 'R' || s[pre] == 'P') &&
                (isdigit((unsigned char)s[pre + 1]) || s[pre + 1] == 'Z' || s[pre + 1] == 'T')) {
                size_t base = pre + 1;
                while (base < len && isalnum((unsigned char)s[base]))
                    base++;
                int width = 1;
                if (len >= base + 3 && !strncmp(s + base, ".64", 3))
                    width = 2;
                else if (len >= base + 4 && !strncmp(s + base, ".128", 4))
                    width = 4;
                int r = gd_order_reg(p, s, base);
                if (r >= 0 && isdigit((unsigned char)s[pre + 1])) {
                    long num = strtol(s + pre + 1, NULL, 10);
                    for (int w = 0; w < width; w++) {
                        char nm[16];
                        snprintf(nm, sizeof nm, "%s%c%ld", pre ? "U" : "", s[pre], num + w);
                        gd_order_push(list, n, gd_order_reg(p, nm, strlen(nm)));
                    }
                }
            }
        }
        s = t;
    }
}

/* Reads one operand: registers into list; c[0x0][imm] into *roots (or, with
 * c_bank/c_off, reports a constant operand); skips desc[...]. */
static inline void gd_sass_operand(gd_order_prog *p, const char *op, int *list, int *n,
                                   uint32_t *roots, int *c_bank, unsigned *c_off, int *c_regs)
{
    const char *s = op;
    while (*s) {
        if (!strncmp(s, "desc[", 5)) {
            const char *e = strchr(s, ']');
            s = e ? e + 1 : s + strlen(s);
            continue;
        }
        if ((s == op || !isalnum((unsigned char)s[-1])) && !strncmp(s, "c[0x", 4)) {
            unsigned bank = (unsigned)strtoul(s + 2, NULL, 16);
            const char *b2 = strstr(s, "][");
            const char *e = b2 ? strchr(b2 + 2, ']') : NULL;
            if (!b2 || !e)
                break;
            int before = *n;
            gd_sass_operand_regs(p, b2 + 2, e, list, n, NULL);
            int has_regs = *n > before;
            unsigned off = (unsigned)strtoul(b2 + 2, NULL, 16);
            if (c_bank) {
                *c_bank = (int)bank;
                *c_off = off;
                *c_regs = has_regs;
            } else if (bank == 0 && !has_regs) {
                *roots |= gd_order_c0(p, off);
            } else if (bank >= 3) {
                *roots |= GD_ROOT_LOAD; /* the .const space (c[0x3]): an ld.const folded in */
            }                           /* c[0x2]: ptxas' own constants (immediates) */
            s = e + 1;
            continue;
        }
        const char *t = s;
        while (*t && strncmp(t, "desc[", 5) && !(!strncmp(t, "c[0x", 4) &&
                                                 (t == op || !isalnum((unsigned char)t[-1]))))
            t++;
        gd_sass_operand_regs(p, s, t, list, n, roots);
        s = t;
    }
}

static inline int gd_sass_has(const char *opcode, const char *mod)
{
    size_t k = strlen(mod);
    for (const char *s = strchr(opcode, '.'); s; s = strchr(s + 1, '.'))
        if (!strncmp(s, mod, k) && (s[k] == '.' || s[k] == 0))
            return 1;
    return 0;
}

static inline void gd_sass_line(gd_order_prog *p, char *line)
{
    size_t len = strlen(line);
    if (len && line[len - 1] == ':') {
        gd_oi *i = gd_order_new(p, line);
        i->is_label = 1;
        i->label = gd_order_label(p, line, len - 1);
        return;
    }
    gd_oi *i = gd_order_new(p, line);
    char *work = strdup(line);
    assert_non_null(work);
    char *s = work;
    if (*s == '@') {
        char *sp = strchr(s, ' ');
        if (!sp) {
            free(work);
            return;
        }
        *sp = 0;
        char *g = s + 1;
        if (*g == '!')
            g++;
        i->guard = gd_order_reg(p, g, strlen(g));
        s = sp + 1;
    }
    char *opcode = s;
    char *rest = strchr(s, ' ');
    if (rest)
        *rest++ = 0;
    else
        rest = s + strlen(s);
    char base[24];
    snprintf(base, sizeof base, "%.*s", (int)strcspn(opcode, "."), opcode);
    char *op[24];
    int nops = gd_order_split(rest, op, 24);
    int width = gd_sass_has(opcode, ".64") || gd_sass_has(opcode, ".WIDE") ? 2
                : gd_sass_has(opcode, ".128")                               ? 4
                                                                            : 1;

    static const char *const no_defs[] = {"BSSY", "BSYNC", "WARPSYNC", "NOP", "YIELD", "DEPBAR",
                                          "BAR", "MEMBAR", "ERRBAR", "CCTL", "CALL", "BREAK",
                                          "BPT", "NANOSLEEP", "FENCE", "BMOV", "RED", NULL};
    for (int k = 0; no_defs[k]; k++)
        if (!strcmp(base, no_defs[k]))
            goto done;
    if (!strcmp(base, "BRA") || !strcmp(base, "JMP") || !strcmp(base, "BRX") ||
        !strcmp(base, "JMX")) {
        const char *l = strstr(line, "(.");
        if (l) {
            const char *e = strchr(l, ')');
            if (e)
                i->target = gd_order_label(p, l + 1, (size_t)(e - l - 1));
        }
        /* a guard, or a predicate operand ("BRA.U !UP0, `(.L_x_2)"): conditional */
        i->falls = i->guard >= 0 || nops >= 2;
        goto done;
    }
    if (!strcmp(base, "EXIT") || !strcmp(base, "RET") || !strcmp(base, "KILL")) {
        i->falls = i->guard >= 0;
        goto done;
    }
    if ((!strcmp(base, "S2R") || !strcmp(base, "S2UR") || !strcmp(base, "CS2R") ||
         !strcmp(base, "CS2UR")) &&
        nops == 2) {
        if (!strncmp(base, "CS2", 3))
            width = gd_sass_has(opcode, ".32") ? 1 : 2;
        uint32_t r = 0;
        int dummy[GD_OI_MAX_REGS], nd = 0;
        gd_sass_operand_regs(p, op[1], op[1] + strlen(op[1]), dummy, &nd, &r);
        if (strstr(op[1], "SR_CLOCKLO"))
            i->event = GD_OE_CLOCK;
        int d[GD_OI_MAX_REGS], ndd = 0;
        char pair[32];
        snprintf(pair, sizeof pair, "%s%s", op[0], width == 2 ? ".64" : "");
        gd_sass_operand_regs(p, pair, pair + strlen(pair), d, &ndd, NULL);
        for (int k = 0; k < ndd; k++) {
            i->def_fixed[i->ndefs] = r;
            gd_order_push(i->defs, &i->ndefs, d[k]);
        }
        i->fixed_only = 1;
        goto done;
    }
    if (!strcmp(base, "LDG") || !strcmp(base, "LDS") || !strcmp(base, "LD") ||
        !strcmp(base, "LDL") || !strcmp(base, "LDC") || !strcmp(base, "ULDC") ||
        !strcmp(base, "LDCU")) {
        if (nops < 2)
            goto done;
        int bank = -1, cregs = 0;
        unsigned coff = 0;
        int a[GD_OI_MAX_REGS], na = 0;
        uint32_t ar = 0;
        int is_c = base[strlen(base) - 1] == 'C' || !strcmp(base, "LDCU");
        gd_sass_operand(p, op[1], a, &na, &ar, is_c ? &bank : NULL, &coff, &cregs);
        char dst[40];
        snprintf(dst, sizeof dst, "%s%s", op[0], width == 2 ? ".64" : width == 4 ? ".128" : "");
        int d[GD_OI_MAX_REGS], nd = 0;
        gd_sass_operand_regs(p, dst, dst + strlen(dst), d, &nd, NULL);
        i->fixed_only = 1;
        if (is_c && bank == 0 && !cregs) {
            for (int k = 0; k < nd; k++) {
                i->def_fixed[i->ndefs] = gd_order_c0(p, coff + 4u * (unsigned)k);
                gd_order_push(i->defs, &i->ndefs, d[k]);
            }
            goto done;
        }
        i->event = GD_OE_LOAD;
        i->space = is_c ? 'c' : base[2] == 'G' ? 'g' : base[2] == 'S' ? 's' : base[2] == 'L' ? 'l' : 'f';
        for (int k = 0; k < na; k++)
            gd_order_push(i->addr, &i->naddr, a[k]);
        for (int k = 0; k < nd; k++) {
            i->def_fixed[i->ndefs] = GD_ROOT_LOAD;
            gd_order_push(i->defs, &i->ndefs, d[k]);
        }
        goto done;
    }
    if (!strcmp(base, "STG") || !strcmp(base, "STS") || !strcmp(base, "ST") ||
        !strcmp(base, "STL")) {
        if (nops < 2)
            goto done;
        i->event = GD_OE_STORE;
        i->space = base[2] == 'G' ? 'g' : base[2] == 'S' ? 's' : base[2] == 'L' ? 'l' : 'f';
        uint32_t ar = 0;
        gd_sass_operand(p, op[0], i->addr, &i->naddr, &ar, NULL, NULL, NULL);
        char data[40];
        snprintf(data, sizeof data, "%s%s", op[1], width == 2 ? ".64" : width == 4 ? ".128" : "");
        gd_sass_operand(p, data, i->data, &i->ndata, &i->data_fixed, NULL, NULL, NULL);
        goto done;
    }
    /* everything else: the first operand is written, then any predicates
     * right after it (carries, compare results); the rest is read */
    if (nops >= 1) {
        char dst[40];
        snprintf(dst, sizeof dst, "%s%s", op[0], width == 2 ? ".64" : width == 4 ? ".128" : "");
        gd_sass_operand_regs(p, dst, dst + strlen(dst), i->defs, &i->ndefs, NULL);
        int k = 1;
        for (; k < nops && op[k][0] != '!' &&
               (op[k][0] == 'P' || (op[k][0] == 'U' && op[k][1] == 'P'));
             k++)
            gd_sass_operand_regs(p, op[k], op[k] + strlen(op[k]), i->defs, &i->ndefs, NULL);
        int wide = gd_sass_has(opcode, ".WIDE");
        for (; k < nops; k++) {
            char src[64];
            int last = k == nops - 1;
            snprintf(src, sizeof src, "%s%s", op[k],
                     wide && last && !strchr(op[k], '[') && !strstr(op[k], ".64") ? ".64" : "");
            gd_sass_operand(p, src, i->srcs, &i->nsrcs, &i->src_roots, NULL, NULL, NULL);
        }
    }
done:
    free(work);
}

/* ------------------------------------------------------------------- PTX */

static inline uint32_t gd_ptx_param_root(const gd_order_prog *p, const char *ref)
{
    const char *s = ref;
    while (*s == '[' || *s == ' ')
        s++;
    size_t len = strcspn(s, "+] ");
    unsigned off = 0;
    const char *plus = strchr(s, '+');
    if (plus)
        off = (unsigned)strtoul(plus + 1, NULL, 0);
    for (int i = 0; i < p->nparams; i++)
        if (strlen(p->param_name[i]) == len && !strncmp(p->param_name[i], s, len))
            return off < p->param_size[i] ? GD_ROOT_PARAM(i) : GD_ROOT_OTHER;
    return GD_ROOT_OTHER;
}

/* The %-registers of a PTX operand (special registers into *roots). */
static inline void gd_ptx_operand(gd_order_prog *p, const char *s, int *list, int *n, uint32_t *roots)
{
    for (; *s; s++) {
        if (*s != '%')
            continue;
        const char *t = s + 1;
        while (isalnum((unsigned char)*t) || *t == '_' || *t == '.')
            t++;
        static const char *const special[] = {"tid", "ntid", "ctaid", "nctaid", "laneid",
                                              "warpid", "nwarpid", "smid", "nsmid", "clock",
                                              "clock64", "globaltimer", "gridid", "lanemask",
                                              "pm", "envreg", "dynamic_smem_size", NULL};
        int is_special = 0;
        for (int k = 0; special[k]; k++) {
            size_t kl = strlen(special[k]);
            if (!strncmp(s + 1, special[k], kl) && !(isalnum((unsigned char)s[1 + kl])))
                is_special = 1;
        }
        if (is_special) {
            if (roots)
                *roots |= gd_order_special(s);
        } else {
            size_t len = (size_t)(t - s);
            while (len > 1 && s[len - 1] == '.')
                len--;
            gd_order_push(list, n, gd_order_reg(p, s, len));
        }
        s = t - 1;
    }
}

static inline void gd_ptx_params(gd_order_prog *p, const char *ptx)
{
    const char *body = strchr(ptx, '{');
    for (const char *s = strstr(ptx, ".param"); s && (!body || s < body); s = strstr(s + 1, ".param")) {
        unsigned size = 0, align = 0;
        const char *e = s + strcspn(s, ",)\n");
        char decl[256];
        snprintf(decl, sizeof decl, "%.*s", (int)(e - s), s);
        const char *al = strstr(decl, ".align");
        if (al)
            align = (unsigned)strtoul(al + 6, NULL, 10);
        static const struct { const char *t; unsigned size; } types[] = {
            {".u64", 8}, {".s64", 8}, {".b64", 8}, {".f64", 8}, {".u32", 4}, {".s32", 4},
            {".b32", 4}, {".f32", 4}, {".u16", 2}, {".s16", 2}, {".b16", 2}, {".u8", 1},
            {".s8", 1}, {".b8", 1}};
        for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
            if (strstr(decl, types[k].t)) {
                size = types[k].size;
                break;
            }
        /* the name: the last word, without an array suffix */
        char *end = decl + strlen(decl);
        while (end > decl && isspace((unsigned char)end[-1]))
            end--;
        unsigned count = 1;
        char *br = memchr(decl, '[', (size_t)(end - decl));
        if (br) {
            count = (unsigned)strtoul(br + 1, NULL, 10);
            end = br;
        }
        char *name = end;
        while (name > decl && !isspace((unsigned char)name[-1]))
            name--;
        if (!align)
            align = size;
        assert_true(p->nparams < GD_ORDER_MAX_PARAMS && size);
        unsigned off = p->nparams ? p->param_offset[p->nparams - 1] + p->param_size[p->nparams - 1] : 0;
        off = (off + align - 1) / align * align;
        snprintf(p->param_name[p->nparams], sizeof p->param_name[0], "%.*s", (int)(end - name), name);
        p->param_offset[p->nparams] = off;
        p->param_size[p->nparams] = size * count;
        p->nparams++;
    }
}

static inline void gd_ptx_line(gd_order_prog *p, char *line)
{
    size_t len = strlen(line);
    if (line[0] == '$' && len && line[len - 1] == ':') {
        gd_oi *i = gd_order_new(p, line);
        i->is_label = 1;
        i->label = gd_order_label(p, line, len - 1);
        return;
    }
    if (line[0] == '.' || line[0] == '{' || line[0] == '}' || line[0] == ')' || line[0] == '(')
        return;
    gd_oi *i = gd_order_new(p, line);
    char *work = strdup(line);
    assert_non_null(work);
    char *s = work;
    if (*s == '@') {
        char *sp = strchr(s, ' ');
        if (!sp)
            goto done;
        *sp = 0;
        char *g = s + 1;
        if (*g == '!')
            g++;
        i->guard = gd_order_reg(p, g, strlen(g));
        s = sp + 1;
        while (*s == ' ')
            s++;
    }
    char *opcode = s;
    char *rest = opcode + strcspn(opcode, " \t");
    if (*rest)
        *rest++ = 0;
    char *op[24];
    int nops = gd_order_split(rest, op, 24);
    char base[16];
    snprintf(base, sizeof base, "%.*s", (int)strcspn(opcode, "."), opcode);
    if (!strcmp(base, "bra") || !strcmp(base, "brx")) {
        if (nops >= 1)
            i->target = gd_order_label(p, op[0], strcspn(op[0], " ;"));
        i->falls = i->guard >= 0;
        goto done;
    }
    if (!strcmp(base, "ret") || !strcmp(base, "exit") || !strcmp(base, "trap")) {
        i->falls = i->guard >= 0;
        goto done;
    }
    static const char *const no_defs[] = {"bar", "barrier", "membar", "fence", "red", "prefetch",
                                          "brkpt", "nanosleep", NULL};
    for (int k = 0; no_defs[k]; k++)
        if (!strcmp(base, no_defs[k]))
            goto done;
    if (!strcmp(base, "ld") || !strcmp(base, "ldu")) {
        if (nops < 2)
            goto done;
        int d[GD_OI_MAX_REGS], nd = 0;
        gd_ptx_operand(p, op[0], d, &nd, NULL);
        i->fixed_only = 1;
        if (strstr(opcode, ".param")) {
            uint32_t r = gd_ptx_param_root(p, op[1]);
            for (int k = 0; k < nd; k++) {
                i->def_fixed[i->ndefs] = r;
                gd_order_push(i->defs, &i->ndefs, d[k]);
            }
            goto done;
        }
        i->event = GD_OE_LOAD;
        i->space = strstr(opcode, ".global") ? 'g' : strstr(opcode, ".shared") ? 's'
                   : strstr(opcode, ".const")  ? 'c' : strstr(opcode, ".local") ? 'l' : 'f';
        uint32_t ar = 0;
        gd_ptx_operand(p, op[1], i->addr, &i->naddr, &ar);
        for (int k = 0; k < nd; k++) {
            i->def_fixed[i->ndefs] = GD_ROOT_LOAD;
            gd_order_push(i->defs, &i->ndefs, d[k]);
        }
        goto done;
    }
    if (!strcmp(base, "st")) {
        if (nops < 2)
            goto done;
        i->event = GD_OE_STORE;
        i->space = strstr(opcode, ".global") ? 'g' : strstr(opcode, ".shared") ? 's'
                   : strstr(opcode, ".local")  ? 'l' : 'f';
        uint32_t ar = 0;
        gd_ptx_operand(p, op[0], i->addr, &i->naddr, &ar);
        gd_ptx_operand(p, op[1], i->data, &i->ndata, &i->data_fixed);
        goto done;
    }
    if (nops >= 1) {
        uint32_t r = 0;
        for (int k = 1; k < nops; k++)
            gd_ptx_operand(p, op[k], i->srcs, &i->nsrcs, &r);
        i->src_roots = r;
        for (char *bar = strchr(op[0], '|'); bar; bar = strchr(bar, '|'))
            *bar = ',';
        gd_ptx_operand(p, op[0], i->defs, &i->ndefs, NULL);
        if (!strcmp(base, "mov") && (r & GD_ROOT_CLOCK) && nops == 2) {
            i->event = GD_OE_CLOCK;
            i->fixed_only = 1;
            for (int k = 0; k < i->ndefs; k++)
                i->def_fixed[k] = GD_ROOT_CLOCK;
        }
        i->sub = !strcmp(base, "sub");
    }
done:
    free(work);
}

/* ------------------------------------------------------------- dataflow */

/* Reaching definitions over the control-flow graph, every register's roots the
 * union of the roots of the definitions that reach; fills addr_sig/data_sig. */
static inline void gd_order_flow(gd_order_prog *p)
{
    int n = p->n, nr = p->nregs > 0 ? p->nregs : 1;
    int *label_at = malloc((size_t)(p->nlabels + 1) * sizeof *label_at);
    int *leader = calloc((size_t)n + 1, sizeof *leader);
    int *block_of = malloc(((size_t)n + 1) * sizeof *block_of);
    assert_true(label_at && leader && block_of);
    for (int l = 0; l < p->nlabels; l++)
        label_at[l] = n;
    for (int k = 0; k < n; k++)
        if (p->insn[k].is_label) {
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
    int *start = malloc(((size_t)nb + 1) * sizeof *start);
    uint32_t *in = calloc((size_t)(nb + 1) * (size_t)nr, sizeof *in);
    uint32_t *st = malloc((size_t)nr * sizeof *st);
    assert_true(start && in && st);
    for (int k = n - 1; k >= 0; k--)
        start[block_of[k]] = k;
    start[nb] = n;
    for (int pass = 0, changed = 1; changed; pass++) {
        assert_true(pass < 1000);
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
    free(label_at);
    free(leader);
    free(block_of);
    free(start);
    free(in);
    free(st);
}

/* Cuts text into lines and parses them. */
static inline void gd_order_parse(gd_order_prog *p, const char *text, int sass)
{
    p->sass = sass;
    p->text = strdup(text);
    assert_non_null(p->text);
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
}

/* A PTX program and the SASS ptxas made of it; the SASS borrows the PTX's
 * parameter layout and is read with the target's parameter base. */
static inline void gd_order_parse_pair(gd_order_prog *ptx, gd_order_prog *sass, const char *ptx_text,
                                       const char *sass_text, unsigned param_base)
{
    memset(ptx, 0, sizeof *ptx);
    memset(sass, 0, sizeof *sass);
    gd_order_parse(ptx, ptx_text, 0);
    memcpy(sass->param_name, ptx->param_name, sizeof ptx->param_name);
    memcpy(sass->param_offset, ptx->param_offset, sizeof ptx->param_offset);
    memcpy(sass->param_size, ptx->param_size, sizeof ptx->param_size);
    sass->nparams = ptx->nparams;
    sass->param_base = param_base;
    gd_order_parse(sass, sass_text, 1);
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
#define GD_ORDER_MAX_EVENTS 512

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
 * events in the PTX's order.  Segments are paired as a multiset (ptxas may lay
 * out basic blocks in another order than the PTX text: icache_av's attacker
 * code lands ahead of its victim's), each PTX segment with an unused SASS
 * segment of the same events.  Returns 0, or -1 with a message that shows the
 * first unmatched PTX segment and the SASS segment in its place.  *timed:
 * the timed segments of the PTX. */
static inline int gd_order_check(const gd_order_prog *ptx, const gd_order_prog *sass, int *timed,
                                 char *msg, size_t cap)
{
    static gd_order_segments g, h;
    *timed = 0;
    if (gd_order_find_segments(ptx, &g) != 0 || gd_order_find_segments(sass, &h) != 0) {
        snprintf(msg, cap, "more than %d clock reads", GD_ORDER_MAX_CLOCKS);
        return -1;
    }
    *timed = g.ntimed;
    if (g.nclocks != h.nclocks || g.ntimed != h.ntimed) {
        snprintf(msg, cap,
                 "%d clock reads (whose value is used) and %d timed segments in the PTX, %d and "
                 "%d in the SASS",
                 g.nclocks, g.ntimed, h.nclocks, h.ntimed);
        return -1;
    }
    char used[GD_ORDER_MAX_CLOCKS] = {0};
    for (int s = 0, nth = 0; s + 1 < g.nclocks; s++) {
        if (!g.timed[s])
            continue;
        int match = -1, in_place = -1, diff = 0, place_diff = 0;
        for (int t = 0, tth = 0; t + 1 < h.nclocks && match < 0; t++) {
            if (!h.timed[t])
                continue;
            int d = 0;
            if (!used[t] && gd_order_segment_same(ptx, &g, s, sass, &h, t, &d))
                match = t;
            else if (tth == nth) {
                in_place = t;
                place_diff = d;
            }
            tth++;
        }
        nth++;
        if (match >= 0) {
            used[match] = 1;
            continue;
        }
        if (in_place >= 0)
            diff = place_diff;
        size_t n = (size_t)snprintf(msg, cap,
                                    "timed region %d (from clock read %d of %d) has no match in "
                                    "the SASS; first difference at event %d\n  PTX order:\n",
                                    nth, s + 1, g.nclocks, diff + 1);
        n = gd_order_segment_str(ptx, &g, s, diff, msg, n, cap);
        if (in_place >= 0 && n < cap) {
            n += (size_t)snprintf(msg + n, cap - n, "  SASS order (its place in the listing):\n");
            gd_order_segment_str(sass, &h, in_place, diff, msg, n, cap);
        }
        return -1;
    }
    return 0;
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
