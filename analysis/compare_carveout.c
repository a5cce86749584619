/* compare_carveout.c -- the `l1-carveout` step's rows against the arch.
 *
 * The model of each row is the driver's rule (analysis/arch_carveout.c) on the
 * arch's unified storage and splits: a kernel without shared memory asking for
 * P% gets the smallest split at least P% of the largest, and the L1D the rest.
 * On an arch without unified storage every preference gives [L1D] size.  A card
 * whose driver rounds a preference to the *nearest* split rather than up shows
 * mismatches at the preferences between two splits, and a card with splits the
 * arch does not list shows sizes it does not predict: both are what this
 * comparison is for.
 */
#include "analysis/compare_carveout.h"

#include <stdio.h>

void gd_compare_carveout(json_t *params, gd_compare_counts *c, const gd_arch *arch,
                         const gd_run *run)
{
    const json_t *rows = run->inferred_doc ? json_object_get(run->inferred_doc, "l1d_by_carveout")
                                           : NULL;
    size_t i;
    const json_t *row;
    json_array_foreach(rows, i, row) {
        int percent = (int)json_integer_value(json_object_get(row, "carveout_percent"));
        double measured = (double)json_integer_value(json_object_get(row, "l1d_bytes"));
        gd_carveout_choice choice;
        gd_err ignored;
        if (gd_arch_carveout(arch, percent, 0, 1, &choice, &ignored) != 0)
            continue;
        char what[64];
        snprintf(what, sizeof what, "size_bytes at carveout %d%%", percent);
        gd_compare_add_parameter(params, c, "L1D", what, 1, measured, (double)choice.l1d_bytes,
                                 arch->level[GD_L1D].line_bytes, (double)choice.l1d_bytes,
                                 gd_arch_source_of(arch, "SMEM", "carveouts"));
    }
}
