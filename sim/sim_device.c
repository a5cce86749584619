/* sim_device.c -- the simulated GPU behind the device interface ("sim:ARCH").
 *
 * Opening reads the arch file (plus any --set overrides); loading parses the PTX
 * the probe emitted (the same text a GPU's JIT would get) and reports 16 bytes of
 * machine code per instruction, as on sm_70 and later; launching runs the kernel
 * to completion on the cycle-level engine.  Launches are synchronous, so
 * synchronize has nothing to wait for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/arch.h"
#include "sim/launch_bound.h"
#include "sim/engine.h"
#include "sim/sim_device.h"
#include "sim/memsys.h"
#include "sim/row_writes.h"
#include "sim/pcm_wbuf.h"

#define SIM_BYTES_PER_INSTRUCTION 16 /* SASS encoding size on sm_70 and later */

typedef struct sim_device {
    gd_device base;
    gd_arch arch;
    sim_devmem mem;
    sim_engine *engine;
    uint64_t modules_loaded;  /* gives each module its own code and constant addresses */
    gd_trace_sink trace_sink; /* gd_device_trace: the LSU's events, as CSV rows */
    void *trace_user;
    gd_trace_sink wbuf_sink;  /* sim_device_wbuf_trace: the write buffer's list operations */
    void *wbuf_user;
} sim_device;

typedef struct sim_kernel {
    gd_kernel base;
    ptx_module *module;
    ptx_kernel *kernel;
    uint64_t code_base, const_base, param_base;
} sim_kernel;

#define SIM_MODULE_SPAN_SHIFT 32       /* each module's code and constants: 4 GiB apart */
#define SIM_CONST_BANK_OFFSET (1ull << 24)

/* GD_PATCH_FFMA_TO_NOP, in PTX terms: the one run of exactly `count`
 * consecutive fma.rn.f32 instructions becomes no-ops (fetched and issued like
 * any instruction, computing nothing). */
static int patch_ffma_to_nop(ptx_kernel *k, uint32_t count, gd_err *err)
{
    uint32_t runs = 0, start = 0, found_len = 0;
    char lengths[256] = "";
    for (uint32_t i = 0; i < k->insn_count;) {
        if (k->insns[i].op != OP_FMA || k->insns[i].type != PT_F32) {
            i++;
            continue;
        }
        uint32_t j = i;
        while (j < k->insn_count && k->insns[j].op == OP_FMA && k->insns[j].type == PT_F32)
            j++;
        if (j - i == count) {
            runs++;
            start = i;
            found_len = count;
        }
        size_t used = strlen(lengths);
        if (used < sizeof lengths - 16)
            snprintf(lengths + used, sizeof lengths - used, "%s%u", used ? ", " : "", j - i);
        i = j;
    }
    if (runs != 1)
        return gd_fail(err, "sim: expected one run of %u fma.rn.f32 instructions in %s to patch "
                            "into NOPs, found runs of %s",
                       count, k->name, lengths[0] ? lengths : "none");
    for (uint32_t i = start; i < start + found_len; i++) {
        ptx_insn *in = &k->insns[i];
        in->op = OP_NOP;
        in->dst.kind = OK_NONE;
        in->dst.reg = PTX_NO_REG;
        in->nsrc = 0;
        in->sb_count = 0;
    }
    return 0;
}

static void simdev_close(gd_device *dev)
{
    sim_device *d = (sim_device *)dev;
    sim_engine_destroy(d->engine);
    sim_devmem_destroy(&d->mem);
    free(d);
}

