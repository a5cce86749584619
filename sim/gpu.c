/* gpu.c -- the simulated GPU's cycle loop.
 *
 * A launch places CTAs on SMs (round-robin, as far as warp slots, CTA slots and
 * shared memory allow; more as CTAs retire: cta.c), splits each CTA into warps
 * of 32 lanes, and gives warp slot w to sub-partition w mod subpartitions.
 * Each cycle:
 *
 *   1. the L2 and DRAM advance (fills, responses to the SMs);
 *   2. each SM's fill unit writes one returned line into its L1;
 *   3. each sub-partition's scheduler issues at most one instruction, from the
 *      warp that issued last if it can (greedy), else the oldest ready warp;
 *      a warp may issue when the registers it reads and writes are visible
 *      (the scoreboard) and its unit can take it;
 *   4. each SM's load/store unit moves one request through its FIFO (memsys.c).
 *
 * When nothing issued and the memory system has nothing to do this cycle, time
 * jumps to the next cycle at which something completes: a 300-cycle DRAM access
 * costs one loop iteration, not 300.  `%clock64` reads the current cycle.
 *
 * Divergence: each lane has its own PC; a diverged warp runs the lanes at the
 * smallest PC, which reconverges structured code (forward branches and loops)
 * without an explicit reconvergence stack.
 */
#include "sim/engine.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Issue                                                                     */

/* The earliest cycle after `cycle` at which w could issue, as far as is known now
 * (SIM_NEVER: it waits for a load, whose completion will wake the engine). */
static uint64_t warp_next_ready(const sim_engine *e, const sim_sm *sm, const sim_warp *w,
                                uint64_t cycle)
{
    if (w->state != WARP_RUNNING)
        return SIM_NEVER;
    if (w->diverged)
        return cycle + 1;
    const ptx_insn *in = &e->insns[w->pc];
    uint64_t t = cycle + 1;
    for (unsigned i = 0; i < in->sb_count; i++) {
        uint64_t r = w->reg_ready[in->sb_regs[i]];
        if (r > t)
            t = r;
    }
    if ((in->flags & PTX_INSN_SMEM) && sm->smem_busy_until > t)
        t = sm->smem_busy_until;
    return t;
}

/* A memory instruction's work once it issues: its values (sim_exec) and its
 * access to the state space's timing model.  0, or -1 when the engine failed.
 * Out of line: the access record (a lane's address each) would make every
 * issue's frame a kilobyte. */
static __attribute__((noinline)) int issue_mem(sim_engine *e, sim_sm *sm, sim_warp *w,
                                               const ptx_insn *in, uint32_t exec, uint64_t cycle)
{
    sim_mem_access acc;
    acc.bypass_l1 = 0;
    if (sim_exec(e, sm, w, in, exec, &acc))
        return -1;
    if (!exec)
        return 0;
    switch ((ptx_space)in->space) {
    case SP_GLOBAL:
        acc.bypass_l1 = !acc.is_store && (in->cache_op == CO_CG || in->cache_op == CO_CV ||
                                          in->volatile_);
        sim_lsu_issue(e, sm, w, &acc, acc.is_store ? PTX_NO_REG : in->dst.reg, cycle);
        return 0;
    case SP_SHARED: {
        uint64_t ready = sim_smem_access(e, sm, &acc, cycle);
        if (!acc.is_store)
            w->reg_ready[in->dst.reg] = ready;
        return 0;
    }
    case SP_PARAM:
    case SP_CONST:
        w->reg_ready[in->dst.reg] = cycle + sim_const_access(e, sm, w, &acc, cycle);
        return 0;
    default:
        sim_engine_fail(e, "ptx:%u: state space not simulated", in->line);
        return -1;
    }
}

