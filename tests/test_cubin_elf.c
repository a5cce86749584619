/* test_cubin_elf.c -- the cubin reader (kernels/cubin_elf.c) on good and bad input.
 *
 * The CUDA backend reports a kernel's machine-code size by reading the cubin
 * the driver's JIT returned, so this reader sees bytes we did not write.  It is
 * tested on a hand-built minimal ELF (always), on ptxas output for sm_75 and
 * sm_90 (compared with binutils' readelf where installed), and on every
 * truncation and many single-byte corruptions of each: those must give an
 * error or a section that lies inside the buffer, and never read outside it.
 * Each damaged copy gets its own exact-size allocation, so a run under ASan
 * (make test SAN=1) or valgrind turns any over-read into a failure.
 */
#include "tests/testing.h"
#include "tests/tiny_cubin.h"

#include "kernels/cubin_elf.h"
#include "tests/cuda_test_kernels.h"

#include <elf.h>

/* Parse every prefix of `elf` (each in its own exact-size allocation, so ASan
 * sees any over-read); a prefix that parses must agree with the whole. */
static void check_every_truncation(const unsigned char *elf, size_t size, const char *entry,
                                   uint64_t offset, uint64_t bytes)
{
    for (size_t len = 0; len <= size; len++) {
        unsigned char *copy = malloc(len ? len : 1);
        assert_non_null(copy);
        memcpy(copy, elf, len);
        uint64_t got_offset = 0, got_bytes = 0;
        gd_err err = {{0}};
        if (gd_cubin_text_section(copy, len, entry, &got_offset, &got_bytes, &err) == 0) {
            assert_int_equal(got_offset, offset);
            assert_int_equal(got_bytes, bytes);
            assert_true(got_offset + got_bytes <= len);
        } else {
            assert_true(err.msg[0] != '\0');
        }
        free(copy);
    }
}

/* Overwrite each byte with values that break lengths and offsets; a result
 * that still parses must lie inside the buffer. */
static void check_every_byte_corruption(const unsigned char *elf, size_t size, const char *entry)
{
    static const unsigned char poison[] = {0x00, 0xff, 0x7f, 0x80};
    unsigned char *copy = malloc(size);
    assert_non_null(copy);
    for (size_t at = 0; at < size; at++) {
        for (size_t p = 0; p < sizeof poison; p++) {
            memcpy(copy, elf, size);
            copy[at] = poison[p];
            uint64_t offset = 0, bytes = 0;
            gd_err err = {{0}};
            if (gd_cubin_text_section(copy, size, entry, &offset, &bytes, &err) == 0)
                assert_true(offset <= size && bytes <= size - offset);
            else
                assert_true(err.msg[0] != '\0');
        }
    }
    free(copy);
}

/* A minimal cubin-shaped ELF (tests/tiny_cubin.h), .text.k 32 bytes of 0xAA. */
#define TINY_TEXT_OFFSET GD_TINY_TEXT_OFFSET
#define TINY_TEXT_BYTES 32
#define TINY_SHOFF (GD_TINY_TEXT_OFFSET + TINY_TEXT_BYTES)
static size_t build_tiny_cubin(unsigned char *buf)
{
    unsigned char text[TINY_TEXT_BYTES];
    memset(text, 0xAA, sizeof text);
    return gd_test_tiny_cubin(buf, text, sizeof text);
}

static void expect_parse_error(const unsigned char *elf, size_t size, const char *why)
{
    uint64_t bytes = 0;
    gd_err err = {{0}};
    assert_int_equal(gd_cubin_text_size(elf, size, "k", &bytes, &err), -1);
    assert_contains(err.msg, why);
}