static int simdev_load(gd_device *dev, const char *ptx, const char *entry,
                       const gd_load_opts *opts, gd_kernel **out, gd_err *err)
{
    sim_device *d = (sim_device *)dev;
    *out = NULL;
    int carveout = opts ? opts->carveout_percent : 0;
    if (carveout < 0 || carveout > 100)
        return gd_fail(err, "sim: carve-out %d%% is not a percentage (0..100)", carveout);
    sim_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return gd_fail(err, "sim: out of memory");
    if (ptx_parse(ptx, &k->module, err) != 0) {
        free(k);
        return -1;
    }
    k->kernel = (ptx_kernel *)ptx_module_find(k->module, entry);
    if (!k->kernel) {
        ptx_module_free(k->module);
        free(k);
        return gd_fail(err, "sim: the PTX has no entry named '%s'", entry);
    }
    if (opts && opts->patch == GD_PATCH_FFMA_TO_NOP &&
        patch_ffma_to_nop(k->kernel, opts->patch_count, err) != 0) {
        ptx_module_free(k->module);
        free(k);
        return -1;
    }
    uint64_t id = ++d->modules_loaded;
    k->code_base = SIM_ISPACE | (id << SIM_MODULE_SPAN_SHIFT);
    k->param_base = SIM_CSPACE | (id << SIM_MODULE_SPAN_SHIFT);
    k->const_base = k->param_base | SIM_CONST_BANK_OFFSET;
    snprintf(k->base.entry, sizeof k->base.entry, "%s", entry);
    k->base.instruction_count = k->kernel->insn_count;
    k->base.code_bytes = (uint64_t)k->kernel->insn_count * SIM_BYTES_PER_INSTRUCTION;
    k->base.carveout_percent = carveout;
    k->base.static_shared_bytes = k->kernel->shared_static_bytes;
    k->base.registers_per_thread = -1;
    k->base.local_bytes_per_thread = 0;
    char info[256];
    snprintf(info, sizeof info, "sim: %s: %u instructions, %u registers, %u bytes static shared",
             entry, k->kernel->insn_count, k->kernel->reg_count, k->kernel->shared_static_bytes);
    k->base.jit_info_log = strdup(info);
    k->base.jit_error_log = strdup("");
    if (!k->base.jit_info_log || !k->base.jit_error_log) {
        free(k->base.jit_info_log);
        free(k->base.jit_error_log);
        ptx_module_free(k->module);
        free(k);
        return gd_fail(err, "sim: out of memory");
    }
    *out = &k->base;
    return 0;
}

static void simdev_unload(gd_device *dev, gd_kernel *kernel)
{
    (void)dev;
    sim_kernel *k = (sim_kernel *)kernel;
    free(k->base.jit_info_log);
    free(k->base.jit_error_log);
    ptx_module_free(k->module);
    free(k);
}

static int simdev_alloc(gd_device *dev, size_t bytes, gd_devptr *out, gd_err *err)
{
    sim_device *d = (sim_device *)dev;
    return sim_devmem_alloc(&d->mem, bytes, out, err);
}

static int simdev_release(gd_device *dev, gd_devptr ptr, gd_err *err)
{
    sim_device *d = (sim_device *)dev;
    return sim_devmem_free(&d->mem, ptr, err);
}

static int simdev_copy_in(gd_device *dev, gd_devptr dst, const void *src, size_t bytes, gd_err *err)
{
    sim_device *d = (sim_device *)dev;
    sim_alloc *a = sim_devmem_find(&d->mem, dst, bytes);
    if (!a)
        return gd_fail(err, "sim: copy of %zu bytes to 0x%llx is outside every allocation", bytes,
                       (unsigned long long)dst);
    sim_devmem_copy_sparse(a, a->data + (dst - a->base), src, bytes);
    return 0;
}

static int simdev_copy_out(gd_device *dev, void *dst, gd_devptr src, size_t bytes, gd_err *err)
{
    sim_device *d = (sim_device *)dev;
    uint8_t *p = sim_devmem_translate(&d->mem, src, bytes);
    if (!p)
        return gd_fail(err, "sim: copy of %zu bytes from 0x%llx is outside every allocation",
                       bytes, (unsigned long long)src);
    memcpy(dst, p, bytes);
    return 0;
}

static int simdev_fill(gd_device *dev, gd_devptr dst, uint8_t byte, size_t bytes, gd_err *err)
{
    sim_device *d = (sim_device *)dev;
    sim_alloc *a = sim_devmem_find(&d->mem, dst, bytes);
    if (!a)
        return gd_fail(err, "sim: memset of %zu bytes at 0x%llx is outside every allocation",
                       bytes, (unsigned long long)dst);
    sim_devmem_fill_sparse(a, a->data + (dst - a->base), byte, bytes);
    return 0;
}

static void *simdev_host_view(gd_device *dev, gd_devptr addr, size_t bytes)
{
    return sim_devmem_host_view(&((sim_device *)dev)->mem, addr, bytes);
}

