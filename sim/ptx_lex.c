/* ptx_lex.c -- tokens, type names and numbers of PTX text.
 *
 * The lexer half of the simulator's PTX front end (ptx_parse.c is the other
 * half).  PTX tokens are simple: identifiers may contain dots and start with '%'
 * or '.', numbers include PTX's hex-float forms (0f3F800000 is 1.0f), and
 * comments are C/C++ style.  Line numbers travel with every token so that each
 * error can name its PTX line.
 */
#include "sim/ptx_lex.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Lexer                                                                     */

int lex_fail(lexer *lx, int line, const char *fmt, ...)
{
    if (!lx->failed) {
        char msg[GD_ERR_MSG_BYTES - 32];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        gd_fail(lx->err, "ptx:%d: %s", line, msg);
        lx->failed = 1;
    }
    return -1;
}

static void skip_space(lexer *lx)
{
    for (;;) {
        while (*lx->p && isspace((unsigned char)*lx->p)) {
            if (*lx->p == '\n')
                lx->line++;
            lx->p++;
        }
        if (lx->p[0] == '/' && lx->p[1] == '/') {
            while (*lx->p && *lx->p != '\n')
                lx->p++;
            continue;
        }
        if (lx->p[0] == '/' && lx->p[1] == '*') {
            lx->p += 2;
            while (*lx->p && !(lx->p[0] == '*' && lx->p[1] == '/')) {
                if (*lx->p == '\n')
                    lx->line++;
                lx->p++;
            }
            if (*lx->p)
                lx->p += 2;
            continue;
        }
        break;
    }
}

static int is_ident_start(int c)
{
    return isalpha(c) || c == '_' || c == '%' || c == '.' || c == '$';
}

static int is_ident_char(int c)
{
    return isalnum(c) || c == '_' || c == '.' || c == '$' || c == '%';
}

void lex_next(lexer *lx)
{
    skip_space(lx);
    token *t = &lx->cur;
    t->line = lx->line;
    t->text[0] = 0;
    const char *s = lx->p;
    t->start = s;
    if (!*s) {
        t->kind = T_EOF;
        return;
    }
    size_t n = 0;
    if (is_ident_start((unsigned char)*s)) {
        while (is_ident_char((unsigned char)s[n]))
            n++;
        t->kind = T_IDENT;
    } else if (isdigit((unsigned char)*s)) {
        while (isalnum((unsigned char)s[n]) || s[n] == '.')
            n++;
        t->kind = T_NUM;
    } else if (*s == '"') {
        n = 1;
        while (s[n] && s[n] != '"' && s[n] != '\n')
            n++;
        if (s[n] == '"')
            n++;
        t->kind = T_STRING;
    } else {
        n = 1;
        t->kind = T_PUNCT;
    }
    if (n >= sizeof t->text) {
        lex_fail(lx, lx->line, "token too long");
        t->kind = T_EOF;
        return;
    }
    memcpy(t->text, s, n);
    t->text[n] = 0;
    lx->p += n;
}

int tok_is(const lexer *lx, const char *text)
{
    return lx->cur.kind != T_EOF && strcmp(lx->cur.text, text) == 0;
}

int expect(lexer *lx, const char *text)
{
    if (!tok_is(lx, text))
        return lex_fail(lx, lx->cur.line, "expected '%s', found '%s'", text,
                        lx->cur.kind == T_EOF ? "end of input" : lx->cur.text);
    lex_next(lx);
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Names, types                                                              */

static const struct {
    const char *name;
    ptx_type type;
} type_names[] = {
    {".u8", PT_U8},   {".u16", PT_U16}, {".u32", PT_U32}, {".u64", PT_U64}, {".s8", PT_S8},
    {".s16", PT_S16}, {".s32", PT_S32}, {".s64", PT_S64}, {".b8", PT_B8},   {".b16", PT_B16},
    {".b32", PT_B32}, {".b64", PT_B64}, {".f32", PT_F32}, {".f64", PT_F64}, {".pred", PT_PRED},
};

ptx_type ptx_type_from_name(const char *s)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (strcmp(s, type_names[i].name) == 0)
            return type_names[i].type;
    return PT_NONE;
}

unsigned ptx_type_bits(ptx_type t)
{
    switch (t) {
    case PT_U8: case PT_S8: case PT_B8: return 8;
    case PT_U16: case PT_S16: case PT_B16: return 16;
    case PT_U32: case PT_S32: case PT_B32: case PT_F32: return 32;
    case PT_U64: case PT_S64: case PT_B64: case PT_F64: return 64;
    case PT_PRED: return 1;
    default: return 0;
    }
}


