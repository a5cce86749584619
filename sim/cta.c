/* cta.c -- CTAs onto SMs and off them: placement (as far as warp slots, CTA
 * slots and the carve-out's shared memory allow), a CTA's warps onto
 * sub-partitions (warp slot w to sub-partition w mod subpartitions),
 * retirement once every warp has exited and drained its loads, and bar.sync.
 * The cycle loop that calls them is gpu.c.
 */
#include "sim/engine.h"

#include <stdlib.h>
#include <string.h>

int sim_cta_fits(const sim_engine *e, const sim_sm *sm)
{
    const gd_arch *a = e->arch;
    return sm->ctas_resident < a->gpu.max_ctas_per_sm &&
           sm->warps_resident + e->warps_per_cta <= a->gpu.max_warps_per_sm &&
           sm->shared_used + e->shared_per_cta <= e->carveout.shared_bytes;
}

static void sm_activate(sim_engine *e, sim_sm *sm)
{
    if (!sm->active) {
        sm->active = 1;
        e->active_ids[e->active_sm_count] = sm->id;
        e->active_sms[e->active_sm_count++] = sm;
        e->lone_stale = 1;
    }
}

int sim_cta_launch(sim_engine *e, sim_sm *sm, uint64_t linear, uint64_t cycle)
{
    const sim_launch_config *l = e->launch;
    const gd_arch *a = e->arch;
    uint32_t reg_count = l->kernel->reg_count ? l->kernel->reg_count : 1;
    sim_cta *cta = NULL;
    for (uint32_t c = 0; c < a->gpu.max_ctas_per_sm; c++)
        if (!sm->ctas[c].in_use) {
            cta = &sm->ctas[c];
            break;
        }
    if (!cta)
        return sim_engine_fail(e, "sim: internal error: no free CTA slot");
    cta->in_use = 1;
    cta->id[0] = (uint32_t)(linear % l->grid[0]);
    cta->id[1] = (uint32_t)(linear / l->grid[0] % l->grid[1]);
    cta->id[2] = (uint32_t)(linear / ((uint64_t)l->grid[0] * l->grid[1]));
    cta->warps_total = e->warps_per_cta;
    cta->warps_done = 0;
    cta->warps_at_barrier = 0;
    free(cta->shared);
    cta->shared = calloc(1, e->shared_per_cta ? e->shared_per_cta : 1);
    if (!cta->shared)
        return sim_engine_fail(e, "sim: out of host memory for shared memory");
    cta->shared_bytes = e->shared_per_cta;

    uint32_t threads = l->block[0] * l->block[1] * l->block[2];
    uint32_t nsub = a->gpu.subpartitions;
    for (uint32_t wi = 0; wi < e->warps_per_cta; wi++) {
        uint32_t slot = 0;
        while (slot < a->gpu.max_warps_per_sm && sm->warps[slot].state != WARP_FREE)
            slot++;
        if (slot == a->gpu.max_warps_per_sm)
            return sim_engine_fail(e, "sim: internal error: no free warp slot");
        sim_warp *w = &sm->warps[slot];
        uint64_t *regs = w->regs, *ready = w->reg_ready;
        /* registers: reuse the slot's buffers, grown to this kernel's count */
        regs = realloc(regs, (size_t)reg_count * SIM_WARP_LANES * sizeof *regs);
        if (regs)
            w->regs = regs;
        ready = realloc(ready, (size_t)reg_count * sizeof *ready);
        if (ready)
            w->reg_ready = ready;
        if (!regs || !ready)
            return sim_engine_fail(e, "sim: out of host memory for registers");
        memset(w->regs, 0, (size_t)reg_count * SIM_WARP_LANES * sizeof *w->regs);
        memset(w->reg_ready, 0, (size_t)reg_count * sizeof *w->reg_ready);
        w->pc = 0;
        w->diverged = 0;
        w->scoreboard_clear = 0;
        w->lsu_parked = 0;
        w->fetch_line = UINT64_MAX;
        w->fetch_pc_lo = UINT32_MAX; /* no instruction is in no line */
        w->fetch_pc_hi = 0;
        w->state = WARP_RUNNING;
        w->slot = slot;
        w->subpartition = (uint16_t)(slot % nsub);
        w->cta = cta;
        w->warp_in_cta = wi;
        w->pending_loads = 0;
        w->sub_ready = &sm->sub_ready[w->subpartition];
        w->sm_quiet = &e->sm_quiet[sm->id];
        sim_warp_ready_at(w, cycle + 1);
        w->age = e->warp_age++;
        w->alive = 0;
        for (uint32_t lane = 0; lane < SIM_WARP_LANES; lane++) {
            uint32_t t = wi * SIM_WARP_LANES + lane;
            if (t >= threads)
                break;
            w->alive |= 1u << lane;
            w->tid[lane][0] = (uint16_t)(t % l->block[0]);
            w->tid[lane][1] = (uint16_t)(t / l->block[0] % l->block[1]);
            w->tid[lane][2] = (uint16_t)(t / (l->block[0] * l->block[1]));
        }
        cta->warps[wi] = w;
        uint32_t sub = w->subpartition;
        sm->sub_warps[(size_t)sub * a->gpu.max_warps_per_sm + sm->sub_count[sub]++] = w;
        sm->sub_nonempty |= 1u << sub;
    }
    e->lone_stale = 1;
    sim_engine_wake_at(e, cycle + 1);
    sm->ctas_resident++;
    sm->warps_resident += e->warps_per_cta;
    sm->shared_used += e->shared_per_cta;
    e->ctas_launched++;
    sm->ran_ctas = 1;
    sm_activate(e, sm);
    return 0;
}

