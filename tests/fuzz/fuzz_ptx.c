/* fuzz_ptx.c -- the simulator's PTX front end (sim/ptx_lex.c, ptx_parse.c,
 * ptx_insn.c) on its own.
 *
 * An accepted module must be safe to interpret: every branch lands inside its
 * kernel, every register and guard index is one the kernel declared, every
 * load and store has a size, and every kernel ends in an unguarded ret, exit
 * or bra (the parser adds an implicit ret otherwise), so that no warp can run
 * past the last instruction.
 */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>

#include "sim/ptx.h"

static void check_kernel(const ptx_kernel *k)
{
    if (!k->insn_count)
        gd_fuzz_broken("ptx", "a kernel without instructions");
    const ptx_insn *last = &k->insns[k->insn_count - 1];
    if (last->guard != PTX_NO_REG || (last->op != OP_RET && last->op != OP_EXIT && last->op != OP_BRA))
        gd_fuzz_broken("ptx", "a kernel whose last instruction can fall through");
    for (uint32_t i = 0; i < k->insn_count; i++) {
        const ptx_insn *in = &k->insns[i];
        if (in->op == OP_BRA && in->target >= k->insn_count)
            gd_fuzz_broken("ptx", "a branch outside its kernel");
        if (in->guard != PTX_NO_REG && in->guard >= k->reg_count)
            gd_fuzz_broken("ptx", "a guard that is not a declared register");
        if (in->dst.reg != PTX_NO_REG && in->dst.kind == OK_REG && in->dst.reg >= k->reg_count)
            gd_fuzz_broken("ptx", "a destination that is not a declared register");
        for (int s = 0; s < in->nsrc; s++)
            if ((in->src[s].kind == OK_REG || in->src[s].kind == OK_ADDR) &&
                in->src[s].reg != PTX_NO_REG && in->src[s].reg >= k->reg_count)
                gd_fuzz_broken("ptx", "a source that is not a declared register");
        if ((in->op == OP_LD || in->op == OP_ST) && !in->size)
            gd_fuzz_broken("ptx", "a load or store of 0 bytes");
    }
}

int gd_fuzz_ptx(const uint8_t *data, size_t size)
{
    char *text = gd_fuzz_text(data, size);
    ptx_module *m = NULL;
    gd_err err = {{0}};
    int rc;
    if (ptx_parse(text, &m, &err) == 0) {
        for (uint32_t i = 0; i < m->kernel_count; i++)
            check_kernel(&m->kernels[i]);
        ptx_module_free(m);
        rc = GD_FUZZ_ACCEPTED;
    } else {
        rc = gd_fuzz_rejected(&err, "ptx");
    }
    free(text);
    return rc;
}
