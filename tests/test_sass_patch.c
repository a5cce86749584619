/* test_sass_patch.c -- the FFMA->NOP patcher (kernels/sass_patch.c) against
 * ptxas and nvdisasm.
 *
 * The encodings the patcher relies on are undocumented, so the test does not
 * trust them either:
 *
 *   - on words copied from ptxas output and on a hand-built cubin (always run,
 *     no tools needed): classification, the exact patched words, every error;
 *   - on raw words disassembled by nvdisasm -b SMxy: all seven FFMA operand
 *     forms decode as FFMA and the patched NOP decodes as NOP, on every target;
 *   - on ptxas cubins for sm_75/80/86/89/90 with a straight-line block of L
 *     FFMAs (L = 16, 64, 200) in independent chains: nvdisasm counts exactly L
 *     FFMAs before, and after the patch exactly L NOPs in their places with
 *     stall 1 (the FFMAs' own in a run under 16) and their yield flag, every other instruction and every byte
 *     outside the block unchanged; the patcher's own classification agrees
 *     with nvdisasm on every instruction; the reuse bits agree with .reuse;
 *   - the failures on real cubins: no run of that length, two runs, a
 *     truncated cubin, a cubin for sm_6x;
 *   - the targets: for every target the installed ptxas lists, the patcher
 *     accepts it exactly when the checks above pass there and its cubins carry
 *     no .nv.capmerc/.nv.merc sections (sm_75..sm_90); on sm_100 and later it
 *     refuses with one line and leaves the cubin as it was; on a CUDA device of
 *     compute capability 10.0 (the mock driver) icache_seq's nop variant runs
 *     the FFMA variant, unpatched, and says so in meta.json.
 *
 * Tests that need ptxas or nvdisasm say "skipped: ... not found" without them.
 */
#include "tests/testing.h"
#include "host/device_registry.h"
#include "tests/ptx_toolchain.h"
#include "tests/tiny_cubin.h"

#include "kernels/cubin_elf.h"
#include "kernels/ptx_emit.h"
#include "kernels/probe.h"
#include "kernels/sass_patch.h"
#include "host/device.h"
#include "tests/cuda_test_kernels.h"

#include <elf.h>

/* The encoding as this test reads it (independent of kernels/sass_patch.c). */
#define NOP_LO UINT64_C(0x0000000000007918)
#define STALL(hi) (((hi) >> 41) & 0xfu)
#define YIELD(hi) (((hi) >> 45) & 1u)
#define WRITE_BARRIER(hi) (((hi) >> 46) & 7u)
#define READ_BARRIER(hi) (((hi) >> 49) & 7u)
#define WAIT_MASK(hi) (((hi) >> 52) & 0x3fu)
#define REUSE(hi) (((hi) >> 58) & 0xfu)
#define OPERAND_BITS(hi) ((hi) & ((UINT64_C(1) << 41) - 1))
#define OPCODE12(lo) ((unsigned)((lo) & 0xfffu))

#define ENTRY FFMA_BLOCK_ENTRY

/* ---- words from ptxas output (sm_75 unless noted) ---------------------------- */

typedef struct known_word {
    const char *sass;
    uint64_t lo, hi;
    int ffma, nop;
} known_word;

static const known_word known_words[] = {
    {"FFMA R3, R0, R3, R2", 0x0000000300037223, 0x000fc80000000002, 1, 0},
    {"FFMA R5, R2, R2, 3", 0x4040000002057423, 0x000fc80000000002, 1, 0},
    {"FFMA R1, R2, R4, c[0x0][0x0]", 0x0000000302017623, 0x000fc80000000004, 1, 0},
    {"FFMA R2, R3, 1.5, R2", 0x3fc0000003027823, 0x000fc80000000002, 1, 0},
    {"FFMA R3, R2, c[0x3][0x0], R3", 0x00c0000002037a23, 0x000fc80000000003, 1, 0},
    {"FFMA R0, R5, UR4, R0 (sm_90)", 0x0000000405007c23, 0x000fe20008000000, 1, 0},
    {"FFMA R1, R2, R4, UR3", 0x0000000302017e23, 0x000fc80008000004, 1, 0},
    {"FFMA.SAT R0, R2, R5, R3", 0x0000000502007223, 0x000fc80000002003, 1, 0},
    {"FFMA.FTZ R2, R5, R0, R2", 0x0000000005027223, 0x000fc80000010002, 1, 0},
    {"FFMA R2, R0, -R2, R5", 0x8000000200027223, 0x000fd00000000005, 1, 0},
    {"NOP", 0x0000000000007918, 0x000fc00000000000, 0, 1},
    {"FADD R3, R0.reuse, 1", 0x3f80000000037421, 0x041fe40000000000, 0, 0},
    {"S2R R4, SR_TID.X", 0x0000000000047919, 0x000e220000002100, 0, 0},
    {"I2F.U32 R0, R4", 0x0000000400007306, 0x001e240000201000, 0, 0},
    {"MOV R1, c[0x0][0x28]", 0x00000a0000017a02, 0x000fe40000000f00, 0, 0},
    {"STG.E.SYS [UR4], R2", 0x00000002ff007986, 0x000fe2000c10e904, 0, 0},
    {"EXIT", 0x000000000000794d, 0x000fea0003800000, 0, 0},
    {"BRA", 0xfffffff000007947, 0x000fc0000383ffff, 0, 0},
    {"form 0 of opcode 0x023 (illegal)", 0x0000000302017023, 0x000fc80000000004, 0, 0},
};

