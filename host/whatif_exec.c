/* whatif_exec.c -- one workload, once, on an open device.
 *
 * The probe contract run end to end without a sweep: plan the workload, give
 * every buffer device memory (filled from the workload's seeded inputs, or
 * zeroed), load the kernel, make its launches in order (split() gives each
 * launch's parameters), copy the checked buffer back, let decode compare it
 * with the host's computation, and read the device's counters into the
 * experiment's cell.  host/runner.c does the same for probes with sweeps,
 * warm-ups and watchdogs a workload does not want (a workload is run once,
 * cold, and its whole run is the measurement).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/lsu_trace.h"
#include "host/whatif.h"
#include "analysis/results.h"
#include "analysis/write_skew.h"
#include "sim/sim_device.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int launch_with(gd_device *dev, gd_kernel *k, const gd_probe_plan *plan,
                       const gd_probe_param *params, const gd_devptr *addr, gd_err *err)
{
    uint64_t u64s[GD_PROBE_MAX_PARAMS];
    uint32_t u32s[GD_PROBE_MAX_PARAMS];
    const void *values[GD_PROBE_MAX_PARAMS];
    size_t sizes[GD_PROBE_MAX_PARAMS];
    for (unsigned i = 0; i < plan->param_count; i++) {
        const gd_probe_param *p = &params[i];
        if (p->kind == GD_PARAM_U32) {
            u32s[i] = (uint32_t)p->value;
            values[i] = &u32s[i];
            sizes[i] = 4;
        } else {
            if (p->kind == GD_PARAM_BUFFER && p->buffer >= plan->buffer_count)
                return gd_fail(err, "%s: parameter %u names buffer %u of %u", plan->entry, i,
                               p->buffer, plan->buffer_count);
            u64s[i] = p->kind == GD_PARAM_BUFFER ? addr[p->buffer] : p->value;
            values[i] = &u64s[i];
            sizes[i] = 8;
        }
    }
    gd_launch l = {.grid = {plan->grid[0], plan->grid[1], plan->grid[2]},
                   .block = {plan->block[0], plan->block[1], plan->block[2]},
                   .dynamic_shared_bytes = plan->dynamic_shared_bytes,
                   .param_count = plan->param_count,
                   .param_values = values,
                   .param_sizes = sizes};
    if (gd_kernel_launch(dev, k, &l, err) != 0 || gd_device_synchronize(dev, err) != 0)
        return -1;
    return 0;
}

static void cell_from_counters(const gd_counter_list *cl, gd_whatif_cell *c)
{
    c->cycles = gd_counter_list_get(cl, "sim.cycles", NAN);
    c->warp_insns = gd_counter_list_get(cl, "sim.warp_insns", NAN);
    c->resv_fails = gd_counter_list_get(cl, "l1d.reservation_fails", NAN);
    c->resv_set = gd_counter_list_get(cl, "l1d.reservation_fails.set", NAN);
    c->resv_mshr = gd_counter_list_get(cl, "l1d.reservation_fails.mshr", NAN);
    c->resv_merge = gd_counter_list_get(cl, "l1d.reservation_fails.merge", NAN);
    c->resv_miss_queue = gd_counter_list_get(cl, "l1d.reservation_fails.miss_queue", NAN);
    c->requeues = gd_counter_list_get(cl, "l1d.requeues", NAN);
    c->hol_cycles = gd_counter_list_get(cl, "l1d.reservation_stall_cycles", NAN);
    c->fifo_mean = gd_counter_list_get(cl, "l1d.fifo_occupancy_mean", NAN);
    c->fifo_max = gd_counter_list_get(cl, "l1d.fifo_occupancy_max", NAN);
    c->coalescer_stalls = gd_counter_list_get(cl, "lsu.coalescer_stall_cycles", NAN);
    c->issue_stalls = gd_counter_list_get(cl, "lsu.issue_stall_cycles", NAN);
    c->l1_hits = gd_counter_list_get(cl, "l1d.hits", NAN);
    c->l1_misses = gd_counter_list_get(cl, "l1d.misses", NAN);
    c->mem_writes = gd_counter_list_get(cl, "mem.writes_in", NAN);
    c->write_bytes_in = gd_counter_list_get(cl, "mem.write_bytes_in", NAN);
    c->write_bytes_out = gd_counter_list_get(cl, "mem.write_bytes_out", NAN);
    c->pcm_writes = gd_counter_list_get(cl, "pcm.array_writes", NAN);
    c->wb_read_hits = gd_counter_list_get(cl, "wb.read_hits", NAN);
    c->wb_read_misses = gd_counter_list_get(cl, "wb.read_misses", NAN);
    c->wb_write_hits = gd_counter_list_get(cl, "wb.write_hits", NAN);
    c->wb_write_misses = gd_counter_list_get(cl, "wb.write_misses", NAN);
    c->wb_dirty_evictions = gd_counter_list_get(cl, "wb.dirty_evictions", NAN);
}

/* Seed 003's Figure-2 figures from the sim's per-row write counts (NaN when
 * the device has none). */
