/* model_bandwidth.c -- the peak streaming bandwidth of each level, from the
 * arch file (issue 12; the bandwidth probe, kernels/bandwidth.c).
 *
 * A streaming warp access of 16 bytes per lane covers whole lines, so each
 * level's figure is its request rate times the bytes one request carries:
 *
 *   L1D   every SM's tags take [L1D] tag_lookups requests a cycle, one line
 *         ([L1D] line) each: sms x tag_lookups x line;
 *   L2    the crossbar takes [L2] requests_per_cycle requests a cycle and the
 *         slices slices x slice_requests_per_cycle; one request is a line of
 *         the L1 ([L1D] line, ld.cg and stores alike): the smaller rate x line.
 *         Read, write and copy alike (copy's reads and writes share it);
 *   DRAM  with channels: each channel's data bus moves a 32-byte sector per
 *         burst_cycles: channels x 32 / burst_cycles; without: [DRAM]
 *         requests_per_cycle requests of one L2 line a cycle.  Never more
 *         than the L2's rate.  Read and copy; a write's figure is the rate the
 *         L2 accepts stores (the probe does not wait for their write-backs),
 *         which is the L2's, so the model gives no DRAM write figure.
 *
 * What it leaves out, and why a measurement falls short of it: latency (a
 * warp waits for its loads once per iteration), queueing, row switches and
 * read/write turnaround in DRAM, and the CTAs' start skew -- streaming codes
 * on cards reach 70-95% of the peak (STREAM / gpu-benches on A100 and H100),
 * the simulator 65-105% (tests/test_below_l1.c), so compare_below_l1.c
 * accepts GD_BW_TOLERANCE_SHARE around it.
 */
#include "analysis/model_bandwidth.h"

#include <stdio.h>

#define SECTOR_BYTES 32

static double l2_rate(const gd_arch *arch, char *why, size_t n)
{
    const gd_arch_level *l2 = &arch->level[GD_L2];
    /* one request is an L1 line, but no more than an L2 line of it reaches
     * a slice at once (T4: 128-B L1 lines over 64-B L2 lines) */
    double line = arch->level[GD_L1D].line_bytes ? arch->level[GD_L1D].line_bytes : 128;
    if (l2->line_bytes && l2->line_bytes < line)
        line = l2->line_bytes;
    double xbar = l2->requests_per_cycle ? l2->requests_per_cycle : 1;
    uint32_t slices = l2->l2map.slices ? l2->l2map.slices : 1;
    double sl = slices > 1 ? (double)slices * (l2->l2map.slice_requests_per_cycle
                                                   ? l2->l2map.slice_requests_per_cycle
                                                   : 1)
                           : xbar;
    double rate = xbar < sl ? xbar : sl;
    snprintf(why, n, "min(crossbar %.0f, slices %.0f) requests/cycle x %.0f-B line", xbar, sl,
             line);
    return rate * line;
}

double gd_model_bandwidth(const gd_arch *arch, gd_bw_level level, gd_bw_kind kind, char *why,
                          size_t why_size)
{
    why[0] = 0;
    switch (level) {
    case GD_BW_L1D: {
        if (kind != GD_BW_READ)
            return 0;
        const gd_arch_level *l1 = &arch->level[GD_L1D];
        double tags = l1->tag_lookups ? l1->tag_lookups : 1;
        snprintf(why, why_size, "%u SMs x %.0f tag lookups/cycle x %u-B line",
                 arch->gpu.sm_count, tags, l1->line_bytes);
        return (double)arch->gpu.sm_count * tags * l1->line_bytes;
    }
    case GD_BW_L2:
        return l2_rate(arch, why, why_size);
    case GD_BW_DRAM: {
        if (kind == GD_BW_WRITE)
            return 0;
        char l2why[160];
        double l2 = l2_rate(arch, l2why, sizeof l2why);
        const gd_arch_dram *d = &arch->level[GD_DRAM].dram;
        double bus;
        if (d->channels) {
            bus = (double)d->channels * SECTOR_BYTES / (d->burst_cycles ? d->burst_cycles : 1);
            snprintf(why, why_size, "%u channels x 32 B / %u burst cycles", d->channels,
                     d->burst_cycles ? d->burst_cycles : 1);
        } else {
            double line = arch->level[GD_L2].line_bytes ? arch->level[GD_L2].line_bytes : 128;
            bus = (double)arch->level[GD_DRAM].requests_per_cycle * line;
            snprintf(why, why_size, "%u requests/cycle x %.0f-B L2 line",
                     arch->level[GD_DRAM].requests_per_cycle, line);
        }
        return bus < l2 ? bus : l2;
    }
    case GD_BW_LEVEL_COUNT:
        break;
    }
    return 0;
}
