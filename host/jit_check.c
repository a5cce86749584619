/* jit_check.c -- the run-time check of the JIT's machine code (jit_check.h).
 *
 * The same checks the tests make on ptxas' output (tests/ptx_toolchain.h,
 * tests/test_ptxas_icache.c, tests/test_l1_path.c), made on the cubin the
 * driver's JIT returned, before the kernel's first launch:
 *
 *   - code range: .text.<entry> of the cubin (kernels/cubin_elf.c) in 16-byte
 *     instructions against the plan's range; only on sm_70+, where every
 *     instruction is 16 bytes (older encodings bundle control words);
 *   - intended instructions: the cubin is written to a temporary file and
 *     disassembled with `nvdisasm -c`; the lines of the probe's opcode are
 *     counted (FFMA for the instruction-cache probes, whose block must survive
 *     whole; LDG without .STRONG.GPU for the L1-path probes, whose flush pass
 *     uses ld.cg -- exactly as the tests count them);
 *   - order: the listing (labels kept, for the control flow) and the plan's
 *     PTX are read by host/ptx_reader.h and host/sass_reader.h and held to
 *     each other by host/sass_order.h's gd_order_check -- every timed region
 *     of the PTX must be in the SASS with its loads, clock reads and stores in
 *     the PTX's order (the check tests/test_sass_order.c makes on ptxas'
 *     output for every target).  The SASS names kernel parameters by their
 *     c[0x0] offsets, whose base differs by target: gd_jit_param_base
 *     measures it on the device itself (a two-parameter kernel through the
 *     same JIT and nvdisasm), since a card's machine may have no ptxas.
 *     A reader's limit (labels, registers, clock reads, memory) makes
 *     "unchecked: ...", never an abort and never a pass.
 *
 * Only a failed check is a mismatch.  Missing tools or a plan that asks for
 * nothing make "unchecked: why", which the runner records and lets run.
 */
#include "host/jit_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/cuda_device.h"
#include "host/sass_order.h"
#include "kernels/cubin_elf.h"

/* sm_70+ encodes every instruction in 16 bytes (control bits inside). */
#define SASS_INSTRUCTION_BYTES 16u
#define SASS_FIXED_WIDTH_FIRST_SM 70
/* nvdisasm's listing of one probe kernel is a few thousand lines at most. */
#define SASS_LISTING_MAX_BYTES (8u << 20)

/* FNV-1a, 64-bit (Fowler, Noll, Vo; the offset basis and prime of the
 * reference: http://www.isthe.com/chongo/tech/comp/fnv/). */
#define FNV64_OFFSET_BASIS 0xcbf29ce484222325ull
#define FNV64_PRIME 0x100000001b3ull

const char *gd_jit_status_name(gd_jit_status status)
{
    switch (status) {
    case GD_JIT_OK: return "ok";
    case GD_JIT_UNCHECKED: return "unchecked";
    case GD_JIT_MISMATCH: return "mismatch";
    }
    return "unknown";
}

void gd_jit_cubin_hash(const void *bytes, size_t size, char out[17])
{
    uint64_t h = FNV64_OFFSET_BASIS;
    const unsigned char *b = bytes;
    for (size_t i = 0; i < size; i++) {
        h ^= b[i];
        h *= FNV64_PRIME;
    }
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* Which opcode each probe's intended_instructions counts (the plan says how
 * many, the probe's file says of what: see each plan function's comment). */
static const struct {
    const char *probe, *opcode;
} intended_opcodes[] = {
    {"icache_seq", "FFMA"},
    {"icache_av", "FFMA"},
    {"const_icache_share", "FFMA"},
    {"resv_stall", "LDG"},
    {"mshr", "LDG"},
};

const char *gd_jit_intended_opcode(const char *probe)
{
    for (size_t i = 0; probe && i < sizeof intended_opcodes / sizeof intended_opcodes[0]; i++)
        if (strcmp(intended_opcodes[i].probe, probe) == 0)
            return intended_opcodes[i].opcode;
    return NULL;
}

