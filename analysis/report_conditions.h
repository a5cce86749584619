/* report_conditions.h -- internal to report.md: the "Run conditions" section.
 *
 * What the numbers were measured under, from meta.json: the effective SM clock
 * of each curve (and a warning when it moved by more than
 * REPORT_CLOCK_MOVED_FRACTION during one), NVML's clocks, throttle reasons and
 * modes at the start and the end of the run (or why NVML was not there), and
 * the machine-code verdict of every kernel the driver JIT-compiled.  All
 * optional: a section is only as full as meta.json.
 */
#ifndef GD_ANALYSIS_REPORT_CONDITIONS_H
#define GD_ANALYSIS_REPORT_CONDITIONS_H

#include <jansson.h>

#include "analysis/report_tables.h"

/* A curve whose effective SM clock spans more than this fraction of its lowest
 * value gets a warning: a 1% clock change moves an L2 or DRAM latency in
 * cycles by 1%, about the step between neighbouring plateau levels the
 * analysis must tell apart at the finest. */
#define REPORT_CLOCK_MOVED_FRACTION 0.01

/* ## Run conditions (nothing when meta.json has none of it). */
void report_put_conditions(gd_text *t, const json_t *meta);

#endif
