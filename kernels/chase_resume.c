/* chase_resume.c -- the pointer chase spread over launches (the display watchdog).
 *
 * On a display-attached card the driver kills a launch after a few seconds, and
 * a chase over 4x a 72 MiB L2 is ~10 s of dependent loads.  The runner then asks
 * for opts.launch_split launches (host/runner.c) and the kernel becomes
 * resumable: a fifth parameter gd_chase_resume (0 in the first launch) makes it
 * read back, from its own output buffer, where the walk stands, the checksum,
 * the clocked region so far, the timed steps done and the histogram and rings,
 * instead of starting afresh; the warm-up and timed loops skip a zero count; the
 * ring is indexed by the step of the whole point; and everything is stored again
 * at the end.  gd_chase_split gives each launch its share of the warm-up and
 * timed steps, in order, so the decoded point is the one a single launch would
 * have measured (less the L1 contents, which no launch boundary keeps).  The
 * one-launch PTX is left exactly as it was: the resumable one is made from it by
 * anchored edits, each of which must find its place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/chase.h"
#include "kernels/chase_layout.h"

typedef struct ptx_edit {
    const char *anchor;
    const char *before; /* inserted before the anchor (may be "") */
    const char *after;  /* inserted after it */
    const char *replace; /* non-NULL: the anchor itself becomes this */
} ptx_edit;

static char *apply_edit(char *ptx, const ptx_edit *e)
{
    char *at = strstr(ptx, e->anchor);
    if (!at || strstr(at + 1, e->anchor)) {
        free(ptx);
        return NULL; /* the one-launch PTX changed: the edit must be revisited */
    }
    const char *mid = e->replace ? e->replace : e->anchor;
    size_t head = (size_t)(at - ptx), tail = strlen(at + strlen(e->anchor));
    size_t bytes = head + strlen(e->before) + strlen(mid) + strlen(e->after) + tail + 1;
    char *out = malloc(bytes);
    if (out)
        snprintf(out, bytes, "%.*s%s%s%s%s", (int)head, ptx, e->before, mid, e->after,
                 at + strlen(e->anchor));
    free(ptx);
    return out;
}

