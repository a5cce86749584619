/* meta.h -- results/RUN/meta.json: what ran, where, when, with which versions. */
#ifndef GD_META_H
#define GD_META_H

#include <jansson.h>

#include "host/device.h"

#define GD_VERSION "0.1.0"

/* A new meta document: tool version, git revision, command line, start time,
 * device description (arch, driver/toolkit versions, SM clock, ...) and host
 * topology.  Returns NULL with err. */
json_t *gd_meta_new(gd_device *dev, int argc, char **argv, gd_err *err);
/* What the device runs under, into meta (gd_meta_new calls it): for a cuda
 * device NVML's state ("nvml", host/nvml.h) and the display watchdog
 * ("watchdog"); for a sim device "nvml" says it does not apply. */
void gd_meta_add_device_state(json_t *meta, gd_device *dev);
/* Adds the end time, the device's counters (and for a cuda device NVML's state
 * again, "nvml_at_end", and whether CUPTI counted, "cupti"), then writes
 * DIR/meta.json. */
int gd_meta_finish(json_t *meta, gd_device *dev, const char *dir, gd_err *err);
/* Writes DIR/meta.json as it is now (called at the start too). */
int gd_meta_write(const json_t *meta, const char *dir, gd_err *err);
/* Records the carve-out preference every kernel was given and the runner's
 * per-kernel records ("kernels", host/kernel_record.h: shared by reference,
 * so later writes see the rows added since). */
void gd_meta_set_carveout(json_t *meta, int carveout_percent, json_t *kernels);
/* "abc123" (+ "-dirty") of the source tree, or "unknown". */
void gd_git_revision(char *buf, size_t size);

#endif
