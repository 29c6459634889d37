/* The f16 multiply-add round_f16(round_f32(a*b + c)) with a, b, c f16
 * values, the f32 rounding to odd (one rounding to f16 in effect) or to
 * nearest, in float lanes: twice as many lanes a vector as the double lanes
 * of fast_fma_lanes.c (sixteen where the CPU has AVX-512), reporting the
 * same fields, bit for bit, as fp_fast_fma_half_lanes with its caller's
 * mark of subnormal halves (made here).  V_FMA_F16, V_FMAC_F16 and the
 * packed forms take every source as an f16 (and the MIX f16 forms where
 * op_sel_hi makes all three halves), and their verdicts were a third of a
 * packed case's time in double lanes.
 *
 * Why float is exact here (doc/fast-host.md, "f16 sources in float"):
 * - a product of two f16 values has at most 22 significant bits and lies
 *   within 2^-48..2^32, so it is an f32, exactly, normal;
 * - TwoSum of that product and c (an f16, 2^-24 or more) gives S + E, the
 *   exact sum, with no overflow, and every nonzero S or E a normal f32
 *   (each is a multiple of 2^-48); S itself is the sum rounded to nearest
 *   f32, the first rounding of the nearest path;
 * - the destination unit u = 2^q has q >= -24, and |S| / u < 2^12: the
 *   truncation by the 2^23 trick, t * u and the remainder |S| - t * u are
 *   exact, as fast_fma_lanes.c's round_to argues with 2^52.
 * So every step below is the double lanes' step on the same values, and the
 * results agree (tests/test_half_lanes.c holds the two to that).
 *
 * The same sum rounded to f32 once, round_f32(a*b + c) of f16 values
 * (V_FMA_MIX_F32 where op_sel_hi makes all three sources halves, its
 * default), is fp_fast_fma32_lanes's report in float lanes: S is that
 * rounding already, and report_f32 reads the rest from E (below). */
#include <string.h>
#include "fast.h"
#include "lanes.h"

/* 2 * LANES_N floats: the double lanes' vector width. */
#define HALF_N (2 * LANES_N)
typedef float hf __attribute__((vector_size(4 * HALF_N)));
typedef int32_t hl __attribute__((vector_size(4 * HALF_N)));
typedef uint32_t hu __attribute__((vector_size(4 * HALF_N)));

#define H_ALL(x) ((hl){0} + (int32_t)(x))
#define H_SIGN INT32_MIN
#define H_MANT 0x7fffff
#define TWO23 0x1p23f

LANES hl h_bit(hl mask) { return mask & 1; }
LANES hl h_pick(hl mask, hl yes, hl no) { return (yes & mask) | (no & ~mask); }
LANES hf h_pickf(hl mask, hf yes, hf no) { return (hf)h_pick(mask, (hl)yes, (hl)no); }

/* The exponent field less the bias, as a double of the same value reports
 * it (dexp): a zero -1023 and an infinity or NaN 1024, where f32's field
 * gives -127 and 128.  No value here is an f32 subnormal. */
LANES hl h_dexp(hf x)
{
    hl field = ((hl)x >> 23) & 0xff;
    return h_pick(field == 0, H_ALL(-1023), h_pick(field == 0xff, H_ALL(1024), field - 127));
}

/* Sign of (R + L) - X: R != X decides, else the sign of L. */
LANES hl h_at_least(hf R, hf L, hf X) { return (R > X) | ((R == X) & (L >= 0)); }
LANES hl h_at_most(hf R, hf L, hf X) { return (R < X) | ((R == X) & (L <= 0)); }

typedef struct {
    hl bits, q, msb, flags;  /* flags: FP_LANE_* but DONE */
} h_rounded;

/* The exponent of the leading bit of H + L (H > 0, |L| at most half an ulp
 * of H): H's, or one below where H is a power of two and L negative. */