const char *gd_jit_find_nvdisasm(char *buf, size_t size)
{
    const char *env = getenv(GD_NVDISASM_ENV);
    if (env && *env) {
        if (access(env, X_OK) != 0)
            return NULL;
        snprintf(buf, size, "%s", env);
        return buf;
    }
    const char *path = getenv("PATH");
    if (!path)
        return NULL;
    const char *p = path;
    while (*p) {
        size_t n = strcspn(p, ":");
        if (n > 0) {
            snprintf(buf, size, "%.*s/nvdisasm", (int)n, p);
            if (access(buf, X_OK) == 0)
                return buf;
        }
        p += n;
        if (*p == ':')
            p++;
    }
    return NULL;
}

/* Whether a SASS line is opcode op ("@!P0 " guard allowed), as the tests ask. */
static int sass_is(const char *line, const char *op)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (line[0] == '@') {
        const char *space = strchr(line, ' ');
        line = space ? space + 1 : line;
    }
    size_t k = strlen(op);
    return !strncmp(line, op, k) && (line[k] == ' ' || line[k] == '.' || line[k] == 0);
}

/* Counts `opcode` lines in a listing (LDG: the L1 loads, not .STRONG.GPU). */
static int sass_count(const char *sass, const char *opcode)
{
    int n = 0;
    for (const char *line = sass; *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        char one[512];
        snprintf(one, sizeof one, "%.*s", (int)(len < sizeof one - 1 ? len : sizeof one - 1),
                 line);
        if (sass_is(one, opcode) && !(strcmp(opcode, "LDG") == 0 && strstr(one, "STRONG.GPU")))
            n++;
        line += len;
        if (*line == '\n')
            line++;
    }
    return n;
}

/* nvdisasm -c of the cubin, reduced to one instruction per line (the text
 * between the address comment and the ';') and its ".L_x_N:" labels, as
 * tests/ptx_toolchain.h (gd_test_sass_labels) does. */
char *gd_jit_disassemble(const char *nvdisasm, const void *cubin, size_t size, gd_err *err)
{
    char path[] = "/tmp/gd-jit-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return gd_fail(err, "nvdisasm: cannot create a temporary file for the cubin"), NULL;
    FILE *f = fdopen(fd, "wb");
    if (!f || fwrite(cubin, 1, size, f) != size || fclose(f) != 0) {
        if (!f)
            close(fd);
        unlink(path);
        return gd_fail(err, "nvdisasm: cannot write the cubin to %s", path), NULL;
    }
    char cmd[2048];
    /* -ndf: no dataflow pass (half of nvdisasm's time; the listing of every
     * probe kernel is the same without it: tests/ptx_toolchain.h) */
    snprintf(cmd, sizeof cmd, "'%s' -c -ndf '%s' 2>&1", nvdisasm, path);
    FILE *p = popen(cmd, "r");
    char *out = malloc(SASS_LISTING_MAX_BYTES);
    size_t used = 0;
    int broken = !p || !out;
    char line[1024];
    char first_line[256] = "";
    while (p && fgets(line, sizeof line, p)) {
        if (!first_line[0])
            snprintf(first_line, sizeof first_line, "%s", line);
        /* a label line: ".L_x_4:" (the branch targets of the listing) */
        char *label = line + strspn(line, " \t");
        if (!strncmp(label, ".L_", 3)) {
            size_t len = strspn(label + 3, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                           "0123456789_") + 3;
            if (label[len] == ':' && out) {
                if (used + len + 3 > SASS_LISTING_MAX_BYTES) {
                    broken = 1;
                    continue;
                }
                memcpy(out + used, label, len + 1);
                used += len + 1;
                out[used++] = '\n';
            }
            continue;
        }
        /* a line: address comment, instruction, ';', encoding comment */
        char *at = strstr(line, "/*");
        if (!at || !strchr("0123456789abcdef", at[2]))
            continue;
        char *close_comment = strstr(at, "*/");
        if (!close_comment)
            continue;
        char *insn = close_comment + 2;
        while (*insn == ' ' || *insn == '\t')
            insn++;
        size_t len = strcspn(insn, ";");
        while (len > 0 && (insn[len - 1] == ' ' || insn[len - 1] == '\t'))
            len--;
        if (len == 0 || !out)
            continue;
        if (used + len + 2 > SASS_LISTING_MAX_BYTES) {
            broken = 1;
            continue;
        }
        memcpy(out + used, insn, len);
        used += len;
        out[used++] = '\n';
    }
    int status = p ? pclose(p) : -1;
    unlink(path);
    if (broken || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(out);
        first_line[strcspn(first_line, "\n")] = '\0';
        return gd_fail(err, "%s -c failed on the JIT's cubin%s%s", nvdisasm,
                       first_line[0] ? ": " : "", first_line),
               NULL;
    }
    out[used] = '\0';
    return out;
}

