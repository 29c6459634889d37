/* Multiply-add roundings LANES_N lanes at a time: what the kit's fp_round
 * reports for round_f32(a*b + c) (fused), round_f32(round_f32(a*b) + c)
 * (the legacy form) and round_f16(round_f32(a*b + c)) (to odd or to
 * nearest at f32), from double arithmetic in vectors (GCC's vector
 * extensions: eight lanes where the CPU has AVX-512, four in AVX2 or SSE2
 * otherwise; lanes.h's two builds).
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
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "fast.h"
#include "lanes.h"

/* Sign of (R + L) - X: R != X decides, else the sign of L. */
LANES vl at_least(vd R, vd L, vd X) { return (R > X) | ((R == X) & (L >= 0)); }
LANES vl at_most(vd R, vd L, vd X) { return (R < X) | ((R == X) & (L <= 0)); }

/* Any f32 bit patterns as doubles (the hardware's conversion: exact for
 * every finite f32, subnormals included, because the environment check at
 * start refuses a host that treats subnormal inputs as zero), with which
 * lanes hold a subnormal, and which a zero, an infinity or a NaN. */
LANES vd widen_any(const uint32_t *p, vl *subnormal, vl *special)
{
    vf f;
    vw w;
    memcpy(&f, p, sizeof f);
    memcpy(&w, p, sizeof w);
    vw e = (w >> 23) & 0xff, nonzero = (w & 0x7fffffffu) != 0;
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
    vl bits, q, msb, flags;  /* flags: FP_LANE_* but DONE */
    vl overflow;             /* FP_LANE_OVERFLOW as a mask, so a caller that reads no other flag leaves them unmade */
    vl tie;                  /* FP_LANE_TIE as a mask, likewise */
    vl bit0;                 /* exponent of the result's bit 0 (for a rounding of it) */
    vd value;                /* the result as a double (finite results) */
} rounded;

LANES rounded round_to(vd S, const vd *E, int p, int emin, int emax, const vl *bit0, bool to_odd)
{
    int bias = -emin + 1, bits_total = p + (emax == 127 ? 8 : 5);
    int64_t hidden = (int64_t)1 << (p - 1), inf = ((((int64_t)1 << (bits_total - p)) - 1)) << (p - 1);
    vl sign = (vl)S & SIGN_BIT;
    vd H = (vd)((vl)S & ~SIGN_BIT);
    vd L = E ? (vd)((vl)*E ^ sign) : ZERO_D;  /* E as seen from |S| */
    /* The exact value's leading bit: below a power of two when L is negative. */
    vl msb = dexp(H) + ((((vl)H & MANT) == 0) & (L < 0));
    vl tiny = msb < emin;
    vl e = pick(tiny, ALL(emin), msb);
    vl q = e - (p - 1);
    vd u = (vd)((q + 1023) << 52), half = (vd)((q + 1022) << 52), reach = (vd)((q + 1016) << 52);
    vd x = H * (vd)((1023 - q) << 52);  /* |S| / u, below 2^(p+1) */
    vd t = (x + TWO52) - TWO52;
    t = pickd(t > x, t - 1, t);           /* floor */
    vd R = H - t * u;
    vl borrow = (R == 0) & (L < 0);      /* the remainder borrows a unit */
    t = pickd(borrow, t - 1, t);
    R = pickd(borrow, u, R);
    vl k = (vl)(t + TWO52) & MANT;
    vl lsb = k & 1;
    vl inexact = (R != 0) | (L != 0);
    vl gt = (R > half) | ((R == half) & (L > 0));
    vl tie = (R == half) & (L == 0);
    vl guard = gt | tie;
    vl sticky = (pickd(guard, R - half, R) != 0) | (L != 0);
    /* Within 2^-7 of a unit of the tie, with at least 8 bits dropped. */
    vl near = ~tie & inexact & at_least(R, L, half - reach) & at_most(R, L, half + reach);
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
        vd scaled = R * (vd)((7 - q + 1023) << 52);
        near &= (L != 0) | (((scaled + TWO52) - TWO52) != scaled);
    }
    /* Then the encoding (a carry moves the exponent; to odd never carries). */
    vl step = to_odd ? bit(inexact) & ~lsb : bit(gt | (tie & (lsb != 0)));
    vl kept = k + step;
    vd value = (vd)((vl)(pickd(step != 0, t + 1, t) * u) | sign);  /* exact: below 2^(p+1) units */
    vl carry = kept >> p;
    vl result_bit0 = q + carry;
    kept >>= carry;
    e += carry;
    vl overflow = e > emax;
    vl s = (sign >> (64 - bits_total)) & ((int64_t)1 << (bits_total - 1));  /* the sign in the format */
    vl normal_bits = s | ((e + bias) << (p - 1)) | (kept - hidden);
    vl bits = pick(overflow, s | (to_odd ? inf - 1 : inf), pick(kept < hidden, s | kept, normal_bits));
    vl flags = bit(tie) * FP_LANE_TIE | bit(near) * FP_LANE_NEAR | bit(guard) * FP_LANE_GUARD |
                bit(sticky) * FP_LANE_STICKY | lsb * FP_LANE_LSB | bit(tiny) * FP_LANE_TINY |
                bit(overflow) * FP_LANE_OVERFLOW | bit(inexact) * FP_LANE_INEXACT | bit(sign != 0) * FP_LANE_SIGN;
    return (rounded){bits, q, msb, flags, overflow, tie, result_bit0, value};
}

