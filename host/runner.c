/* runner.c -- plan, fill, launch, copy back, decode, summarize; one point at a time.
 *
 * See runner.h.  The kernel of the previous point is kept while the probe emits
 * the same PTX (a p-chase sweep passes the footprint as a kernel argument, so a
 * whole sweep JITs once on a GPU).
 */
#include "host/runner.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/arch.h"
#include "analysis/results.h"
#include "host/kernel_record.h"

/* ------------------------------------------------------------------------- */
/* Sweeps                                                                    */

static int sweep_add(gd_sweep *s, size_t *cap, uint64_t v)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->points[i] == v)
            return 0;
    if (s->count == *cap) {
        size_t nc = *cap ? *cap * 2 : 32;
        uint64_t *np = realloc(s->points, nc * sizeof *np);
        if (!np)
            return -1;
        s->points = np;
        *cap = nc;
    }
    s->points[s->count++] = v;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t snap(uint64_t v, uint64_t g)
{
    uint64_t s = (v + g / 2) / g * g;
    return s < g ? g : s;
}

#define SWEEP_MAX_POINTS 100000

int gd_sweep_parse(const char *spec, uint64_t granularity, gd_sweep *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    if (!granularity)
        granularity = 1;
    char buf[128];
    if (snprintf(buf, sizeof buf, "%s", spec) >= (int)sizeof buf)
        return gd_fail(err, "sweep '%s': too long", spec);
    char *parts[3] = {buf, NULL, NULL};
    int n = 1;
    for (char *p = buf; *p && n < 4; p++) {
        if (*p == ':') {
            if (n == 3)
                return gd_fail(err, "sweep '%s': expected FROM:TO[:STEPS]", spec);
            *p = 0;
            parts[n++] = p + 1;
        }
    }
    if (n < 2)
        return gd_fail(err, "sweep '%s': expected FROM:TO[:STEPS] (e.g. 1KiB:8MiB)", spec);
    uint64_t from, to;
    if (gd_parse_bytes(parts[0], &from) || gd_parse_bytes(parts[1], &to))
        return gd_fail(err, "sweep '%s': FROM and TO must be sizes like 1KiB or 8MiB", spec);
    if (from == 0 || to < from)
        return gd_fail(err, "sweep '%s': need 0 < FROM <= TO", spec);
    size_t cap = 0;
    int rc = 0;
    if (n == 2) {
        for (uint64_t v = from; v <= to && rc == 0; v *= 2) {
            rc = sweep_add(out, &cap, snap(v, granularity));
            if (v > UINT64_MAX / 2)
                break;
        }
        if (rc == 0)
            rc = sweep_add(out, &cap, snap(to, granularity));
    } else if (parts[2][0] == '+') {
        uint64_t step;
        if (gd_parse_bytes(parts[2] + 1, &step) || step == 0)
            return gd_fail(err, "sweep '%s': +STEP must be a positive size", spec);
        if ((to - from) / step + 1 > SWEEP_MAX_POINTS)
            return gd_fail(err, "sweep '%s': more than %d points", spec, SWEEP_MAX_POINTS);
        for (uint64_t v = from; v <= to && rc == 0; v += step)
            rc = sweep_add(out, &cap, snap(v, granularity));
    } else {
        char *end;
        errno = 0;
        unsigned long steps = strtoul(parts[2], &end, 10);
        if (*end || errno || steps < 2 || steps > SWEEP_MAX_POINTS)
            return gd_fail(err, "sweep '%s': STEPS must be a number of points, 2..%d", spec,
                           SWEEP_MAX_POINTS);
        double ratio = pow((double)to / (double)from, 1.0 / (double)(steps - 1));
        for (unsigned long i = 0; i < steps && rc == 0; i++) {
            double v = (double)from * pow(ratio, (double)i);
            rc = sweep_add(out, &cap, snap(i + 1 == steps ? to : (uint64_t)llround(v), granularity));
        }
    }
    if (rc != 0) {
        gd_sweep_free(out);
        return gd_fail(err, "sweep: out of memory");
    }
    qsort(out->points, out->count, sizeof *out->points, cmp_u64);
    return 0;
}

void gd_sweep_free(gd_sweep *sweep)
{
    free(sweep->points);
    memset(sweep, 0, sizeof *sweep);
}

/* ------------------------------------------------------------------------- */
/* Counters                                                                  */

/* out = after - before for every running total, plus the coalescer's requests
 * and sectors per memory instruction over the point. */