/* The line of `msg` after `after` that starts with "   -> " (the event the
 * order check marks), without its marker, into out. */
static void marked_event(const char *msg, const char *after, char *out, size_t size)
{
    const char *s = after ? strstr(msg, after) : msg;
    const char *m = s ? strstr(s, "   -> ") : NULL;
    if (!m) {
        snprintf(out, size, "nothing: the region ends there");
        return;
    }
    m += 6;
    snprintf(out, size, "%.*s", (int)strcspn(m, "\n"), m);
}

gd_jit_status gd_jit_check_order(const char *probe, const gd_probe_plan *plan, const char *sass,
                                 unsigned param_base, char *verdict, size_t size)
{
    (void)probe;
    if (!sass) {
        snprintf(verdict, size, "unchecked: no nvdisasm");
        return GD_JIT_UNCHECKED;
    }
    if (!param_base) {
        snprintf(verdict, size, "unchecked: the target's parameter base was not measured");
        return GD_JIT_UNCHECKED;
    }
    gd_order_prog ptx, code;
    gd_order_parse_pair(&ptx, &code, plan->ptx, sass, param_base);
    char msg[4096] = "";
    int timed = 0;
    int rc = gd_order_check(&ptx, &code, &timed, msg, sizeof msg);
    gd_jit_status status = GD_JIT_OK;
    if (rc == GD_ORDER_UNCHECKED) {
        status = GD_JIT_UNCHECKED;
        snprintf(verdict, size, "unchecked: %s", msg);
    } else if (rc != 0) {
        status = GD_JIT_MISMATCH;
        char want[160], got[160];
        marked_event(msg, "PTX order:", want, sizeof want);
        marked_event(msg, "SASS order", got, sizeof got);
        snprintf(verdict, size, "mismatch: %.*s; PTX `%s`, SASS `%s`", (int)strcspn(msg, "\n"),
                 msg, want, strstr(msg, "SASS order") ? got : "(no timed region in its place)");
    } else if (timed == 0) {
        status = GD_JIT_UNCHECKED;
        snprintf(verdict, size, "unchecked: %s has no timed region", plan->entry);
    } else {
        snprintf(verdict, size, "ok: %d timed region%s in PTX order", timed, timed == 1 ? "" : "s");
    }
    gd_order_free(&ptx);
    gd_order_free(&code);
    return status;
}

int gd_jit_param_base(gd_device *dev, const char *nvdisasm, unsigned *out, gd_err *err)
{
    *out = 0;
    if (!nvdisasm)
        return gd_fail(err, "parameter base: no nvdisasm");
    const gd_device_info *info = gd_device_get_info(dev);
    char *ptx = gd_sass_param_base_ptx(info->cc_major * 10 + info->cc_minor);
    if (!ptx)
        return gd_fail(err, "parameter base: out of memory for its kernel");
    gd_kernel *kernel = NULL;
    const void *cubin = NULL;
    size_t size = 0;
    char *sass = NULL;
    int rc = gd_kernel_load(dev, ptx, "gd_param_base", NULL, &kernel, err);
    free(ptx);
    if (rc != 0)
        return gd_fail_prefix(err, "parameter base: loading its kernel");
    if (cuda_kernel_jit_cubin(kernel, &cubin, &size) != 0)
        rc = gd_fail(err, "parameter base: the JIT returned no cubin");
    else if (!(sass = gd_jit_disassemble(nvdisasm, cubin, size, err)))
        rc = gd_fail_prefix(err, "parameter base");
    else if (!(*out = gd_sass_param_base(sass)))
        rc = gd_fail(err, "parameter base: no c[0x0] parameter read in the JIT's gd_param_base");
    free(sass);
    gd_kernel_unload(dev, kernel);
    return rc;
}

