/* See emulate.h.  f64 bit patterns are handled as 64-bit integers. */
#include <stdio.h>
#include "emulate.h"
#include "kernel.h"

static unsigned u64c(spv_builder *b, uint64_t v) { return sb_u64(b, v); }

static unsigned op64(spv_builder *b, const char *op, unsigned x, unsigned y)
{
    char fmt[64];
    snprintf(fmt, sizeof fmt, "%s $ $", op);
    return sb_op(b, T_U64, fmt, x, y);
}

unsigned emu_decode(spv_builder *b, const fp_format *f, unsigned bits)
{
    unsigned fb = f->precision - 1;                 /* stored fraction bits */
    uint64_t exp_all = (1u << f->exp_bits) - 1;
    unsigned x = sb_op(b, T_U64, "OpUConvert $", bits);
    unsigned frac = op64(b, "OpBitwiseAnd", x, u64c(b, (1ull << fb) - 1));
    unsigned e = op64(b, "OpBitwiseAnd", op64(b, "OpShiftRightLogical", x, u64c(b, fb)), u64c(b, exp_all));
    unsigned sign = op64(b, "OpShiftLeftLogical",
                         op64(b, "OpShiftRightLogical", x, u64c(b, f->bits - 1)), u64c(b, 63));
    unsigned frac52 = op64(b, "OpShiftLeftLogical", frac, u64c(b, 52 - fb));
    /* Normal: rebias the exponent. */
    unsigned e64 = op64(b, "OpIAdd", e, u64c(b, (uint64_t)(1023 - f->bias)));
    unsigned normal = op64(b, "OpBitwiseOr", op64(b, "OpShiftLeftLogical", e64, u64c(b, 52)), frac52);
    /* Inf and NaN: all-ones exponent; NaNs made quiet so a payload that only
     * lived in low bits stays a NaN. */
    unsigned is_nan_frac = sb_op(b, T_BOOL, "OpINotEqual $ $", frac, u64c(b, 0));
    unsigned quiet = sb_select(b, T_U64, is_nan_frac, u64c(b, 1ull << 51), u64c(b, 0));
    unsigned special = op64(b, "OpBitwiseOr", op64(b, "OpBitwiseOr", u64c(b, 0x7ffull << 52), frac52), quiet);
    /* Subnormal: normalize with the position of the leading bit. */
    unsigned frac32 = sb_op(b, T_U32, "OpUConvert $", frac);
    unsigned msb = sb_glsl(b, T_U32, "FindUMsb $", frac32);
    unsigned msb64 = sb_op(b, T_U64, "OpUConvert $", msb);
    unsigned shift = op64(b, "OpISub", u64c(b, 52), msb64);
    unsigned sub_frac = op64(b, "OpBitwiseAnd", op64(b, "OpShiftLeftLogical", frac, shift), u64c(b, (1ull << 52) - 1));
    /* exponent of the leading bit: emin - fb + msb; biased: that + 1023 */
    unsigned sub_e = op64(b, "OpIAdd", msb64, u64c(b, (uint64_t)(f->emin - (int)fb + 1023)));
    unsigned subnormal = op64(b, "OpBitwiseOr", op64(b, "OpShiftLeftLogical", sub_e, u64c(b, 52)), sub_frac);
    unsigned zero_frac = sb_op(b, T_BOOL, "OpIEqual $ $", frac, u64c(b, 0));
    subnormal = sb_select(b, T_U64, zero_frac, u64c(b, 0), subnormal);
    unsigned is_zero_e = sb_op(b, T_BOOL, "OpIEqual $ $", e, u64c(b, 0));
    unsigned is_all_e = sb_op(b, T_BOOL, "OpIEqual $ $", e, u64c(b, exp_all));
    unsigned mag = sb_select(b, T_U64, is_zero_e, subnormal, sb_select(b, T_U64, is_all_e, special, normal));
    return sb_bitcast(b, T_F64, op64(b, "OpBitwiseOr", mag, sign));
}

