/* Exact multiplication and addition of fp_values. */
#include "fp.h"

#define bit_length fp_bit_length
#define trailing_zeros fp_trailing_zeros

/* Drop a significand's trailing zero bits (it is nonzero). */
static void trim_sig(fp_u128 *sig, int *exp)
{
    int tz = trailing_zeros(*sig);
    *sig >>= tz;
    *exp += tz;
}

/* trim_sig of a significand held in 64 bits. */
static void trim64(uint64_t *sig, int *exp)
{
    int tz = __builtin_ctzll(*sig);
    *sig >>= tz;
    *exp += tz;
}

/* Drop trailing zero bits so significands stay as short as possible. */
static fp_value trim(fp_value v)
{
    if (v.kind == FPK_FINITE && !v.jammed)
        trim_sig(&v.sig, &v.exp);
    return v;
}

/* Shift right by n, jamming any lost bits into bit 0. */
static fp_u128 shift_right_jam(fp_u128 x, int n, bool *lost)
{
    if (n <= 0)
        return x;
    if (n >= 128) {
        *lost = x != 0;
        return x != 0;
    }
    fp_u128 out = x >> n;
    if (x & (((fp_u128)1 << n) - 1)) {
        *lost = true;
        out |= 1;
    }
    return out;
}


/* c ? x : y by masks: GCC makes a ?: on the operands of fp_add a branch.
 * A 64-bit mask on each half: with a 128-bit mask GCC built and applied
 * the mask's two halves through memory, about 18 instructions a select
 * (callgrind of the exact f32 fma, 55 of its 537). */
static fp_u128 either128(bool c, fp_u128 x, fp_u128 y)
{
    uint64_t m = -(uint64_t)c;
    uint64_t lo = ((uint64_t)x & m) | ((uint64_t)y & ~m);
    uint64_t hi = ((uint64_t)(x >> 64) & m) | ((uint64_t)(y >> 64) & ~m);
    return (fp_u128)hi << 64 | lo;
}

static int either_int(bool c, int x, int y)
{
    int m = -(int)c;
    return (x & m) | (y & ~m);
}

fp_value fp_neg(fp_value a)
{
    a.sign = !a.sign;
    return a;
}

fp_value fp_abs(fp_value a)
{
    a.sign = false;
    return a;
}

fp_value fp_scale(fp_value a, int k)
{
    if (a.kind == FPK_FINITE)
        a.exp += k;
    return a;
}

fp_value fp_mul(fp_value a, fp_value b)
{
    bool sign = a.sign != b.sign;
    if (a.kind == FPK_NAN || b.kind == FPK_NAN)
        return fp_nan();
    if (a.kind == FPK_INF || b.kind == FPK_INF) {
        if (a.kind == FPK_ZERO || b.kind == FPK_ZERO)
            return fp_nan();
        return fp_inf(sign);
    }
    if (a.kind == FPK_ZERO || b.kind == FPK_ZERO)
        return fp_zero(sign);
    bool lost = a.jammed || b.jammed;
    fp_u128 sa = a.sig, sb = b.sig;
    int ea = a.exp, eb = b.exp;
    if (!(uint64_t)(sa >> 64) && !(uint64_t)(sb >> 64)) {
        /* Significands within 64 bits (every decoded source): trimmed and,
         * where the product fits 127 bits, multiplied as 64-bit words.  In
         * 128-bit variables GCC kept their halves apart in memory and
         * reloaded them as 16-byte values, a store-forwarding stall per
         * product (perf annotate of the exact model's f32 fma). */
        uint64_t x = (uint64_t)sa, y = (uint64_t)sb;
        if (!a.jammed)
            trim64(&x, &ea);
        if (!b.jammed)
            trim64(&y, &eb);
        if (__builtin_clzll(x) + __builtin_clzll(y) >= 1) {
            fp_value r = fp_from_int(sign, (fp_u128)x * y, ea + eb);
            r.jammed = lost;
            return r;
        }
        sa = x, sb = y;
    } else {
        if (!a.jammed)
            trim_sig(&sa, &ea);
        if (!b.jammed)
            trim_sig(&sb, &eb);
    }
    int la = bit_length(sa), lb = bit_length(sb);
    /* Keep the product within 127 bits; only wider-than-double inputs need it. */
    if (la + lb > 127) {
        int cut = la + lb - 127;
        if (la >= lb) {
            sa = shift_right_jam(sa, cut, &lost);
            ea += cut;
        } else {
            sb = shift_right_jam(sb, cut, &lost);
            eb += cut;
        }
    }
    fp_value r = fp_from_int(sign, sa * sb, ea + eb);
    r.jammed = lost;
    return r;
}