LANES hl leading_exp(hf H, hf L) { return h_dexp(H) + ((((hl)H & H_MANT) == 0) & (L < 0)); }

/* round_to(S, &E, 11, -14, 15, bit0, nearest) of fast_fma_lanes.c: the
 * exact value S + E (S nonzero and finite) to f16, to nearest even.  What
 * is rounded stands for an f32 value (the sum rounded to odd at f32, whose
 * f16 rounding is the exact sum's, or S, the sum rounded to nearest), whose
 * lowest bit, 23 places under its leading one, lies 13 or more places under
 * f16's unit: the test bit0 feeds there, 8 bits dropped, always holds. */
LANES h_rounded round_f16(hf S, hf E)
{
    hl sign = (hl)S & H_SIGN;
    hf H = (hf)((hl)S & ~H_SIGN);
    hf L = (hf)((hl)E ^ sign);  /* E as seen from |S| */
    hl msb = leading_exp(H, L);
    hl tiny = msb < -14;
    hl e = h_pick(tiny, H_ALL(-14), msb);
    hl q = e - 10;
    hf u = (hf)((q + 127) << 23), half = (hf)((q + 126) << 23), reach = (hf)((q + 120) << 23);
    hf x = H * (hf)((127 - q) << 23);  /* |S| / u, below 2^12 */
    hf t = (x + TWO23) - TWO23;
    t = h_pickf(t > x, t - 1, t);  /* floor */
    hf R = H - t * u;
    hl borrow = (R == 0) & (L < 0);  /* the remainder borrows a unit */
    t = h_pickf(borrow, t - 1, t);
    R = h_pickf(borrow, u, R);
    hl k = (hl)(t + TWO23) & H_MANT;
    hl lsb = k & 1;
    hl inexact = (R != 0) | (L != 0);
    hl gt = (R > half) | ((R == half) & (L > 0));
    hl tie = (R == half) & (L == 0);
    hl guard = gt | tie;
    hl sticky = (h_pickf(guard, R - half, R) != 0) | (L != 0);
    hl near = ~tie & inexact & h_at_least(R, L, half - reach) & h_at_most(R, L, half + reach);
    hl kept = k + h_bit(gt | (tie & (lsb != 0)));
    hl carry = kept >> 11;
    kept >>= carry;
    e += carry;
    hl overflow = e > 15;
    hl s = (sign >> 16) & 0x8000;  /* the sign in f16 */
    hl normal_bits = s | ((e + 15) << 10) | (kept - 0x400);
    hl bits = h_pick(overflow, s | 0x7c00, h_pick(kept < 0x400, s | kept, normal_bits));
    hl flags = h_bit(tie) * FP_LANE_TIE | h_bit(near) * FP_LANE_NEAR | h_bit(guard) * FP_LANE_GUARD |
               h_bit(sticky) * FP_LANE_STICKY | lsb * FP_LANE_LSB | h_bit(tiny) * FP_LANE_TINY |
               h_bit(overflow) * FP_LANE_OVERFLOW | h_bit(inexact) * FP_LANE_INEXACT | h_bit(sign != 0) * FP_LANE_SIGN;
    return (h_rounded){bits, q, msb, flags};
}

