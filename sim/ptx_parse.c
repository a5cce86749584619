/* ptx_parse.c -- parse the PTX subset gpudissect's probes emit.
 *
 * The simulator runs the very PTX text that would be handed to a GPU, so this
 * parser reads real PTX syntax: module directives (.version, .target,
 * .address_size, module-scope .const variables), .entry kernels with .param
 * lists, .reg/.shared declarations, labels, guarded instructions.  It is a small
 * hand-written lexer plus a statement parser: PTX's grammar is regular enough
 * that a table of opcodes and their operand shapes covers the subset.
 *
 * What it does not know it rejects, naming the line: "ptx:41: unsupported
 * instruction 'tex.2d.v4.f32.f32'".  The subset is listed in sim/README.md and
 * grows only when a probe needs it (and then the interpreter grows with it).
 */
#include "sim/ptx_lex.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Per-kernel symbol tables                                                  */

typedef struct reg_name {
    char name[64];
    uint32_t index;
} reg_name;

typedef struct sym {
    char name[64];
    ptx_space space;
    uint32_t offset;
    uint32_t size;
} sym;

typedef struct label {
    char name[64];
    int32_t index; /* instruction index, -1 until defined */
    int line;      /* first use, for errors */
} label;

typedef struct kparse {
    ptx_kernel *k;
    reg_name *regs;
    size_t reg_count, reg_cap;
    sym *syms;
    size_t sym_count, sym_cap;
    label *labels;
    size_t label_count, label_cap;
    size_t insn_cap;
    const ptx_module *module;
} kparse;

#define GROW(ptr, count, cap)                                                                  \
    do {                                                                                       \
        if ((count) == (cap)) {                                                                \
            size_t ncap_ = (cap) ? (cap) * 2 : 16;                                             \
            void *np_ = realloc((ptr), ncap_ * sizeof *(ptr));                                 \
            if (!np_)                                                                          \
                return lex_fail(lx, lx->cur.line, "out of memory");                            \
            (ptr) = np_;                                                                       \
            (cap) = ncap_;                                                                     \
        }                                                                                      \
    } while (0)

static int find_reg(const kparse *kp, const char *name)
{
    for (size_t i = 0; i < kp->reg_count; i++)
        if (strcmp(kp->regs[i].name, name) == 0)
            return (int)kp->regs[i].index;
    return -1;
}

static const sym *find_sym(const kparse *kp, const char *name)
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
    if (find_reg(kp, name) >= 0)
        return lex_fail(lx, lx->cur.line, "register %s declared twice", name);
    if (kp->k->reg_count >= PTX_NO_REG - 1)
        return lex_fail(lx, lx->cur.line, "too many registers");
    GROW(kp->regs, kp->reg_count, kp->reg_cap);
    snprintf(kp->regs[kp->reg_count].name, sizeof kp->regs[0].name, "%s", name);
    kp->regs[kp->reg_count].index = kp->k->reg_count++;
    kp->reg_count++;
    return 0;
}

static int label_ref(lexer *lx, kparse *kp, const char *name, int line, uint32_t *index_slot)
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
/* Operands                                                                  */

