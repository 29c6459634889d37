/* Operand values: random ones at a chosen binade, specials, and values at
 * the subnormal threshold. */
#include "gen.h"

static uint64_t encode(const fp_format *f, bool sign, uint64_t biased, uint64_t frac)
{
    return ((uint64_t)sign << (f->bits - 1)) | (biased << (f->precision - 1)) | frac;
}

uint64_t gen_value_with_exp(const fp_format *f, gen_rng *r, bool sign, int e, int trailing_zeros)
{
    unsigned fb = f->precision - 1;
    uint64_t frac = gen_next(r) & ((1ull << fb) - 1);
    if (trailing_zeros > 0)
        frac &= ~((1ull << (trailing_zeros > (int)fb ? fb : (unsigned)trailing_zeros)) - 1);
    if (e > f->emax)
        e = f->emax;
    if (e >= f->emin)
        return encode(f, sign, (uint64_t)(e + f->bias), frac);
    /* Subnormal with its leading bit at 2^e. */
    int lowest = f->emin - (int)fb;
    if (e < lowest)
        e = lowest;
    unsigned lead = (unsigned)(e - lowest);
    uint64_t sig = (1ull << lead) | (frac >> (fb - lead));
    /* Keep as many significant bits as a normal value with these trailing zeros has. */
    int keep = (int)fb + 1 - (trailing_zeros > 0 ? trailing_zeros : 0);
    if (keep < 1)
        keep = 1;
    if ((int)lead + 1 > keep)
        sig &= ~((1ull << (lead + 1 - (unsigned)keep)) - 1);
    return encode(f, sign, 0, sig);
}

uint64_t gen_special(const fp_format *f, gen_rng *r)
{
    bool sign = gen_coin(r);
    uint64_t payload = gen_next(r);
    return gen_special_kind(f, sign, payload, gen_below(r, GEN_SPECIAL_KINDS));
}

uint64_t gen_special_kind(const fp_format *f, bool sign, uint64_t payload, unsigned kind)
{
    unsigned fb = f->precision - 1;
    uint64_t all_exp = (1ull << f->exp_bits) - 1;
    payload &= (1ull << (fb - 1)) - 1;
    switch (kind) {
    case 0: return encode(f, sign, 0, 0);                                    /* signed zero */
    case 1: return encode(f, sign, all_exp, 0);                              /* infinity */
    case 2: return encode(f, sign, all_exp, (1ull << (fb - 1)) | payload);   /* quiet NaN */
    case 3: return encode(f, sign, all_exp, payload ? payload : 1);          /* signalling NaN */
    case 4: return encode(f, sign, all_exp - 1, (1ull << fb) - 1);           /* largest finite */
    case 5: return encode(f, sign, 1, 0);                                    /* smallest normal */
    case 6: return encode(f, sign, 0, 1);                                    /* smallest subnormal */
    case 7: return encode(f, sign, (uint64_t)f->bias, 0);                    /* one */
    default: return encode(f, sign, 0, (1ull << fb) - 1);                    /* largest subnormal */
    }
}

bool gen_is_special(const fp_format *f, uint64_t bits)
{
    uint64_t mag = bits & ((1ull << (f->bits - 1)) - 1);
    return mag == 0 || mag >= ((1ull << f->exp_bits) - 1) << (f->precision - 1);
}

uint64_t gen_near_subnormal(const fp_format *f, gen_rng *r)
{
    int e = gen_range(r, f->emin - (int)f->precision + 1, f->emin + 1);
    /* Draws as statements, never two in one call's arguments (whose order is
     * the compiler's: GCC and clang made different cases of one seed); the
     * order is the one GCC had, so its cases stay. */
    int trailing_zeros = gen_range(r, 0, (int)f->precision - 1);
    bool sign = gen_coin(r);
    return gen_value_with_exp(f, r, sign, e, trailing_zeros);
}
