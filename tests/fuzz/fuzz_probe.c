/* fuzz_probe.c -- every probe's options, as `run`/`emit` take them, planned.
 *
 * The bytes are lines KEY=VALUE: probe (by name, or a number picking one from
 * the registry), stride, footprint, samples, pattern, seed, variant, point,
 * parsed with the CLI's own rules (sizes with units, strict numbers).  The
 * probe plans that point for sim:tiny's device description.  An accepted plan
 * must be runnable: its PTX (up to 1 MiB) is parsed by the simulator's front end (a probe
 * that emits PTX the simulator refuses is a bug of one or the other), its
 * geometry is non-empty, and its buffers can be filled (those up to 16 MiB:
 * a larger one is a real allocation, not the parser's business).
 */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/arch.h"
#include "host/cli_number.h"
#include "host/device_registry.h"
#include "kernels/probe.h"
#include "sim/ptx.h"

#define FUZZ_PROBE_FILL_MAX_BYTES (16u << 20)
#define FUZZ_PROBE_PARSE_MAX_BYTES (1u << 20)

static const gd_device_info *fuzz_info(void)
{
    static gd_device *dev;
    if (!dev) {
        gd_err err;
        if (gd_device_open("sim:tiny", NULL, &dev, &err) != 0) {
            fprintf(stderr, "fuzz probe: %s\n", err.msg);
            abort();
        }
    }
    return gd_device_get_info(dev);
}

/* One KEY=VALUE line into the options; -1 with err on a value the CLI refuses. */
static int apply_line(char *line, const gd_probe **probe, gd_probe_opts *o, uint64_t *point,
                      gd_err *err)
{
    char *eq = strchr(line, '=');
    if (!eq)
        return gd_fail(err, "expected KEY=VALUE");
    *eq = 0;
    const char *key = line, *val = eq + 1;
    uint64_t v;
    if (!strcmp(key, "probe")) {
        size_t n;
        const gd_probe *const *all = gd_probe_list(&n);
        *probe = gd_probe_find(val);
        if (!*probe && gd_cli_u64(val, 0, UINT64_MAX, &v) == 0 && n)
            *probe = all[v % n];
        return *probe ? 0 : gd_fail(err, "unknown probe");
    }
    if (!strcmp(key, "stride") || !strcmp(key, "footprint") || !strcmp(key, "point")) {
        if (gd_parse_bytes(val, &v) || (v == 0 && strcmp(key, "point")))
            return gd_fail(err, "--%s must be a size in bytes", key);
        if (!strcmp(key, "stride"))
            o->stride_bytes = v;
        else if (!strcmp(key, "footprint"))
            o->footprint_bytes = v;
        else
            *point = v;
        return 0;
    }
    if (!strcmp(key, "samples")) {
        if (gd_cli_u64(val, 1, 1u << 20, &v))
            return gd_fail(err, "--samples must be a number 1..1048576");
        o->samples = (uint32_t)v;
        return 0;
    }
    if (!strcmp(key, "seed"))
        return gd_cli_u64(val, 0, UINT64_MAX, &o->seed) ? gd_fail(err, "--seed must be a number") : 0;
    if (!strcmp(key, "pattern")) {
        o->random_order = !strcmp(val, "random");
        return o->random_order || !strcmp(val, "seq") ? 0 : gd_fail(err, "--pattern seq|random");
    }
    if (!strcmp(key, "variant")) {
        if (strlen(val) >= sizeof o->variant)
            return gd_fail(err, "--variant too long");
        snprintf(o->variant, sizeof o->variant, "%s", val);
        return 0;
    }
    return gd_fail(err, "unknown option");
}

int gd_fuzz_probe(const uint8_t *data, size_t size)
{
    char *text = gd_fuzz_text(data, size);
    const gd_probe *probe = NULL;
    gd_probe_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.seed = 1;
    uint64_t point = 0;
    gd_err err = {{0}};
    int rc = GD_FUZZ_ACCEPTED;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save))
        if (apply_line(line, &probe, &opts, &point, &err) != 0) {
            rc = gd_fuzz_rejected(&err, "probe");
            goto out;
        }
    if (!probe)
        probe = gd_probe_find("pchase");
    if (!point)
        point = probe->example_point ? probe->example_point : 1024;
    gd_probe_plan plan;
    memset(&plan, 0, sizeof plan);
    if (probe->plan(&opts, fuzz_info(), point, &plan, &err) != 0) {
        rc = gd_fuzz_rejected(&err, "probe");
        gd_probe_plan_free(probe, &plan);
        goto out;
    }
    if (!plan.ptx || !plan.grid[0] || !plan.block[0] || plan.buffer_count > GD_PROBE_MAX_BUFFERS ||
        plan.param_count > GD_PROBE_MAX_PARAMS)
        gd_fuzz_broken("probe", "a plan without PTX or geometry");
    ptx_module *m = NULL;
    /* a point of megabytes of code (icache_seq --point 8MiB: 20 MB of PTX) parses
     * in a second here, but in minutes under ASan and libFuzzer's strcmp hooks */
    if (strlen(plan.ptx) <= FUZZ_PROBE_PARSE_MAX_BYTES && ptx_parse(plan.ptx, &m, &err) != 0) {
        fprintf(stderr, "fuzz probe: %s emits PTX the simulator refuses: %s\n", probe->name, err.msg);
        abort();
    }
    ptx_module_free(m);
    gd_devptr addresses[GD_PROBE_MAX_BUFFERS] = {0};
    for (unsigned b = 0; b < plan.buffer_count; b++)
        addresses[b] = 0x7f0000000000ull + (uint64_t)b * (1ull << 32);
    for (unsigned b = 0; b < plan.buffer_count; b++) {
        if (!plan.buffers[b].host_fill || !probe->fill || plan.buffers[b].bytes > FUZZ_PROBE_FILL_MAX_BYTES)
            continue;
        void *host = calloc(1, plan.buffers[b].bytes ? plan.buffers[b].bytes : 1);
        if (!host)
            abort();
        gd_err fill_err = {{0}};
        if (probe->fill(&plan, b, addresses, host, &fill_err) != 0)
            gd_fuzz_rejected(&fill_err, "probe");
        free(host);
    }
    gd_probe_plan_free(probe, &plan);
out:
    free(text);
    return rc;
}
