/* The RDNA 2 multiply-add family: what its table rows mean.  See
 * rdna2_table.c for the rows, rdna2_eval.c for the host model,
 * rdna2_lower.c for the translations and rdna2_construct.c for the cases. */
#ifndef TIEFUZZ_RDNA2_H
#define TIEFUZZ_RDNA2_H

#include "isa.h"
#include "../fp/fast.h"

typedef enum {
    RDNA2_FMA32,    /* fused f32: round_f32(a*b + c) */
    RDNA2_DIV_FMAS, /* fused f32, scaled when VCC (input word 3) */
    RDNA2_MAD32,    /* legacy unfused f32 with flushing */
    RDNA2_MIX32,    /* mixed f16/f32 sources, fused to f32 */
    RDNA2_MIX16,    /* mixed sources to an f16 half of D */
    RDNA2_FMA16,    /* halves, fused to f16, one half of D */
    RDNA2_PK16,     /* two f16 lanes, each fused */
    RDNA2_FMA64     /* listed, not translated */
} rdna2_form;

/* Row src[] entries: an input word index, or the literal K. */
#define RDNA2_SRC_K 9

/* Row flags. */
#define RDNA2_DST_HI 1  /* MIXHI: the result goes to bits 31:16 */

/* The table's rows: NULL past the last. */
const isa_op *rdna2_op_at(unsigned i);
extern const isa_family_impl rdna2_impl;

/* Shared between the model, the lowering and the constructors. */
uint32_t rdna2_source_word(const isa_instance *in, const uint32_t *words, int i);
/* abs then neg on a value's sign bit. */
static inline uint32_t rdna2_sign_mods(uint32_t bits, uint32_t sign_bit, bool abs, bool neg)
{
    if (abs)
        bits &= ~sign_bit;
    if (neg)
        bits ^= sign_bit;
    return bits;
}
/* The same for the three sources as masks (abs and neg: a bit a source),
 * read once for many values: (bits & keep[i]) ^ flip[i]. */
static inline void rdna2_sign_masks(uint32_t sign_bit, uint32_t abs, uint32_t neg, uint32_t keep[3], uint32_t flip[3])
{
    for (int i = 0; i < 3; i++) {
        keep[i] = (abs >> i) & 1 ? ~sign_bit : ~0u;
        flip[i] = (neg >> i) & 1 ? sign_bit : 0;
    }
}
/* A half into the low or high half of d, the other kept. */
static inline uint32_t rdna2_put_half(uint32_t d, uint32_t h, bool hi)
{
    return hi ? (d & 0xffffu) | (h << 16) : (d & 0xffff0000u) | h;
}
/* The clamp modifier on a rounded result: NaN and negatives to +0, above one to one. */
uint64_t rdna2_clamp(const isa_instance *in, const fp_format *f, uint64_t r);
bool rdna2_mix_all_half(const isa_instance *in);
bool rdna2_mix_rounds_once(const isa_instance *in);
uint32_t rdna2_pk_hi_select(const isa_instance *in);
int rdna2_div_fmas_scale(const isa_instance *in, uint32_t s2_bits);

void rdna2_eval(const isa_instance *in, const uint32_t *words, uint32_t *out, isa_trace *trace);
const char *rdna2_lower(const isa_instance *in, isa_lowering l, struct spv_builder *b, const unsigned *in_ids,
                        unsigned *out_ids);
/* The fast twin of rdna2_eval (rdna2_fast.c): outputs and verdict from hardware arithmetic. */
void rdna2_fast(const isa_instance *in, const uint32_t *words, uint32_t *out, isa_verdict *v, uint32_t want);
void rdna2_fast_batch(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out);
void rdna2_fast_verdicts(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out, isa_verdict *v,
                         const uint32_t *want);
