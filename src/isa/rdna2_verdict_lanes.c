/* The verdicts of lanes computed in vectors (fp_fma_lane), many at a time:
 * for each lane, what the scalar fast path (rdna2_fast.c's final_step of
 * the rounding that writes the result, then lane_classes) makes of it, from
 * the flags the lane reports.
 *
 * Every generated case of the fused f32, V_DIV_FMAS, legacy, f16, packed and
 * MIX forms takes this step.  A lane at a time it was branches and stores: a
 * throwaway build that left it out altogether took v_fma_f32 from 845 to
 * 623 instructions a generated case (callgrind, tests/gen_count).  Here the
 * flags are copied out of the lanes into arrays, the classes and the
 * rounding cell are computed over the arrays eight lanes at a time with
 * selects (GCC's vector extensions; AVX-512, AVX2 or SSE2, chosen at load
 * time), and only the verdicts' stores are done a lane at a time: v_fma_f32
 * 824 to 744 instructions a generated case, v_mad_f32 1,079 to 965
 * (scripts/bench-compare def24f4 --instructions, at 78b5b24).
 *
 * tests/test_fast_verdicts.c, construct-many and selftest hold the result
 * to the exact model's verdict, case by case. */
#include "../fp/fast.h"
#include "../fp/lanes.h"
#include "classify.h"
#include "rdna2.h"
#include <string.h>

/* The cell a lane's rounding reaches, as isa_cell encodes it (kind << 5 |
 * inexact, lsb, guard, sticky, sign), fits a byte. */
_Static_assert(ISA_CELLS <= 256, "a rounding cell must fit uint8_t");

/* Eight lanes of 32-bit integers (GCC's vector extensions). */
typedef int32_t v8i __attribute__((vector_size(32)));
typedef uint16_t v8h __attribute__((vector_size(16)));
typedef int16_t v8s __attribute__((vector_size(16)));
typedef uint8_t v8b __attribute__((vector_size(8)));

#define ALL8(x) ((v8i){0} + (x))
/* Element by element, which GCC 12 makes one vpmovzx/vpmovsx instruction
 * (its __builtin_convertvector of a widening splits into halves: lanes.h). */
#define WIDEN8(x) ((v8i){x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]})
LANES v8i pick8(v8i mask, v8i yes, v8i no) { return (yes & mask) | (no & ~mask); }
/* yes where the flag is set in f, else 0. */
LANES v8i flag8(v8i f, int which, int yes) { return ((f & which) != 0) & yes; }

/* Eight lanes' verdict parts: the classes their rounding reaches
 * (rdna2_fast.c's rounding_classes), its rounding cell (isa_cell of
 * isa_result_kind), and what each lane adds (lane_classes): its size
 * against the destination (magnitude_classes), cancellation to an exact
 * zero, a special or subnormal source, the double-round answer.  An
 * intermediate rounding (one a later rounding rounds again) adds its own
 * classes alone, none at the result. */
