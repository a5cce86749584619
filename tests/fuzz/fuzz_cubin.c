/* fuzz_cubin.c -- the cubin (ELF) reader of kernels/cubin_elf.c.
 *
 * The bytes are a cubin as the CUDA JIT would hand it back.  The reader must
 * find the section of entry "k" (the tests' tiny cubin) and the SM version, or
 * refuse with one line; an accepted section lies inside the bytes.
 */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/cubin_elf.h"

int gd_fuzz_cubin(const uint8_t *data, size_t size)
{
    /* a copy of exactly `size` bytes: ASan sees every read past the end */
    uint8_t *elf = malloc(size ? size : 1);
    if (!elf)
        abort();
    memcpy(elf, data, size);
    gd_err err = {{0}};
    uint64_t offset, bytes;
    int rc = GD_FUZZ_ACCEPTED;
    if (gd_cubin_text_section(elf, size, "k", &offset, &bytes, &err) == 0) {
        if (offset > size || bytes > size - offset)
            gd_fuzz_broken("cubin", "a .text section outside the file");
    } else {
        rc = gd_fuzz_rejected(&err, "cubin");
    }
    int sm;
    gd_err sm_err = {{0}};
    if (gd_cubin_sm_version(elf, size, &sm, &sm_err) != 0)
        gd_fuzz_rejected(&sm_err, "cubin");
    free(elf);
    return rc;
}
