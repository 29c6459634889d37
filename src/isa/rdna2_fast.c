/* The fast twin of rdna2_eval: the same outputs and the same verdict
 * (classes, rounding cells, tie exponent) from hardware double arithmetic
 * instead of the 128-bit kit.
 *
 * Why it is exact (see doc/fast-host.md):
 * - a product of two f32 (or f16) values is exact in double (48 bits);
 * - TwoSum of that product and an f32 addend gives the exact sum as hi + lo
 *   with |lo| <= ulp(hi)/2 (no double overflow or underflow is reachable
 *   from these operands, scaled by 2^+-64 at most);
 * - every grid this family rounds to (f32, f16) has its unit u at least
 *   2^28 ulp(hi), so the bits of hi below u (R, a multiple of ulp(hi)) and
 *   lo (L, smaller than one ulp(hi)) decide every comparison of the
 *   remainder R + L with a boundary that is a multiple of ulp(hi): R alone
 *   when it differs from the boundary, the sign of L when it equals it.
 * The kit's "shift" (bits dropped by a rounding, which gates near ties)
 * depends on how the kit holds the value: trimmed to its lowest set bit
 * after arithmetic, the full encoding after fp_decode.  Each rounding here
 * is told which (bit0 below).  The campaign audits this file against the
 * kit (isa_fast_audit) and `tiefuzz selftest` compares them at full speed. */
#include <limits.h>
#include <string.h>
#include "classify.h"
#include "../fp/fast.h"
#include "../fp/lanes.h"
#include "rdna2.h"

#define BIT(v, i) (((v) >> (i)) & 1u)
#define TRIMMED INT_MIN  /* bit0 of a value the kit holds trimmed */
/* The per-case helpers are inlined into their callers: passed and returned
 * through memory, their small structs (xval, rounding) cost store-forwarding
 * stalls, about an eighth of a verdict's time. */
#define HOT inline __attribute__((always_inline))

static inline bool dsign(double x) { return fp_dbits(x) >> 63; }
static inline bool dpow2(double x) { return (fp_dbits(x) & ((1ull << 52) - 1)) == 0; }
static inline bool nonzero_finite(double x) { return x != 0 && __builtin_isfinite(x); }

static inline double f32_value(uint32_t b) { return fp_fast_f32_to_double(b); }

/* An exact value: a kind, and for finite ones hi + lo. */
typedef struct {
    fp_kind kind;
    bool sign;
    double hi, lo;
} xval;

static inline xval xval_of(double x)
{
    if (__builtin_isnan(x))
        return (xval){FPK_NAN, false, 0, 0};  /* the kit's NaNs carry no sign */
    if (__builtin_isinf(x))
        return (xval){FPK_INF, dsign(x), x, 0};
    return (xval){x == 0 ? FPK_ZERO : FPK_FINITE, dsign(x), x, 0};
}

/* p + c exactly (TwoSum), with the kit's special-value rules. */
static inline xval xval_sum(double p, double c)
{
    double s = p + c;
    if (!nonzero_finite(s))
        return xval_of(s);  /* an exact zero sum is +0 unless both are -0: IEEE's rule and the kit's */
    double bb = s - p;
    double e = (p - (s - bb)) + (c - bb);
    return (xval){FPK_FINITE, dsign(s), s, e};
}

static inline int xval_msb(const xval *v)
{
    double h = fp_dabs(v->hi), l = dsign(v->hi) ? -v->lo : v->lo;
    return fp_dexp(h) - (dpow2(h) && l < 0);
}

/* The value scaled by 2^k (exact). */
static inline xval xval_scale(xval v, int k)
{
    if (v.kind == FPK_FINITE) {
        v.hi *= fp_pow2(k);
        v.lo *= fp_pow2(k);
    }
    return v;
}

/* One rounding, as fp_round reports it. */
typedef struct {
    uint64_t bits;
    bool inexact, tie, near, guard, sticky, lsb, tiny, overflow;
    int ulp_exp;
    int result_bit0;  /* exponent of bit 0 of the result's encoding (for a rounding of it) */
} rounding;

/* Sign of (R + L) - X, where R and X are multiples of ulp(hi) and |L| < ulp(hi). */
static inline int remainder_vs(double R, double L, double X)
{
    return R != X ? (R < X ? -1 : 1) : (L < 0 ? -1 : L > 0);
}

static HOT uint64_t encode(const fp_format *f, bool sign, int e, uint64_t kept, bool *overflow, bool rne)
{
    int p = (int)f->precision;
    uint64_t s = (uint64_t)sign << (f->bits - 1), hidden = 1ull << (p - 1);
    if (kept >> p) {
        kept >>= 1;
        e++;
    }
    if (e > f->emax) {
        *overflow = true;
        uint64_t inf = (((1ull << f->exp_bits) - 1) << (p - 1));
        return s | (rne ? inf : inf - 1);  /* to odd: the largest finite */
    }
    if (kept < hidden)
        return s | kept;
    return s | (uint64_t)(e + f->bias) << (p - 1) | (kept - hidden);
}

/* Round v to f (to nearest even, or to odd).  bit0: the exponent of bit 0
 * of the kit's representation of v when it is held untrimmed, else TRIMMED. */
static HOT rounding round_to(const fp_format *f, xval v, int bit0, bool to_odd)
{
    rounding r = {0};
    int p = (int)f->precision;
    switch (v.kind) {
    case FPK_NAN:
        r.bits = fp_default_nan(f);
        return r;
    case FPK_INF:
        r.bits = (uint64_t)v.sign << (f->bits - 1) | (((1ull << f->exp_bits) - 1) << (p - 1));
        return r;
    case FPK_ZERO:
        r.bits = (uint64_t)v.sign << (f->bits - 1);
        r.result_bit0 = f->emin - p + 1;
        return r;
    case FPK_FINITE:
        break;
    }
    double H = fp_dabs(v.hi), L = dsign(v.hi) ? -v.lo : v.lo;
    int msb = fp_dexp(H) - (dpow2(H) && L < 0);
    int e = msb < f->emin ? f->emin : msb;
    int q = e - (p - 1);
    double u = fp_pow2(q), half = fp_pow2(q - 1);
    uint64_t k = (uint64_t)(H * fp_pow2(-q));  /* below 2^(p+1): truncation is exact */
    double R = H - (double)k * u;
    if (R == 0 && L < 0) {  /* the remainder borrows a unit */
        k -= 1;
        R = u;
    }
    r.tiny = msb < f->emin;
    r.ulp_exp = q;
    r.lsb = k & 1;
    r.inexact = R != 0 || L != 0;
    int vs_half = remainder_vs(R, L, half);
    if (r.inexact) {
        r.guard = vs_half >= 0;
        r.sticky = (r.guard ? R - half : R) != 0 || L != 0;
        r.tie = vs_half == 0;
        /* Within 2^-7 of a unit of the tie, with at least 8 bits dropped. */
        double reach = fp_pow2(q - 7);
        r.near = !r.tie && remainder_vs(R, L, half - reach) >= 0 && remainder_vs(R, L, half + reach) <= 0;
        if (r.near) {
            int lowest = bit0 != TRIMMED ? bit0 : L != 0 ? fp_dlsb(L) : fp_dlsb(H);
            r.near = q - lowest >= 8;
        }
    }
    uint64_t kept = k;
    if (to_odd)
        kept |= r.inexact;
    else
        kept += vs_half > 0 || (vs_half == 0 && r.lsb);
    r.bits = encode(f, v.sign, e, kept, &r.overflow, !to_odd);
    r.result_bit0 = (kept >> p) ? q + 1 : q;
    return r;
}

/* The value of a rounding's result, as the kit decodes it for the next one. */
static HOT xval result_value(const fp_format *f, uint64_t bits)
{
    return xval_of(f == &fp_f32 ? f32_value((uint32_t)bits) : (double)fp_fast_f16_to_f32((uint32_t)bits));
}

/* ---- the verdict: what isa_trace_classes and isa_trace_cells read ---- */

/* The classes a final rounding reaches, from what it reports. */
static HOT uint32_t rounding_classes(bool tie, bool near, bool tiny_finite, bool overflow)
{
    return (tie ? 1u << GEN_TIE : 0) | (near ? 1u << GEN_NEAR_TIE : 0) | (tiny_finite ? 1u << GEN_SUBNORMAL : 0) |
           (overflow ? 1u << GEN_OVERFLOW : 0);
}

/* intermediate: a later step rounds this one's result again (it does not write the result). */
static HOT void final_step(isa_verdict *v, xval exact, const rounding *r, bool intermediate)
{
    if (!v)
        return;
    unsigned cell = isa_cell(isa_result_kind(exact.kind, r->overflow, r->tiny), r->inexact, r->lsb, r->guard, r->sticky,
                             exact.sign);
    v->cells[cell / 64] |= 1ull << (cell % 64);
    uint32_t step = rounding_classes(r->tie, r->near, r->tiny && exact.kind == FPK_FINITE, r->overflow);
    if (!intermediate)
        v->at_result |= step;
    v->classes |= step;
    if (r->tie && v->tie_exp == ISA_NO_EXPONENT)
        v->tie_exp = r->ulp_exp;
}

static bool is_tie(const fp_format *f, xval x) { return x.kind == FPK_FINITE && round_to(f, x, TRIMMED, false).tie; }

/* One multiply-add lane as isa_lane holds it: sources after modifiers
 * (and flushing), the exact product and addend, the exact sum rounded last. */
