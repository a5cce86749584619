/* cubin_elf.h -- find one kernel's machine code inside a cubin.
 *
 * A cubin is the ELF64 file that ptxas (or the driver's JIT) writes for one GPU
 * architecture.  Each kernel's SASS lives in its own section named
 * ".text.<entry>", so the machine-code size of a kernel is that section's size.
 * These functions read a cubin held in memory; they never trust a field before
 * checking it against the buffer, so a truncated or corrupted cubin gives an
 * error, never an out-of-bounds read.
 */
#ifndef GD_CUBIN_ELF_H
#define GD_CUBIN_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "host/device.h"

/* File offset and size in bytes of section ".text.<entry>". */
int gd_cubin_text_section(const void *elf, size_t size, const char *entry, uint64_t *offset,
                          uint64_t *bytes, gd_err *err);

/* Size in bytes of section ".text.<entry>": the kernel's machine code. */
int gd_cubin_text_size(const void *elf, size_t size, const char *entry, uint64_t *bytes,
                       gd_err *err);

/* The SM the cubin was compiled for, as major*10+minor (75 for sm_75, 90 for sm_90). */
int gd_cubin_sm_version(const void *elf, size_t size, int *sm, gd_err *err);

#endif
