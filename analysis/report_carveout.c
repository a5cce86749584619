/* report_carveout.c -- the report's "L1/shared carve-out" section.
 *
 * Since Volta the L1D and shared memory share one storage, split per kernel,
 * so what a probe measured of the L1 depends on the split its kernel got.  The
 * section says what the run asked (the preference set on every kernel), what
 * each kernel asked of an SM (shared memory, registers: a kernel with shared
 * memory may get less L1 than one without), where the device knows it the L1D
 * each launch got, and the L1D per preference the `l1-carveout` step measured.
 */
#include "analysis/report_carveout.h"

#include "analysis/report_tables.h"

static void put_kernels(gd_text *t, const json_t *kernels)
{
    gd_text_printf(t, "| curve | kernel | carve-out asked / set | static shared | dynamic "
                      "shared | registers | L1D of the launch | points |\n"
                      "| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    size_t i;
    const json_t *k;
    json_array_foreach(kernels, i, k) {
        gd_text_printf(t, "| ");
        report_put_value(t, json_object_get(k, "curve"));
        gd_text_printf(t, " | ");
        report_md_code(t, report_get_string(k, "entry") ? report_get_string(k, "entry") : "?");
        gd_text_printf(t, " | ");
        report_put_value(t, json_object_get(k, "carveout_percent_asked"));
        gd_text_printf(t, "%% / ");
        report_put_value(t, json_object_get(k, "carveout_percent"));
        gd_text_printf(t, "%% | ");
        report_put_bytes(t, json_object_get(k, "static_shared_bytes"), " B");
        gd_text_printf(t, " | ");
        report_put_bytes(t, json_object_get(k, "dynamic_shared_bytes"), " B");
        gd_text_printf(t, " | ");
        json_t *regs = json_object_get(k, "registers_per_thread");
        if (json_is_integer(regs) && json_integer_value(regs) < 0)
            gd_text_printf(t, "%s", REPORT_MISSING);
        else
            report_put_value(t, regs);
        gd_text_printf(t, " | ");
        json_t *l1 = json_object_get(k, "launch_l1d_bytes");
        if (json_is_integer(l1) && json_integer_value(l1) == 0)
            gd_text_printf(t, "%s", REPORT_MISSING);
        else
            report_put_bytes(t, l1, " B");
        gd_text_printf(t, " | ");
        report_put_value(t, json_object_get(k, "points"));
        gd_text_printf(t, " |\n");
    }
    gd_text_printf(t, "\n");
}

void report_put_carveout(gd_text *t, const json_t *meta, const json_t *inferred)
{
    const json_t *percent = json_object_get(meta, "carveout_percent");
    const json_t *kernels = json_object_get(meta, "kernels");
    const json_t *rows = inferred ? json_object_get(inferred, "l1d_by_carveout") : NULL;
    if (!json_is_integer(percent) && !json_is_array(kernels))
        return;
    gd_text_printf(t, "## L1/shared carve-out\n\nEvery kernel was given the preferred "
                      "carve-out ");
    report_put_value(t, percent);
    gd_text_printf(t, "%% (percent of the largest shared memory; 0 = the most L1).  A kernel "
                      "with shared memory may get a smaller L1 than one without; \"L1D of the "
                      "launch\" is known on simulated devices only.\n\n");
    if (json_is_array(kernels) && json_array_size(kernels))
        put_kernels(t, kernels);
    if (json_is_array(rows) && json_array_size(rows)) {
        gd_text_printf(t, "L1D per carve-out preference (`l1-carveout`: the p-chase without "
                          "shared memory at each preference):\n\n"
                          "| preference | L1D | confidence | curve |\n| --- | --- | --- | --- |\n");
        size_t i;
        const json_t *r;
        json_array_foreach(rows, i, r) {
            gd_text_printf(t, "| ");
            report_put_value(t, json_object_get(r, "carveout_percent"));
            gd_text_printf(t, "%% | ");
            report_put_bytes(t, json_object_get(r, "l1d_bytes"), " B");
            gd_text_printf(t, " | ");
            report_put_value(t, json_object_get(r, "confidence"));
            gd_text_printf(t, " | ");
            report_put_value(t, json_object_get(r, "curve"));
            gd_text_printf(t, " |\n");
        }
        gd_text_printf(t, "\n");
    }
}
