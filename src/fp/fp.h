/* fp: an exact floating-point kit with no dependencies.
 *
 * Values are held exactly as sign * sig * 2^exp with a 128-bit integer
 * significand, so products of two doubles and sums of two operands of
 * nearby exponents are exact.  When an addition would need more than 128
 * bits, the bits that fall off are "jammed" into bit 0 (a sticky bit), which
 * keeps every later rounding correct because the rounding position is always
 * far above bit 0.  Everything that says "exact" in tiefuzz goes through this
 * file: host evaluation, tie construction and class verification.
 */
#ifndef TIEFUZZ_FP_H
#define TIEFUZZ_FP_H

#include <stdbool.h>
#include <stdint.h>

typedef unsigned __int128 fp_u128;

/* An IEEE-style binary format: precision counts the hidden bit. */
typedef struct fp_format {
    const char *name;
    unsigned bits;       /* total width */
    unsigned exp_bits;
    unsigned precision;  /* significand bits including the hidden one */
    int emin, emax;      /* unbiased exponent range of normal numbers */
    int bias;
    bool finite_top;     /* no infinity: the all-ones exponent holds numbers, and only all-ones bits are NaN */
} fp_format;

extern const fp_format fp_f16, fp_bf16, fp_f32, fp_f64;
/* The small formats of tensor-core operands and results: tf32 (the top 19
 * bits of an f32 word), e4m3 (OCP E4M3FN: finite_top, largest 448), e5m2,
 * and e8m13 (f32's exponent with a 14-bit significand, an MMA output
 * rounding).  Decoded and classified here; nothing rounds to e4m3. */
extern const fp_format fp_tf32, fp_e4m3, fp_e5m2, fp_e8m13;

typedef enum { FPK_ZERO, FPK_FINITE, FPK_INF, FPK_NAN } fp_kind;

typedef struct fp_value {
    fp_kind kind;
    bool sign;
    bool jammed;   /* bit 0 of sig also stands for nonzero bits below it */
    bool snan;     /* for NaN: signalling */
    int exp;
    fp_u128 sig;   /* FPK_FINITE: nonzero */
} fp_value;

typedef enum { FP_RNE, FP_RTZ, FP_RTO } fp_rounding;

/* Where the exact value sits on the destination grid. */
typedef enum {
    FP_EXACT,      /* representable */
    FP_BELOW_TIE,  /* inexact, less than half a unit above the lower neighbour */
    FP_TIE,        /* exactly halfway */
    FP_ABOVE_TIE   /* inexact, more than half a unit */
} fp_position;
/* fp_round counts a position up from below the tie (round.c). */
_Static_assert(FP_TIE == FP_BELOW_TIE + 1 && FP_ABOVE_TIE == FP_TIE + 1, "positions in order");

typedef struct fp_round_info {
    fp_position position;
    bool guard, sticky, lsb;   /* lsb: last kept bit before rounding */
    bool tiny;                 /* exact magnitude below the smallest normal */
    bool overflow;             /* rounded magnitude past the largest finite */
    bool rounded_up;           /* magnitude increased by rounding */
    int ulp_exp;               /* weight 2^ulp_exp of the last kept bit */
    int shift;                 /* number of bits dropped (0 when exact fits) */
    fp_u128 rem;               /* the dropped bits (when shift <= 127) */
} fp_round_info;

/* Decoding and constructing. */
fp_value fp_decode(const fp_format *f, uint64_t bits);
fp_value fp_from_int(bool sign, fp_u128 sig, int exp);   /* sig may be 0 */
fp_value fp_zero(bool sign);
fp_value fp_inf(bool sign);
fp_value fp_nan(void);
uint64_t fp_default_nan(const fp_format *f);
bool fp_is_nan_bits(const fp_format *f, uint64_t bits);
bool fp_is_subnormal_bits(const fp_format *f, uint64_t bits);
bool fp_is_inf_bits(const fp_format *f, uint64_t bits);   /* either sign; never in a finite_top format */
bool fp_is_zero_bits(const fp_format *f, uint64_t bits);  /* either sign */
uint64_t fp_flush_bits(const fp_format *f, uint64_t bits);  /* subnormal -> signed zero */

/* Exact arithmetic (IEEE special-value rules; exact zero sums are +0). */
fp_value fp_neg(fp_value a);
fp_value fp_abs(fp_value a);
fp_value fp_mul(fp_value a, fp_value b);
fp_value fp_add(fp_value a, fp_value b);
fp_value fp_sub(fp_value a, fp_value b);
fp_value fp_scale(fp_value a, int k);     /* a * 2^k, exact */
int fp_compare_mag(fp_value a, fp_value b); /* finite or zero only: -1, 0, 1 */
static inline int fp_bit_length(fp_u128 x)
{
    uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;
    return hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
}
static inline int fp_trailing_zeros(fp_u128 x)
{
    uint64_t lo = (uint64_t)x;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(x >> 64));
}
/* Exponent of the leading / lowest set bit of a finite value. */
static inline int fp_msb(fp_value a) { return a.exp + fp_bit_length(a.sig) - 1; }
static inline int fp_lsb(fp_value a) { return a.exp + fp_trailing_zeros(a.sig); }

/* Round an exact value to a format.  info may be NULL. */
uint64_t fp_round(const fp_format *f, fp_value v, fp_rounding mode, fp_round_info *info);
/* The end of a rounding, shared by fp_round and fused.c: kept (the bits
 * kept at exponent e's last place, rounding applied) carried into a new
 * binade where it reached 2^precision, then encoded; past the largest
 * finite (*overflow), infinity to nearest, else the largest finite. */
uint64_t fp_encode_kept(const fp_format *f, bool sign, int e, uint64_t kept, fp_rounding mode, bool *overflow);
/* fp_round(f, a*b + c, mode): the same bits, in 64-bit words where they are exact (fused.c). */
uint64_t fp_fused_round(const fp_format *f, fp_value a, fp_value b, fp_value c, fp_rounding mode);
/* True when v is exactly representable in f (zero, inf and NaN count). */
bool fp_representable(const fp_format *f, fp_value v);

/* Text. Writes into buf (size n) and returns buf. */
char *fp_value_hexfloat(fp_value v, char *buf, unsigned n);
char *fp_value_powers(fp_value v, char *buf, unsigned n);
const char *fp_position_name(fp_position p);
const char *fp_rounding_name(fp_rounding r);

/* Host floating-point environment: returns NULL when it is as tiefuzz needs
 * it (round to nearest, no flush-to-zero, no denormals-are-zero), else a
 * message saying what is wrong. */
const char *fp_check_host_environment(void);

#endif
