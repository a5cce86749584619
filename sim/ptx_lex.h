/* ptx_lex.h -- the PTX lexer shared by the simulator's parser (internal). */
#ifndef GD_SIM_PTX_LEX_H
#define GD_SIM_PTX_LEX_H

#include "sim/ptx.h"

typedef enum tok_kind { T_EOF, T_IDENT, T_NUM, T_STRING, T_PUNCT } tok_kind;

typedef struct token {
    tok_kind kind;
    char text[64];
    int line;
    const char *start; /* where it starts in the source */
} token;

typedef struct lexer {
    const char *p;
    int line;
    token cur;
    gd_err *err;
    int failed;
} lexer;

int lex_fail(lexer *lx, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void lex_next(lexer *lx);
int tok_is(const lexer *lx, const char *text);
int expect(lexer *lx, const char *text);

ptx_type ptx_type_from_name(const char *s);
/* Parses a PTX number (decimal, hex, 0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX, decimal float)
 * into the bits of `type`. */
int ptx_parse_number(const char *text, int negative, ptx_type type, int64_t *out);

typedef struct ptx_sreg_name {
    const char *name;
    ptx_sreg sreg;
} ptx_sreg_name;
extern const ptx_sreg_name ptx_sreg_names[];
extern const size_t ptx_sreg_name_count;
extern const char *const ptx_op_names[OP_COUNT];

#endif