/* Tries to issue one instruction of w.  Returns 1 if it issued. */
static int warp_try_issue(sim_engine *e, sim_sm *sm, sim_warp *w, uint64_t cycle, uint64_t *wake)
{
    if (w->state != WARP_RUNNING)
        return 0;
    if (w->ready_cycle > cycle) {
        if (w->ready_cycle < *wake)
            *wake = w->ready_cycle;
        return 0;
    }
    uint32_t pc, active;
    if (!w->diverged) {
        pc = w->pc;
        active = w->alive;
    } else {
        pc = UINT32_MAX;
        for (uint32_t m = w->alive; m; m &= m - 1) {
            unsigned lane = (unsigned)__builtin_ctz(m);
            if (w->lane_pc[lane] < pc)
                pc = w->lane_pc[lane];
        }
        active = 0;
        for (uint32_t m = w->alive; m; m &= m - 1) {
            unsigned lane = (unsigned)__builtin_ctz(m);
            if (w->lane_pc[lane] == pc)
                active |= 1u << lane;
        }
    }
    if (pc >= e->insn_count)
        return sim_engine_fail(e, "sim: warp ran past the end of kernel %s",
                               e->launch->kernel->name),
               0;
    const ptx_insn *in = &e->insns[pc];

    /* instruction fetch: a warp moving to a line its first instruction cache
     * lacks waits for the line (sim_fetch is called only when the line changes:
     * the same test it makes first, on the instruction numbers of the line) */
    if (e->ifetch_on && (pc < w->fetch_pc_lo || pc >= w->fetch_pc_hi)) {
        uint64_t t = sim_fetch(e, sm, w, pc, cycle);
        if (t > cycle) {
            w->ready_cycle = t;
            if (t < *wake)
                *wake = t;
            return 0;
        }
    }

    /* scoreboard (already known clear when the last issue predicted this one) */
    if (!w->scoreboard_clear) {
        uint64_t t = 0;
        for (unsigned i = 0; i < in->sb_count; i++) {
            uint64_t r = w->reg_ready[in->sb_regs[i]];
            if (r > t)
                t = r;
        }
        if (t > cycle) {
            if (t != SIM_NEVER) {
                if (t < *wake)
                    *wake = t;
                w->ready_cycle = t;
                w->scoreboard_clear = 1;
            } else {
                /* waits for a load still in flight: parked, not looked at
                 * again until one of its loads completes (sim/l1d.c).  A
                 * bandwidth kernel's 32 warps an SM on 80 SMs spent 46 % of
                 * the run reading the scoreboard of warps that could not
                 * issue, on every cycle some other warp was due */
                w->ready_cycle = SIM_NEVER;
            }
            return 0;
        }
    }
    /* structural hazards */
    if (in->unit == UNIT_MEM) {
        if (in->space == SP_GLOBAL && !sim_lsu_can_accept(sm)) {
            sim_lsu_refused_issue(sm, cycle);
            /* parked until the LSU can accept again (sim/lsu.c wakes the SM's
             * parked warps then): before, every refused warp of an SM was
             * tried again on every cycle it stayed full -- 80 SMs of 32
             * warps copying through DRAM spent three quarters of the run so */
            w->ready_cycle = SIM_NEVER;
            w->lsu_parked = 1;
            return 0;
        }
        if (in->space == SP_SHARED && sm->smem_busy_until > cycle) {
            if (sm->smem_busy_until < *wake)
                *wake = sm->smem_busy_until;
            return 0;
        }
    }

    uint32_t exec = active;
    if (in->guard != PTX_NO_REG) {
        const uint64_t *p = &w->regs[(size_t)in->guard * SIM_WARP_LANES];
        uint32_t on = 0;
        if (active == UINT32_MAX) { /* a straight loop over the whole warp */
            for (unsigned lane = 0; lane < SIM_WARP_LANES; lane++)
                on |= (uint32_t)((p[lane] & 1) != in->guard_neg) << lane;
        } else {
            for (uint32_t m = active; m; m &= m - 1) {
                unsigned lane = (unsigned)__builtin_ctz(m);
                if ((p[lane] & 1) != in->guard_neg)
                    on |= 1u << lane;
            }
        }
        exec = on;
    }

    e->stats.warp_insns++;
    w->ready_cycle = cycle + 1;
    w->scoreboard_clear = 0;
    int advance = 1;
    const gd_arch *a = e->arch;

    switch ((ptx_unit)in->unit) {
    case UNIT_ALU:
        if (in->op == OP_NOP)
            break;
        if (sim_exec(e, sm, w, in, exec, NULL))
            return 0;
        w->reg_ready[in->dst.reg] = cycle + a->gpu.alu_latency_cycles;
        break;
    case UNIT_MEM:
        if (issue_mem(e, sm, w, in, exec, cycle))
            return 0;
        break;
    case UNIT_BRANCH:
        advance = 0;
        if (in->op == OP_BRA) {
            uint32_t taken = exec;
            if (!w->diverged) {
                if (taken == active) {
                    w->pc = in->target;
                } else if (!taken) {
                    w->pc = pc + 1;
                } else {
                    for (uint32_t m = w->alive; m; m &= m - 1)
                        w->lane_pc[__builtin_ctz(m)] = pc;
                    w->diverged = 1;
                }
            }
            if (w->diverged)
                for (uint32_t m = active; m; m &= m - 1) {
                    unsigned lane = (unsigned)__builtin_ctz(m);
                    w->lane_pc[lane] = ((taken >> lane) & 1) ? in->target : pc + 1;
                }
        } else { /* ret, exit */
            w->alive &= ~exec;
            if (!w->alive) {
                sim_warp_finish(e, sm, w, cycle);
                return 1;
            }
            if (!w->diverged)
                w->pc = pc + 1;
            else
                for (uint32_t m = active & ~exec; m; m &= m - 1)
                    w->lane_pc[__builtin_ctz(m)] = pc + 1;
        }
        break;
    case UNIT_BARRIER:
        if (w->diverged)
            return sim_engine_fail(e, "ptx:%u: bar.sync in divergent code", in->line), 0;
        w->pc = pc + 1;
        advance = 0;
        w->state = WARP_BARRIER;
        w->cta->warps_at_barrier++;
        sim_cta_barrier_check(e, w->cta, cycle);
        break;
    }
    if (advance) {
        if (!w->diverged)
            w->pc = pc + 1;
        else
            for (uint32_t m = active; m; m &= m - 1)
                w->lane_pc[__builtin_ctz(m)]++;
    }
    if (w->diverged) {
        uint32_t first = (uint32_t)__builtin_ctz(w->alive);
        uint32_t p0 = w->lane_pc[first];
        int same = 1;
        for (uint32_t m = w->alive; m; m &= m - 1)
            if (w->lane_pc[__builtin_ctz(m)] != p0)
                same = 0;
        if (same) {
            w->diverged = 0;
            w->pc = p0;
        }
    }
    uint64_t next = warp_next_ready(e, sm, w, cycle);
    if (next != SIM_NEVER) {
        /* remember: the next instruction's registers are ready by then */
        w->ready_cycle = next;
        w->scoreboard_clear = !w->diverged && w->state == WARP_RUNNING;
        if (next < *wake)
            *wake = next;
    }
    return 1;
}