static int simdev_launch(gd_device *dev, gd_kernel *kernel, const gd_launch *launch, gd_err *err)
{
    sim_device *d = (sim_device *)dev;
    sim_kernel *k = (sim_kernel *)kernel;
    const ptx_kernel *pk = k->kernel;
    if (launch->param_count != pk->param_count)
        return gd_fail(err, "sim: kernel %s takes %u parameters, the launch passes %u", pk->name,
                       pk->param_count, launch->param_count);
    if (sim_launch_check_bound(&d->arch, pk, launch, err) != 0)
        return -1;
    uint8_t *params = calloc(1, pk->param_bytes ? pk->param_bytes : 1);
    if (!params)
        return gd_fail(err, "sim: out of memory");
    for (uint32_t i = 0; i < pk->param_count; i++) {
        if (launch->param_sizes[i] != pk->params[i].size) {
            free(params);
            return gd_fail(err, "sim: parameter %u (%s) of %s is %u bytes, the launch passes %zu",
                           i, pk->params[i].name, pk->name, pk->params[i].size,
                           launch->param_sizes[i]);
        }
        memcpy(params + pk->params[i].offset, launch->param_values[i], pk->params[i].size);
    }
    sim_launch_config cfg = {
        .module = k->module,
        .kernel = pk,
        .code_base = k->code_base,
        .const_base = k->const_base,
        .param_base = k->param_base,
        .grid = {launch->grid[0], launch->grid[1], launch->grid[2]},
        .block = {launch->block[0], launch->block[1], launch->block[2]},
        .dynamic_shared_bytes = launch->dynamic_shared_bytes,
        .carveout_percent = k->base.carveout_percent,
        .params = params,
        .const_bank = k->module->const_init,
        .const_bytes = k->module->const_bytes,
    };
    sim_devmem_kernel_ran(&d->mem);
    int rc = sim_engine_run(d->engine, &cfg, err);
    if (rc == 0) {
        k->base.launch_shared_carveout_bytes = d->engine->carveout.shared_bytes;
        k->base.launch_l1d_bytes = d->engine->carveout.l1d_bytes;
    }
    free(params);
    return rc;
}

static int simdev_write_symbol(gd_device *dev, gd_kernel *kernel, const char *name,
                               const void *data, size_t bytes, gd_err *err)
{
    (void)dev;
    sim_kernel *k = (sim_kernel *)kernel;
    for (uint32_t i = 0; i < k->module->const_count; i++) {
        const ptx_const_var *v = &k->module->consts[i];
        if (strcmp(v->name, name))
            continue;
        if (bytes > v->size)
            return gd_fail(err, "sim: %zu bytes do not fit the %u-byte .const variable %s", bytes,
                           v->size, name);
        memcpy(k->module->const_init + v->offset, data, bytes);
        return 0;
    }
    return gd_fail(err, "sim: the module of %s has no .const variable named '%s'", k->base.entry,
                   name);
}

static int simdev_synchronize(gd_device *dev, gd_err *err)
{
    (void)dev;
    (void)err;
    return 0;
}

/* The arch has PCM's side of the controllers (sim/pcm.c): writes counted per row. */
#define PCM_SIDE(ar) ((ar)->wb.size_bytes > 0 || (ar)->level[GD_DRAM].dram.kind == GD_MEM_PCM)
/* the L2 store path differs from the default: its counters are reported */
#define STORE_L2_CHOSEN(ar)                                                                    \
    ((ar)->level[GD_L2].l2_write_alloc != GD_L2_WRITE_SECTOR ||                               \
     (ar)->level[GD_L2].partial_write != GD_L2_PARTIAL_VALIDATE)

