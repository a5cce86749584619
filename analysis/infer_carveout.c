/* infer_carveout.c -- what the `l1-carveout` step reads off its curves.
 *
 * The step (host/characterize.c, suite option --carveout P1,P2,...) runs the
 * same p-chase over the L1's range once per carve-out preference, on a kernel
 * without shared memory, so the driver gives each launch the split its
 * preference rounds to and nothing else: the L1D capacity of that split is the
 * knee after the first plateau, read exactly as the footprint p-chase reads
 * the L1D (gd_infer_pchase).  Preferences whose neighbours in the list show the
 * same capacity are not run (the capacity is monotone in the preference), so a
 * GPU with a fixed L1 costs two curves.
 * compare_carveout.c holds each row against the arch's driver rule.
 */
#include "analysis/infer_carveout.h"

#include <stdio.h>
#include <string.h>

#include "analysis/infer.h"

int gd_infer_carveout_l1d(const gd_curve *curve, const gd_segmentation *seg,
                          uint64_t l2_bytes_hint, uint64_t *l1d_bytes, double *confidence,
                          gd_err *err)
{
    gd_inference inf;
    memset(&inf, 0, sizeof inf);
    if (gd_infer_pchase(&inf, curve, seg, 0, l2_bytes_hint, err) != 0)
        return -1;
    const gd_inferred_level *l1 = &inf.level[GD_INF_L1D];
    if (!l1->present || !l1->has_size || l1->size_is_lower_bound)
        return gd_fail(err, "%s: no L1D knee within the sweep", curve->label);
    *l1d_bytes = l1->size_bytes;
    *confidence = l1->size_confidence;
    return 0;
}

json_t *gd_carveout_row(int percent, uint64_t l1d_bytes, double confidence, const char *curve)
{
    json_t *row = json_object();
    json_object_set_new(row, "carveout_percent", json_integer(percent));
    json_object_set_new(row, "l1d_bytes", json_integer((json_int_t)l1d_bytes));
    json_object_set_new(row, "confidence", json_real(confidence));
    json_object_set_new(row, "curve", json_string(curve));
    return row;
}