typedef struct {
    const fp_format *dest;
    double src[3];
    bool src_subnormal[3];
    double product, addend;
    xval exact;
} lane;

static bool lane_double_round(const lane *l)
{
    if (!nonzero_finite(l->product) || !__builtin_isfinite(l->addend))
        return false;
    xval fused = xval_sum(l->product, l->addend);
    if (l->dest == &fp_f32) {
        rounding p32 = round_to(&fp_f32, xval_of(l->product), TRIMMED, false);
        if (p32.overflow)
            return false;  /* an infinite product plus anything finite is no tie */
        return is_tie(&fp_f32, xval_sum(f32_value((uint32_t)p32.bits), l->addend)) && !is_tie(&fp_f32, fused);
    }
    rounding s32 = round_to(&fp_f32, fused, TRIMMED, false);
    return is_tie(l->dest, result_value(&fp_f32, s32.bits)) && !is_tie(l->dest, fused);
}

/* The classes of a finite exact sum by its size: its leading bit msb against
 * the destination's range, and against big, the larger of the product's and
 * the addend's (cancellation). */
static HOT uint32_t magnitude_classes(const fp_format *dest, int msb, int big)
{
    return (uint32_t)(msb < dest->emin + 2) << GEN_SUBNORMAL | (uint32_t)(msb >= dest->emax - 1) << GEN_OVERFLOW |
           (uint32_t)(msb < big - (int)dest->precision) << GEN_CANCEL;
}

static HOT void lane_classes(isa_verdict *v, const lane *l, uint32_t want)
{
    if (!v)
        return;
    uint32_t m = 0, src = 0;
    for (int j = 0; j < 3; j++) {
        if (l->src_subnormal[j])
            src |= 1u << GEN_SUBNORMAL;
        if (!nonzero_finite(l->src[j]))
            src |= 1u << GEN_SPECIAL;
    }
    if (l->exact.kind == FPK_FINITE) {
        int big = -100000;
        if (nonzero_finite(l->product))
            big = fp_dexp(fp_dabs(l->product));
        if (nonzero_finite(l->addend) && fp_dexp(fp_dabs(l->addend)) > big)
            big = fp_dexp(fp_dabs(l->addend));
        m |= magnitude_classes(l->dest, xval_msb(&l->exact), big);
    } else if (l->exact.kind == FPK_ZERO && l->product != 0) {
        m |= 1u << GEN_CANCEL;
    }
    if ((want & (1u << GEN_DOUBLE_ROUND)) && lane_double_round(l))
        m |= 1u << GEN_DOUBLE_ROUND;
    /* A source's class is not the result's (a flushed subnormal source), but for special. */
    v->classes |= m | src;
    v->at_result |= m | (src & (1u << GEN_SPECIAL));
}

/* ---- sources and output modifiers, as rdna2_eval reads them ---- */

static inline bool f32_subnormal(uint32_t b) { return (b & 0x7f800000u) == 0 && (b & 0x7fffffu); }
/* A subnormal f32 flushed to a zero of its sign, as the legacy forms read their sources. */
static inline uint32_t flush_f32(uint32_t b) { return f32_subnormal(b) ? b & 0x80000000u : b; }
static inline bool f16_subnormal(uint32_t h) { return (h & 0x7c00u) == 0 && (h & 0x3ffu); }

static HOT void f32_sources(const isa_instance *in, const uint32_t *w, lane *l, bool flush)
{
    for (int i = 0; i < 3; i++) {
        uint32_t b = rdna2_sign_mods(rdna2_source_word(in, w, i), 0x80000000u, BIT(in->ctrl[CTRL_ABS], i),
                               BIT(in->ctrl[CTRL_NEG], i));
        l->src_subnormal[i] = f32_subnormal(b);
        if (flush && l->src_subnormal[i])
            b &= 0x80000000u;
        l->src[i] = f32_value(b);
    }
}

/* Source i of a MIX form after its modifiers: the f32 register, or (*half)
 * the half op_sel picks. */
static HOT uint32_t mix_source_bits(const isa_instance *in, const uint32_t *w, int i, bool *half)
{
    uint32_t reg = rdna2_source_word(in, w, i);
    bool abs = BIT(in->ctrl[CTRL_NEG_HI], i), neg = BIT(in->ctrl[CTRL_NEG_LO], i);
    *half = BIT(in->ctrl[CTRL_OP_SEL_HI], i);
    if (!*half)
        return rdna2_sign_mods(reg, 0x80000000u, abs, neg);
    return rdna2_sign_mods((reg >> (16 * BIT(in->ctrl[CTRL_OP_SEL], i))) & 0xffff, 0x8000, abs, neg);
}

/* Source i of an f16 form: the half select picks, after abs and negate. */
static HOT uint32_t half_source_bits(const isa_instance *in, const uint32_t *w, int i, uint32_t select,
                                     uint32_t negate, uint32_t abs)
{
    uint32_t h = (rdna2_source_word(in, w, i) >> (16 * BIT(select, i))) & 0xffff;
    return rdna2_sign_mods(h, 0x8000, BIT(abs, i), BIT(negate, i));
}

static HOT void mix_sources(const isa_instance *in, const uint32_t *w, lane *l)
{
    for (int i = 0; i < 3; i++) {
        bool half;
        uint32_t b = mix_source_bits(in, w, i, &half);
        l->src_subnormal[i] = half ? f16_subnormal(b) : f32_subnormal(b);
        l->src[i] = half ? (double)fp_fast_f16_to_f32(b) : f32_value(b);
    }
}

static HOT void half_sources(const isa_instance *in, const uint32_t *w, uint32_t select, uint32_t negate, uint32_t abs,
                         lane *l)
{
    for (int i = 0; i < 3; i++) {
        uint32_t h = half_source_bits(in, w, i, select, negate, abs);
        l->src_subnormal[i] = f16_subnormal(h);
        l->src[i] = (double)fp_fast_f16_to_f32(h);
    }
}

/* omod scales the rounded result; a result that falls below the normal
 * range becomes a signed zero, and +-0 becomes +0. */
static uint64_t omod(const isa_instance *in, const fp_format *f, uint64_t r)
{
    uint32_t m = in->op->ctrl_limit[CTRL_OMOD] ? in->ctrl[CTRL_OMOD] : 0;
    if (!m || in->param[PARAM_OMOD] == 0)
        return r;
    xval v = result_value(f, r);
    if (v.kind == FPK_NAN || v.kind == FPK_INF)
        return r;
    if (v.kind == FPK_ZERO)
        return 0;
    static const int k[4] = {0, 1, 2, -1};
    v = xval_scale(v, k[m]);
    if (xval_msb(&v) < f->emin)
        return (uint64_t)v.sign << (f->bits - 1);
    return round_to(f, v, TRIMMED, false).bits;
}

/* ---- the forms ---- */

/* round_dest(a*b + c) once: its lane and its final rounding. */
static HOT uint64_t fused(lane *l, const fp_format *dest, isa_verdict *v, uint32_t want)
{
    l->dest = dest;
    l->product = l->src[0] * l->src[1];
    l->addend = l->src[2];
    l->exact = xval_sum(l->product, l->addend);
    rounding r = round_to(dest, l->exact, TRIMMED, false);
    final_step(v, l->exact, &r, false);
    lane_classes(v, l, want);
    return r.bits;
}

/* To f16 through f32: rounded to odd there (the record's fused_to_half: one
 * correct rounding in effect) or to nearest (twice).  The second rounding,
 * of the f32 value, is the traced final one. */
static HOT uint32_t to_half(lane *l, bool odd, isa_verdict *v, uint32_t want)
{
    l->dest = &fp_f16;
    l->product = l->src[0] * l->src[1];
    l->addend = l->src[2];
    l->exact = xval_sum(l->product, l->addend);
    rounding r32 = round_to(&fp_f32, l->exact, TRIMMED, odd);
    xval s32 = result_value(&fp_f32, r32.bits);
    rounding r = round_to(&fp_f16, s32, r32.result_bit0, false);
    final_step(v, s32, &r, false);
    lane_classes(v, l, want);
    return (uint32_t)r.bits;
}

static uint32_t div_fmas(const isa_instance *in, const uint32_t *w, lane *l, isa_verdict *v, uint32_t want)
{
    if (!(w[3] & 1))
        return (uint32_t)fused(l, &fp_f32, v, want);
    int k = rdna2_div_fmas_scale(in, w[2]);
    l->dest = &fp_f32;
    double p = l->src[0] * l->src[1];
    xval sum = xval_sum(p, l->src[2]);
    if (in->param[PARAM_DIV_FMAS_ORDER] == 0) {
        /* Scale the exact sum, round once. */
        l->product = p * fp_pow2(k);
        l->addend = l->src[2] * fp_pow2(k);
        l->exact = xval_scale(sum, k);
        rounding r = round_to(&fp_f32, l->exact, TRIMMED, false);
        final_step(v, l->exact, &r, false);
        lane_classes(v, l, want);
        return (uint32_t)r.bits;
    }
    /* Round, then scale the f32 result and round again. */
    l->product = p;
    l->addend = l->src[2];
    l->exact = sum;
    rounding r1 = round_to(&fp_f32, sum, TRIMMED, false);
    final_step(v, sum, &r1, true);
    xval scaled = xval_scale(result_value(&fp_f32, r1.bits), k);
    rounding r2 = round_to(&fp_f32, scaled, r1.result_bit0 + k, false);
    final_step(v, scaled, &r2, false);
    lane_classes(v, l, want);
    return (uint32_t)r2.bits;
}