/* round_to(S, &E, 24, -126, 127, NULL, nearest) of fast_fma_lanes.c where
 * S + E is TwoSum's exact sum of an f16 product and an f16 (S nonzero and
 * finite): S is the sum rounded to nearest f32 already, and E, with
 * |E| <= ulp(S) / 2, is what that rounding dropped.  There is no
 * truncation to make.  With L the error seen from |S| (E, its sign flipped
 * where S is negative) and u = 2^q the unit of the exact sum's binade
 * (leading_exp: one below S's where S is a power of two and L < 0), the
 * part of |S + E| under the unit, D, is L where L >= 0 and u + L where
 * L < 0, and L >= -u/2 either way (S is the nearest, ties to even, so a
 * sum below a power of two rounds up to it from no further than half the
 * unit below it).  Every test compares L with multiples of 2^(q-7),
 * exactly:
 * - tie: D = u/2, that is L = u/2, or L = -u/2;
 * - guard (D >= u/2): a tie, or any L < 0; sticky (D not a multiple of
 *   u/2): L neither 0 nor u/2 where L >= 0, L not -u/2 where L < 0;
 * - near: D within 2^(q-7) of u/2 and not a multiple of 2^(q-7) (at least
 *   8 bits dropped; the multiples in reach are u/2 and u/2 +- 2^(q-7)), so
 *   strictly between;
 * - the truncation's lowest bit: S's, flipped where L < 0 (the truncation
 *   is S less a unit there: at a power of two, all ones);
 * - no f32 of such a sum is tiny or overflows (2^-48 <= |S| < 2^34). */
LANES h_rounded report_f32(hf S, hf E)
{
    hl sign = (hl)S & H_SIGN;
    hf H = (hf)((hl)S & ~H_SIGN);
    hf L = (hf)((hl)E ^ sign);  /* E as seen from |S| */
    hl msb = leading_exp(H, L);
    hl q = msb - 23;
    hf half = (hf)((q + 126) << 23), reach = (hf)((q + 120) << 23);
    hl below = L < 0;
    hf edge = h_pickf(below, -half, half);  /* the L whose D is u/2 */
    hl tie = L == edge;
    hl inexact = L != 0;
    hl guard = below | tie;
    hl sticky = ~tie & inexact;  /* L < 0 is inexact */
    hf lo = h_pickf(below, edge, edge - reach), hi = h_pickf(below, edge + reach, edge);
    hl near = (L > lo) & (L < hi);
    hl lsb = ((hl)H & 1) ^ h_bit(below);
    hl flags = h_bit(tie) * FP_LANE_TIE | h_bit(near) * FP_LANE_NEAR | h_bit(guard) * FP_LANE_GUARD |
               h_bit(sticky) * FP_LANE_STICKY | lsb * FP_LANE_LSB | h_bit(inexact) * FP_LANE_INEXACT |
               h_bit(sign != 0) * FP_LANE_SIGN;
    return (h_rounded){(hl)S, q, msb, flags};
}

/* f32 bit patterns of f16 values as floats, with which are a subnormal
 * half (2^-24 up to 2^-14, not included: f32 exponent fields 103-112; the
 * double lanes leave that mark to their caller) and which a zero, an
 * infinity or a NaN. */
LANES hf h_load(const uint32_t *p, hl *subnormal, hl *special)
{
    hf f;
    hl w;
    memcpy(&f, p, sizeof f);
    memcpy(&w, p, sizeof w);
    hl e = (w >> 23) & 0xff, nonzero = (w & 0x7fffffff) != 0;
    *subnormal |= (e < 127 - 14) & nonzero;
    *special |= (e == 0xff) | ~nonzero;
    return f;
}

/* fp_fma_lane's fields from a lane's words, as store() in fast_fma_lanes.c packs them. */
_Static_assert(sizeof(fp_fma_lane) == 12 && offsetof(fp_fma_lane, ulp_exp) == 4 && offsetof(fp_fma_lane, msb) == 6 &&
                   offsetof(fp_fma_lane, big) == 8 && offsetof(fp_fma_lane, flags) == 10,
               "h_store packs fp_fma_lane's fields by their offsets");
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "h_store packs fields little-endian");
/* Three words a lane, interleaved by shuffles into three whole vectors
 * (two each: words 0 and 1, then word 2), where a lane at a time made GCC
 * spill the vectors and store word by word (a sixth of these lanes' time). */
