/* l2_flush.c -- the eviction pass of l2_flush.h. */
#include "kernels/l2_flush.h"

#define FLUSH_WARP_STRIDE 1024 /* 32 lanes x one 32-byte sector */
#define FLUSH_UNROLL 8         /* independent loads in flight per iteration */
#define FLUSH_STEP (FLUSH_WARP_STRIDE * FLUSH_UNROLL)
#define FLUSH_MIN_BYTES (1u << 20)

uint64_t gd_l2_flush_bytes(const gd_device_info *dev)
{
    uint64_t b = 2 * dev->l2_bytes;
    if (b < FLUSH_MIN_BYTES)
        b = FLUSH_MIN_BYTES;
    return (b + FLUSH_STEP - 1) / FLUSH_STEP * FLUSH_STEP;
}

void gd_l2_flush_attach(gd_probe_plan *plan, uint64_t bytes)
{
    unsigned b = plan->buffer_count++;
    plan->buffers[b] = (gd_probe_buffer){.name = "flush", .bytes = bytes};
    plan->params[plan->param_count++] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = b};
}

void gd_l2_flush_decls(gd_ptx *p)
{
    gd_ptx_printf(p,
        "    .reg .pred %%gdfp;\n"
        "    .reg .b32 %%gdfr<%d>;\n"
        "    .reg .b64 %%gdfa<3>;\n",
        2 + FLUSH_UNROLL);
}

void gd_l2_flush_emit(gd_ptx *p, const char *base_reg, uint64_t bytes, const char *sink)
{
    gd_ptx_printf(p,
        "    // evict the L2: read %llu bytes of the flush buffer (ld.cg, no L1),\n"
        "    // %d independent loads per iteration\n"
        "    mov.u32 %%gdfr0, %%tid.x;\n"
        "    mul.wide.u32 %%gdfa0, %%gdfr0, 32;\n"
        "    add.s64 %%gdfa0, %s, %%gdfa0;\n"
        "    add.s64 %%gdfa1, %s, %llu;\n"
        "    mov.u32 %%gdfr1, 0;\n"
        "$L_gd_flush:\n"
        "    .pragma \"nounroll\";\n",
        (unsigned long long)bytes, FLUSH_UNROLL, base_reg, base_reg, (unsigned long long)bytes);
    for (int i = 0; i < FLUSH_UNROLL; i++)
        gd_ptx_printf(p, "    ld.global.cg.u32 %%gdfr%d, [%%gdfa0+%d];\n", 2 + i,
                      i * FLUSH_WARP_STRIDE);
    for (int i = 0; i < FLUSH_UNROLL; i++)
        gd_ptx_printf(p, "    add.u32 %%gdfr1, %%gdfr1, %%gdfr%d;\n", 2 + i);
    gd_ptx_printf(p,
        "    add.s64 %%gdfa0, %%gdfa0, %d;\n"
        "    setp.lt.u64 %%gdfp, %%gdfa0, %%gdfa1;\n"
        "    @%%gdfp bra $L_gd_flush;\n"
        "    st.shared.u32 %s, %%gdfr1;   // wait for the last of them\n",
        FLUSH_STEP, sink);
}
