/* chase_layout.h -- private to the pointer-chase kernel (chase.c) and its
 * resumable form (chase_resume.c): the output buffer's layout, which is also
 * the scratch's, and the plan's state.  Not an interface: nothing outside the
 * two files includes it. */
#ifndef GD_KERNELS_CHASE_LAYOUT_H
#define GD_KERNELS_CHASE_LAYOUT_H

#include <stdint.h>

#define CHASE_CALIBRATION_SAMPLES 32
#define CHASE_HIST_BUCKETS 4096      /* 1-cycle buckets; slower accesses count in the last */
/* final position, checksum, timed-lap cycles and ns, timed steps done (a point
 * spread over launches), padding */
#define CHASE_HEADER_BYTES 40
#define OUT_REGION_CYCLES 16
#define OUT_REGION_NS 24
#define OUT_STEPS_DONE 32

typedef struct chase_state {
    int space;                       /* a gd_chase_space (kernels/chase.h, which
                                      * includes no private header) */
    uint64_t elements;
    uint64_t laps;                   /* timed laps: at least CHASE_MIN_TIMED accesses */
    uint64_t timed;                  /* timed accesses: elements x laps, or fewer
                                      * (opts.timed_accesses: the start of a lap) */
    uint64_t warm_laps;              /* at least CHASE_MIN_WARM accesses */
    uint32_t ring;                   /* chronological samples recorded */
    char probe[32];
    uint64_t *order;                 /* explicit chains: byte offset of the k-th visit */
    uint64_t order_sum;              /* sum of the offsets */
} chase_state;

/* Offsets in the output buffer, which is also the layout of the scratch. */
#define OUT_CALIB CHASE_HEADER_BYTES
#define OUT_HIST (OUT_CALIB + CHASE_CALIBRATION_SAMPLES * 4)
#define OUT_RING (OUT_HIST + CHASE_HIST_BUCKETS * 4) /* deltas, then values */
#define OUT_SINK_AT(ring) (OUT_RING + (ring) * 8)     /* 8 bytes the calibration writes */
#define OUT_SINK OUT_SINK_AT(ring)

/* The one-launch PTX made resumable (chase_resume.c); NULL when an anchored
 * edit no longer finds its place (ptx is freed either way). */
char *gd_chase_make_resumable(char *ptx, int space, uint32_t ring, int scratch_in_shared);

#endif