LANES void eight_verdicts(const uint16_t *flags, const int16_t *msb, const int16_t *big, const uint8_t *dr, int emin,
                          int emax, int precision, bool intermediate, uint32_t *classes, uint32_t *at_result,
                          uint8_t *cell)
{
    v8h fh;
    v8s ms, bs;
    v8b d;
    memcpy(&fh, flags, sizeof fh);
    memcpy(&ms, msb, sizeof ms);
    memcpy(&bs, big, sizeof bs);
    memcpy(&d, dr, sizeof d);
    v8i f = WIDEN8(fh), m_sb = WIDEN8(ms), bg = WIDEN8(bs), dv = WIDEN8(d);
    v8i nan = (f & FP_LANE_NAN) != 0, inf = (f & FP_LANE_INF) != 0, zero = (f & FP_LANE_ZERO) != 0;
    v8i finite = ~(nan | inf | zero);
    /* isa_result_kind (classify.h): NaN 5, infinity 4, zero 0, overflow 3, tiny 1, else 2. */
    v8i kind = pick8(nan, ALL8(5), pick8(inf, ALL8(4), pick8(zero, ALL8(0), pick8((f & FP_LANE_OVERFLOW) != 0, ALL8(3),
                                                                                 pick8((f & FP_LANE_TINY) != 0,
                                                                                       ALL8(1), ALL8(2))))));
    v8i c = kind << 5 | flag8(f, FP_LANE_INEXACT, 16) | flag8(f, FP_LANE_LSB, 8) | flag8(f, FP_LANE_GUARD, 4) |
            flag8(f, FP_LANE_STICKY, 2) | flag8(f, FP_LANE_SIGN, 1);
    v8i step = ALL8(1 << GEN_RANDOM) | flag8(f, FP_LANE_TIE, 1 << GEN_TIE) | flag8(f, FP_LANE_NEAR, 1 << GEN_NEAR_TIE) |
               (finite & flag8(f, FP_LANE_TINY, 1 << GEN_SUBNORMAL)) | flag8(f, FP_LANE_OVERFLOW, 1 << GEN_OVERFLOW);
    v8i size = ((m_sb < emin + 2) & (1 << GEN_SUBNORMAL)) | ((m_sb >= emax - 1) & (1 << GEN_OVERFLOW)) |
               ((m_sb < bg - precision) & (1 << GEN_CANCEL));
    /* An exact zero first (lane_classes's order), then a finite sum's size. */
    v8i m = pick8(zero, flag8(f, FP_LANE_CANCELLED, 1 << GEN_CANCEL), ~(nan | inf) & size);
    m |= (dv == RDNA2_DR_YES) & (1 << GEN_DOUBLE_ROUND);
    v8i special = flag8(f, FP_LANE_SPECIAL_SOURCE, 1 << GEN_SPECIAL);
    v8i all = step | m | special | flag8(f, FP_LANE_SUBNORMAL_SOURCE, 1 << GEN_SUBNORMAL), at = step | m | special;
    if (intermediate)  /* a rounding a later one rounds again: its own classes, none at the result */
        all = step, at = ALL8(0);
    v8b cb = __builtin_convertvector(c, v8b);
    memcpy(classes, &all, sizeof all);
    memcpy(at_result, &at, sizeof at);
    memcpy(cell, &cb, sizeof cb);
}

/* n lanes, n a multiple of eight. */
LANES_ENTRY void verdict_lanes(const uint16_t *flags, const int16_t *msb, const int16_t *big, const uint8_t *dr,
                               int emin, int emax, int precision, bool intermediate, size_t n, uint32_t *classes,
                               uint32_t *at_result, uint8_t *cell)
{
    for (size_t t = 0; t < n; t += 8)
        eight_verdicts(flags + t, msb + t, big + t, dr + t, emin, emax, precision, intermediate, classes + t,
                       at_result + t, cell + t);
}

/* m lanes into the arrays verdict_lanes takes, padded with zeros up to a
 * multiple of eight (the padding's verdicts are computed but never written
 * to a case); the padded count. */
static size_t lane_arrays(const fp_fma_lane *l, const uint8_t *dr, size_t m, uint16_t *flags, int16_t *msb,
                          int16_t *big, uint8_t *answer)
{
    size_t padded = (m + 7) & ~(size_t)7;
    for (size_t t = 0; t < m; t++) {
        flags[t] = l[t].flags;
        msb[t] = l[t].msb;
        big[t] = l[t].big;
    }
    if (dr)
        memcpy(answer, dr, m);
    else
        memset(answer, RDNA2_DR_SCALAR, m);
    for (size_t t = m; t < padded; t++)
        flags[t] = msb[t] = big[t] = answer[t] = 0;
    return padded;
}

void rdna2_lane_verdicts(const fp_fma_lane *lanes, const uint8_t *dr, const fp_format *dest, bool intermediate,
                         size_t n, isa_verdict *v)
{
    enum { BLOCK = 256 };
    uint16_t flags[BLOCK];
    int16_t msb[BLOCK], big[BLOCK];
    uint32_t classes[BLOCK], at_result[BLOCK];
    uint8_t cell[BLOCK], answer[BLOCK];
    for (size_t first = 0; first < n; first += BLOCK) {
        size_t m = n - first < BLOCK ? n - first : BLOCK;
        const fp_fma_lane *l = lanes + first;
        size_t padded = lane_arrays(l, dr ? dr + first : NULL, m, flags, msb, big, answer);
        verdict_lanes(flags, msb, big, answer, dest->emin, dest->emax, (int)dest->precision, intermediate, padded,
                      classes, at_result, cell);
        for (size_t t = 0; t < m; t++) {
            isa_verdict *o = &v[first + t];
            /* The tie's exponent by a mask, not a branch on the flag. */
            int32_t tie = -(int32_t)((flags[t] & FP_LANE_TIE) != 0);
            *o = (isa_verdict){.classes = classes[t], .at_result = at_result[t],
                               .tie_exp = (l[t].ulp_exp & tie) | (ISA_NO_EXPONENT & ~tie)};
            o->cells[cell[t] / 64] = 1ull << (cell[t] % 64);
        }
    }
}