static int sm_issue(sim_engine *e, sim_sm *sm, uint64_t cycle, uint64_t *wake)
{
    const gd_arch *a = e->arch;
    int issued = 0;
    for (uint32_t subs = sm->sub_nonempty; subs; subs &= subs - 1) {
        uint32_t sub = (uint32_t)__builtin_ctz(subs);
        /* no warp of it ready yet: what looking at each would find (their
         * earliest cycle for the wake), without looking -- 80 SMs of 32 warps
         * waiting on DRAM were three quarters of a bandwidth step's time */
        uint64_t ready = sm->sub_ready[sub];
        if (ready > cycle && !e->look_at_every_warp) {
            if (ready < *wake)
                *wake = ready;
            continue;
        }
        uint32_t n = sm->sub_count[sub];
        sim_warp **list = &sm->sub_warps[(size_t)sub * a->gpu.max_warps_per_sm];
        uint32_t last = sm->sub_last[sub] < n ? sm->sub_last[sub] : 0;
        /* after an issue, a bound no later than the next cycle visited */
        sm->sub_ready[sub] = cycle + 1;
        if (warp_try_issue(e, sm, list[last], cycle, wake)) {
            issued++;
            /* the others were not looked at (counted before the issue: a warp
             * that exited has left the list, and one ready now must still be
             * looked at next cycle) */
            if (n > 1 && cycle + 1 < *wake)
                *wake = cycle + 1;
            continue;
        }
        uint64_t earliest = list[last]->state == WARP_RUNNING ? list[last]->ready_cycle : SIM_NEVER;
        int any = 0;
        for (uint32_t i = 0; i < sm->sub_count[sub]; i++) {
            if (i == last)
                continue;
            sim_warp *w = list[i];
            if (warp_try_issue(e, sm, w, cycle, wake)) {
                /* the list may have shrunk if the warp finished */
                sm->sub_last[sub] = i < sm->sub_count[sub] ? i : 0;
                issued++;
                any = 1;
                if (n > 1 && cycle + 1 < *wake)
                    *wake = cycle + 1;
                break;
            }
            if (w->state == WARP_RUNNING && w->ready_cycle < earliest)
                earliest = w->ready_cycle;
        }
        if (!any && sm->sub_ready[sub] == cycle + 1)
            /* every warp looked at, none issued: the exact bound (unless one
             * was woken since, by a lower sim_warp_ready_at) */
            sm->sub_ready[sub] = earliest;
        if (e->failed)
            break;
    }
    return issued;
}