#if HALF_N == 16
#define H_MIX0A 0, 16, 0, 1, 17, 1, 2, 18, 2, 3, 19, 3, 4, 20, 4, 5
#define H_MIX0B 0, 1, 16, 3, 4, 17, 6, 7, 18, 9, 10, 19, 12, 13, 20, 15
#define H_MIX1A 21, 5, 6, 22, 6, 7, 23, 7, 8, 24, 8, 9, 25, 9, 10, 26
#define H_MIX1B 0, 21, 2, 3, 22, 5, 6, 23, 8, 9, 24, 11, 12, 25, 14, 15
#define H_MIX2A 10, 11, 27, 11, 12, 28, 12, 13, 29, 13, 14, 30, 14, 15, 31, 15
#define H_MIX2B 26, 1, 2, 27, 4, 5, 28, 7, 8, 29, 10, 11, 30, 13, 14, 31
#elif HALF_N == 8
#define H_MIX0A 0, 8, 0, 1, 9, 1, 2, 10
#define H_MIX0B 0, 1, 8, 3, 4, 9, 6, 7
#define H_MIX1A 2, 3, 11, 3, 4, 12, 4, 5
#define H_MIX1B 10, 1, 2, 11, 4, 5, 12, 7
#define H_MIX2A 13, 5, 6, 14, 6, 7, 15, 7
#define H_MIX2B 0, 13, 2, 3, 14, 5, 6, 15
#else
#error "h_store has shuffle tables for 8 and 16 lanes only"
#endif
LANES void h_store(hl bits, hl q_msb, hl big_flags, fp_fma_lane *out)
{
    hl o0 = __builtin_shufflevector(__builtin_shufflevector(bits, q_msb, H_MIX0A), big_flags, H_MIX0B);
    hl o1 = __builtin_shufflevector(__builtin_shufflevector(bits, q_msb, H_MIX1A), big_flags, H_MIX1B);
    hl o2 = __builtin_shufflevector(__builtin_shufflevector(bits, q_msb, H_MIX2A), big_flags, H_MIX2B);
    char *p = (char *)out;
    memcpy(p, &o0, sizeof o0);
    memcpy(p + sizeof o0, &o1, sizeof o1);
    memcpy(p + 2 * sizeof o0, &o2, sizeof o2);
}

/* How a lane's sum is rounded (a constant of each use): to f16 through
 * f32, rounding to odd or to nearest there, or to f32 once. */
typedef enum { F16_VIA_ODD, F16_VIA_NEAREST, F32_ONCE } half_rounding;

/* HALF_N lanes: vector_to_half of fast_fma_lanes.c in float (to f16), or
 * vector_fused unscaled (F32_ONCE: every field as fp_fast_fma32_lanes
 * reports it).  A sum that is an exact zero (signed as the hardware's), an
 * infinity or a NaN (the default NaN `nan`) is not rounded; its lane rounds
 * 1 in its place, as there, so that its unit and leading-bit fields agree
 * too.  Every lane done: the f32 value of an f16 sum never overflows
 * (msb <= 127) and is zero only where the sum is. */
