/* compare_store.c -- measured vs expected for the store path (issue 12).
 *
 * What the arch says, read the way kernels/store_path.c sees it:
 *   L1D.write_allocate  "allocate" with [L1D] write_allocate or write_back;
 *   L1D.write_policy    "write-back" with [L1D] write_back, else
 *                       "write-through" (told only where the L2 allocates);
 *   L2.write_allocate   "no-allocate" with [L2] write_allocate = none;
 *   L2.write_granule_bytes  the bytes a 32-byte store makes valid: the line
 *                       with write_allocate = line; the sector where it is
 *                       larger than 32 bytes and partial_write keeps no byte
 *                       mask (the 32 bytes are part of it); else 32;
 *   L2.partial_write    validate, fetch or mask as the arch says, except that
 *                       a line-allocating L2 fetches a partial sector with the
 *                       rest of the line (sim/l2_store.c): "fetch"; told only
 *                       behind a write-through L1 and an allocating L2.
 * Rows appear only when the run has a store verdict ("store" in
 * inferred.json); categorical rows match on equal names, the granule exactly
 * (a lower bound where the arch's is past the probe's reach).
 */
#include "analysis/compare_store.h"

#include "analysis/infer_store.h"

static const char *yes_no(int v, const char *yes, const char *no)
{
    return v < 0 ? "" : v ? yes : no;
}

void gd_compare_store(json_t *params, gd_compare_counts *c, const gd_arch *arch, const gd_run *run)
{
    const gd_store_inference *s = &run->inferred.store;
    if (!s->measured)
        return;
    const gd_arch_level *l1 = &arch->level[GD_L1D], *l2 = &arch->level[GD_L2];
    int l1_alloc = l1->write_allocate || l1->write_back;
    gd_compare_add_categorical(params, c, "L1D", "write_allocate", s->l1_write_allocate >= 0,
                               yes_no(s->l1_write_allocate, "allocate", "no-allocate"),
                               l1_alloc ? "allocate" : "no-allocate",
                               gd_arch_source_of(arch, "L1D", l1->write_back ? "write_back" : "write_allocate"));
    int l2_alloc = l2->l2_write_alloc != GD_L2_WRITE_NONE;
    gd_compare_add_categorical(params, c, "L2", "write_allocate", s->l2_write_allocate >= 0,
                               yes_no(s->l2_write_allocate, "allocate", "no-allocate"),
                               l2_alloc ? "allocate" : "no-allocate",
                               gd_arch_source_of(arch, "L2", "write_allocate"));
    if (!l2_alloc)
        return; /* the rest is seen only through an allocating L2 */
    gd_compare_add_categorical(params, c, "L1D", "write_policy", s->l1_write_back >= 0,
                               yes_no(s->l1_write_back, "write-back", "write-through"),
                               l1->write_back ? "write-back" : "write-through",
                               gd_arch_source_of(arch, "L1D", "write_back"));
    uint64_t sector = l2->sector_bytes ? l2->sector_bytes : l2->line_bytes;
    uint64_t granule = 32;
    if (l2->l2_write_alloc == GD_L2_WRITE_LINE)
        granule = l2->line_bytes;
    else if (sector > 32 && l2->partial_write != GD_L2_PARTIAL_MASK)
        granule = sector;
    const char *gsrc = gd_arch_source_of(arch, "L2", "write_allocate");
    if (granule > GD_STORE_MAX_NEIGHBOUR_BYTES) {
        gd_compare_add_lower_bound(params, c, "L2", "write_granule_bytes",
                                   s->l2_granule_is_lower_bound ? (double)s->l2_write_granule_bytes : 0,
                                   (double)granule, gsrc);
    } else {
        gd_compare_add_parameter(params, c, "L2", "write_granule_bytes",
                                 s->l2_write_granule_bytes > 0 && !s->l2_granule_is_lower_bound,
                                 (double)s->l2_write_granule_bytes, (double)granule, 0,
                                 (double)granule, gsrc);
    }
    if (l1->write_back)
        return; /* partial sectors never reach the L2 as such */
    int pw = l2->partial_write;
    if (pw != GD_L2_PARTIAL_VALIDATE && l2->l2_write_alloc == GD_L2_WRITE_LINE)
        pw = GD_L2_PARTIAL_FETCH;
    const char *m = gd_store_partial_name(s->l2_partial_write);
    gd_compare_add_categorical(params, c, "L2", "partial_write", m != NULL, m ? m : "",
                               gd_store_partial_name(pw),
                               gd_arch_source_of(arch, "L2", "partial_write"));
}
