/* fp/fast: binary16 helpers in hardware arithmetic, for the families' fast
 * paths.  Each is exact (see doc/fast-host.md) and agrees bit for bit with
 * the kit: NaN results are the kit's default NaN (0x7e00). */
#ifndef TIEFUZZ_FP_FAST_H
#define TIEFUZZ_FP_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "fp.h"

/* Bit patterns of doubles and floats, and exact powers of two. */
static inline uint64_t fp_dbits(double x)
{
    uint64_t b;
    memcpy(&b, &x, 8);
    return b;
}
static inline double fp_dfrom(uint64_t b)
{
    double x;
    memcpy(&x, &b, 8);
    return x;
}
static inline uint32_t fp_fbits(float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    return b;
}
static inline float fp_ffrom(uint32_t b)
{
    float x;
    memcpy(&x, &b, 4);
    return x;
}
static inline double fp_pow2(int k) { return fp_dfrom((uint64_t)(k + 1023) << 52); }  /* |k| <= 1022 */
static inline double fp_dabs(double x) { return fp_dfrom(fp_dbits(x) & ~(1ull << 63)); }
/* Exponent and lowest set bit of a normal, nonzero double. */
static inline int fp_dexp(double x) { return (int)((fp_dbits(x) >> 52) & 0x7ff) - 1023; }
static inline int fp_dlsb(double x)
{
    return fp_dexp(x) - 52 + __builtin_ctzll((fp_dbits(x) & ((1ull << 52) - 1)) | (1ull << 52));
}

/* |x| (nonnegative) with the bits below 2^u cleared; |x| / 2^u below 2^64. */
static inline double fp_dfloor_to(double ax, int u)
{
    if (fp_dlsb(ax) >= u)
        return ax;
    return (double)(uint64_t)(ax * fp_pow2(-u)) * fp_pow2(u);
}

/* An f32 as double (exact), by integer operations: converting a subnormal
 * float costs x86 a microcode assist (about a hundred cycles). */
static inline double fp_fast_f32_to_double(uint32_t b)
{
    uint32_t e = (b >> 23) & 0xff, m = b & 0x7fffff;
    uint64_t sign = (uint64_t)(b >> 31) << 63;
    if (e == 0)
        return fp_dfrom(sign | fp_dbits((double)m * 0x1p-149));
    if (e == 255)
        return fp_dfrom(sign | 0x7ff0000000000000ull | (uint64_t)m << 29);
    return fp_dfrom(sign | (uint64_t)(e - 127 + 1023) << 52 | (uint64_t)m << 29);
}

/* A double as the kit holds it. */
static inline fp_value fp_from_double(double x) { return fp_decode(&fp_f64, fp_dbits(x)); }

/* An f16 as f32 (exact; an f16 subnormal is an f32 normal), by integer
 * operations: converting subnormal floats costs x86 a microcode assist. */
float fp_fast_f16_to_f32(uint32_t h);
/* An f32 to f16, to nearest even (an f32 subnormal is far below f16's
 * range: a signed zero). */
uint32_t fp_fast_f32_to_f16(uint32_t bits);
/* round_f16(a*b + c) once, to nearest even: the product is exact in f32,
 * TwoSum gives the sum's error, and the sum rounded to odd carries it to the
 * last rounding (which is then the single correct one). */
uint32_t fp_fast_fma16(uint32_t a, uint32_t b, uint32_t c);
/* The same for n triples, eight at a time with AVX2 and F16C where the CPU
 * has them (chosen at run time). */
void fp_fast_fma16_array(const uint16_t *a, const uint16_t *b, const uint16_t *c, uint16_t *r, size_t n);
/* The exact a*b + c of doubles holding f32 or f16 values (the product is
 * exact: 48 bits), rounded to odd at double precision: 53 >= 24 + 2 and
 * 11 + 2 bits, so a later rounding to f32 or f16 is the single correct one. */
/* The rounding error of s = a + b (TwoSum): a + b == s + the error exactly,
 * where s is finite. */
static inline double fp_sum_error(double a, double b, double s)
{
    double bb = s - a;
    return (a - (s - bb)) + (b - bb);
}

static inline double fp_fast_sum_to_odd(double a, double b, double c)
{
    double p = a * b, s = p + c;
    if (s == 0 || !__builtin_isfinite(s))
        return s;  /* a zero sum is exact */
    double e = fp_sum_error(p, c, s);
    uint64_t sb = fp_dbits(s);
    if (e != 0 && !(sb & 1))
        sb += ((fp_dbits(e) ^ sb) >> 63) ? -1ull : 1ull;  /* toward the error: odd */
    return fp_dfrom(sb);
}

