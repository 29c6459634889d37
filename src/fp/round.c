/* Rounding an exact value to a binary format, reporting where it sat on the
 * destination grid (the classification that ties, coverage cells and
 * explanations are built on). */
#include "fp.h"

#define bit_length fp_bit_length

static uint64_t encode(const fp_format *f, bool sign, uint64_t biased_exp, uint64_t frac)
{
    return ((uint64_t)sign << (f->bits - 1)) | (biased_exp << (f->precision - 1)) | frac;
}

static uint64_t max_finite(const fp_format *f, bool sign)
{
    return encode(f, sign, (1ull << f->exp_bits) - 2, (1ull << (f->precision - 1)) - 1);
}

static uint64_t infinity(const fp_format *f, bool sign)
{
    return encode(f, sign, (1ull << f->exp_bits) - 1, 0);
}

uint64_t fp_round(const fp_format *f, fp_value v, fp_rounding mode, fp_round_info *info)
{
    fp_round_info local = {0};
    if (!info)
        info = &local;
    *info = (fp_round_info){.position = FP_EXACT};
    switch (v.kind) {
    case FPK_NAN:
        return fp_default_nan(f);
    case FPK_INF:
        return infinity(f, v.sign);
    case FPK_ZERO:
        return encode(f, v.sign, 0, 0);
    case FPK_FINITE:
        break;
    }
    int p = (int)f->precision;
    int top = v.exp + bit_length(v.sig) - 1;
    int e = top < f->emin ? f->emin : top;
    int q = e - (p - 1);          /* weight of the last kept bit */
    int shift = q - v.exp;
    fp_u128 kept, rem = 0, half = 0;
    info->tiny = top < f->emin;
    info->ulp_exp = q;
    info->shift = shift > 0 ? shift : 0;
    if (shift <= 0) {
        kept = v.sig << -shift;
    } else if (shift > 127) {
        kept = 0;
        rem = v.sig;        /* the whole value lies below half a unit */
        half = 0;
    } else {
        kept = v.sig >> shift;
        rem = v.sig & (((fp_u128)1 << shift) - 1);
        half = (fp_u128)1 << (shift - 1);
    }
    info->rem = rem;
    bool inexact = rem != 0;
    if (shift > 127) {
        info->position = FP_BELOW_TIE;
        info->sticky = true;
    } else if (inexact) {
        info->guard = (rem & half) != 0;
        info->sticky = (rem & (half - 1)) != 0;
        /* Counted, not branched on: below or above the tie is the exact
         * value's coin (as a branch, mispredicted about a third of the time
         * in a v_fma_f32 campaign's re-checks, the kit's costliest: callgrind
         * --branch-sim). */
        info->position = (fp_position)(FP_BELOW_TIE + !(rem < half) + (half < rem));
    }
    info->lsb = (kept & 1) != 0;
    bool up = false;
    switch (mode) {
    case FP_RNE:
        up = (info->position == FP_ABOVE_TIE) | ((info->position == FP_TIE) & info->lsb);
        break;
    case FP_RTZ:
        break;
    case FP_RTO:
        if (inexact)
            kept |= 1;
        break;
    }
    info->rounded_up = up || (mode == FP_RTO && inexact && !info->lsb);
    return fp_encode_kept(f, v.sign, e, (uint64_t)kept + up, mode, &info->overflow);
}

uint64_t fp_encode_kept(const fp_format *f, bool sign, int e, uint64_t kept, fp_rounding mode, bool *overflow)
{
    int p = (int)f->precision;
    if (kept >> p) {   /* carried into a new binade */
        kept >>= 1;
        e += 1;
    }
    *overflow = e > f->emax;
    if (*overflow)
        return mode == FP_RNE ? infinity(f, sign) : max_finite(f, sign);
    uint64_t hidden = 1ull << (p - 1);
    if (kept < hidden)      /* subnormal (or zero): exponent field 0 */
        return encode(f, sign, 0, kept);
    return encode(f, sign, (uint64_t)(e + f->bias), kept - hidden);
}

bool fp_representable(const fp_format *f, fp_value v)
{
    fp_round_info info;
    fp_round(f, v, FP_RTZ, &info);
    return v.kind != FPK_FINITE || (info.position == FP_EXACT && !info.overflow && !v.jammed);
}

const char *fp_position_name(fp_position p)
{
    static const char *names[] = {"exact", "below-tie", "tie", "above-tie"};
    return names[p];
}

const char *fp_rounding_name(fp_rounding r)
{
    static const char *names[] = {"nearest-even", "toward-zero", "to-odd"};
    return names[r];
}