/* Parses one operand.  `type` guides immediate conversion; `allow_label` for bra. */
static int parse_operand(lexer *lx, kparse *kp, ptx_type type, ptx_operand *op, int allow_label,
                         uint32_t *label_slot)
{
    memset(op, 0, sizeof *op);
    op->reg = PTX_NO_REG;
    int line = lx->cur.line;
    if (tok_is(lx, "[")) {
        lex_next(lx);
        op->kind = OK_ADDR;
        int have_base = 0;
        int64_t offset = 0;
        int negative = 0;
        for (;;) {
            if (lx->cur.kind == T_IDENT) {
                if (have_base)
                    return lex_fail(lx, line, "address with two bases");
                int r = find_reg(kp, lx->cur.text);
                if (r >= 0) {
                    op->reg = (uint16_t)r;
                } else {
                    const sym *s = find_sym(kp, lx->cur.text);
                    if (!s)
                        return lex_fail(lx, line, "unknown name '%s' in address", lx->cur.text);
                    offset += s->offset;
                }
                have_base = 1;
                lex_next(lx);
            } else if (lx->cur.kind == T_NUM) {
                int64_t v;
                if (ptx_parse_number(lx->cur.text, negative, PT_S64, &v))
                    return lex_fail(lx, line, "bad address offset '%s'", lx->cur.text);
                offset += v;
                negative = 0;
                lex_next(lx);
            } else {
                return lex_fail(lx, line, "bad address operand near '%s'", lx->cur.text);
            }
            if (tok_is(lx, "+")) {
                lex_next(lx);
                if (tok_is(lx, "-")) {
                    negative = 1;
                    lex_next(lx);
                }
                continue;
            }
            if (tok_is(lx, "-")) {
                negative = 1;
                lex_next(lx);
                continue;
            }
            break;
        }
        op->imm = offset;
        return expect(lx, "]");
    }
    int negative = 0;
    if (tok_is(lx, "-")) {
        negative = 1;
        lex_next(lx);
    }
    if (lx->cur.kind == T_NUM) {
        op->kind = OK_IMM;
        if (ptx_parse_number(lx->cur.text, negative, type, &op->imm))
            return lex_fail(lx, line, "bad number '%s'", lx->cur.text);
        lex_next(lx);
        return 0;
    }
    if (negative)
        return lex_fail(lx, line, "'-' must be followed by a number");
    if (lx->cur.kind == T_PUNCT && tok_is(lx, "{"))
        return lex_fail(lx, line, "vector operands are not in the simulator's PTX subset");
    if (lx->cur.kind != T_IDENT)
        return lex_fail(lx, line, "expected an operand, found '%s'", lx->cur.text);
    const char *name = lx->cur.text;
    int r = find_reg(kp, name);
    if (r >= 0) {
        op->kind = OK_REG;
        op->reg = (uint16_t)r;
        lex_next(lx);
        return 0;
    }
    for (size_t i = 0; i < ptx_sreg_name_count; i++)
        if (strcmp(name, ptx_sreg_names[i].name) == 0) {
            op->kind = OK_SREG;
            op->sreg = (uint8_t)ptx_sreg_names[i].sreg;
            lex_next(lx);
            return 0;
        }
    if (allow_label) {
        if (label_ref(lx, kp, name, line, label_slot))
            return -1;
        op->kind = OK_NONE;
        lex_next(lx);
        return 0;
    }
    const sym *s = find_sym(kp, name);
    if (s) {
        /* the address of a variable in its state space */
        op->kind = OK_IMM;
        op->imm = s->offset;
        lex_next(lx);
        return 0;
    }
    if (name[0] == '%')
        return lex_fail(lx, line, "undeclared register %s", name);
    return lex_fail(lx, line, "unknown name '%s'", name);
}

/* ------------------------------------------------------------------------- */
/* Instructions                                                              */

typedef struct opcode_parts {
    char base[16];
    char mods[8][16];
    int mod_count;
} opcode_parts;

static int split_opcode(const char *text, opcode_parts *parts)
{
    memset(parts, 0, sizeof *parts);
    const char *dot = strchr(text, '.');
    size_t bl = dot ? (size_t)(dot - text) : strlen(text);
    if (bl >= sizeof parts->base)
        return -1;
    memcpy(parts->base, text, bl);
    while (dot) {
        const char *next = strchr(dot + 1, '.');
        size_t ml = next ? (size_t)(next - dot) : strlen(dot);
        if (parts->mod_count == 8 || ml >= sizeof parts->mods[0])
            return -1;
        memcpy(parts->mods[parts->mod_count++], dot, ml);
        dot = next;
    }
    return 0;
}

static int op_from_base(const char *base)
{
    for (int i = 0; i < OP_COUNT; i++)
        if (strcmp(base, ptx_op_names[i]) == 0)
            return i;
    return -1;
}