static void test_cubin_reader_on_built_elf(void **unused)
{
    (void)unused;
    unsigned char good[TINY_SHOFF + 3 * sizeof(Elf64_Shdr)];
    unsigned char bad[sizeof good];
    size_t size = build_tiny_cubin(good);
    uint64_t offset = 0, bytes = 0;
    gd_err err = {{0}};
    assert_int_equal(gd_cubin_text_section(good, size, "k", &offset, &bytes, &err), 0);
    assert_int_equal(offset, TINY_TEXT_OFFSET);
    assert_int_equal(bytes, TINY_TEXT_BYTES);
    int sm = 0;
    assert_int_equal(gd_cubin_sm_version(good, size, &sm, &err), 0);
    assert_int_equal(sm, 75);

    expect_parse_error(good, 0, "too short");
    expect_parse_error(NULL, 100, "too short");
    assert_int_equal(gd_cubin_text_size(good, size, "missing", &bytes, &err), -1);
    assert_contains(err.msg, ".text.missing");
    assert_int_equal(gd_cubin_text_size(good, size, "", &bytes, &err), -1);

    /* Each case edits copies of the headers, then writes them over a fresh copy
     * of the good image (no pointer casts into the byte buffer). */
    Elf64_Ehdr ehdr;
    Elf64_Shdr sections[3];
#define CORRUPT(stmt, why)                                                                     \
    do {                                                                                       \
        memcpy(bad, good, size);                                                               \
        memcpy(&ehdr, good, sizeof ehdr);                                                      \
        memcpy(sections, good + TINY_SHOFF, sizeof sections);                                  \
        stmt;                                                                                  \
        memcpy(bad, &ehdr, sizeof ehdr);                                                       \
        memcpy(bad + TINY_SHOFF, sections, sizeof sections);                                   \
        expect_parse_error(bad, size, why);                                                    \
    } while (0)
    CORRUPT(ehdr.e_ident[EI_MAG0] = 'X', "bad magic");
    CORRUPT(ehdr.e_ident[EI_CLASS] = ELFCLASS32, "not ELF64");
    CORRUPT(ehdr.e_machine = EM_X86_64, "not a CUDA ELF");
    CORRUPT(ehdr.e_shoff = size - 8, "runs past the end");
    CORRUPT(ehdr.e_shoff = UINT64_MAX - 16, "runs past the end");
    CORRUPT(ehdr.e_shnum = 0xffff, "runs past the end");
    CORRUPT(ehdr.e_shnum = 0, "no section headers");
    CORRUPT(ehdr.e_shentsize = 32, "section header size");
    CORRUPT(ehdr.e_shstrndx = 7, "out of range");
    CORRUPT(sections[1].sh_type = SHT_PROGBITS, "SHT_STRTAB");
    CORRUPT(sections[1].sh_offset = size, "name table runs past");
    CORRUPT(sections[1].sh_size = UINT64_MAX, "name table runs past");
    CORRUPT(sections[2].sh_name = 4000, "outside the name table");
    CORRUPT(sections[1].sh_size = 14, "not terminated"); /* cuts ".text.k" short */
    CORRUPT(sections[2].sh_offset = size - 4, "runs past the end");
    CORRUPT(sections[2].sh_size = UINT64_MAX, "runs past the end");
    CORRUPT(sections[2].sh_type = SHT_NOBITS, "SHT_NOBITS");
#undef CORRUPT
    check_every_truncation(good, size, "k", TINY_TEXT_OFFSET, TINY_TEXT_BYTES);
    check_every_byte_corruption(good, size, "k");
}

static void check_ptxas_cubin(const char *version, const char *arch, int expected_sm)
{
    const char *ptxas = gd_test_ptxas();
    if (!ptxas)
        GD_SKIP("ptxas not found");
    char cubin_path[512];
    char *dir = NULL;
    size_t size = 0;
    unsigned char *cubin = compile_kernels(ptxas, version, arch, &size, cubin_path,
                                           sizeof cubin_path, &dir);
    gd_err err = {{0}};
    int sm = 0;
    assert_int_equal(gd_cubin_sm_version(cubin, size, &sm, &err), 0);
    assert_int_equal(sm, expected_sm);

    static const char *const entries[] = {"copy_kernel", "params_kernel"};
    for (size_t i = 0; i < 2; i++) {
        uint64_t offset = 0, bytes = 0, readelf_bytes = 0;
        if (gd_cubin_text_section(cubin, size, entries[i], &offset, &bytes, &err) != 0)
            fail_msg("%s", err.msg);
        assert_true(bytes > 0);
        assert_int_equal(bytes % 16, 0); /* sm_70+: 16-byte instructions */
        char section[64];
        snprintf(section, sizeof section, ".text.%s", entries[i]);
        if (readelf_section_size(cubin_path, section, &readelf_bytes) == 0)
            assert_int_equal(bytes, readelf_bytes);
        else
            printf("note: readelf not found; %s size not cross-checked\n", section);
        if (i == 0)
            check_every_truncation(cubin, size, entries[i], offset, bytes);
    }
    check_every_byte_corruption(cubin, size, "copy_kernel");
    free(cubin);
    gd_test_rmrf(dir);
    free(dir);
}

static void test_cubin_reader_sm75(void **unused)
{
    (void)unused;
    check_ptxas_cubin("6.3", "sm_75", 75);
}

static void test_cubin_reader_sm90(void **unused)
{
    (void)unused;
    check_ptxas_cubin("7.8", "sm_90", 90);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cubin_reader_on_built_elf),
        cmocka_unit_test(test_cubin_reader_sm75),
        cmocka_unit_test(test_cubin_reader_sm90),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
