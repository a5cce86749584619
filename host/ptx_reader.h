/* ptx_reader.h -- a probe's PTX into an order_program (host/sass_order.h).
 *
 * The parameter list gives each kernel parameter its offset (ld.param [name+4]
 * reads word 1 of it); an instruction's first operand is written (setp's p|q
 * both), the rest are read; ld/st other than ld.param are the memory events,
 * a mov from %clock/%clock64 the clock reads.  Labels ("$L_round:") and
 * bra/ret give the control flow; directives and declarations are skipped.
 */
#ifndef GD_PTX_READER_H
#define GD_PTX_READER_H

#include "host/order_program.h"


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
        if (p->nparams >= GD_ORDER_MAX_PARAMS) {
            gd_order_limit(p, "%d kernel parameters exceeded", GD_ORDER_MAX_PARAMS);
            return;
        }
        if (!size) {
            gd_order_limit(p, "a kernel parameter of unknown type (%.40s)", decl);
            return;
        }
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
    if (!work) {
        gd_order_limit(p, "out of memory");
        return;
    }
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
    }
done:
    free(work);
}

#endif
