/* report_carveout.h -- report.md's "L1/shared carve-out" section (report_carveout.c). */
#ifndef GD_ANALYSIS_REPORT_CARVEOUT_H
#define GD_ANALYSIS_REPORT_CARVEOUT_H

#include <jansson.h>

#include "analysis/results.h"

/* The preference the run set on every kernel, what each kernel asked of an SM
 * (meta.json "carveout_percent", "kernels") and the L1D per carve-out the
 * `l1-carveout` step measured (inferred.json "l1d_by_carveout").  Nothing when
 * meta.json has none of it (a run from before carve-outs were recorded). */
void report_put_carveout(gd_text *t, const json_t *meta, const json_t *inferred);

#endif
