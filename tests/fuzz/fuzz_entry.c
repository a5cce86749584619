/* fuzz_entry.c -- libFuzzer's entry point for one target of tests/fuzz/.
 *
 * Compiled once per target with -DGD_FUZZ_TARGET=gd_fuzz_NAME (Makefile,
 * `make fuzz`): libFuzzer wants one LLVMFuzzerTestOneInput per binary.
 */
#include "tests/fuzz/fuzz.h"

#ifndef GD_FUZZ_TARGET
#error "compile with -DGD_FUZZ_TARGET=gd_fuzz_NAME"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)GD_FUZZ_TARGET(data, size);
    return 0;
}
