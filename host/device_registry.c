/* device_registry.c -- "sim:ARCH" or "cuda:N" to the backend that opens it.
 *
 * Parsing the spec and handing it on is all this file does; the backends fill
 * in the device (and its info) and the registry records the spec as given, so
 * results say which device the user asked for.
 */
#include "host/device_registry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cuda_device.h"
#include "sim/sim_device.h"

/* The largest ordinal "cuda:N" accepts: far above any node's GPU count, low
 * enough that a typo (cuda:10000000) is an error here, not a driver call. */
#define GD_CUDA_MAX_ORDINAL 1024

int gd_device_open(const char *spec, const gd_device_opts *opts, gd_device **out, gd_err *err)
{
    *out = NULL;
    if (!spec || !*spec)
        return gd_fail(err, "no device given (expected sim:ARCH or cuda:N)");
    if (strncmp(spec, "sim:", 4) == 0) {
        if (!spec[4])
            return gd_fail(err, "device '%s': missing arch name after 'sim:'", spec);
        if (sim_device_open(spec + 4, opts, out, err) != 0)
            return -1;
    } else if (strncmp(spec, "cuda:", 5) == 0) {
        char *end = NULL;
        errno = 0;
        long ordinal = strtol(spec + 5, &end, 10);
        if (!spec[5] || *end || errno || ordinal < 0 || ordinal > GD_CUDA_MAX_ORDINAL)
            return gd_fail(err, "device '%s': expected cuda:N with N a device ordinal", spec);
        if (opts && opts->override_count)
            return gd_fail(err, "device '%s': --set overrides apply to sim devices only", spec);
        if (cuda_device_open((int)ordinal, opts, out, err) != 0)
            return -1;
    } else {
        return gd_fail(err, "unknown device '%s' (expected sim:ARCH, sim:gpgpusim:CONFIG or cuda:N)", spec);
    }
    snprintf((*out)->info.spec, sizeof (*out)->info.spec, "%s", spec);
    return 0;
}
