/* exec.c -- what each PTX instruction of the subset computes.
 *
 * The functional half of the simulator: given a warp, an instruction and the
 * lanes that execute it, compute the results into the warp's registers, and for
 * loads and stores perform the access on device, shared, param or const memory
 * and report the per-lane addresses to the timing model.
 *
 * Register convention: a register is 64 bits wide in the simulator; every read
 * truncates (or sign-extends) to the instruction's type, so writers need not
 * care what lies above their width.  f32 values live in the low 32 bits.
 */
#include "sim/engine.h"

#include <math.h>
#include <string.h>

static inline uint64_t trunc_bits(uint64_t v, unsigned bits)
{
    return bits >= 64 ? v : (v & ((1ull << bits) - 1));
}

static inline int64_t sext_bits(uint64_t v, unsigned bits)
{
    if (bits >= 64)
        return (int64_t)v;
    uint64_t m = 1ull << (bits - 1);
    v = trunc_bits(v, bits);
    return (int64_t)((v ^ m) - m);
}

static inline float as_f32(uint64_t v)
{
    uint32_t b = (uint32_t)v;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static inline uint64_t from_f32(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static inline double as_f64(uint64_t v)
{
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

static inline uint64_t from_f64(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

#define SIM_NS_PER_US 1000.0 /* %globaltimer counts ns; clock_mhz is cycles per us */

uint64_t sim_sreg_value(const sim_engine *e, const sim_sm *sm, const sim_warp *w, unsigned lane,
                        ptx_sreg sreg)
{
    const sim_launch_config *l = e->launch;
    switch (sreg) {
    case SR_TID_X: return w->tid[lane][0];
    case SR_TID_Y: return w->tid[lane][1];
    case SR_TID_Z: return w->tid[lane][2];
    case SR_NTID_X: return l->block[0];
    case SR_NTID_Y: return l->block[1];
    case SR_NTID_Z: return l->block[2];
    case SR_CTAID_X: return w->cta->id[0];
    case SR_CTAID_Y: return w->cta->id[1];
    case SR_CTAID_Z: return w->cta->id[2];
    case SR_NCTAID_X: return l->grid[0];
    case SR_NCTAID_Y: return l->grid[1];
    case SR_NCTAID_Z: return l->grid[2];
    case SR_LANEID: return lane;
    case SR_WARPID: return w->slot;
    case SR_NWARPID: return e->arch->gpu.max_warps_per_sm;
    case SR_SMID: return sm->id;
    case SR_NSMID: return e->sm_count;
    case SR_CLOCK: return (uint32_t)e->cycle;
    case SR_CLOCK64: return e->cycle;
    case SR_GLOBALTIMER:
        /* nanoseconds: the cycle count at the arch's SM clock, so the clock a
         * probe measures (%clock64 against %globaltimer) is the arch's */
        return (uint64_t)((double)e->cycle * SIM_NS_PER_US / e->arch->gpu.clock_mhz);
    case SR_COUNT: break;
    }
    return 0;
}

#define FOR_LANES(mask, lane)                                                                  \
    for (uint32_t m_ = (mask), lane; m_ && ((lane = (uint32_t)__builtin_ctz(m_)), 1);           \
         m_ &= m_ - 1)

/* A source operand as the lane loops read it: lane l's value is v[l * step].
 * Decided once per instruction, not per lane: a register is its row of the
 * register file (step 1); an immediate or a special register that is the same
 * in every lane (%clock64, %ctaid, ...) is one value (step 0); only %tid and
 * %laneid are computed per lane, into `scratch`. */
typedef struct lane_operand {
    const uint64_t *v;
    uint32_t step;
} lane_operand;

static inline int sreg_per_lane(ptx_sreg sreg)
{
    return sreg == SR_TID_X || sreg == SR_TID_Y || sreg == SR_TID_Z || sreg == SR_LANEID;
}

static inline lane_operand lane_operand_of(const sim_engine *e, const sim_sm *sm,
                                           const sim_warp *w, const ptx_operand *o, uint32_t mask,
                                           uint64_t *uniform, uint64_t *scratch)
{
    switch (o->kind) {
    case OK_REG: return (lane_operand){&w->regs[(size_t)o->reg * SIM_WARP_LANES], 1};
    case OK_IMM: *uniform = (uint64_t)o->imm; break;
    case OK_SREG:
        if (sreg_per_lane((ptx_sreg)o->sreg)) {
            FOR_LANES(mask, lane) scratch[lane] = sim_sreg_value(e, sm, w, lane, (ptx_sreg)o->sreg);
            return (lane_operand){scratch, 1};
        }
        *uniform = sim_sreg_value(e, sm, w, 0, (ptx_sreg)o->sreg);
        break;
    default: *uniform = 0; break;
    }
    return (lane_operand){uniform, 0};
}

/* One lane's value of an operand (the single-lane path: the chases run one
 * thread, for which building lane_operands costs more than it saves). */
static inline uint64_t lane_value(const sim_engine *e, const sim_sm *sm, const sim_warp *w,
                                  const ptx_operand *o, unsigned lane)
{
    switch (o->kind) {
    case OK_REG: return w->regs[(size_t)o->reg * SIM_WARP_LANES + lane];
    case OK_IMM: return (uint64_t)o->imm;
    case OK_SREG: return sim_sreg_value(e, sm, w, lane, (ptx_sreg)o->sreg);
    default: return 0;
    }
}

#define LANE_VALUE(op, lane) ((op).v[(size_t)(lane) * (op).step])

/* Runs `body` for every lane of `mask`: a straight 32-lane loop when the whole
 * warp executes (the common case of wide probes), the set bits otherwise. */
#define LANE_LOOP(mask, lane, ...)                                                             \
    do {                                                                                       \
        if ((mask) == UINT32_MAX) {                                                            \
            for (uint32_t lane = 0; lane < SIM_WARP_LANES; lane++) {                           \
                __VA_ARGS__;                                                                   \
            }                                                                                  \
        } else {                                                                               \
            FOR_LANES(mask, lane) { __VA_ARGS__; }                                             \
        }                                                                                      \
    } while (0)

static int compare(ptx_type t, ptx_cmp cmp, uint64_t a, uint64_t b)
{
    unsigned bits = ptx_type_bits(t);
    if (t == PT_F32 || t == PT_F64) {
        double x = t == PT_F32 ? as_f32(a) : as_f64(a);
        double y = t == PT_F32 ? as_f32(b) : as_f64(b);
        switch (cmp) {
        case CMP_EQ: return x == y;
        case CMP_NE: return x != y;
        case CMP_LT: return x < y;
        case CMP_LE: return x <= y;
        case CMP_GT: return x > y;
        case CMP_GE: return x >= y;
        }
        return 0;
    }
    if (ptx_type_is_signed(t)) {
        int64_t x = sext_bits(a, bits), y = sext_bits(b, bits);
        switch (cmp) {
        case CMP_EQ: return x == y;
        case CMP_NE: return x != y;
        case CMP_LT: return x < y;
        case CMP_LE: return x <= y;
        case CMP_GT: return x > y;
        case CMP_GE: return x >= y;
        }
        return 0;
    }
    uint64_t x = trunc_bits(a, bits), y = trunc_bits(b, bits);
    switch (cmp) {
    case CMP_EQ: return x == y;
    case CMP_NE: return x != y;
    case CMP_LT: return x < y;
    case CMP_LE: return x <= y;
    case CMP_GT: return x > y;
    case CMP_GE: return x >= y;
    }
    return 0;
}

static uint64_t convert(ptx_type dt, ptx_type st, uint64_t v)
{
    unsigned sb = ptx_type_bits(st), db = ptx_type_bits(dt);
    if (st == PT_F32 || st == PT_F64) {
        double d = st == PT_F32 ? as_f32(v) : as_f64(v);
        if (dt == PT_F32)
            return from_f32((float)d);
        if (dt == PT_F64)
            return from_f64(d);
        d = nearbyint(d);
        if (isnan(d))
            return 0;
        /* PTX saturates float-to-integer conversions to the destination's range.
         * Compare against the powers of two (exact in a double): 2^63 - 1 is not
         * representable and rounds up to 2^63, which no int64 can hold. */
        if (ptx_type_is_signed(dt)) {
            double lim = ldexp(1.0, (int)db - 1);
            if (d >= lim)
                return trunc_bits(((uint64_t)1 << (db - 1)) - 1, db);
            if (d < -lim)
                return trunc_bits((uint64_t)1 << (db - 1), db);
            return trunc_bits((uint64_t)(int64_t)d, db);
        }
        if (d >= ldexp(1.0, (int)db))
            return trunc_bits(~(uint64_t)0, db);
        if (d < 0)
            return 0;
        return trunc_bits((uint64_t)d, db);
    }
    if (dt == PT_F32 || dt == PT_F64) {
        double d = ptx_type_is_signed(st) ? (double)sext_bits(v, sb) : (double)trunc_bits(v, sb);
        return dt == PT_F32 ? from_f32((float)d) : from_f64(d);
    }
    uint64_t x = ptx_type_is_signed(st) ? (uint64_t)sext_bits(v, sb) : trunc_bits(v, sb);
    return trunc_bits(x, db);
}

static uint64_t alu_int(const ptx_insn *in, uint64_t a, uint64_t b, uint64_t c, int *div0)
{
    ptx_type t = (ptx_type)in->type;
    unsigned bits = in->bits;
    int sgn = ptx_type_is_signed(t);
    switch ((ptx_op)in->op) {
    case OP_ADD: return trunc_bits(a + b, bits);
    case OP_SUB: return trunc_bits(a - b, bits);
    case OP_MUL:
    case OP_MAD: {
        uint64_t r;
        if (in->mulmode == MM_WIDE) {
            /* the parser admits .wide for 16/32-bit types only: the product fits */
            if (sgn)
                r = (uint64_t)(sext_bits(a, bits) * sext_bits(b, bits));
            else
                r = trunc_bits(a, bits) * trunc_bits(b, bits);
            r = trunc_bits(r, bits * 2);
            if (in->op == OP_MAD)
                r = trunc_bits(r + c, bits * 2);
            return r;
        }
        if (in->mulmode == MM_HI) {
            if (bits == 64) {
                if (sgn)
                    r = (uint64_t)(((__int128)(int64_t)a * (__int128)(int64_t)b) >> 64);
                else
                    r = (uint64_t)(((unsigned __int128)a * (unsigned __int128)b) >> 64);
            } else if (sgn) {
                r = (uint64_t)((sext_bits(a, bits) * sext_bits(b, bits)) >> bits);
            } else {
                r = (trunc_bits(a, bits) * trunc_bits(b, bits)) >> bits;
            }
        } else {
            r = a * b;
        }
        if (in->op == OP_MAD)
            r += c;
        return trunc_bits(r, bits);
    }
    case OP_DIV:
    case OP_REM:
        if (trunc_bits(b, bits) == 0) {
            *div0 = 1;
            return 0;
        }
        if (sgn) {
            int64_t x = sext_bits(a, bits), y = sext_bits(b, bits);
            if (y == -1)
                return trunc_bits(in->op == OP_DIV ? (uint64_t)0 - (uint64_t)x : 0, bits);
            return trunc_bits((uint64_t)(in->op == OP_DIV ? x / y : x % y), bits);
        }
        a = trunc_bits(a, bits);
        b = trunc_bits(b, bits);
        return in->op == OP_DIV ? a / b : a % b;
    case OP_MIN:
    case OP_MAX: {
        int less = sgn ? sext_bits(a, bits) < sext_bits(b, bits)
                       : trunc_bits(a, bits) < trunc_bits(b, bits);
        return trunc_bits((in->op == OP_MIN) == less ? a : b, bits);
    }
    case OP_NEG: return trunc_bits((uint64_t)0 - a, bits);
    case OP_ABS: {
        /* unsigned negation: abs of the most negative value is itself, as in PTX */
        int64_t x = sext_bits(a, bits);
        return trunc_bits(x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x, bits);
    }
    case OP_AND: return t == PT_PRED ? (a & b & 1) : trunc_bits(a & b, bits);
    case OP_OR: return t == PT_PRED ? ((a | b) & 1) : trunc_bits(a | b, bits);
    case OP_XOR: return t == PT_PRED ? ((a ^ b) & 1) : trunc_bits(a ^ b, bits);
    case OP_NOT: return t == PT_PRED ? (~a & 1) : trunc_bits(~a, bits);
    case OP_SHL: {
        uint64_t n = trunc_bits(b, 32);
        return n >= bits ? 0 : trunc_bits(a << n, bits);
    }
    case OP_SHR: {
        uint64_t n = trunc_bits(b, 32);
        if (sgn) {
            int64_t x = sext_bits(a, bits);
            return trunc_bits((uint64_t)(n >= bits ? (x < 0 ? -1 : 0) : (x >> n)), bits);
        }
        return n >= bits ? 0 : trunc_bits(a, bits) >> n;
    }
    default: return 0;
    }
}

static uint64_t alu_float(const ptx_insn *in, uint64_t a, uint64_t b, uint64_t c)
{
    if (in->type == PT_F32) {
        float x = as_f32(a), y = as_f32(b), z = as_f32(c);
        switch ((ptx_op)in->op) {
        case OP_ADD: return from_f32(x + y);
        case OP_SUB: return from_f32(x - y);
        case OP_MUL: return from_f32(x * y);
        case OP_MAD:
        case OP_FMA: return from_f32(fmaf(x, y, z));
        case OP_DIV: return from_f32(x / y);
        case OP_MIN: return from_f32(fminf(x, y));
        case OP_MAX: return from_f32(fmaxf(x, y));
        case OP_NEG: return from_f32(-x);
        case OP_ABS: return from_f32(fabsf(x));
        default: return 0;
        }
    }
    double x = as_f64(a), y = as_f64(b), z = as_f64(c);
    switch ((ptx_op)in->op) {
    case OP_ADD: return from_f64(x + y);
    case OP_SUB: return from_f64(x - y);
    case OP_MUL: return from_f64(x * y);
    case OP_MAD:
    case OP_FMA: return from_f64(fma(x, y, z));
    case OP_DIV: return from_f64(x / y);
    case OP_MIN: return from_f64(fmin(x, y));
    case OP_MAX: return from_f64(fmax(x, y));
    case OP_NEG: return from_f64(-x);
    case OP_ABS: return from_f64(fabs(x));
    default: return 0;
    }
}

/* ------------------------------------------------------------------------- */
/* Whole warps                                                               */

static inline void gather_lanes(lane_operand o, uint64_t *out)
{
    if (o.step)
        memcpy(out, o.v, SIM_WARP_LANES * sizeof *out);
    else
        for (unsigned l = 0; l < SIM_WARP_LANES; l++)
            out[l] = o.v[0];
}

/* The integer operations probes run on whole warps, as straight 32-lane loops
 * the compiler vectorizes: the same bits as alu_int lane by lane (each case is
 * alu_int's for its op).  Returns 0 for anything else, which then goes lane by
 * lane.  The sources are copied first: the destination may be one of them. */
static int alu_int_warp(const ptx_insn *in, const lane_operand *src, uint64_t *d)
{
    ptx_type t = (ptx_type)in->type;
    if (t == PT_PRED || ptx_type_is_float(t))
        return 0;
    unsigned bits = in->bits;
    const uint64_t m = bits >= 64 ? ~0ull : (1ull << bits) - 1;
    uint64_t a[SIM_WARP_LANES], b[SIM_WARP_LANES], c[SIM_WARP_LANES];
    switch ((ptx_op)in->op) {
    case OP_ADD: case OP_SUB: case OP_AND: case OP_OR: case OP_XOR: case OP_SHL:
        break;
    case OP_MUL: case OP_MAD:
        if (in->mulmode == MM_WIDE || in->mulmode == MM_HI)
            return 0;
        break;
    default:
        return 0;
    }
    gather_lanes(src[0], a);
    gather_lanes(src[1], b);
    switch ((ptx_op)in->op) {
    case OP_ADD: for (unsigned l = 0; l < SIM_WARP_LANES; l++) d[l] = (a[l] + b[l]) & m; break;
    case OP_SUB: for (unsigned l = 0; l < SIM_WARP_LANES; l++) d[l] = (a[l] - b[l]) & m; break;
    case OP_AND: for (unsigned l = 0; l < SIM_WARP_LANES; l++) d[l] = a[l] & b[l] & m; break;
    case OP_OR: for (unsigned l = 0; l < SIM_WARP_LANES; l++) d[l] = (a[l] | b[l]) & m; break;
    case OP_XOR: for (unsigned l = 0; l < SIM_WARP_LANES; l++) d[l] = (a[l] ^ b[l]) & m; break;
    case OP_SHL:
        for (unsigned l = 0; l < SIM_WARP_LANES; l++) {
            uint64_t n = b[l] & 0xffffffffull;
            d[l] = n >= bits ? 0 : (a[l] << n) & m;
        }
        break;
    case OP_MUL: for (unsigned l = 0; l < SIM_WARP_LANES; l++) d[l] = (a[l] * b[l]) & m; break;
    case OP_MAD:
        gather_lanes(src[2], c);
        for (unsigned l = 0; l < SIM_WARP_LANES; l++)
            d[l] = (a[l] * b[l] + c[l]) & m;
        break;
    default:
        return 0;
    }
    return 1;
}

#define CMP_LOOP(x, y, d)                                                                      \
    switch ((ptx_cmp)in->cmp) {                                                                \
    case CMP_EQ: for (unsigned l = 0; l < SIM_WARP_LANES; l++) d[l] = x[l] == y[l]; break;     \
    case CMP_NE: for (unsigned l = 0; l < SIM_WARP_LANES; l++) d[l] = x[l] != y[l]; break;     \
    case CMP_LT: for (unsigned l = 0; l < SIM_WARP_LANES; l++) d[l] = x[l] < y[l]; break;      \
    case CMP_LE: for (unsigned l = 0; l < SIM_WARP_LANES; l++) d[l] = x[l] <= y[l]; break;     \
    case CMP_GT: for (unsigned l = 0; l < SIM_WARP_LANES; l++) d[l] = x[l] > y[l]; break;      \
    case CMP_GE: for (unsigned l = 0; l < SIM_WARP_LANES; l++) d[l] = x[l] >= y[l]; break;     \
    default: return 0;                                                                         \
    }

/* setp on integers for a whole warp: compare()'s result lane by lane. */
static int setp_int_warp(const ptx_insn *in, const lane_operand *src, uint64_t *d)
{
    ptx_type t = (ptx_type)in->type;
    if (t == PT_PRED || ptx_type_is_float(t))
        return 0;
    unsigned bits = ptx_type_bits(t);
    uint64_t a[SIM_WARP_LANES], b[SIM_WARP_LANES];
    gather_lanes(src[0], a);
    gather_lanes(src[1], b);
    if (ptx_type_is_signed(t)) {
        int64_t x[SIM_WARP_LANES], y[SIM_WARP_LANES];
        for (unsigned l = 0; l < SIM_WARP_LANES; l++) {
            x[l] = sext_bits(a[l], bits);
            y[l] = sext_bits(b[l], bits);
        }
        CMP_LOOP(x, y, d);
    } else {
        for (unsigned l = 0; l < SIM_WARP_LANES; l++) {
            a[l] = trunc_bits(a[l], bits);
            b[l] = trunc_bits(b[l], bits);
        }
        CMP_LOOP(a, b, d);
    }
    return 1;
}

static const char *space_name(ptx_space s)
{
    switch (s) {
    case SP_GLOBAL: return "global";
    case SP_SHARED: return "shared";
    case SP_CONST: return "const";
    case SP_PARAM: return "param";
    case SP_LOCAL: return "local";
    default: return "?";
    }
}

/* Host pointer for one lane's access, or NULL after failing the engine. */
static uint8_t *resolve(sim_engine *e, sim_warp *w, const ptx_insn *in, uint64_t addr)
{
    uint32_t size = in->size;
    if (addr % size)
        return sim_engine_fail(e, "ptx:%u: %s.%s of %u bytes at misaligned address 0x%llx",
                               in->line, in->op == OP_LD ? "ld" : "st",
                               space_name((ptx_space)in->space), size,
                               (unsigned long long)addr),
               NULL;
    uint8_t *p = NULL;
    const sim_launch_config *l = e->launch;
    switch ((ptx_space)in->space) {
    case SP_GLOBAL:
        p = sim_devmem_translate(e->mem, addr, size);
        if (p && e->mem->allocs[e->mem->last_hit].untouched) {
            /* zero until written: a load reads zeros, not the allocation's pages */
            if (in->op == OP_ST)
                e->mem->allocs[e->mem->last_hit].untouched = 0;
            else
                p = (uint8_t *)(uintptr_t)sim_devmem_zeros;
        }
        break;
    /* `addr <= bound && size <= bound - addr`: never `addr + size`, which wraps
     * for an address near 2^64 and passes the check */
    case SP_SHARED:
        if (addr <= w->cta->shared_bytes && size <= w->cta->shared_bytes - addr)
            p = w->cta->shared + addr;
        break;
    case SP_PARAM:
        if (addr <= l->kernel->param_bytes && size <= l->kernel->param_bytes - addr)
            p = (uint8_t *)(uintptr_t)(l->params + addr);
        break;
    case SP_CONST:
        if (addr <= l->const_bytes && size <= l->const_bytes - addr)
            p = (uint8_t *)(uintptr_t)(l->const_bank + addr);
        break;
    default:
        break;
    }
    if (!p)
        sim_engine_fail(e, "ptx:%u: %s.%s of %u bytes at 0x%llx is outside %s", in->line,
                        in->op == OP_LD ? "ld" : "st", space_name((ptx_space)in->space), size,
                        (unsigned long long)addr,
                        in->space == SP_GLOBAL ? "every device allocation"
                                               : "the state space's bounds");
    return p;
}

/* One lane's address (base register + offset) into the access record, and
 * the host memory behind it (NULL after failing the engine). */
static inline uint8_t *lane_address(sim_engine *e, sim_warp *w, const ptx_insn *in,
                                    sim_mem_access *acc, unsigned lane)
{
    const ptx_operand *a = &in->src[0];
    uint64_t addr =
        (a->reg != PTX_NO_REG ? w->regs[(size_t)a->reg * SIM_WARP_LANES + lane] : 0) + (uint64_t)a->imm;
    acc->addr[lane] = addr;
    return resolve(e, w, in, addr);
}

/* One lane's scalar ld/st: its address (into the access record), then the
 * value stored (`store_value`) or the register loaded, sign-extended by type. */
static inline int scalar_access(sim_engine *e, sim_warp *w, const ptx_insn *in,
                                sim_mem_access *acc, unsigned lane, uint64_t store_value)
{
    uint64_t *regs = w->regs;
    uint8_t *p = lane_address(e, w, in, acc, lane);
    if (!p)
        return -1;
    if (in->op == OP_ST) {
        memcpy(p, &store_value, in->size); /* little-endian host, as the GPU */
    } else {
        uint64_t v = 0;
        memcpy(&v, p, in->size);
        if (ptx_type_is_signed((ptx_type)in->type))
            v = (uint64_t)sext_bits(v, in->bits);
        regs[(size_t)in->dst.reg * SIM_WARP_LANES + lane] = v;
    }
    return 0;
}

/* ld/st.global .v2/.v4: one access of the whole vector per lane (aligned to
 * it, as PTX requires), its elements to or from the vector's registers; a
 * load's further registers go to the access, for the scoreboard. */
static int exec_vector(sim_engine *e, sim_warp *w, const ptx_insn *in, uint32_t mask,
                       sim_mem_access *acc)
{
    uint64_t *regs = w->regs;
    unsigned esize = in->size / in->vec, ebits = esize * 8;
    int is_store = in->op == OP_ST, is_signed = ptx_type_is_signed((ptx_type)in->type);
    if (!is_store) {
        acc->dst_more = (uint8_t)(in->vec - 1);
        for (unsigned v = 1; v < in->vec; v++)
            acc->dst_regs[v - 1] = in->vregs[v];
    }
    FOR_LANES(mask, lane)
    {
        uint8_t *p = lane_address(e, w, in, acc, lane);
        if (!p)
            return -1;
        for (unsigned v = 0; v < in->vec; v++) {
            uint64_t *r = &regs[(size_t)in->vregs[v] * SIM_WARP_LANES + lane];
            if (is_store) {
                memcpy(p + v * esize, r, esize); /* little-endian host, as the GPU */
            } else {
                uint64_t x = 0;
                memcpy(&x, p + v * esize, esize);
                *r = is_signed ? (uint64_t)sext_bits(x, ebits) : x;
            }
        }
    }
    return 0;
}

static int exec_lanes(sim_engine *e, sim_sm *sm, sim_warp *w, const ptx_insn *in, uint32_t mask,
                      sim_mem_access *acc) __attribute__((noinline));

/* Inlined into its callers (gpu.c's issue; across files under the simulator's
 * link-time optimization): its one-lane cases are a few instructions each, and
 * the call's frame cost the p-chase bench about 5 % (issue 18). */
__attribute__((always_inline)) inline int sim_exec(sim_engine *e, sim_sm *sm, sim_warp *w,
                                                   const ptx_insn *in, uint32_t mask,
                                                   sim_mem_access *acc)
{
    uint64_t *regs = w->regs;
    ptx_type t = (ptx_type)in->type;
    unsigned bits = in->bits;
    size_t dst = (size_t)in->dst.reg * SIM_WARP_LANES;
    if (mask && !(mask & (mask - 1))) {
        /* one lane: no operand tables */
        unsigned lane = (unsigned)__builtin_ctz(mask);
        switch ((ptx_op)in->op) {
        case OP_ADD:
        case OP_SUB:
            /* the commonest of a probe's loops (an index, an address, a
             * count): alu_int's cases, without its call */
            if (!ptx_type_is_float(t)) {
                uint64_t a = lane_value(e, sm, w, &in->src[0], lane);
                uint64_t b = in->nsrc > 1 ? lane_value(e, sm, w, &in->src[1], lane) : 0;
                regs[dst + lane] = trunc_bits(in->op == OP_ADD ? a + b : a - b, bits);
                return 0;
            }
            /* fall through */
        case OP_MUL: case OP_MAD: case OP_DIV: case OP_REM:
        case OP_MIN: case OP_MAX: case OP_NEG: case OP_ABS: case OP_AND: case OP_OR:
        case OP_XOR: case OP_NOT: case OP_SHL: case OP_SHR: case OP_FMA: {
            uint64_t a = lane_value(e, sm, w, &in->src[0], lane);
            uint64_t b = in->nsrc > 1 ? lane_value(e, sm, w, &in->src[1], lane) : 0;
            uint64_t c = in->nsrc > 2 ? lane_value(e, sm, w, &in->src[2], lane) : 0;
            int div0 = 0;
            regs[dst + lane] = ptx_type_is_float(t) ? alu_float(in, a, b, c)
                                                    : alu_int(in, a, b, c, &div0);
            return 0;
        }
        case OP_SETP:
            regs[dst + lane] = (uint64_t)compare(t, (ptx_cmp)in->cmp,
                                                 lane_value(e, sm, w, &in->src[0], lane),
                                                 lane_value(e, sm, w, &in->src[1], lane));
            return 0;
        case OP_MOV: {
            uint64_t v = lane_value(e, sm, w, &in->src[0], lane);
            regs[dst + lane] =
                t == PT_PRED && in->src[0].kind != OK_REG ? (v != 0) : trunc_bits(v, bits);
            return 0;
        }
        case OP_CVT:
            regs[dst + lane] =
                convert(t, (ptx_type)in->type2, lane_value(e, sm, w, &in->src[0], lane));
            return 0;
        case OP_LD:
        case OP_ST: {
            if (in->vec)
                break; /* the general path's exec_vector */
            /* the general path's scalar access, for its one lane */
            acc->mask = mask;
            acc->space = in->space;
            acc->is_store = (uint8_t)(in->op == OP_ST);
            acc->size = in->size;
            acc->dst_more = 0;
            return scalar_access(e, w, in, acc, lane,
                                 in->op == OP_ST ? lane_value(e, sm, w, &in->src[1], lane) : 0);
        }
        default:
            break; /* the general path */
        }
    }
    return exec_lanes(e, sm, w, in, mask, acc);
}

/* Every lane of `mask` through operand tables: the general path (and a
 * lone lane's vector access, selp, and the rest), kept out of sim_exec so
 * that the one-lane cases do not set up its frame. */
static int exec_lanes(sim_engine *e, sim_sm *sm, sim_warp *w, const ptx_insn *in, uint32_t mask,
                      sim_mem_access *acc)
{
    uint64_t *regs = w->regs;
    ptx_type t = (ptx_type)in->type;
    unsigned bits = in->bits;
    size_t dst = (size_t)in->dst.reg * SIM_WARP_LANES;
    uint64_t uniform[3], scratch[3][SIM_WARP_LANES];
    lane_operand src[3];
    unsigned nsrc = in->op == OP_LD ? 0 : in->op == OP_ST ? 2 : in->nsrc;
    for (unsigned k = 0; k < 3; k++) {
        if (k < nsrc) {
            src[k] = lane_operand_of(e, sm, w, &in->src[k], mask, &uniform[k], scratch[k]);
        } else {
            uniform[k] = 0;
            src[k] = (lane_operand){&uniform[k], 0};
        }
    }

    switch ((ptx_op)in->op) {
    case OP_MOV:
        if (t == PT_PRED && in->src[0].kind != OK_REG)
            LANE_LOOP(mask, lane, regs[dst + lane] = LANE_VALUE(src[0], lane) != 0);
        else
            LANE_LOOP(mask, lane, regs[dst + lane] = trunc_bits(LANE_VALUE(src[0], lane), bits));
        return 0;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_MAD: case OP_DIV: case OP_REM:
    case OP_MIN: case OP_MAX: case OP_NEG: case OP_ABS: case OP_AND: case OP_OR:
    case OP_XOR: case OP_NOT: case OP_SHL: case OP_SHR: case OP_FMA: {
        int div0 = 0;
        if (mask == UINT32_MAX && alu_int_warp(in, src, &regs[dst]))
            return 0;
        if (ptx_type_is_float(t))
            LANE_LOOP(mask, lane,
                      regs[dst + lane] = alu_float(in, LANE_VALUE(src[0], lane),
                                                   LANE_VALUE(src[1], lane),
                                                   LANE_VALUE(src[2], lane)));
        else
            LANE_LOOP(mask, lane,
                      regs[dst + lane] = alu_int(in, LANE_VALUE(src[0], lane),
                                                 LANE_VALUE(src[1], lane),
                                                 LANE_VALUE(src[2], lane), &div0));
        (void)div0; /* integer division by zero is undefined in PTX; the sim yields 0 */
        return 0;
    }
    case OP_SETP:
        if (mask == UINT32_MAX && setp_int_warp(in, src, &regs[dst]))
            return 0;
        LANE_LOOP(mask, lane,
                  regs[dst + lane] = (uint64_t)compare(t, (ptx_cmp)in->cmp,
                                                       LANE_VALUE(src[0], lane),
                                                       LANE_VALUE(src[1], lane)));
        return 0;
    case OP_SELP:
        LANE_LOOP(mask, lane,
                  regs[dst + lane] = trunc_bits((LANE_VALUE(src[2], lane) & 1)
                                                    ? LANE_VALUE(src[0], lane)
                                                    : LANE_VALUE(src[1], lane),
                                                bits));
        return 0;
    case OP_CVT:
        LANE_LOOP(mask, lane,
                  regs[dst + lane] = convert(t, (ptx_type)in->type2, LANE_VALUE(src[0], lane)));
        return 0;
    case OP_LD:
    case OP_ST: {
        int is_store = in->op == OP_ST;
        acc->mask = mask;
        acc->space = in->space;
        acc->is_store = (uint8_t)is_store;
        acc->size = in->size;
        acc->dst_more = 0;
        if (in->vec) /* ld/st.global .v2/.v4 (issue 12): element by element */
            return exec_vector(e, w, in, mask, acc);
        FOR_LANES(mask, lane)
        {
            if (scalar_access(e, w, in, acc, lane, is_store ? LANE_VALUE(src[1], lane) : 0))
                return -1;
        }
        return 0;
    }
    case OP_BRA: case OP_RET: case OP_EXIT: case OP_BAR: case OP_NOP: case OP_COUNT:
        return 0; /* control flow is the scheduler's (gpu.c) */
    }
    return 0;
}
