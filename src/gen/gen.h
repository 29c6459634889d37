/* gen: case-generation primitives shared by every family: the per-case
 * random generator, the generator classes, and the constructors that place
 * an exact sum on a chosen spot of a destination grid. */
#ifndef TIEFUZZ_GEN_H
#define TIEFUZZ_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../fp/fp.h"

typedef enum {
    GEN_TIE, GEN_NEAR_TIE, GEN_DOUBLE_ROUND, GEN_SUBNORMAL, GEN_OVERFLOW, GEN_CANCEL,
    GEN_SPECIAL, GEN_RANDOM,
    /* integer classes */
    GEN_CARRY, GEN_SIGN, GEN_MERGE, GEN_ZERO_HALF,
    /* tile classes */
    GEN_E_ZERO, GEN_TRUNCATION,
    GEN_CLASS_COUNT
} gen_class;

/* The floating-point and the integer class sets (bit per gen_class). */
#define GEN_FLOAT_CLASSES 0xffu
#define GEN_INT_CLASSES ((1u << GEN_RANDOM) | (1u << GEN_CARRY) | (1u << GEN_SIGN) | (1u << GEN_MERGE) | (1u << GEN_ZERO_HALF))

const char *gen_class_name(gen_class c);
int gen_class_parse(const char *s);  /* -1 when unknown */
/* A class list holds at most this many entries ("all" counts GEN_CLASS_COUNT). */
#define GEN_CLASS_LIST_MAX 64
/* Parse "tie,near-tie" into out (GEN_CLASS_LIST_MAX entries); returns the
 * count, or -1 with the name that is not a class copied into bad (an empty
 * or over-long name too), or -2 when the list is longer than the maximum. */
int gen_class_list_parse(const char *s, gen_class *out, char *bad, size_t badn);
/* The least p <= max with c[i] == c[i - p] for every i >= p, or 0 where
 * there is none or the block is too short to say (2p > n): a campaign's
 * classes cycle with the case index, so its blocks have the period of its
 * class list, and a family may treat every p-th case alike. */
size_t gen_class_period(const gen_class *c, size_t n, size_t max);

/* splitmix64: tiny, fast, and seedable per case so that the same seed gives
 * the same cases whatever the batch size. */