/* The larger of two nonzero doubles' leading-bit exponents. */
LANES vl larger_exp(vd x, vd y)
{
    vl ex = dexp((vd)((vl)x & ~SIGN_BIT)), ey = dexp((vd)((vl)y & ~SIGN_BIT));
    return pick(ey > ex, ey, ex);
}

/* Every flag fits the lane's 16-bit field (store truncates to it). */
_Static_assert(FP_LANE_CANCELLED <= 0x8000, "FP_LANE_* flags must fit fp_fma_lane.flags");

/* r's result and flags, with msb and big of the lane's exact sum.  The
 * fields are packed in vectors first (bits, ulp_exp and msb as a lane's first
 * eight bytes, big and flags as its last four: fp_fma_lane's layout on a
 * little-endian host), then interleaved by two shuffles of their 32-bit
 * words into 12-byte lanes and stored whole, as fast_half_lanes.c's
 * h_store does, where two stores a lane took an extract each (the eight-lane
 * mad32_lanes, whose product and sum both store, 1,420 to 1,310
 * instructions of code). */
_Static_assert(sizeof(fp_fma_lane) == 12 && offsetof(fp_fma_lane, ulp_exp) == 4 && offsetof(fp_fma_lane, msb) == 6 &&
                   offsetof(fp_fma_lane, big) == 8 && offsetof(fp_fma_lane, flags) == 10,
               "store() packs fp_fma_lane's fields by their offsets");
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "store() packs fields little-endian");
/* The 32-bit words of a vector of 64-bit lanes: lane i's low word is 2i. */
typedef uint32_t vw2 __attribute__((vector_size(8 * LANES_N)));
/* Lane i's three words: head's 2i and 2i + 1, tail's 2i (index 2 * LANES_N + 2i of the pair). */
#if LANES_N == 8
#define LANE_WORDS_FIRST 0, 1, 16, 2, 3, 18, 4, 5, 20, 6, 7, 22, 8, 9, 24, 10
#define LANE_WORDS_REST 11, 26, 12, 13, 28, 14, 15, 30
#else
#define LANE_WORDS_FIRST 0, 1, 8, 2, 3, 10, 4, 5
#define LANE_WORDS_REST 12, 6, 7, 14
#endif
LANES void store(rounded r, vl done, vl msb, vl big, fp_fma_lane *out)
{
    vl flags = r.flags | bit(done) * FP_LANE_DONE;
    vu head = (vu)(r.bits & 0xffffffffLL) | (vu)(r.q & 0xffff) << 32 | (vu)msb << 48;
    vu tail = (vu)(big & 0xffff) | (vu)(flags & 0xffff) << 16;
    vw2 first = __builtin_shufflevector((vw2)head, (vw2)tail, LANE_WORDS_FIRST);
    vw rest = __builtin_shufflevector((vw2)head, (vw2)tail, LANE_WORDS_REST);
    memcpy((char *)out, &first, sizeof first);
    memcpy((char *)out + sizeof first, &rest, sizeof rest);
}