/* ------------------------------------------------------------------------- */
/* The loop                                                                  */

/* After an SM's step at `cycle`: the cycle before which its next step would do
 * nothing (sim_engine.sm_quiet), or 0 when it must be visited.  Nothing to do
 * means: no fill or response to take, nothing in the coalescer, the FIFO or
 * the miss queue (sim_lsu_tick returns at once), no CTA finished or waiting to
 * be placed, and every sub-partition's bound (sm_issue's test) in the future.
 * Only what this SM's own step changes can end that, except a response handed
 * to it and a warp woken from outside, which zero or lower the entry. */
static uint64_t sm_quiet_until(const sim_engine *e, const sim_sm *sm, uint64_t cycle)
{
    if (e->look_at_every_warp || sm->ctas_finished || e->ctas_launched < e->ctas_total ||
        !sm->ctas_resident || !sim_lsu_queues_empty(sm))
        return 0;
    uint64_t q = SIM_NEVER;
    for (uint32_t subs = sm->sub_nonempty; subs; subs &= subs - 1) {
        uint64_t ready = sm->sub_ready[__builtin_ctz(subs)];
        if (ready < q)
            q = ready;
    }
    return q > cycle ? q : 0;
}

/* The one warp of the one active SM when a cycle can hold nothing but its
 * issue (the chases run one thread): no other warp, no CTA to retire or place,
 * and its next instruction one that hands nothing to the memory system (an ALU
 * operation, a branch, a shared-memory access: warp_quiet).  The caller also
 * checks that the memory system has nothing due.  Such a cycle is the warp's
 * warp_try_issue alone -- the loop's other steps would all be skipped -- and
 * the cycles after it, while that stays so, run as a burst without going
 * round the loop (issue 18; the same cycles are visited and counted, with the
 * same results). */
static int warp_quiet(const sim_engine *e, const sim_warp *w)
{
    if (w->state != WARP_RUNNING || w->diverged || w->pc >= e->insn_count)
        return 0;
    /* (one flag set at parse: which kind comes next is what the host cannot
     * predict, so no branch on it) */
    return e->insns[w->pc].flags & PTX_INSN_QUIET;
}

/* The one warp of the one active SM, every CTA placed and none finished: what
 * the SMs' population makes a lone warp (NULL if none), whatever it issues. */
static sim_warp *lone_candidate(const sim_engine *e)
{
    if (e->active_sm_count != 1)
        return NULL;
    const sim_sm *sm = e->active_sms[0];
    if (sm->ctas_finished || e->ctas_launched < e->ctas_total)
        return NULL;
    uint32_t subs = sm->sub_nonempty;
    if (!subs || (subs & (subs - 1)))
        return NULL;
    uint32_t sub = (uint32_t)__builtin_ctz(subs);
    if (sm->sub_count[sub] != 1)
        return NULL;
    return sm->sub_warps[(size_t)sub * e->arch->gpu.max_warps_per_sm];
}

static sim_warp *lone_warp(sim_engine *e)
{
    if (e->lone_stale) {
        e->lone_cand = lone_candidate(e);
        e->lone_stale = 0;
    }
    sim_warp *w = e->lone_cand;
    return w && warp_quiet(e, w) ? w : NULL;
}

/* Issues the lone warp at `cycle` and, while its next instruction is quiet and
 * due before anything else (the memory system), at the cycles it is due: the
 * cycles the loop would visit next, without going round it.
 * Returns the last cycle visited; *wake is what that cycle's issue left, as
 * the loop's tail expects it (an ALU, branch or shared-memory issue wakes
 * nothing else: e->next_wake stays SIM_NEVER). */
/* warp_try_issue for the lone warp's commonest cases, without its general
 * tests: an unguarded ALU operation or a branch, the warp converged, its
 * scoreboard already known clear for `cycle` (the last issue's prediction)
 * and the instruction in the fetched line (or fetched here, as
 * warp_try_issue would), or an unguarded shared-memory access.  Returns 0,
 * having changed nothing but the fetch, for anything else: warp_try_issue
 * then does it.  Each step below is
 * warp_try_issue's for that case, in its order, so the results, the counters
 * and the cycles visited are the same (issue 18: the general path's tests and
 * frame were about half of a chase's host time per ALU instruction). */