bool rdna2_construct(const isa_instance *in, gen_class c, gen_rng *rng, uint32_t *words);
void rdna2_construct_many(const isa_instance *in, const gen_class *c, gen_rng *rng, size_t n, uint32_t *words,
                          bool *reachable);
/* Lowest exponent a product of a and b may have its top at for every bit of
 * it to be on c's grid (tie designs aim no lower). */
int rdna2_product_floor(const fp_format *a, const fp_format *b, const fp_format *c, const fp_format *dest);
/* One lane of a case's design: a*b + c with a, b, c in these formats (after
 * modifiers) and the result in dest. */
typedef struct {
    const fp_format *fmt[3];
    const fp_format *dest;
    bool unfused;        /* the product rounds to f32 (and flushes) before the sum */
    bool rounds_twice;   /* the sum rounds to f32 before the result's own rounding (a MIX f16 form's record) */
    int fixed;           /* the operand the literal K holds, or -1 */
    uint64_t fixed_bits;
    int forced_sign[3];  /* -1 free, else the sign abs and neg leave */
    uint32_t closed;     /* the classes rdna2_closed_covers takes here (rdna2_closed_mask) */
    uint32_t feasible;   /* the classes this lane can reach at all (rdna2_construct.c's feasible) */
} rdna2_lane;
/* The lowest binade in [lo, hi] a near tie's product is drawn from (rdna2_construct.c). */
int rdna2_near_tie_floor(const rdna2_lane *s, int lo, int hi);
/* Where abs forces c's sign and v[2] has the other: -(a*b + c) has the same
 * rounding shape, so c and a free factor are negated. */
void rdna2_respect_forced_signs(const rdna2_lane *s, uint64_t v[3]);
/* Where abs fixes all three signs: +1 where c has the product's sign, -1
 * where it has the other; 0 where a sign is free. */
int rdna2_forced_side(const rdna2_lane *s);
/* Closed-form designs (rdna2_closed.c) for the classes tie, near-tie,
 * cancel, overflow and double-round to f32: lanes whose sources
 * and result are f32 or f16 in any mix (fused; or all f32 unfused, the
 * legacy forms), with no literal or a finite normal K as b; and f32 lanes
 * with a finite normal K as c, or a subnormal one where it is not flushed
 * (a design of its own).  v[]: the three
 * values after modifiers.  False when eight attempts fail.
 * rdna2_closed_mask: the classes rdna2_closed_covers takes, for .closed. */
bool rdna2_closed_covers(const rdna2_lane *s, gen_class c);
uint32_t rdna2_closed_mask(const rdna2_lane *s);
bool rdna2_closed_design(const rdna2_lane *s, gen_class c, gen_rng *r, uint64_t v[3]);
/* The binades [lo, hi] a closed design draws the product's top from (the
 * class's range clipped to the products the factors, or a and K, can make;
 * K as b's overflow class under a K too small for the top binades: the
 * largest products a and K make); false where none is left. */
bool rdna2_closed_target_range(const rdna2_lane *s, gen_class c, int *lo, int *hi);
/* That range, [lo, hi], made the range of the tie shapes that cancel the
 * product's head (rdna2_closed.c's tie_value, shapes 0-2): another where c
 * is narrow. */
void rdna2_closed_head_range(const rdna2_lane *s, gen_class c, int *lo, int *hi);
/* The lanes and classes the vector twin takes (below): all of those
 * in s->closed (f32 and f16 in any mix) with no literal, and with K as b
 * or as c where the lane is f32 throughout. */
bool rdna2_closed_lanes_cover(const rdna2_lane *s, gen_class c);
/* rdna2_closed_design for n cases at once (rdna2_closed_lanes.c), on a lane
 * rdna2_closed_lanes_cover takes: case k draws from rng[which[k]] and writes
 * v[k] and ok[k]; the same values and draws as rdna2_closed_design on each
 * where ok[k] (where not, v[k] is a failed attempt's, for the caller to
 * replace). */
