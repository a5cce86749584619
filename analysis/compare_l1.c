/* compare_l1.c -- the L1 load path and shared memory held against an arch
 * (issue 5): associativity, replacement (the fine-grained chase tells LRU,
 * FIFO and random apart), MSHR entries and merge limit (exact, or bounded
 * from below where one SM cannot fill them), head-of-line blocking, sectors
 * per line, shared-memory banks.  A parameter appears only when the run used a
 * probe that measures it.
 *
 * What the model expects for head-of-line blocking (resv_stall --variant hol,
 * within one instruction, sim/lsu.c): the requests behind a refused one pass
 * it when the L1 re-enqueues it (reorder) and they are in the FIFO to pass:
 * the coalescer puts two or more requests a cycle in (coalescer_rate >= 2; 32,
 * GPGPU-Sim's whole access queue at issue, is every bundled GPGPU-Sim arch's),
 * or the tail takes a re-enqueued and a new request in one cycle
 * (fifo_tail_ports = 2).  With one request a cycle and one tail port the
 * refused request, re-enqueued every cycle, keeps the coalescer out (claim 6
 * read literally): blocked, reorder or not.
 *
 * And for the next instruction (the "ca" variant's B,
 * next_instruction_blocked): it waits unless the load unit accepts it before
 * the current one has left the FIFO (pipelined_issue, or queued_instructions
 * >= 2) and reorder lets it past the refused request.  With a two-port tail
 * it always gets past; with one, only if it entered the FIFO before the
 * refused request was left rotating alone (then it keeps the tail every
 * cycle) -- a race of the probe's issue timing against the FIFO's backlog
 * (on sim:t4 B wins it, on sim:cn110457238 it loses), which the model does
 * not predict: there compare.json has no next_instruction_blocked row.
 */
#include "analysis/compare_l1.h"

#include <string.h>

/* Did the run measure probe's variant ("ca" also matches the default "")? */
static int probed_variant(const gd_run *run, const char *probe, const char *variant)
{
    for (size_t i = 0; i < run->curve_count; i++) {
        const gd_curve *cv = &run->curves[i];
        const char *v = cv->opts.variant[0] ? cv->opts.variant : "ca";
        if (!strcmp(gd_probe_describe(cv->probe).name, probe) && !strcmp(v, variant))
            return 1;
    }
    return 0;
}

