/* The addend constructor: the heart of tie-aimed generation.
 *
 * Given an exact x (usually an exact product), choose y in its own format so
 * that x + y sits exactly where we want on the destination grid.  Two shapes
 * are built, following the construction in fuzzing-practice.md:
 *  - keep: x's leading bits survive; y replaces x's bits below the result's
 *    unit by half a unit (a tie) or by half a unit give or take a few units
 *    of x's lowest bit (a near tie);
 *  - cancel: y cancels x's head exactly, so that x's lowest set bit becomes
 *    the half-unit bit of a much smaller result.
 * Nothing here is trusted: callers verify the class by exact evaluation.
 * This is the exact kit's version; addend_fast.c is its twin in double
 * arithmetic, which the campaigns call (gen_addend). */
#include "gen.h"

static fp_value pow2(bool sign, int e) { return fp_from_int(sign, 1, e); }

/* Exponent of the destination's unit for a value whose leading bit is at m. */
static int unit_exp(const fp_format *fd, int m)
{
    int e = m < fd->emin ? fd->emin : m;
    return e - (int)fd->precision + 1;
}

/* |x| with the bits below 2^u cleared. */
static fp_value floor_to(fp_value x, int u)
{
    if (x.kind != FPK_FINITE || x.exp >= u)
        return x;
    int shift = u - x.exp;
    fp_u128 s = shift >= 128 ? 0 : x.sig >> shift;
    return fp_from_int(x.sign, s, u);
}

static bool finish(fp_value y, const fp_format *fy, uint64_t *out)
{
    if (y.kind == FPK_NAN || y.kind == FPK_INF || !fp_representable(fy, y))
        return false;
    *out = fp_round(fy, y, FP_RNE, 0);
    return true;
}

static bool keep_shape(fp_value x, const fp_format *fy, const fp_format *fd, int binade_shift,
                       fp_value offset, gen_rng *r, uint64_t *y)
{
    int m = fp_msb(x) + binade_shift;
    int u = unit_exp(fd, m);
    fp_value ax = fp_abs(x);
    fp_value v;
    if (binade_shift == 0) {
        /* floor(|x|) on the grid, a unit either way or none, plus half the
         * unit of the binade that lands in: a unit down from a power of two
         * reaches the binade below, whose unit is half as large, and a unit
         * up to one the binade above, whose unit is twice as large (with
         * this binade's half unit, a literal K of 1.0 as x missed the tie
         * class a sixth of the time).
         * y = v - |x| is summed as (the units + half a unit) + (offset - the
         * bits of |x| below the unit): two parts no wider than x's own bits
         * and a few more, where v itself can span more than the kit's 128
         * bits (a near tie of a product far below an f16 result's unit),
         * and its rounding then lost what the subtraction cancels.
         * addend_fast.c sums the same. */
        int j = gen_range(r, -1, 1);
        fp_value head = floor_to(ax, u);
        fp_value steps = fp_zero(false);
        if (j)
            steps = pow2(j < 0, u);
        fp_value t = j ? fp_add(head, steps) : head;
        int ut = t.kind == FPK_FINITE ? unit_exp(fd, fp_msb(t)) : u;
        steps = fp_add(steps, pow2(false, ut - 1));
        fp_value rest = fp_sub(offset, fp_sub(ax, head));
        if (x.sign) {  /* each part with x's sign: a zero sum is +0, as v - x was */
            steps = fp_neg(steps);
            rest = fp_neg(rest);
        }
        return finish(fp_add(steps, rest), fy, y);
    }
    /* A fresh tie in a higher binade: random significand. */
    fp_u128 sig = ((fp_u128)1 << (fd->precision - 1)) | (gen_next(r) & ((1ull << (fd->precision - 1)) - 1));
    v = fp_add(fp_add(fp_from_int(false, sig, u), pow2(false, u - 1)), offset);
    if (x.sign)
        v = fp_neg(v);
    return finish(fp_sub(v, x), fy, y);
}