/* Applies modifiers to insn; returns -1 on an unknown one. */
static int apply_modifiers(lexer *lx, int line, const char *full, const opcode_parts *parts,
                           ptx_insn *in)
{
    int types_seen = 0;
    for (int i = 0; i < parts->mod_count; i++) {
        const char *m = parts->mods[i];
        ptx_type t = ptx_type_from_name(m);
        if (t != PT_NONE) {
            if (types_seen == 0)
                in->type = (uint8_t)t;
            else if (types_seen == 1)
                in->type2 = (uint8_t)t;
            else
                return lex_fail(lx, line, "too many types in '%s'", full);
            types_seen++;
            continue;
        }
        if (!strcmp(m, ".global")) in->space = SP_GLOBAL;
        else if (!strcmp(m, ".shared")) in->space = SP_SHARED;
        else if (!strcmp(m, ".const")) in->space = SP_CONST;
        else if (!strcmp(m, ".param")) in->space = SP_PARAM;
        else if (!strcmp(m, ".ca")) in->cache_op = CO_CA;
        else if (!strcmp(m, ".cg")) in->cache_op = CO_CG;
        else if (!strcmp(m, ".cs")) in->cache_op = CO_CS;
        else if (!strcmp(m, ".cv")) in->cache_op = CO_CV;
        else if (!strcmp(m, ".lu")) in->cache_op = CO_LU;
        else if (!strcmp(m, ".nc")) in->cache_op = CO_NC;
        else if (!strcmp(m, ".wb") || !strcmp(m, ".wt")) in->cache_op = CO_DEFAULT;
        else if (!strcmp(m, ".volatile")) in->volatile_ = 1;
        else if ((in->op == OP_MUL || in->op == OP_MAD) && !strcmp(m, ".lo")) in->mulmode = MM_LO;
        else if ((in->op == OP_MUL || in->op == OP_MAD) && !strcmp(m, ".hi")) in->mulmode = MM_HI;
        else if (!strcmp(m, ".eq")) in->cmp = CMP_EQ;
        else if (!strcmp(m, ".ne")) in->cmp = CMP_NE;
        else if (!strcmp(m, ".lt") || !strcmp(m, ".lo")) in->cmp = CMP_LT;
        else if (!strcmp(m, ".le") || !strcmp(m, ".ls")) in->cmp = CMP_LE;
        else if (!strcmp(m, ".gt") || !strcmp(m, ".hi")) in->cmp = CMP_GT;
        else if (!strcmp(m, ".ge") || !strcmp(m, ".hs")) in->cmp = CMP_GE;
        else if (!strcmp(m, ".wide")) in->mulmode = MM_WIDE;
        else if (!strcmp(m, ".uni") || !strcmp(m, ".sync") || !strcmp(m, ".rn") ||
                 !strcmp(m, ".rz") || !strcmp(m, ".rm") || !strcmp(m, ".rp") ||
                 !strcmp(m, ".rni") || !strcmp(m, ".rzi") || !strcmp(m, ".ftz") ||
                 !strcmp(m, ".sat") || !strcmp(m, ".approx") || !strcmp(m, ".full") ||
                 !strcmp(m, ".aligned"))
            ; /* accepted, no effect on the functional model */
        else
            return lex_fail(lx, line, "unsupported modifier '%s' in '%s'", m, full);
    }
    return types_seen;
}

