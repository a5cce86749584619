/* smem.c -- shared memory: banks, conflicts, replays and broadcast.
 *
 * Shared memory is `banks` banks of `bank_width` bytes ([SMEM] in the arch
 * file; 32 x 4 B on every GPU since Fermi but the K80's 8-byte mode), word w in
 * bank w mod banks.  Each bank reads one word per cycle, so a warp access whose
 * lanes touch n distinct words in one bank is split by the arbiter into n
 * conflict-free parts: the first is accepted, the others are replayed on the
 * following cycles (Aamodt et al., "General-Purpose Graphics Processor
 * Architectures", sec. 4.1.1, summarized in seed 004).  Lanes that read the same
 * word are served by one read (broadcast), so they never conflict.  An access
 * wider than a bank covers consecutive words in consecutive banks: a warp's
 * 8-byte loads at a stride of 8 bytes touch 64 words, two per bank, and take two
 * passes on 4-byte banks, as on a card.
 *
 * Timing: the SM's shared-memory pipe is busy for the n passes (the next shared
 * access issues after them) and a load's data is visible `latency` cycles after
 * its last pass, i.e. latency + n - 1 after issue.
 */
#include "sim/engine.h"

#define MAX_WORDS_PER_LANE 8 /* an 8-byte access on 1-byte banks */

static uint32_t smem_passes(const gd_arch_level *smem, const sim_mem_access *acc)
{
    uint32_t banks = smem->banks, width = smem->bank_width_bytes;
    uint32_t lane_words = acc->size > width ? (acc->size + width - 1) / width : 1;
    if (!(acc->mask & (acc->mask - 1)) && lane_words <= banks)
        return 1; /* one lane: its words lie in distinct banks */
    if (lane_words > MAX_WORDS_PER_LANE)
        lane_words = MAX_WORDS_PER_LANE;
    uint64_t words[SIM_WARP_LANES * MAX_WORDS_PER_LANE];
    uint32_t word_bank[SIM_WARP_LANES * MAX_WORDS_PER_LANE]; /* words[i] % banks, once */
    uint32_t n = 0, worst = 1;
    for (uint32_t m = acc->mask; m; m &= m - 1) {
        unsigned lane = (unsigned)__builtin_ctz(m);
        uint64_t first = acc->addr[lane] / width;
        uint64_t last = (acc->addr[lane] + acc->size - 1) / width;
        for (uint64_t word = first; word <= last && word < first + lane_words; word++) {
            uint32_t bank = (uint32_t)(word % banks);
            uint32_t same_bank = 1, i;
            for (i = 0; i < n; i++) {
                if (words[i] == word)
                    break; /* the same word: broadcast */
                same_bank += word_bank[i] == bank;
            }
            if (i < n)
                continue;
            words[n] = word;
            word_bank[n++] = bank;
            if (same_bank > worst)
                worst = same_bank;
        }
    }
    return worst;
}

uint32_t sim_smem_passes(const gd_arch_level *smem, const sim_mem_access *acc)
{
    return smem_passes(smem, acc);
}

uint64_t sim_smem_access(sim_engine *e, sim_sm *sm, const sim_mem_access *acc, uint64_t cycle)
{
    const gd_arch_level *smem = &e->arch->level[GD_SMEM];
    uint32_t passes = smem_passes(smem, acc);
    e->stats.smem_accesses++;
    e->stats.smem_replays += passes - 1;
    sm->smem_busy_until = cycle + passes;
    return cycle + (passes - 1) + smem->latency_cycles;
}