/* round_f16(a*b + c) for n triples of f32 bit patterns (the MIX forms' f16
 * result): once (through f32 rounded to odd), or to nearest f32 first and
 * then f16 (twice).  NaN results are the kit's default NaN (0x7e00). */
void fp_fast_mix16_array(const uint32_t *a, const uint32_t *b, const uint32_t *c, uint16_t *r, size_t n, bool once);

/* n f16 (low 16 bits) to f32 bit patterns, exact (F16C where present). */
void fp_fast_f16_to_f32_array(const uint16_t *h, uint32_t *f, size_t n);
/* round_f32(a*b + c) once for n triples of f32 bit patterns (the FMA
 * instruction eight lanes at a time where present); NaN results are the
 * kit's default NaN (0x7fc00000). */
void fp_fast_fma32_array(const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *r, size_t n);

/* round_f32(a*b + c) once, with what the kit's fp_round reports about that
 * rounding (fp_fast_fma32_lanes: every lane; the half lanes: every lane
 * but one whose finite sum's f32 value overflows or is zero; the legacy
 * lanes: the common lane only, normal sources and a nonzero sum).  Besides the
 * rounding's own flags: a lane with a subnormal f32 source (a half widened
 * to f32 is a normal f32 there: the caller marks its subnormal halves), one with a zero,
 * infinite or NaN source; a sum that is an exact zero (its sign in
 * FP_LANE_SIGN; FP_LANE_CANCELLED when the product was not zero), an
 * infinity (signed) or a NaN (the kit's default NaN), none of them
 * rounded.  A lane without FP_LANE_DONE is not computed. */
enum {
    FP_LANE_DONE = 1, FP_LANE_TIE = 2, FP_LANE_NEAR = 4, FP_LANE_GUARD = 8, FP_LANE_STICKY = 16,
    FP_LANE_LSB = 32, FP_LANE_TINY = 64, FP_LANE_OVERFLOW = 128, FP_LANE_INEXACT = 256,
    FP_LANE_SIGN = 512,  /* of the exact sum */
    FP_LANE_ZERO = 1024, FP_LANE_SUBNORMAL_SOURCE = 2048, FP_LANE_SPECIAL_SOURCE = 4096, FP_LANE_INF = 8192,
    FP_LANE_NAN = 16384, FP_LANE_CANCELLED = 32768
};
typedef struct {
    uint32_t bits;     /* the rounded result (f32, or f16 for the half lanes) */
    int16_t ulp_exp;   /* exponent of the unit rounded to */
    int16_t msb;       /* exponent of the exact sum's leading bit */
    int16_t big;       /* the larger of the product's and c's leading-bit exponents */
    uint16_t flags;    /* FP_LANE_* */
} fp_fma_lane;
void fp_fast_fma32_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, fp_fma_lane *out);
/* The same of (a*b + c) * 2^k[i], the exact sum scaled before its one
 * rounding (|k| <= 64; msb and big of the scaled values; the source flags
 * of a, b and c as they are). */
void fp_fast_fma32_scaled_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, const int32_t *k, size_t n,
                                fp_fma_lane *out);
/* round_f16(round_f32(a*b + c)), the f32 rounding to odd (one correct
 * rounding to f16 in effect) or to nearest; the f16 rounding is reported
 * (msb and big: the exact sum's).  a, b, c: f32 bit patterns (halves
 * widened exactly); a lane is done unless its sum is finite and nonzero
 * and its f32 value overflows or is zero. */
void fp_fast_fma_half_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, bool odd,
                            fp_fma_lane *out);
/* The same where a, b and c are f16 values (their f32 bit patterns), in
 * lanes of float, twice as many a vector: every lane done, every field as
 * fp_fast_fma_half_lanes reports it, and a lane with a subnormal half
 * marked FP_LANE_SUBNORMAL_SOURCE here. */
void fp_fast_fma16_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, bool odd,
                         fp_fma_lane *out);
/* round_f32(a*b + c) where a, b and c are f16 values (their f32 bit
 * patterns), in lanes of float: every field as fp_fast_fma32_lanes reports
 * it, every lane done, and a lane with a subnormal half marked
 * FP_LANE_SUBNORMAL_SOURCE here. */