static void test_classify_known_words(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < sizeof known_words / sizeof known_words[0]; i++) {
        const known_word *w = &known_words[i];
        if (!!gd_sass_is_ffma(w->lo, w->hi) != w->ffma)
            fail_msg("gd_sass_is_ffma(%s) != %d", w->sass, w->ffma);
        if (!!gd_sass_is_nop(w->lo, w->hi) != w->nop)
            fail_msg("gd_sass_is_nop(%s) != %d", w->sass, w->nop);
    }
}

/* ---- a hand-built cubin --------------------------------------------------------- */

#define TINY_MAX_WORDS 16
#define TINY_BUF_BYTES GD_TINY_CUBIN_BYTES(TINY_MAX_WORDS * 16)

static void set_e_flags(unsigned char *elf, unsigned abi_version, uint32_t flags)
{
    Elf64_Ehdr ehdr;
    memcpy(&ehdr, elf, sizeof ehdr);
    ehdr.e_ident[EI_ABIVERSION] = (unsigned char)abi_version;
    ehdr.e_flags = flags;
    memcpy(elf, &ehdr, sizeof ehdr);
}

/* Patch a copy; on failure the copy must be unchanged and the message must
 * contain every needle. */
static void expect_patch_error(const unsigned char *cubin, size_t size, const char *entry,
                               uint32_t count, const char *const *needles)
{
    unsigned char *copy = malloc(size ? size : 1);
    assert_non_null(copy);
    memcpy(copy, cubin, size);
    gd_err err = {{0}};
    assert_int_equal(gd_sass_ffma_to_nop(copy, size, entry, count, &err), -1);
    for (const char *const *n = needles; *n; n++)
        assert_contains(err.msg, *n);
    assert_null(strchr(err.msg, '\n'));
    assert_memory_equal(copy, cubin, size);
    free(copy);
}
#define EXPECT_PATCH_ERROR(cubin, size, entry, count, ...)                                     \
    expect_patch_error((cubin), (size), (entry), (count), (const char *const[]){__VA_ARGS__, NULL})

