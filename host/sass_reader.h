/* sass_reader.h -- nvdisasm's listing into an order_program (host/sass_order.h).
 *
 * One line per instruction ("@!P0 LDG.E.STRONG.SM R14, desc[UR8][R10.64]"),
 * labels kept (".L_x_4:").  The first operand is written, then any predicates
 * right after it; stores write nothing; `.64` / `.WIDE` read and write register
 * pairs.  c[0x0][offset] is a kernel parameter (by the parameter base the
 * caller measured for the target, host/sass_order.h) or, below it, a driver
 * constant; c[0x2] holds ptxas' own constants (immediates); c[0x3] is the
 * .const space.  desc[URn] (the global memory descriptor of sm_90+) is not
 * part of an address.
 */
#ifndef GD_SASS_READER_H
#define GD_SASS_READER_H

#include "host/order_program.h"

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
    if (!work) {
        gd_order_limit(p, "out of memory");
        return;
    }
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

    /* "@P0 CALL.REL.NOINC `(.L_x_5)": ptxas's way out of a loop that a
     * convergence barrier (BSSY/BSYNC) brackets -- the label is where the code
     * after the loop goes on (in a kernel of several loops, every one after
     * the first is reached only through it).  An edge to it, and one to the
     * next instruction (where a returning call comes back). */
    if (!strcmp(base, "CALL")) {
        const char *l = strstr(line, "(.");
        const char *e = l ? strchr(l, ')') : NULL;
        if (e)
            i->target = gd_order_label(p, l + 1, (size_t)(e - l - 1));
        i->falls = 1;
        goto done;
    }
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

#endif