static int cell_skew(gd_device *dev, gd_whatif_cell *c, gd_err *err)
{
    uint64_t *asc, n;
    c->rows_written = c->row_writes_max = c->top3_share = c->top2p6_share = c->rows_below20 = NAN;
    if (sim_device_row_writes(dev, &asc, &n, err) != 0)
        return -1;
    if (!n)
        return 0;
    gd_write_skew s;
    gd_write_skew_summary(asc, (size_t)n, &s);
    c->rows_written = (double)s.rows;
    c->row_writes_max = (double)s.max_writes;
    c->top3_share = gd_write_skew_top_share(asc, (size_t)n, 0.03);
    c->top2p6_share = gd_write_skew_top_share(asc, (size_t)n, 0.026);
    c->rows_below20 = gd_write_skew_rows_below(asc, (size_t)n, 20);
    free(asc);
    return 0;
}

int gd_whatif_exec(gd_device *dev, const gd_probe *workload, uint64_t point, uint64_t seed,
                   const char *trace_dir, gd_whatif_cell *cell, gd_err *err)
{
    gd_probe_opts opts = {.seed = seed};
    gd_probe_plan plan;
    gd_probe_result result = {0};
    gd_devptr addr[GD_PROBE_MAX_BUFFERS] = {0};
    void *host[GD_PROBE_MAX_BUFFERS] = {0};
    gd_kernel *k = NULL;
    gd_lsu_trace *trace = NULL;
    int allocated = 0, rc = -1;
    memset(&plan, 0, sizeof plan);
    memset(cell, 0, sizeof *cell);
    if (workload->plan(&opts, gd_device_get_info(dev), point, &plan, err) != 0)
        goto out;
    for (unsigned i = 0; i < plan.buffer_count; i++, allocated++) {
        const gd_probe_buffer *b = &plan.buffers[i];
        host[i] = calloc(1, b->bytes ? b->bytes : 1);
        if (!host[i]) {
            gd_fail(err, "%s: out of memory for buffer %s", workload->name, b->name);
            goto out;
        }
        if (gd_mem_alloc(dev, b->bytes, &addr[i], err) != 0)
            goto out;
        if (b->host_fill ? workload->fill(&plan, i, addr, host[i], err) ||
                               gd_mem_copy_in(dev, addr[i], host[i], b->bytes, err)
                         : gd_mem_fill(dev, addr[i], 0, b->bytes, err))
            goto out;
    }
    if (gd_kernel_load(dev, plan.ptx, plan.entry, &plan.load, &k, err) != 0)
        goto out;
    if (trace_dir && gd_lsu_trace_start(dev, GD_LSU_TRACE_DEFAULT_LIMIT, &trace, err) != 0)
        goto out;
    double t0 = now_ms();
    if (plan.launches < 2) {
        if (launch_with(dev, k, &plan, plan.params, addr, err) != 0)
            goto out;
    } else {
        gd_probe_param params[GD_PROBE_MAX_PARAMS];
        for (unsigned l = 0; l < plan.launches; l++)
            if (workload->split(&plan, l, params, err) != 0 ||
                launch_with(dev, k, &plan, params, addr, err) != 0) {
                gd_fail_prefix(err, "launch %u of %u", l + 1, plan.launches);
                goto out;
            }
    }
    cell->wall_ms = now_ms() - t0;
    if (trace) {
        int trc = gd_lsu_trace_finish(trace, trace_dir, NULL, err);
        trace = NULL;
        if (trc != 0)
            goto out;
    }
    for (unsigned i = 0; i < plan.buffer_count; i++)
        if (plan.buffers[i].copy_out &&
            gd_mem_copy_out(dev, host[i], addr[i], plan.buffers[i].bytes, err) != 0)
            goto out;
    void *back[GD_PROBE_MAX_BUFFERS] = {0};
    for (unsigned i = 0; i < plan.buffer_count; i++)
        back[i] = plan.buffers[i].copy_out ? host[i] : NULL;
    if (workload->decode(&plan, addr, back, &result, err) != 0)
        goto out;
    cell->errors = result.series_count ? result.series[0].samples[0] : NAN;
    gd_counter_list cl = {0};
    if (gd_device_counters(dev, &cl, err) != 0) {
        gd_counter_list_free(&cl);
        goto out;
    }
    cell_from_counters(&cl, cell);
    gd_counter_list_free(&cl);
    if (cell_skew(dev, cell, err) != 0)
        goto out;
    cell->ran = 1;
    rc = 0;
out:
    if (trace) {
        gd_err ignored;
        gd_lsu_trace_finish(trace, trace_dir, NULL, &ignored);
    }
    if (k)
        gd_kernel_unload(dev, k);
    for (int i = 0; i < allocated; i++) {
        gd_err ignored;
        if (addr[i])
            gd_mem_release(dev, addr[i], &ignored);
        free(host[i]);
    }
    if (allocated < GD_PROBE_MAX_BUFFERS)
        free(host[allocated]); /* a buffer whose allocation failed half way */
    gd_probe_result_free(&result);
    gd_probe_plan_free(workload, &plan);
    if (rc != 0)
        snprintf(cell->note, sizeof cell->note, "%s", err->msg);
    return rc;
}

int gd_whatif_write_row_writes(gd_device *dev, const char *path, gd_err *err)
{
    uint64_t *asc, n;
    if (sim_device_row_writes(dev, &asc, &n, err) != 0)
        return -1;
    if (!n)
        return 0;
    gd_text t;
    gd_text_init(&t);
    gd_text_printf(&t, "rank,writes\n");
    for (uint64_t i = 0; i < n; i++)
        gd_text_printf(&t, "%llu,%llu\n", (unsigned long long)i, (unsigned long long)asc[i]);
    free(asc);
    int rc = gd_text_write_atomic(&t, path, err);
    gd_text_free(&t);
    return rc;
}