static inline int lone_fast_issue(sim_engine *e, sim_sm *sm, sim_warp *w, uint64_t cycle,
                                  uint64_t *wake)
{
    uint32_t pc = w->pc;
    if (w->ready_cycle > cycle || !w->scoreboard_clear || w->diverged)
        return 0;
    /* a move to another fetch line: warp_try_issue's fetch, in its place (a
     * loop of 20 instructions crosses three lines a lap); a warp that must
     * wait for the line is left as it leaves it, and nothing issues (2) */
    if (e->ifetch_on && (pc < w->fetch_pc_lo || pc >= w->fetch_pc_hi)) {
        uint64_t t = sim_fetch(e, sm, w, pc, cycle);
        if (t > cycle) {
            w->ready_cycle = t;
            if (t < *wake)
                *wake = t;
            return 2;
        }
    }
    const ptx_insn *in = &e->insns[pc];
    uint32_t active = w->alive;
    if (in->flags & PTX_INSN_SMEM) {
        /* an unguarded shared-memory access: warp_try_issue's steps for it
         * (the bank pipeline free, the access, the next instruction) -- the
         * chases keep their trace there, four accesses a timed step */
        if (in->guard != PTX_NO_REG || sm->smem_busy_until > cycle)
            return 0;
        e->stats.warp_insns++;
        w->ready_cycle = cycle + 1;
        w->scoreboard_clear = 0;
        if (issue_mem(e, sm, w, in, active, cycle))
            return 1;
        pc++;
    } else if (in->unit == UNIT_ALU) {
        if (in->guard != PTX_NO_REG)
            return 0;
        e->stats.warp_insns++;
        if (in->op == OP_NOP) {
            pc++; /* the instruction blocks of the icache probes */
        } else if (sim_exec(e, sm, w, in, active, NULL)) {
            w->ready_cycle = cycle + 1;
            w->scoreboard_clear = 0;
            return 1;
        } else {
            w->reg_ready[in->dst.reg] = cycle + e->arch->gpu.alu_latency_cycles;
            pc++;
        }
    } else if (in->unit == UNIT_BRANCH && in->op == OP_BRA) {
        uint32_t taken = active;
        if (in->guard != PTX_NO_REG) {
            const uint64_t *p = &w->regs[(size_t)in->guard * SIM_WARP_LANES];
            taken = 0;
            for (uint32_t m = active; m; m &= m - 1) {
                unsigned lane = (unsigned)__builtin_ctz(m);
                if ((p[lane] & 1) != in->guard_neg)
                    taken |= 1u << lane;
            }
            if (taken && taken != active)
                return 0; /* divergence: the general path */
        }
        e->stats.warp_insns++;
        pc = taken ? in->target : pc + 1;
    } else {
        return 0;
    }
    w->pc = pc;
    uint64_t t = warp_next_ready(e, sm, w, cycle);
    if (t == SIM_NEVER) {
        /* it waits for a load: warp_try_issue's state after such an issue,
         * the scoreboard to be read again once the load is back */
        w->ready_cycle = cycle + 1;
        w->scoreboard_clear = 0;
        return 1;
    }
    w->ready_cycle = t;
    w->scoreboard_clear = 1;
    if (t < *wake)
        *wake = t;
    return 1;
}

static uint64_t lone_burst(sim_engine *e, sim_warp *w, uint64_t cycle, uint64_t start,
                           uint64_t *wake)
{
    sim_sm *sm = e->active_sms[0];
    for (;;) {
        if (!lone_fast_issue(e, sm, w, cycle, wake))
            warp_try_issue(e, sm, w, cycle, wake);
        /* the loop's next cycle would be *wake: the warp's own, nothing else
         * being due before the memory system */
        uint64_t next = *wake;
        if (e->failed || next <= cycle || next >= e->memsys_due || e->next_wake < next ||
            next - start > e->max_cycles ||
            !warp_quiet(e, w))
            return cycle;
        cycle = next;
        e->cycle = cycle;
        e->stats.loop_iterations++;
        *wake = SIM_NEVER;
    }
}

