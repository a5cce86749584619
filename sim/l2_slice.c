/* l2_slice.c -- the L2 below the crossbar: slices, their sets, MSHRs and
 * queues, and the near/far partitions of A100/H100.
 *
 *   l2_input (arrival order) --crossbar: requests_per_cycle--> slice queues
 *   slice queue --slice_requests_per_cycle--> tags: hit | far hit | MSHR -> DRAM
 *
 * Each slice is a set-associative sectored cache of its own (sets = [L2] sets /
 * slices) with its own MSHRs ([L2] mshr_entries / slices) and its own queue; a
 * refused head blocks only its own slice until a fill.  Which slice holds a line
 * is the arch's hash (analysis/arch_mem.c); the slice keeps the line under its
 * key, from which the line comes back for write-backs.
 *
 * Partitions.  With `partitions` > 1 an SM reads through the slice of its own
 * partition (the near one: [L2] latency).  A line it misses there may sit in the
 * same slice position of the next partition (the far one): a hit there costs
 * far_latency, and the line moves to the near slice, whose victim moves the
 * other way -- the far partition holds what the near one evicts.  A pointer
 * chase therefore sees [L2] latency up to the near partition's capacity, the far
 * latency up to the whole L2's, then DRAM: the step NVIDIA's A100 whitepaper
 * describes ("each L2 partition localizes and caches data for memory accesses
 * from SMs in the GPCs directly connected to the partition") and pointer chases
 * on A100 and GH200 measure (RRZE gpu-benches).  That the far half holds the
 * near half's victims (so both halves add up for one SM) is this simulator's
 * assumption, stated in sim/README.md.  Lines reach the far partition only as
 * victims; a far line is never reserved by this SM's misses.  DRAM fills and
 * stores go to the near slice.  With one partition all of this is skipped and a
 * single slice behaves exactly as the monolithic L2 did.
 *
 * Translation.  An access that reaches the L2 has missed the (virtually
 * indexed) L1, so it is translated here: the TLBs' extra cycles (tlb.c) ride
 * on the message and are added to its response.
 */
#include "sim/memsys.h"

/* ------------------------------------------------------------------------- */
/* Set-up                                                                    */

int sim_l2_slices_create(sim_engine *e, gd_err *err)
{
    sim_memsys *ms = e->memsys;
    const gd_arch *a = e->arch;
    const gd_arch_level *l2 = &a->level[GD_L2];
    uint32_t n = l2->l2map.slices ? l2->l2map.slices : 1;
    ms->slices = calloc(n, sizeof *ms->slices);
    if (!ms->slices)
        return gd_fail(err, "sim: out of memory for the L2 slices");
    ms->slice_count = n;
    ms->busy_slices = calloc(n, sizeof *ms->busy_slices);
    if (!ms->busy_slices)
        return gd_fail(err, "sim: out of memory for the L2 slices");
    if (l2->l2map.partitions > 1)
        ms->far_extra_cycles = l2->l2map.far_latency_cycles - l2->latency_cycles;
    sim_l2_slice *s0 = &ms->slices[0];
    s0->cache = &ms->l2;
    s0->mshr = &ms->l2_mshr;
    s0->input = &ms->l2_input;
    if (n == 1)
        return 0;
    gd_arch_level geom = *l2;
    geom.sets = gd_arch_l2_slice_sets(a);
    geom.size_bytes = l2->size_bytes / n;
    uint32_t mshrs = l2->mshr_entries / n ? l2->mshr_entries / n : 1;
    for (uint32_t i = 0; i < n; i++) {
        sim_l2_slice *s = &ms->slices[i];
        if (i == 0) {
            /* slice 0 is the memsys' own L2, rebuilt with a slice's geometry */
            sim_cache_destroy(&ms->l2);
            free(ms->l2_mshr.entries);
            ms->l2_mshr.entries = NULL;
        }
        sim_cache *c = i ? &s->own_cache : &ms->l2;
        mshr_table *m = i ? &s->own_mshr : &ms->l2_mshr;
        if (sim_cache_init(c, &geom, a->gpu.seed * 2654435761u + 17 + i, err) != 0)
            return -1;
        if (mshr_init(m, mshrs, l2->mshr_merge) != 0)
            return gd_fail(err, "sim: out of memory for the L2 slices");
        s->cache = c;
        s->mshr = m;
        if (i) {
            if (ring_init(&s->own_input, 0) != 0)
                return gd_fail(err, "sim: out of memory for the L2 slices");
            s->input = &s->own_input;
        } else {
            s->input = &ms->l2_input;
        }
    }
    /* with several slices the memsys' l2_input is the crossbar's arrival
     * queue; slice 0 gets a queue of its own */
    if (ring_init(&ms->slices[0].own_input, 0) != 0)
        return gd_fail(err, "sim: out of memory for the L2 slices");
    ms->slices[0].input = &ms->slices[0].own_input;
    return 0;
}