/* TwoSum: S + E = P + C exactly. */
LANES vd two_sum(vd P, vd C, vd *E)
{
    vd S = P + C, bb = S - P;
    *E = (P - (S - bb)) + (C - bb);
    return S;
}

/* The sums no rounding is made of: an exact zero, an infinity, a NaN.
 * Where S is one, the caller rounds 1 instead (a NaN would drive
 * round_to's shifts out of range) and unrounded_sums puts the result in. */
LANES vl not_rounded(vd S)
{
    return (S == 0) | (S != S) | (((vl)S & ~SIGN_BIT) == ALL(0x7ff0000000000000LL));
}

/* The sum S + E rounded to f32 where not_rounded(S) is false (`other`
 * clear); 1, exactly, where it is true (unrounded_sums puts the result in). */
LANES rounded round_sum_f32(vd S, vd E, vl other, bool to_odd)
{
    vd e = pickd(other, ZERO_D, E);
    return round_to(pickd(other, ONE, S), &e, 24, -126, 127, NULL, to_odd);
}

/* r's result and flags where S is an exact zero (signed as the hardware's
 * sum; FP_LANE_CANCELLED when the product P was not zero), an infinity
 * (signed) or a NaN (the default NaN `nan`, unsigned), in a format whose
 * sign bit is bit sign_at - 1 and whose infinity is inf. */
LANES void unrounded_sums(rounded *r, vd S, vd P, int sign_at, int64_t inf, int64_t nan)
{
    vl sign = (vl)S & SIGN_BIT, sign_flag = bit(sign != 0) * FP_LANE_SIGN;
    vl zero = S == 0, is_nan = S != S, is_inf = ((vl)S & ~SIGN_BIT) == ALL(0x7ff0000000000000LL);
    vl fsign = (vl)((vu)sign >> (64 - sign_at));
    r->bits = pick(zero, fsign, pick(is_inf, fsign | inf, pick(is_nan, ALL(nan), r->bits)));
    r->flags = pick(zero, ALL(FP_LANE_ZERO) | sign_flag | bit(P != 0) * FP_LANE_CANCELLED,
                    pick(is_inf, ALL(FP_LANE_INF) | sign_flag, pick(is_nan, ALL(FP_LANE_NAN), r->flags)));
}

/* *P and *C scaled by 2^k[i] lane by lane, exactly, where k is not NULL:
 * (a*b + c) * 2^k as V_DIV_FMAS scales it (|k| <= 64: 2^-362 and 2^320
 * are the extremes, both normal doubles). */
LANES void scale_lanes(const int32_t *k, vd *P, vd *C)
{
    if (!k)
        return;
    vi kk;
    memcpy(&kk, k, sizeof kk);
    vd scale = (vd)((widen_mask(kk) + 1023) << 52);
    *P *= scale;
    *C *= scale;
}

/* Every lane: the double arithmetic is the scalar path's (xval_sum), so a
 * sum that is not finite and nonzero is what it gives too: a NaN (the
 * kit's default NaN, unsigned), an infinity, or an exact zero (signed as
 * the hardware's sum: +0 unless both are -0), each rounded exactly.  A
 * subnormal source's product is exact in double as well (at least 2^-298,
 * a normal double). */