typedef struct { uint64_t s; } gen_rng;
static inline uint64_t gen_next(gen_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
/* The draw `ahead` steps on (1: the next) without taking it, and taking n
 * draws at once: to make draws that depend on a coin without branching on
 * it (draw both, then step by how many were taken). */
static inline uint64_t gen_peek(const gen_rng *r, unsigned ahead)
{
    gen_rng t = {r->s + (ahead - 1) * 0x9e3779b97f4a7c15ull};
    return gen_next(&t);
}
static inline void gen_skip(gen_rng *r, unsigned n) { r->s += n * 0x9e3779b97f4a7c15ull; }
/* Streams r[0..n) each take their next `per` draws, as gen_next takes
 * them, into w[i * per ..] as 32-bit words (the draws' low halves). */
void gen_draw_words(gen_rng *r, size_t n, unsigned per, uint32_t *w);
/* The same for the streams r[at[0..m)], into w[at[j] * per ..]: up to
 * GEN_DRAW_AT_MAX words a case in vectors, more a stream at a time. */
#define GEN_DRAW_AT_MAX 8
void gen_draw_words_at(gen_rng *r, const uint32_t *at, size_t m, unsigned per, uint32_t *w);
/* The next k draws of streams r[at[0..m)] without taking them: draw q
 * (gen_peek's q + 1) of stream at[j] into d[q * m + j], in vectors.  For
 * designs that take a varying number of a case's draws (they step each
 * stream with gen_skip after). */
void gen_peek_draws(const gen_rng *r, const uint32_t *at, size_t m, unsigned k, uint64_t *d);
/* gen_below and gen_coin of a draw already made. */
static inline uint32_t gen_below_of(uint64_t draw, uint32_t n) { return (uint32_t)((draw >> 32) * n >> 32); }
static inline uint32_t gen_coin_of(uint64_t draw) { return (uint32_t)(draw >> 63); }
static inline gen_rng gen_rng_for(uint64_t seed, uint64_t stream, uint64_t index)
{
    gen_rng r = {seed ^ (stream * 0xd1b54a32d192ed03ull)};
    r.s ^= gen_next(&r) + index * 0x9e3779b97f4a7c15ull;
    gen_next(&r);
    return r;
}
/* gen_rng_for of indexes first .. first + n - 1, into r[0..n), in vectors. */
void gen_rngs_for(uint64_t seed, uint64_t stream, uint64_t first, size_t n, gen_rng *r);
static inline uint32_t gen_below(gen_rng *r, uint32_t n) { return gen_below_of(gen_next(r), n); }
static inline int gen_range(gen_rng *r, int lo, int hi) { return lo + (int)gen_below(r, (uint32_t)(hi - lo + 1)); }
static inline bool gen_coin(gen_rng *r) { return gen_next(r) >> 63; }

/* A random finite value of f whose leading bit has exponent e (normal
 * range), with trailing_zeros low significand bits cleared. */
uint64_t gen_value_with_exp(const fp_format *f, gen_rng *r, bool sign, int e, int trailing_zeros);
/* The same value with its lowest kept bit set: its lowest bit is exactly
 * the one the trailing zeros leave (the same draws). */
uint64_t gen_value_with_lowest(const fp_format *f, gen_rng *r, bool sign, int e, int trailing_zeros);
/* A special operand: signed zeros, infinities, quiet and signalling NaNs
 * with random payloads, the largest finite, the smallest normal and
 * subnormal, one. */
uint64_t gen_special(const fp_format *f, gen_rng *r);
/* The same from drawn fields: kind below GEN_SPECIAL_KINDS (0 zero,
 * 1 infinity, 2 quiet NaN, 3 signalling NaN, then the finite ones from
 * GEN_SPECIAL_KIND_FINITE: gen_is_special holds exactly below it), the
 * payload from payload's low bits. */
#define GEN_SPECIAL_KINDS 9
#define GEN_SPECIAL_KIND_FINITE 4
uint64_t gen_special_kind(const fp_format *f, bool sign, uint64_t payload, unsigned kind);
/* Whether bits are a zero, an infinity or a NaN of f. */
bool gen_is_special(const fp_format *f, uint64_t bits);
/* A subnormal, or a normal within two binades of the smallest normal. */
uint64_t gen_near_subnormal(const fp_format *f, gen_rng *r);

/* The addend constructor: given an exact x, find y representable in fy such
 * that x + y lands where `target` says on the grid of destination fd.
 * Returns false when this attempt cannot be made representable (the caller
 * draws again). */
typedef enum {
    AIM_TIE,         /* exactly halfway */
    AIM_NEAR_TIE,    /* a few units of x's lowest bit off a tie, either side */
    AIM_SUBNORMAL,   /* a tie or near tie among the subnormals of fd (near: where y's grid holds one) */
    AIM_OVERFLOW,    /* the top binade, or the midpoint to infinity */
    AIM_CANCEL       /* massive cancellation or exact zero */
} gen_aim;

/* Whether y of format fy can take a sum to a near tie on fd's subnormal
 * grid: its offset lies at least nine places below half a unit there, so
 * y's grid must reach that far (an f32 y for an f16 result; never y as
 * fine as the result, whose bits below the unit come from x alone). */
bool gen_subnormal_near_fits(const fp_format *fy, const fp_format *fd);
bool gen_addend(fp_value x, const fp_format *fy, const fp_format *fd, gen_aim target, gen_rng *r,
                uint64_t *y_bits);
/* The same for an x held as a double (a product of two f32 or f16 values,
 * say); x zero or not finite: false, as for gen_addend. */
bool gen_addend_double(double x, const fp_format *fy, const fp_format *fd, gen_aim target, gen_rng *r,
                       uint64_t *y_bits);
/* The encoding in f (precision at most 53) of a finite double y, when f holds
 * y exactly (as fp_round of a representable value gives it; a zero keeps
 * its sign); false when it does not. */
bool gen_double_bits(const fp_format *f, double y, uint64_t *bits);
/* The unit (lowest place) of fd's grid in the binade of 2^m (the subnormal
 * grid's below emin). */
static inline int gen_unit_exp(const fp_format *fd, int m)
{
    return (m < fd->emin ? fd->emin : m) - (int)fd->precision + 1;
}
/* The same, by the exact kit alone: gen_addend gives the same y, result and
 * draws (addend_fast.c computes in double and falls back to this). */
bool gen_addend_exact(fp_value x, const fp_format *fy, const fp_format *fd, gen_aim target, gen_rng *r,
                      uint64_t *y_bits);

#endif