char *gd_chase_make_resumable(char *ptx, int space, uint32_t ring, int scratch_in_shared)
{
    /* a scratch in shared memory is reloaded from the output buffer, where the
     * launch before copied it out; in global memory it *is* the output buffer */
    char reload[1024] = "";
    if (scratch_in_shared)
        snprintf(reload, sizeof reload,
                 "    mov.u32 %%r2, %u;\n"
                 "$L_load_scratch:\n"
                 "    .pragma \"nounroll\";\n"
                 "    cvt.u64.u32 %%rd5, %%r2;\n"
                 "    add.s64 %%rd7, %%rd2, %%rd5;\n"
                 "    ld.global.cg.u32 %%r3, [%%rd7];\n"
                 "    add.s64 %%rd6, %%rd16, %%rd5;\n"
                 "    st.shared.u32 [%%rd6], %%r3;\n"
                 "    add.s32 %%r2, %%r2, 4;\n"
                 "    setp.lt.u32 %%p1, %%r2, %u;\n"
                 "    @%%p1 bra $L_load_scratch;\n",
                 OUT_HIST, OUT_SINK);
    char resume[4096];
    snprintf(resume, sizeof resume,
             "    // resuming a point spread over launches: the walk so far, from out\n"
             "    mov.u32 %%qr1, 0;\n"
             "    mov.u64 %%qd0, 0;\n"
             "    mov.u64 %%qd1, 0;\n"
             "    mov.u64 %%qd2, 0;\n"
             "    setp.eq.u32 %%q0, %%qr0, 0;\n"
             "    @%%q0 bra $L_fresh;\n"
             "%s"
             "    ld.global.cg.u64 %%qd2, [%%rd2+8];\n"
             "    ld.global.cg.u64 %%qd0, [%%rd2+%u];\n"
             "    ld.global.cg.u64 %%qd1, [%%rd2+%u];\n"
             "    ld.global.cg.u32 %%qr1, [%%rd2+%u];\n"
             "%s"
             "    bra.uni $L_loaded;\n"
             "$L_fresh:\n",
             space == GD_CHASE_GLOBAL ? "    ld.global.cg.u64 %rd3, [%rd2];\n"
                                      : "    ld.global.cg.u32 %qr2, [%rd2];\n"
                                        "    add.s32 %r17, %qr2, %r16;\n",
             OUT_REGION_CYCLES, OUT_REGION_NS, OUT_STEPS_DONE, reload);
    char region_store[256], steps_store[128];
    snprintf(region_store, sizeof region_store, "    st.global.u64 [%%rd2+%u], %%rd13;\n",
             OUT_REGION_CYCLES);
    snprintf(steps_store, sizeof steps_store,
             "    st.global.u64 [%%rd2+%u], %%rd14;\n    st.global.u32 [%%rd2+%u], %%qr3;\n",
             OUT_REGION_NS, OUT_STEPS_DONE);
    char ns_store[128];
    snprintf(ns_store, sizeof ns_store, "    st.global.u64 [%%rd2+%u], %%rd14;\n", OUT_REGION_NS);
    const ptx_edit edits[] = {
        {"    .param .u32 gd_chase_warm_steps\n)", "", "",
         "    .param .u32 gd_chase_warm_steps,\n    .param .u32 gd_chase_resume\n)"},
        {"    .reg .b64 %rd<20>;\n", "",
         "    .reg .pred %q<2>;\n    .reg .b32 %qr<4>;\n    .reg .b64 %qd<4>;\n", NULL},
        {"    ld.param.u32 %r15, [gd_chase_warm_steps];\n", "",
         "    ld.param.u32 %qr0, [gd_chase_resume];\n", NULL},
        {"    // 0. an empty histogram", resume, "", NULL},
        {"    @%p1 bra $L_zero;\n", "", "$L_loaded:\n", NULL},
        {"$L_warm:\n", "    setp.eq.u32 %q0, %r15, 0;\n    @%q0 bra $L_warm_done;\n", "", NULL},
        {"    @%p1 bra $L_warm;\n", "", "$L_warm_done:\n", NULL},
        {"    mov.u64 %rd4, 0;\n", "", "", "    mov.u64 %rd4, %qd2;\n"},
        {"$L_timed:\n", "    setp.eq.u32 %q0, %r14, 0;\n    @%q0 bra $L_timed_done;\n", "", NULL},
        {"    and.b32 %r8, %r2, ", "    add.s32 %qr2, %r2, %qr1;\n", "", "    and.b32 %r8, %qr2, "},
        {"    @%p1 bra $L_timed;\n", "", "$L_timed_done:\n", NULL},
        {region_store,
         "    add.s64 %rd13, %rd13, %qd0;\n    add.s64 %rd14, %rd14, %qd1;\n"
         "    add.s32 %qr3, %qr1, %r14;\n",
         "", NULL},
        {ns_store, "", "", steps_store},
    };
    for (size_t i = 0; ptx && i < sizeof edits / sizeof edits[0]; i++)
        ptx = apply_edit(ptx, &edits[i]);
    return ptx;
}

int gd_chase_split(const gd_probe_plan *plan, unsigned launch, gd_probe_param *params,
                   gd_err *err)
{
    const chase_state *st = plan->state;
    if (plan->launches < 2 || launch >= plan->launches || plan->param_count != 6)
        return gd_fail(err, "%s: launch %u of %u: not a point spread over launches", st->probe,
                       launch, plan->launches);
    /* the point's steps in order -- warm-up, then timed -- cut into equal shares */
    uint64_t warm = st->elements * st->warm_laps, timed = st->timed;
    uint64_t share = (warm + timed + plan->launches - 1) / plan->launches;
    uint64_t from = (uint64_t)launch * share, to = from + share;
    if (to > warm + timed)
        to = warm + timed;
    if (from > to)
        from = to;
    uint64_t warm_here = from < warm ? (to < warm ? to : warm) - from : 0;
    uint64_t timed_from = from > warm ? from : warm;
    uint64_t timed_here = to > timed_from ? to - timed_from : 0;
    memcpy(params, plan->params, plan->param_count * sizeof *params);
    params[3].value = timed_here;
    params[4].value = warm_here;
    params[5].value = launch > 0;
    return 0;
}