/* Zero and infinity rules done on bits: drivers fold a product with a
 * constant zero to +0 whatever the other factor (lavapipe does, measured),
 * and the literal K reaches these routines as a constant. */
unsigned emu_mul(spv_builder *b, unsigned x, unsigned y)
{
    unsigned r = sb_op(b, T_F64, "OpFMul $ $", x, y);
    sb_no_contraction(b, r);
    unsigned xb = sb_bitcast(b, T_U64, x), yb = sb_bitcast(b, T_U64, y);
    unsigned sign = op64(b, "OpBitwiseAnd", op64(b, "OpBitwiseXor", xb, yb), u64c(b, 1ull << 63));
    unsigned xm = op64(b, "OpBitwiseAnd", xb, u64c(b, ~(1ull << 63)));
    unsigned ym = op64(b, "OpBitwiseAnd", yb, u64c(b, ~(1ull << 63)));
    unsigned zero = sb_op(b, T_BOOL, "OpLogicalOr $ $", sb_op(b, T_BOOL, "OpIEqual $ $", xm, u64c(b, 0)),
                          sb_op(b, T_BOOL, "OpIEqual $ $", ym, u64c(b, 0)));
    unsigned inf = sb_op(b, T_BOOL, "OpLogicalOr $ $", sb_op(b, T_BOOL, "OpIEqual $ $", xm, u64c(b, 0x7ffull << 52)),
                         sb_op(b, T_BOOL, "OpIEqual $ $", ym, u64c(b, 0x7ffull << 52)));
    unsigned nan = sb_op(b, T_BOOL, "OpLogicalOr $ $", sb_op(b, T_BOOL, "OpUGreaterThan $ $", xm, u64c(b, 0x7ffull << 52)),
                         sb_op(b, T_BOOL, "OpUGreaterThan $ $", ym, u64c(b, 0x7ffull << 52)));
    unsigned special = sb_select(b, T_U64, sb_op(b, T_BOOL, "OpLogicalOr $ $", inf, nan), u64c(b, 0x7ff8ull << 48), sign);
    return sb_select(b, T_F64, zero, sb_bitcast(b, T_F64, special), r);
}

unsigned emu_scale(spv_builder *b, unsigned v, int k)
{
    double s = 1.0;
    for (int i = 0; i < (k < 0 ? -k : k); i++)
        s = k < 0 ? s / 2 : s * 2;
    return emu_mul(b, v, sb_f64(b, s));
}

static unsigned fadd(spv_builder *b, unsigned x, unsigned y, bool sub)
{
    unsigned r = sb_op(b, T_F64, sub ? "OpFSub $ $" : "OpFAdd $ $", x, y);
    sb_no_contraction(b, r);
    return r;
}

