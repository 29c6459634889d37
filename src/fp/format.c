/* The binary formats tiefuzz knows, and bit-level helpers on them. */
#include "fp.h"

/* name, total bits, exponent bits, precision (hidden bit included), normal exponents emin..emax, bias */
#define FORMAT(n, b, e, p, lo, hi, bi) .name = n, .bits = b, .exp_bits = e, .precision = p, .emin = lo, .emax = hi, .bias = bi

const fp_format fp_f16 = {FORMAT("f16", 16, 5, 11, -14, 15, 15)};
const fp_format fp_bf16 = {FORMAT("bf16", 16, 8, 8, -126, 127, 127)};
const fp_format fp_f32 = {FORMAT("f32", 32, 8, 24, -126, 127, 127)};
const fp_format fp_f64 = {FORMAT("f64", 64, 11, 53, -1022, 1023, 1023)};
const fp_format fp_tf32 = {FORMAT("tf32", 19, 8, 11, -126, 127, 127)};
const fp_format fp_e4m3 = {FORMAT("e4m3", 8, 4, 4, -6, 8, 7), .finite_top = true};
const fp_format fp_e5m2 = {FORMAT("e5m2", 8, 5, 3, -14, 15, 15)};
const fp_format fp_e8m13 = {FORMAT("e8m13", 22, 8, 14, -126, 127, 127)};

static uint64_t exp_field(const fp_format *f, uint64_t bits)
{
    return (bits >> (f->precision - 1)) & ((1ull << f->exp_bits) - 1);
}

static uint64_t frac_field(const fp_format *f, uint64_t bits)
{
    return bits & ((1ull << (f->precision - 1)) - 1);
}

static uint64_t sign_mask(const fp_format *f) { return 1ull << (f->bits - 1); }

bool fp_is_nan_bits(const fp_format *f, uint64_t bits)
{
    uint64_t top = (1ull << f->exp_bits) - 1, frac_all = (1ull << (f->precision - 1)) - 1;
    if (f->finite_top)
        return exp_field(f, bits) == top && frac_field(f, bits) == frac_all;
    return exp_field(f, bits) == top && frac_field(f, bits) != 0;
}

bool fp_is_subnormal_bits(const fp_format *f, uint64_t bits)
{
    return exp_field(f, bits) == 0 && frac_field(f, bits) != 0;
}

bool fp_is_inf_bits(const fp_format *f, uint64_t bits)
{
    return !f->finite_top && exp_field(f, bits) == (1ull << f->exp_bits) - 1 && frac_field(f, bits) == 0;
}

bool fp_is_zero_bits(const fp_format *f, uint64_t bits) { return (bits & ~sign_mask(f)) == 0; }

uint64_t fp_flush_bits(const fp_format *f, uint64_t bits)
{
    return fp_is_subnormal_bits(f, bits) ? bits & sign_mask(f) : bits;
}

uint64_t fp_default_nan(const fp_format *f)
{
    if (f->finite_top)
        return sign_mask(f) - 1;
    uint64_t e = ((1ull << f->exp_bits) - 1) << (f->precision - 1);
    return e | (1ull << (f->precision - 2));
}

/* Every value is made here, field by field.  A compound literal made GCC
 * clear a stack temporary, store the fields into it one by one and then
 * copy it on in 16-byte loads, which the CPU cannot forward from the
 * narrower stores: a stall per value made (perf annotate: the decoding of
 * the sources was 35% of an exact f32 fma).  The exact model ran 1.30-1.36x
 * as fast without them (scripts/bench-compare 4a1a3ad, its exact rows). */
static fp_value value_of(fp_kind kind, bool sign, int exp, fp_u128 sig)
{
    fp_value v;
    v.kind = kind;
    v.sign = sign;
    v.jammed = false;
    v.snan = false;
    v.exp = exp;
    v.sig = sig;
    return v;
}

fp_value fp_zero(bool sign) { return value_of(FPK_ZERO, sign, 0, 0); }
fp_value fp_inf(bool sign) { return value_of(FPK_INF, sign, 0, 0); }
fp_value fp_nan(void) { return value_of(FPK_NAN, false, 0, 0); }

fp_value fp_from_int(bool sign, fp_u128 sig, int exp)
{
    return sig ? value_of(FPK_FINITE, sign, exp, sig) : fp_zero(sign);
}

fp_value fp_decode(const fp_format *f, uint64_t bits)
{
    bool sign = (bits & sign_mask(f)) != 0;
    uint64_t e = exp_field(f, bits), m = frac_field(f, bits);
    unsigned fb = f->precision - 1;
    bool top = e == (1ull << f->exp_bits) - 1;
    if (f->finite_top)
        top = top && m == (1ull << fb) - 1;  /* the rest of the top exponent are numbers */
    if (top) {
        if (m == 0)
            return fp_inf(sign);
        fp_value n = fp_nan();
        n.sign = sign;
        n.snan = (m >> (fb - 1)) == 0;
        return n;
    }
    if (e == 0)
        return fp_from_int(sign, m, f->emin - (int)fb);
    return fp_from_int(sign, m | (1ull << fb), (int)e - f->bias - (int)fb);
}
