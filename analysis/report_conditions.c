/* report_conditions.c -- the "Run conditions" section of report.md (report_conditions.h).
 *
 * Three things from meta.json, each optional:
 *   sm_clock_mhz   per curve, the lowest and highest effective SM clock of its
 *                  points (host/runner.c; %clock64 against %globaltimer);
 *   nvml, nvml_at_end   NVML's view at the start and end (host/nvml.c);
 *   jit_checks     per JIT-compiled kernel, the run-time machine-code check
 *                  (host/jit_check.c): verdict, hash, what was not checked.
 */
#include "analysis/report_conditions.h"

#include <math.h>
#include <string.h>

static void put_clock_lines(gd_text *t, const json_t *clocks)
{
    const char *label;
    json_t *c;
    json_object_foreach((json_t *)clocks, label, c)
    {
        double lo = json_number_value(json_object_get(c, "min"));
        double hi = json_number_value(json_object_get(c, "max"));
        json_int_t n = json_integer_value(json_object_get(c, "points"));
        gd_text_printf(t, "- Effective SM clock of ");
        report_md_code(t, label);
        gd_text_printf(t, ": %.6g–%.6g MHz over %lld points\n", lo, hi, (long long)n);
        if (lo > 0 && (hi - lo) / lo > REPORT_CLOCK_MOVED_FRACTION)
            gd_text_printf(t, "  - **Warning: the SM clock moved by %.1f%% during this curve**; "
                              "latencies in cycles of different points are not comparable "
                              "(fix the clocks, e.g. `nvidia-smi -lgc`, and run it again)\n",
                           100.0 * (hi - lo) / lo);
    }
}

static void put_nvml_line(gd_text *t, const char *when, const json_t *nvml)
{
    if (!nvml)
        return;
    gd_text_printf(t, "- NVML %s: ", when);
    if (!json_is_true(json_object_get(nvml, "available"))) {
        const char *reason = report_get_string(nvml, "reason");
        report_md_text(t, reason ? reason : "not available");
        gd_text_printf(t, "\n");
        return;
    }
    const json_t *clocks = report_get_object(nvml, "clocks_mhz");
    gd_text_printf(t, "SM clock ");
    report_put_value(t, json_object_get(clocks, "sm"));
    gd_text_printf(t, " of ");
    report_put_value(t, json_object_get(clocks, "sm_max"));
    gd_text_printf(t, " MHz, memory clock ");
    report_put_value(t, json_object_get(clocks, "memory"));
    gd_text_printf(t, " MHz; throttle reasons: ");
    const json_t *reasons = json_object_get(nvml, "throttle_reasons");
    if (json_is_array(reasons)) {
        if (json_array_size(reasons) == 0)
            gd_text_printf(t, "none");
        for (size_t i = 0; i < json_array_size(reasons); i++) {
            gd_text_printf(t, i ? ", " : "");
            report_put_value(t, json_array_get(reasons, i));
        }
    } else {
        report_put_value(t, reasons);
    }
    gd_text_printf(t, "; ECC ");
    const json_t *ecc = json_object_get(nvml, "ecc");
    report_put_value(t, json_is_object(ecc) ? json_object_get(ecc, "current") : ecc);
    gd_text_printf(t, "; MIG ");
    const json_t *mig = json_object_get(nvml, "mig_mode");
    report_put_value(t, json_is_object(mig) ? json_object_get(mig, "current") : mig);
    gd_text_printf(t, "; persistence ");
    report_put_value(t, json_object_get(nvml, "persistence_mode"));
    gd_text_printf(t, "; compute mode ");
    report_put_value(t, json_object_get(nvml, "compute_mode"));
    gd_text_printf(t, "; MPS daemon ");
    report_put_value(t, json_object_get(report_get_object(nvml, "mps"), "control_daemon_running"));
    gd_text_printf(t, "\n");
}

static void put_kernels(gd_text *t, const json_t *kernels)
{
    gd_text_printf(t, "\n| probe | entry | machine code | code range | intended instructions | "
                      "timed-region order | cubin (FNV-1a 64) |\n|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < json_array_size(kernels); i++) {
        const json_t *k = json_array_get(kernels, i);
        static const char *const keys[] = {"probe", "entry", "machine_code", "code_range",
                                           "intended_instructions", "timed_region_order",
                                           "jit_cubin_fnv1a64"};
        gd_text_printf(t, "|");
        for (size_t j = 0; j < sizeof keys / sizeof keys[0]; j++) {
            gd_text_printf(t, " ");
            const char *v = report_get_string(k, keys[j]);
            if (j == 0 || j == 1 || j == 6)
                report_md_code(t, v ? v : REPORT_MISSING);
            else
                report_md_text(t, v ? v : REPORT_MISSING);
            gd_text_printf(t, " |");
        }
        gd_text_printf(t, "\n");
    }
}

void report_put_conditions(gd_text *t, const json_t *meta)
{
    const json_t *clocks = report_get_object(meta, "sm_clock_mhz");
    const json_t *nvml = report_get_object(meta, "nvml");
    const json_t *nvml_end = report_get_object(meta, "nvml_at_end");
    const json_t *kernels = meta ? json_object_get(meta, "jit_checks") : NULL;
    int have_kernels = json_is_array(kernels) && json_array_size(kernels) > 0;
    const char *cupti = report_get_string(meta, "cupti");
    if (!clocks && !nvml && !nvml_end && !have_kernels && !cupti)
        return;
    gd_text_printf(t, "## Run conditions\n\n");
    if (clocks)
        put_clock_lines(t, clocks);
    put_nvml_line(t, "at the start", nvml);
    put_nvml_line(t, "at the end", nvml_end);
    if (cupti) {
        gd_text_printf(t, "- Hardware counters: ");
        report_md_text(t, cupti);
        gd_text_printf(t, "\n");
    }
    if (have_kernels)
        put_kernels(t, kernels);
    gd_text_printf(t, "\n");
}