LANES void vector_fused(const uint32_t *a, const uint32_t *b, const uint32_t *c, const int32_t *k, int64_t nan,
                      fp_fma_lane *out)
{
    vl sub = ALL(0), special = ALL(0);
    vd A = widen_any(a, &sub, &special), B = widen_any(b, &sub, &special), C = widen_any(c, &sub, &special);
    vd P = A * B, E;
    scale_lanes(k, &P, &C);
    vd S = two_sum(P, C, &E);
    vl other = not_rounded(S);
    rounded r = round_sum_f32(S, E, other, false);
    unrounded_sums(&r, S, P, 32, 0x7f800000, nan);
    r.flags |= bit(sub) * FP_LANE_SUBNORMAL_SOURCE | bit(special) * FP_LANE_SPECIAL_SOURCE;
    store(r, ALL(-1), r.msb, larger_exp(P, C), out);
}

/* A legacy source: subnormal ones flushed to zeros of their sign (marked
 * subnormal, and special as the zeros they become). */
LANES vd widen_flushed(const uint32_t *p, vl *subnormal, vl *special)
{
    vl sub = ALL(0);
    vd x = widen_any(p, &sub, special);
    *subnormal |= sub;
    *special |= sub;
    return (vd)pick(sub, (vl)x & SIGN_BIT, (vl)x);
}

/* The legacy form, every lane: the sources flushed, the product rounded to
 * f32 (an exact zero, infinite or NaN product is not rounded, as in the
 * kit) and flushed when that is subnormal, then its sum with c rounded as
 * vector_fused rounds its one sum.  The sum's big is the exact product's and
 * c's, and an exact zero sum is cancelled where the exact product was not
 * zero (the kit's lane_classes). */
LANES void vector_unfused(const uint32_t *a, const uint32_t *b, const uint32_t *c, int64_t nan, fp_fma_lane *product,
                        fp_fma_lane *sum)
{
    vl sub = ALL(0), special = ALL(0);
    vd A = widen_flushed(a, &sub, &special), B = widen_flushed(b, &sub, &special),
        C = widen_flushed(c, &sub, &special);
    vd P = A * B, E;
    vl p_other = not_rounded(P);
    rounded rp = round_to(pickd(p_other, ONE, P), NULL, 24, -126, 127, NULL, false);  /* exact: no error term */
    unrounded_sums(&rp, P, ZERO_D, 32, 0x7f800000, nan);
    /* The sum takes the product's f32 value from the hardware's conversion
     * (to nearest, subnormals kept: the environment check at start), the
     * bits rp holds, but without waiting for round_to: the sum's chain of
     * dependent steps was the loop's bound (a NaN product's sign may differ
     * from rp's default NaN; its sum is a NaN all the same).  A subnormal
     * product is flushed to a zero of its sign. */
    vd Pr = widen_f32(__builtin_convertvector(P, vf));
    Pr = pickd((vd)((vl)Pr & ~SIGN_BIT) < 0x1p-126, (vd)((vl)Pr & SIGN_BIT), Pr);
    vd S = two_sum(Pr, C, &E);
    vl other = not_rounded(S);
    rounded rs = round_sum_f32(S, E, other, false);
    unrounded_sums(&rs, S, P, 32, 0x7f800000, nan);
    rs.flags |= bit(sub) * FP_LANE_SUBNORMAL_SOURCE | bit(special) * FP_LANE_SPECIAL_SOURCE;
    vl big = larger_exp(P, C);
    store(rp, ALL(-1), rp.msb, big, product);
    store(rs, ALL(-1), rs.msb, big, sum);
}

/* To f16 through f32: the exact sum rounded to f32 (to odd, or to nearest),
 * then that f32 value rounded to f16; the second rounding is reported (to
 * odd first, made as the one rounding it amounts to).  A
 * sum that is a NaN, an infinity or an exact zero is what vector_fused makes
 * of it, in f16; a lane whose finite, nonzero sum has an f32 value that
 * overflows or is zero is not done. */