static int simdev_counters(gd_device *dev, gd_counter_list *out, gd_err *err)
{
    sim_device *d = (sim_device *)dev;
    const sim_stats *s = &d->engine->stats;
    double mem_insns = (double)(s->global_loads + s->global_stores);
    const struct {
        const char *name;
        double value;
    } items[] = {
        {"sim.warp_insns", (double)s->warp_insns},
        {"sim.cycles", (double)s->cycles},
        {"sim.visited_cycles", (double)s->loop_iterations},
        {"sim.launches", (double)s->launches},
        {"l1d.hits", (double)s->l1d_hits},
        {"l1d.misses", (double)s->l1d_misses},
        {"l1d.sector_misses", (double)s->l1d_sector_misses},
        {"l1d.mshr_merges", (double)s->l1d_merges},
        {"l1d.reservation_fails", (double)s->l1d_resv_fails},
        {"l1d.reservation_fails.set", (double)s->l1d_resv_by_reason[SIM_RESV_SET]},
        {"l1d.reservation_fails.mshr", (double)s->l1d_resv_by_reason[SIM_RESV_MSHR]},
        {"l1d.reservation_fails.merge", (double)s->l1d_resv_by_reason[SIM_RESV_MERGE]},
        {"l1d.reservation_fails.miss_queue", (double)s->l1d_resv_by_reason[SIM_RESV_MISS_QUEUE]},
        {"l1d.reservation_stall_cycles", (double)s->l1d_hol_cycles},
        {"l1d.requeues", (double)s->l1d_requeues},
        {"l1d.fifo_occupancy_cycles", (double)s->l1d_fifo_occupancy_sum},
        {"lsu.coalescer_stall_cycles", (double)s->lsu_coalescer_stall_cycles},
        {"lsu.issue_stall_cycles", (double)s->lsu_issue_stall_cycles},
        {"coalesce.requests", (double)s->coalesced_requests},
        {"coalesce.sectors", (double)s->coalesced_sectors},
        {"l2.hits", (double)s->l2_hits},
        {"l2.misses", (double)s->l2_misses},
        {"dram.reads", (double)s->dram_reads},
        {"dram.writes", (double)s->dram_writes},
        {"smem.accesses", (double)s->smem_accesses},
        {"smem.replays", (double)s->smem_replays},
        {"global.loads", (double)s->global_loads},
        {"global.stores", (double)s->global_stores},
        {"const.accesses", (double)s->const_accesses},
    };
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++)
        if (gd_counter_list_add(out, items[i].name, items[i].value) != 0)
            return gd_fail(err, "out of memory");
    /* below the L1 (issue 12), where the arch has the part */
    const gd_arch *ar = &d->arch;
    const struct {
        int present;
        const char *name;
        double value;
    } below[] = {
        {ar->level[GD_L2].l2map.partitions > 1, "l2.far_hits", (double)s->l2_far_hits},
        /* the store path (issue 12), where the arch chose other than the defaults */
        {ar->level[GD_L1D].write_back, "l1d.writebacks", (double)s->l1d_writebacks},
        {ar->level[GD_L1D].write_back, "l1d.writeback_sectors", (double)s->l1d_writeback_sectors},
        {ar->level[GD_L1D].write_back, "l1d.end_writebacks", (double)s->l1d_end_writebacks},
        {STORE_L2_CHOSEN(ar), "l2.partial_writes", (double)s->l2_partial_writes},
        {STORE_L2_CHOSEN(ar), "l2.write_fetches", (double)s->l2_write_fetches},
        {ar->level[GD_L2].l2_write_alloc == GD_L2_WRITE_NONE, "l2.write_bypasses",
         (double)s->l2_write_bypasses},
        {ar->level[GD_TLB1].present, "tlb1.misses", (double)s->tlb1_misses},
        {ar->level[GD_TLB2].present, "tlb2.misses", (double)s->tlb2_misses},
        {ar->level[GD_DRAM].dram.channels > 0, "dram.row_hits", (double)s->dram_row_hits},
        {ar->level[GD_DRAM].dram.channels > 0, "dram.row_misses", (double)s->dram_row_misses},
        {ar->level[GD_DRAM].dram.channels > 0, "dram.row_conflicts", (double)s->dram_row_conflicts},
        {ar->level[GD_DRAM].dram.channels > 0, "dram.bus_busy_cycles", (double)s->dram_bus_busy_cycles},
        {ar->level[GD_DRAM].dram.channels > 0, "dram.turnarounds", (double)s->dram_turnarounds},
        /* PCM and its write buffer (issue 13) */
        {ar->level[GD_DRAM].dram.kind == GD_MEM_PCM, "pcm.array_writes", (double)s->pcm_array_writes},
        {ar->level[GD_DRAM].dram.kind == GD_MEM_PCM && ar->level[GD_DRAM].dram.pcm_write_pj_per_bit > 0,
         "pcm.write_energy_nj",
         (double)s->pcm_write_bytes * 8.0 * ar->level[GD_DRAM].dram.pcm_write_pj_per_bit / 1000.0},
        {PCM_SIDE(ar), "mem.writes_in", (double)s->mem_writes_in},
        {PCM_SIDE(ar), "mem.write_bytes_in", (double)s->mem_write_bytes_in},
        {PCM_SIDE(ar), "mem.write_bytes_out",
         (double)(s->mem_write_bytes_out + sim_pcm_held_dirty_bytes(d->engine))},
        {ar->wb.size_bytes > 0, "wb.read_hits", (double)s->wb_read_hits},
        {ar->wb.size_bytes > 0, "wb.read_misses", (double)s->wb_read_misses},
        {ar->wb.size_bytes > 0, "wb.write_hits", (double)s->wb_write_hits},
        {ar->wb.size_bytes > 0, "wb.write_misses", (double)s->wb_write_misses},
        {ar->wb.size_bytes > 0, "wb.evictions", (double)s->wb_evictions},
        {ar->wb.size_bytes > 0, "wb.dirty_evictions", (double)s->wb_dirty_evictions},
        {ar->wb.size_bytes > 0, "wb.promotions", (double)s->wb_promotions},
        {ar->wb.size_bytes > 0 && ar->wb.read_bypass, "wb.read_bypasses", (double)s->wb_read_bypasses},
        {ar->wb.size_bytes > 0, "wb.pcm_writes_avoided",
         (double)(s->wb_write_hits + s->wb_write_misses) - (double)s->wb_dirty_evictions},
    };
    for (size_t i = 0; i < sizeof below / sizeof below[0]; i++)
        if (below[i].present && gd_counter_list_add(out, below[i].name, below[i].value) != 0)
            return gd_fail(err, "out of memory");
    if (ar->level[GD_DRAM].dram.channels > 0) {
        uint32_t ch = ar->level[GD_DRAM].dram.channels;
        double busy = s->cycles ? (double)s->dram_bus_busy_cycles / ((double)s->cycles * ch) : 0.0;
        double occ = s->dram_queue_samples ? (double)s->dram_queue_occupancy_sum /
                                                 (double)s->dram_queue_samples : 0.0;
        if (gd_counter_list_add_gauge(out, "dram.bus_utilisation", busy) != 0 ||
            gd_counter_list_add_gauge(out, "dram.queue_occupancy_mean", occ) != 0)
            return gd_fail(err, "out of memory");
    }
    /* a mean, a maximum, ratios: no running totals */
    const struct {
        const char *name;
        double value;
    } gauges[] = {
        {"l1d.fifo_occupancy_mean", s->sm_cycles ? (double)s->l1d_fifo_occupancy_sum /
                                                       (double)s->sm_cycles : 0.0},
        {"l1d.fifo_occupancy_max", (double)s->l1d_fifo_max},
        {"coalesce.requests_per_insn", mem_insns ? (double)s->coalesced_requests / mem_insns : 0.0},
        {"coalesce.sectors_per_insn", mem_insns ? (double)s->coalesced_sectors / mem_insns : 0.0},
    };
    for (size_t i = 0; i < sizeof gauges / sizeof gauges[0]; i++)
        if (gd_counter_list_add_gauge(out, gauges[i].name, gauges[i].value) != 0)
            return gd_fail(err, "out of memory");
    /* per cache level of the instruction and constant paths */
    for (int id = 0; id < GD_LEVEL_COUNT; id++) {
        if (!d->arch.level[id].present)
            continue;
        char name[GD_COUNTER_NAME_BYTES];
        const char *lv = gd_level_name((gd_level_id)id);
        const struct {
            const char *what;
            uint64_t v;
        } per[] = {{"ifetch_hits", s->ifetch_hits[id]},
                   {"ifetch_misses", s->ifetch_misses[id]},
                   {"const_hits", s->const_hits[id]},
                   {"const_misses", s->const_misses[id]}};
        for (size_t i = 0; i < sizeof per / sizeof per[0]; i++) {
            if (!per[i].v)
                continue;
            snprintf(name, sizeof name, "%s.%s", lv, per[i].what);
            if (gd_counter_list_add_sparse(out, name, (double)per[i].v) != 0)
                return gd_fail(err, "out of memory");
        }
    }
    return 0;
}

