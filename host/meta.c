/* meta.c -- provenance of a run, as results/RUN/meta.json. */
#include "host/meta.h"

#include <stdio.h>
#include <string.h>

#include "analysis/results.h"
#include "host/cuda_device.h"
#include "host/nvml.h"
#include "host/runner.h"
#include "host/topology.h"
#include "kernels/ptx_emit.h"

static int run_line(const char *cmd, char *buf, size_t size)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    char *ok = fgets(buf, (int)size, p);
    int rc = pclose(p);
    if (!ok || rc != 0)
        return -1;
    buf[strcspn(buf, "\n")] = 0;
    return 0;
}

void gd_git_revision(char *buf, size_t size)
{
    char rev[64], dirty[8];
    if (run_line("git -C '" GD_SOURCE_DIR "' rev-parse --short=12 HEAD 2>/dev/null", rev,
                 sizeof rev) != 0) {
        snprintf(buf, size, "unknown");
        return;
    }
    int is_dirty = run_line("git -C '" GD_SOURCE_DIR "' status --porcelain --untracked-files=no "
                            "2>/dev/null | head -c 1",
                            dirty, sizeof dirty) == 0 &&
                   dirty[0];
    snprintf(buf, size, "%s%s", rev, is_dirty ? "-dirty" : "");
}

static json_t *device_json(const gd_device_info *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "spec", json_string(d->spec));
    json_object_set_new(o, "backend", json_string(d->backend));
    json_object_set_new(o, "name", json_string(d->name));
    json_object_set_new(o, "arch", d->arch_name[0] ? json_string(d->arch_name) : json_null());
    json_object_set_new(o, "arch_file", d->arch_path[0] ? json_string(d->arch_path) : json_null());
    json_object_set_new(o, "sm_count", json_integer(d->sm_count));
    json_object_set_new(o, "subpartitions_per_sm", json_integer(d->subpartitions_per_sm));
    json_object_set_new(o, "sm_clock_mhz", json_real(d->clock_mhz));
    json_object_set_new(o, "l2_bytes", json_integer((json_int_t)d->l2_bytes));
    json_object_set_new(o, "global_mem_bytes", json_integer((json_int_t)d->global_mem_bytes));
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
    json_object_set_new(o, "compute_capability", json_string(cc));
    /* what the probes' PTX is written for (a newer GPU than the table knows:
     * an older target the driver JIT-compiles forward, and the note says so) */
    gd_ptx_target target;
    gd_ptx_target_for_cc(d->cc_major, d->cc_minor, &target);
    char target_name[16], isa[16];
    snprintf(target_name, sizeof target_name, "sm_%d", target.sm);
    snprintf(isa, sizeof isa, "%d.%d", target.isa_x10 / 10, target.isa_x10 % 10);
    json_object_set_new(o, "ptx_target", json_string(target_name));
    json_object_set_new(o, "ptx_version", json_string(isa));
    json_object_set_new(o, "ptx_target_note",
                        target.fallback ? json_string(target.note) : json_null());
    json_object_set_new(o, "driver_version",
                        d->driver_version ? json_integer(d->driver_version) : json_null());
    json_object_set_new(o, "cuda_toolkit_version",
                        d->toolkit_version ? json_integer(d->toolkit_version) : json_null());
    json_object_set_new(o, "pci_bus_id", d->pci_bus_id[0] ? json_string(d->pci_bus_id) : json_null());
    return o;
}