void sim_l2_slices_destroy(sim_engine *e)
{
    sim_memsys *ms = e->memsys;
    if (!ms->slices)
        return;
    for (uint32_t i = 0; i < ms->slice_count; i++) {
        sim_l2_slice *s = &ms->slices[i];
        if (i) {
            sim_cache_destroy(&s->own_cache);
            free(s->own_mshr.entries);
        }
        ring_free(&s->own_input);
    }
    free(ms->slices);
    ms->slices = NULL;
    free(ms->busy_slices);
    ms->busy_slices = NULL;
}

/* ------------------------------------------------------------------------- */
/* Messages to DRAM and back to the SMs                                      */

void sim_l2_dram_message(sim_engine *e, uint32_t slice, uint64_t line, uint32_t sectors,
                         int is_store, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    int32_t mid = sim_msg_new(e);
    if (mid < 0)
        return;
    sim_msg *msg = &ms->msg[mid];
    msg->addr = line * ms->l2.line_bytes;
    msg->bytes = ms->l2.line_bytes;
    msg->sectors = sectors;
    msg->is_store = (uint8_t)is_store;
    msg->sm = 0;
    msg->bypass_req = -1;
    msg->extra_cycles = 0;
    msg->slice = (uint16_t)slice;
    if (is_store)
        e->stats.dram_writes++;
    else
        e->stats.dram_reads++;
    sim_dram_submit(e, mid, cycle);
}

void sim_l2_respond(sim_engine *e, int32_t mid, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_msg *msg = &ms->msg[mid];
    if (msg->extra_cycles) {
        uint64_t due = cycle + msg->extra_cycles;
        msg->extra_cycles = 0;
        msg->ready = due;
        if (sim_heap_push(&ms->delayed, due, mid) != 0)
            sim_engine_fail(e, "sim: out of host memory (delayed responses)");
        return;
    }
    msg->ready = cycle;
    ring_push(&e->sms[msg->sm].lsu->returns, mid);
    e->sm_quiet[msg->sm] = 0; /* its step has a response to take */
}

/* A line leaves slice `slice`: written back if dirty. */
static void drop_line(sim_engine *e, uint32_t slice, const sim_cache_line *l, uint64_t cycle)
{
    if (l->present && l->dirty_sectors)
        sim_l2_dram_message(e, slice, gd_arch_l2_line_of(e->arch, slice, l->tag), l->dirty_sectors, 1,
                     cycle);
}

/* The slice position of `slice` in the next partition: where its victims go. */
static uint32_t far_slice_of(const sim_memsys *ms, const gd_arch *a, uint32_t slice)
{
    uint32_t pp = ms->slice_count / a->level[GD_L2].l2map.partitions;
    return (slice + pp) % ms->slice_count;
}

/* Victim `v` of the near slice `slice` (about to be replaced): with partitions,
 * it moves to the far slice (merging into a copy already there), whose own
 * victim leaves the L2; without, it leaves the L2. */