static void simdev_on_lsu_event(void *user, const sim_lsu_event *ev)
{
    sim_device *d = user;
    char row[192];
    snprintf(row, sizeof row, "%llu,%llu,%u,%llu,%u,0x%llx,%u,%s,%s",
             (unsigned long long)d->engine->stats.launches, (unsigned long long)ev->cycle, ev->sm,
             (unsigned long long)ev->instr, ev->request, (unsigned long long)ev->line_addr, ev->set,
             sim_lsu_event_name((sim_lsu_event_kind)ev->kind),
             ev->kind == SIM_LSU_RESV_FAIL ? sim_resv_reason_name((sim_resv_reason)ev->reason) : "");
    d->trace_sink(d->trace_user, row);
}

static int simdev_trace(gd_device *dev, gd_trace_sink sink, void *user, gd_err *err)
{
    (void)err;
    sim_device *d = (sim_device *)dev;
    d->trace_sink = sink;
    d->trace_user = user;
    d->engine->lsu_trace = sink ? simdev_on_lsu_event : NULL;
    d->engine->lsu_trace_user = sink ? d : NULL;
    return 0;
}

static const struct gd_device_ops sim_ops = {
    .close = simdev_close,
    .load = simdev_load,
    .unload = simdev_unload,
    .alloc = simdev_alloc,
    .release = simdev_release,
    .copy_in = simdev_copy_in,
    .copy_out = simdev_copy_out,
    .fill = simdev_fill,
    .host_view = simdev_host_view,
    .write_symbol = simdev_write_symbol,
    .launch = simdev_launch,
    .synchronize = simdev_synchronize,
    .counters = simdev_counters,
    .trace = simdev_trace,
};