void gd_meta_add_device_state(json_t *meta, gd_device *dev)
{
    const gd_device_info *info = gd_device_get_info(dev);
    /* NVML: the clocks, throttling and modes the numbers were measured under
     * (a cuda device); a sim device has its clock in the arch file. */
    if (strcmp(info->backend, "cuda") == 0) {
        json_object_set_new(meta, "nvml", gd_nvml_describe(info->pci_bus_id));
        /* the display watchdog: long points are spread over launches (runner.c) */
        int watchdog = 0;
        json_t *w = json_object();
        json_object_set_new(w, "kernel_exec_timeout",
                            cuda_device_watchdog(dev, &watchdog) == 0 ? json_boolean(watchdog)
                                                                      : json_null());
        json_object_set_new(w, "launch_budget_s", json_real(GD_WATCHDOG_LAUNCH_BUDGET_S));
        json_object_set_new(w, "worst_access_cycles", json_integer(GD_WATCHDOG_WORST_ACCESS_CYCLES));
        json_object_set_new(meta, "watchdog", w);
    } else {
        json_t *none = json_object();
        json_object_set_new(none, "available", json_false());
        json_object_set_new(none, "reason", json_string("not applicable: a simulated device"));
        json_object_set_new(meta, "nvml", none);
    }
}

json_t *gd_meta_new(gd_device *dev, int argc, char **argv, gd_err *err)
{
    const gd_device_info *info = gd_device_get_info(dev);
    json_t *meta = json_object();
    if (!meta) {
        gd_fail(err, "out of memory");
        return NULL;
    }
    json_object_set_new(meta, "tool", json_string("gpudissect"));
    json_object_set_new(meta, "version", json_string(GD_VERSION));
    char rev[80];
    gd_git_revision(rev, sizeof rev);
    json_object_set_new(meta, "git_revision", json_string(rev));
    json_t *cmd = json_array();
    for (int i = 0; i < argc; i++)
        json_array_append_new(cmd, json_string(argv[i]));
    json_object_set_new(meta, "command_line", cmd);
    char now[32];
    gd_iso8601_now(now, sizeof now);
    json_object_set_new(meta, "start_time", json_string(now));
    json_object_set_new(meta, "end_time", json_null());
    json_object_set_new(meta, "device", device_json(info));
#ifdef GD_HAVE_CUDA
    json_object_set_new(meta, "built_with_cuda_headers", json_true());
#else
    json_object_set_new(meta, "built_with_cuda_headers", json_false());
#endif
    gd_meta_add_device_state(meta, dev);
    json_t *topo = gd_topology_describe(info->pci_bus_id, err);
    json_object_set_new(meta, "host", topo ? topo : json_null());
    json_object_set_new(meta, "probes", json_array());
    return meta;
}

int gd_meta_write(const json_t *meta, const char *dir, gd_err *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/meta.json", dir);
    return gd_write_json_atomic(path, meta, err);
}

int gd_meta_finish(json_t *meta, gd_device *dev, const char *dir, gd_err *err)
{
    char now[32];
    gd_iso8601_now(now, sizeof now);
    json_object_set_new(meta, "end_time", json_string(now));
    /* Read again: a clock that boosted or throttled during the run shows here. */
    const gd_device_info *info = gd_device_get_info(dev);
    if (strcmp(info->backend, "cuda") == 0)
        json_object_set_new(meta, "nvml_at_end", gd_nvml_describe(info->pci_bus_id));
    gd_counter_list counters = {0};
    if (gd_device_counters(dev, &counters, err) != 0)
        return -1;
    json_t *c = json_object();
    for (size_t i = 0; i < counters.count; i++)
        json_object_set_new(c, counters.items[i].name, json_real(counters.items[i].value));
    gd_counter_list_free(&counters);
    json_object_set_new(meta, "counters", c);
    /* a cuda device: whether CUPTI counted, or why not */
    const char *note = cuda_device_counters_note(dev);
    if (note)
        json_object_set_new(meta, "cupti",
                            json_string(note[0] ? note : "counters collected (CUPTI range profiler)"));
    return gd_meta_write(meta, dir, err);
}

void gd_meta_set_carveout(json_t *meta, int carveout_percent, json_t *kernels)
{
    json_object_set_new(meta, "carveout_percent", json_integer(carveout_percent));
    if (kernels)
        json_object_set(meta, "kernels", kernels);
}
