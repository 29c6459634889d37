/* Operand values: random ones at a chosen binade, specials, and values at
 * the subnormal threshold. */
#include "gen.h"

static uint64_t encode(const fp_format *f, bool sign, uint64_t biased, uint64_t frac)
{
    return ((uint64_t)sign << (f->bits - 1)) | (biased << (f->precision - 1)) | frac;
}

/* gen_value_with_exp, and with lowest_set its lowest kept bit set (the
 * value's lowest bit exactly where the trailing zeros put it). */
static uint64_t value_with_exp(const fp_format *f, gen_rng *r, bool sign, int e, int trailing_zeros, bool lowest_set)
{
    unsigned fb = f->precision - 1;
    uint64_t frac = gen_next(r) & ((1ull << fb) - 1);
    if (trailing_zeros > 0)
        frac &= ~((1ull << (trailing_zeros > (int)fb ? fb : (unsigned)trailing_zeros)) - 1);
    if (lowest_set && trailing_zeros < (int)fb)
        frac |= 1ull << (trailing_zeros > 0 ? trailing_zeros : 0);
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
    unsigned low = (int)lead + 1 > keep ? lead + 1 - (unsigned)keep : 0;
    sig &= ~((1ull << low) - 1);
    if (lowest_set)
        sig |= 1ull << low;
    return encode(f, sign, 0, sig);
}

uint64_t gen_value_with_exp(const fp_format *f, gen_rng *r, bool sign, int e, int trailing_zeros)
{
    return value_with_exp(f, r, sign, e, trailing_zeros, false);
}

uint64_t gen_value_with_lowest(const fp_format *f, gen_rng *r, bool sign, int e, int trailing_zeros)
{
    return value_with_exp(f, r, sign, e, trailing_zeros, true);
}

uint64_t gen_special(const fp_format *f, gen_rng *r)
{
    bool sign = gen_coin(r);
    uint64_t payload = gen_next(r);
    return gen_special_kind(f, sign, payload, gen_below(r, GEN_SPECIAL_KINDS));
}

/* Each field is an OR of masked choices, not a switch: the kind is random,
 * and a jump to a random target mispredicts nearly every time (the special
 * class spent a quarter of its construction there; a table on the stack
 * stalled on its own stores). */
uint64_t gen_special_kind(const fp_format *f, bool sign, uint64_t payload, unsigned kind)
{
    unsigned fb = f->precision - 1;
    uint64_t all_exp = (1ull << f->exp_bits) - 1, frac_max = (1ull << fb) - 1, quiet = 1ull << (fb - 1);
    payload &= quiet - 1;
#define IF_KIND(cond, x) ((x) & -(uint64_t)(cond))
    /* 0 zero, 1 infinity, 2 quiet NaN, 3 signalling NaN (payload, never 0),
     * 4 largest finite, 5 smallest normal, 6 smallest subnormal, 7 one,
     * 8 and above largest subnormal */
    uint64_t biased = IF_KIND(kind - 1 < 3, all_exp) | IF_KIND(kind == 4, all_exp - 1) | IF_KIND(kind == 5, 1) |
                      IF_KIND(kind == 7, (uint64_t)f->bias);
    uint64_t frac = IF_KIND(kind == 2, quiet | payload) | IF_KIND(kind == 3, payload | (payload == 0)) |
                    IF_KIND(kind == 4 || kind >= 8, frac_max) | IF_KIND(kind == 6, 1);
#undef IF_KIND
    return encode(f, sign, biased, frac);
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
