/* tiny_cubin.h -- a minimal cubin-shaped ELF built by hand for the tests
 * (include after testing.h): null section, .shstrtab, .text.k holding `text`. */
#ifndef GD_TEST_TINY_CUBIN_H
#define GD_TEST_TINY_CUBIN_H

#include <elf.h>

#ifndef EM_CUDA
#define EM_CUDA 190
#endif

#define GD_TINY_TEXT_OFFSET 128
#define GD_TINY_SM75_FLAGS 0x6004b04u /* EF_CUDA_SM75 as CUDA 13 ptxas writes it (ABI 8) */
/* The bytes a tiny cubin with text_bytes of code takes. */
#define GD_TINY_CUBIN_BYTES(text_bytes) (GD_TINY_TEXT_OFFSET + (text_bytes) + 3 * sizeof(Elf64_Shdr))

/* Writes the cubin to buf (GD_TINY_CUBIN_BYTES(text_bytes) of room); returns its
 * size.  The section headers follow the code, at GD_TINY_TEXT_OFFSET + text_bytes. */
static inline size_t gd_test_tiny_cubin(unsigned char *buf, const void *text, size_t text_bytes)
{
    static const char names[] = "\0.shstrtab\0.text.k";
    size_t shoff = GD_TINY_TEXT_OFFSET + text_bytes;
    memset(buf, 0, GD_TINY_CUBIN_BYTES(text_bytes));
    Elf64_Ehdr ehdr = {0};
    memcpy(ehdr.e_ident, ELFMAG, SELFMAG);
    ehdr.e_ident[EI_CLASS] = ELFCLASS64;
    ehdr.e_ident[EI_DATA] = ELFDATA2LSB;
    ehdr.e_ident[EI_VERSION] = EV_CURRENT;
    ehdr.e_ident[EI_ABIVERSION] = 8;
    ehdr.e_type = ET_EXEC;
    ehdr.e_machine = EM_CUDA;
    ehdr.e_version = EV_CURRENT;
    ehdr.e_flags = GD_TINY_SM75_FLAGS;
    ehdr.e_ehsize = sizeof ehdr;
    ehdr.e_shoff = shoff;
    ehdr.e_shentsize = sizeof(Elf64_Shdr);
    ehdr.e_shnum = 3;
    ehdr.e_shstrndx = 1;
    memcpy(buf, &ehdr, sizeof ehdr);
    memcpy(buf + sizeof ehdr, names, sizeof names);
    memcpy(buf + GD_TINY_TEXT_OFFSET, text, text_bytes);
    Elf64_Shdr sections[3] = {{0}};
    sections[1].sh_name = 1;
    sections[1].sh_type = SHT_STRTAB;
    sections[1].sh_offset = sizeof ehdr;
    sections[1].sh_size = sizeof names;
    sections[2].sh_name = 11;
    sections[2].sh_type = SHT_PROGBITS;
    sections[2].sh_offset = GD_TINY_TEXT_OFFSET;
    sections[2].sh_size = text_bytes;
    memcpy(buf + shoff, sections, sizeof sections);
    return shoff + sizeof sections;
}

#endif