static void test_patch_built_cubin(void **unused)
{
    (void)unused;
    /* S2R; FFMA x3 (stall 4 / stall 2 + yield + wait + reuse / stall 8); NOP;
     * FFMA; EXIT -- words from sm_75 ptxas output, control bits varied. */
    static const uint64_t words[] = {
        0x0000000000047919, 0x000e220000002100, 0x0000000300037223, 0x000fc80000000002,
        0x3fc0000003027823, 0x041fe40000000002, 0x00c0000002037a23, 0x000fd00000000003,
        0x0000000000007918, 0x000fc00000000000, 0x4040000002057423, 0x000fc80000000002,
        0x000000000000794d, 0x000fea0003800000,
    };
    enum { INSTRUCTIONS = sizeof words / sizeof words[0] / 2 };
    /* The FFMAs at 1..3 as NOPs: own stall and yield, barriers 7/7, no reuse,
     * no operand bits; the first NOP waits on what any of them waited on (the
     * second's barrier 0), the others on nothing. */
    static const uint64_t patched_hi[] = {0x001fc80000000000, 0x000fe40000000000,
                                          0x000fd00000000000};
    unsigned char good[TINY_BUF_BYTES], buf[TINY_BUF_BYTES];
    size_t size = gd_test_tiny_cubin(good, words, 16 * INSTRUCTIONS);
    gd_err err = {{0}};

    memcpy(buf, good, size);
    if (gd_sass_ffma_to_nop(buf, size, "k", 3, &err) != 0)
        fail_msg("%s", err.msg);
    for (unsigned i = 0; i < INSTRUCTIONS; i++) {
        uint64_t lo, hi;
        memcpy(&lo, buf + GD_TINY_TEXT_OFFSET + 16 * i, 8);
        memcpy(&hi, buf + GD_TINY_TEXT_OFFSET + 16 * i + 8, 8);
        if (i >= 1 && i <= 3) {
            assert_int_equal(lo, NOP_LO);
            assert_int_equal(hi, patched_hi[i - 1]);
            assert_true(gd_sass_is_nop(lo, hi));
        } else {
            assert_int_equal(lo, words[2 * i]);
            assert_int_equal(hi, words[2 * i + 1]);
        }
    }
    assert_memory_equal(buf, good, GD_TINY_TEXT_OFFSET); /* headers untouched */
    assert_memory_equal(buf + GD_TINY_TEXT_OFFSET + 16 * INSTRUCTIONS,
                        good + GD_TINY_TEXT_OFFSET + 16 * INSTRUCTIONS,
                        size - GD_TINY_TEXT_OFFSET - 16 * INSTRUCTIONS);

    /* Runs are maximal: a count of 1 is the lone FFMA at 5, not part of 1..3. */
    memcpy(buf, good, size);
    assert_int_equal(gd_sass_ffma_to_nop(buf, size, "k", 1, &err), 0);
    assert_memory_equal(buf, good, GD_TINY_TEXT_OFFSET + 16 * 5);
    uint64_t lo5;
    memcpy(&lo5, buf + GD_TINY_TEXT_OFFSET + 16 * 5, 8);
    assert_int_equal(lo5, NOP_LO);
    assert_memory_equal(buf + GD_TINY_TEXT_OFFSET + 16 * 6, good + GD_TINY_TEXT_OFFSET + 16 * 6,
                        size - GD_TINY_TEXT_OFFSET - 16 * 6);

    EXPECT_PATCH_ERROR(good, size, "k", 2, "expected one run of exactly 2 consecutive FFMA",
                       ".text.k (sm_75, 7 instructions)", "2 runs of FFMA, of lengths 3, 1");
    EXPECT_PATCH_ERROR(good, size, "k", 0, "a run of 0 FFMA");
    EXPECT_PATCH_ERROR(good, size, "nope", 3, "no section .text.nope");
    EXPECT_PATCH_ERROR(good, size, "", 3, "no kernel entry name");

    /* Two runs of the asked-for length: ambiguous. */
    static const uint64_t twice[] = {
        0x0000000300037223, 0x000fc80000000002, 0x0000000300037223, 0x000fc80000000002,
        0x0000000000007918, 0x000fc00000000000, 0x0000000300037223, 0x000fc80000000002,
        0x0000000300037223, 0x000fc80000000002,
    };
    unsigned char two[TINY_BUF_BYTES];
    size_t two_size = gd_test_tiny_cubin(two, twice, 16 * 5);
    EXPECT_PATCH_ERROR(two, two_size, "k", 2,
                       "found 2 such runs among 2 runs of FFMA, of lengths 2, 2");
    static const uint64_t none[] = {0x0000000000007918, 0x000fc00000000000};
    size_t none_size = gd_test_tiny_cubin(two, none, 16 * 1);
    EXPECT_PATCH_ERROR(two, none_size, "k", 4, "found no FFMA at all");

    /* Not a cubin, or not one for a 128-bit encoding. */
    static const unsigned char text[80] = "this is not a cubin";
    EXPECT_PATCH_ERROR(text, sizeof text, "k", 3, "sass patch of k", "not an ELF");
    EXPECT_PATCH_ERROR(good, 20, "k", 3, "too short");
    memcpy(buf, good, size);
    set_e_flags(buf, 8, (GD_TINY_SM75_FLAGS & ~0xff00u) | 61u << 8); /* sm_61, CUDA 13 layout */
    EXPECT_PATCH_ERROR(buf, size, "k", 3, "for sm_61", "sm_70 and later");
    set_e_flags(buf, 7, 0x3d0000u | 61u); /* sm_61 as older toolkits wrote it */
    EXPECT_PATCH_ERROR(buf, size, "k", 3, "for sm_61");
    /* 128-bit targets the patch is not verified on: refused, one line */
    set_e_flags(buf, 8, (GD_TINY_SM75_FLAGS & ~0xff00u) | 70u << 8);
    EXPECT_PATCH_ERROR(buf, size, "k", 3, "sm_70", "patch refused", "not verified");
    set_e_flags(buf, 8, (GD_TINY_SM75_FLAGS & ~0xff00u) | 100u << 8);
    EXPECT_PATCH_ERROR(buf, size, "k", 3, "sm_100", "patch refused", ".nv.capmerc");
    set_e_flags(buf, 8, (GD_TINY_SM75_FLAGS & ~0xff00u) | 121u << 8);
    EXPECT_PATCH_ERROR(buf, size, "k", 3, "sm_121", "patch refused");
    /* and a verified one other than sm_75 is patched */
    set_e_flags(buf, 8, (GD_TINY_SM75_FLAGS & ~0xff00u) | 86u << 8);
    assert_int_equal(gd_sass_ffma_to_nop(buf, size, "k", 3, &err), 0);
    memcpy(buf, good, size);
    Elf64_Ehdr ehdr;
    memcpy(&ehdr, buf, sizeof ehdr);
    ehdr.e_machine = EM_X86_64;
    memcpy(buf, &ehdr, sizeof ehdr);
    EXPECT_PATCH_ERROR(buf, size, "k", 3, "not a CUDA ELF");

    /* A code section that is not whole instructions. */
    memcpy(buf, good, size);
    Elf64_Shdr text_header;
    size_t text_header_at = GD_TINY_TEXT_OFFSET + 16 * INSTRUCTIONS + 2 * sizeof(Elf64_Shdr);
    memcpy(&text_header, buf + text_header_at, sizeof text_header);
    text_header.sh_size -= 8;
    memcpy(buf + text_header_at, &text_header, sizeof text_header);
    EXPECT_PATCH_ERROR(buf, size, "k", 3, "not a whole number of 16-byte");

    /* Every truncation fails (the section headers are at the end) without
     * reading past the buffer: each prefix gets an exact-size allocation. */
    for (size_t len = 0; len < size; len++)
        EXPECT_PATCH_ERROR(good, len, "k", 3, "sass patch of k");
}

/* ---- nvdisasm ---------------------------------------------------------------- */

typedef struct sass_instruction {
    char text[160]; /* "FFMA R3, R0, R3, R2" */
    char mnemonic[48];
    uint64_t lo, hi;
} sass_instruction;