unsigned emu_sum_to_odd(spv_builder *b, unsigned x, unsigned y)
{
    /* Knuth's TwoSum: s + e == x + y exactly. */
    unsigned s = fadd(b, x, y, false);
    unsigned yv = fadd(b, s, x, true);
    unsigned xv = fadd(b, s, yv, true);
    unsigned e = fadd(b, fadd(b, x, xv, true), fadd(b, y, yv, true), false);
    unsigned inexact = sb_op(b, T_BOOL, "OpFOrdNotEqual $ $", e, sb_f64(b, 0.0));
    unsigned sb = sb_bitcast(b, T_U64, s), eb = sb_bitcast(b, T_U64, e);
    unsigned even = sb_op(b, T_BOOL, "OpIEqual $ $", op64(b, "OpBitwiseAnd", sb, u64c(b, 1)), u64c(b, 0));
    /* e of the other sign than s: the exact sum is smaller in magnitude. */
    unsigned signs = op64(b, "OpShiftRightLogical", op64(b, "OpBitwiseXor", sb, eb), u64c(b, 63));
    unsigned toward_zero = sb_op(b, T_BOOL, "OpINotEqual $ $", signs, u64c(b, 0));
    unsigned moved = sb_select(b, T_U64, toward_zero, op64(b, "OpISub", sb, u64c(b, 1)),
                               op64(b, "OpBitwiseOr", sb, u64c(b, 1)));
    unsigned adjust = sb_op(b, T_BOOL, "OpLogicalAnd $ $", inexact, even);
    unsigned r = sb_select(b, T_U64, adjust, moved, sb);
    /* Sums with a zero operand on bits: drivers fold x + 0.0 to x, which
     * gives -0 for -0 + +0 (lavapipe does, measured). */
    unsigned xb = sb_bitcast(b, T_U64, x), yb = sb_bitcast(b, T_U64, y);
    unsigned mask = u64c(b, ~(1ull << 63));
    unsigned xz = sb_op(b, T_BOOL, "OpIEqual $ $", op64(b, "OpBitwiseAnd", xb, mask), u64c(b, 0));
    unsigned yz = sb_op(b, T_BOOL, "OpIEqual $ $", op64(b, "OpBitwiseAnd", yb, mask), u64c(b, 0));
    unsigned both = sb_op(b, T_BOOL, "OpLogicalAnd $ $", xz, yz);
    r = sb_select(b, T_U64, yz, xb, r);
    r = sb_select(b, T_U64, xz, yb, r);
    r = sb_select(b, T_U64, both, op64(b, "OpBitwiseAnd", xb, yb), r);
    return sb_bitcast(b, T_F64, r);
}

unsigned emu_round(spv_builder *b, const fp_format *f, unsigned v)
{
    unsigned p = f->precision, d = 52 - (p - 1);  /* fraction bits dropped for a normal result */
    unsigned x = sb_bitcast(b, T_U64, v);
    unsigned sign = op64(b, "OpShiftLeftLogical", op64(b, "OpShiftRightLogical", x, u64c(b, 63)),
                         u64c(b, f->bits - 1));
    unsigned E = op64(b, "OpBitwiseAnd", op64(b, "OpShiftRightLogical", x, u64c(b, 52)), u64c(b, 0x7ff));
    unsigned frac = op64(b, "OpBitwiseAnd", x, u64c(b, (1ull << 52) - 1));
    unsigned has_hidden = sb_op(b, T_BOOL, "OpINotEqual $ $", E, u64c(b, 0));
    unsigned M = op64(b, "OpBitwiseOr", frac, sb_select(b, T_U64, has_hidden, u64c(b, 1ull << 52), u64c(b, 0)));
    uint64_t emin_biased = (uint64_t)(f->emin + 1023);
    unsigned tiny = sb_op(b, T_BOOL, "OpULessThan $ $", E, u64c(b, emin_biased));
    /* Below the normal range the unit is fixed: drop d + (emin - e) bits (at most 63). */
    unsigned extra = op64(b, "OpISub", u64c(b, emin_biased), E);
    unsigned sub_shift = op64(b, "OpIAdd", extra, u64c(b, d));
    unsigned big = sb_op(b, T_BOOL, "OpUGreaterThan $ $", sub_shift, u64c(b, 63));
    sub_shift = sb_select(b, T_U64, big, u64c(b, 63), sub_shift);
    unsigned shift = sb_select(b, T_U64, tiny, sub_shift, u64c(b, d));
    unsigned kept = op64(b, "OpShiftRightLogical", M, shift);
    unsigned rem = op64(b, "OpBitwiseAnd", M, op64(b, "OpISub", op64(b, "OpShiftLeftLogical", u64c(b, 1), shift),
                                                   u64c(b, 1)));
    unsigned half = op64(b, "OpShiftLeftLogical", u64c(b, 1), op64(b, "OpISub", shift, u64c(b, 1)));
    unsigned above = sb_op(b, T_BOOL, "OpUGreaterThan $ $", rem, half);
    unsigned at = sb_op(b, T_BOOL, "OpIEqual $ $", rem, half);
    unsigned odd = sb_op(b, T_BOOL, "OpINotEqual $ $", op64(b, "OpBitwiseAnd", kept, u64c(b, 1)), u64c(b, 0));
    unsigned up = sb_op(b, T_BOOL, "OpLogicalOr $ $", above, sb_op(b, T_BOOL, "OpLogicalAnd $ $", at, odd));
    unsigned inc = sb_select(b, T_U64, up, u64c(b, 1), u64c(b, 0));
    /* Normal: exponent field plus fraction (kept includes the hidden bit,
     * which adds one to the exponent field: subtract it back). A carry out
     * of the fraction moves into the exponent, and past the top to infinity. */
    unsigned ef = op64(b, "OpISub", E, u64c(b, (uint64_t)(1023 - f->bias) + 1));
    unsigned normal = op64(b, "OpIAdd", op64(b, "OpIAdd", op64(b, "OpShiftLeftLogical", ef, u64c(b, p - 1)), kept), inc);
    unsigned subnormal = op64(b, "OpIAdd", kept, inc);
    unsigned mag = sb_select(b, T_U64, tiny, subnormal, normal);
    uint64_t inf = ((1ull << f->exp_bits) - 1) << (p - 1);
    unsigned overflow = sb_op(b, T_BOOL, "OpUGreaterThan $ $", E, u64c(b, (uint64_t)(f->emax + 1023)));
    mag = sb_select(b, T_U64, overflow, u64c(b, inf), mag);
    unsigned r = op64(b, "OpBitwiseOr", sign, mag);
    unsigned nan = sb_op(b, T_BOOL, "OpLogicalAnd $ $", sb_op(b, T_BOOL, "OpIEqual $ $", E, u64c(b, 0x7ff)),
                         sb_op(b, T_BOOL, "OpINotEqual $ $", frac, u64c(b, 0)));
    r = sb_select(b, T_U64, nan, u64c(b, fp_default_nan(f)), r);
    return sb_op(b, T_U32, "OpUConvert $", r);
}