void fp_fast_fma32_halves_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, fp_fma_lane *out);
/* The legacy multiply-add: round_f32(flush(round_f32(a*b)) + c) of the
 * flushed sources, both roundings reported (an exact zero, infinite or NaN
 * product or sum unrounded, as vector_fused reports its sum), every lane
 * done.  The product's msb and big are not meaningful; the sum's big is the
 * exact product's and c's. */
void fp_fast_mad32_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, fp_fma_lane *product,
                         fp_fma_lane *sum);

/* Whether round_f32(round_f32(a*b) + c) is a tie (the kit's tie flag of
 * the second rounding; the product rounded to nearest f32, subnormals
 * kept), as tie[i] 1 or 0, for n triples of f32 bit patterns: the
 * double-round test's other rounding, without the rest of its report.
 * k, where not NULL: a*b and c each scaled by 2^k[i] first (|k| <= 64:
 * exact), as fp_fast_fma32_scaled_lanes scales the sum. */
void fp_fast_product_sum_tie_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, const int32_t *k, size_t n,
                                   uint8_t *tie);

/* The double-round test of a fused f32 multiply-add, whole: yes[i] 1 where
 * round_f32(round_f32(a*b) + c) is a tie and round_f32(a*b + c) is not
 * (the two ties as fp_fast_product_sum_tie_lanes and fp_fast_fma32_lanes
 * report them), else 0, for n triples of f32 bit patterns. */
void fp_fast_double_round_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, uint8_t *yes);

/* Whether the host runs the lane calls' wide build (fp/lanes.h: eight
 * lanes, x86-64-v4): where it has AVX-512, unless the environment's
 * TIEFUZZ_LANES is "narrow".  The calls above choose by it; each one's two
 * builds: */
bool fp_lanes_wide(void);
void fp_fast_fma32_lanes_narrow(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, fp_fma_lane *out);
void fp_fast_fma32_lanes_wide(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, fp_fma_lane *out);
void fp_fast_fma32_scaled_lanes_narrow(const uint32_t *a, const uint32_t *b, const uint32_t *c, const int32_t *k,
                                       size_t n, fp_fma_lane *out);
void fp_fast_fma32_scaled_lanes_wide(const uint32_t *a, const uint32_t *b, const uint32_t *c, const int32_t *k,
                                     size_t n, fp_fma_lane *out);
void fp_fast_fma_half_lanes_narrow(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, bool odd,
                                   fp_fma_lane *out);
void fp_fast_fma_half_lanes_wide(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, bool odd,
                                 fp_fma_lane *out);
void fp_fast_fma16_lanes_narrow(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, bool odd,
                                fp_fma_lane *out);
void fp_fast_fma16_lanes_wide(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, bool odd,
                              fp_fma_lane *out);
void fp_fast_fma32_halves_lanes_narrow(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n,
                                       fp_fma_lane *out);
void fp_fast_fma32_halves_lanes_wide(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n,
                                     fp_fma_lane *out);
void fp_fast_mad32_lanes_narrow(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n,
                                fp_fma_lane *product, fp_fma_lane *sum);
void fp_fast_mad32_lanes_wide(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, fp_fma_lane *product,
                              fp_fma_lane *sum);
void fp_fast_double_round_lanes_narrow(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n,
                                       uint8_t *yes);
void fp_fast_double_round_lanes_wide(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n, uint8_t *yes);
void fp_fast_product_sum_tie_lanes_narrow(const uint32_t *a, const uint32_t *b, const uint32_t *c,
                                          const int32_t *k, size_t n, uint8_t *tie);
void fp_fast_product_sum_tie_lanes_wide(const uint32_t *a, const uint32_t *b, const uint32_t *c, const int32_t *k,
                                        size_t n, uint8_t *tie);

/* The lanes a fast step leaves to a slower one (fp/marked_lanes.c): of the
 * first m lanes, those whose byte in mark is 1 (the others 0; no other
 * value: the two paths read it differently), packed in
 * order from each array from[i] (i < width) into to[i], which holds
 * m + FP_MARKED_SLACK words; returns how many (AVX-512 up to four
 * arrays, more go a lane at a time).  fp_unpack_marked puts
 * the packed results in from back where their lanes came from in to,
 * leaving the unmarked lanes as they are. */
#define FP_MARKED_SLACK 16
size_t fp_pack_marked(const uint8_t *mark, size_t m, size_t width, const uint32_t *const *from, uint32_t *const *to);
void fp_unpack_marked(const uint8_t *mark, size_t m, const uint32_t *from, uint32_t *to);

#endif