typedef struct sass_listing {
    sass_instruction *items;
    size_t count;
} sass_listing;

/* Parse `nvdisasm -hex` output: "/ *0060* /  FFMA R3, ... ;  / * 0xLO * /" and,
 * on the next line, "/ * 0xHI * /". */
static void parse_listing(char *out, sass_listing *listing)
{
    size_t capacity = 64;
    listing->items = calloc(capacity, sizeof *listing->items);
    listing->count = 0;
    assert_non_null(listing->items);
    sass_instruction *pending = NULL;
    for (char *save = NULL, *line = strtok_r(out, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        char *at = strstr(line, "/*");
        unsigned offset;
        int consumed = 0;
        if (at && sscanf(at, "/*%x*/%n", &offset, &consumed) == 1 && consumed > 0) {
            if (listing->count == capacity) {
                capacity *= 2;
                listing->items = realloc(listing->items, capacity * sizeof *listing->items);
                assert_non_null(listing->items);
            }
            pending = &listing->items[listing->count++];
            memset(pending, 0, sizeof *pending);
            assert_int_equal(offset, 16 * (listing->count - 1));
            char *text = at + consumed;
            while (*text == ' ' || *text == '\t')
                text++;
            char *encoding = strstr(text, "/* 0x");
            assert_non_null(encoding);
            unsigned long long lo;
            assert_int_equal(sscanf(encoding, "/* %llx", &lo), 1);
            pending->lo = lo;
            size_t len = (size_t)(encoding - text);
            while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == ';'))
                len--;
            snprintf(pending->text, sizeof pending->text, "%.*s", (int)len, text);
            size_t m = strcspn(pending->text, " ;");
            snprintf(pending->mnemonic, sizeof pending->mnemonic, "%.*s", (int)m, pending->text);
            /* "@P0 FFMA": the mnemonic follows the guard */
            if (pending->text[0] == '@') {
                const char *after = pending->text + m;
                after += strspn(after, " ");
                m = strcspn(after, " ;");
                snprintf(pending->mnemonic, sizeof pending->mnemonic, "%.*s", (int)m, after);
            }
            continue;
        }
        char *encoding = strstr(line, "/* 0x");
        if (pending && encoding && strspn(line, " \t") == (size_t)(encoding - line)) {
            unsigned long long hi;
            assert_int_equal(sscanf(encoding, "/* %llx", &hi), 1);
            pending->hi = hi;
            pending = NULL;
        }
    }
}

static void disassemble(const char *nvdisasm, const char *cubin_path, sass_listing *listing)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' -c -hex -ndf '%s'", nvdisasm, cubin_path);
    size_t cap = 4 << 20;
    char *out = malloc(cap);
    assert_non_null(out);
    if (gd_test_run(cmd, out, cap) != 0)
        fail_msg("%s failed:\n%s", cmd, out);
    parse_listing(out, listing);
    free(out);
    if (listing->count == 0)
        fail_msg("no instructions in the listing of %s", cubin_path);
}

static int is_mnemonic(const sass_instruction *in, const char *name)
{
    size_t n = strlen(name);
    return strncmp(in->mnemonic, name, n) == 0 && (in->mnemonic[n] == '\0' ||
                                                     in->mnemonic[n] == '.');
}

/* ---- raw words through nvdisasm -b --------------------------------------------- */

static void test_raw_encodings_decode(void **unused)
{
    (void)unused;
    const char *nvdisasm = gd_test_nvdisasm();
    if (!nvdisasm)
        GD_SKIP("nvdisasm not found (pip install nvidia-cuda-nvdisasm)");
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    /* FFMA R1, R2, {R3 | R4 | imm | c[..] | UR}, ... in forms 1..7 (6 and 7
     * with the uniform-operand bit, hi bit 27), then a patched NOP (stall 4,
     * yield), then a NOP with stall 15 and no yield. */
    uint64_t words[2 * 9];
    for (unsigned form = 1; form <= 7; form++) {
        words[2 * (form - 1)] = UINT64_C(0x0000000302017023) | (uint64_t)form << 9;
        words[2 * (form - 1) + 1] = UINT64_C(0x000fc80000000004) |
                                    (form >= 6 ? UINT64_C(1) << 27 : 0);
    }
    words[14] = NOP_LO, words[15] = 0x000fe80000000000;
    words[16] = NOP_LO, words[17] = 0x000fde0000000000;
    for (unsigned i = 0; i < 9; i++)
        assert_int_equal(!!gd_sass_is_ffma(words[2 * i], words[2 * i + 1]), i < 7);
    char path[1200];
    snprintf(path, sizeof path, "%s/raw.bin", dir);
    gd_err err;
    assert_int_equal(gd_write_atomic(path, words, sizeof words, &err), 0);

    for (size_t t = 0; t < GD_TEST_TARGET_COUNT; t++) {
        int sm = gd_test_targets[t];
        char why[GD_SASS_REFUSAL_BYTES];
        if (gd_sass_nop_patch_refusal(sm, why, sizeof why)) {
            /* not patched there: what nvdisasm makes of the words is no claim */
            printf("note: sm_%d: raw words not checked (%s)\n", sm, why);
            continue;
        }
        char cmd[2048], out[16384];
        snprintf(cmd, sizeof cmd, "'%s' -hex -b SM%d '%s'", nvdisasm, sm, path);
        if (gd_test_run(cmd, out, sizeof out) != 0)
            fail_msg("%s failed:\n%s", cmd, out);
        sass_listing listing;
        parse_listing(out, &listing);
        assert_int_equal(listing.count, 9);
        for (unsigned i = 0; i < 9; i++) {
            const sass_instruction *in = &listing.items[i];
            if (!is_mnemonic(in, i < 7 ? "FFMA" : "NOP"))
                fail_msg("sm_%d: word %u (0x%016llx) decodes as '%s'", sm, i,
                         (unsigned long long)words[2 * i], in->text);
            assert_int_equal(in->lo, words[2 * i]);
            assert_int_equal(in->hi, words[2 * i + 1]);
        }
        free(listing.items);
        /* Form 0 of the FFMA opcode is no instruction at all. */
        uint64_t form0[2] = {0x0000000302017023, 0x000fc80000000004};
        assert_int_equal(gd_write_atomic(path, form0, sizeof form0, &err), 0);
        snprintf(cmd, sizeof cmd, "'%s' -b SM%d '%s'", nvdisasm, sm, path);
        assert_true(gd_test_run(cmd, out, sizeof out) != 0);
        assert_contains(out, "Illegal instruction");
        assert_int_equal(gd_write_atomic(path, words, sizeof words, &err), 0);
    }
    gd_test_rmrf(dir);
    free(dir);
}

