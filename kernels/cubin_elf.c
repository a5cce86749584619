/* cubin_elf.c -- read section sizes out of a cubin (an NVIDIA ELF64 file).
 *
 * The CUDA backend needs one number the driver API does not give: how many bytes
 * of machine code the JIT produced for a kernel.  ptxas and the driver's JIT
 * both emit a cubin in which every kernel's SASS sits in its own section,
 * ".text.<entry>", so the answer is that section's sh_size.  The SASS patcher
 * (kernels/sass_patch.c) needs the same section's file offset, so both are
 * returned, and the SM number from e_flags to know the encoding.
 *
 * The buffer comes from the driver (or, in the tests, from deliberately broken
 * copies of one), so nothing in it is trusted: every offset and count is checked
 * against the buffer size with overflow-safe arithmetic before it is used, and
 * headers are memcpy'd out rather than dereferenced in place, because a cubin
 * handed to us need not be 8-byte aligned.  The layout is standard ELF64 as in
 * glibc's <elf.h>; only e_flags (the SM number) is NVIDIA-specific.
 *
 * Cubins are little-endian and so is every host gpudissect runs on (x86-64,
 * aarch64); the fields are read in host order.
 */
#include "kernels/cubin_elf.h"

#include <elf.h>
#include <string.h>

#define TEXT_SECTION_PREFIX ".text."

/* CUDA 13's ptxas writes EI_ABIVERSION 8 and keeps the SM number in bits 8..15
 * of e_flags (sm_75 -> 0x...4b.., sm_90 -> 0x...5a..); older toolkits wrote ABI
 * version 7 with the SM number in bits 0..7.  Observed from ptxas output; NVIDIA
 * does not document the cubin format. */
#define CUBIN_ABI_VERSION_SM_IN_BYTE1 8
#define CUBIN_SM_MASK 0xffu

/* True when [offset, offset + length) lies inside a buffer of `size` bytes. */
static int range_inside(uint64_t offset, uint64_t length, size_t size)
{
    return offset <= size && length <= size - offset;
}

static int read_header(const unsigned char *elf, size_t size, Elf64_Ehdr *ehdr, gd_err *err)
{
    if (!elf || size < sizeof *ehdr)
        return gd_fail(err, "cubin: %zu bytes is too short for an ELF64 header", elf ? size : 0);
    memcpy(ehdr, elf, sizeof *ehdr);
    if (memcmp(ehdr->e_ident, ELFMAG, SELFMAG) != 0)
        return gd_fail(err, "cubin: not an ELF file (bad magic)");
    if (ehdr->e_ident[EI_CLASS] != ELFCLASS64)
        return gd_fail(err, "cubin: not ELF64 (class %u)", ehdr->e_ident[EI_CLASS]);
    if (ehdr->e_ident[EI_DATA] != ELFDATA2LSB)
        return gd_fail(err, "cubin: not little-endian (data encoding %u)", ehdr->e_ident[EI_DATA]);
    if (ehdr->e_machine != EM_CUDA)
        return gd_fail(err, "cubin: not a CUDA ELF (e_machine %u, expected EM_CUDA %u)",
                       ehdr->e_machine, EM_CUDA);
    return 0;
}

/* Copy section header `index` out of the buffer (bounds were checked by caller). */
static void read_section(const unsigned char *elf, const Elf64_Ehdr *ehdr, unsigned index,
                         Elf64_Shdr *shdr)
{
    memcpy(shdr, elf + ehdr->e_shoff + (uint64_t)index * ehdr->e_shentsize, sizeof *shdr);
}