LANES void vector_to_half(const uint32_t *a, const uint32_t *b, const uint32_t *c, bool odd, int64_t nan,
                        fp_fma_lane *out)
{
    vl sub = ALL(0), special = ALL(0);
    vd A = widen_any(a, &sub, &special), B = widen_any(b, &sub, &special), C = widen_any(c, &sub, &special);
    vd P = A * B, E;
    vd S = two_sum(P, C, &E);
    vl other = not_rounded(S);
    rounded r16;
    vl done;
    if (odd) {
        /* One rounding of the exact sum to f16, the same in every field as
         * f16's of the f32 value rounded to odd: that value is a tie, near
         * one, inexact, past a bound, exactly where the sum is (rounding to
         * odd never crosses the even f32 points those tests compare with,
         * and keeps the sticky bit); its leading bit is the sum's (an
         * inexact one ends in a 1, never a power of two); its lowest bit is
         * 13 or more places under f16's unit, so the near-tie test's
         * "8 bits dropped" always holds (bit0 far below).  It is not done
         * where the f32 value overflows (the sum's leading bit above 127). */
        vd e = pickd(other, ZERO_D, E);
        vl far = ALL(-4096);
        r16 = round_to(pickd(other, ONE, S), &e, 11, -14, 15, &far, false);
        done = other | (r16.msb <= 127);
    } else {
        rounded r32 = round_sum_f32(S, E, other, false);
        done = other | (~r32.overflow & (r32.value != 0));
        r16 = round_to(r32.value, NULL, 11, -14, 15, &r32.bit0, false);
        r16.msb = r32.msb;  /* the exact sum's, as the odd path's */
    }
    unrounded_sums(&r16, S, P, 16, 0x7c00, nan);
    r16.flags |= bit(sub) * FP_LANE_SUBNORMAL_SOURCE | bit(special) * FP_LANE_SPECIAL_SOURCE;
    store(r16, done, r16.msb, larger_exp(P, C), out);
}

/* Whether round_f32(P + C) is a tie, as a mask (P and C exact doubles):
 * vector_fused's rounding of the sum, of which only the tie is made (the
 * compiler drops the rest); an exact zero, infinite or NaN sum is no tie. */
LANES vl sum_tie(vd P, vd C)
{
    vd E, S = two_sum(P, C, &E);
    vl other = not_rounded(S);
    return round_sum_f32(S, E, other, false).tie & ~other;
}

/* Whether round_f32(round_f32(a*b) + c) is a tie, as a byte a lane: the
 * exact product rounded to f32 by the hardware's conversion (to nearest,
 * subnormals kept: the environment check at start), then vector_fused's
 * rounding of its sum with c, of which only the tie is made (the compiler
 * drops the rest).  A sum that is an exact zero, an infinity or a NaN is
 * no tie.  k, where not NULL: a*b and c scaled by 2^k first (scale_lanes),
 * as V_DIV_FMAS scales its sum. */
LANES void vector_product_sum_tie(const uint32_t *a, const uint32_t *b, const uint32_t *c, const int32_t *k,
                                  uint8_t *tie)
{
    vl sub = ALL(0), special = ALL(0);
    vd A = widen_any(a, &sub, &special), B = widen_any(b, &sub, &special), C = widen_any(c, &sub, &special);
    vd exact = A * B;
    scale_lanes(k, &exact, &C);
    /* As 0/1 first: `t[i] != 0` on the mask stopped GCC 12's LTO with an internal error. */
    vl t = bit(sum_tie(widen_f32(__builtin_convertvector(exact, vf)), C));
    for (int i = 0; i < LANES_N; i++)
        tie[i] = (uint8_t)t[i];
}

/* Whether round_f32(round_f32(a*b) + c) is a tie and round_f32(a*b + c)
 * is not, as a byte a lane (1 or 0): the double-round test of the fused
 * f32 sum, both roundings' ties made as vector_fused and
 * vector_product_sum_tie make them (the compiler drops the rest of each
 * report), in one pass over the sources. */
LANES void vector_double_round(const uint32_t *a, const uint32_t *b, const uint32_t *c, uint8_t *yes)
{
    vl sub = ALL(0), special = ALL(0);
    vd A = widen_any(a, &sub, &special), B = widen_any(b, &sub, &special), C = widen_any(c, &sub, &special);
    vd exact = A * B;
    vl y = bit(sum_tie(widen_f32(__builtin_convertvector(exact, vf)), C) & ~sum_tie(exact, C));
    for (int i = 0; i < LANES_N; i++)
        yes[i] = (uint8_t)y[i];
}