/* ---- ptxas cubins -------------------------------------------------------------- */

static int need_tools(const char **ptxas, const char **nvdisasm)
{
    *ptxas = gd_test_ptxas();
    if (!*ptxas) {
        GD_SKIP("ptxas not found");
        return 0;
    }
    if (nvdisasm) {
        *nvdisasm = gd_test_nvdisasm();
        if (!*nvdisasm) {
            GD_SKIP("nvdisasm not found (pip install nvidia-cuda-nvdisasm)");
            return 0;
        }
    }
    return 1;
}

/* Assemble the block kernel; returns the cubin and fills its path. */
static unsigned char *assemble_block(const char *ptxas, const char *dir, int sm,
                                     unsigned ffma_count, unsigned blocks, size_t *size,
                                     char *path, size_t path_cap)
{
    char name[64];
    snprintf(name, sizeof name, "ffma-sm%d-%u-x%u", sm, ffma_count, blocks);
    char *ptx = ffma_block_ptx(sm, gd_ptx_isa_for_target(sm), ffma_count, blocks);
    unsigned char *cubin = gd_test_ptxas_compile(ptxas, dir, name, ptx, sm, size);
    free(ptx);
    if (!cubin)
        fail_msg("%s did not assemble", name);
    snprintf(path, path_cap, "%s/%s.cubin", dir, name);
    return cubin;
}