static int parse_instruction(lexer *lx, kparse *kp)
{
    ptx_kernel *k = kp->k;
    GROW(k->insns, k->insn_count, kp->insn_cap);
    ptx_insn *in = &k->insns[k->insn_count];
    memset(in, 0, sizeof *in);
    in->guard = PTX_NO_REG;
    in->dst.reg = PTX_NO_REG;
    int line = lx->cur.line;
    in->line = (uint32_t)line;

    if (tok_is(lx, "@")) {
        lex_next(lx);
        if (tok_is(lx, "!")) {
            in->guard_neg = 1;
            lex_next(lx);
        }
        int r = lx->cur.kind == T_IDENT ? find_reg(kp, lx->cur.text) : -1;
        if (r < 0)
            return lex_fail(lx, line, "guard must be a declared predicate register, found '%s'",
                            lx->cur.text);
        in->guard = (uint16_t)r;
        lex_next(lx);
    }
    if (lx->cur.kind != T_IDENT)
        return lex_fail(lx, line, "expected an instruction, found '%s'", lx->cur.text);
    char full[64];
    snprintf(full, sizeof full, "%s", lx->cur.text);
    opcode_parts parts;
    int op = -1;
    if (split_opcode(full, &parts) == 0)
        op = op_from_base(parts.base);
    /* mul.lo / mad.lo need the op before modifiers are read */
    if (op < 0)
        return lex_fail(lx, line,
                        "unsupported instruction '%s' (not in the simulator's PTX subset; see "
                        "sim/README.md)",
                        full);
    in->op = (uint8_t)op;
    int ntypes = apply_modifiers(lx, line, full, &parts, in);
    if (ntypes < 0)
        return -1;
    if (op == OP_MUL || op == OP_MAD) {
        if (!ptx_type_is_float((ptx_type)in->type) && in->mulmode == MM_NONE)
            return lex_fail(lx, line, "'%s' needs .lo, .hi or .wide", full);
    }
    lex_next(lx);

    /* operand shapes */
    int ndst = 0, nsrc = 0;
    int is_label = 0;
    switch (op) {
    case OP_MOV: case OP_NEG: case OP_ABS: case OP_NOT: case OP_CVT: ndst = 1; nsrc = 1; break;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_REM: case OP_MIN: case OP_MAX:
    case OP_AND: case OP_OR: case OP_XOR: case OP_SHL: case OP_SHR: case OP_SETP:
        ndst = 1; nsrc = 2; break;
    case OP_MAD: case OP_FMA: case OP_SELP: ndst = 1; nsrc = 3; break;
    case OP_LD: ndst = 1; nsrc = 1; break;
    case OP_ST: ndst = 0; nsrc = 2; break;
    case OP_BRA: is_label = 1; break;
    case OP_RET: case OP_EXIT: break;
    case OP_BAR: nsrc = 1; break;
    }
    if (in->type == PT_NONE && op != OP_BRA && op != OP_RET && op != OP_EXIT && op != OP_BAR)
        return lex_fail(lx, line, "'%s' needs a type (.u32, .u64, ...)", full);
    if ((op == OP_LD || op == OP_ST) && in->space == SP_NONE)
        return lex_fail(lx, line, "'%s': generic addressing is not in the subset; name a state "
                                  "space (.global, .shared, .const, .param)",
                        full);
    if (op == OP_CVT && ntypes != 2)
        return lex_fail(lx, line, "'%s' needs a destination and a source type", full);
    if (op == OP_SETP && ntypes != 1)
        return lex_fail(lx, line, "'%s' needs one comparison type", full);

    ptx_type src_type = (ptx_type)in->type;
    if (op == OP_CVT)
        src_type = (ptx_type)in->type2;
    if (is_label) {
        uint32_t slot = 0;
        ptx_operand dummy;
        if (parse_operand(lx, kp, PT_NONE, &dummy, 1, &slot))
            return -1;
        in->target = slot; /* label index; resolved at the end of the kernel */
    }
    if (ndst) {
        ptx_type dt = op == OP_SETP ? PT_PRED : (ptx_type)in->type;
        if (parse_operand(lx, kp, dt, &in->dst, 0, NULL))
            return -1;
        if (in->dst.kind != OK_REG)
            return lex_fail(lx, line, "'%s': destination must be a register", full);
        if (tok_is(lx, "|"))
            return lex_fail(lx, line, "'%s': a second predicate destination is not in the subset",
                            full);
        if (nsrc && expect(lx, ","))
            return -1;
    }
    for (int i = 0; i < nsrc; i++) {
        ptx_type t = src_type;
        if (op == OP_SELP && i == 2)
            t = PT_PRED;
        if ((op == OP_SHL || op == OP_SHR) && i == 1)
            t = PT_U32;
        if (parse_operand(lx, kp, t, &in->src[i], 0, NULL))
            return -1;
        if (i + 1 < nsrc && expect(lx, ","))
            return -1;
    }
    in->nsrc = (uint8_t)nsrc;
    if (expect(lx, ";"))
        return -1;

    /* shape checks */
    if (op == OP_LD) {
        if (in->src[0].kind != OK_ADDR)
            return lex_fail(lx, line, "'%s': source must be an address [..]", full);
        in->size = (uint8_t)(ptx_type_bits((ptx_type)in->type) / 8);
    }
    if (op == OP_ST) {
        if (in->src[0].kind != OK_ADDR)
            return lex_fail(lx, line, "'%s': destination must be an address [..]", full);
        if (in->space == SP_CONST || in->space == SP_PARAM)
            return lex_fail(lx, line, "'%s': cannot store to a read-only state space", full);
        in->size = (uint8_t)(ptx_type_bits((ptx_type)in->type) / 8);
    }
    if ((op == OP_LD || op == OP_ST) && in->size == 0)
        return lex_fail(lx, line, "'%s': bad access size", full);
    if (op == OP_LD && in->space == SP_LOCAL)
        return lex_fail(lx, line, "'%s': .local is not in the subset", full);
    for (int i = 0; i < nsrc; i++)
        if (in->src[i].kind == OK_ADDR && op != OP_LD && op != OP_ST)
            return lex_fail(lx, line, "'%s': an address operand needs ld or st", full);
    if (op == OP_ST && in->src[1].kind == OK_ADDR)
        return lex_fail(lx, line, "'%s': value must be a register or immediate", full);
    if (op == OP_BAR) {
        if (in->src[0].kind != OK_IMM || in->src[0].imm != 0)
            return lex_fail(lx, line, "'%s': only barrier 0 is supported", full);
    }
    if (op == OP_FMA && !ptx_type_is_float((ptx_type)in->type))
        return lex_fail(lx, line, "'%s': fma needs .f32 or .f64", full);
    if ((op == OP_DIV || op == OP_REM) && ptx_type_is_float((ptx_type)in->type) && op == OP_REM)
        return lex_fail(lx, line, "'%s': rem needs an integer type", full);
    if (op == OP_MOV && in->src[0].kind == OK_SREG && in->src[0].sreg == SR_CLOCK64 &&
        ptx_type_bits((ptx_type)in->type) != 64)
        return lex_fail(lx, line, "'%s': %%clock64 needs a 64-bit move", full);

    /* what the scoreboard must check: guard, sources (and address bases), destination */
    in->bits = (uint8_t)ptx_type_bits((ptx_type)in->type);
    if (in->guard != PTX_NO_REG)
        in->sb_regs[in->sb_count++] = in->guard;
    for (int i = 0; i < nsrc; i++)
        if ((in->src[i].kind == OK_REG || in->src[i].kind == OK_ADDR) && in->src[i].reg != PTX_NO_REG)
            in->sb_regs[in->sb_count++] = in->src[i].reg;
    if (in->dst.kind == OK_REG)
        in->sb_regs[in->sb_count++] = in->dst.reg;

    switch (op) {
    case OP_LD: case OP_ST: in->unit = UNIT_MEM; break;
    case OP_BRA: case OP_RET: case OP_EXIT: in->unit = UNIT_BRANCH; break;
    case OP_BAR: in->unit = UNIT_BARRIER; break;
    default: in->unit = UNIT_ALU; break;
    }
    k->insn_count++;
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
            *align = (uint32_t)strtoul(lx->cur.text, NULL, 0);
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
            *count = strtoll(lx->cur.text, NULL, 0);
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
        uint32_t size = elem * (uint32_t)(count > 0 ? count : 1);
        if (!align)
            align = elem;
        ptx_kernel *k = kp->k;
        GROW(k->params, k->param_count, cap);
        ptx_param *p = &k->params[k->param_count++];
        snprintf(p->name, sizeof p->name, "%s", name);
        k->param_bytes = align_up(k->param_bytes, align);
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
        if (tok_is(lx, "{")) {
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
            if (label_ref(lx, kp, lx->cur.text, lx->cur.line, &slot))
                return -1;
            if (kp->labels[slot].index >= 0)
                return lex_fail(lx, lx->cur.line, "label %s defined twice", lx->cur.text);
            kp->labels[slot].index = (int32_t)kp->k->insn_count;
            lex_next(lx);
            if (expect(lx, ":"))
                return -1;
        } else {
            if (parse_instruction(lx, kp))
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
    if (k->insn_count == 0 || (k->insns[k->insn_count - 1].op != OP_RET &&
                               k->insns[k->insn_count - 1].op != OP_EXIT &&
                               k->insns[k->insn_count - 1].op != OP_BRA)) {
        /* falling off the end of a kernel exits, as on a GPU: add an implicit ret */
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