const char *const ptx_op_names[OP_COUNT] = {
    [OP_MOV] = "mov", [OP_ADD] = "add", [OP_SUB] = "sub", [OP_MUL] = "mul", [OP_MAD] = "mad",
    [OP_DIV] = "div", [OP_REM] = "rem", [OP_MIN] = "min", [OP_MAX] = "max", [OP_NEG] = "neg",
    [OP_ABS] = "abs", [OP_AND] = "and", [OP_OR] = "or", [OP_XOR] = "xor", [OP_NOT] = "not",
    [OP_SHL] = "shl", [OP_SHR] = "shr", [OP_SETP] = "setp", [OP_SELP] = "selp", [OP_CVT] = "cvt",
    [OP_FMA] = "fma", [OP_LD] = "ld", [OP_ST] = "st", [OP_BRA] = "bra", [OP_RET] = "ret",
    [OP_EXIT] = "exit", [OP_BAR] = "bar", [OP_NOP] = "(patched nop)",
};

const char *ptx_op_name(ptx_op op)
{
    return op < OP_COUNT ? ptx_op_names[op] : "?";
}

const ptx_sreg_name ptx_sreg_names[] = {
    {"%tid.x", SR_TID_X},       {"%tid.y", SR_TID_Y},       {"%tid.z", SR_TID_Z},
    {"%ntid.x", SR_NTID_X},     {"%ntid.y", SR_NTID_Y},     {"%ntid.z", SR_NTID_Z},
    {"%ctaid.x", SR_CTAID_X},   {"%ctaid.y", SR_CTAID_Y},   {"%ctaid.z", SR_CTAID_Z},
    {"%nctaid.x", SR_NCTAID_X}, {"%nctaid.y", SR_NCTAID_Y}, {"%nctaid.z", SR_NCTAID_Z},
    {"%laneid", SR_LANEID},     {"%warpid", SR_WARPID},     {"%nwarpid", SR_NWARPID},
    {"%smid", SR_SMID},         {"%nsmid", SR_NSMID},       {"%clock", SR_CLOCK},
    {"%clock64", SR_CLOCK64},   {"%globaltimer", SR_GLOBALTIMER},
};

int ptx_parse_number(const char *text, int negative, ptx_type type, int64_t *out)
{
    const char *s = text;
    if ((s[0] == '0') && (s[1] == 'f' || s[1] == 'F') && strlen(s) == 10) {
        /* 0fXXXXXXXX: the bits of an f32 */
        char *end;
        unsigned long v = strtoul(s + 2, &end, 16);
        if (*end)
            return -1;
        uint32_t bits = (uint32_t)v;
        if (negative)
            bits ^= 0x80000000u;
        *out = bits;
        return 0;
    }
    if ((s[0] == '0') && (s[1] == 'd' || s[1] == 'D') && strlen(s) == 18) {
        char *end;
        unsigned long long v = strtoull(s + 2, &end, 16);
        if (*end)
            return -1;
        if (negative)
            v ^= 0x8000000000000000ull;
        *out = (int64_t)v;
        return 0;
    }
    if (strchr(s, '.') || ((strchr(s, 'e') || strchr(s, 'E')) && !(s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))) {
        char *end;
        errno = 0;
        double d = strtod(s, &end);
        if (*end || errno)
            return -1;
        if (negative)
            d = -d;
        if (type == PT_F64) {
            memcpy(out, &d, sizeof d);
        } else if (type == PT_F32) {
            float f = (float)d;
            uint32_t bits;
            memcpy(&bits, &f, sizeof bits);
            *out = bits;
        } else {
            return -1;
        }
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end == 'U' || *end == 'u')
        end++;
    if (*end || errno)
        return -1;
    /* two's complement negation in unsigned arithmetic: -0x8000000000000000 is
     * INT64_MIN, and no input overflows */
    int64_t sv = (int64_t)(negative ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
    if (type == PT_F32) {
        float f = (float)sv;
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        *out = bits;
    } else if (type == PT_F64) {
        double d = (double)sv;
        memcpy(out, &d, sizeof d);
    } else {
        *out = sv;
    }
    return 0;
}

const size_t ptx_sreg_name_count = sizeof ptx_sreg_names / sizeof ptx_sreg_names[0];