/* One target, one block length: the whole check described at the top. */
static unsigned check_patch(const char *ptxas, const char *nvdisasm, const char *dir, int sm,
                            unsigned ffma_count)
{
    char path[1200], patched_path[1300];
    size_t size = 0;
    unsigned char *cubin = assemble_block(ptxas, dir, sm, ffma_count, 1, &size, path, sizeof path);
    gd_err err = {{0}};
    uint64_t text_offset = 0, text_bytes = 0;
    assert_int_equal(gd_cubin_text_section(cubin, size, ENTRY, &text_offset, &text_bytes, &err), 0);

    sass_listing before, after;
    disassemble(nvdisasm, path, &before);
    assert_int_equal(before.count, text_bytes / 16);
    unsigned ffmas = 0, nops = 0, forms = 0;
    for (size_t i = 0; i < before.count; i++) {
        const sass_instruction *in = &before.items[i];
        uint64_t lo, hi;
        memcpy(&lo, cubin + text_offset + 16 * i, 8);
        memcpy(&hi, cubin + text_offset + 16 * i + 8, 8);
        if (lo != in->lo || hi != in->hi)
            fail_msg("sm_%d: instruction %zu of the cubin differs from nvdisasm's '%s'", sm, i,
                     in->text);
        int ffma = is_mnemonic(in, "FFMA"), nop = is_mnemonic(in, "NOP");
        if (!!gd_sass_is_ffma(lo, hi) != ffma || !!gd_sass_is_nop(lo, hi) != nop)
            fail_msg("sm_%d: the patcher classifies '%s' (0x%016llx) wrongly", sm, in->text,
                     (unsigned long long)lo);
        if ((REUSE(hi) != 0) != (strstr(in->text, ".reuse") != NULL))
            fail_msg("sm_%d: reuse bits 0x%x disagree with '%s'", sm, (unsigned)REUSE(hi),
                     in->text);
        ffmas += (unsigned)ffma;
        nops += (unsigned)nop;
        if (ffma)
            forms |= 1u << ((lo >> 9) & 7);
    }
    if (ffmas != ffma_count)
        fail_msg("sm_%d: ptxas made %u FFMAs of the %u in the PTX", sm, ffmas, ffma_count);

    unsigned char *patched = malloc(size);
    assert_non_null(patched);
    memcpy(patched, cubin, size);
    if (gd_sass_ffma_to_nop(patched, size, ENTRY, ffma_count, &err) != 0)
        fail_msg("sm_%d, %u FFMAs: %s", sm, ffma_count, err.msg);
    /* Nothing outside the code section moved. */
    assert_memory_equal(patched, cubin, text_offset);
    assert_memory_equal(patched + text_offset + text_bytes, cubin + text_offset + text_bytes,
                        size - text_offset - text_bytes);
    snprintf(patched_path, sizeof patched_path, "%s-patched.cubin", path);
    assert_int_equal(gd_write_atomic(patched_path, patched, size, &err), 0);
    disassemble(nvdisasm, patched_path, &after);
    assert_int_equal(after.count, before.count);
    unsigned new_nops = 0, run_waits = 0;
    for (size_t i = 0; i < before.count; i++)
        if (is_mnemonic(&before.items[i], "FFMA"))
            run_waits |= (unsigned)WAIT_MASK(before.items[i].hi);
    /* Independent chains on fixed-latency values: nothing to wait for. */
    assert_int_equal(run_waits, 0);
    for (size_t i = 0; i < after.count; i++) {
        const sass_instruction *was = &before.items[i], *now = &after.items[i];
        if (!is_mnemonic(was, "FFMA")) {
            if (was->lo != now->lo || was->hi != now->hi || strcmp(was->text, now->text) != 0)
                fail_msg("sm_%d: instruction %zu changed: '%s' -> '%s'", sm, i, was->text,
                         now->text);
            continue;
        }
        if (strcmp(now->text, "NOP") != 0)
            fail_msg("sm_%d: FFMA %zu became '%s', not NOP", sm, i, now->text);
        new_nops++;
        assert_int_equal(now->lo, NOP_LO);
        /* one cycle each in a run of 16 or more, else the FFMA's own */
        assert_int_equal(STALL(now->hi), ffma_count >= 16 ? 1u : STALL(was->hi));
        assert_int_equal(YIELD(now->hi), YIELD(was->hi));
        assert_int_equal(WRITE_BARRIER(now->hi), 7);
        assert_int_equal(READ_BARRIER(now->hi), 7);
        assert_int_equal(WAIT_MASK(now->hi), 0);
        assert_int_equal(REUSE(now->hi), 0);
        assert_int_equal(OPERAND_BITS(now->hi), 0);
        assert_int_equal(now->hi >> 62, 0);
    }
    assert_int_equal(new_nops, ffma_count);
    unsigned nops_after = 0;
    for (size_t i = 0; i < after.count; i++)
        nops_after += (unsigned)is_mnemonic(&after.items[i], "NOP");
    assert_int_equal(nops_after, nops + ffma_count);

    /* Once patched there is no such run left to patch. */
    EXPECT_PATCH_ERROR(patched, size, ENTRY, ffma_count, "found no FFMA at all");
    free(before.items);
    free(after.items);
    free(patched);
    free(cubin);
    return forms;
}

/* How many sections of an ELF cubin are named .nv.capmerc* or .nv.merc*. */
static int merc_sections(const unsigned char *elf, size_t size)
{
    Elf64_Ehdr ehdr;
    assert_true(size >= sizeof ehdr);
    memcpy(&ehdr, elf, sizeof ehdr);
    assert_true(ehdr.e_shoff + (uint64_t)ehdr.e_shnum * sizeof(Elf64_Shdr) <= size);
    assert_true(ehdr.e_shstrndx < ehdr.e_shnum);
    Elf64_Shdr names;
    memcpy(&names, elf + ehdr.e_shoff + ehdr.e_shstrndx * sizeof names, sizeof names);
    assert_true(names.sh_offset + names.sh_size <= size);
    int count = 0;
    for (unsigned i = 0; i < ehdr.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, elf + ehdr.e_shoff + i * sizeof sh, sizeof sh);
        if (sh.sh_name >= names.sh_size)
            continue;
        const char *name = (const char *)elf + names.sh_offset + sh.sh_name;
        size_t room = names.sh_size - sh.sh_name;
        if (strnlen(name, room) == room)
            continue;
        count += !strncmp(name, ".nv.capmerc", 11) || !strncmp(name, ".nv.merc", 8);
    }
    return count;
}

