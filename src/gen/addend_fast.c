/* gen_addend in double arithmetic: the same shapes, draws and results as
 * the exact kit's version (addend.c), at a fraction of the cost.
 *
 * The operands here are products of two f32 or f16 values (at most 48
 * significant bits) and the pieces the shapes add to them (a unit, half a
 * unit, a few units of a low bit), so every step is exact in double; each
 * step is still checked (an addition whose rounding error is not zero
 * makes the whole attempt fall back to the exact kit, with the random
 * stream rewound), so the result never depends on that argument holding. */
#include <string.h>
#include "gen.h"
#include "../fp/fast.h"

typedef enum { FAST_NO, FAST_YES, FAST_UNSURE } fast_outcome;

/* a + b, and whether it was exact (TwoSum's error is zero). */
static inline double add(double a, double b, bool *exact)
{
    double s = a + b;
    if (fp_sum_error(a, b, s) != 0)
        *exact = false;
    return s;
}

static bool to_double(fp_value x, double *out)
{
    if (x.kind != FPK_FINITE || x.jammed || fp_bit_length(x.sig) > 53 || x.exp < -900 || x.exp > 900)
        return false;
    double d = (double)(uint64_t)x.sig * fp_pow2(x.exp);
    *out = x.sign ? -d : d;
    return true;
}


/* y = v - x, in fy's encoding when representable. */
static fast_outcome finish(double v, double x, const fp_format *fy, uint64_t *out)
{
    bool exact = true;
    double y = add(v, -x, &exact);
    if (!exact)
        return FAST_NO;  /* y needs more than 53 bits: no format here holds it */
    return gen_double_bits(fy, y, out) ? FAST_YES : FAST_NO;
}

bool gen_double_bits(const fp_format *f, double y, uint64_t *bits)
{
    if (f == &fp_f32) {
        /* The hardware's conversion, exact where y is an f32 (subnormals
         * included: the environment check refuses flush-to-zero). */
        float x = (float)y;
        *bits = fp_fbits(x);
        return (double)x == y && __builtin_isfinite(x);
    }
    if (f == &fp_f64) {
        *bits = fp_dbits(y);  /* every finite double is one (the scaling below would overflow under 2^-971) */
        return __builtin_isfinite(y);
    }
    if (y == 0) {
        *bits = (uint64_t)(fp_dbits(y) >> 63) << (f->bits - 1);  /* signed (finish's exact differences are +0) */
        return true;
    }
    int p = (int)f->precision, e = fp_dexp(y < 0 ? -y : y);
    int q = (e < f->emin ? f->emin : e) - (p - 1);
    if (e > f->emax || fp_dlsb(y < 0 ? -y : y) < q)
        return false;
    uint64_t sign = (uint64_t)(fp_dbits(y) >> 63) << (f->bits - 1);
    uint64_t sig = (uint64_t)((y < 0 ? -y : y) * fp_pow2(-q)), hidden = 1ull << (p - 1);
    if (sig < hidden)
        *bits = sign | sig;
    else
        *bits = sign | (uint64_t)(e + f->bias) << (p - 1) | (sig - hidden);
    return true;
}

/* y = v - x, v the kept head of |x| plus half a unit and the offset, with
 * x's sign.  The tie in x's own binade is summed as (j units + half a unit)
 * + (offset - the bits of |x| below the unit): both parts are exact in
 * double, so the one rounding left is their sum, and a sum that is not a
 * double has more than 53 significant bits, which no format here holds (a
 * definite miss).  Summed left to right instead, a product far below the
 * destination's unit (an f16 result's tiny near ties) made the head plus
 * the offset inexact, and each such attempt went to the exact kit. */
static fast_outcome keep_shape(double x, int msb, const fp_format *fy, const fp_format *fd, int binade_shift,
                               double offset, gen_rng *r, uint64_t *y)
{
    int u = gen_unit_exp(fd, msb + binade_shift);
    if (u - 1 < -1000 || u > 1000)
        return FAST_UNSURE;
    double ax = x < 0 ? -x : x;
    bool exact = true;
    if (binade_shift != 0) {
        uint64_t sig = (1ull << (fd->precision - 1)) | (gen_next(r) & ((1ull << (fd->precision - 1)) - 1));
        double v = add(add((double)sig * fp_pow2(u), fp_pow2(u - 1), &exact), offset, &exact);
        if (!exact)
            return FAST_UNSURE;
        return finish(x < 0 ? -v : v, x, fy, y);
    }
    int j = gen_range(r, -1, 1);
    double head = fp_dfloor_to(ax, u);
    double t = add(head, j * fp_pow2(u), &exact);
    int ut = t != 0 ? gen_unit_exp(fd, fp_dexp(t)) : u;  /* the unit of t's binade (see addend.c) */
    double steps = add(j * fp_pow2(u), fp_pow2(ut - 1), &exact);
    double rest = add(offset, -add(ax, -head, &exact), &exact);
    if (!exact)
        return FAST_UNSURE;
    /* finish takes y = steps - (-rest), each with x's sign (a zero sum is +0, as v - x was). */
    return x < 0 ? finish(-steps, rest, fy, y) : finish(steps, -rest, fy, y);
}

