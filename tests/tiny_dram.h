/* tiny_dram.h -- the small arch with DRAM channels of the DRAM-row tests
 * (tests/test_below_l1.c's chases, tests/test_dram_row.c's dram_row runs):
 * sim:tiny with two channels of four banks, 1 KiB rows and short timings, so
 * that a chase switches rows in one bank within a few accesses. */
#ifndef GD_TESTS_TINY_DRAM_H
#define GD_TESTS_TINY_DRAM_H

static const char *const dram_ov[] = {"DRAM.channels=2", "DRAM.banks=4", "DRAM.row=1KiB",
                                      "DRAM.interleave=256", "DRAM.tCL=8", "DRAM.tRCD=10",
                                      "DRAM.tRP=12", "DRAM.tRAS=20", "DRAM.tCCD=2"};

#endif
