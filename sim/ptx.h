/* ptx.h -- the PTX subset the simulator runs, as parsed instructions.
 *
 * The parser (ptx_parse.c) turns PTX text into a ptx_module: kernels whose
 * instructions are decoded once into fixed-size records, with register names
 * mapped to indices and symbols (params, shared and const variables) folded into
 * address offsets, so the interpreter never looks at text again.  The subset is
 * documented in sim/README.md; anything outside it is rejected at parse time
 * with the PTX line number.
 */
#ifndef GD_SIM_PTX_H
#define GD_SIM_PTX_H

#include <stddef.h>
#include <stdint.h>

#include "host/device.h"

typedef enum ptx_type {
    PT_NONE,
    PT_U8, PT_U16, PT_U32, PT_U64,
    PT_S8, PT_S16, PT_S32, PT_S64,
    PT_B8, PT_B16, PT_B32, PT_B64,
    PT_F32, PT_F64,
    PT_PRED,
} ptx_type;

typedef enum ptx_op {
    OP_MOV, OP_ADD, OP_SUB, OP_MUL, OP_MAD, OP_DIV, OP_REM, OP_MIN, OP_MAX, OP_NEG, OP_ABS,
    OP_AND, OP_OR, OP_XOR, OP_NOT, OP_SHL, OP_SHR,
    OP_SETP, OP_SELP, OP_CVT, OP_FMA,
    OP_LD, OP_ST,
    OP_BRA, OP_RET, OP_EXIT, OP_BAR,
    OP_NOP,      /* not PTX: what a GD_PATCH_FFMA_TO_NOP load turns an fma into */
    OP_COUNT
} ptx_op;

typedef enum ptx_space { SP_NONE, SP_GLOBAL, SP_SHARED, SP_CONST, SP_PARAM, SP_LOCAL } ptx_space;
typedef enum ptx_cache_op { CO_DEFAULT, CO_CA, CO_CG, CO_CS, CO_CV, CO_LU, CO_NC } ptx_cache_op;
typedef enum ptx_cmp { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE } ptx_cmp;
typedef enum ptx_mulmode { MM_NONE, MM_LO, MM_HI, MM_WIDE } ptx_mulmode;

typedef enum ptx_sreg {
    SR_TID_X, SR_TID_Y, SR_TID_Z, SR_NTID_X, SR_NTID_Y, SR_NTID_Z,
    SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z, SR_NCTAID_X, SR_NCTAID_Y, SR_NCTAID_Z,
    SR_LANEID, SR_WARPID, SR_NWARPID, SR_SMID, SR_NSMID, SR_CLOCK, SR_CLOCK64,
    SR_GLOBALTIMER,
    SR_COUNT
} ptx_sreg;

typedef enum ptx_opnd_kind { OK_NONE, OK_REG, OK_IMM, OK_SREG, OK_ADDR } ptx_opnd_kind;

/* An operand.  OK_ADDR is [reg + imm] or [imm] (symbols are folded into imm). */
typedef struct ptx_operand {
    uint8_t kind;
    uint8_t sreg;
    uint16_t reg;      /* OK_REG; OK_ADDR base register, or PTX_NO_REG */
    int64_t imm;       /* OK_IMM value bits; OK_ADDR offset */
} ptx_operand;

#define PTX_NO_REG 0xffffu

/* Timing class of an instruction, decided at parse time. */
typedef enum ptx_unit { UNIT_ALU, UNIT_MEM, UNIT_BRANCH, UNIT_BARRIER } ptx_unit;

/* ptx_insn.flags: an instruction that hands nothing to the memory system (an
 * ALU operation, bra, a shared-memory access: the lone warp's burst goes on
 * past it), and a shared-memory access (its bank pipeline is a hazard) --
 * one test each on the issue path instead of three (issue 18) */
#define PTX_INSN_QUIET 1u
#define PTX_INSN_SMEM 2u

typedef struct ptx_insn {
    uint8_t op;        /* ptx_op */
    uint8_t type;      /* operation type */
    uint8_t type2;     /* cvt: source type */
    uint8_t space;     /* ld/st */
    uint8_t cache_op;  /* ld/st */
    uint8_t cmp;       /* setp */
    uint8_t mulmode;   /* mul/mad */
    uint8_t unit;      /* ptx_unit */
    uint8_t guard_neg;
    uint8_t nsrc;
    uint8_t size;      /* ld/st: access bytes */
    uint8_t volatile_; /* ld.volatile / st.volatile */
    uint16_t guard;    /* predicate register or PTX_NO_REG */
    uint8_t bits;      /* width of `type` */
    uint8_t sb_count;  /* registers the scoreboard checks before issue */
    uint8_t vec;       /* ld/st.global .v2/.v4: elements (0: scalar); size is the whole vector */
    uint8_t flags;     /* PTX_INSN_QUIET, PTX_INSN_SMEM: what the issue loop tests (gpu.c) */
    uint16_t sb_regs[6];
    uint16_t vregs[4]; /* .v2/.v4: the vector's registers, in element order (dst.reg /
                        * src[1].reg hold the first) */
    ptx_operand dst;
    ptx_operand src[3];
    uint32_t target;   /* bra: instruction index */
    uint32_t line;     /* PTX source line */
} ptx_insn;

typedef struct ptx_param {
    char name[64];
    uint32_t offset;
    uint32_t size;
} ptx_param;

typedef struct ptx_kernel {
    char name[128];
    ptx_insn *insns;
    uint32_t insn_count;
    uint32_t reg_count;
    ptx_param *params;
    uint32_t param_count;
    uint32_t param_bytes;
    uint32_t shared_static_bytes;
    int uses_dynamic_shared;
    uint32_t dynamic_shared_offset; /* where extern .shared starts */
} ptx_kernel;

/* A module-scope .const variable (the constant bank). */
typedef struct ptx_const_var {
    char name[64];
    uint32_t offset;
    uint32_t size;
} ptx_const_var;

typedef struct ptx_module {
    int version_major, version_minor;
    int target_sm;           /* 75 for sm_75 */
    ptx_kernel *kernels;
    uint32_t kernel_count;
    ptx_const_var *consts;
    uint32_t const_count;
    uint32_t const_bytes;    /* size of the module's constant bank */
    uint8_t *const_init;     /* initial contents (zeros unless initialized) */
} ptx_module;

/* Parse PTX text.  On error: "ptx:LINE: message" in err, returns -1. */
int ptx_parse(const char *text, ptx_module **out, gd_err *err);
void ptx_module_free(ptx_module *m);
const ptx_kernel *ptx_module_find(const ptx_module *m, const char *entry);

const char *ptx_op_name(ptx_op op);
unsigned ptx_type_bits(ptx_type t);

static inline int ptx_type_is_signed(ptx_type t)
{
    return t == PT_S8 || t == PT_S16 || t == PT_S32 || t == PT_S64;
}

static inline int ptx_type_is_float(ptx_type t)
{
    return t == PT_F32 || t == PT_F64;
}

#endif
