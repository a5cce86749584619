/* runner.c -- plan, fill, launch, copy back, decode, summarize; one point at a time.
 *
 * See runner.h.  The kernel of the previous point is kept while the probe emits
 * the same PTX (a p-chase sweep passes the footprint as a kernel argument, so a
 * whole sweep JITs once on a GPU).
 */
#include "host/runner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/arch.h"
#include "analysis/results.h"
#include "host/checkpoint.h"
#include "host/cuda_device.h"
#include "host/interrupt.h"
#include "host/jit_check.h"
#include "host/kernel_record.h"
#include "kernels/timer.h"

/* ------------------------------------------------------------------------- */
/* Counters                                                                  */

/* out = after - before for every running total (a sparse one only when it
 * moved: generated seeds' store-path and tlb-page counters gained a row
 * "L15C.const_hits,0" when the point's process had run a constant-cache
 * point before), plus the coalescer's requests
 * and sectors per memory instruction over the point. */
static int counters_delta(const gd_counter_list *before, const gd_counter_list *after,
                          gd_counter_list *out)
{
    for (size_t i = 0; i < after->count; i++) {
        const gd_counter *c = &after->items[i];
        double d = c->value - gd_counter_list_get(before, c->name, 0);
        if (c->gauge || (c->sparse && d == 0))
            continue;
        if (gd_counter_list_add(out, c->name, d) != 0)
            return -1;
    }
    double insns = gd_counter_list_get(out, "global.loads", 0) +
                   gd_counter_list_get(out, "global.stores", 0);
    double requests = gd_counter_list_get(out, "coalesce.requests", -1);
    double sectors = gd_counter_list_get(out, "coalesce.sectors", -1);
    if (insns > 0 && requests >= 0 && sectors >= 0 &&
        (gd_counter_list_add(out, "coalesce.requests_per_insn", requests / insns) != 0 ||
         gd_counter_list_add(out, "coalesce.sectors_per_insn", sectors / insns) != 0))
        return -1;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Measuring                                                                 */

void gd_runner_init(gd_runner *runner, gd_device *dev, const char *out_dir, FILE *progress)
{
    memset(runner, 0, sizeof *runner);
    runner->dev = dev;
    runner->kernels = json_array(); /* NULL (out of memory): no records */
    if (out_dir)
        snprintf(runner->out_dir, sizeof runner->out_dir, "%s", out_dir);
    runner->progress = progress;
}

static void runner_unload_spare(gd_runner *runner)
{
    if (runner->spare_kernel)
        gd_kernel_unload(runner->dev, runner->spare_kernel);
    free(runner->spare_ptx);
    runner->spare_kernel = NULL;
    runner->spare_ptx = NULL;
}

/* Unloads the current kernel only (the spare stays). */
static void runner_unload_current(gd_runner *runner)
{
    if (runner->kernel)
        gd_kernel_unload(runner->dev, runner->kernel);
    free(runner->kernel_ptx);
    runner->kernel = NULL;
    runner->kernel_ptx = NULL;
}

static int same_kernel(const gd_kernel *k, const char *ptx, const gd_load_opts *had,
                       const gd_probe_plan *plan, const gd_load_opts *load)
{
    return k && ptx && !strcmp(ptx, plan->ptx) && !strcmp(k->entry, plan->entry) &&
           had->patch == load->patch && had->patch_count == load->patch_count &&
           had->carveout_percent == load->carveout_percent;
}

void gd_runner_close(gd_runner *runner)
{
    runner_unload_current(runner);
    runner_unload_spare(runner);
    json_decref(runner->kernels);
    runner->kernels = NULL;
}

/* Before a freshly JIT-compiled kernel first runs on a cuda device: check the
 * machine code the driver made (host/jit_check.c), record what was checked in
 * meta.json, and refuse the probe on a mismatch.  Sim devices run the PTX
 * itself: nothing to check. */
static int check_jit_output(gd_runner *r, const gd_probe *probe, const gd_probe_plan *plan,
                            gd_err *err)
{
    const gd_device_info *info = gd_device_get_info(r->dev);
    if (strcmp(info->backend, "cuda") != 0)
        return 0;
    const void *jit = NULL, *loaded = NULL;
    size_t jit_bytes = 0, loaded_bytes = 0;
    if (cuda_kernel_jit_cubin(r->kernel, &jit, &jit_bytes) != 0 ||
        cuda_kernel_cubin(r->kernel, &loaded, &loaded_bytes) != 0)
        return gd_fail(err, "%s: the kernel %s has no cubin to check", probe->name, plan->entry);
    char nvdisasm_buf[1024];
    const char *nvdisasm = gd_jit_find_nvdisasm(nvdisasm_buf, sizeof nvdisasm_buf);
    gd_jit_verdict v;
    if (gd_jit_check(probe->name, plan, jit, jit_bytes, nvdisasm, r->jit_param_base, &v, err) != 0)
        return -1;
    if (r->meta) {
        char jit_hash[17], loaded_hash[17];
        gd_jit_cubin_hash(jit, jit_bytes, jit_hash);
        gd_jit_cubin_hash(loaded, loaded_bytes, loaded_hash);
        json_t *k = json_object();
        json_object_set_new(k, "probe", json_string(probe->name));
        json_object_set_new(k, "entry", json_string(plan->entry));
        json_object_set_new(k, "point", json_integer((json_int_t)plan->point));
        json_object_set_new(k, "jit_cubin_fnv1a64", json_string(jit_hash));
        json_object_set_new(k, "jit_cubin_bytes", json_integer((json_int_t)jit_bytes));
        json_object_set_new(k, "loaded_cubin_fnv1a64", json_string(loaded_hash));
        json_object_set_new(k, "sass_instructions", json_integer(v.instructions));
        json_object_set_new(k, "jit_info_log", json_string(r->kernel->jit_info_log));
        json_object_set_new(k, "machine_code", json_string(gd_jit_status_name(v.status)));
        json_object_set_new(k, "code_range", json_string(v.code_range));
        json_object_set_new(k, "intended_instructions", json_string(v.intended));
        json_object_set_new(k, "timed_region_order", json_string(v.order));
        json_object_set_new(k, "nvdisasm", nvdisasm ? json_string(nvdisasm) : json_null());
        json_object_set_new(k, "param_base",
                            r->jit_param_base ? json_integer(r->jit_param_base) : json_null());
        if (!r->jit_param_base && r->jit_param_base_why[0])
            json_object_set_new(k, "param_base_error", json_string(r->jit_param_base_why));
        json_t *list = json_object_get(r->meta, "jit_checks");
        if (!json_is_array(list)) {
            list = json_array();
            json_object_set_new(r->meta, "jit_checks", list);
        }
        json_array_append_new(list, k);
    }
    if (v.status == GD_JIT_MISMATCH)
        return gd_fail(err, "%s: the driver's JIT made machine code that does not mean what the "
                       "probe intends, refused before its first launch: %s%s",
                       probe->name,
                       !strncmp(v.code_range, "mismatch", 8) ? v.code_range
                       : !strncmp(v.intended, "mismatch", 8) ? v.intended
                                                             : "timed-region order ",
                       !strncmp(v.code_range, "mismatch", 8) ||
                               !strncmp(v.intended, "mismatch", 8)
                           ? ""
                           : v.order);
    return 0;
}

/* The parameter base the order check reads the SASS with: measured through
 * the device's JIT once per runner (host/jit_check.c, gd_jit_param_base),
 * before the runner's first kernel loads on a cuda device with nvdisasm.  A
 * failure is no error: the order verdict says "unchecked" and meta.json why. */
static void measure_param_base(gd_runner *r)
{
    if (r->jit_param_base_tried || strcmp(gd_device_get_info(r->dev)->backend, "cuda") != 0)
        return;
    r->jit_param_base_tried = 1;
    char nvdisasm_buf[1024];
    const char *nvdisasm = gd_jit_find_nvdisasm(nvdisasm_buf, sizeof nvdisasm_buf);
    gd_err err = {{0}};
    if (!nvdisasm)
        snprintf(r->jit_param_base_why, sizeof r->jit_param_base_why, "no nvdisasm");
    else if (gd_jit_param_base(r->dev, nvdisasm, &r->jit_param_base, &err) != 0)
        snprintf(r->jit_param_base_why, sizeof r->jit_param_base_why, "%s", err.msg);
}

/* Loads plan's kernel unless one kept is the same.  A kernel loaded here
 * takes the plan's PTX text with it (plan->ptx is NULL after: nothing after
 * the load reads it, and gd_probe_plan_free frees NULL): a copy of a 64 MiB
 * instruction block's text was 160 MB written and read again at every point
 * of icache-l2 (issue 17). */
static int runner_kernel(gd_runner *r, const gd_probe *probe, gd_probe_plan *plan,
                         gd_err *err)
{
    gd_load_opts load = plan->load;
    load.carveout_percent = r->carveout_percent;
    if (same_kernel(r->kernel, r->kernel_ptx, &r->kernel_load, plan, &load))
        return 0;
    /* two kernels are kept (an adaptive sweep that bisects on both sides of a
     * switch in the probe's PTX would reload one at every point): the one
     * before becomes the spare, the spare before it goes */
    gd_kernel *k = r->spare_kernel;
    char *ptx = r->spare_ptx;
    gd_load_opts had = r->spare_load;
    int warmed = r->spare_warmed;
    r->spare_kernel = r->kernel;
    r->spare_ptx = r->kernel_ptx;
    r->spare_load = r->kernel_load;
    r->spare_warmed = r->kernel_warmed;
    r->kernel = k;
    r->kernel_ptx = ptx;
    r->kernel_load = had;
    r->kernel_warmed = warmed;
    if (same_kernel(r->kernel, r->kernel_ptx, &r->kernel_load, plan, &load))
        return 0;
    runner_unload_current(r);
    measure_param_base(r);
    if (gd_kernel_load(r->dev, plan->ptx, plan->entry, &load, &r->kernel, err) != 0) {
        r->kernel = NULL;
        return -1;
    }
    r->kernel_warmed = 0;
    if (check_jit_output(r, probe, plan, err) != 0) {
        runner_unload_current(r);
        return -1;
    }
    r->kernel_load = load;
    r->kernel_ptx = plan->ptx;
    plan->ptx = NULL;
    return 0;
}

/* Writes the initial contents of every buffer (host-filled ones from the probe,
 * module variables by name, the rest zeroed); host[i] keeps what was filled. */
static int fill_buffers(gd_runner *r, const gd_probe *probe, const gd_probe_plan *plan,
                        const gd_devptr *addr, void **host, gd_err *err)
{
    gd_device *dev = r->dev;
    for (unsigned i = 0; i < plan->buffer_count; i++) {
        const gd_probe_buffer *b = &plan->buffers[i];
        if (b->host_fill) {
            /* a device whose memory the host can write (the simulator) takes
             * the contents in place while the allocation is still zero, as
             * host[i] would be: no host buffer and no copy, which would read
             * every page of both -- 3 M page faults for a TLB chase's 12 GiB.
             * The probe's fill and what the kernel finds are the same. */
            uint8_t *view = !host[i] && !b->symbol && !b->copy_out
                                ? gd_mem_host_view(dev, addr[i], b->bytes)
                                : NULL;
            if (view) {
                if (probe->fill(plan, i, addr, view, err) != 0)
                    return -1;
                continue;
            }
            if (!host[i]) {
                host[i] = calloc(1, b->bytes);
                if (!host[i])
                    return gd_fail(err, "out of memory for buffer %s", b->name);
                if (probe->fill(plan, i, addr, host[i], err) != 0)
                    return -1;
            }
            if (b->symbol ? gd_symbol_write(dev, r->kernel, b->symbol, host[i], b->bytes, err)
                          : gd_mem_copy_in(dev, addr[i], host[i], b->bytes, err))
                return -1;
        } else if (b->symbol) {
            return gd_fail(err, "%s: buffer %s names module variable %s but is not host-filled",
                           probe->name, b->name, b->symbol);
        } else if (gd_mem_fill(dev, addr[i], 0, b->bytes, err) != 0) {
            return -1;
        }
    }
    return 0;
}

/* One launch with these parameters, and its completion. */
static int launch_once(gd_runner *r, const gd_probe *probe, const gd_probe_plan *plan,
                       const gd_probe_param *params, const gd_devptr *addr, gd_err *err)
{
    uint64_t values[GD_PROBE_MAX_PARAMS];
    const void *value_ptrs[GD_PROBE_MAX_PARAMS];
    size_t sizes[GD_PROBE_MAX_PARAMS];
    uint32_t u32s[GD_PROBE_MAX_PARAMS];
    for (unsigned i = 0; i < plan->param_count; i++) {
        const gd_probe_param *p = &params[i];
        switch (p->kind) {
        case GD_PARAM_BUFFER:
            if (p->buffer >= plan->buffer_count)
                return gd_fail(err, "%s: parameter %u names buffer %u of %u", probe->name, i,
                               p->buffer, plan->buffer_count);
            if (plan->buffers[p->buffer].symbol)
                return gd_fail(err, "%s: parameter %u passes module variable %s", probe->name, i,
                               plan->buffers[p->buffer].symbol);
            values[i] = addr[p->buffer];
            value_ptrs[i] = &values[i];
            sizes[i] = sizeof(uint64_t);
            break;
        case GD_PARAM_U32:
            u32s[i] = (uint32_t)p->value;
            value_ptrs[i] = &u32s[i];
            sizes[i] = sizeof(uint32_t);
            break;
        case GD_PARAM_U64:
            values[i] = p->value;
            value_ptrs[i] = &values[i];
            sizes[i] = sizeof(uint64_t);
            break;
        }
    }
    gd_launch launch = {
        .grid = {plan->grid[0], plan->grid[1], plan->grid[2]},
        .block = {plan->block[0], plan->block[1], plan->block[2]},
        .dynamic_shared_bytes = plan->dynamic_shared_bytes,
        .param_count = plan->param_count,
        .param_values = value_ptrs,
        .param_sizes = sizes,
    };
    if (gd_kernel_launch(r->dev, r->kernel, &launch, err) != 0 ||
        gd_device_synchronize(r->dev, err) != 0)
        return -1;
    r->launches++;
    return 0;
}

/* The point's launches, in order: one with plan->params, or plan->launches
 * with the parameters probe->split gives each. */
static int launch_point(gd_runner *r, const gd_probe *probe, const gd_probe_plan *plan,
                        const gd_devptr *addr, unsigned only_first, gd_err *err)
{
    if (plan->launches < 2)
        return launch_once(r, probe, plan, plan->params, addr, err);
    gd_probe_param params[GD_PROBE_MAX_PARAMS];
    unsigned n = only_first ? 1 : plan->launches;
    for (unsigned k = 0; k < n; k++)
        if (probe->split(plan, k, params, err) != 0 ||
            launch_once(r, probe, plan, params, addr, err) != 0)
            return gd_fail_prefix(err, "launch %u of %u", k + 1, plan->launches);
    return 0;
}

/* The launch of a plan, decoded into results[0..n): one point's (n 1, by
 * probe->decode), or a batch's (probe->decode_batch). */
static int measure_plan(gd_runner *r, const gd_probe *probe, const char *label,
                        const uint64_t *xs, gd_probe_plan *plan, gd_probe_result *result,
                        size_t n, gd_err *err)
{
    gd_device *dev = r->dev;
    gd_devptr addr[GD_PROBE_MAX_BUFFERS] = {0};
    void *host[GD_PROBE_MAX_BUFFERS] = {0};
    int allocated[GD_PROBE_MAX_BUFFERS] = {0};
    int rc = -1;

    if (runner_kernel(r, probe, plan, err) != 0)
        goto out;
    for (unsigned i = 0; i < plan->buffer_count; i++) {
        if (plan->buffers[i].symbol)
            continue;
        if (gd_mem_alloc(dev, plan->buffers[i].bytes, &addr[i], err) != 0)
            goto out;
        allocated[i] = 1;
    }
    if (fill_buffers(r, probe, plan, addr, host, err) != 0)
        goto out;
    /* A card idles at a low clock and boosts under load: a kernel's first
     * launch would be timed while the clock ramps.  So on a GPU the first
     * launch of each kernel is a warm-up, untimed (the first share of a split
     * point, so that it too stays under a watchdog), and the buffers are
     * filled again before the launches that count.  The simulator's clock
     * does not move: no warm-up there. */
    if (!r->kernel_warmed && strcmp(gd_device_get_info(dev)->backend, "cuda") == 0) {
        if (launch_point(r, probe, plan, addr, 1, err) != 0) {
            gd_fail_prefix(err, "warm-up launch");
            goto out;
        }
        r->warmup_launches++;
        if (fill_buffers(r, probe, plan, addr, host, err) != 0)
            goto out;
    }
    r->kernel_warmed = 1;
    if (launch_point(r, probe, plan, addr, 0, err) != 0)
        goto out;
    /* (a batch's launch: a point of its kernel's record for each point) */
    for (size_t j = 0; r->kernels && j < n; j++)
        if (gd_kernel_record_add(r->kernels, label, probe->name, r->kernel, r->carveout_percent,
                                 plan->dynamic_shared_bytes, xs[j], err) != 0)
            goto out;
    for (unsigned i = 0; i < plan->buffer_count; i++) {
        if (!plan->buffers[i].copy_out || plan->buffers[i].symbol)
            continue;
        if (!host[i]) {
            host[i] = malloc(plan->buffers[i].bytes);
            if (!host[i]) {
                gd_fail(err, "out of memory");
                goto out;
            }
        }
        if (gd_mem_copy_out(dev, host[i], addr[i], plan->buffers[i].bytes, err) != 0)
            goto out;
    }
    void *decode_bufs[GD_PROBE_MAX_BUFFERS] = {0};
    for (unsigned i = 0; i < plan->buffer_count; i++)
        decode_bufs[i] = plan->buffers[i].copy_out ? host[i] : NULL;
    if (n == 1 ? probe->decode(plan, addr, decode_bufs, result, err)
               : probe->decode_batch(plan, addr, decode_bufs, result, n, err))
        goto out;
    rc = 0;
out:
    for (unsigned i = 0; i < plan->buffer_count; i++) {
        gd_err ignored;
        if (allocated[i])
            gd_mem_release(dev, addr[i], rc == 0 ? err : &ignored);
    }
    for (unsigned i = 0; i < plan->buffer_count; i++)
        free(host[i]);
    return rc;
}

/* The display watchdog: a display-attached card kills a launch that runs for
 * more than a few seconds (CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT; about 2 s
 * under Windows' TDR default, 5 s or more under X).  A point whose worst case
 * -- every dependent access as slow as GD_WATCHDOG_WORST_ACCESS_CYCLES at the
 * device's clock -- exceeds the launch budget is planned again, spread over
 * enough launches.  Returns 0 with *launches 1 when no split is needed. */
static int watchdog_launches(gd_runner *r, const gd_probe *probe, const gd_probe_plan *plan,
                             unsigned *launches, double *expected_s, gd_err *err)
{
    *launches = 1;
    *expected_s = 0;
    int watchdog = r->assume_watchdog;
    if (!watchdog && cuda_device_watchdog(r->dev, &watchdog) != 0)
        watchdog = 0; /* a sim device: no watchdog */
    if (!watchdog || !plan->dependent_accesses)
        return 0;
    const gd_device_info *info = gd_device_get_info(r->dev);
    double clock_hz = (info->clock_mhz > 0 ? info->clock_mhz : GD_WATCHDOG_FALLBACK_CLOCK_MHZ) *
                      1e6;
    double budget_s = r->launch_budget_s > 0 ? r->launch_budget_s : GD_WATCHDOG_LAUNCH_BUDGET_S;
    *expected_s = (double)plan->dependent_accesses * GD_WATCHDOG_WORST_ACCESS_CYCLES / clock_hz;
    if (*expected_s <= budget_s)
        return 0;
    double n = ceil(*expected_s / budget_s);
    if (!probe->split)
        return gd_fail(err, "%s: one launch of this point may run %.1f s (%llu dependent accesses "
                       "at up to %d cycles, %.0f MHz) and the display watchdog of %s kills "
                       "launches after a few seconds; %s cannot spread a point over launches: "
                       "use a GPU without a display",
                       probe->name, *expected_s, (unsigned long long)plan->dependent_accesses,
                       GD_WATCHDOG_WORST_ACCESS_CYCLES, clock_hz / 1e6, info->spec, probe->name);
    if (n > GD_WATCHDOG_MAX_LAUNCHES)
        return gd_fail(err, "%s: one launch of this point may run %.1f s; more than %d launches "
                       "of %.2f s would be needed under the display watchdog",
                       probe->name, *expected_s, GD_WATCHDOG_MAX_LAUNCHES, budget_s);
    *launches = (unsigned)n;
    return 0;
}

/* meta.json "sm_clock_mhz": per curve label, the lowest and highest effective
 * SM clock of its points so far and how many points measured it -- what the
 * report's "clock moved during a curve" warning reads. */
static void record_clock(gd_runner *r, const gd_curve *curve)
{
    if (!r->meta)
        return;
    double lo = INFINITY, hi = -INFINITY;
    size_t n = 0;
    for (size_t i = 0; i < curve->count; i++) {
        double mhz = curve->points[i].sm_clock_mhz;
        if (!isfinite(mhz) || mhz <= 0)
            continue;
        lo = mhz < lo ? mhz : lo;
        hi = mhz > hi ? mhz : hi;
        n++;
    }
    if (!n)
        return;
    json_t *all = json_object_get(r->meta, "sm_clock_mhz");
    if (!json_is_object(all)) {
        all = json_object();
        json_object_set_new(r->meta, "sm_clock_mhz", all);
    }
    json_t *c = json_object();
    json_object_set_new(c, "min", json_real(lo));
    json_object_set_new(c, "max", json_real(hi));
    json_object_set_new(c, "points", json_integer((json_int_t)n));
    json_object_set_new(all, curve->label, c);
}

int gd_runner_has_kernel(gd_runner *r, const gd_curve *curve, uint64_t x, int *has, gd_err *err)
{
    const gd_probe *probe = curve->probe;
    if (gd_interrupt_requested()) /* before the point: the last one's write has finished */
        return gd_fail(err, "%s: interrupted by %s", curve->label,
                       gd_interrupt_name(gd_interrupt_requested()));
    if (r->keep_measured && gd_curve_find(curve, x)) /* --resume: measured before */
        return 0;
    gd_probe_plan plan;
    if (probe->plan(&curve->opts, gd_device_get_info(r->dev), x, &plan, err) != 0)
        return gd_fail_prefix(err, "%s %s=%llu", curve->label, probe->sweep_name,
                              (unsigned long long)x);
    gd_load_opts load = plan.load;
    load.carveout_percent = r->carveout_percent;
    *has = same_kernel(r->kernel, r->kernel_ptx, &r->kernel_load, &plan, &load) ||
           same_kernel(r->spare_kernel, r->spare_ptx, &r->spare_load, &plan, &load);
    gd_probe_plan_free(probe, &plan);
    return 0;
}

/* One result's series into a point (the clock series as its column). */
static int result_to_point(gd_probe_result *result, gd_point *point, gd_err *err)
{
    for (unsigned s = 0; s < result->series_count; s++) {
        if (strcmp(result->series[s].name, GD_TIMER_CLOCK_SERIES) == 0) {
            /* a scalar of the point, not a distribution: the CSV's column */
            if (result->series[s].count == 1)
                point->sm_clock_mhz = result->series[s].samples[0];
            continue;
        }
        gd_point_series *ps = &point->series[point->series_count++];
        snprintf(ps->name, sizeof ps->name, "%s", result->series[s].name);
        if (gd_summarize(result->series[s].samples, result->series[s].count, &ps->summary) != 0)
            return gd_fail(err, "out of memory");
        ps->samples = result->series[s].samples; /* take ownership */
        result->series[s].samples = NULL;
    }
    return 0;
}

int gd_runner_measure_point(gd_runner *r, const gd_curve *curve, uint64_t x, gd_point *out,
                            gd_err *err)
{
    return gd_runner_measure_points(r, curve, &x, 1, out, err);
}

int gd_runner_measure_points(gd_runner *r, const gd_curve *curve, const uint64_t *xs, size_t n,
                             gd_point *out, gd_err *err)
{
    const gd_probe *probe = curve->probe;
    uint64_t x = xs[0];
    for (size_t j = 0; j < n; j++) {
        memset(&out[j], 0, sizeof out[j]);
        out[j].sm_clock_mhz = NAN;
    }
    if (n > 1 && n > gd_probe_batch_max(probe, &curve->opts))
        return gd_fail(err, "%s: %s cannot measure %zu points in one launch", curve->label,
                       probe->name, n);
    gd_probe_plan plan;
    gd_probe_result *results = calloc(n, sizeof *results);
    if (!results)
        return gd_fail(err, "out of memory");
    if ((n == 1 ? probe->plan(&curve->opts, gd_device_get_info(r->dev), x, &plan, err)
                : probe->plan_batch(&curve->opts, gd_device_get_info(r->dev), xs, n, &plan,
                                    err)) != 0) {
        free(results);
        return gd_fail_prefix(err, "%s %s=%llu", curve->label, probe->sweep_name,
                              (unsigned long long)x);
    }
    unsigned launches = 1;
    double expected_s = 0;
    if (watchdog_launches(r, probe, &plan, &launches, &expected_s, err) != 0) {
        gd_probe_plan_free(probe, &plan);
        free(results);
        return gd_fail_prefix(err, "%s %s=%llu", curve->label, probe->sweep_name,
                              (unsigned long long)x);
    }
    if (launches > 1 && n > 1) {
        /* a batch too long for the display watchdog: its halves, each
         * with the preamble of its own */
        gd_probe_plan_free(probe, &plan);
        free(results);
        size_t half = n / 2;
        if (gd_runner_measure_points(r, curve, xs, half, out, err) != 0)
            return -1;
        if (gd_runner_measure_points(r, curve, xs + half, n - half, out + half, err) != 0) {
            for (size_t j = 0; j < half; j++)
                gd_point_free(&out[j]);
            return -1;
        }
        return 0;
    }
    if (launches > 1) {
        /* the same point, spread over `launches` launches */
        gd_probe_plan_free(probe, &plan);
        gd_probe_opts split = curve->opts;
        split.launch_split = launches;
        if (probe->plan(&split, gd_device_get_info(r->dev), x, &plan, err) != 0) {
            free(results);
            return gd_fail_prefix(err, "%s %s=%llu", curve->label, probe->sweep_name,
                                  (unsigned long long)x);
        }
        if (plan.launches != launches) {
            gd_probe_plan_free(probe, &plan);
            free(results);
            return gd_fail(err, "%s %s=%llu: %s planned %u launches, the watchdog needs %u",
                           curve->label, probe->sweep_name, (unsigned long long)x, probe->name,
                           plan.launches, launches);
        }
        r->split_points++;
    }
    gd_counter_list before = {0}, after = {0}, delta = {0};
    int rc = gd_device_counters(r->dev, &before, err);
    if (rc == 0)
        rc = measure_plan(r, probe, curve->label, xs, &plan, results, n, err);
    if (rc == 0)
        rc = gd_device_counters(r->dev, &after, err);
    gd_probe_plan_free(probe, &plan);
    if (rc == 0 && counters_delta(&before, &after, &delta) != 0)
        rc = gd_fail(err, "out of memory");
    gd_counter_list_free(&before);
    gd_counter_list_free(&after);
    /* every point of a batch gets the launch's counters, marked as a
     * batch's: "batch_points" (a gauge) says how many points they cover */
    for (size_t j = 0; rc == 0 && j < n; j++) {
        out[j].x = xs[j];
        for (size_t i = 0; rc == 0 && i < delta.count; i++)
            if ((delta.items[i].gauge
                     ? gd_counter_list_add_gauge(&out[j].counters, delta.items[i].name,
                                                 delta.items[i].value)
                     : gd_counter_list_add(&out[j].counters, delta.items[i].name,
                                           delta.items[i].value)) != 0)
                rc = gd_fail(err, "out of memory");
        if (rc == 0 && n > 1 &&
            gd_counter_list_add_gauge(&out[j].counters, "batch_points", (double)n) != 0)
            rc = gd_fail(err, "out of memory");
        if (rc == 0)
            rc = result_to_point(&results[j], &out[j], err);
    }
    gd_counter_list_free(&delta);
    for (size_t j = 0; j < n; j++)
        gd_probe_result_free(&results[j]);
    free(results);
    if (rc != 0) {
        for (size_t j = 0; j < n; j++)
            gd_point_free(&out[j]);
        return gd_fail_prefix(err, "%s %s=%llu", curve->label, probe->sweep_name,
                              (unsigned long long)x);
    }
    return 0;
}

/* Enters a point into the curve: the progress line, the CSV, the checkpoint.
 * stored: taken from the checkpoint, not measured; in_csv: the step's CSV
 * (a finished step's, read back) has it already. */
static int add_point(gd_runner *r, gd_curve *curve, gd_point *point, size_t index, size_t total,
                     int stored, int in_csv, gd_err *err)
{
    const gd_probe *probe = curve->probe;
    uint64_t x = point->x;
    char xs[32];
    gd_format_sweep_value(probe, x, xs, sizeof xs);
    if (gd_curve_insert(curve, point) != 0) {
        gd_point_free(point);
        return gd_fail(err, "out of memory");
    }
    if (stored)
        r->points_read_back++;
    else
        r->points_measured++;
    record_clock(r, curve);
    const gd_point *p = gd_curve_find(curve, x);
    if (r->progress) {
        int k = p ? gd_point_series_index(p, gd_probe_primary_series(probe)) : -1;
        double median = k >= 0 ? p->series[k].summary.median : NAN;
        char ms[32];
        snprintf(ms, sizeof ms, fabs(median) >= 100 ? "%.1f" : "%.3g", median);
        const char *how = stored ? " (read back)" : "";
        if (total)
            fprintf(r->progress, "[%zu/%zu] %s %s=%s: median %s %s%s\n", index + 1, total,
                    curve->label, probe->sweep_name, xs, ms, probe->value_unit, how);
        else
            fprintf(r->progress, "[%zu] %s %s=%s: median %s %s%s\n", index + 1, curve->label,
                    probe->sweep_name, xs, ms, probe->value_unit, how);
        fflush(r->progress);
    }
    /* a finished step read back keeps its CSV untouched while every point
     * comes from it; the first other point writes the whole curve again */
    int write_csv = r->checkpoint ? gd_checkpoint_note_added(r->checkpoint, stored && in_csv) : 1;
    if (r->out_dir[0] && write_csv) {
        if (gd_curve_write_csv_snapshot(curve, r->out_dir, err) != 0)
            return -1;
        r->csv_unsettled = 1;
    }
    /* after the CSV: a kill between the two costs the point, never a torn file */
    if (!stored && r->checkpoint && p && gd_checkpoint_append(r->checkpoint, p, err) != 0)
        return -1;
    return 0;
}

int gd_runner_settle_csv(gd_runner *r, const gd_curve *curve, gd_err *err)
{
    if (!r->csv_unsettled || !r->out_dir[0])
        return 0;
    r->csv_unsettled = 0;
    return gd_curve_write_csv(curve, r->out_dir, err);
}

int gd_runner_add_point(gd_runner *r, gd_curve *curve, gd_point *point, size_t index,
                        size_t total, gd_err *err)
{
    return add_point(r, curve, point, index, total, 0, 0, err);
}

int gd_runner_add_stored(gd_runner *r, gd_curve *curve, uint64_t x, size_t index, size_t total,
                         int *added, gd_err *err)
{
    gd_point point;
    int in_csv = 0;
    *added = r->checkpoint && gd_checkpoint_take(r->checkpoint, x, &point, &in_csv);
    if (!*added)
        return 0;
    return add_point(r, curve, &point, index, total, 1, in_csv, err);
}

static int measure_one(gd_runner *r, gd_curve *curve, uint64_t x, size_t index, size_t total,
                       int rebuild, gd_err *err)
{
    if (gd_interrupt_requested()) /* before the point: the last one's write has finished */
        return gd_fail(err, "%s: interrupted by %s", curve->label,
                       gd_interrupt_name(gd_interrupt_requested()));
    if (r->keep_measured && gd_curve_find(curve, x)) /* --resume: measured before */
        return 0;
    gd_point point;
    if (rebuild && r->checkpoint && gd_checkpoint_has(r->checkpoint, x)) {
        /* the device's state as the interrupted run had it after this point */
        if (gd_runner_measure_point(r, curve, x, &point, err) != 0)
            return -1;
        gd_point_free(&point);
        r->points_resimulated++;
    }
    int added = 0;
    if (gd_runner_add_stored(r, curve, x, index, total, &added, err) != 0)
        return -1;
    if (added)
        return 0;
    if (gd_runner_measure_point(r, curve, x, &point, err) != 0)
        return -1;
    return gd_runner_add_point(r, curve, &point, index, total, err);
}

int gd_runner_measure(gd_runner *r, gd_curve *curve, uint64_t x, size_t index, size_t total,
                      gd_err *err)
{
    return measure_one(r, curve, x, index, total, 0, err);
}

int gd_runner_measure_rebuilding(gd_runner *r, gd_curve *curve, uint64_t x, size_t index,
                                 size_t total, gd_err *err)
{
    return measure_one(r, curve, x, index, total, 1, err);
}
