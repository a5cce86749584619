/* launch_bound.h -- the host memory one simulated launch may take
 * (launch_bound.c). */
#ifndef GD_SIM_LAUNCH_BOUND_H
#define GD_SIM_LAUNCH_BOUND_H

#include "analysis/arch.h"
#include "host/device.h"
#include "sim/ptx.h"

/* The most host memory a launch's registers and shared memory may take. */
#define SIM_LAUNCH_MAX_HOST_BYTES (2ull << 30)

/* 0 when `kernel` launched as grid x block (dynamic shared bytes) keeps its
 * warps' registers and its CTAs' shared memory under
 * SIM_LAUNCH_MAX_HOST_BYTES on `arch`; else -1 with a one-line error. */
int sim_launch_check_bound(const gd_arch *arch, const ptx_kernel *kernel, const gd_launch *launch,
                           gd_err *err);

#endif