unsigned emu_flush(spv_builder *b, const fp_format *f, unsigned bits)
{
    uint32_t exp_mask = (uint32_t)(((1u << f->exp_bits) - 1) << (f->precision - 1));
    uint32_t sign = 1u << (f->bits - 1);
    unsigned zero_exp = sb_ieq(b, sb_and(b, bits, exp_mask), 0);
    return sb_select(b, T_U32, zero_exp, sb_and(b, bits, sign), bits);
}

unsigned emu_sign_mods(spv_builder *b, const fp_format *f, unsigned bits, bool abs, bool neg)
{
    uint32_t sign = 1u << (f->bits - 1);
    if (abs)
        bits = sb_and(b, bits, ~sign & (f->bits == 32 ? 0xffffffffu : 0xffffu));
    if (neg)
        bits = sb_op(b, T_U32, "OpBitwiseXor $ $", bits, sb_u32(b, sign));
    return bits;
}

unsigned emu_clamp01(spv_builder *b, const fp_format *f, unsigned bits)
{
    uint32_t sign = 1u << (f->bits - 1);
    uint32_t inf = (uint32_t)(((1u << f->exp_bits) - 1) << (f->precision - 1));
    uint32_t one = (uint32_t)f->bias << (f->precision - 1);
    unsigned negative = sb_ugt(b, sb_and(b, bits, sign), 0);
    unsigned nan = sb_ugt(b, sb_and(b, bits, sign - 1), inf);
    unsigned to_zero = sb_op(b, T_BOOL, "OpLogicalOr $ $", negative, nan);
    unsigned above = sb_ugt(b, bits, one);
    return sb_select(b, T_U32, to_zero, sb_u32(b, 0), sb_select(b, T_U32, above, sb_u32(b, one), bits));
}
