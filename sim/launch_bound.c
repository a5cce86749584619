/* launch_bound.c -- a bound on the host memory of one simulated launch.
 *
 * The simulator gives every resident warp 64-bit registers for its 32 lanes
 * (and a ready cycle per register), and every resident CTA its shared memory.
 * PTX registers are virtual and a grid may be huge, so a kernel with 60000
 * registers on an arch with 1000 SMs would ask for a terabyte, and the run
 * would die of the OOM killer instead of an error.  This is checked before the
 * launch, on the worst case the arch allows (every SM full), against
 * SIM_LAUNCH_MAX_HOST_BYTES.  The other bound of a launch, its cycles, is the
 * engine's watchdog (GPUDISSECT_SIM_MAX_CYCLES, sim/gpu.c).
 */
#include "sim/launch_bound.h"

#define SIM_LANES 32ull
#define SIM_REG_HOST_BYTES (SIM_LANES * 8ull + 8ull) /* values + ready cycle */

int sim_launch_check_bound(const gd_arch *arch, const ptx_kernel *kernel, const gd_launch *launch,
                           gd_err *err)
{
    uint64_t threads = (uint64_t)launch->block[0] * launch->block[1] * launch->block[2];
    uint64_t ctas = (uint64_t)launch->grid[0] * launch->grid[1] * launch->grid[2];
    if (!threads || !ctas)
        return 0; /* the engine refuses an empty launch with its own message */
    uint64_t warps_per_cta = (threads + SIM_LANES - 1) / SIM_LANES;
    /* resident at once: every SM full, or the whole grid where it is smaller */
    uint64_t sms = arch->gpu.sm_count;
    uint64_t ctas_resident = sms * arch->gpu.max_ctas_per_sm;
    if (ctas_resident > ctas)
        ctas_resident = ctas;
    uint64_t warps_resident = sms * arch->gpu.max_warps_per_sm;
    if (warps_resident > ctas_resident * warps_per_cta)
        warps_resident = ctas_resident * warps_per_cta;
    uint64_t shared = (uint64_t)kernel->shared_static_bytes + launch->dynamic_shared_bytes;
    uint64_t bytes = warps_resident * kernel->reg_count * SIM_REG_HOST_BYTES + ctas_resident * shared;
    if (bytes > SIM_LAUNCH_MAX_HOST_BYTES)
        return gd_fail(err, "sim: launch of %s would hold %llu MiB of registers and shared memory "
                            "(%u registers x %llu resident warps); at most %llu MiB",
                       kernel->name, (unsigned long long)(bytes >> 20), (unsigned)kernel->reg_count,
                       (unsigned long long)warps_resident,
                       (unsigned long long)(SIM_LAUNCH_MAX_HOST_BYTES >> 20));
    return 0;
}
