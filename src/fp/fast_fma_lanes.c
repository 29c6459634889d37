/* Multiply-add roundings four lanes at a time: what the kit's fp_round
 * reports for round_f32(a*b + c) (fused), round_f32(round_f32(a*b) + c)
 * (the legacy form) and round_f16(round_f32(a*b + c)) (to odd or to
 * nearest at f32), from double arithmetic in vectors (GCC's vector
 * extensions: AVX-512 or AVX2 where the CPU has it, chosen at load time,
 * SSE2 otherwise).
 *
 * The fused and legacy roundings cover every lane, and the rounding to f16
 * every lane but one whose finite sum's f32 value overflows or is zero,
 * which comes back without FP_LANE_DONE, for the caller's scalar path.  The
 * arithmetic is the scalar fast path's (rdna2_fast.c), lane by lane, with
 * selects for its branches (doc/fast-host.md, "Why the fast path is
 * exact"):
 * - the product of two f32 values is exact in double, and TwoSum gives the
 *   sum as S + E exactly with |E| <= ulp(S)/2;
 * - with the destination unit u = 2^q, |S| = k u + R with k an integer
 *   below 2^(p+1) and R a multiple of ulp(S) (the truncation of |S|/u is
 *   exact, done with the 2^52 trick), and every comparison of R + E with a
 *   boundary that is a multiple of ulp(S) is decided by R, or by the sign
 *   of E when R equals it. */
#include <stddef.h>
#include "fast.h"
#include "lanes.h"

/* Sign of (R + L) - X: R != X decides, else the sign of L. */
LANES v4l at_least(v4d R, v4d L, v4d X) { return (R > X) | ((R == X) & (L >= 0)); }
LANES v4l at_most(v4d R, v4d L, v4d X) { return (R < X) | ((R == X) & (L <= 0)); }

/* f32 bit patterns as doubles, and whether each is normal. */
LANES v4d widen_bits(v4u w, v4l *normal)
{
    v4u e = (w >> 23) & 0xff;
    *normal &= (v4l)((e != 0) & (e != 255));
    return (v4d)(((w >> 31) << 63) | ((e + (1023 - 127)) << 52) | ((w & 0x7fffff) << 29));
}

LANES v4d widen(const uint32_t *p, v4l *normal) { return widen_bits((v4u){p[0], p[1], p[2], p[3]}, normal); }

/* Any f32 bit patterns as doubles (the hardware's conversion: exact for
 * every finite f32, subnormals included, because the environment check at
 * start refuses a host that treats subnormal inputs as zero), with which
 * lanes hold a subnormal, and which a zero, an infinity or a NaN. */
LANES v4d widen_any(const uint32_t *p, v4l *subnormal, v4l *special)
{
    v4f f;
    v4w w;
    memcpy(&f, p, sizeof f);
    memcpy(&w, p, sizeof w);
    v4w e = (w >> 23) & 0xff, nonzero = (w & 0x7fffffffu) != 0;
    *subnormal |= widen_mask((e == 0) & nonzero);
    *special |= widen_mask((e == 0xff) | ~nonzero);
    return widen_f32(f);
}

/* One rounding of the exact value S + E (|E| <= ulp(S)/2, S nonzero where
 * it matters; E NULL: S alone is exact, and every test on the error folds
 * away, where a zero vector's -0.0 lanes kept them all) to a binary format
 * of precision p, exponents emin..emax, as
 * round_to in rdna2_fast.c makes it: to nearest even, or to odd; bit0 the
 * exponent of the value's lowest bit as the kit holds it, or NULL when the
 * kit holds it trimmed to its lowest set bit.  Constant arguments: each
 * use inlines to its own code. */
typedef struct {
    v4l bits, q, msb, flags;  /* flags: FP_LANE_* but DONE */
    v4l overflow;             /* FP_LANE_OVERFLOW as a mask, so a caller that reads no other flag leaves them unmade */
    v4l bit0;                 /* exponent of the result's bit 0 (for a rounding of it) */
    v4d value;                /* the result as a double (finite results) */
} rounded;