static bool cancel_shape(fp_value x, const fp_format *fy, const fp_format *fd, bool flip, uint64_t *y)
{
    int p = (int)fd->precision;
    int u = fp_lsb(x) + 1;
    if (u + p - 1 < fd->emin) {
        /* Only the subnormal grid has a unit this small. */
        if (u != fd->emin - p + 1)
            return false;
    }
    int top = u + p - 1;
    fp_value ax = fp_abs(x);
    fp_value hi = floor_to(ax, top);
    fp_value lo = fp_sub(ax, hi);
    fp_value v = flip ? fp_sub(lo, pow2(false, top + 1)) : fp_add(lo, pow2(false, top));
    if (u + p - 1 < fd->emin)
        v = lo;  /* subnormal result: no leading bit to add */
    if (x.sign)
        v = fp_neg(v);
    return finish(fp_sub(v, x), fy, y);
}

bool gen_subnormal_near_fits(const fp_format *fy, const fp_format *fd)
{
    /* The shallowest offset a near tie draws (AIM_NEAR_TIE: u - 1 - 9 where x
     * has no bits that deep, the subnormal case) on y's grid, whose lowest
     * bit is its own subnormal unit; the deepest, u - 1 - (p(y) - 2), is then
     * on it too for the formats here (f32 y, f16 result: -47 >= -149). */
    return gen_unit_exp(fy, fy->emin) <= gen_unit_exp(fd, fd->emin) - 10;
}

bool gen_addend_exact(fp_value x, const fp_format *fy, const fp_format *fd, gen_aim target, gen_rng *r,
                      uint64_t *y)
{
    if (x.kind != FPK_FINITE)
        return false;
    int L = fp_lsb(x);
    fp_value none = fp_zero(false);
    switch (target) {
    case AIM_SUBNORMAL:
        /* x is already small: keep its head, tie or near tie on the subnormal grid. */
        if (gen_coin(r) || !gen_subnormal_near_fits(fy, fd))
            return keep_shape(x, fy, fd, 0, fp_zero(false), r, y);
        return gen_addend_exact(x, fy, fd, AIM_NEAR_TIE, r, y);
    case AIM_TIE: {
        unsigned pick = gen_below(r, 8);
        if (pick < 3)
            return cancel_shape(x, fy, fd, pick == 0, y);
        int shift = pick == 7 ? gen_range(r, 1, 12) : 0;
        return keep_shape(x, fy, fd, shift, none, r, y);
    }
    case AIM_NEAR_TIE: {
        /* A few units of x's lowest bit off the tie; when x has no bits that
         * far below the unit, a few units of a bit 9 or more places below
         * half a unit (y then carries that bit). */
        int u = unit_exp(fd, fp_msb(x));
        int deep = (int)fy->precision - 2 > 9 ? (int)fy->precision - 2 : 9;
        int e = L <= u - 9 ? L : u - 1 - gen_range(r, 9, deep);
        /* Draws in a fixed order (count, then sign): argument order is the compiler's choice. */
        fp_u128 count = (fp_u128)gen_range(r, 1, 3);
        fp_value off = fp_from_int(gen_coin(r), count, e);
        return keep_shape(x, fy, fd, 0, off, r, y);
    }
    case AIM_OVERFLOW: {
        int u = fd->emax - (int)fd->precision + 1;
        /* The midpoint to infinity, or a tie / near tie in the top binade. */
        fp_value v;
        if (gen_coin(r)) {
            v = fp_sub(pow2(false, fd->emax + 1), pow2(false, u - 1));
        } else {
            fp_u128 sig = ((fp_u128)1 << (fd->precision - 1)) | (gen_next(r) & ((1ull << (fd->precision - 1)) - 1));
            v = fp_add(fp_from_int(false, sig, u), pow2(false, u - 1));
        }
        if (x.sign)
            v = fp_neg(v);
        return finish(fp_sub(v, x), fy, y);
    }
    case AIM_CANCEL: {
        fp_round_info info;
        uint64_t near = fp_round(fy, x, FP_RNE, &info);
        if (info.overflow)
            return false;
        fp_value v = fp_neg(fp_decode(fy, near));
        *y = fp_round(fy, v, FP_RNE, 0);
        return true;
    }
    }
    return false;
}
