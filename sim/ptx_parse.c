/* ptx_parse.c -- parse the PTX subset gpudissect's probes emit.
 *
 * The simulator runs the very PTX text that would be handed to a GPU, so this
 * parser reads real PTX syntax: module directives (.version, .target,
 * .address_size, module-scope .const variables), .entry kernels with .param
 * lists, .reg/.shared declarations, labels, guarded instructions.  It is a small
 * hand-written lexer (ptx_lex.c) plus a statement parser: this file reads the
 * directives, declarations and labels and fills the symbol tables; ptx_insn.c
 * reads one instruction -- PTX's grammar is regular enough that a table of
 * opcodes and their operand shapes covers the subset.
 *
 * What it does not know it rejects, naming the line: "ptx:41: unsupported
 * instruction 'tex.2d.v4.f32.f32'".  The subset is listed in sim/README.md and
 * grows only when a probe needs it (and then the interpreter grows with it).
 */
#include "sim/ptx_parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds that keep the offset arithmetic below in 32 bits: PTX's own limit on
 * kernel parameters is 32764 bytes (CUDA 12.1+; 4 KiB before), and no state
 * space of the subset is larger than 1 MiB. */
#define PTX_MAX_PARAM_BYTES 32764u
#define PTX_MAX_ALIGN_BYTES 4096u
#define PTX_MAX_ARRAY_ELEMS (1ll << 20)

/* ------------------------------------------------------------------------- */
/* Per-kernel symbol tables                                                  */

static size_t reg_name_hash(const char *name)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    while (*name)
        h = (h ^ (uint8_t)*name++) * 16777619u;
    return h;
}

int kparse_find_reg(const kparse *kp, const char *name)
{
    if (!kp->reg_slots)
        return -1;
    for (size_t i = reg_name_hash(name) & kp->reg_slot_mask;; i = (i + 1) & kp->reg_slot_mask) {
        uint32_t v = kp->reg_slots[i];
        if (!v)
            return -1;
        if (strcmp(kp->regs[v - 1].name, name) == 0)
            return (int)kp->regs[v - 1].index;
    }
}

/* Room in reg_slots for one more name (at most half full), rehashed on growth. */
static int reg_slots_reserve(kparse *kp)
{
    size_t slots = kp->reg_slots ? kp->reg_slot_mask + 1 : 0;
    if (2 * (kp->reg_count + 1) <= slots)
        return 0;
    size_t n = slots ? slots * 2 : 64;
    uint32_t *t = calloc(n, sizeof *t);
    if (!t)
        return -1;
    for (size_t r = 0; r < kp->reg_count; r++) {
        size_t i = reg_name_hash(kp->regs[r].name) & (n - 1);
        while (t[i])
            i = (i + 1) & (n - 1);
        t[i] = (uint32_t)r + 1;
    }
    free(kp->reg_slots);
    kp->reg_slots = t;
    kp->reg_slot_mask = n - 1;
    return 0;
}

const sym *kparse_find_sym(const kparse *kp, const char *name)
{
    for (size_t i = 0; i < kp->sym_count; i++)
        if (strcmp(kp->syms[i].name, name) == 0)
            return &kp->syms[i];
    for (uint32_t i = 0; i < kp->module->const_count; i++)
        if (strcmp(kp->module->consts[i].name, name) == 0) {
            static sym const_sym; /* read immediately by the caller */
            snprintf(const_sym.name, sizeof const_sym.name, "%s", name);
            const_sym.space = SP_CONST;
            const_sym.offset = kp->module->consts[i].offset;
            const_sym.size = kp->module->consts[i].size;
            return &const_sym;
        }
    return NULL;
}