LANES rounded round_to(v4d S, const v4d *E, int p, int emin, int emax, const v4l *bit0, bool to_odd)
{
    int bias = -emin + 1, bits_total = p + (emax == 127 ? 8 : 5);
    int64_t hidden = (int64_t)1 << (p - 1), inf = ((((int64_t)1 << (bits_total - p)) - 1)) << (p - 1);
    v4l sign = (v4l)S & SIGN_BIT;
    v4d H = (v4d)((v4l)S & ~SIGN_BIT);
    v4d L = E ? (v4d)((v4l)*E ^ sign) : ZERO_D;  /* E as seen from |S| */
    /* The exact value's leading bit: below a power of two when L is negative. */
    v4l msb = dexp(H) + ((((v4l)H & MANT) == 0) & (L < 0));
    v4l tiny = msb < emin;
    v4l e = pick(tiny, (v4l){emin, emin, emin, emin}, msb);
    v4l q = e - (p - 1);
    v4d u = (v4d)((q + 1023) << 52), half = (v4d)((q + 1022) << 52), reach = (v4d)((q + 1016) << 52);
    v4d x = H * (v4d)((1023 - q) << 52);  /* |S| / u, below 2^(p+1) */
    v4d t = (x + TWO52) - TWO52;
    t = pickd(t > x, t - 1, t);           /* floor */
    v4d R = H - t * u;
    v4l borrow = (R == 0) & (L < 0);      /* the remainder borrows a unit */
    t = pickd(borrow, t - 1, t);
    R = pickd(borrow, u, R);
    v4l k = (v4l)(t + TWO52) & MANT;
    v4l lsb = k & 1;
    v4l inexact = (R != 0) | (L != 0);
    v4l gt = (R > half) | ((R == half) & (L > 0));
    v4l tie = (R == half) & (L == 0);
    v4l guard = gt | tie;
    v4l sticky = (pickd(guard, R - half, R) != 0) | (L != 0);
    /* Within 2^-7 of a unit of the tie, with at least 8 bits dropped. */
    v4l near = ~tie & inexact & at_least(R, L, half - reach) & at_most(R, L, half + reach);
    /* At least 8 bits dropped: the exact value's lowest set bit 8 places
     * or more under the unit.  Where the kit holds it trimmed (bit0 NULL)
     * that is, without finding the bit: every lane whose L is not zero
     * (L's bits lie under ulp(S), 29 places or more under the unit of any
     * p <= 24), and else a lane whose R (a multiple of ulp(H) under u,
     * never borrowed where L is zero) is not a multiple of 2^(q-7): R
     * scaled to units of 2^(q-7), exactly, below 128, not an integer.
     * The two lowest-bit searches this replaced cost v_fma_f32 11 and
     * v_mad_f32 17 instructions a generated case (callgrind, gen_count). */
    if (bit0) {
        near &= q - *bit0 >= 8;
    } else {
        v4d scaled = R * (v4d)((7 - q + 1023) << 52);
        near &= (L != 0) | (((scaled + TWO52) - TWO52) != scaled);
    }
    /* Then the encoding (a carry moves the exponent; to odd never carries). */
    v4l step = to_odd ? bit(inexact) & ~lsb : bit(gt | (tie & (lsb != 0)));
    v4l kept = k + step;
    v4d value = (v4d)((v4l)(pickd(step != 0, t + 1, t) * u) | sign);  /* exact: below 2^(p+1) units */
    v4l carry = kept >> p;
    v4l result_bit0 = q + carry;
    kept >>= carry;
    e += carry;
    v4l overflow = e > emax;
    v4l s = (sign >> (64 - bits_total)) & ((int64_t)1 << (bits_total - 1));  /* the sign in the format */
    v4l normal_bits = s | ((e + bias) << (p - 1)) | (kept - hidden);
    v4l bits = pick(overflow, s | (to_odd ? inf - 1 : inf), pick(kept < hidden, s | kept, normal_bits));
    v4l flags = bit(tie) * FP_LANE_TIE | bit(near) * FP_LANE_NEAR | bit(guard) * FP_LANE_GUARD |
                bit(sticky) * FP_LANE_STICKY | lsb * FP_LANE_LSB | bit(tiny) * FP_LANE_TINY |
                bit(overflow) * FP_LANE_OVERFLOW | bit(inexact) * FP_LANE_INEXACT | bit(sign != 0) * FP_LANE_SIGN;
    return (rounded){bits, q, msb, flags, overflow, result_bit0, value};
}