void sim_l2_evict_near(sim_engine *e, uint32_t slice, sim_cache_line *v, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    if (!v->present)
        return;
    if (!ms->far_extra_cycles) {
        drop_line(e, slice, v, cycle);
        return;
    }
    uint32_t far = far_slice_of(ms, e->arch, slice);
    sim_cache *fc = ms->slices[far].cache;
    sim_cache_line *fl = sim_cache_find(fc, v->tag);
    if (fl) {
        fl->valid_sectors |= v->valid_sectors;
        fl->dirty_sectors |= v->dirty_sectors;
        sim_cache_touch(fc, fl);
        return;
    }
    sim_cache_line *w = sim_cache_victim(fc, v->tag);
    if (!w) { /* every way of the far set is being filled: the victim leaves */
        drop_line(e, slice, v, cycle);
        return;
    }
    drop_line(e, far, w, cycle);
    uint32_t valid = v->valid_sectors, dirty = v->dirty_sectors;
    sim_cache_install(fc, w, v->tag);
    w->valid_sectors = valid;
    w->dirty_sectors = dirty;
}

/* ------------------------------------------------------------------------- */
/* One access at a slice                                                     */

static int slice_access(sim_engine *e, uint32_t slice, int32_t mid, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_l2_slice *sl = &ms->slices[slice];
    sim_cache *c = sl->cache;
    mshr_table *mt = sl->mshr;
    sim_msg *msg = &ms->msg[mid];
    uint64_t line, key;
    uint32_t where;
    line = msg->addr >> c->line_shift;
    if (ms->slice_count == 1) /* one slice: the line is its own key (gd_arch_l2_slice_of) */
        key = line;
    else
        gd_arch_l2_slice_of(e->arch, line, gd_arch_sm_partition(e->arch, msg->sm), &where, &key);
    uint32_t sectors = sim_cache_sector_mask(c, msg->addr, msg->bytes);
    sim_cache_line *l = sim_cache_find(c, key);

    if (msg->is_store) /* write-back; allocation and partial sectors: l2_store.c */
        return sim_l2_store(e, slice, mid, line, key, cycle);
    if (l && (l->valid_sectors & sectors) == sectors) {
        sim_cache_touch(c, l);
        e->stats.l2_hits++;
        sim_l2_respond(e, mid, cycle);
        return PROBE_DONE;
    }
    if (!l && ms->far_extra_cycles) {
        /* the far partition: a hit there swaps the line with the near victim */
        uint32_t far = far_slice_of(ms, e->arch, slice);
        sim_cache *fc = ms->slices[far].cache;
        sim_cache_line *fl = sim_cache_find(fc, key);
        if (fl && !fl->reserved && (fl->valid_sectors & sectors) == sectors) {
            sim_cache_line *v = sim_cache_victim(c, key);
            if (!v)
                return PROBE_FAIL;
            uint32_t valid = fl->valid_sectors, dirty = fl->dirty_sectors;
            if (v->present) {
                /* the near victim takes the far line's way */
                uint64_t vtag = v->tag;
                uint32_t vvalid = v->valid_sectors, vdirty = v->dirty_sectors;
                sim_cache_install(fc, fl, vtag);
                fl->valid_sectors = vvalid;
                fl->dirty_sectors = vdirty;
            } else {
                fl->dirty_sectors = 0; /* the near copy carries them now */
            }
            sim_cache_install(c, v, key);
            v->valid_sectors = valid;
            v->dirty_sectors = dirty;
            e->stats.l2_hits++;
            e->stats.l2_far_hits++;
            ms->msg[mid].extra_cycles += ms->far_extra_cycles;
            sim_l2_respond(e, mid, cycle);
            return PROBE_DONE;
        }
    }
    sim_mshr *m = l && l->reserved ? mshr_find(mt, key) : NULL;
    uint32_t missing = sectors & ~(l ? l->valid_sectors : 0u) & ~(m ? m->pending_sectors : 0u);
    if (m) {
        if (m->merged >= mt->merge_limit)
            return PROBE_FAIL;
    } else {
        if (mt->used >= mt->capacity)
            return PROBE_FAIL;
        if (!l) {
            l = sim_cache_victim(c, key);
            if (!l)
                return PROBE_FAIL;
            /* (what sim_l2_evict_near does nothing with: an absent way, or a
             * clean victim with no far partition to move to -- most misses) */
            if (l->present && (ms->far_extra_cycles || l->dirty_sectors))
                sim_l2_evict_near(e, slice, l, cycle);
            sim_cache_install(c, l, key);
        }
        m = mshr_alloc(mt, key);
        m->way = l;
        sim_cache_reserve(c, l);
    }
    e->stats.l2_misses++;
    if (missing) {
        m->pending_sectors |= missing;
        sim_l2_dram_message(e, slice, line, missing, 0, cycle);
    }
    m->merged++;
    /* not `msg`: the write-back and fetch messages above may have grown (moved)
     * the message pool */
    ms->msg[mid].next = m->waiters;
    m->waiters = mid;
    return PROBE_DONE;
}