static int add_reg(lexer *lx, kparse *kp, const char *name)
{
    if (kparse_find_reg(kp, name) >= 0)
        return lex_fail(lx, lx->cur.line, "register %s declared twice", name);
    if (kp->k->reg_count >= PTX_NO_REG - 1)
        return lex_fail(lx, lx->cur.line, "too many registers");
    GROW(kp->regs, kp->reg_count, kp->reg_cap);
    if (reg_slots_reserve(kp) != 0)
        return lex_fail(lx, lx->cur.line, "out of memory");
    snprintf(kp->regs[kp->reg_count].name, sizeof kp->regs[0].name, "%s", name);
    kp->regs[kp->reg_count].index = kp->k->reg_count++;
    /* the stored (possibly cut) name is what kparse_find_reg compares */
    size_t i = reg_name_hash(kp->regs[kp->reg_count].name) & kp->reg_slot_mask;
    while (kp->reg_slots[i])
        i = (i + 1) & kp->reg_slot_mask;
    kp->reg_slots[i] = (uint32_t)kp->reg_count + 1;
    kp->reg_count++;
    return 0;
}

int kparse_label_ref(lexer *lx, kparse *kp, const char *name, int line, uint32_t *index_slot)
{
    for (size_t i = 0; i < kp->label_count; i++)
        if (strcmp(kp->labels[i].name, name) == 0) {
            *index_slot = (uint32_t)i;
            return 0;
        }
    GROW(kp->labels, kp->label_count, kp->label_cap);
    label *l = &kp->labels[kp->label_count];
    snprintf(l->name, sizeof l->name, "%s", name);
    l->index = -1;
    l->line = line;
    *index_slot = (uint32_t)kp->label_count++;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Declarations                                                              */

static int parse_align_and_type(lexer *lx, uint32_t *align, ptx_type *type)
{
    *align = 0;
    *type = PT_NONE;
    for (;;) {
        if (tok_is(lx, ".align")) {
            lex_next(lx);
            if (lx->cur.kind != T_NUM)
                return lex_fail(lx, lx->cur.line, "'.align' needs a number");
            errno = 0;
            unsigned long a = strtoul(lx->cur.text, NULL, 0);
            if (errno || a == 0 || (a & (a - 1)) || a > PTX_MAX_ALIGN_BYTES)
                return lex_fail(lx, lx->cur.line, "'.align' must be a power of two up to %u, got '%s'",
                                PTX_MAX_ALIGN_BYTES, lx->cur.text);
            *align = (uint32_t)a;
            lex_next(lx);
            continue;
        }
        ptx_type t = lx->cur.kind == T_IDENT ? ptx_type_from_name(lx->cur.text) : PT_NONE;
        if (t != PT_NONE) {
            *type = t;
            lex_next(lx);
            continue;
        }
        break;
    }
    if (*type == PT_NONE)
        return lex_fail(lx, lx->cur.line, "declaration needs a type");
    return 0;
}

/* name[SIZE] or name[] or name ; returns element count (0 for []) via *count, -1 scalar */
static int parse_var_name(lexer *lx, char *name, size_t name_bytes, int64_t *count)
{
    if (lx->cur.kind != T_IDENT || lx->cur.text[0] == '.')
        return lex_fail(lx, lx->cur.line, "expected a variable name, found '%s'", lx->cur.text);
    snprintf(name, name_bytes, "%s", lx->cur.text);
    lex_next(lx);
    *count = -1;
    if (tok_is(lx, "[")) {
        lex_next(lx);
        if (tok_is(lx, "]")) {
            *count = 0;
        } else {
            if (lx->cur.kind != T_NUM)
                return lex_fail(lx, lx->cur.line, "array size must be a number");
            errno = 0;
            *count = strtoll(lx->cur.text, NULL, 0);
            if (errno || *count > PTX_MAX_ARRAY_ELEMS)
                return lex_fail(lx, lx->cur.line, "array size '%s' is too large", lx->cur.text);
            if (*count <= 0)
                return lex_fail(lx, lx->cur.line, "array size must be positive");
            lex_next(lx);
        }
        if (expect(lx, "]"))
            return -1;
    }
    return 0;
}

static uint32_t align_up(uint32_t x, uint32_t a)
{
    return a ? (x + a - 1) / a * a : x;
}

static int parse_reg_decl(lexer *lx, kparse *kp)
{
    lex_next(lx); /* .reg */
    ptx_type t = lx->cur.kind == T_IDENT ? ptx_type_from_name(lx->cur.text) : PT_NONE;
    if (t == PT_NONE)
        return lex_fail(lx, lx->cur.line, "'.reg' needs a type");
    lex_next(lx);
    for (;;) {
        if (lx->cur.kind != T_IDENT)
            return lex_fail(lx, lx->cur.line, "expected a register name");
        char base[64];
        snprintf(base, sizeof base, "%s", lx->cur.text);
        lex_next(lx);
        if (tok_is(lx, "<")) {
            lex_next(lx);
            if (lx->cur.kind != T_NUM)
                return lex_fail(lx, lx->cur.line, "register count must be a number");
            long n = strtol(lx->cur.text, NULL, 10);
            if (n <= 0 || n > 4096)
                return lex_fail(lx, lx->cur.line, "bad register count %ld", n);
            lex_next(lx);
            if (expect(lx, ">"))
                return -1;
            for (long i = 0; i < n; i++) {
                char nm[80];
                snprintf(nm, sizeof nm, "%s%ld", base, i);
                if (add_reg(lx, kp, nm))
                    return -1;
            }
        } else if (add_reg(lx, kp, base)) {
            return -1;
        }
        if (tok_is(lx, ",")) {
            lex_next(lx);
            continue;
        }
        break;
    }
    return expect(lx, ";");
}

static int parse_shared_decl(lexer *lx, kparse *kp, int is_extern)
{
    int line = lx->cur.line;
    lex_next(lx); /* .shared */
    uint32_t align;
    ptx_type t;
    if (parse_align_and_type(lx, &align, &t))
        return -1;
    char name[64];
    int64_t count;
    if (parse_var_name(lx, name, sizeof name, &count))
        return -1;
    uint32_t elem = ptx_type_bits(t) / 8;
    if (!elem)
        return lex_fail(lx, line, "bad shared variable type");
    if (!align)
        align = elem;
    GROW(kp->syms, kp->sym_count, kp->sym_cap);
    sym *s = &kp->syms[kp->sym_count++];
    snprintf(s->name, sizeof s->name, "%s", name);
    s->space = SP_SHARED;
    if (is_extern) {
        if (count != 0)
            return lex_fail(lx, line, "extern .shared must be an unsized array name[]");
        if (kp->k->uses_dynamic_shared)
            return lex_fail(lx, line, "only one extern .shared array is supported");
        /* dynamic shared memory follows the static variables declared so far;
         * no static variable may be declared after it */
        kp->k->uses_dynamic_shared = 1;
        kp->k->dynamic_shared_offset = align_up(kp->k->shared_static_bytes, align > 16 ? align : 16);
        s->size = 0;
        s->offset = kp->k->dynamic_shared_offset;
    } else {
        if (count == 0)
            return lex_fail(lx, line, "a .shared array needs a size (or use .extern)");
        if (kp->k->uses_dynamic_shared)
            return lex_fail(lx, line, "declare static .shared variables before the extern one");
        uint64_t bytes = (uint64_t)elem * (uint64_t)(count < 0 ? 1 : count);
        if (bytes > (1u << 20))
            return lex_fail(lx, line, ".shared variable '%s' is too large", name);
        kp->k->shared_static_bytes = align_up(kp->k->shared_static_bytes, align);
        s->offset = kp->k->shared_static_bytes;
        s->size = (uint32_t)bytes;
        kp->k->shared_static_bytes += (uint32_t)bytes;
    }
    if (tok_is(lx, "="))
        return lex_fail(lx, line, ".shared variables cannot be initialized");
    return expect(lx, ";");
}

static int parse_params(lexer *lx, kparse *kp)
{
    if (expect(lx, "("))
        return -1;
    size_t cap = 0;
    while (!tok_is(lx, ")")) {
        if (!tok_is(lx, ".param"))
            return lex_fail(lx, lx->cur.line, "expected '.param' in the parameter list");
        lex_next(lx);
        uint32_t align;
        ptx_type t;
        if (parse_align_and_type(lx, &align, &t))
            return -1;
        char name[64];
        int64_t count;
        if (parse_var_name(lx, name, sizeof name, &count))
            return -1;
        uint32_t elem = ptx_type_bits(t) / 8;
        if (!elem)
            return lex_fail(lx, lx->cur.line, "bad parameter type");
        if (count > (int64_t)(PTX_MAX_PARAM_BYTES / elem))
            return lex_fail(lx, lx->cur.line, "parameter '%s' is too large", name);
        uint32_t size = elem * (uint32_t)(count > 0 ? count : 1);
        if (!align)
            align = elem;
        ptx_kernel *k = kp->k;
        GROW(k->params, k->param_count, cap);
        ptx_param *p = &k->params[k->param_count++];
        snprintf(p->name, sizeof p->name, "%s", name);
        k->param_bytes = align_up(k->param_bytes, align);
        if (k->param_bytes + size > PTX_MAX_PARAM_BYTES)
            return lex_fail(lx, lx->cur.line, "the parameters exceed %u bytes", PTX_MAX_PARAM_BYTES);
        p->offset = k->param_bytes;
        p->size = size;
        k->param_bytes += size;
        GROW(kp->syms, kp->sym_count, kp->sym_cap);
        sym *s = &kp->syms[kp->sym_count++];
        snprintf(s->name, sizeof s->name, "%s", name);
        s->space = SP_PARAM;
        s->offset = p->offset;
        s->size = size;
        if (tok_is(lx, ","))
            lex_next(lx);
        else if (!tok_is(lx, ")"))
            return lex_fail(lx, lx->cur.line, "expected ',' or ')' in the parameter list");
    }
    return expect(lx, ")");
}

static void kparse_free(kparse *kp)
{
    free(kp->regs);
    free(kp->reg_slots);
    free(kp->syms);
    free(kp->labels);
}

static int parse_kernel_body(lexer *lx, kparse *kp)
{
    int depth = 0;
    if (expect(lx, "{"))
        return -1;
    depth = 1;
    while (depth > 0) {
        if (lx->cur.kind == T_EOF)
            return lex_fail(lx, lx->cur.line, "unexpected end of input inside kernel %s",
                            kp->k->name);
        /* an instruction (the common case first: an opcode, or a guard's @) */
        const token *t = &lx->cur;
        if ((t->kind == T_IDENT && t->text[0] != '.' && !(t->text[0] != '%' && lx->p[0] == ':')) ||
            (t->kind == T_PUNCT && t->text[0] == '@')) {
            if (ptx_parse_instruction(lx, kp))
                return -1;
        } else if (tok_is(lx, "{")) {
            depth++;
            lex_next(lx);
        } else if (tok_is(lx, "}")) {
            depth--;
            lex_next(lx);
        } else if (tok_is(lx, ".reg")) {
            if (parse_reg_decl(lx, kp))
                return -1;
        } else if (tok_is(lx, ".shared")) {
            if (parse_shared_decl(lx, kp, 0))
                return -1;
        } else if (tok_is(lx, ".extern")) {
            lex_next(lx);
            if (!tok_is(lx, ".shared"))
                return lex_fail(lx, lx->cur.line, "only '.extern .shared' is supported");
            if (parse_shared_decl(lx, kp, 1))
                return -1;
        } else if (tok_is(lx, ".pragma")) {
            lex_next(lx);
            if (lx->cur.kind != T_STRING)
                return lex_fail(lx, lx->cur.line, "'.pragma' needs a string");
            lex_next(lx);
            if (expect(lx, ";"))
                return -1;
        } else if (lx->cur.kind == T_IDENT && lx->cur.text[0] == '.') {
            return lex_fail(lx, lx->cur.line, "unsupported directive '%s' in a kernel body",
                            lx->cur.text);
        } else if (lx->cur.kind == T_IDENT && lx->cur.text[0] != '%' &&
                   lx->p[0] == ':') {
            /* label */
            uint32_t slot;
            if (kparse_label_ref(lx, kp, lx->cur.text, lx->cur.line, &slot))
                return -1;
            if (kp->labels[slot].index >= 0)
                return lex_fail(lx, lx->cur.line, "label %s defined twice", lx->cur.text);
            kp->labels[slot].index = (int32_t)kp->k->insn_count;
            lex_next(lx);
            if (expect(lx, ":"))
                return -1;
        } else {
            if (ptx_parse_instruction(lx, kp))
                return -1;
        }
    }
    /* resolve branch targets and dynamic shared */
    ptx_kernel *k = kp->k;
    for (uint32_t i = 0; i < k->insn_count; i++) {
        ptx_insn *in = &k->insns[i];
        if (in->op != OP_BRA)
            continue;
        label *l = &kp->labels[in->target];
        if (l->index < 0)
            return lex_fail(lx, l->line, "branch to undefined label %s", l->name);
        in->target = (uint32_t)l->index;
    }
    const ptx_insn *last = k->insn_count ? &k->insns[k->insn_count - 1] : NULL;
    if (!last || last->guard != PTX_NO_REG ||
        (last->op != OP_RET && last->op != OP_EXIT && last->op != OP_BRA)) {
        /* falling off the end of a kernel exits, as on a GPU: add an implicit ret
         * (also after a guarded ret/exit/bra, whose lanes that skip it fall off) */
        GROW(k->insns, k->insn_count, kp->insn_cap);
        ptx_insn *in = &k->insns[k->insn_count++];
        memset(in, 0, sizeof *in);
        in->op = OP_RET;
        in->unit = UNIT_BRANCH;
        in->guard = PTX_NO_REG;
        in->dst.reg = PTX_NO_REG;
        in->line = (uint32_t)lx->cur.line;
    }
    return 0;
}

static int parse_const_decl(lexer *lx, ptx_module *m)
{
    int line = lx->cur.line;
    lex_next(lx); /* .const */
    uint32_t align;
    ptx_type t;
    if (parse_align_and_type(lx, &align, &t))
        return -1;
    char name[64];
    int64_t count;
    if (parse_var_name(lx, name, sizeof name, &count))
        return -1;
    uint32_t elem = ptx_type_bits(t) / 8;
    if (!elem || count == 0)
        return lex_fail(lx, line, "bad .const declaration");
    uint64_t bytes = (uint64_t)elem * (uint64_t)(count < 0 ? 1 : count);
    if (!align)
        align = elem;
    uint32_t offset = align_up(m->const_bytes, align);
    if (offset + bytes > 64 * 1024)
        return lex_fail(lx, line, ".const bank exceeds 64 KiB");
    ptx_const_var *nv = realloc(m->consts, (m->const_count + 1) * sizeof *nv);
    if (!nv)
        return lex_fail(lx, line, "out of memory");
    m->consts = nv;
    ptx_const_var *v = &m->consts[m->const_count++];
    snprintf(v->name, sizeof v->name, "%s", name);
    v->offset = offset;
    v->size = (uint32_t)bytes;
    m->const_bytes = offset + (uint32_t)bytes;
    if (tok_is(lx, "="))
        return lex_fail(lx, line, "initialized .const variables are not in the subset; the host "
                                  "fills the constant bank");
    return expect(lx, ";");
}

static int parse_entry(lexer *lx, ptx_module *m)
{
    lex_next(lx); /* .entry */
    if (lx->cur.kind != T_IDENT)
        return lex_fail(lx, lx->cur.line, "'.entry' needs a name");
    ptx_kernel *nk = realloc(m->kernels, (m->kernel_count + 1) * sizeof *nk);
    if (!nk)
        return lex_fail(lx, lx->cur.line, "out of memory");
    m->kernels = nk;
    ptx_kernel *k = &m->kernels[m->kernel_count++];
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", lx->cur.text);
    lex_next(lx);
    kparse kp = {.k = k, .module = m};
    int rc = 0;
    if (tok_is(lx, "("))
        rc = parse_params(lx, &kp);
    /* performance directives: .maxntid 1,1,1  .reqntid ...  .minnctapersm N */
    while (!rc && lx->cur.kind == T_IDENT &&
           (tok_is(lx, ".maxntid") || tok_is(lx, ".reqntid") || tok_is(lx, ".minnctapersm") ||
            tok_is(lx, ".maxnreg"))) {
        lex_next(lx);
        while (lx->cur.kind == T_NUM || tok_is(lx, ",")) 
            lex_next(lx);
    }
    if (!rc)
        rc = parse_kernel_body(lx, &kp);
    kparse_free(&kp);
    return rc;
}

void ptx_module_free(ptx_module *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->kernel_count; i++) {
        free(m->kernels[i].insns);
        free(m->kernels[i].params);
    }
    free(m->kernels);
    free(m->consts);
    free(m->const_init);
    free(m);
}

