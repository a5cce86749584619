/* fuzz_sim.c -- the simulator end to end: PTX parsed, loaded and launched.
 *
 * The bytes are a PTX module.  Its first kernel is loaded on sim:tiny and
 * launched on 2 CTAs of 64 threads, every 8-byte parameter pointing to one
 * 64 KiB global buffer (zeroed before each input), other parameters 0, with
 * 1 KiB of dynamic shared memory where the kernel declares it.  A small
 * watchdog (GPUDISSECT_SIM_MAX_CYCLES, set before the device opens) turns an
 * endless loop into an error.  Whatever the kernel does -- out-of-bounds
 * addresses near 2^64, a guarded last branch, INT64_MIN arithmetic,
 * conversions of huge doubles -- the launch either finishes or fails with one
 * line; the sanitizers watch the rest.
 */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/device_registry.h"
#include "sim/ptx.h"

#define FUZZ_SIM_MAX_CYCLES "50000" /* 0.1 s of the plain build, seconds under ASan */
#define FUZZ_SIM_BUFFER_BYTES (64u << 10)
#define FUZZ_SIM_MAX_PARAMS 16

static gd_device *fuzz_device(gd_devptr *buffer)
{
    static gd_device *dev;
    static gd_devptr buf;
    if (!dev) {
        gd_err err;
        setenv("GPUDISSECT_SIM_MAX_CYCLES", FUZZ_SIM_MAX_CYCLES, 1);
        if (gd_device_open("sim:tiny", NULL, &dev, &err) != 0 ||
            gd_mem_alloc(dev, FUZZ_SIM_BUFFER_BYTES, &buf, &err) != 0) {
            fprintf(stderr, "fuzz sim: %s\n", err.msg);
            abort();
        }
    }
    *buffer = buf;
    return dev;
}

int gd_fuzz_sim(const uint8_t *data, size_t size)
{
    char *text = gd_fuzz_text(data, size);
    ptx_module *m = NULL;
    gd_err err = {{0}};
    int rc = GD_FUZZ_REJECTED;
    if (ptx_parse(text, &m, &err) != 0) {
        rc = gd_fuzz_rejected(&err, "sim");
        goto out;
    }
    const ptx_kernel *pk = &m->kernels[0];
    if (pk->param_count > FUZZ_SIM_MAX_PARAMS) {
        ptx_module_free(m);
        goto out; /* not a launch the harness makes; the parser took it */
    }
    gd_devptr buf;
    gd_device *dev = fuzz_device(&buf);
    if (gd_mem_fill(dev, buf, 0, FUZZ_SIM_BUFFER_BYTES, &err) != 0)
        gd_fuzz_broken("sim", "the scratch buffer cannot be cleared");
    static uint8_t zeros[4096];
    const void *values[FUZZ_SIM_MAX_PARAMS];
    size_t sizes[FUZZ_SIM_MAX_PARAMS];
    for (uint32_t i = 0; i < pk->param_count; i++) {
        sizes[i] = pk->params[i].size;
        values[i] = pk->params[i].size == 8 ? (const void *)&buf : zeros;
        if (pk->params[i].size > sizeof zeros) {
            ptx_module_free(m);
            goto out;
        }
    }
    gd_launch l = {.grid = {2, 1, 1}, .block = {64, 1, 1},
                   .dynamic_shared_bytes = pk->uses_dynamic_shared ? 1024 : 0,
                   .param_count = pk->param_count, .param_values = values, .param_sizes = sizes};
    char entry[sizeof pk->name];
    memcpy(entry, pk->name, sizeof entry);
    ptx_module_free(m);
    gd_kernel *k = NULL;
    if (gd_kernel_load(dev, text, entry, NULL, &k, &err) != 0) {
        rc = gd_fuzz_rejected(&err, "sim");
        goto out;
    }
    if (gd_kernel_launch(dev, k, &l, &err) != 0 || gd_device_synchronize(dev, &err) != 0)
        rc = gd_fuzz_rejected(&err, "sim");
    else
        rc = GD_FUZZ_ACCEPTED;
    gd_kernel_unload(dev, k);
out:
    free(text);
    return rc;
}