/* The legacy form: flushed sources, the product rounded and flushed, the
 * sum rounded and flushed. */
static HOT uint32_t mad(lane *l, isa_verdict *v, uint32_t want)
{
    l->dest = &fp_f32;
    l->product = l->src[0] * l->src[1];
    l->addend = l->src[2];
    xval p = xval_of(l->product);
    rounding rp = round_to(&fp_f32, p, TRIMMED, false);
    final_step(v, p, &rp, true);
    uint32_t pr = flush_f32((uint32_t)rp.bits);
    l->exact = xval_sum(f32_value(pr), l->addend);
    rounding rs = round_to(&fp_f32, l->exact, TRIMMED, false);
    final_step(v, l->exact, &rs, false);
    lane_classes(v, l, want);
    uint32_t r = (uint32_t)rs.bits;
    return flush_f32(r);
}

/* A planted mistake (TIEFUZZ_PLANT_FAST_MISTAKE test builds only): ties of
 * f32 results with an even unit below 2^-100 round away from zero, in
 * fast_one and on the lanes' path alike; n tuples' outputs, after their
 * verdicts.  The audit must catch it.  Idempotent (a result it moved is
 * odd), so a tuple fast_one made may pass through it again. */
static inline void planted_mistake(const isa_op *op, const isa_verdict *v, uint32_t *out, size_t n)
{
#ifdef TIEFUZZ_PLANT_FAST_MISTAKE
    for (size_t i = 0; i < n; i++)
        if (op->form == RDNA2_FMA32 && (v[i].classes & (1u << GEN_TIE)) && v[i].tie_exp < -100 && !(out[i] & 1) &&
            (out[i] & 0x7f800000u))
            out[i] += 1;
#else
    (void)op, (void)v, (void)out, (void)n;
#endif
}

/* One tuple with its verdict (or, with v NULL, the outputs alone by the same
 * software rounding: the batch path's fallback for what it does not cover). */
static void fast_one(const isa_instance *in, const uint32_t *w, uint32_t *out, isa_verdict *v, uint32_t want)
{
    const isa_op *op = in->op;
    lane l;
    if (v) {
        memset(v, 0, sizeof *v);
        v->classes = v->at_result = 1u << GEN_RANDOM;
        v->tie_exp = ISA_NO_EXPONENT;
    }
    switch ((rdna2_form)op->form) {
    case RDNA2_FMA32:
        f32_sources(in, w, &l, false);
        out[0] = (uint32_t)rdna2_clamp(in, &fp_f32, omod(in, &fp_f32, fused(&l, &fp_f32, v, want)));
        if (v)
            planted_mistake(op, v, out, 1);
        break;
    case RDNA2_DIV_FMAS:
        f32_sources(in, w, &l, false);
        out[0] = (uint32_t)rdna2_clamp(in, &fp_f32, omod(in, &fp_f32, div_fmas(in, w, &l, v, want)));
        break;
    case RDNA2_MAD32:
        f32_sources(in, w, &l, true);
        out[0] = (uint32_t)rdna2_clamp(in, &fp_f32, omod(in, &fp_f32, mad(&l, v, want)));
        break;
    case RDNA2_MIX32:
        mix_sources(in, w, &l);
        out[0] = (uint32_t)rdna2_clamp(in, &fp_f32, fused(&l, &fp_f32, v, want));
        break;
    case RDNA2_MIX16: {
        mix_sources(in, w, &l);
        uint32_t h = to_half(&l, rdna2_mix_rounds_once(in), v, want);
        h = (uint32_t)rdna2_clamp(in, &fp_f16, h);
        out[0] = rdna2_put_half(w[op->n_in - 1], h, op->flags & RDNA2_DST_HI);
        break;
    }
    case RDNA2_FMA16: {
        half_sources(in, w, in->ctrl[CTRL_OP_SEL], in->ctrl[CTRL_NEG], in->ctrl[CTRL_ABS], &l);
        uint32_t h = to_half(&l, true, v, want);
        h = (uint32_t)rdna2_clamp(in, &fp_f16, omod(in, &fp_f16, h));
        out[0] = rdna2_put_half(w[op->n_in - 1], h, BIT(in->ctrl[CTRL_OP_SEL], 3));
        break;
    }
    case RDNA2_PK16: {
        half_sources(in, w, in->ctrl[CTRL_OP_SEL], in->ctrl[CTRL_NEG_LO], 0, &l);
        uint32_t lo = (uint32_t)rdna2_clamp(in, &fp_f16, to_half(&l, true, v, want));
        half_sources(in, w, rdna2_pk_hi_select(in), in->ctrl[CTRL_NEG_HI], 0, &l);
        uint32_t hi = (uint32_t)rdna2_clamp(in, &fp_f16, to_half(&l, true, v, want));
        out[0] = lo | hi << 16;
        break;
    }
    case RDNA2_FMA64:
        /* No double-double for f64 products: the exact model (not translated, rarely run). */
        if (v) {
            isa_eval_exact(in, w, out, want, v);
        } else {
            rdna2_eval(in, w, out, NULL);
        }
        break;
    }
}

/* ---- outputs only, many tuples: the hardware's own instructions ----
 *
 * The fused f32 forms are one hardware fused multiply-add each (the FMA
 * instruction where the CPU has it, chosen at load time; glibc's correctly
 * rounded fmaf elsewhere); the legacy forms a hardware multiply and add with
 * the flushes as bit tests; the f16 forms eight lanes at a time through
 * fp_fast_fma16_array; the MIX forms with sources decoded exactly.  NaN
 * results are the model's default NaN. */

static inline uint32_t f32_canonical(uint32_t b) { return (b & 0x7fffffffu) > 0x7f800000u ? 0x7fc00000u : b; }
static inline uint32_t f32_flush(uint32_t b) { return (b & 0x7f800000u) ? b : b & 0x80000000u; }

/* The three sources of a tuple: where each is read from (a word, or K), and
 * the abs/neg masks. */
typedef struct {
    const uint32_t *base[3];
    size_t stride[3];
    uint32_t keep[3], flip[3];
    bool post;  /* omod or clamp to apply */
} source_plan;

/* Whether the model applies omod (the op has it, the control asks, the parameter says so). */
static bool omod_applies(const isa_instance *in)
{
    return in->op->ctrl_limit[CTRL_OMOD] && in->ctrl[CTRL_OMOD] && in->param[PARAM_OMOD] != 0;
}

/* Whether omod or clamp changes a result (else both are skipped). */
static bool has_post(const isa_instance *in) { return in->ctrl[CTRL_CLAMP] || omod_applies(in); }

/* rdna2_clamp on a result whose sign bit is `sign`, 1.0 `one` and
 * infinity `inf`, as bit operations: a negative or NaN result is +0, else
 * at most 1.0.  Whether a result is negative is its case's coin: as
 * rdna2_clamp's branches, a clamped v_fma_f32 block took 70 more
 * instructions a case (callgrind). */
static inline uint32_t clamp_bits(uint32_t r, uint32_t sign, uint32_t one, uint32_t inf)
{
    uint32_t zero = (r & sign) | ((r & (sign - 1)) > inf);
    uint32_t c = r > one ? one : r;
    return zero ? 0 : c;
}
static inline uint32_t clamp_f32(uint32_t r) { return clamp_bits(r, 0x80000000u, 0x3f800000u, 0x7f800000u); }
static inline uint32_t clamp_f16(uint32_t h) { return clamp_bits(h, 0x8000u, 0x3c00u, 0x7c00u); }

/* omod (where the model applies it; seldom: a scalar loop), then clamp, on a
 * block's rounded results of format f, as fast_one applies them. */
static void post_block(const isa_instance *in, const fp_format *f, bool with_omod, uint32_t *out, size_t m)
{
    if (with_omod && omod_applies(in))
        for (size_t t = 0; t < m; t++)
            out[t] = (uint32_t)omod(in, f, out[t]);
    if (!in->ctrl[CTRL_CLAMP])
        return;
    if (f == &fp_f16)
        for (size_t t = 0; t < m; t++)
            out[t] = clamp_f16(out[t]);
    else
        for (size_t t = 0; t < m; t++)
            out[t] = clamp_f32(out[t]);
}

static void plan_sources(const isa_instance *in, const uint32_t *words, uint32_t sign_bit, uint32_t abs,
                         uint32_t neg, source_plan *s)
{
    const isa_op *op = in->op;
    for (int i = 0; i < 3; i++) {
        bool k = op->src[i] == RDNA2_SRC_K;
        s->base[i] = k ? &in->ctrl[CTRL_K] : words + op->src[i];
        s->stride[i] = k ? 0 : op->n_in;
    }
    rdna2_sign_masks(sign_bit, abs, neg, s->keep, s->flip);
    s->post = has_post(in);
}

/* Sources are gathered a block at a time into three arrays (with their
 * modifiers), so that the arithmetic runs on contiguous words, eight or
 * sixteen lanes at a time: one tuple at a time through the strided plan,
 * the fused f32 forms reached a quarter of a scalar FMA loop's rate. */
#define F32_BLOCK 512

/* One source of a block; inlined with a constant stride, the loop becomes
 * vector loads and shuffles instead of one load a word. */
static inline __attribute__((always_inline)) void gather_strided(const uint32_t *base, size_t stride, uint32_t keep,
                                                                 uint32_t flip, size_t m, uint32_t *v)
{
    for (size_t t = 0; t < m; t++)
        v[t] = (base[t * stride] & keep) ^ flip;
}