int gd_cubin_text_section(const void *buffer, size_t size, const char *entry, uint64_t *offset,
                          uint64_t *bytes, gd_err *err)
{
    const unsigned char *elf = buffer;
    Elf64_Ehdr ehdr;

    if (!entry || !*entry)
        return gd_fail(err, "cubin: no kernel entry name given");
    if (read_header(elf, size, &ehdr, err) != 0)
        return -1;
    if (ehdr.e_shnum == 0)
        return gd_fail(err, "cubin: no section headers");
    if (ehdr.e_shentsize != sizeof(Elf64_Shdr))
        return gd_fail(err, "cubin: section header size %u, expected %zu", ehdr.e_shentsize,
                       sizeof(Elf64_Shdr));
    if (!range_inside(ehdr.e_shoff, (uint64_t)ehdr.e_shnum * ehdr.e_shentsize, size))
        return gd_fail(err, "cubin: section header table (offset %llu, %u entries) runs past "
                       "the end of the %zu-byte file",
                       (unsigned long long)ehdr.e_shoff, ehdr.e_shnum, size);
    if (ehdr.e_shstrndx == SHN_UNDEF || ehdr.e_shstrndx >= ehdr.e_shnum)
        return gd_fail(err, "cubin: section name table index %u out of range (%u sections)",
                       ehdr.e_shstrndx, ehdr.e_shnum);

    Elf64_Shdr names;
    read_section(elf, &ehdr, ehdr.e_shstrndx, &names);
    if (names.sh_type != SHT_STRTAB)
        return gd_fail(err, "cubin: section name table has type %u, expected SHT_STRTAB",
                       names.sh_type);
    if (!range_inside(names.sh_offset, names.sh_size, size))
        return gd_fail(err, "cubin: section name table runs past the end of the file");
    const char *strtab = (const char *)elf + names.sh_offset;

    size_t prefix_len = strlen(TEXT_SECTION_PREFIX);
    size_t entry_len = strlen(entry);
    for (unsigned i = 0; i < ehdr.e_shnum; i++) {
        Elf64_Shdr shdr;
        read_section(elf, &ehdr, i, &shdr);
        if (shdr.sh_name >= names.sh_size)
            return gd_fail(err, "cubin: section %u name offset %u is outside the name table",
                           i, shdr.sh_name);
        const char *name = strtab + shdr.sh_name;
        /* The name must end inside the table; memchr never looks past it. */
        const char *name_end = memchr(name, '\0', names.sh_size - shdr.sh_name);
        if (!name_end)
            return gd_fail(err, "cubin: section %u name is not terminated", i);
        if ((size_t)(name_end - name) != prefix_len + entry_len ||
            memcmp(name, TEXT_SECTION_PREFIX, prefix_len) != 0 ||
            memcmp(name + prefix_len, entry, entry_len) != 0)
            continue;
        if (shdr.sh_type == SHT_NOBITS)
            return gd_fail(err, "cubin: section %s holds no bytes in the file (SHT_NOBITS)", name);
        if (!range_inside(shdr.sh_offset, shdr.sh_size, size))
            return gd_fail(err, "cubin: section %s (offset %llu, %llu bytes) runs past the end "
                           "of the %zu-byte file", name, (unsigned long long)shdr.sh_offset,
                           (unsigned long long)shdr.sh_size, size);
        if (offset)
            *offset = shdr.sh_offset;
        if (bytes)
            *bytes = shdr.sh_size;
        return 0;
    }
    return gd_fail(err, "cubin: no section %s%s (is '%s' the kernel's .entry name?)",
                   TEXT_SECTION_PREFIX, entry, entry);
}

int gd_cubin_text_size(const void *elf, size_t size, const char *entry, uint64_t *bytes,
                       gd_err *err)
{
    return gd_cubin_text_section(elf, size, entry, NULL, bytes, err);
}

int gd_cubin_sm_version(const void *elf, size_t size, int *sm, gd_err *err)
{
    Elf64_Ehdr ehdr;
    if (read_header(elf, size, &ehdr, err) != 0)
        return -1;
    unsigned shift = ehdr.e_ident[EI_ABIVERSION] >= CUBIN_ABI_VERSION_SM_IN_BYTE1 ? 8 : 0;
    unsigned version = (ehdr.e_flags >> shift) & CUBIN_SM_MASK;
    if (version == 0)
        return gd_fail(err, "cubin: e_flags 0x%x hold no SM number", ehdr.e_flags);
    *sm = (int)version;
    return 0;
}