static void sub_remove(sim_sm *sm, const gd_arch *a, sim_warp *w)
{
    uint32_t sub = w->subpartition;
    sim_warp **list = &sm->sub_warps[(size_t)sub * a->gpu.max_warps_per_sm];
    uint32_t n = sm->sub_count[sub];
    for (uint32_t i = 0; i < n; i++) {
        if (list[i] == w) {
            memmove(&list[i], &list[i + 1], (n - i - 1) * sizeof *list);
            if (--sm->sub_count[sub] == 0)
                sm->sub_nonempty &= ~(1u << sub);
            if (sm->sub_last[sub] > i)
                sm->sub_last[sub]--;
            if (sm->sub_last[sub] >= sm->sub_count[sub])
                sm->sub_last[sub] = 0;
            return;
        }
    }
}

/* Retire CTAs whose warps have all exited and drained their loads; launch more. */
void sim_sm_retire_ctas(sim_engine *e, sim_sm *sm, uint64_t cycle)
{
    const gd_arch *a = e->arch;
    for (uint32_t c = 0; sm->ctas_finished && c < a->gpu.max_ctas_per_sm; c++) {
        sim_cta *cta = &sm->ctas[c];
        if (!cta->in_use || cta->warps_done < cta->warps_total)
            continue;
        int drained = 1;
        for (uint32_t wi = 0; wi < cta->warps_total; wi++)
            if (cta->warps[wi]->pending_loads)
                drained = 0;
        if (!drained)
            continue;
        for (uint32_t wi = 0; wi < cta->warps_total; wi++)
            cta->warps[wi]->state = WARP_FREE;
        cta->in_use = 0;
        sm->ctas_finished--;
        e->lone_stale = 1;
        sm->ctas_resident--;
        sm->warps_resident -= cta->warps_total;
        sm->shared_used -= e->shared_per_cta;
        e->ctas_done++;
    }
    while (e->ctas_launched < e->ctas_total && sim_cta_fits(e, sm))
        if (sim_cta_launch(e, sm, e->ctas_launched, cycle) != 0)
            return;
}

void sim_cta_barrier_check(sim_engine *e, sim_cta *cta, uint64_t cycle)
{
    uint32_t live = cta->warps_total - cta->warps_done;
    if (cta->warps_at_barrier && cta->warps_at_barrier >= live) {
        for (uint32_t wi = 0; wi < cta->warps_total; wi++) {
            sim_warp *w = cta->warps[wi];
            if (w->state == WARP_BARRIER) {
                w->state = WARP_RUNNING;
                sim_warp_ready_at(w, cycle + 1);
            }
        }
        cta->warps_at_barrier = 0;
        sim_engine_wake_at(e, cycle + 1);
    }
}

void sim_warp_finish(sim_engine *e, sim_sm *sm, sim_warp *w, uint64_t cycle)
{
    w->state = WARP_DONE;
    e->lone_stale = 1;
    sub_remove(sm, e->arch, w);
    if (++w->cta->warps_done == w->cta->warps_total)
        sm->ctas_finished++;
    sim_cta_barrier_check(e, w->cta, cycle);
}

