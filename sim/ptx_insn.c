/* ptx_insn.c -- one PTX instruction of the simulator's subset, decoded once.
 *
 * An instruction is an opcode with dot-modifiers (`ld.global.ca.u32`), an
 * optional guard (`@%p`, `@!%p`) and operands whose shapes the opcode fixes:
 * registers, immediates (converted to the bits of the instruction's type),
 * special registers, labels and addresses `[reg+imm]` with symbols folded into
 * the offset.  The result is a fixed ptx_insn record the interpreter never has
 * to re-read: its timing unit and the registers the scoreboard watches are
 * decided here.  Anything outside the subset is rejected with its PTX line.
 */
#include "sim/ptx_parse.h"

#include <stdio.h>
#include <string.h>

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
                int r = kparse_find_reg(kp, lx->cur.text);
                if (r >= 0) {
                    op->reg = (uint16_t)r;
                } else {
                    const sym *s = kparse_find_sym(kp, lx->cur.text);
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
    int r = kparse_find_reg(kp, name);
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
        if (kparse_label_ref(lx, kp, name, line, label_slot))
            return -1;
        op->kind = OK_NONE;
        lex_next(lx);
        return 0;
    }
    const sym *s = kparse_find_sym(kp, name);
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
        else if ((in->op == OP_LD || in->op == OP_ST) && !strcmp(m, ".v2")) in->vec = 2;
        else if ((in->op == OP_LD || in->op == OP_ST) && !strcmp(m, ".v4")) in->vec = 4;
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

/* A vector operand of ld/st .v2/.v4: {%a, %b[, %c, %d]}, registers only
 * (issue 12: the bandwidth probe's vector loads and stores). */
static int parse_vector(lexer *lx, kparse *kp, int line, const char *full, ptx_insn *in,
                        ptx_operand *op)
{
    if (expect(lx, "{"))
        return -1;
    for (int e = 0; e < in->vec; e++) {
        int r = lx->cur.kind == T_IDENT ? kparse_find_reg(kp, lx->cur.text) : -1;
        if (r < 0)
            return lex_fail(lx, line, "'%s': a vector element must be a declared register, "
                                      "found '%s'",
                            full, lx->cur.text);
        in->vregs[e] = (uint16_t)r;
        lex_next(lx);
        if (e + 1 < in->vec && expect(lx, ","))
            return -1;
    }
    if (expect(lx, "}"))
        return -1;
    memset(op, 0, sizeof *op);
    op->kind = OK_REG;
    op->reg = in->vregs[0];
    return 0;
}

/* The length of the instruction starting at src through its ';' when it is
 * all on one line without a comment; 0 otherwise. */
static size_t one_line_source(const char *src, uint32_t *hash)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    const char *q = src;
    for (; *q && *q != ';'; q++) {
        if (*q == '\n' || *q == '/')
            return 0;
        h = (h ^ (unsigned char)*q) * 16777619u;
    }
    if (*q != ';')
        return 0;
    /* mixed: lines that differ by one register in two places differ in FNV's
     * low bits alike (%fq1, %fq1 and %fq3, %fq3 shared a slot of 64) */
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    *hash = h;
    return (size_t)(q - src) + 1;
}