/* The larger of two nonzero doubles' leading-bit exponents. */
LANES v4l larger_exp(v4d x, v4d y)
{
    v4l ex = dexp((v4d)((v4l)x & ~SIGN_BIT)), ey = dexp((v4d)((v4l)y & ~SIGN_BIT));
    return pick(ey > ex, ey, ex);
}

/* Every flag fits the lane's 16-bit field (store truncates to it). */
_Static_assert(FP_LANE_CANCELLED <= 0x8000, "FP_LANE_* flags must fit fp_fma_lane.flags");

/* r's result and flags, with msb and big of the lane's exact sum.  The
 * fields are packed in vectors first (bits, ulp_exp and msb as a lane's first
 * eight bytes, big and flags as its last four: fp_fma_lane's layout on a
 * little-endian host), then two stores a lane, where five fields a lane
 * took an extract and a store each. */
_Static_assert(sizeof(fp_fma_lane) == 12 && offsetof(fp_fma_lane, ulp_exp) == 4 && offsetof(fp_fma_lane, msb) == 6 &&
                   offsetof(fp_fma_lane, big) == 8 && offsetof(fp_fma_lane, flags) == 10,
               "store() packs fp_fma_lane's fields by their offsets");
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "store() packs fields little-endian");
LANES void store(rounded r, v4l done, v4l msb, v4l big, fp_fma_lane *out)
{
    v4l flags = r.flags | bit(done) * FP_LANE_DONE;
    v4u head = (v4u)(r.bits & 0xffffffffLL) | (v4u)(r.q & 0xffff) << 32 | (v4u)msb << 48;
    v4u tail = (v4u)(big & 0xffff) | (v4u)(flags & 0xffff) << 16;
    for (int i = 0; i < 4; i++) {
        uint64_t h = head[i];
        uint32_t t = (uint32_t)tail[i];
        memcpy((char *)&out[i], &h, sizeof h);
        memcpy((char *)&out[i] + 8, &t, sizeof t);
    }
}

/* TwoSum: S + E = P + C exactly. */
LANES v4d two_sum(v4d P, v4d C, v4d *E)
{
    v4d S = P + C, bb = S - P;
    *E = (P - (S - bb)) + (C - bb);
    return S;
}

/* The sums no rounding is made of: an exact zero, an infinity, a NaN.
 * Where S is one, the caller rounds 1 instead (a NaN would drive
 * round_to's shifts out of range) and unrounded_sums puts the result in. */
LANES v4l not_rounded(v4d S)
{
    return (S == 0) | (S != S) | (((v4l)S & ~SIGN_BIT) == ALL(0x7ff0000000000000LL));
}

/* The sum S + E rounded to f32 where not_rounded(S) is false (`other`
 * clear); 1, exactly, where it is true (unrounded_sums puts the result in). */
LANES rounded round_sum_f32(v4d S, v4d E, v4l other, bool to_odd)
{
    v4d e = pickd(other, ZERO_D, E);
    return round_to(pickd(other, ONE, S), &e, 24, -126, 127, NULL, to_odd);
}

/* r's result and flags where S is an exact zero (signed as the hardware's
 * sum; FP_LANE_CANCELLED when the product P was not zero), an infinity
 * (signed) or a NaN (the default NaN `nan`, unsigned), in a format whose
 * sign bit is bit sign_at - 1 and whose infinity is inf. */
LANES void unrounded_sums(rounded *r, v4d S, v4d P, int sign_at, int64_t inf, int64_t nan)
{
    v4l sign = (v4l)S & SIGN_BIT, sign_flag = bit(sign != 0) * FP_LANE_SIGN;
    v4l zero = S == 0, is_nan = S != S, is_inf = ((v4l)S & ~SIGN_BIT) == ALL(0x7ff0000000000000LL);
    v4l fsign = (v4l)((v4u)sign >> (64 - sign_at));
    r->bits = pick(zero, fsign, pick(is_inf, fsign | inf, pick(is_nan, ALL(nan), r->bits)));
    r->flags = pick(zero, ALL(FP_LANE_ZERO) | sign_flag | bit(P != 0) * FP_LANE_CANCELLED,
                    pick(is_inf, ALL(FP_LANE_INF) | sign_flag, pick(is_nan, ALL(FP_LANE_NAN), r->flags)));
}