void rdna2_closed_lanes(const rdna2_lane *s, gen_class c, gen_rng *rng, const uint32_t *which, size_t n,
                        uint64_t (*v)[3], bool *ok);
/* The special class's design (rdna2_construct.c's design_special) for n
 * cases at once (rdna2_special_lanes.c), where the lane's sources and result are f32 or f16 in any
 * mix (a literal K only where they share f32; tie_lo, tie_hi: class_target's
 * range for the tie class, whose halves stay normal in every source's format,
 * clamped to an f16 source's top as gen_value_with_exp clamps them): the same
 * values and draws, before the forced signs are respected. */
bool rdna2_special_lanes_cover(const rdna2_lane *s, int tie_lo);
void rdna2_special_lanes(const rdna2_lane *s, int tie_lo, int tie_hi, gen_rng *rng, const uint32_t *which, size_t n,
                         uint64_t (*v)[3]);

/* The subnormal class's grid design (rdna2_construct.c's
 * design_subnormal_grid) for n cases at once (rdna2_subnormal_lanes.c), lanes of sources and result
 * all f32 or all f16 (fmt) with no literal, whose design drew the coin for
 * it: case k draws from rng[which[k]] and writes v[k] and ok[k], the same
 * values and draws as the scalar design, one attempt each. */
void rdna2_subnormal_grid_lanes(const fp_format *fmt, gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3],
                                bool *ok);

/* The subnormal class's operands design (rdna2_construct.c's
 * subnormal_operands) for n cases at once (rdna2_subnormal_lanes.c), on a lane whose sources are f32
 * or f16 in any mix (the cover): case k draws from rng[which[k]] and writes
 * v[k], the same values and draws as the scalar design (which always makes
 * one), before the forced signs are respected. */
bool rdna2_subnormal_operands_lanes_cover(const rdna2_lane *s);
void rdna2_subnormal_operands_lanes(const rdna2_lane *s, gen_rng *rng, const uint32_t *which, size_t n,
                                    uint64_t (*v)[3]);

/* The subnormal class's sum design (rdna2_construct.c's
 * design_subnormal_sum) for n cases at once (rdna2_subnormal_lanes.c), on a
 * lane of f32 sources and result with no literal, or with K as b a normal
 * f32 below 2^22 (the cover): case k draws from rng[which[k]] and writes
 * v[k] and ok[k], the same values and draws as the scalar design, one
 * attempt each, before the forced signs are respected. */
bool rdna2_subnormal_sum_lanes_cover(const rdna2_lane *s);
void rdna2_subnormal_sum_lanes(const rdna2_lane *s, gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3],
                               bool *ok);

/* The subnormal class's generic aim (rdna2_construct.c's design_aimed for
 * that class) for n cases at once (rdna2_subnormal_lanes.c), on a lane of
 * one format, f32 or f16, fused, with no literal (the cover): case k draws
 * from rng[which[k]] and writes v[k] and outcome[k]: AIMED_MADE with the
 * same values and draws as the scalar aim's one attempt, before the forced
 * signs are respected; AIMED_MISSED with the same draws (of v, a later
 * attempt writes all three: the scalar aim can leave c stale there); or
 * AIMED_SCALAR where the scalar aim leaves the double path (the case's
 * stream then untouched, for the scalar aim to make it). */
enum { AIMED_MISSED, AIMED_MADE, AIMED_SCALAR };
bool rdna2_subnormal_aimed_lanes_cover(const rdna2_lane *s);
void rdna2_subnormal_aimed_lanes(const rdna2_lane *s, gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3],
                                 uint8_t *outcome);

/* The calls above in each of their builds (fp/lanes.h: four lanes,
 * or eight where the host has AVX-512; fp_lanes_wide chooses). */
void rdna2_closed_lanes_narrow(const rdna2_lane *s, gen_class c, gen_rng *rng, const uint32_t *which, size_t n,
                               uint64_t (*v)[3], bool *ok);