/* The first three words of m tuples of 3 or 4 words each, into three
 * arrays, sixteen tuples at a time: whole vectors loaded and each array's
 * words picked from them by shuffles (vpermt2d where AVX-512 is present).
 * Against a load a word, v_fma_f32's batch path went from 0.54 to 2.0-2.2
 * times the scalar FMA loop (bench_rdna2 --no-device, the two builds side
 * by side); the compiler's own code for a constant stride of 3 or 4 is
 * gather instructions, slower still. */
typedef uint32_t v16w __attribute__((vector_size(64)));

LANES v16w load16(const uint32_t *p)
{
    v16w x;
    memcpy(&x, p, sizeof x);
    return x;
}

LANES void store16(uint32_t *p, v16w x) { memcpy(p, &x, sizeof x); }

LANES void three_of_three(const uint32_t *w, uint32_t *a, uint32_t *b, uint32_t *c)
{
    v16w x0 = load16(w), x1 = load16(w + 16), x2 = load16(w + 32);
    /* Tuple t's words are 3t, 3t+1, 3t+2: eleven (ten) of each array's
     * sixteen lie in x0 and x1, the rest in x2. */
    v16w p = __builtin_shufflevector(x0, x1, 0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 0, 0, 0, 0, 0);
    v16w q = __builtin_shufflevector(x0, x1, 1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 0, 0, 0, 0, 0);
    v16w r = __builtin_shufflevector(x0, x1, 2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 0, 0, 0, 0, 0, 0);
    store16(a, __builtin_shufflevector(p, x2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17, 20, 23, 26, 29));
    store16(b, __builtin_shufflevector(q, x2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 18, 21, 24, 27, 30));
    store16(c, __builtin_shufflevector(r, x2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 19, 22, 25, 28, 31));
}

/* Word j of each of sixteen four-word tuples: 4t + j, eight in each pair of vectors. */
#define FOUR_LANE(j) j, j + 4, j + 8, j + 12, j + 16, j + 20, j + 24, j + 28
#define LOW_EIGHT_OF_EACH 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23

LANES void three_of_four(const uint32_t *w, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
    v16w x0 = load16(w), x1 = load16(w + 16), x2 = load16(w + 32), x3 = load16(w + 48);
    v16w lo, hi;
    lo = __builtin_shufflevector(x0, x1, FOUR_LANE(0), FOUR_LANE(1));
    hi = __builtin_shufflevector(x2, x3, FOUR_LANE(0), FOUR_LANE(1));
    store16(a, __builtin_shufflevector(lo, hi, LOW_EIGHT_OF_EACH));
    store16(b, __builtin_shufflevector(lo, hi, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31));
    lo = __builtin_shufflevector(x0, x1, FOUR_LANE(2), FOUR_LANE(3));
    hi = __builtin_shufflevector(x2, x3, FOUR_LANE(2), FOUR_LANE(3));
    store16(c, __builtin_shufflevector(lo, hi, LOW_EIGHT_OF_EACH));
    if (d)
        store16(d, __builtin_shufflevector(lo, hi, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31));
}

/* d, where not NULL, gets the fourth word of four-word tuples. */
LANES_ENTRY void tuple_words(const uint32_t *w, size_t stride, size_t m, uint32_t *a, uint32_t *b, uint32_t *c,
                             uint32_t *d)
{
    size_t t = 0;
    if (stride == 3)
        for (; t + 16 <= m; t += 16)
            three_of_three(w + 3 * t, a + t, b + t, c + t);
    else
        for (; t + 16 <= m; t += 16)
            three_of_four(w + 4 * t, a + t, b + t, c + t, d ? d + t : NULL);
    for (; t < m; t++) {
        a[t] = w[t * stride];
        b[t] = w[t * stride + 1];
        c[t] = w[t * stride + 2];
        if (d)
            d[t] = w[t * stride + 3];
    }
}

/* Whether a plan's sources are the first three words of tuples of 3 or 4. */
static bool first_three(const source_plan *s)
{
    size_t stride = s->stride[0];
    return (stride == 3 || stride == 4) && s->stride[1] == stride && s->stride[2] == stride &&
           s->base[1] == s->base[0] + 1 && s->base[2] == s->base[0] + 2;
}

/* A block's sources by their plan, its fields hoisted out of the loop (a
 * tuple at a time through the plan, the batch paths ran 1.2-1.35x
 * slower).  The first three words of 3- or 4-word tuples (every f32 form
 * but the K forms) are unpacked together, and the fourth word of 4-word
 * tuples into `fourth` (true: it was); a literal (stride 0) and the
 * two-word tuples of the K forms get constant strides: 1.5-2.5x faster. */
static bool gather_sources(const source_plan *s, size_t first, size_t m, uint32_t *const v[3], uint32_t *fourth)
{
    if (first_three(s)) {
        tuple_words(s->base[0] + first * s->stride[0], s->stride[0], m, v[0], v[1], v[2],
                    s->stride[0] == 4 ? fourth : NULL);
        for (int i = 0; i < 3; i++)
            if (s->keep[i] != ~0u || s->flip[i])
                for (size_t t = 0; t < m; t++)
                    v[i][t] = (v[i][t] & s->keep[i]) ^ s->flip[i];
        return s->stride[0] == 4;
    }
    for (int i = 0; i < 3; i++) {
        size_t stride = s->stride[i];
        const uint32_t *base = s->base[i] + first * stride;
        uint32_t keep = s->keep[i], flip = s->flip[i];
        switch (stride) {
        case 0: gather_strided(base, 0, keep, flip, m, v[i]); break;
        case 2: gather_strided(base, 2, keep, flip, m, v[i]); break;
        default: gather_strided(base, stride, keep, flip, m, v[i]); break;
        }
    }
    return false;
}

/* Clamp and omod where the controls ask for them. */
static void post_f32(const isa_instance *in, const source_plan *s, uint32_t *out, size_t m)
{
    if (s->post)
        post_block(in, &fp_f32, true, out, m);
}

/* clamp_bits on a block of f16 results (the batch paths' halves), where the control asks. */
static void clamp_f16_block(const isa_instance *in, uint16_t *h, size_t m)
{
    if (in->ctrl[CTRL_CLAMP])
        for (size_t t = 0; t < m; t++)
            h[t] = (uint16_t)clamp_f16(h[t]);
}

/* A form's arithmetic on a block of gathered sources (fp_fast_fma32_array's shape). */
typedef void f32_kernel(const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *r, size_t n);
/* What a form changes after the kernel, on a block's tuples (words) and sources. */
typedef void f32_fixup(const isa_instance *in, const uint32_t *words, uint32_t v[3][F32_BLOCK], const uint32_t *fourth,
                       size_t m, uint32_t *out);

/* The f32 forms in blocks: the sources, the kernel, the fix-up (or none), then clamp and omod. */
static void f32_blocks(const isa_instance *in, const uint32_t *words, const source_plan *s, size_t n, uint32_t *out,
                       f32_kernel *kernel, f32_fixup *fixup)
{
    uint32_t v[3][F32_BLOCK], fourth[F32_BLOCK];
    for (size_t first = 0; first < n; first += F32_BLOCK) {
        size_t m = n - first < F32_BLOCK ? n - first : F32_BLOCK;
        bool has_fourth = gather_sources(s, first, m, (uint32_t *const[3]){v[0], v[1], v[2]}, fourth);
        kernel(v[0], v[1], v[2], out + first, m);
        if (fixup)
            fixup(in, words + first * in->op->n_in, v, has_fourth ? fourth : NULL, m, out + first);
        post_f32(in, s, out + first, m);
    }
}

/* V_DIV_FMAS's scaled result, four lanes at a time: the exact sum rounded
 * to odd in double (fp_fast_sum_to_odd's TwoSum, the odd step as a
 * select), scaled by 2^k (exact: the smallest nonzero product, 2^-298,
 * stays normal in double) and rounded once to f32; or, in the other order,
 * the f32 fma scaled and rounded again.  A zero, infinite or NaN sum is
 * scaled as it is, as the scalar form returns it. */
LANES vd lanes_of(const uint32_t *p)
{
    vf f;
    memcpy(&f, p, sizeof f);
    return widen_f32(f);
}

LANES void four_scaled(const uint32_t *a, const uint32_t *b, const uint32_t *c, int32_t big, int32_t small, bool once,
                       uint32_t *out)
{
    vd P = lanes_of(a) * lanes_of(b), C = lanes_of(c), S;
    /* rdna2_div_fmas_scale: by S2's exponent (the modifiers leave it be). */
    vw cw;
    memcpy(&cw, c, sizeof cw);
    vl k = pick(widen_mask((vi)((cw >> 23) & 0xff) > 127), ALL(big), ALL(small));
    vd scale = (vd)((k + 1023) << 52);
    if (once) {
        S = P + C;
        vd bb = S - P, E = (P - (S - bb)) + (C - bb);
        vl bits = (vl)S;
        vl finite = ((bits & ~SIGN_BIT) < ALL(0x7ff0000000000000LL)) & (S != 0);
        vl odd_step = finite & (E != 0) & ((bits & 1) == 0);
        vl toward = pick(((bits ^ (vl)E) < 0), ALL(-1), ALL(1));  /* E against S's sign: down in magnitude */
        S = (vd)(bits + (odd_step & toward));
    } else {
        S = lanes_of(out);
    }
    vf r = __builtin_convertvector(S * scale, vf);
    vw w = (vw)r;
    vw nan = (vw)((w & 0x7fffffffu) > 0x7f800000u);
    w = (w & ~nan) | (0x7fc00000u & nan);
    memcpy(out, &w, sizeof w);
}