/* Every lane: the double arithmetic is the scalar path's (xval_sum), so a
 * sum that is not finite and nonzero is what it gives too: a NaN (the
 * kit's default NaN, unsigned), an infinity, or an exact zero (signed as
 * the hardware's sum: +0 unless both are -0), each rounded exactly.  A
 * subnormal source's product is exact in double as well (at least 2^-298,
 * a normal double). */
LANES void four_fused(const uint32_t *a, const uint32_t *b, const uint32_t *c, const int32_t *k, int64_t nan,
                      fp_fma_lane *out)
{
    v4l sub = ALL(0), special = ALL(0);
    v4d A = widen_any(a, &sub, &special), B = widen_any(b, &sub, &special), C = widen_any(c, &sub, &special);
    v4d P = A * B, E;
    if (k) {
        /* (a*b + c) * 2^k: the product and c scaled, exactly (2^-362 and
         * 2^320 are the extremes, both normal doubles). */
        v4i kk;
        memcpy(&kk, k, sizeof kk);
        v4d scale = (v4d)((widen_mask(kk) + 1023) << 52);
        P *= scale;
        C *= scale;
    }
    v4d S = two_sum(P, C, &E);
    v4l other = not_rounded(S);
    rounded r = round_sum_f32(S, E, other, false);
    unrounded_sums(&r, S, P, 32, 0x7f800000, nan);
    r.flags |= bit(sub) * FP_LANE_SUBNORMAL_SOURCE | bit(special) * FP_LANE_SPECIAL_SOURCE;
    store(r, ALL(-1), r.msb, larger_exp(P, C), out);
}

/* A legacy source: subnormal ones flushed to zeros of their sign (marked
 * subnormal, and special as the zeros they become). */
LANES v4d widen_flushed(const uint32_t *p, v4l *subnormal, v4l *special)
{
    v4l sub = ALL(0);
    v4d x = widen_any(p, &sub, special);
    *subnormal |= sub;
    *special |= sub;
    return (v4d)pick(sub, (v4l)x & SIGN_BIT, (v4l)x);
}

/* f32 encodings (in 64-bit lanes) as doubles, any of them. */
LANES v4d f32_value_of(v4u bits)
{
    v4w w = __builtin_convertvector(bits, v4w);
    v4f f;
    memcpy(&f, &w, sizeof f);
    return widen_f32(f);
}

/* The legacy form, every lane: the sources flushed, the product rounded to
 * f32 (an exact zero, infinite or NaN product is not rounded, as in the
 * kit) and flushed when that is subnormal, then its sum with c rounded as
 * four_fused rounds its one sum.  The sum's big is the exact product's and
 * c's, and an exact zero sum is cancelled where the exact product was not
 * zero (the kit's lane_classes). */
LANES void four_unfused(const uint32_t *a, const uint32_t *b, const uint32_t *c, int64_t nan, fp_fma_lane *product,
                        fp_fma_lane *sum)
{
    v4l sub = ALL(0), special = ALL(0);
    v4d A = widen_flushed(a, &sub, &special), B = widen_flushed(b, &sub, &special),
        C = widen_flushed(c, &sub, &special);
    v4d P = A * B, E;
    v4l p_other = not_rounded(P);
    rounded rp = round_to(pickd(p_other, ONE, P), NULL, 24, -126, 127, NULL, false);  /* exact: no error term */
    unrounded_sums(&rp, P, ZERO_D, 32, 0x7f800000, nan);
    v4u pbits = (v4u)rp.bits & 0xffffffffu;
    pbits = (v4u)pick((v4l)((pbits & 0x7f800000u) == 0), (v4l)(pbits & 0x80000000u), (v4l)pbits);
    v4d S = two_sum(f32_value_of(pbits), C, &E);
    v4l other = not_rounded(S);
    rounded rs = round_sum_f32(S, E, other, false);
    unrounded_sums(&rs, S, P, 32, 0x7f800000, nan);
    rs.flags |= bit(sub) * FP_LANE_SUBNORMAL_SOURCE | bit(special) * FP_LANE_SPECIAL_SOURCE;
    v4l big = larger_exp(P, C);
    store(rp, ALL(-1), rp.msb, big, product);
    store(rs, ALL(-1), rs.msb, big, sum);
}

