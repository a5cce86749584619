/* arch_mem.c -- where an address lives below the L1: L2 slice, partition, DRAM
 * channel, bank and row.
 *
 * These are properties of the arch, not of the simulator: the simulated device
 * (sim/l2_slice.c, sim/dram.c) places lines with them, and the analytical model
 * (analysis/model_below_l1.c) predicts the same placement, so both sides of
 * compare.json count the same lines per set and the same row switches.
 *
 * L2 slices.  `slices` slice positions are split evenly over `partitions`; a
 * line's position inside a partition comes from the hash, and the asking SM's
 * partition picks which copy of that position serves it first (the near one),
 * the next partition being the far one.  Hashes:
 *   modulo  position = line % per_partition, key = line / per_partition;
 *   xor     per_partition a power of two, b = log2 of it: position = the line's
 *           low b bits XOR the fold of the named address bit ranges (each range
 *           cut into b-bit pieces, XORed together), key = line >> b.  The ranges
 *           lie above the low b line bits (arch_validate_mem.c checks), so the
 *           key and position give the line back and different lines of a slice
 *           never share a key.
 * A slice's set is key % (sets / slices): the set index never reuses the bits
 * that chose the slice, so every set of every slice is used.
 *
 * DRAM.  Consecutive `interleave` bytes go to one channel, the next to the
 * next channel; inside a channel, consecutive rows go to consecutive banks
 * (row-interleaved), so a sequential stream opens each row once.
 */
#include "analysis/arch.h"

static uint32_t per_partition(const gd_arch *arch)
{
    const gd_arch_l2_map *m = &arch->level[GD_L2].l2map;
    uint32_t slices = m->slices ? m->slices : 1;
    return m->partitions > 1 ? slices / m->partitions : slices; /* (every L2 access) */
}

static unsigned log2_of(uint32_t x)
{
    unsigned b = 0;
    while ((1u << b) < x)
        b++;
    return b;
}

/* The XOR fold of the named address ranges of `line`, to b bits. */
static uint64_t xor_fold(const gd_arch *arch, uint64_t line, unsigned b)
{
    const gd_arch_l2_map *m = &arch->level[GD_L2].l2map;
    uint64_t addr = line * arch->level[GD_L2].line_bytes, fold = 0, mask = (1ull << b) - 1;
    if (!b)
        return 0;
    for (uint32_t r = 0; r < m->xor_range_count; r++) {
        unsigned width = (unsigned)(m->xor_hi[r] - m->xor_lo[r] + 1);
        uint64_t bits = (addr >> m->xor_lo[r]) & (width >= 64 ? ~0ull : (1ull << width) - 1);
        for (; bits; bits >>= b)
            fold ^= bits & mask;
    }
    return fold;
}

uint32_t gd_arch_sm_partition(const gd_arch *arch, uint32_t sm)
{
    uint32_t parts = arch->level[GD_L2].l2map.partitions;
    if (parts <= 1 || !arch->gpu.sm_count)
        return 0;
    return (uint32_t)((uint64_t)(sm % arch->gpu.sm_count) * parts / arch->gpu.sm_count);
}

void gd_arch_l2_slice_of(const gd_arch *arch, uint64_t line, uint32_t partition, uint32_t *slice,
                         uint64_t *key)
{
    const gd_arch_l2_map *m = &arch->level[GD_L2].l2map;
    uint32_t pp = per_partition(arch);
    uint32_t parts = m->partitions ? m->partitions : 1;
    uint64_t pos;
    if (pp <= 1) {
        pos = 0;
        *key = line;
    } else if (m->hash == GD_L2_HASH_XOR) {
        unsigned b = log2_of(pp);
        pos = (line ^ xor_fold(arch, line, b)) & (pp - 1);
        *key = line >> b;
    } else {
        pos = line % pp;
        *key = line / pp;
    }
    *slice = (partition % parts) * pp + (uint32_t)pos;
}

uint64_t gd_arch_l2_line_of(const gd_arch *arch, uint32_t slice, uint64_t key)
{
    const gd_arch_l2_map *m = &arch->level[GD_L2].l2map;
    uint32_t pp = per_partition(arch);
    uint64_t pos = slice % (pp ? pp : 1);
    if (pp <= 1)
        return key;
    if (m->hash == GD_L2_HASH_XOR) {
        unsigned b = log2_of(pp);
        uint64_t high = key << b;
        return high | ((pos ^ xor_fold(arch, high, b)) & (pp - 1));
    }
    return key * pp + pos;
}

uint32_t gd_arch_l2_slice_sets(const gd_arch *arch)
{
    const gd_arch_level *l2 = &arch->level[GD_L2];
    uint32_t slices = l2->l2map.slices ? l2->l2map.slices : 1;
    return l2->sets / slices;
}

void gd_arch_dram_locate(const gd_arch *arch, uint64_t addr, uint32_t *channel, uint32_t *bank,
                         uint64_t *row)
{
    const gd_arch_dram *d = &arch->level[GD_DRAM].dram;
    uint64_t chunk = addr / d->interleave_bytes;
    *channel = (uint32_t)(chunk % d->channels);
    uint64_t local = (chunk / d->channels) * d->interleave_bytes + addr % d->interleave_bytes;
    uint64_t rows = local / d->row_bytes;
    *bank = (uint32_t)(rows % d->banks);
    *row = rows / d->banks;
}