static fast_outcome cancel_shape(double x, const fp_format *fy, const fp_format *fd, bool flip, uint64_t *y)
{
    int p = (int)fd->precision;
    int u = fp_dlsb(x) + 1;
    if (u + p - 1 < fd->emin && u != fd->emin - p + 1)
        return FAST_NO;  /* only the subnormal grid has a unit this small */
    int top = u + p - 1;
    if (top + 1 > 1000 || u < -1000)
        return FAST_UNSURE;
    double ax = x < 0 ? -x : x;
    bool exact = true;
    double hi = fp_dfloor_to(ax, top);
    double lo = add(ax, -hi, &exact);
    double v = flip ? add(lo, -fp_pow2(top + 1), &exact) : add(lo, fp_pow2(top), &exact);
    if (u + p - 1 < fd->emin)
        v = lo;  /* subnormal result: no leading bit to add */
    if (!exact)
        return FAST_UNSURE;
    return finish(x < 0 ? -v : v, x, fy, y);
}

static fast_outcome aimed(double x, const fp_format *fy, const fp_format *fd, gen_aim target, gen_rng *r,
                          uint64_t *y)
{
    int msb = fp_dexp(x < 0 ? -x : x);
    switch (target) {
    case AIM_SUBNORMAL:
        if (gen_coin(r) || !gen_subnormal_near_fits(fy, fd))
            return keep_shape(x, msb, fy, fd, 0, 0.0, r, y);
        return aimed(x, fy, fd, AIM_NEAR_TIE, r, y);
    case AIM_TIE: {
        unsigned pick = gen_below(r, 8);
        if (pick < 3)
            return cancel_shape(x, fy, fd, pick == 0, y);
        int shift = pick == 7 ? gen_range(r, 1, 12) : 0;
        return keep_shape(x, msb, fy, fd, shift, 0.0, r, y);
    }
    case AIM_NEAR_TIE: {
        int L = fp_dlsb(x);
        int u = gen_unit_exp(fd, msb);
        int deep = (int)fy->precision - 2 > 9 ? (int)fy->precision - 2 : 9;
        int e = L <= u - 9 ? L : u - 1 - gen_range(r, 9, deep);
        /* The count, then the sign: the kit's order (the comparison test pins it). */
        double off = (double)gen_range(r, 1, 3) * fp_pow2(e);
        bool sign = gen_coin(r);
        return keep_shape(x, msb, fy, fd, 0, sign ? -off : off, r, y);
    }
    case AIM_OVERFLOW: {
        /* The midpoint to infinity, or a tie in the top binade; the draws as the kit's. */
        int u = fd->emax - (int)fd->precision + 1;
        double v;
        bool exact = true;
        if (gen_coin(r)) {
            v = add(fp_pow2(fd->emax + 1), -fp_pow2(u - 1), &exact);
        } else {
            uint64_t sig = (1ull << (fd->precision - 1)) | (gen_next(r) & ((1ull << (fd->precision - 1)) - 1));
            v = add((double)sig * fp_pow2(u), fp_pow2(u - 1), &exact);
        }
        if (!exact)
            return FAST_UNSURE;
        return finish(x < 0 ? -v : v, x, fy, y);
    }
    case AIM_CANCEL: {
        /* -x rounded to y's format (the host's conversion rounds to nearest
         * even, checked at start); none when that overflows.  To f16 through
         * f32 only where x is exact in f32 (one rounding). */
        float f = (float)x;
        if (fy == &fp_f32) {
            if (!__builtin_isfinite(f))
                return FAST_NO;
            *y = fp_fbits(-f);
            return FAST_YES;
        }
        /* -x itself where y's format holds x (a fused product's format
         * holds every f32 K): the kit's rounding changes nothing.  Until
         * 2026-12 such cases went to the kit: v_fmaak_f32's cancel class
         * 92 ns a case, 58 since (tests/gen_count). */
        if (gen_double_bits(fy, -x, y))
            return FAST_YES;
        if (fy != &fp_f16 || (double)f != x)
            return FAST_UNSURE;
        uint32_t h = fp_fast_f32_to_f16(fp_fbits(f));
        if ((h & 0x7fffu) == 0x7c00u)
            return FAST_NO;
        *y = h ^ 0x8000u;
        return FAST_YES;
    }
    default:
        return FAST_UNSURE;
    }
}

bool gen_addend_double(double x, const fp_format *fy, const fp_format *fd, gen_aim target, gen_rng *r,
                       uint64_t *y_bits)
{
    if (x == 0 || !__builtin_isfinite(x))
        return false;
    gen_rng start = *r;
    int e = fp_dexp(x < 0 ? -x : x);
    if (fy->precision <= 53 && e > -900 && e < 900) {  /* aimed's powers of two stay normal */
        fast_outcome o = aimed(x, fy, fd, target, r, y_bits);
        if (o != FAST_UNSURE)
            return o == FAST_YES;
    }
    *r = start;
    return gen_addend_exact(fp_from_double(x), fy, fd, target, r, y_bits);
}

bool gen_addend(fp_value x, const fp_format *fy, const fp_format *fd, gen_aim target, gen_rng *r,
                uint64_t *y_bits)
{
    double xd;
    if (x.kind != FPK_FINITE)
        return false;
    if (fy->precision <= 53 && to_double(x, &xd))
        return gen_addend_double(xd, fy, fd, target, r, y_bits);
    return gen_addend_exact(x, fy, fd, target, r, y_bits);
}