static gd_jit_status worse(gd_jit_status a, gd_jit_status b)
{
    /* mismatch > ok > unchecked: one passing check makes "ok" unless another failed */
    if (a == GD_JIT_MISMATCH || b == GD_JIT_MISMATCH)
        return GD_JIT_MISMATCH;
    if (a == GD_JIT_OK || b == GD_JIT_OK)
        return GD_JIT_OK;
    return GD_JIT_UNCHECKED;
}

int gd_jit_check(const char *probe, const gd_probe_plan *plan, const void *cubin, size_t size,
                 const char *nvdisasm, unsigned param_base, gd_jit_verdict *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    out->intended_found = -1;
    out->status = GD_JIT_UNCHECKED;

    int sm = 0;
    uint64_t text_bytes = 0;
    if (gd_cubin_sm_version(cubin, size, &sm, err) != 0 ||
        gd_cubin_text_size(cubin, size, plan->entry, &text_bytes, err) != 0)
        return gd_fail_prefix(err, "%s: checking the JIT's cubin", probe);

    /* 1. the entry's size */
    gd_jit_status range = GD_JIT_UNCHECKED;
    if (sm < SASS_FIXED_WIDTH_FIRST_SM) {
        snprintf(out->code_range, sizeof out->code_range,
                 "unchecked: sm_%d bundles instructions with control words", sm);
    } else {
        out->instructions = (uint32_t)(text_bytes / SASS_INSTRUCTION_BYTES);
        if (!plan->code_min_instructions) {
            snprintf(out->code_range, sizeof out->code_range,
                     "unchecked: the plan gives no range (%u instructions)", out->instructions);
        } else if (out->instructions < plan->code_min_instructions ||
                   out->instructions > plan->code_max_instructions) {
            range = GD_JIT_MISMATCH;
            snprintf(out->code_range, sizeof out->code_range,
                     "mismatch: %u instructions in %s, the probe expects %u..%u",
                     out->instructions, plan->entry, plan->code_min_instructions,
                     plan->code_max_instructions);
        } else {
            range = GD_JIT_OK;
            snprintf(out->code_range, sizeof out->code_range, "ok: %u instructions in %u..%u",
                     out->instructions, plan->code_min_instructions,
                     plan->code_max_instructions);
        }
    }

    /* 2. the intended instructions, in nvdisasm's listing */
    gd_jit_status intended = GD_JIT_UNCHECKED;
    const char *opcode = gd_jit_intended_opcode(probe);
    char *sass = NULL;
    if (nvdisasm) {
        sass = gd_jit_disassemble(nvdisasm, cubin, size, err);
        if (!sass)
            return gd_fail_prefix(err, "%s", probe);
    }
    if (!plan->intended_instructions || !opcode) {
        snprintf(out->intended, sizeof out->intended,
                 "unchecked: the probe names no intended instructions");
    } else if (!sass) {
        snprintf(out->intended, sizeof out->intended, "unchecked: no nvdisasm");
    } else {
        out->intended_found = sass_count(sass, opcode);
        if ((uint32_t)out->intended_found != plan->intended_instructions) {
            intended = GD_JIT_MISMATCH;
            snprintf(out->intended, sizeof out->intended,
                     "mismatch: %d %s in the machine code of %s, the probe intends %u",
                     out->intended_found, opcode, plan->entry, plan->intended_instructions);
        } else {
            intended = GD_JIT_OK;
            snprintf(out->intended, sizeof out->intended, "ok: %d %s, as intended",
                     out->intended_found, opcode);
        }
    }

    /* 3. the timed regions' order, in the same listing */
    gd_jit_status order =
        gd_jit_check_order(probe, plan, sass, param_base, out->order, sizeof out->order);
    free(sass);
    out->status = worse(worse(range, intended), order);
    return 0;
}