int sim_engine_run(sim_engine *e, const sim_launch_config *l, gd_err *err)
{
    const gd_arch *a = e->arch;
    e->err = err;
    e->failed = 0;
    uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    uint64_t ctas = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    if (!threads || !ctas)
        return gd_fail(err, "sim: launch of %s with an empty grid or block", l->kernel->name);
    if (threads > 1024 || (threads + 31) / 32 > a->gpu.max_warps_per_sm)
        return gd_fail(err, "sim: launch of %s: %llu threads per block exceed the SM's %u warps",
                       l->kernel->name, (unsigned long long)threads, a->gpu.max_warps_per_sm);
    uint32_t shared = l->kernel->shared_static_bytes;
    if (l->kernel->uses_dynamic_shared)
        shared = l->kernel->dynamic_shared_offset + l->dynamic_shared_bytes;
    if (shared > a->gpu.shared_per_block_bytes || shared > a->level[GD_SMEM].size_bytes)
        return gd_fail(err, "sim: launch of %s needs %u bytes of shared memory per block; the "
                            "arch allows %u",
                       l->kernel->name, shared, a->gpu.shared_per_block_bytes);
    /* the L1/shared split, by the driver's rule (analysis/arch_carveout.c): the
     * CTAs one SM could hold by threads, CTA slots and the grid, each with its
     * shared memory, and the kernel's preference */
    uint32_t warps_per_cta = (uint32_t)((threads + 31) / 32);
    uint64_t ctas_fit = a->gpu.max_warps_per_sm / warps_per_cta;
    if (ctas_fit > a->gpu.max_ctas_per_sm)
        ctas_fit = a->gpu.max_ctas_per_sm;
    uint64_t ctas_per_sm = (ctas + e->sm_count - 1) / e->sm_count;
    if (ctas_fit > ctas_per_sm)
        ctas_fit = ctas_per_sm;
    if (gd_arch_carveout(a, l->carveout_percent, shared, (uint32_t)ctas_fit, &e->carveout, err))
        return gd_fail_prefix(err, "sim: launch of %s", l->kernel->name);
    for (uint32_t s = 0; s < e->sm_count; s++)
        if (sim_lsu_set_l1d_ways(e, &e->sms[s], e->carveout.l1d_ways, err) != 0)
            return -1;
    e->launch = l;
    e->insns = l->kernel->insns;
    e->insn_count = l->kernel->insn_count;
    e->warps_per_cta = warps_per_cta;
    e->shared_per_cta = shared;
    e->ctas_total = ctas;
    e->ctas_launched = 0;
    e->ctas_done = 0;
    e->active_sm_count = 0;
    e->lone_stale = 1;
    for (uint32_t s = 0; s < e->sm_count; s++) {
        e->sms[s].active = 0;
        e->sms[s].ran_ctas = 0;
        e->sms[s].smem_busy_until = 0;
        memset(e->sms[s].sub_ready, 0, a->gpu.subpartitions * sizeof *e->sms[s].sub_ready);
        e->sm_quiet[s] = 0;
    }
    e->stats.launches++;
    sim_memsys_launch_begin(e);

    uint64_t cycle = e->cycle;
    const uint64_t start = cycle;
    e->memsys_due = cycle;
    /* initial placement: round-robin over SMs while CTAs fit */
    for (int progress = 1; progress && e->ctas_launched < ctas;) {
        progress = 0;
        for (uint32_t s = 0; s < e->sm_count && e->ctas_launched < ctas; s++) {
            if (sim_cta_fits(e, &e->sms[s])) {
                if (sim_cta_launch(e, &e->sms[s], e->ctas_launched, cycle) != 0)
                    return -1;
                progress = 1;
            }
        }
    }

    while (!e->failed && (e->ctas_done < ctas || !sim_memsys_idle(e))) {
        e->cycle = cycle; /* %clock64 */
        e->stats.loop_iterations++;
        e->next_wake = SIM_NEVER;
        uint64_t wake = SIM_NEVER;
        sim_warp *lone = cycle < e->memsys_due ? lone_warp(e) : NULL;
        if (lone) {
            /* what sm_issue would do; the memory system, the LSU, retiring and
             * the event horizon's recomputation have nothing to do this cycle */
            cycle = lone_burst(e, lone, cycle, start, &wake);
            e->sm_quiet[e->active_sms[0]->id] = 0; /* its bounds moved outside the loop */
            goto next_cycle;
        }
        /* SMs interact only through the L2, whose responses are all delivered
         * first, so each SM can run its whole cycle in turn.  The memory system's
         * steps are skipped while it has nothing due. */
        int mem_active = cycle >= e->memsys_due;
        if (mem_active)
            sim_memsys_global_tick(e, cycle);
        for (uint32_t i = 0;;) {
            /* the quiet SMs up to the next one to visit, in one tight pass:
             * a quiet SM's step would find nothing to do, and what it would
             * leave in the wake is its sub-partitions' earliest bound (108
             * SMs each waiting on its loads: a fifth of an l2_slice point
             * went to this scan, one SM at a time) */
            {
                const uint32_t n = e->active_sm_count, *ids = e->active_ids;
                const uint64_t *quiet = e->sm_quiet;
                uint64_t w = wake;
                for (; i < n; i++) {
                    uint64_t q = quiet[ids[i]];
                    if (q <= cycle)
                        break;
                    w = q < w ? q : w;
                }
                wake = w;
                if (i >= n)
                    break;
            }
            sim_sm *sm = e->active_sms[i];
            if (mem_active)
                sim_lsu_returns(e, sm, cycle);
            sm_issue(e, sm, cycle, &wake);
            if (cycle >= e->memsys_due) { /* an issue may have handed work to the LSU */
                mem_active = 1;
                sim_lsu_tick(e, sm, cycle);
            }
            if (sm->ctas_finished || e->ctas_launched < ctas)
                sim_sm_retire_ctas(e, sm, cycle);
            if (!sm->ctas_resident && (!mem_active || !sim_lsu_busy(sm))) {
                sm->active = 0;
                --e->active_sm_count;
                e->active_sms[i] = e->active_sms[e->active_sm_count];
                e->active_ids[i] = e->active_ids[e->active_sm_count];
                e->lone_stale = 1;
            } else {
                e->sm_quiet[sm->id] = sm_quiet_until(e, sm, cycle);
                i++;
            }
        }
        if (mem_active)
            e->memsys_due = sim_memsys_next_event(e, cycle + 1);
    next_cycle:
        if (e->failed)
            break;
        /* jump to the next cycle at which anything can happen: a warp able to
         * issue, a load completing, the memory system moving */
        uint64_t next = wake;
        if (e->next_wake < next)
            next = e->next_wake;
        if (e->memsys_due < next)
            next = e->memsys_due;
        if (next <= cycle)
            next = cycle + 1;
        if (next == SIM_NEVER) {
            if (e->ctas_done >= ctas && sim_memsys_idle(e))
                break;
            sim_engine_fail(e, "sim: kernel %s is deadlocked at cycle %llu (%llu of %llu CTAs "
                               "done): every warp waits and nothing is in flight",
                            l->kernel->name, (unsigned long long)(cycle - start),
                            (unsigned long long)e->ctas_done, (unsigned long long)ctas);
            break;
        }
        if (next - start > e->max_cycles) {
            sim_engine_fail(e, "sim: kernel %s did not finish within %llu cycles (an endless "
                               "loop?); raise GPUDISSECT_SIM_MAX_CYCLES if it is expected",
                            l->kernel->name, (unsigned long long)e->max_cycles);
            break;
        }
        cycle = next;
    }
    if (!e->failed)
        sim_memsys_launch_end(e); /* a write-back L1's dirty lines (l1d_store.c) */
    e->stats.cycles += cycle - start;
    for (uint32_t s = 0; s < e->sm_count; s++)
        e->stats.sm_cycles += e->sms[s].ran_ctas ? cycle - start : 0;
    e->cycle = cycle + 1;
    if (e->failed) {
        /* leave the machine clean for the next launch */
        sim_memsys_destroy(e);
        for (uint32_t s = 0; s < e->sm_count; s++) {
            sim_sm *sm = &e->sms[s];
            for (uint32_t w = 0; w < a->gpu.max_warps_per_sm; w++)
                sm->warps[w].state = WARP_FREE;
            for (uint32_t c = 0; c < a->gpu.max_ctas_per_sm; c++)
                sm->ctas[c].in_use = 0;
            memset(sm->sub_count, 0, a->gpu.subpartitions * sizeof *sm->sub_count);
            sm->sub_nonempty = 0;
            sm->ctas_resident = sm->warps_resident = sm->shared_used = 0;
            sm->ctas_finished = 0;
        }
        gd_err scratch;
        if (sim_memsys_create(e, &scratch) != 0)
            snprintf(err->msg, sizeof err->msg, "%s", scratch.msg);
        return -1;
    }
    return 0;
}