/* V_DIV_FMAS's scaled result on lanes packed together (all with VCC set):
 * every lane computed in vectors, the last ones padded with ones. */
LANES_ENTRY void scaled_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, int32_t big,
                              int32_t small, bool once, uint32_t *out)
{
    size_t j = 0;
    for (; j + 4 <= n; j += 4)
        four_scaled(a + j, b + j, c + j, big, small, once, out + j);
    if (j < n) {
        uint32_t pa[4], pb[4], pc[4], po[4];
        for (size_t i = 0; i < 4; i++) {
            bool real = j + i < n;
            pa[i] = real ? a[j + i] : 0x3f800000u;
            pb[i] = real ? b[j + i] : 0x3f800000u;
            pc[i] = real ? c[j + i] : 0x3f800000u;
            po[i] = real ? out[j + i] : 0x3f800000u;
        }
        four_scaled(pa, pb, pc, big, small, once, po);
        memcpy(out + j, po, (n - j) * sizeof *po);
    }
}

/* The common VCC lane without any rounding: where the fma's f32 result r
 * and r * 2^k are both normal and above the lowest binade (biased
 * exponents 2..254), rounding commutes with the exact scaling, so both
 * orders' result is r with k added to its exponent.  (At exponent 1, r
 * may be a subnormal sum rounded up to 2^-126, whose scaled value rounds
 * to 24 bits instead.)  hard[t] marks the VCC lanes left for
 * scaled_lanes. */
LANES_ENTRY void scale_exponents(const uint32_t *c, const uint32_t *vcc, size_t m, int32_t big, int32_t small,
                                 uint32_t *out, uint8_t *hard)
{
    for (size_t t = 0; t < m; t++) {
        uint32_t r = out[t], set = vcc[t] & 1;
        int32_t k = ((c[t] >> 23) & 0xff) > 127 ? big : small;
        int32_t e = (int32_t)((r >> 23) & 0xff), ek = e + k;
        uint32_t easy = (uint32_t)(e >= 2 && e <= 254 && ek >= 2 && ek <= 254);
        out[t] = set & easy ? r + ((uint32_t)k << 23) : r;
        hard[t] = (uint8_t)(set & ~easy & 1);
    }
}

/* V_DIV_FMAS: the kernel's fma (in out) where VCC is clear, scaled where it
 * is set: by the exponent where that is exact, else through scaled_lanes
 * on the few lanes left, packed together (fp_pack_marked). */
static void div_fmas_vcc(const isa_instance *in, const uint32_t *words, uint32_t v[3][F32_BLOCK],
                         const uint32_t *fourth, size_t m, uint32_t *out)
{
    uint32_t vcc[F32_BLOCK];
    if (!fourth) {
        for (size_t t = 0; t < m; t++)
            vcc[t] = words[t * in->op->n_in + 3];
        fourth = vcc;
    }
    /* rdna2_div_fmas_scale's two answers: S2 of exponent above 127 (2.0), and not (0). */
    int32_t big = rdna2_div_fmas_scale(in, 0x40000000u), small = rdna2_div_fmas_scale(in, 0);
    uint8_t hard[F32_BLOCK];
    scale_exponents(v[2], fourth, m, big, small, out, hard);
    uint32_t pa[F32_BLOCK + FP_MARKED_SLACK], pb[F32_BLOCK + FP_MARKED_SLACK], pc[F32_BLOCK + FP_MARKED_SLACK],
        r[F32_BLOCK + FP_MARKED_SLACK];
    bool once = in->param[PARAM_DIV_FMAS_ORDER] == 0;  /* else the f32 result (out) is scaled and rounded again */
    size_t k = fp_pack_marked(hard, m, once ? 3 : 4, (const uint32_t *const[4]){v[0], v[1], v[2], out},
                              (uint32_t *const[4]){pa, pb, pc, r});
    scaled_lanes(pa, pb, pc, k, big, small, once, r);
    fp_unpack_marked(hard, m, r, out);
}

/* The legacy form on contiguous words: flushes as selects, a hardware
 * multiply and add (each rounds to nearest even: checked at start). */
LANES_ENTRY void mad32_block(const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *out, size_t m)
{
    for (size_t t = 0; t < m; t++) {
        float p = fp_ffrom(f32_flush(a[t])) * fp_ffrom(f32_flush(b[t]));
        float r = fp_ffrom(f32_flush(fp_fbits(p))) + fp_ffrom(f32_flush(c[t]));
        out[t] = f32_flush(f32_canonical(fp_fbits(r)));
    }
}

/* V_FMA_MIX_F32 in blocks: each source an f32 register or the half op_sel
 * picks (converted exactly, F16C where present), the modifiers as bit
 * operations, then the fused multiply-adds eight at a time. */
#define MIX_BLOCK 512

/* One source of a block from its unpacked words w: the register's f32, or
 * the half op_sel picks, with the modifiers, widened exactly (F16C where
 * present: a signalling NaN comes out quiet, which no consumer tells apart,
 * the lanes and the batch paths making every NaN the default one).  Where
 * subnormal is not NULL, the tuples whose half is subnormal are marked (a
 * normal f32 to the lanes, its class the half's own, as src_subnormal in
 * lane_classes). */
static void mix_source_block(const isa_instance *in, const uint32_t *w, int i, size_t m, uint32_t *f,
                             bool *subnormal)
{
    bool abs = BIT(in->ctrl[CTRL_NEG_HI], i), neg = BIT(in->ctrl[CTRL_NEG_LO], i);
    if (!BIT(in->ctrl[CTRL_OP_SEL_HI], i)) {
        uint32_t keep = abs ? 0x7fffffffu : ~0u, flip = neg ? 0x80000000u : 0;
        for (size_t t = 0; t < m; t++)
            f[t] = (w[t] & keep) ^ flip;
        return;
    }
    unsigned shift = 16 * BIT(in->ctrl[CTRL_OP_SEL], i);
    uint16_t keep = abs ? 0x7fff : 0xffff, flip = neg ? 0x8000 : 0;
    uint16_t h[MIX_BLOCK];
    for (size_t t = 0; t < m; t++)
        h[t] = (uint16_t)(((w[t] >> shift) & keep) ^ flip);
    if (subnormal) {
        /* No branch, and each step in one element width, so both loops
         * are vector code: in one loop from the halves into the bytes GCC
         * made it a byte a step, most of this function's time. */
        uint16_t sub[MIX_BLOCK];
        for (size_t t = 0; t < m; t++)
            sub[t] = (uint16_t)(((h[t] & 0x7c00u) == 0) & ((h[t] & 0x3ffu) != 0));
        for (size_t t = 0; t < m; t++)
            subnormal[t] |= (bool)(uint8_t)sub[t];
    }
    fp_fast_f16_to_f32_array(h, f, m);
}

/* The three sources of a block of MIX tuples (their first three words:
 * every MIX row's src is {0, 1, 2}; m at most MIX_BLOCK), the fourth word
 * (D) into d and which tuples have a subnormal half into subnormal, where
 * not NULL.  The verdicts' path had read the controls for every source of
 * every tuple and widened halves one at a time: 74 of V_FMA_MIX_F32's 1,400
 * instructions a generated case (scripts/bench-compare 0cd09d9 --instructions
 * at 666497d). */
static void mix_sources_block(const isa_instance *in, const uint32_t *words, size_t m, uint32_t *const v[3],
                              uint32_t *d, bool *subnormal)
{
    uint32_t w[3][MIX_BLOCK];
    tuple_words(words, in->op->n_in, m, w[0], w[1], w[2], d);
    if (subnormal)
        for (size_t t = 0; t < m; t++)
            subnormal[t] = false;
    for (int i = 0; i < 3; i++)
        mix_source_block(in, w[i], i, m, v[i], subnormal);
}

static void mix32_batch(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out)
{
    uint32_t v[3][MIX_BLOCK];
    for (size_t first = 0; first < n; first += MIX_BLOCK) {
        size_t m = n - first < MIX_BLOCK ? n - first : MIX_BLOCK;
        mix_sources_block(in, words + first * in->op->n_in, m, (uint32_t *const[3]){v[0], v[1], v[2]}, NULL, NULL);
        fp_fast_fma32_array(v[0], v[1], v[2], out + first, m);
        post_block(in, &fp_f32, false, out + first, m);  /* no omod on the MIX forms */
    }
}

/* V_FMA_MIX{LO,HI}_F16: the sources as for V_FMA_MIX_F32, then
 * fp_fast_mix16_array: to f16 once, or to f32 and then f16 (the model
 * parameter). */
static void mix16_batch(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out)
{
    const isa_op *op = in->op;
    bool once = rdna2_mix_rounds_once(in);
    uint32_t v[3][MIX_BLOCK], d[MIX_BLOCK];
    uint16_t h[MIX_BLOCK];
    /* rdna2_put_half as a mask and a shift. */
    bool hi = op->flags & RDNA2_DST_HI;
    uint32_t kept = hi ? 0xffffu : 0xffff0000u, shift = hi ? 16 : 0;
    for (size_t first = 0; first < n; first += MIX_BLOCK) {
        size_t m = n - first < MIX_BLOCK ? n - first : MIX_BLOCK;
        mix_sources_block(in, words + first * op->n_in, m, (uint32_t *const[3]){v[0], v[1], v[2]}, d, NULL);
        fp_fast_mix16_array(v[0], v[1], v[2], h, m, once);
        clamp_f16_block(in, h, m);
        for (size_t t = 0; t < m; t++)
            out[first + t] = (d[t] & kept) | (uint32_t)h[t] << shift;
    }
}

