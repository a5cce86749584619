/* ptx_parse.h -- the PTX parser's per-kernel state (internal to sim/).
 *
 * The parser is two files along the grammar's seam:
 *   ptx_parse.c  module directives, .entry kernels, .param/.reg/.shared/.const
 *                declarations, labels, and the symbol tables they fill;
 *   ptx_insn.c   one instruction: its opcode and modifiers, its operands, the
 *                shape checks, and what the scoreboard must watch.
 * Both see the kernel being parsed through a kparse.
 */
#ifndef GD_SIM_PTX_PARSE_H
#define GD_SIM_PTX_PARSE_H

#include <stdlib.h>

#include "sim/ptx_lex.h"

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

#define KPARSE_MEMO 64
#define KPARSE_MEMO_PROBES 4

typedef struct kparse {
    ptx_kernel *k;
    reg_name *regs;
    size_t reg_count, reg_cap;
    /* name -> regs[] position + 1 (0 = empty), open addressing: a probe's
     * `.reg .f32 %f<4096>` and every operand look names up here, where a scan
     * of regs[] made parsing quadratic (issue 18) */
    uint32_t *reg_slots;
    size_t reg_slot_mask;
    sym *syms;
    size_t sym_count, sym_cap;
    label *labels;
    size_t label_count, label_cap;
    size_t insn_cap;
    const ptx_module *module;
    /* instructions parsed from one-line sources, by a hash of the source: the
     * same text again is the same instruction in this kernel (a 64 MiB FFMA
     * block is 4 M lines of eight different ones) */
    struct insn_memo {
        const char *text;
        size_t len;
        ptx_insn insn;
    } memo[KPARSE_MEMO];
} kparse;

/* Grows ptr[cap] to make room for ptr[count]; on failure returns from the
 * calling function with a lexer error. */
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

/* ptx_parse.c: symbol tables */
/* Index of a declared register, or -1. */
int kparse_find_reg(const kparse *kp, const char *name);
/* A kernel variable (param, shared) or module .const variable, or NULL. */
const sym *kparse_find_sym(const kparse *kp, const char *name);
/* The label table slot of `name` (created on first use). */
int kparse_label_ref(lexer *lx, kparse *kp, const char *name, int line, uint32_t *index_slot);

/* ptx_insn.c: parses one (optionally guarded) instruction through its ';' and
 * appends it to kp->k. */
int ptx_parse_instruction(lexer *lx, kparse *kp);

#endif