LANES void vector_halves(const uint32_t *a, const uint32_t *b, const uint32_t *c, half_rounding how, int32_t nan,
                         fp_fma_lane *out)
{
    hl sub = H_ALL(0), special = H_ALL(0);
    hf A = h_load(a, &sub, &special), B = h_load(b, &sub, &special), C = h_load(c, &sub, &special);
    hf P = A * B;
    hf S = P + C, bb = S - P;
    hf E = (P - (S - bb)) + (C - bb);  /* TwoSum */
    hl zero = S == 0, is_nan = S != S, is_inf = ((hl)S & ~H_SIGN) == 0x7f800000;
    hl other = zero | is_nan | is_inf;
    hf S1 = h_pickf(other, (hf){0} + 1.0f, S), E1 = h_pickf(other, (hf){0}, E);
    h_rounded r;
    if (how == F32_ONCE) {
        r = report_f32(S1, E1);
    } else if (how == F16_VIA_ODD) {
        r = round_f16(S1, E1);
    } else {
        /* S is the sum rounded to nearest f32, exactly; the leading bit
         * reported stays the exact sum's, as the odd path's. */
        r = round_f16(S1, (hf){0});
        r.msb = leading_exp((hf)((hl)S1 & ~H_SIGN), (hf)((hl)E1 ^ ((hl)S1 & H_SIGN)));
    }
    hl sign = (hl)S & H_SIGN, sign_flag = h_bit(sign != 0) * FP_LANE_SIGN;
    hl fsign = how == F32_ONCE ? sign : (sign >> 16) & 0x8000;  /* the sign in the result's format */
    int32_t inf = how == F32_ONCE ? 0x7f800000 : 0x7c00;
    hl bits = h_pick(zero, fsign, h_pick(is_inf, fsign | inf, h_pick(is_nan, H_ALL(nan), r.bits)));
    hl flags = h_pick(zero, H_ALL(FP_LANE_ZERO) | sign_flag | h_bit(P != 0) * FP_LANE_CANCELLED,
                      h_pick(is_inf, H_ALL(FP_LANE_INF) | sign_flag, h_pick(is_nan, H_ALL(FP_LANE_NAN), r.flags)));
    flags |= h_bit(sub) * FP_LANE_SUBNORMAL_SOURCE | h_bit(special) * FP_LANE_SPECIAL_SOURCE | FP_LANE_DONE;
    hl ep = h_dexp((hf)((hl)P & ~H_SIGN)), ec = h_dexp((hf)((hl)C & ~H_SIGN));
    hl big = h_pick(ec > ep, ec, ep);
    h_store(bits, (hl)((hu)(r.q & 0xffff) | (hu)r.msb << 16), (hl)((hu)(big & 0xffff) | (hu)flags << 16), out);
}

#define ENTRY LANES_ENTRY

/* n lanes, HALF_N at a time, the last ones padded with 1.0 to a whole vector. */
LANES void halves_loop(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, half_rounding how,
                       fp_fma_lane *out)
{
    int32_t nan = (int32_t)fp_default_nan(how == F32_ONCE ? &fp_f32 : &fp_f16);
    size_t i = 0;
    for (; i + HALF_N <= n; i += HALF_N)
        vector_halves(a + i, b + i, c + i, how, nan, out + i);
    if (i < n) {
        uint32_t pa[HALF_N], pb[HALF_N], pc[HALF_N];
        fp_fma_lane po[HALF_N];
        lanes_pad(a + i, b + i, c + i, n - i, HALF_N, pa, pb, pc);
        vector_halves(pa, pb, pc, how, nan, po);
        memcpy(out + i, po, (n - i) * sizeof *po);
    }
}

ENTRY void f16_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, bool odd, fp_fma_lane *out)
{
    if (odd)
        halves_loop(a, b, c, n, F16_VIA_ODD, out);
    else
        halves_loop(a, b, c, n, F16_VIA_NEAREST, out);
}

ENTRY void f32_of_halves_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, fp_fma_lane *out)
{
    halves_loop(a, b, c, n, F32_ONCE, out);
}

void LANES_API(fp_fast_fma16_lanes)(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, bool odd,
                                    fp_fma_lane *out)
{
    f16_lanes(a, b, c, n, odd, out);
}

void LANES_API(fp_fast_fma32_halves_lanes)(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n,
                                           fp_fma_lane *out)
{
    f32_of_halves_lanes(a, b, c, n, out);
}

#ifndef LANES_WIDE
void fp_fast_fma16_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, bool odd,
                         fp_fma_lane *out)
{
    LANES_PICK(fp_fast_fma16_lanes)(a, b, c, n, odd, out);
}

void fp_fast_fma32_halves_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, fp_fma_lane *out)
{
    LANES_PICK(fp_fast_fma32_halves_lanes)(a, b, c, n, out);
}
#endif