/* The f16 forms in blocks: the selected, modified halves gathered, the
 * multiply-adds eight at a time (fp_fast_fma16_array), the results put back. */
#define HALF_BLOCK 512

static inline uint32_t f16_canonical(uint32_t h) { return (h & 0x7fff) > 0x7c00 ? 0x7e00 : h; }

/* The f16 forms' halves of one source for a block: the half `shift`
 * picks from each word, with the abs/neg masks. */
static void halves_of(const uint32_t *w, unsigned shift, uint32_t keep, uint32_t flip, size_t m, uint16_t *h)
{
    for (size_t t = 0; t < m; t++)
        h[t] = (uint16_t)((((w[t] >> shift) & 0xffffu) & keep) ^ flip);
}

/* Every f16 and packed row reads s0, s1, s2 from its first three words
 * (src {0, 1, 2}); V_FMA_F16's D is its fourth, V_FMAC_F16's its third. */
static void fma16_batch(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out)
{
    const isa_op *op = in->op;
    uint32_t sel = in->ctrl[CTRL_OP_SEL];
    source_plan s;
    plan_sources(in, words, 0x8000u, in->ctrl[CTRL_ABS], in->ctrl[CTRL_NEG], &s);
    uint32_t w[4][HALF_BLOCK];
    uint16_t h[3][HALF_BLOCK], r[HALF_BLOCK];
    const uint32_t *d = op->n_in == 4 ? w[3] : w[2];
    bool hi = BIT(sel, 3);
    uint32_t kept = hi ? 0xffffu : 0xffff0000u, shift = hi ? 16 : 0;
    for (size_t first = 0; first < n; first += HALF_BLOCK) {
        size_t m = n - first < HALF_BLOCK ? n - first : HALF_BLOCK;
        tuple_words(words + first * op->n_in, op->n_in, m, w[0], w[1], w[2], op->n_in == 4 ? w[3] : NULL);
        for (int i = 0; i < 3; i++)
            halves_of(w[i], 16 * BIT(sel, i), s.keep[i], s.flip[i], m, h[i]);
        fp_fast_fma16_array(h[0], h[1], h[2], r, m);
        for (size_t t = 0; t < m; t++)
            r[t] = (uint16_t)f16_canonical(r[t]);
        if (omod_applies(in))
            for (size_t t = 0; t < m; t++)
                r[t] = (uint16_t)omod(in, &fp_f16, r[t]);
        clamp_f16_block(in, r, m);
        for (size_t t = 0; t < m; t++)
            out[first + t] = (d[t] & kept) | (uint32_t)r[t] << shift;
    }
}

static void pk16_batch(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out)
{
    const isa_op *op = in->op;
    uint32_t sel[2] = {in->ctrl[CTRL_OP_SEL], rdna2_pk_hi_select(in)};
    uint32_t neg[2] = {in->ctrl[CTRL_NEG_LO], in->ctrl[CTRL_NEG_HI]};
    uint32_t w[3][HALF_BLOCK];
    uint16_t h[2][3][HALF_BLOCK], r[2][HALF_BLOCK];
    for (size_t first = 0; first < n; first += HALF_BLOCK) {
        size_t m = n - first < HALF_BLOCK ? n - first : HALF_BLOCK;
        tuple_words(words + first * op->n_in, op->n_in, m, w[0], w[1], w[2], NULL);
        for (int lane = 0; lane < 2; lane++) {
            for (int i = 0; i < 3; i++)
                halves_of(w[i], 16 * BIT(sel[lane], i), 0xffffu, BIT(neg[lane], i) << 15, m, h[lane][i]);
            fp_fast_fma16_array(h[lane][0], h[lane][1], h[lane][2], r[lane], m);
            for (size_t t = 0; t < m; t++)
                r[lane][t] = (uint16_t)f16_canonical(r[lane][t]);
            clamp_f16_block(in, r[lane], m);
        }
        for (size_t t = 0; t < m; t++)
            out[first + t] = r[0][t] | (uint32_t)r[1][t] << 16;
    }
}

void rdna2_fast_batch(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out)
{
    const isa_op *op = in->op;
    source_plan s;
    switch ((rdna2_form)op->form) {
    case RDNA2_FMA32:
    case RDNA2_MAD32:
    case RDNA2_DIV_FMAS:
        plan_sources(in, words, 0x80000000u, in->ctrl[CTRL_ABS], in->ctrl[CTRL_NEG], &s);
        f32_blocks(in, words, &s, n, out, op->form == RDNA2_MAD32 ? mad32_block : fp_fast_fma32_array,
                   op->form == RDNA2_DIV_FMAS ? div_fmas_vcc : NULL);
        break;
    case RDNA2_MIX32:
        mix32_batch(in, words, n, out);
        break;
    case RDNA2_MIX16:
        mix16_batch(in, words, n, out);
        break;
    case RDNA2_FMA16:
        fma16_batch(in, words, n, out);
        break;
    case RDNA2_PK16:
        pk16_batch(in, words, n, out);
        break;
    default:
        for (size_t t = 0; t < n; t++)
            fast_one(in, words + t * op->n_in, out + t * op->n_out, NULL, 0);
        break;
    }
}

/* ---- verdicts, many tuples: in vectors ----
 *
 * fp_fast_fma32_lanes (every lane of the fused f32 forms but
 * V_FMA_MIX_F32's where op_sel_hi makes all three sources halves:
 * fp_fast_fma32_halves_lanes, in float lanes), fp_fast_fma16_lanes (every
 * lane of V_FMA_F16, V_FMAC_F16 and the packed forms, whose sources are
 * all f16, and of the MIX f16 forms where op_sel_hi makes all three
 * sources halves), fp_fast_fma_half_lanes (the MIX f16
 * forms with an f32 source, all but a few lanes) and
 * fp_fast_mad32_lanes (every lane of the legacy forms) round in vectors and
 * report what round_to would; the verdict is then what fused(), to_half()
 * or mad() and lane_classes() make of it (fp_fast_fma32_scaled_lanes:
 * V_DIV_FMAS with VCC set, scaling the exact sum).  A lane they leave,
 * V_DIV_FMAS with VCC set rounding twice and V_FMA_F64 go through fast_one. */
#define VERDICT_BLOCK 256

/* lane_double_round of a lane computed in vectors (a, b, c its sources as f32
 * bit patterns, unscaled), out of line: the lanes answer every done lane of
 * the f32 forms (V_DIV_FMAS's scaled ones too) and of the f16 forms; a lane
 * whose other rounding the lanes leave (an f32 value that overflows or is
 * zero) comes here. */
static __attribute__((noinline)) bool scalar_double_round(const fp_format *dest, uint32_t a, uint32_t b, uint32_t c)
{
    lane sum = {.dest = dest, .product = f32_value(a) * f32_value(b), .addend = f32_value(c)};
    return lane_double_round(&sum);
}

/* What lane_classes adds to a verdict rdna2_lane_verdicts made: the scalar
 * double-round test, for a lane the lanes did not answer (dr). */
static inline void scalar_double_round_class(isa_verdict *v, const fp_format *dest, uint32_t a, uint32_t b,
                                             uint32_t c, uint32_t want, int dr)
{
    if (dr == RDNA2_DR_SCALAR && (want & (1u << GEN_DOUBLE_ROUND)) && scalar_double_round(dest, a, b, c)) {
        v->classes |= 1u << GEN_DOUBLE_ROUND;
        v->at_result |= 1u << GEN_DOUBLE_ROUND;
    }
}

/* Marks the lanes whose half sources were subnormal (the lanes see them as normal f32 values). */
static void mark_half_subnormals(fp_fma_lane *lanes, const bool *subnormal, size_t m)
{
    for (size_t t = 0; t < m; t++)  /* no branch: which tuples have one is the class's coin */
        lanes[t].flags |= (uint16_t)(subnormal[t] * FP_LANE_SUBNORMAL_SOURCE);
}

/* The lanes whose cases ask for the double-round test (their positions in
 * at[], their count returned); every dr[t] starts RDNA2_DR_SCALAR. */
static size_t double_round_wanted(const fp_fma_lane *lanes, const uint32_t *want, size_t m, uint8_t *dr, uint16_t *at)
{
    /* Every lane written, counted where it is wanted: no branch on the
     * class (as a branch, 40% of fma32_verdicts's own samples). */
    size_t k = 0;
    for (size_t t = 0; t < m; t++) {
        dr[t] = RDNA2_DR_SCALAR;
        at[k] = (uint16_t)t;
        k += ((want[t] >> GEN_DOUBLE_ROUND) & 1) & ((lanes[t].flags & FP_LANE_DONE) != 0);
    }
    return k;
}

/* lane_double_round to f32 for the fused lanes whose cases ask for it, in
 * lanes: the product rounded to f32 (one hardware rounding of an exact
 * double product), plus c, is a tie, and the fused sum (fused[t]) is not.
 * scale, where not NULL: lane t's product and c scaled by 2^scale[t] first,
 * as V_DIV_FMAS with VCC set scales its sum (rdna2_div_fmas_scale's k, as
 * div_fmas() scales them for lane_double_round). */