int ptx_parse(const char *text, ptx_module **out, gd_err *err)
{
    *out = NULL;
    ptx_module *m = calloc(1, sizeof *m);
    if (!m)
        return gd_fail(err, "ptx: out of memory");
    lexer lx = {.p = text, .line = 1, .err = err};
    lex_next(&lx);
    int saw_version = 0, saw_target = 0;
    while (!lx.failed && lx.cur.kind != T_EOF) {
        if (tok_is(&lx, ".version")) {
            lex_next(&lx);
            if (lx.cur.kind != T_NUM ||
                sscanf(lx.cur.text, "%d.%d", &m->version_major, &m->version_minor) != 2) {
                lex_fail(&lx, lx.cur.line, "'.version' needs MAJOR.MINOR");
                break;
            }
            saw_version = 1;
            lex_next(&lx);
        } else if (tok_is(&lx, ".target")) {
            lex_next(&lx);
            if (lx.cur.kind != T_IDENT || sscanf(lx.cur.text, "sm_%d", &m->target_sm) != 1) {
                lex_fail(&lx, lx.cur.line, "'.target' needs sm_XY");
                break;
            }
            saw_target = 1;
            lex_next(&lx);
            while (tok_is(&lx, ",")) { /* e.g. ", texmode_independent" */
                lex_next(&lx);
                lex_next(&lx);
            }
        } else if (tok_is(&lx, ".address_size")) {
            lex_next(&lx);
            if (!tok_is(&lx, "64")) {
                lex_fail(&lx, lx.cur.line, "only '.address_size 64' is supported");
                break;
            }
            lex_next(&lx);
        } else if (tok_is(&lx, ".visible") || tok_is(&lx, ".weak")) {
            lex_next(&lx);
        } else if (tok_is(&lx, ".entry")) {
            if (parse_entry(&lx, m))
                break;
        } else if (tok_is(&lx, ".const")) {
            if (parse_const_decl(&lx, m))
                break;
        } else if (tok_is(&lx, ".func")) {
            lex_fail(&lx, lx.cur.line, "'.func' (device functions) is not in the subset");
            break;
        } else if (lx.cur.kind == T_IDENT && lx.cur.text[0] == '.') {
            lex_fail(&lx, lx.cur.line, "unsupported module directive '%s'", lx.cur.text);
            break;
        } else {
            lex_fail(&lx, lx.cur.line, "unexpected '%s' at module scope", lx.cur.text);
            break;
        }
    }
    if (!lx.failed && (!saw_version || !saw_target))
        lex_fail(&lx, lx.line, "missing '.version' or '.target' directive");
    if (!lx.failed && m->kernel_count == 0)
        lex_fail(&lx, lx.line, "no .entry kernel in the module");
    if (lx.failed) {
        ptx_module_free(m);
        return -1;
    }
    if (m->const_bytes) {
        m->const_init = calloc(1, m->const_bytes);
        if (!m->const_init) {
            ptx_module_free(m);
            return gd_fail(err, "ptx: out of memory");
        }
    }
    *out = m;
    return 0;
}

const ptx_kernel *ptx_module_find(const ptx_module *m, const char *entry)
{
    for (uint32_t i = 0; i < m->kernel_count; i++)
        if (strcmp(m->kernels[i].name, entry) == 0)
            return &m->kernels[i];
    return NULL;
}