#define ENTRY LANES_ENTRY

/* The last m < LANES_N lanes of a, b, c, padded with 1.0 to a whole vector. */
static void pad(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t m, uint32_t *pa, uint32_t *pb,
                uint32_t *pc)
{
    lanes_pad(a, b, c, m, LANES_N, pa, pb, pc);
}

ENTRY void fma32_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, const int32_t *k, size_t n,
                       fp_fma_lane *out)
{
    int64_t nan = (int64_t)fp_default_nan(&fp_f32);
    size_t i = 0;
    for (; i + LANES_N <= n; i += LANES_N)
        vector_fused(a + i, b + i, c + i, k ? k + i : NULL, nan, out + i);
    if (i < n) {
        uint32_t pa[LANES_N], pb[LANES_N], pc[LANES_N];
        int32_t pk[LANES_N] = {0};
        fp_fma_lane po[LANES_N];
        pad(a + i, b + i, c + i, n - i, pa, pb, pc);
        if (k)
            memcpy(pk, k + i, (n - i) * sizeof *k);
        vector_fused(pa, pb, pc, k ? pk : NULL, nan, po);
        memcpy(out + i, po, (n - i) * sizeof *po);
    }
}

ENTRY void mad32_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n,
                       fp_fma_lane *product, fp_fma_lane *sum)
{
    int64_t nan = (int64_t)fp_default_nan(&fp_f32);
    size_t i = 0;
    for (; i + LANES_N <= n; i += LANES_N)
        vector_unfused(a + i, b + i, c + i, nan, product + i, sum + i);
    if (i < n) {
        uint32_t pa[LANES_N], pb[LANES_N], pc[LANES_N];
        fp_fma_lane pp[LANES_N], ps[LANES_N];
        pad(a + i, b + i, c + i, n - i, pa, pb, pc);
        vector_unfused(pa, pb, pc, nan, pp, ps);
        memcpy(product + i, pp, (n - i) * sizeof *pp);
        memcpy(sum + i, ps, (n - i) * sizeof *ps);
    }
}

/* half_lanes with `odd` a constant of each call (two loops, not a test a vector). */
LANES void half_loop(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, bool odd, fp_fma_lane *out)
{
    int64_t nan = (int64_t)fp_default_nan(&fp_f16);
    size_t i = 0;
    for (; i + LANES_N <= n; i += LANES_N)
        vector_to_half(a + i, b + i, c + i, odd, nan, out + i);
    if (i < n) {
        uint32_t pa[LANES_N], pb[LANES_N], pc[LANES_N];
        fp_fma_lane po[LANES_N];
        pad(a + i, b + i, c + i, n - i, pa, pb, pc);
        vector_to_half(pa, pb, pc, odd, nan, po);
        memcpy(out + i, po, (n - i) * sizeof *po);
    }
}

ENTRY void half_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, bool odd,
                       fp_fma_lane *out)
{
    if (odd)
        half_loop(a, b, c, n, true, out);
    else
        half_loop(a, b, c, n, false, out);
}

ENTRY void product_sum_tie_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, const int32_t *k, size_t n,
                                  uint8_t *tie)
{
    size_t i = 0;
    for (; i + LANES_N <= n; i += LANES_N)
        vector_product_sum_tie(a + i, b + i, c + i, k ? k + i : NULL, tie + i);
    if (i < n) {
        uint32_t pa[LANES_N], pb[LANES_N], pc[LANES_N];
        int32_t pk[LANES_N] = {0};
        uint8_t pt[LANES_N];
        pad(a + i, b + i, c + i, n - i, pa, pb, pc);
        if (k)
            memcpy(pk, k + i, (n - i) * sizeof *k);
        vector_product_sum_tie(pa, pb, pc, k ? pk : NULL, pt);
        memcpy(tie + i, pt, n - i);
    }
}