static void double_round_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, const int32_t *scale,
                               const fp_fma_lane *fused, const uint32_t *want, size_t m, uint8_t *dr)
{
    uint32_t pa[VERDICT_BLOCK], pb[VERDICT_BLOCK], pc[VERDICT_BLOCK];
    int32_t pk[VERDICT_BLOCK];
    uint16_t at[VERDICT_BLOCK];
    size_t k = double_round_wanted(fused, want, m, dr, at);
    for (size_t j = 0; j < k; j++)
        pa[j] = a[at[j]], pb[j] = b[at[j]], pc[j] = c[at[j]];
    if (scale)
        for (size_t j = 0; j < k; j++)
            pk[j] = scale[at[j]];
    uint8_t tie[VERDICT_BLOCK];
    if (k)
        fp_fast_product_sum_tie_lanes(pa, pb, pc, scale ? pk : NULL, k, tie);
    for (size_t j = 0; j < k; j++)
        dr[at[j]] = tie[j] && !(fused[at[j]].flags & FP_LANE_TIE) ? RDNA2_DR_YES : RDNA2_DR_NO;
}

/* lane_double_round to f16 for the f16 forms' lanes, in lanes: the sum
 * rounded to nearest at f32 and then to f16 is a tie (that f32 value is an
 * f16 tie), and the exact sum is not (its one rounding: to odd at f32,
 * then f16).  `lanes` are one of the two roundings (odd: the one to odd,
 * as most forms round; else to nearest, as a MIX f16 form's record does
 * where a source is an f32) and the other is made here for the lanes whose
 * cases ask.  A lane the other rounding leaves (an f32 value that
 * overflows or is zero) stays RDNA2_DR_SCALAR.  `halves`: every source an
 * f16 (float lanes).  The MIX f16 forms' nearest lanes were left to the
 * scalar test until 2026-12, 370 instructions a case that asks: their
 * double-round class under op_sel_hi 0-6 1,043-1,060 instructions a case,
 * 771-787 in lanes (callgrind). */
static void half_double_round_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, bool halves, bool odd,
                                    const fp_fma_lane *lanes, const uint32_t *want, size_t m, uint8_t *dr)
{
    uint32_t pa[VERDICT_BLOCK], pb[VERDICT_BLOCK], pc[VERDICT_BLOCK];
    uint16_t at[VERDICT_BLOCK];
    size_t k = double_round_wanted(lanes, want, m, dr, at);
    for (size_t j = 0; j < k; j++)
        pa[j] = a[at[j]], pb[j] = b[at[j]], pc[j] = c[at[j]];
    fp_fma_lane other[VERDICT_BLOCK];
    if (k && halves)
        fp_fast_fma16_lanes(pa, pb, pc, k, !odd, other);
    else if (k)
        fp_fast_fma_half_lanes(pa, pb, pc, k, !odd, other);
    for (size_t j = 0; j < k; j++) {
        const fp_fma_lane *once = odd ? &lanes[at[j]] : &other[j], *twice = odd ? &other[j] : &lanes[at[j]];
        if (other[j].flags & FP_LANE_DONE)  /* the lanes collected are done */
            dr[at[j]] = (twice->flags & FP_LANE_TIE) && !(once->flags & FP_LANE_TIE) ? RDNA2_DR_YES : RDNA2_DR_NO;
    }
}

/* lane_double_round for the legacy form's lanes whose cases ask for it,
 * of its sources flushed (as the form takes them): the lanes of those
 * cases packed, and both roundings' ties of each in one pass
 * (fp_fast_double_round_lanes). */
static void mad_double_round_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, const uint32_t *want,
                                   size_t m, uint8_t *dr)
{
    uint32_t fa[VERDICT_BLOCK], fb[VERDICT_BLOCK], fc[VERDICT_BLOCK];
    uint16_t at[VERDICT_BLOCK];
    size_t k = 0;
    for (size_t t = 0; t < m; t++) {
        dr[t] = RDNA2_DR_SCALAR;
        if (want[t] & (1u << GEN_DOUBLE_ROUND)) {
            at[k] = (uint16_t)t;
            fa[k] = flush_f32(a[t]), fb[k] = flush_f32(b[t]), fc[k] = flush_f32(c[t]);
            k++;
        }
    }
    if (!k)
        return;
    uint8_t yes[VERDICT_BLOCK];
    fp_fast_double_round_lanes(fa, fb, fc, k, yes);
    for (size_t j = 0; j < k; j++)
        dr[at[j]] = yes[j] ? RDNA2_DR_YES : RDNA2_DR_NO;
}

/* The forms that are one fused f32 multiply-add: FMA32, MIX32, and
 * V_DIV_FMAS (where VCC is set, of the scaled sum). */
static void fma32_verdicts(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out, isa_verdict *v,
                           const uint32_t *want)
{
    const isa_op *op = in->op;
    bool mix = op->form == RDNA2_MIX32, div_fmas = op->form == RDNA2_DIV_FMAS;
    /* V_DIV_FMAS scaling the exact sum (the order that rounds once): its
     * VCC lanes are fused lanes of the scaled sum (div_fmas()); the other
     * order's VCC lanes round twice, through fast_one. */
    bool scaled = div_fmas && in->param[PARAM_DIV_FMAS_ORDER] == 0;
    /* A MIX form whose sources are all halves (op_sel_hi 7, its default):
     * float lanes, sixteen a vector where the CPU has AVX-512, which mark
     * subnormal halves themselves. */
    bool halves = mix && rdna2_mix_all_half(in);
    source_plan s;
    plan_sources(in, words, 0x80000000u, in->ctrl[CTRL_ABS], in->ctrl[CTRL_NEG], &s);
    uint32_t a[VERDICT_BLOCK], b[VERDICT_BLOCK], c[VERDICT_BLOCK], fourth[VERDICT_BLOCK];
    int32_t k[VERDICT_BLOCK];
    fp_fma_lane lanes[VERDICT_BLOCK];
    for (size_t first = 0; first < n; first += VERDICT_BLOCK) {
        size_t m = n - first < VERDICT_BLOCK ? n - first : VERDICT_BLOCK;
        bool half_subnormal[VERDICT_BLOCK];
        if (mix)
            mix_sources_block(in, words + first * op->n_in, m, (uint32_t *const[3]){a, b, c}, NULL,
                              halves ? NULL : half_subnormal);
        else if (!gather_sources(&s, first, m, (uint32_t *const[3]){a, b, c}, fourth) && div_fmas)
            for (size_t t = 0; t < m; t++)
                fourth[t] = words[(first + t) * op->n_in + 3];
        if (scaled) {
            /* k per lane (0 where VCC is clear): the fused lanes and the
             * double-round test's other rounding both scale by it. */
            for (size_t t = 0; t < m; t++) {  /* masks, not branches: VCC is a coin's outcome */
                uint32_t set = -(fourth[t] & 1);
                k[t] = (int32_t)(set & (uint32_t)rdna2_div_fmas_scale(in, c[t]));  /* abs and neg leave S2's exponent */
            }
            fp_fast_fma32_scaled_lanes(a, b, c, k, m, lanes);
        } else if (halves) {
            fp_fast_fma32_halves_lanes(a, b, c, m, lanes);
        } else {
            fp_fast_fma32_lanes(a, b, c, m, lanes);
        }
        if (mix && !halves)
            mark_half_subnormals(lanes, half_subnormal, m);
        uint8_t dr[VERDICT_BLOCK];
        double_round_lanes(a, b, c, scaled ? k : NULL, lanes, want + first, m, dr);
        rdna2_lane_verdicts(lanes, dr, &fp_f32, m, v + first);
        if (!s.post && !(div_fmas && !scaled)) {
            /* No clamp or omod, and no lane that rounds twice: the outputs
             * are the lanes' bits (a loop without branches), then a lane not
             * done goes through fast_one (fp_fast_fma32_lanes does every
             * lane; the check guards that contract, as the loop below does).
             * With mad32_verdicts's flush alone, below: v_fma_f32 592 to 579
             * instructions a generated case, v_mad_f32 617 to 602
             * (callgrind, gen_count, the four-lane build). */
            for (size_t t = 0; t < m; t++)
                out[first + t] = lanes[t].bits;
            for (size_t t = 0; t < m; t++)
                if (!(lanes[t].flags & FP_LANE_DONE))
                    fast_one(in, words + (first + t) * op->n_in, out + first + t, &v[first + t], want[first + t]);
            planted_mistake(op, v + first, out + first, m);
            continue;
        }
        /* The lanes' results with clamp and omod, a block at a time; then
         * the lanes they do not answer through fast_one, which applies
         * them itself. */
        for (size_t t = 0; t < m; t++)
            out[first + t] = lanes[t].bits;
        post_block(in, &fp_f32, !mix, out + first, m);
        for (size_t t = 0; t < m; t++) {
            size_t i = first + t;
            const uint32_t *w = words + i * op->n_in;
            /* One branch on both (VCC is a coin's outcome; taken, it mispredicts half the time). */
            bool vcc = div_fmas & (fourth[t] & 1), not_done = !(lanes[t].flags & FP_LANE_DONE);
            if (not_done | (vcc & !scaled)) {
                fast_one(in, w, out + i * op->n_out, &v[i], want[i]);
                continue;
            }
            /* dr[t] is never RDNA2_DR_SCALAR here (done lanes are answered in
             * lanes), so the unscaled scalar test below is never reached for
             * a scaled V_DIV_FMAS lane. */
            scalar_double_round_class(&v[i], &fp_f32, a[t], b[t], c[t], want[i], dr[t]);
            planted_mistake(op, v + i, out + i, 1);
        }
    }
}