static void test_patch_ptxas_blocks(void **unused)
{
    (void)unused;
    const char *ptxas, *nvdisasm;
    if (!need_tools(&ptxas, &nvdisasm))
        return;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    static const unsigned lengths[] = {16, 64, 200};
    unsigned all_forms = 0;
    int verified = 0, refused = 0;
    for (size_t t = 0; t < GD_TEST_TARGET_COUNT; t++) {
        int sm = gd_test_targets[t];
        char why[GD_SASS_REFUSAL_BYTES];
        int refuses = gd_sass_nop_patch_refusal(sm, why, sizeof why);
        size_t size = 0;
        char path[1200];
        unsigned char *cubin = assemble_block(ptxas, dir, sm, 16, 1, &size, path, sizeof path);
        int merc = merc_sections(cubin, size);
        /* accepted exactly where the cubin holds nothing the driver could
         * regenerate the code from (and the checks below pass) */
        if (refuses != (merc > 0))
            fail_msg("sm_%d: the patcher %s it, and its cubin has %d .nv.capmerc/.nv.merc "
                     "sections", sm, refuses ? "refuses" : "accepts", merc);
        if (refuses) {
            assert_null(strchr(why, '\n'));
            assert_true(strstr(why, "patch refused") == why);
            EXPECT_PATCH_ERROR(cubin, size, ENTRY, 16, "patch refused", ".nv.capmerc");
            printf("note: sm_%d: %d .nv.capmerc/.nv.merc sections: %s\n", sm, merc, why);
            free(cubin);
            refused++;
            continue;
        }
        free(cubin);
        verified++;
        unsigned forms = 0;
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
            forms |= check_patch(ptxas, nvdisasm, dir, gd_test_targets[t], lengths[l]);
        char seen[64] = "";
        for (unsigned f = 1; f <= 7; f++)
            if (forms & (1u << f))
                snprintf(seen + strlen(seen), sizeof seen - strlen(seen), " 0x%x23", 2 * f);
        printf("note: sm_%d: FFMA forms patched:%s\n", gd_test_targets[t], seen);
        /* register, immediate and constant-operand forms at least */
        assert_true(__builtin_popcount(forms) >= 4);
        all_forms |= forms;
    }
    if (all_forms != 0xfe)
        printf("note: not every FFMA form (0x223..0xe23) came out of ptxas (mask 0x%x)\n",
               all_forms);
    printf("note: patch verified on %d targets, refused on %d\n", verified, refused);
    assert_true(verified > 0);
    gd_test_rmrf(dir);
    free(dir);
}

static void test_patch_errors_on_ptxas_cubins(void **unused)
{
    (void)unused;
    const char *ptxas;
    if (!need_tools(&ptxas, NULL))
        return;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    char path[1200];
    /* sm_75 and sm_90: the two families of FFMA forms (constant bank, uniform
     * register); the block test already covers every target. */
    static const int targets[] = {75, 90};
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        int sm = targets[t];
        size_t size = 0;
        unsigned char *cubin = assemble_block(ptxas, dir, sm, 16, 1, &size, path, sizeof path);
        EXPECT_PATCH_ERROR(cubin, size, ENTRY, 17, "expected one run of exactly 17",
                           "1 run of FFMA, of lengths 16");
        EXPECT_PATCH_ERROR(cubin, size, ENTRY, 15, "expected one run of exactly 15");
        EXPECT_PATCH_ERROR(cubin, size, "other_kernel", 16, "no section .text.other_kernel");
        /* Truncated: cut inside the section header table, inside the code. */
        uint64_t text_offset = 0, text_bytes = 0;
        gd_err err = {{0}};
        assert_int_equal(gd_cubin_text_section(cubin, size, ENTRY, &text_offset, &text_bytes,
                                               &err), 0);
        Elf64_Ehdr ehdr;
        memcpy(&ehdr, cubin, sizeof ehdr);
        size_t table_end = (size_t)(ehdr.e_shoff + (uint64_t)ehdr.e_shnum * ehdr.e_shentsize);
        assert_true(table_end <= size);
        EXPECT_PATCH_ERROR(cubin, table_end - 1, ENTRY, 16, "sass patch of " ENTRY,
                           "runs past the end");
        EXPECT_PATCH_ERROR(cubin, (size_t)(text_offset + text_bytes / 2), ENTRY, 16,
                           "sass patch of " ENTRY);
        EXPECT_PATCH_ERROR(cubin, 63, ENTRY, 16, "too short");
        free(cubin);

        /* Two blocks of the same length: the patcher cannot tell which. */
        cubin = assemble_block(ptxas, dir, sm, 16, 2, &size, path, sizeof path);
        EXPECT_PATCH_ERROR(cubin, size, ENTRY, 16, "found 2 such runs", "lengths 16, 16");
        free(cubin);
    }

    /* sm_6x: 64-bit instructions in bundles; the patcher must refuse. */
    static const char sm61_ptx[] = ".version 5.0\n.target sm_61\n.address_size 64\n"
                                   ".visible .entry k()\n{\n    ret;\n}\n";
    char cmd[4096], out[4096];
    size_t size = 0;
    gd_err err;
    snprintf(path, sizeof path, "%s/sm61.ptx", dir);
    assert_int_equal(gd_write_atomic(path, sm61_ptx, strlen(sm61_ptx), &err), 0);
    snprintf(cmd, sizeof cmd, "'%s' -arch=sm_61 -o '%s/sm61.cubin' '%s'", ptxas, dir, path);
    if (gd_test_run(cmd, out, sizeof out) == 0) {
        snprintf(path, sizeof path, "%s/sm61.cubin", dir);
        unsigned char *cubin = (unsigned char *)gd_read_file(path, &size, &err);
        assert_non_null(cubin);
        EXPECT_PATCH_ERROR(cubin, size, "k", 1, "for sm_61");
        free(cubin);
    } else {
        printf("note: this ptxas cannot make sm_61 cubins (CUDA 13 starts at sm_75); an sm_75 "
               "cubin with e_flags rewritten to sm_61 stands in\n");
    }
    unsigned char *cubin = assemble_block(ptxas, dir, 75, 16, 1, &size, path, sizeof path);
    Elf64_Ehdr ehdr;
    memcpy(&ehdr, cubin, sizeof ehdr);
    int sm = 0;
    assert_int_equal(gd_cubin_sm_version(cubin, size, &sm, &err), 0);
    assert_int_equal(sm, 75);
    if (ehdr.e_ident[EI_ABIVERSION] >= 8)
        ehdr.e_flags = (ehdr.e_flags & ~0xff00u) | 61u << 8;
    else
        ehdr.e_flags = (ehdr.e_flags & ~0xffu) | 61u;
    memcpy(cubin, &ehdr, sizeof ehdr);
    EXPECT_PATCH_ERROR(cubin, size, ENTRY, 16, "the cubin is for sm_61", "sm_70 and later");
    free(cubin);
    gd_test_rmrf(dir);
    free(dir);
}