void gd_compare_l1_path(json_t *params, gd_compare_counts *c, const gd_arch *arch,
                        const gd_run *run)
{
    const gd_arch_level *l1 = &arch->level[GD_L1D];
    const gd_inferred_level *m = &run->inferred.level[GD_INF_L1D];
    if (l1->present) {
        if (gd_compare_run_probed(run, "pchase_fine")) {
            gd_compare_add_parameter(params, c, "L1D", "ways", m->has_ways, m->ways, l1->ways, 0,
                                     l1->ways, gd_arch_source_of(arch, "L1D", "ways"));
            gd_compare_add_categorical(params, c, "L1D", "replacement",
                                       m->has_replacement && !m->replacement_lru_or_fifo,
                                       gd_replacement_name(m->replacement),
                                       gd_replacement_name(l1->replacement),
                                       gd_arch_source_of(arch, "L1D", "replacement"));
        }
        if (probed_variant(run, "resv_stall", "hol")) {
            uint32_t rate = l1->coalescer_rate ? l1->coalescer_rate : 1;
            int passes = l1->reorder && l1->fifo_entries != 1 &&
                         (rate >= 2 || l1->fifo_tail_ports >= 2);
            gd_compare_add_categorical(params, c, "L1D", "head_of_line_blocking", m->has_hol,
                                       m->head_of_line_blocking ? "yes" : "no",
                                       passes ? "no" : "yes",
                                       gd_arch_source_of(arch, "L1D", "reorder"));
        }
        if (probed_variant(run, "resv_stall", "ca")) {
            int early = l1->pipelined_issue || l1->queued_instructions >= 2;
            /* the race (above): no row -- the model predicts neither answer */
            if (!(l1->reorder && early && l1->fifo_tail_ports < 2))
                gd_compare_add_categorical(params, c, "L1D", "next_instruction_blocked",
                                           m->has_next_blocked,
                                           m->next_instruction_blocked ? "yes" : "no",
                                           l1->reorder && early ? "no" : "yes",
                                           gd_arch_source_of(arch, "L1D", "pipelined_issue"));
        }
        if (gd_compare_run_probed(run, "mshr")) {
            const char *src = gd_arch_source_of(arch, "L1D", "mshr_entries");
            if (m->has_mshr && m->mshr_is_lower_bound)
                gd_compare_add_lower_bound(params, c, "L1D", "mshr_entries", m->mshr_entries,
                                           l1->mshr_entries, src);
            else
                gd_compare_add_parameter(params, c, "L1D", "mshr_entries", m->has_mshr,
                                         m->mshr_entries, l1->mshr_entries, 0, l1->mshr_entries,
                                         src);
            src = gd_arch_source_of(arch, "L1D", "mshr_merge");
            if (m->has_mshr_merge && m->mshr_merge_is_lower_bound)
                gd_compare_add_lower_bound(params, c, "L1D", "mshr_merge", m->mshr_merge,
                                           l1->mshr_merge, src);
            else
                gd_compare_add_parameter(params, c, "L1D", "mshr_merge", m->has_mshr_merge,
                                         m->mshr_merge, l1->mshr_merge, 0, l1->mshr_merge, src);
        }
        if (gd_compare_run_probed(run, "coalesce")) {
            uint32_t sector = l1->sector_bytes ? l1->sector_bytes : l1->line_bytes;
            gd_compare_add_parameter(params, c, "L1D", "line_bytes", m->has_alloc_line,
                                     (double)m->alloc_line_bytes, l1->line_bytes, 0,
                                     l1->line_bytes, gd_arch_source_of(arch, "L1D", "line"));
            if (sector != l1->line_bytes)
                gd_compare_note(params,
                                "the allocation line, which the coalescer's requests per "
                                "instruction count; where a paper calls the %u-byte fetch "
                                "granularity the line (Jia et al.'s Table 3.1 for T4 and V100), "
                                "that is L1D.sector_bytes here",
                                sector);
            int known = m->has_alloc_line && m->has_sector && m->sector_bytes;
            gd_compare_add_parameter(params, c, "L1D", "sectors_per_line", known,
                                     known ? (double)(m->alloc_line_bytes / m->sector_bytes) : 0,
                                     (double)(l1->line_bytes / sector), 0,
                                     (double)(l1->line_bytes / sector),
                                     gd_arch_source_of(arch, "L1D", "sector"));
        }
    }
    const gd_arch_level *sm = &arch->level[GD_SMEM];
    const gd_inferred_level *s = &run->inferred.level[GD_INF_SMEM];
    if (sm->present && gd_compare_run_probed(run, "smem_bank")) {
        gd_compare_add_parameter(params, c, "SMEM", "banks", s->has_banks, s->banks, sm->banks, 0,
                                 sm->banks, gd_arch_source_of(arch, "SMEM", "banks"));
        gd_compare_add_parameter(params, c, "SMEM", "bank_width_bytes", s->has_banks,
                                 s->bank_width_bytes, sm->bank_width_bytes, 0,
                                 sm->bank_width_bytes, gd_arch_source_of(arch, "SMEM", "bank_width"));
        gd_compare_add_parameter(params, c, "SMEM", "latency_cycles", s->has_latency,
                                 s->latency_cycles, sm->latency_cycles,
                                 gd_compare_latency_tolerance(sm->latency_cycles),
                                 sm->latency_cycles, gd_arch_source_of(arch, "SMEM", "latency"));
        gd_compare_add_categorical(params, c, "SMEM", "same_word_broadcast", s->has_banks,
                                   s->same_word_broadcast ? "yes" : "no", "yes",
                                   "seed 004: lanes reading one word of a bank do not conflict");
    }
}
