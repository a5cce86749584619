/* ffma_block.c -- straight-line FFMA blocks (see ffma_block.h). */
#include "kernels/ffma_block.h"

#include <string.h>

unsigned gd_ffma_params(gd_probe_param *params)
{
    const float values[3] = {1.5f, 0.999f, 0.25f}; /* seed, multiplier, addend */
    for (int i = 0; i < 3; i++) {
        uint32_t bits;
        memcpy(&bits, &values[i], sizeof bits);
        params[i] = (gd_probe_param){.kind = GD_PARAM_U32, .value = bits};
    }
    return 3;
}

void gd_ffma_decls(gd_ptx *p)
{
    gd_ptx_printf(p, "    .reg .f32 %%fq<%d>;\n", GD_FFMA_CHAINS + 3);
}

void gd_ffma_init(gd_ptx *p, const char *seed, const char *mul, const char *add)
{
    for (int i = 0; i < GD_FFMA_CHAINS; i++) {
        float f = (float)(i + 1);
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        gd_ptx_printf(p, "    add.f32 %%fq%d, %s, 0f%08X;\n", i, seed, bits);
    }
    gd_ptx_printf(p, "    mov.f32 %%fq%d, %s;\n", GD_FFMA_CHAINS, mul);
    gd_ptx_printf(p, "    mov.f32 %%fq%d, %s;\n", GD_FFMA_CHAINS + 1, add);
}

static void ffma_line(gd_ptx *p, unsigned c)
{
    gd_ptx_printf(p, "    fma.rn.f32 %%fq%u, %%fq%u, %%fq%d, %%fq%d;\n", c, c, GD_FFMA_CHAINS,
                  GD_FFMA_CHAINS + 1);
}

void gd_ffma_block(gd_ptx *p, uint32_t count)
{
    /* one round of the chains, then copies of it (a 64 MiB block is 4 M
     * lines: formatting each was most of emitting it), then the rest */
    uint32_t rounds = count / GD_FFMA_CHAINS;
    size_t from = p->length;
    for (unsigned c = 0; rounds && c < GD_FFMA_CHAINS; c++)
        ffma_line(p, c);
    if (rounds > 1)
        gd_ptx_repeat(p, from, rounds - 1);
    for (uint32_t i = rounds * GD_FFMA_CHAINS; i < count; i++)
        ffma_line(p, i % GD_FFMA_CHAINS);
}

void gd_ffma_fold(gd_ptx *p)
{
    gd_ptx_printf(p, "    add.f32 %s, %%fq0, %%fq1;\n", GD_FFMA_SUM);
    for (int i = 2; i < GD_FFMA_CHAINS; i++)
        gd_ptx_printf(p, "    add.f32 %s, %s, %%fq%d;\n", GD_FFMA_SUM, GD_FFMA_SUM, i);
}