ENTRY void double_round_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, uint8_t *yes)
{
    size_t i = 0;
    for (; i + LANES_N <= n; i += LANES_N)
        vector_double_round(a + i, b + i, c + i, yes + i);
    if (i < n) {
        uint32_t pa[LANES_N], pb[LANES_N], pc[LANES_N];
        uint8_t py[LANES_N];
        pad(a + i, b + i, c + i, n - i, pa, pb, pc);
        vector_double_round(pa, pb, pc, py);
        memcpy(yes + i, py, n - i);
    }
}

/* The exported calls: this build's (LANES_API), and in the narrow build,
 * the plain names, which go to the wide build where the host has AVX-512. */
void LANES_API(fp_fast_fma32_lanes)(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n,
                                    fp_fma_lane *out)
{
    fma32_lanes(a, b, c, NULL, n, out);
}

void LANES_API(fp_fast_fma32_scaled_lanes)(const uint32_t *a, const uint32_t *b, const uint32_t *c, const int32_t *k,
                                           size_t n, fp_fma_lane *out)
{
    fma32_lanes(a, b, c, k, n, out);
}

void LANES_API(fp_fast_mad32_lanes)(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n,
                                    fp_fma_lane *product, fp_fma_lane *sum)
{
    mad32_lanes(a, b, c, n, product, sum);
}

void LANES_API(fp_fast_fma_half_lanes)(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, bool odd,
                                       fp_fma_lane *out)
{
    half_lanes(a, b, c, n, odd, out);
}

void LANES_API(fp_fast_product_sum_tie_lanes)(const uint32_t *a, const uint32_t *b, const uint32_t *c,
                                              const int32_t *k, size_t n, uint8_t *tie)
{
    product_sum_tie_lanes(a, b, c, k, n, tie);
}

void LANES_API(fp_fast_double_round_lanes)(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n,
                                           uint8_t *yes)
{
    double_round_lanes(a, b, c, n, yes);
}

#ifndef LANES_WIDE
/* x86-64-v4's extensions, those the wide build is compiled for. */
static bool host_has_avx512(void)
{
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512cd");
}

bool fp_lanes_wide(void)
{
    /* Decided once a process (-1: not yet); TIEFUZZ_LANES=narrow keeps the
     * narrow build on a host with AVX-512, for the tests that hold each
     * build to the exact model. */
    static _Atomic int wide = -1;
    int w = atomic_load_explicit(&wide, memory_order_relaxed);
    if (w < 0) {
        const char *force = getenv("TIEFUZZ_LANES");
        w = host_has_avx512() && !(force && strcmp(force, "narrow") == 0);
        atomic_store_explicit(&wide, w, memory_order_relaxed);
    }
    return w;
}

void fp_fast_fma32_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, fp_fma_lane *out)
{
    LANES_PICK(fp_fast_fma32_lanes)(a, b, c, n, out);
}

void fp_fast_fma32_scaled_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, const int32_t *k, size_t n,
                                fp_fma_lane *out)
{
    LANES_PICK(fp_fast_fma32_scaled_lanes)(a, b, c, k, n, out);
}

void fp_fast_mad32_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, fp_fma_lane *product,
                         fp_fma_lane *sum)
{
    LANES_PICK(fp_fast_mad32_lanes)(a, b, c, n, product, sum);
}

void fp_fast_fma_half_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, bool odd,
                            fp_fma_lane *out)
{
    LANES_PICK(fp_fast_fma_half_lanes)(a, b, c, n, odd, out);
}

void fp_fast_product_sum_tie_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, const int32_t *k, size_t n,
                                   uint8_t *tie)
{
    LANES_PICK(fp_fast_product_sum_tie_lanes)(a, b, c, k, n, tie);
}

void fp_fast_double_round_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, uint8_t *yes)
{
    LANES_PICK(fp_fast_double_round_lanes)(a, b, c, n, yes);
}
#endif