/* The legacy form: the product's rounding (not the result's), then the sum's. */
static void mad32_verdicts(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out, isa_verdict *v,
                           const uint32_t *want)
{
    source_plan s;
    plan_sources(in, words, 0x80000000u, in->ctrl[CTRL_ABS], in->ctrl[CTRL_NEG], &s);
    uint32_t a[VERDICT_BLOCK], b[VERDICT_BLOCK], c[VERDICT_BLOCK];
    fp_fma_lane product[VERDICT_BLOCK], sum[VERDICT_BLOCK];
    for (size_t first = 0; first < n; first += VERDICT_BLOCK) {
        size_t m = n - first < VERDICT_BLOCK ? n - first : VERDICT_BLOCK;
        gather_sources(&s, first, m, (uint32_t *const[3]){a, b, c}, NULL);
        fp_fast_mad32_lanes(a, b, c, m, product, sum);
        uint8_t dr[VERDICT_BLOCK];
        mad_double_round_lanes(a, b, c, want + first, m, dr);
        /* The product's rounding first (its tie is the case's first), the
         * sum's merged in, with the double-round answer (the fused lanes
         * answer every lane). */
        rdna2_lane_verdict_pairs(product, NULL, true, sum, dr, &fp_f32, m, v + first);
        if (!s.post) {  /* the flush alone: no clamp or omod call a case */
            for (size_t t = 0; t < m; t++)
                out[first + t] = flush_f32(sum[t].bits);
            continue;
        }
        for (size_t t = 0; t < m; t++)
            out[first + t] = flush_f32(sum[t].bits);
        post_block(in, &fp_f32, true, out + first, m);
    }
}

/* The f16 and packed forms' sources of one lane, for tuples [first,
 * first + m): the halves select picks, after abs and negate, as f32 bit
 * patterns (F16C where present).  Their rows read s0, s1, s2 from the
 * first three words. */
static void half_lane_sources(const isa_instance *in, const uint32_t *words, size_t first, size_t m, uint32_t select,
                              uint32_t negate, uint32_t abs, uint32_t *a, uint32_t *b, uint32_t *c)
{
    source_plan s;
    plan_sources(in, words, 0x8000u, abs, negate, &s);
    uint32_t w[3][VERDICT_BLOCK];
    uint16_t h[3][VERDICT_BLOCK];
    tuple_words(words + first * in->op->n_in, in->op->n_in, m, w[0], w[1], w[2], NULL);
    for (int i = 0; i < 3; i++)
        halves_of(w[i], 16 * BIT(select, i), s.keep[i], s.flip[i], m, h[i]);
    fp_fast_f16_to_f32_array(h[0], a, m);
    fp_fast_f16_to_f32_array(h[1], b, m);
    fp_fast_f16_to_f32_array(h[2], c, m);
}

/* The outputs of tuples [first, first + m) of V_FMA_F16, V_FMAC_F16 and
 * the packed forms, from their lanes' results (clamp and omod applied):
 * every lane done and every wanted double-round test answered there, so
 * nothing is left to the scalar path and the loops are the outputs alone. */
static void half_outputs(const isa_instance *in, const uint32_t *words, size_t first, size_t m, const uint32_t *lo,
                         const uint32_t *hi, uint32_t *out)
{
    const isa_op *op = in->op;
    if (op->form == RDNA2_PK16) {
        for (size_t t = 0; t < m; t++)
            out[first + t] = lo[t] | hi[t] << 16;
        return;
    }
    bool high = BIT(in->ctrl[CTRL_OP_SEL], 3);
    for (size_t t = 0; t < m; t++)
        out[first + t] = rdna2_put_half(words[(first + t) * op->n_in + op->n_in - 1], lo[t], high);
}

/* The forms that round to f16 through f32 (to_half): V_FMA_F16 and
 * V_FMAC_F16, the MIX f16 forms, and the packed forms (two lanes a tuple,
 * low then high, as fast_one takes them). */
static void half_verdicts(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out, isa_verdict *v,
                          const uint32_t *want)
{
    const isa_op *op = in->op;
    rdna2_form form = (rdna2_form)op->form;
    int lanes_per_tuple = form == RDNA2_PK16 ? 2 : 1;
    bool odd = form != RDNA2_MIX16 || rdna2_mix_rounds_once(in);
    /* Every source an f16: the float lanes.  A MIX form's where op_sel_hi
     * makes all three halves (its default): v_fma_mixlo_f16's pipeline
     * 20.6 to 23.8 M cases/s (bench_rdna2, doc/fast-host.md). */
    bool halves = form != RDNA2_MIX16 || rdna2_mix_all_half(in);
    uint32_t sel[2] = {in->ctrl[CTRL_OP_SEL], form == RDNA2_PK16 ? rdna2_pk_hi_select(in) : 0};
    uint32_t neg[2] = {form == RDNA2_PK16 ? in->ctrl[CTRL_NEG_LO] : in->ctrl[CTRL_NEG], in->ctrl[CTRL_NEG_HI]};
    uint32_t abs = form == RDNA2_FMA16 ? in->ctrl[CTRL_ABS] : 0;
    bool post = has_post(in);
    uint32_t a[2][VERDICT_BLOCK], b[2][VERDICT_BLOCK], c[2][VERDICT_BLOCK];
    fp_fma_lane lanes[2][VERDICT_BLOCK];
    uint8_t dr[2][VERDICT_BLOCK];
    for (size_t first = 0; first < n; first += VERDICT_BLOCK) {
        size_t m = n - first < VERDICT_BLOCK ? n - first : VERDICT_BLOCK;
        for (int k = 0; k < lanes_per_tuple; k++) {
            bool sub[VERDICT_BLOCK];  /* a MIX form's subnormal halves, where the double lanes take it */
            if (form == RDNA2_MIX16)
                mix_sources_block(in, words + first * op->n_in, m, (uint32_t *const[3]){a[k], b[k], c[k]}, NULL,
                                  halves ? NULL : sub);
            else
                half_lane_sources(in, words, first, m, sel[k], neg[k], abs, a[k], b[k], c[k]);
            if (halves) {  /* every source an f16: float lanes, which mark subnormal halves themselves */
                fp_fast_fma16_lanes(a[k], b[k], c[k], m, odd, lanes[k]);
            } else {  /* a MIX form with an f32 source */
                fp_fast_fma_half_lanes(a[k], b[k], c[k], m, odd, lanes[k]);
                mark_half_subnormals(lanes[k], sub, m);
            }
            half_double_round_lanes(a[k], b[k], c[k], halves, odd, lanes[k], want + first, m, dr[k]);
        }
        /* Each lane's verdict; a packed tuple's is both lanes', merged as final_step merges a later rounding's. */
        if (lanes_per_tuple == 2)
            rdna2_lane_verdict_pairs(lanes[0], dr[0], false, lanes[1], dr[1], &fp_f16, m, v + first);
        else
            rdna2_lane_verdicts(lanes[0], dr[0], &fp_f16, m, v + first);
        /* Each lane's results with clamp and omod (V_FMA_F16's alone has
         * omod), a block at a time; fast_one applies them itself. */
        uint32_t h[2][VERDICT_BLOCK];
        for (int k = 0; k < lanes_per_tuple; k++) {
            for (size_t t = 0; t < m; t++)
                h[k][t] = lanes[k][t].bits;
            if (post)
                post_block(in, &fp_f16, form == RDNA2_FMA16, h[k], m);
        }
        if (form != RDNA2_MIX16) {
            half_outputs(in, words, first, m, h[0], h[1], out);
            continue;
        }
        /* A MIX form's lanes leave some tuples (and double-round tests) to the scalar path. */
        for (size_t t = 0; t < m; t++) {
            size_t i = first + t;
            const uint32_t *w = words + i * op->n_in;
            if (!(lanes[0][t].flags & FP_LANE_DONE)) {
                fast_one(in, w, out + i * op->n_out, &v[i], want[i]);
                continue;
            }
            scalar_double_round_class(&v[i], &fp_f16, a[0][t], b[0][t], c[0][t], want[i], dr[0][t]);
            out[i] = rdna2_put_half(w[op->n_in - 1], h[0][t], op->flags & RDNA2_DST_HI);
        }
    }
}

void rdna2_fast_verdicts(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out, isa_verdict *v,
                         const uint32_t *want)
{
    const isa_op *op = in->op;
    if (op->form == RDNA2_FMA32 || op->form == RDNA2_MIX32 || op->form == RDNA2_DIV_FMAS) {
        fma32_verdicts(in, words, n, out, v, want);
        return;
    }
    if (op->form == RDNA2_FMA16 || op->form == RDNA2_PK16 || op->form == RDNA2_MIX16) {
        half_verdicts(in, words, n, out, v, want);
        return;
    }
    if (op->form == RDNA2_MAD32) {
        mad32_verdicts(in, words, n, out, v, want);
        return;
    }
    for (size_t i = 0; i < n; i++)
        fast_one(in, words + i * op->n_in, out + i * op->n_out, &v[i], want[i]);
}

void rdna2_fast(const isa_instance *in, const uint32_t *w, uint32_t *out, isa_verdict *v, uint32_t want)
{
    if (v)
        fast_one(in, w, out, v, want);
    else
        rdna2_fast_batch(in, w, 1, out);  /* outputs alone: the hardware's instructions */
}