/* To f16 through f32: the exact sum rounded to f32 (to odd, or to nearest),
 * then that f32 value rounded to f16; the second rounding is reported.  A
 * sum that is a NaN, an infinity or an exact zero is what four_fused makes
 * of it, in f16; a lane whose finite, nonzero sum has an f32 value that
 * overflows or is zero is not done. */
LANES void four_to_half(const uint32_t *a, const uint32_t *b, const uint32_t *c, bool odd, int64_t nan,
                        fp_fma_lane *out)
{
    v4l sub = ALL(0), special = ALL(0);
    v4d A = widen_any(a, &sub, &special), B = widen_any(b, &sub, &special), C = widen_any(c, &sub, &special);
    v4d P = A * B, E;
    v4d S = two_sum(P, C, &E);
    v4l other = not_rounded(S);
    rounded r32 = round_sum_f32(S, E, other, odd);
    v4l done = other | (~r32.overflow & (r32.value != 0));
    rounded r16 = round_to(r32.value, NULL, 11, -14, 15, &r32.bit0, false);
    unrounded_sums(&r16, S, P, 16, 0x7c00, nan);
    r16.flags |= bit(sub) * FP_LANE_SUBNORMAL_SOURCE | bit(special) * FP_LANE_SPECIAL_SOURCE;
    store(r16, done, r32.msb, larger_exp(P, C), out);
}

#define ENTRY LANES_ENTRY

/* The last m < 4 lanes of a, b, c, padded with 1.0 to four. */
static void pad(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t m, uint32_t *pa, uint32_t *pb,
                uint32_t *pc)
{
    for (size_t i = 0; i < 4; i++) {
        pa[i] = i < m ? a[i] : 0x3f800000u;
        pb[i] = i < m ? b[i] : 0x3f800000u;
        pc[i] = i < m ? c[i] : 0x3f800000u;
    }
}

ENTRY void fma32_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, const int32_t *k, size_t n,
                       fp_fma_lane *out)
{
    int64_t nan = (int64_t)fp_default_nan(&fp_f32);
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        four_fused(a + i, b + i, c + i, k ? k + i : NULL, nan, out + i);
    if (i < n) {
        uint32_t pa[4], pb[4], pc[4];
        int32_t pk[4] = {0};
        fp_fma_lane po[4];
        pad(a + i, b + i, c + i, n - i, pa, pb, pc);
        if (k)
            memcpy(pk, k + i, (n - i) * sizeof *k);
        four_fused(pa, pb, pc, k ? pk : NULL, nan, po);
        memcpy(out + i, po, (n - i) * sizeof *po);
    }
}

ENTRY void mad32_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n,
                       fp_fma_lane *product, fp_fma_lane *sum)
{
    int64_t nan = (int64_t)fp_default_nan(&fp_f32);
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        four_unfused(a + i, b + i, c + i, nan, product + i, sum + i);
    if (i < n) {
        uint32_t pa[4], pb[4], pc[4];
        fp_fma_lane pp[4], ps[4];
        pad(a + i, b + i, c + i, n - i, pa, pb, pc);
        four_unfused(pa, pb, pc, nan, pp, ps);
        memcpy(product + i, pp, (n - i) * sizeof *pp);
        memcpy(sum + i, ps, (n - i) * sizeof *ps);
    }
}

ENTRY void half_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, bool odd,
                       fp_fma_lane *out)
{
    int64_t nan = (int64_t)fp_default_nan(&fp_f16);
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        four_to_half(a + i, b + i, c + i, odd, nan, out + i);
    if (i < n) {
        uint32_t pa[4], pb[4], pc[4];
        fp_fma_lane po[4];
        pad(a + i, b + i, c + i, n - i, pa, pb, pc);
        four_to_half(pa, pb, pc, odd, nan, po);
        memcpy(out + i, po, (n - i) * sizeof *po);
    }
}

void fp_fast_fma32_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, fp_fma_lane *out)
{
    fma32_lanes(a, b, c, NULL, n, out);
}

void fp_fast_fma32_scaled_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, const int32_t *k, size_t n,
                                fp_fma_lane *out)
{
    fma32_lanes(a, b, c, k, n, out);
}

void fp_fast_mad32_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, fp_fma_lane *product,
                         fp_fma_lane *sum)
{
    mad32_lanes(a, b, c, n, product, sum);
}

void fp_fast_fma_half_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, bool odd,
                            fp_fma_lane *out)
{
    half_lanes(a, b, c, n, odd, out);
}
