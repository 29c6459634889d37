/* One fused multiply-add rounded once: fp_round(f, a*b + c) as fp_mul,
 * fp_add and fp_round give it, in 64-bit words where the operands and the
 * destination are narrow enough for that to be exact.
 *
 * Why: a campaign re-checks every disagreement with the exact model, and on
 * a device that does not fuse (lavapipe) about a quarter of a fused f32
 * op's cases disagree; through the 128-bit values of fp_mul and fp_add
 * that re-check was the costliest single function of such a campaign
 * (perf at 1c44c89: 12.9% of a 32M-case v_fma_f32 campaign's samples).
 *
 * The words: sources of at most 24 significant bits (every f32, f16 and
 * bf16 value), so the product is exact in 48 bits; the larger of product
 * and addend placed with its leading bit at bit 61 (room for the sum's
 * carry); the smaller shifted to match, any bits below bit 0 jammed into
 * bit 0.  Bits are jammed only where the smaller lies at least 15 places
 * below the larger, where a difference cancels at most one leading bit:
 * the result's leading bit is at bit 60 or above, and a destination of at
 * most 24 bits rounds at bit 37 or above, far above the sticky bit 0
 * (the jam is exact for rounding at bit 2 or above: the larger operand's
 * low bits are 0, so the jammed sum's bit 0 stands for the lost bits).
 * Anything else, specials included, goes the general way. */
#include <stddef.h>
#include "fp.h"

enum { TOP = 61, NARROW_BITS = 24 };

static bool narrow(fp_value v) { return v.kind == FPK_FINITE && !v.jammed && !(v.sig >> NARROW_BITS); }

/* x * 2^shift (x below 2^48), any bits that fall below bit 0 jammed into
 * it.  By masks, not branches: which operand is the larger is the data's
 * coin (in perf annotate of a v_fma_f32 campaign's re-checks the samples
 * gathered behind such branches; as masks the campaign read the same). */
static uint64_t place(uint64_t x, int shift)
{
    int left = shift > 0 ? shift : 0, right = shift < 0 ? -shift : 0;
    right = right > 63 ? 63 : right;  /* x >> 63 is 0: all of x below bit 0, jammed */
    uint64_t lost = x & ((1ull << right) - 1);
    return (x >> right) << left | (lost != 0);
}

/* fp_round of sign * sum * 2^base (sum nonzero, below 2^63), in 64 bits:
 * the same steps to the bits kept, with no report of where the value sat,
 * then fp_round's own encoding of them (fp_encode_kept). */
static uint64_t round64(const fp_format *f, bool sign, uint64_t sum, int base, fp_rounding mode)
{
    int p = (int)f->precision;
    int top = base + 63 - __builtin_clzll(sum);
    int e = top < f->emin ? f->emin : top;
    int shift = e - (p - 1) - base;  /* bits below the last kept one */
    uint64_t kept, rem = 0, half = 1;
    if (shift <= 0) {
        kept = sum << -shift;
    } else if (shift >= 64) {
        kept = 0;
        rem = sum;  /* below half a unit: half is 2^63 or more */
        half = ~0ull;
    } else {
        kept = sum >> shift;
        rem = sum & ((1ull << shift) - 1);
        half = 1ull << (shift - 1);
    }
    bool inexact = rem != 0;
    switch (mode) {
    case FP_RNE:
        kept += inexact & ((rem > half) | ((rem == half) & (kept & 1)));
        break;
    case FP_RTZ:
        break;
    case FP_RTO:
        kept |= inexact;
        break;
    }
    bool overflow;
    return fp_encode_kept(f, sign, e, kept, mode, &overflow);
}

uint64_t fp_fused_round(const fp_format *f, fp_value a, fp_value b, fp_value c, fp_rounding mode)
{
    if (f->precision > NARROW_BITS || !(narrow(a) & narrow(b) & narrow(c)))
        return fp_round(f, fp_add(fp_mul(a, b), c), mode, NULL);
    uint64_t p = (uint64_t)a.sig * (uint64_t)b.sig, q = (uint64_t)c.sig;
    int ep = a.exp + b.exp, eq = c.exp;
    int top_p = ep + 63 - __builtin_clzll(p), top_q = eq + 63 - __builtin_clzll(q);
    int base = (top_p > top_q ? top_p : top_q) - TOP;  /* the weight of bit 0 */
    uint64_t x = place(p, ep - base), y = place(q, eq - base);
    /* The difference where the signs differ, negated back where y was the
     * larger: masks again, for the same coin. */
    bool sign_p = a.sign != b.sign, differ = sign_p != c.sign;
    uint64_t m = -(uint64_t)differ;
    bool flip = differ & (y > x);
    uint64_t f_mask = -(uint64_t)flip;
    uint64_t sum = ((x + ((y ^ m) - m)) ^ f_mask) - f_mask;
    if (sum == 0)
        return fp_round(f, fp_zero(false), mode, NULL);  /* exact cancellation: +0, as fp_add */
    bool sign = sign_p ^ flip;
    return round64(f, sign, sum, base, mode);
}