int fp_compare_mag(fp_value a, fp_value b)
{
    if (a.kind == FPK_ZERO || b.kind == FPK_ZERO)
        return (a.kind != FPK_ZERO) - (b.kind != FPK_ZERO);
    int ta = fp_msb(a), tb = fp_msb(b);
    if (ta != tb)
        return ta < tb ? -1 : 1;
    /* Same leading position: align to the lower exponent and compare. */
    int e = a.exp < b.exp ? a.exp : b.exp;
    fp_u128 sa = a.sig << (a.exp - e), sb = b.sig << (b.exp - e);
    if (sa != sb)
        return sa < sb ? -1 : 1;
    return (int)a.jammed - (int)b.jammed;
}

fp_value fp_add(fp_value a, fp_value b)
{
    if (a.kind == FPK_NAN || b.kind == FPK_NAN)
        return fp_nan();
    if (a.kind == FPK_INF || b.kind == FPK_INF) {
        if (a.kind == FPK_INF && b.kind == FPK_INF && a.sign != b.sign)
            return fp_nan();
        return a.kind == FPK_INF ? a : b;
    }
    if (a.kind == FPK_ZERO && b.kind == FPK_ZERO)
        return fp_zero(a.sign && b.sign);
    if (a.kind == FPK_ZERO)
        return b;
    if (b.kind == FPK_ZERO)
        return a;

    /* The larger magnitude, and whether the signs differ, are the operands'
     * coins: chosen with masks a field at a time, not branches (as branches
     * each was mispredicted about a third of the time in a v_fma_f32
     * campaign's re-checks: callgrind --branch-sim), and the sum and the
     * difference both made. */
    int msb_a = fp_msb(a), msb_b = fp_msb(b);
    bool swap = (msb_b > msb_a) | (msb_b == msb_a && fp_compare_mag(b, a) > 0);
    bool big_sign = either_int(swap, b.sign, a.sign), same = a.sign == b.sign;
    int big_exp = either_int(swap, b.exp, a.exp), small_exp = either_int(swap, a.exp, b.exp);
    fp_u128 big_sig = either128(swap, b.sig, a.sig), small_sig = either128(swap, a.sig, b.sig);
    /* Put the larger operand's leading bit at bit 125: room for a carry and
     * about a hundred guard bits below any destination format. */
    int up = 125 - (bit_length(big_sig) - 1);
    big_sig <<= up;
    big_exp -= up;
    bool lost = a.jammed || b.jammed;
    int gap = big_exp - small_exp;
    fp_u128 s;
    if (gap >= 0) {
        s = shift_right_jam(small_sig, gap, &lost);
    } else {
        s = small_sig << -gap;   /* small's leading bit is at most bit 125 */
    }
    fp_u128 sum = big_sig + s, difference = big_sig - s;
    fp_u128 sig = either128(same, sum, difference);  /* a sum is never zero: only a difference cancels */
    if (sig == 0)
        return fp_zero(false);  /* exact cancellation: +0 when rounding to nearest */
    fp_value r = fp_from_int(big_sign, sig, big_exp);
    r.jammed = lost;
    return trim(r);
}

fp_value fp_sub(fp_value a, fp_value b) { return fp_add(a, fp_neg(b)); }