static int counters_delta(const gd_counter_list *before, const gd_counter_list *after,
                          gd_counter_list *out)
{
    for (size_t i = 0; i < after->count; i++) {
        const gd_counter *c = &after->items[i];
        if (!c->gauge &&
            gd_counter_list_add(out, c->name, c->value - gd_counter_list_get(before, c->name, 0)) !=
                0)
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

static void runner_unload(gd_runner *runner)
{
    if (runner->kernel)
        gd_kernel_unload(runner->dev, runner->kernel);
    free(runner->kernel_ptx);
    runner->kernel = NULL;
    runner->kernel_ptx = NULL;
    runner_unload_spare(runner);
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
    runner_unload(runner);
    json_decref(runner->kernels);
    runner->kernels = NULL;
}

static int runner_kernel(gd_runner *r, const gd_probe_plan *plan, gd_err *err)
{
    gd_load_opts load = plan->load;
    load.carveout_percent = r->carveout_percent;
    if (same_kernel(r->kernel, r->kernel_ptx, &r->kernel_load, plan, &load))
        return 0;
    /* the one before becomes the spare; the spare before it goes */
    gd_kernel *k = r->spare_kernel;
    char *ptx = r->spare_ptx;
    gd_load_opts had = r->spare_load;
    r->spare_kernel = r->kernel;
    r->spare_ptx = r->kernel_ptx;
    r->spare_load = r->kernel_load;
    r->kernel = k;
    r->kernel_ptx = ptx;
    r->kernel_load = had;
    if (same_kernel(r->kernel, r->kernel_ptx, &r->kernel_load, plan, &load))
        return 0;
    if (r->kernel)
        gd_kernel_unload(r->dev, r->kernel);
    free(r->kernel_ptx);
    r->kernel = NULL;
    r->kernel_ptx = NULL;
    if (gd_kernel_load(r->dev, plan->ptx, plan->entry, &load, &r->kernel, err) != 0) {
        r->kernel = NULL;
        return -1;
    }
    r->kernel_load = load;
    r->kernel_ptx = strdup(plan->ptx);
    if (!r->kernel_ptx)
        return gd_fail(err, "out of memory");
    return 0;
}

static int measure_plan(gd_runner *r, const gd_probe *probe, const char *label, uint64_t x,
                        gd_probe_plan *plan, gd_probe_result *result, gd_err *err)
{
    gd_device *dev = r->dev;
    gd_devptr addr[GD_PROBE_MAX_BUFFERS] = {0};
    void *host[GD_PROBE_MAX_BUFFERS] = {0};
    int allocated[GD_PROBE_MAX_BUFFERS] = {0};
    int rc = -1;

    if (runner_kernel(r, plan, err) != 0)
        goto out;
    for (unsigned i = 0; i < plan->buffer_count; i++) {
        if (plan->buffers[i].symbol)
            continue;
        if (gd_mem_alloc(dev, plan->buffers[i].bytes, &addr[i], err) != 0)
            goto out;
        allocated[i] = 1;
    }
    for (unsigned i = 0; i < plan->buffer_count; i++) {
        const gd_probe_buffer *b = &plan->buffers[i];
        if (b->host_fill) {
            host[i] = calloc(1, b->bytes);
            if (!host[i]) {
                gd_fail(err, "out of memory for buffer %s", b->name);
                goto out;
            }
            if (probe->fill(plan, i, addr, host[i], err) != 0)
                goto out;
            if (b->symbol ? gd_symbol_write(dev, r->kernel, b->symbol, host[i], b->bytes, err)
                          : gd_mem_copy_in(dev, addr[i], host[i], b->bytes, err))
                goto out;
        } else if (b->symbol) {
            gd_fail(err, "%s: buffer %s names module variable %s but is not host-filled",
                    probe->name, b->name, b->symbol);
            goto out;
        } else if (gd_mem_fill(dev, addr[i], 0, b->bytes, err) != 0) {
            goto out;
        }
    }
    uint64_t values[GD_PROBE_MAX_PARAMS];
    const void *value_ptrs[GD_PROBE_MAX_PARAMS];
    size_t sizes[GD_PROBE_MAX_PARAMS];
    uint32_t u32s[GD_PROBE_MAX_PARAMS];
    for (unsigned i = 0; i < plan->param_count; i++) {
        const gd_probe_param *p = &plan->params[i];
        switch (p->kind) {
        case GD_PARAM_BUFFER:
            if (p->buffer >= plan->buffer_count) {
                gd_fail(err, "%s: parameter %u names buffer %u of %u", probe->name, i, p->buffer,
                        plan->buffer_count);
                goto out;
            }
            if (plan->buffers[p->buffer].symbol) {
                gd_fail(err, "%s: parameter %u passes module variable %s", probe->name, i,
                        plan->buffers[p->buffer].symbol);
                goto out;
            }
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
    if (gd_kernel_launch(dev, r->kernel, &launch, err) != 0 || gd_device_synchronize(dev, err) != 0)
        goto out;
    if (r->kernels && gd_kernel_record_add(r->kernels, label, probe->name, r->kernel,
                                           r->carveout_percent, plan->dynamic_shared_bytes, x,
                                           err) != 0)
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
    if (probe->decode(plan, addr, decode_bufs, result, err) != 0)
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

int gd_runner_measure(gd_runner *r, gd_curve *curve, uint64_t x, size_t index, size_t total,
                      gd_err *err)
{
    const gd_probe *probe = curve->probe;
    gd_probe_plan plan;
    gd_probe_result result;
    memset(&result, 0, sizeof result);
    char xs[32];
    gd_format_sweep_value(probe, x, xs, sizeof xs);
    if (probe->plan(&curve->opts, gd_device_get_info(r->dev), x, &plan, err) != 0)
        return gd_fail_prefix(err, "%s %s=%llu", curve->label, probe->sweep_name,
                              (unsigned long long)x);
    gd_counter_list before = {0}, after = {0};
    int rc = gd_device_counters(r->dev, &before, err);
    if (rc == 0)
        rc = measure_plan(r, probe, curve->label, x, &plan, &result, err);
    if (rc == 0)
        rc = gd_device_counters(r->dev, &after, err);
    gd_probe_plan_free(probe, &plan);
    gd_point point;
    memset(&point, 0, sizeof point);
    point.x = x;
    if (rc == 0 && counters_delta(&before, &after, &point.counters) != 0)
        rc = gd_fail(err, "out of memory");
    gd_counter_list_free(&before);
    gd_counter_list_free(&after);
    if (rc != 0) {
        gd_counter_list_free(&point.counters);
        gd_probe_result_free(&result);
        return gd_fail_prefix(err, "%s %s=%llu", curve->label, probe->sweep_name,
                              (unsigned long long)x);
    }
    for (unsigned s = 0; s < result.series_count; s++) {
        gd_point_series *ps = &point.series[point.series_count++];
        snprintf(ps->name, sizeof ps->name, "%s", result.series[s].name);
        if (gd_summarize(result.series[s].samples, result.series[s].count, &ps->summary) != 0) {
            gd_point_free(&point);
            gd_probe_result_free(&result);
            return gd_fail(err, "out of memory");
        }
        ps->samples = result.series[s].samples; /* take ownership */
        result.series[s].samples = NULL;
    }
    gd_probe_result_free(&result);
    if (gd_curve_insert(curve, &point) != 0) {
        gd_point_free(&point);
        return gd_fail(err, "out of memory");
    }
    r->points_measured++;
    if (r->progress) {
        const gd_point *p = gd_curve_find(curve, x);
        int k = p ? gd_point_series_index(p, gd_probe_primary_series(probe)) : -1;
        double median = k >= 0 ? p->series[k].summary.median : NAN;
        char ms[32];
        snprintf(ms, sizeof ms, fabs(median) >= 100 ? "%.1f" : "%.3g", median);
        if (total)
            fprintf(r->progress, "[%zu/%zu] %s %s=%s: median %s %s\n", index + 1, total,
                    curve->label, probe->sweep_name, xs, ms, probe->value_unit);
        else
            fprintf(r->progress, "[%zu] %s %s=%s: median %s %s\n", index + 1, curve->label,
                    probe->sweep_name, xs, ms, probe->value_unit);
        fflush(r->progress);
    }
    if (r->out_dir[0] && gd_curve_write_csv(curve, r->out_dir, err) != 0)
        return -1;
    return 0;
}

int gd_runner_sweep(gd_runner *r, gd_curve *curve, const gd_sweep *sweep, gd_err *err)
{
    for (size_t i = 0; i < sweep->count; i++)
        if (gd_runner_measure(r, curve, sweep->points[i], i, sweep->count, err) != 0)
            return -1;
    return 0;
}