int ptx_parse_instruction(lexer *lx, kparse *kp)
{
    ptx_kernel *k = kp->k;
    GROW(k->insns, k->insn_count, kp->insn_cap);
    ptx_insn *in = &k->insns[k->insn_count];
    uint32_t hash = 0;
    const char *src = lx->cur.start;
    size_t src_len = src ? one_line_source(src, &hash) : 0;
    /* (a few slots from the hash's: eight lines in 64 slots share one often) */
    struct insn_memo *memo = NULL;
    for (unsigned i = 0; src_len && i < KPARSE_MEMO_PROBES; i++) {
        struct insn_memo *m = &kp->memo[(hash + i) % KPARSE_MEMO];
        if (m->len == src_len && !memcmp(m->text, src, src_len)) {
            *in = m->insn;
            in->line = (uint32_t)lx->cur.line;
            lx->p = src + src_len;
            lex_next(lx);
            k->insn_count++;
            return 0;
        }
        if (!memo && !m->len)
            memo = m; /* the first free one (else the hash's own, below) */
    }
    if (src_len && !memo)
        memo = &kp->memo[hash % KPARSE_MEMO];
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
        int r = lx->cur.kind == T_IDENT ? kparse_find_reg(kp, lx->cur.text) : -1;
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
        if (dummy.kind != OK_NONE) /* a register, number or address: not a label */
            return lex_fail(lx, line, "'%s': the target must be a label (indirect branches are "
                                      "not in the subset)",
                            full);
        in->target = slot; /* label index; resolved at the end of the kernel */
    }
    if (in->vec && in->space != SP_GLOBAL)
        return lex_fail(lx, line, "'%s': vectors are in the subset for .global only", full);
    if (ndst && in->vec) {
        if (parse_vector(lx, kp, line, full, in, &in->dst) || expect(lx, ","))
            return -1;
    } else if (ndst) {
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
        if (op == OP_ST && i == 1 && in->vec) {
            if (parse_vector(lx, kp, line, full, in, &in->src[1]))
                return -1;
        } else if (parse_operand(lx, kp, t, &in->src[i], 0, NULL)) {
            return -1;
        }
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
        in->size = (uint8_t)(ptx_type_bits((ptx_type)in->type) / 8 * (in->vec ? in->vec : 1));
    }
    if (op == OP_ST) {
        if (in->src[0].kind != OK_ADDR)
            return lex_fail(lx, line, "'%s': destination must be an address [..]", full);
        if (in->space == SP_CONST || in->space == SP_PARAM)
            return lex_fail(lx, line, "'%s': cannot store to a read-only state space", full);
        in->size = (uint8_t)(ptx_type_bits((ptx_type)in->type) / 8 * (in->vec ? in->vec : 1));
    }
    if ((op == OP_LD || op == OP_ST) && in->size > 16)
        return lex_fail(lx, line, "'%s': a vector of more than 16 bytes is not in the subset", full);
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
    if (in->mulmode == MM_WIDE && ptx_type_bits((ptx_type)in->type) > 32)
        return lex_fail(lx, line, "'%s': PTX defines .wide for 16- and 32-bit integers only", full);
    if (in->mulmode == MM_WIDE && (op != OP_MUL && op != OP_MAD))
        return lex_fail(lx, line, "'%s': .wide needs mul or mad", full);
    if (op == OP_FMA && !ptx_type_is_float((ptx_type)in->type))
        return lex_fail(lx, line, "'%s': fma needs .f32 or .f64", full);
    if ((op == OP_DIV || op == OP_REM) && ptx_type_is_float((ptx_type)in->type) && op == OP_REM)
        return lex_fail(lx, line, "'%s': rem needs an integer type", full);
    if (op == OP_MOV && in->src[0].kind == OK_SREG &&
        (in->src[0].sreg == SR_CLOCK64 || in->src[0].sreg == SR_GLOBALTIMER) &&
        ptx_type_bits((ptx_type)in->type) != 64)
        return lex_fail(lx, line, "'%s': %s needs a 64-bit move", full,
                        in->src[0].sreg == SR_CLOCK64 ? "%clock64" : "%globaltimer");

    /* what the scoreboard must check: guard, sources (and address bases), destination */
    in->bits = (uint8_t)ptx_type_bits((ptx_type)in->type);
    if (in->guard != PTX_NO_REG)
        in->sb_regs[in->sb_count++] = in->guard;
    for (int i = 0; i < nsrc; i++)
        if ((in->src[i].kind == OK_REG || in->src[i].kind == OK_ADDR) && in->src[i].reg != PTX_NO_REG)
            in->sb_regs[in->sb_count++] = in->src[i].reg;
    if (in->dst.kind == OK_REG)
        in->sb_regs[in->sb_count++] = in->dst.reg;
    /* the other elements of a vector (guard + address + 4 registers fit) */
    for (int e = 1; e < in->vec; e++)
        in->sb_regs[in->sb_count++] = in->vregs[e];

    switch (op) {
    case OP_LD: case OP_ST: in->unit = UNIT_MEM; break;
    case OP_BRA: case OP_RET: case OP_EXIT: in->unit = UNIT_BRANCH; break;
    case OP_BAR: in->unit = UNIT_BARRIER; break;
    default: in->unit = UNIT_ALU; break;
    }
    {
        int smem = in->unit == UNIT_MEM && in->space == SP_SHARED;
        int quiet = in->unit == UNIT_ALU || op == OP_BRA || smem;
        in->flags = (uint8_t)((quiet ? PTX_INSN_QUIET : 0) | (smem ? PTX_INSN_SMEM : 0));
    }
    if (memo && in->op != OP_BRA) { /* (a branch's label: the table's, first use) */
        memo->text = src;
        memo->len = src_len;
        memo->insn = *in;
    }
    k->insn_count++;
    return 0;
}