/* A CUDA device of compute capability 10.0 (the mock driver, whose JIT runs
 * ptxas for sm_100): icache_seq's nop variant plans the FFMA variant with no
 * patch and a note; its kernel loads as the JIT made it; a patch asked for
 * anyway is refused in one line; `gpudissect run` records the note in
 * meta.json.  On the mock's default sm_75 the same plan keeps its patch. */
static void test_cuda_sm100_falls_back_to_ffma(void **unused)
{
    (void)unused;
    const char *ptxas, *mock = gd_test_mock_libcuda();
    if (!need_tools(&ptxas, NULL))
        return;
    if (!mock)
        GD_SKIP("mock driver (libmockcuda.so) not found");
    setenv("GPUDISSECT_LIBCUDA", mock, 1);
    const gd_probe *probe = gd_probe_find("icache_seq");
    assert_non_null(probe);
    static const struct {
        const char *cc;
        int patched;
    } cases[] = {{"10.0", 0}, {"7.5", 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv("GD_MOCK_CC", cases[i].cc, 1);
        gd_device *dev = NULL;
        gd_err err = {{0}};
        gd_device_opts dopts = {0};
        if (gd_device_open("cuda:0", &dopts, &dev, &err) != 0)
            fail_msg("open cuda:0 on the mock: %s", err.msg);
        const gd_device_info *info = gd_device_get_info(dev);
        char cc[16];
        snprintf(cc, sizeof cc, "%d.%d", info->cc_major, info->cc_minor);
        assert_string_equal(cc, cases[i].cc);
        gd_probe_opts opts = {0};
        snprintf(opts.variant, sizeof opts.variant, "nop");
        gd_probe_plan plan;
        assert_int_equal(probe->plan(&opts, info, 2048, &plan, &err), 0);
        if (cases[i].patched) {
            assert_int_equal(plan.load.patch, GD_PATCH_FFMA_TO_NOP);
            assert_string_equal(plan.opts.variant, "nop");
            assert_string_equal(plan.note, "");
        } else {
            assert_int_equal(plan.load.patch, GD_PATCH_NONE);
            assert_string_equal(plan.opts.variant, "ffma");
            assert_contains(plan.note, "patch refused: sm_100");
            assert_contains(plan.note, "ran the ffma variant");
            assert_null(strchr(plan.note, '\n'));
        }
        gd_kernel *kernel = NULL;
        if (gd_kernel_load(dev, plan.ptx, plan.entry, &plan.load, &kernel, &err) != 0)
            fail_msg("cc %s: load: %s", cases[i].cc, err.msg);
        gd_kernel_unload(dev, kernel);
        if (!cases[i].patched) {
            /* the patch itself, asked for on sm_100: refused, one line */
            gd_load_opts forced = {.patch = GD_PATCH_FFMA_TO_NOP,
                                   .patch_count = plan.intended_instructions};
            kernel = NULL;
            assert_int_equal(gd_kernel_load(dev, plan.ptx, plan.entry, &forced, &kernel, &err), -1);
            assert_null(kernel);
            assert_contains(err.msg, "patch refused");
            assert_null(strchr(err.msg, '\n'));
        }
        gd_probe_plan_free(probe, &plan);
        gd_device_close(dev);
    }
    /* the run's meta.json says what ran (the mock runs no kernel: the run
     * stops at the first decode, after meta.json is written) */
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    char cmd[4096], out[8192], path[1300];
    snprintf(cmd, sizeof cmd,
             "GD_MOCK_CC=10.0 %s run --device cuda:0 --probe icache_seq --variant nop --sweep "
             "1KiB:1KiB --samples 4 --out %s/c",
             gd_test_binary(), dir);
    gd_test_run(cmd, out, sizeof out);
    assert_contains(out, "patch refused: sm_100");
    snprintf(path, sizeof path, "%s/c/meta.json", dir);
    size_t size;
    gd_err err;
    char *meta = gd_read_file(path, &size, &err);
    if (!meta)
        fail_msg("%s\n%s", err.msg, out);
    assert_contains(meta, "\"note\": \"icache_seq nop: patch refused: sm_100");
    assert_contains(meta, "\"variant\": \"ffma\"");
    free(meta);
    unsetenv("GD_MOCK_CC");
    gd_test_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classify_known_words),
        cmocka_unit_test(test_patch_built_cubin),
        cmocka_unit_test(test_raw_encodings_decode),
        cmocka_unit_test(test_patch_ptxas_blocks),
        cmocka_unit_test(test_patch_errors_on_ptxas_cubins),
        cmocka_unit_test(test_cuda_sm100_falls_back_to_ffma),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