sim_engine *sim_device_engine(gd_device *dev)
{
    if (!dev || dev->ops != &sim_ops)
        return NULL;
    return ((sim_device *)dev)->engine;
}

int sim_device_open(const char *arch_name, const gd_device_opts *opts, gd_device **out,
                    gd_err *err)
{
    *out = NULL;
    sim_device *d = calloc(1, sizeof *d);
    if (!d)
        return gd_fail(err, "sim: out of memory");
    char path[512];
    if (gd_arch_resolve(arch_name, path, sizeof path, err) != 0 ||
        gd_arch_load(path, opts ? opts->overrides : NULL, opts ? opts->override_count : 0,
                     &d->arch, err) != 0) {
        free(d);
        return -1;
    }
    sim_devmem_init(&d->mem, d->arch.gpu.global_mem_bytes);
    if (sim_engine_create(&d->arch, &d->mem, &d->engine, err) != 0) {
        sim_devmem_destroy(&d->mem);
        free(d);
        return -1;
    }
    d->base.ops = &sim_ops;
    gd_device_info *info = &d->base.info;
    snprintf(info->backend, sizeof info->backend, "sim");
    snprintf(info->name, sizeof info->name, "sim: %s", d->arch.gpu.name);
    snprintf(info->arch_name, sizeof info->arch_name, "%s", d->arch.name);
    snprintf(info->arch_path, sizeof info->arch_path, "%s", d->arch.path);
    info->sm_count = (int)d->arch.gpu.sm_count;
    info->subpartitions_per_sm = (int)d->arch.gpu.subpartitions;
    info->clock_mhz = d->arch.gpu.clock_mhz;
    info->l2_bytes = d->arch.level[GD_L2].size_bytes;
    info->global_mem_bytes = d->arch.gpu.global_mem_bytes;
    info->shared_per_block_bytes = d->arch.gpu.shared_per_block_bytes;
    info->cc_major = d->arch.gpu.cc_major;
    info->cc_minor = d->arch.gpu.cc_minor;
    *out = &d->base;
    return 0;
}

/* The per-row write counts at main memory's input (issue 13, sim/pcm.c), in
 * ascending order; *n = 0 when the device is not a simulated one or its arch
 * has no PCM side. */
int sim_device_row_writes(gd_device *dev, uint64_t **asc, uint64_t *n, gd_err *err)
{
    *asc = NULL;
    *n = 0;
    if (!dev || dev->ops != &sim_ops)
        return 0;
    const sim_row_writes *rw = sim_pcm_row_writes(((sim_device *)dev)->engine);
    return rw ? sim_row_writes_sorted(rw, asc, n, err) : 0;
}

static void simdev_on_wbuf_event(void *user, const sim_wbuf_event *ev)
{
    static const char *const ops[] = {"hit_read", "hit_write_active", "hit_write_inactive", "miss",
                                      "evict"};
    sim_device *d = user;
    char row[160];
    snprintf(row, sizeof row, "%llu,%llu,%s,%llu,%s,%u,%u,%d",
             (unsigned long long)d->engine->stats.launches, (unsigned long long)ev->seq,
             ops[ev->op], (unsigned long long)ev->row,
             ev->op == SIM_WBUF_MISS ? "active" : ev->from_active ? "active" : "inactive", ev->from,
             ev->to, ev->dirty);
    d->wbuf_sink(d->wbuf_user, row);
}

int sim_device_wbuf_trace(gd_device *dev, gd_trace_sink sink, void *user)
{
    if (!dev || dev->ops != &sim_ops)
        return 0;
    sim_device *d = (sim_device *)dev;
    if (!d->arch.wb.size_bytes)
        return 0;
    d->wbuf_sink = sink;
    d->wbuf_user = user;
    d->engine->wbuf_trace = sink ? simdev_on_wbuf_event : NULL;
    d->engine->wbuf_trace_user = sink ? d : NULL;
    return 1;
}