void rdna2_closed_lanes_wide(const rdna2_lane *s, gen_class c, gen_rng *rng, const uint32_t *which, size_t n,
                             uint64_t (*v)[3], bool *ok);
void rdna2_special_lanes_narrow(const rdna2_lane *s, int tie_lo, int tie_hi, gen_rng *rng, const uint32_t *which,
                                size_t n, uint64_t (*v)[3]);
void rdna2_special_lanes_wide(const rdna2_lane *s, int tie_lo, int tie_hi, gen_rng *rng, const uint32_t *which,
                              size_t n, uint64_t (*v)[3]);
void rdna2_subnormal_grid_lanes_narrow(const fp_format *fmt, gen_rng *rng, const uint32_t *which, size_t n,
                                       uint64_t (*v)[3], bool *ok);
void rdna2_subnormal_grid_lanes_wide(const fp_format *fmt, gen_rng *rng, const uint32_t *which, size_t n,
                                     uint64_t (*v)[3], bool *ok);
void rdna2_subnormal_operands_lanes_narrow(const rdna2_lane *s, gen_rng *rng, const uint32_t *which, size_t n,
                                           uint64_t (*v)[3]);
void rdna2_subnormal_operands_lanes_wide(const rdna2_lane *s, gen_rng *rng, const uint32_t *which, size_t n,
                                         uint64_t (*v)[3]);
void rdna2_subnormal_sum_lanes_narrow(const rdna2_lane *s, gen_rng *rng, const uint32_t *which, size_t n,
                                      uint64_t (*v)[3], bool *ok);
void rdna2_subnormal_sum_lanes_wide(const rdna2_lane *s, gen_rng *rng, const uint32_t *which, size_t n,
                                    uint64_t (*v)[3], bool *ok);
void rdna2_subnormal_aimed_lanes_narrow(const rdna2_lane *s, gen_rng *rng, const uint32_t *which, size_t n,
                                        uint64_t (*v)[3], uint8_t *outcome);
void rdna2_subnormal_aimed_lanes_wide(const rdna2_lane *s, gen_rng *rng, const uint32_t *which, size_t n,
                                      uint64_t (*v)[3], uint8_t *outcome);

/* The double-round test's answer for a lane (rdna2_fast.c): lanes answered
 * it (yes or no), or the scalar test must run where the case asks for it. */
enum { RDNA2_DR_SCALAR, RDNA2_DR_YES, RDNA2_DR_NO };
/* The verdicts of n lanes computed in vectors, each lane's rounding to
 * dest (rdna2_verdict_lanes.c): what rdna2_fast.c's scalar path makes of
 * it (final_step, then lane_classes), with the double-round class where
 * dr[t] is RDNA2_DR_YES (the caller adds what a scalar test finds where it
 * is RDNA2_DR_SCALAR).  Each lane's rounding writes the result; a rounding
 * a later one rounds again (the legacy form's product) is verdicted with
 * that later one, rdna2_lane_verdict_pairs. */
void rdna2_lane_verdicts(const fp_fma_lane *lanes, const uint8_t *dr, const fp_format *dest, size_t n,
                         isa_verdict *v);
/* Pairs of lanes' verdicts, merged as rdna2_fast.c's final_step merges
 * a later rounding's verdict into an earlier one's (classes and cells of
 * both, the first's tie exponent where it has one): a packed tuple's low
 * and high lanes, or the legacy form's product (first_intermediate: its
 * rounding's own classes and cell, nothing at the result) and sum.  The
 * second is never intermediate; a dr NULL answers RDNA2_DR_SCALAR. */
void rdna2_lane_verdict_pairs(const fp_fma_lane *first, const uint8_t *dr_first, bool first_intermediate,
                              const fp_fma_lane *second, const uint8_t *dr_second, const fp_format *dest, size_t n,
                              isa_verdict *v);

#endif