void sim_l2_fill(sim_engine *e, int32_t mid, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    uint32_t slice = ms->msg[mid].slice;
    sim_l2_slice *sl = &ms->slices[slice];
    sim_cache *c = sl->cache;
    sim_msg *msg = &ms->msg[mid];
    uint64_t line = sim_cache_line_of(c, msg->addr), key = line;
    uint32_t where;
    if (ms->slice_count > 1)
        gd_arch_l2_slice_of(e->arch, line, 0, &where, &key);
    uint32_t sectors = msg->sectors;
    sim_msg_free(ms, mid);
    sim_mshr *m = mshr_find(sl->mshr, key);
    sim_cache_line *l = m ? m->way : NULL;
    if (!l || !m || !l->present || l->tag != key) {
        sim_engine_fail(e, "sim: internal error: a DRAM fill for L2 line 0x%llx has no MSHR",
                        (unsigned long long)(line * c->line_bytes));
        return;
    }
    l->valid_sectors |= sectors;
    m->pending_sectors &= ~sectors;
    int32_t *link = &m->waiters;
    while (*link >= 0) {
        int32_t wid = *link;
        sim_msg *w = &ms->msg[wid];
        uint32_t need = sim_cache_sector_mask(c, w->addr, w->bytes);
        if ((l->valid_sectors & need) == need) {
            *link = w->next;
            m->merged--;
            sim_l2_respond(e, wid, cycle);
        } else {
            link = &w->next;
        }
    }
    if (m->pending_sectors == 0) {
        mshr_release(sl->mshr, m);
        sim_cache_release(c, l);
    }
    sl->blocked = 0;
}

/* ------------------------------------------------------------------------- */
/* The crossbar and the slices' queues                                       */

/* The slice an arrival goes to: the near slice of its SM's partition.  Reads
 * are translated on the way (their TLB cycles ride on the message). */
static uint32_t route(sim_engine *e, int32_t mid)
{
    sim_memsys *ms = e->memsys;
    sim_msg *msg = &ms->msg[mid];
    if (ms->tlbs && !msg->translated && !msg->is_store) {
        /* stores are not translated: their latency is never seen, and the
         * pages they write (a probe's output) would take TLB entries the
         * analytical model does not count (README: limits) */
        msg->translated = 1;
        msg->extra_cycles += sim_tlb_translate(e, msg->sm, msg->addr);
    }
    if (ms->slice_count == 1)
        return 0;
    uint64_t key;
    uint32_t slice;
    gd_arch_l2_slice_of(e->arch, msg->addr >> ms->l2.line_shift,
                        gd_arch_sm_partition(e->arch, msg->sm), &slice, &key);
    return slice;
}

static void serve_queue(sim_engine *e, sim_l2_slice *sl, uint32_t slice, uint32_t per_cycle,
                        uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    uint32_t done = 0;
    while (!sl->blocked && done < per_cycle && sl->input->count &&
           ms->msg[ring_peek(sl->input)].ready <= cycle) {
        int32_t mid = ring_peek(sl->input);
        if (ms->slice_count == 1 && ms->tlbs)
            route(e, mid); /* translation only (none without TLBs) */
        if (slice_access(e, slice, mid, cycle) == PROBE_FAIL) {
            sl->blocked = 1;
            break;
        }
        ring_pop(sl->input);
        done++;
    }
}

void sim_l2_tick(sim_engine *e, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    const gd_arch_level *l2 = &e->arch->level[GD_L2];
    while (ms->delayed.count && sim_heap_next_due(&ms->delayed) <= cycle) {
        int32_t mid = sim_heap_pop(&ms->delayed);
        sim_l2_respond(e, mid, ms->msg[mid].ready);
    }
    if (ms->slice_count == 1) {
        /* one slice: its queue is the arrival queue, as the monolithic L2's was
         * (entered only with a head due: most ticks have none, and the call
         * was dearer than the test) */
        sim_l2_slice *s0 = &ms->slices[0];
        if (!s0->blocked && s0->input->count && ms->msg[ring_peek(s0->input)].ready <= cycle)
            serve_queue(e, s0, 0, l2->requests_per_cycle, cycle);
        return;
    }
    uint32_t moved = 0;
    while (moved < l2->requests_per_cycle && ms->l2_input.count &&
           ms->msg[ring_peek(&ms->l2_input)].ready <= cycle) {
        int32_t mid = ring_pop(&ms->l2_input);
        uint32_t slice = route(e, mid);
        sim_l2_slice *sl = &ms->slices[slice];
        if (ring_push(sl->input, mid) != 0) {
            sim_engine_fail(e, "sim: out of host memory (L2 slice queue)");
            return;
        }
        if (!sl->busy) {
            sl->busy = 1;
            ms->busy_slices[ms->busy_slice_count++] = slice;
        }
        moved++;
    }
    /* only the slices with a queue: 80 or 100 of them would cost every tick */
    for (uint32_t k = 0; k < ms->busy_slice_count;) {
        uint32_t i = ms->busy_slices[k];
        serve_queue(e, &ms->slices[i], i, l2->l2map.slice_requests_per_cycle, cycle);
        if (!ms->slices[i].input->count) {
            ms->slices[i].busy = 0;
            ms->busy_slices[k] = ms->busy_slices[--ms->busy_slice_count];
        } else {
            k++;
        }
    }
}

uint64_t sim_l2_next_event(const sim_engine *e, uint64_t now)
{
    const sim_memsys *ms = e->memsys;
    uint64_t best = SIM_NEVER;
    if (ms->delayed.count) {
        uint64_t t = sim_heap_next_due(&ms->delayed);
        best = t < now ? now : t;
    }
    if (ms->slice_count == 1) {
        if (ms->l2_input.count && !ms->slices[0].blocked) {
            uint64_t t = ms->msg[ring_peek(&ms->l2_input)].ready;
            t = t < now ? now : t;
            if (t < best)
                best = t;
        }
        return best;
    }
    if (ms->l2_input.count) {
        uint64_t t = ms->msg[ring_peek(&ms->l2_input)].ready;
        t = t < now ? now : t;
        if (t < best)
            best = t;
    }
    for (uint32_t k = 0; k < ms->busy_slice_count && best > now; k++)
        if (!ms->slices[ms->busy_slices[k]].blocked)
            best = now;
    return best;
}

/* ------------------------------------------------------------------------- */
/* The instruction and constant paths' L2 (fetch.c, constant.c)              */

int sim_l2_lookup_fill(sim_engine *e, uint64_t addr, uint32_t bytes, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_cache *c0 = &ms->l2;
    int all = 1;
    uint64_t first = sim_cache_line_of(c0, addr), last = sim_cache_line_of(c0, addr + bytes - 1);
    for (uint64_t line = first; line <= last; line++) {
        uint64_t key;
        uint32_t slice;
        gd_arch_l2_slice_of(e->arch, line, 0, &slice, &key);
        sim_cache *c = ms->slices[slice].cache;
        sim_cache_line *l = sim_cache_find(c, key);
        uint32_t full = c->sectors_per_line >= 32 ? 0xffffffffu : (1u << c->sectors_per_line) - 1;
        if (l && (l->valid_sectors & full) == full) {
            sim_cache_touch(c, l);
            continue;
        }
        all = 0;
        if (!l) {
            l = sim_cache_victim(c, key);
            if (!l)
                continue; /* every way reserved by data misses: not cached this time */
            sim_l2_evict_near(e, slice, l, cycle);
            sim_cache_install(c, l, key);
            /* a dirty victim's write-back went to memory from outside the
             * memory system's tick: it is due now, whatever the loop had
             * computed before (a fetch after the stores had drained left it
             * in the DRAM queue with no cycle due: a kernel "deadlocked") */
            if (e->memsys_due > cycle)
                e->memsys_due = cycle;
        }
        l->valid_sectors = full;
        sim_cache_touch(c, l);
        e->stats.dram_reads++;
    }
    return all;
}
