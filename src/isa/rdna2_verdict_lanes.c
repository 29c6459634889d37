/* The verdicts of lanes computed in vectors (fp_fma_lane), many at a time:
 * for each lane, what the scalar fast path (rdna2_fast.c's final_step of
 * the rounding that writes the result, then lane_classes) makes of it, from
 * the flags the lane reports.
 *
 * Every generated case of the fused f32, V_DIV_FMAS, legacy, f16, packed and
 * MIX forms takes this step.  A lane at a time it was branches and stores: a
 * throwaway build that left it out altogether took v_fma_f32 from 845 to
 * 623 instructions a generated case (callgrind, tests/gen_count).  Here
 * eight lanes' fields are read with shuffles, the classes, rounding cell
 * and tie exponent computed with selects (GCC's vector extensions;
 * AVX-512, AVX2 or SSE2, chosen at load time), and only the verdicts'
 * stores are done a lane at a time: v_fma_f32 824 to 744 instructions a
 * generated case, v_mad_f32 1,079 to 965 (scripts/bench-compare def24f4
 * --instructions, at 78b5b24), with the fields copied into arrays first and
 * the verdicts made a lane at a time from the vectors' results; the
 * shuffles and the stores straight from the vectors then took v_fma_f32
 * from 578 to 560, v_mad_f32 from 723 to 683 (callgrind, gen_count plain,
 * 42db5ca).
 *
 * tests/test_fast_verdicts.c, construct-many and selftest hold the result
 * to the exact model's verdict, case by case. */
#include "../fp/fast.h"
#include "../fp/lanes.h"
#include "classify.h"
#include "rdna2.h"
#include <stddef.h>
#include <string.h>

/* The cell a lane's rounding reaches, as isa_cell encodes it (kind << 5 |
 * inexact, lsb, guard, sticky, sign), is a bit of the verdict's cells. */
_Static_assert(ISA_CELLS <= 64 * ISA_CELL_WORDS, "a rounding cell must be a bit of isa_verdict.cells");

/* Eight lanes of 32-bit integers (GCC's vector extensions), and the
 * 16-bit vectors the lanes' fields are read with. */
typedef int32_t v8i __attribute__((vector_size(32)));
typedef uint16_t v16h __attribute__((vector_size(32)));
typedef uint8_t v8b __attribute__((vector_size(8)));

#define ALL8(x) ((v8i){0} + (x))
/* Element by element, which GCC 12 makes one vpmovzx/vpmovsx instruction
 * (its __builtin_convertvector of a widening splits into halves: lanes.h). */
#define WIDEN8(x) ((v8i){x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]})
LANES v8i pick8(v8i mask, v8i yes, v8i no) { return (yes & mask) | (no & ~mask); }
/* yes where the flag is set in f, else 0: both powers of two (constants
 * where it is inlined), so the flag's bit moved to yes's place, where a
 * comparison with zero and a mask took GCC 12 four instructions a flag (it
 * compared twice) and ten flags a vector of lanes. */
LANES v8i flag8(v8i f, int which, int yes)
{
    int from = __builtin_ctz((unsigned)which), to = __builtin_ctz((unsigned)yes);
    return to >= from ? (f & which) << (to - from) : (f & which) >> (from - to);
}

/* Eight lanes as 48 16-bit words (fp_fma_lane is six of them), in three vectors. */
_Static_assert(sizeof(fp_fma_lane) == 12, "eight lanes are three 32-byte vectors");
enum { AT_ULP = offsetof(fp_fma_lane, ulp_exp) / 2, AT_MSB = offsetof(fp_fma_lane, msb) / 2,
       AT_BIG = offsetof(fp_fma_lane, big) / 2, AT_FLAGS = offsetof(fp_fma_lane, flags) / 2 };

/* The 16-bit field at word `at` of each of the eight lanes in x (words
 * at, at + 6, ..., at + 42), sign-extended: gathered by two shuffles into
 * the high halves of 32-bit lanes, then shifted down, where a lane at a
 * time into arrays was a copy and a store per field.  The first shuffle
 * takes the words below 32 from x[0] and x[1], the second keeps those and
 * takes the rest from x[2] (indices 16-31 of its pair).  Macros because
 * __builtin_shufflevector (GCC 12 and clang alike) takes constant indices;
 * `at` is one of the AT_* constants. */
#define FIELD_WORD(at, j) ((at) + 6 * ((j) / 2))
#define FIELD_FIRST(at, j) (FIELD_WORD(at, j) < 32 ? FIELD_WORD(at, j) : 0)
#define FIELD_SECOND(at, j) (FIELD_WORD(at, j) < 32 ? (j) : FIELD_WORD(at, j) - 32 + 16)
#define SIXTEEN(M, at)                                                                                        \
    M(at, 0), M(at, 1), M(at, 2), M(at, 3), M(at, 4), M(at, 5), M(at, 6), M(at, 7), M(at, 8), M(at, 9),     \
        M(at, 10), M(at, 11), M(at, 12), M(at, 13), M(at, 14), M(at, 15)
#define FIELD8(x, at)                                                                                         \
    ((v8i)__builtin_shufflevector(__builtin_shufflevector((x)[0], (x)[1], SIXTEEN(FIELD_FIRST, at)), (x)[2],  \
                                  SIXTEEN(FIELD_SECOND, at)) >>                                               \
     16)

/* Eight lanes' verdicts as vectors, one field a vector. */
typedef struct {
    v8i all, at, tie_exp, cell;
} eight;

/* Eight lanes' verdicts, as rdna2_fast.c's scalar path makes them (its
 * final_step's rounding_classes and cell, lane_classes's additions): the
 * classes the rounding reaches, its cell (isa_cell of isa_result_kind), the
 * lane's size against the destination (magnitude_classes), cancellation to
 * an exact zero, a special or subnormal source, the double-round answer
 * dr (RDNA2_DR_*), and the tie's exponent.  An intermediate rounding (one
 * a later rounding rounds again) has its own classes alone, none at the
 * result. */
LANES eight eight_verdicts(const fp_fma_lane *l, const uint8_t *dr, int emin, int emax, int precision,
                           bool intermediate)
{
    v16h x[3];
    __builtin_memcpy(x, l, sizeof x);
    v8b d;
    __builtin_memcpy(&d, dr, sizeof d);
    v8i f = FIELD8(x, AT_FLAGS) & 0xffff, m_sb = FIELD8(x, AT_MSB), bg = FIELD8(x, AT_BIG), ulp = FIELD8(x, AT_ULP);
    v8i dv = WIDEN8(d);
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
    return (eight){all, at, pick8((f & FP_LANE_TIE) != 0, ulp, ALL8(ISA_NO_EXPONENT)), c};
}

/* A later rounding's verdict merged into an earlier one's (a packed
 * tuple's high lane after its low one, the legacy form's sum after its
 * product), as final_step of that rounding adds to a case's verdict: the
 * classes of both, the earlier tie exponent where it has one, else the
 * later's; the cells are store()'s to merge (two cells a verdict). */
LANES eight merged(eight e, eight later)
{
    v8i none = e.tie_exp == ISA_NO_EXPONENT;
    return (eight){e.all | later.all, e.at | later.at, pick8(none, later.tie_exp, e.tie_exp), e.cell};
}

/* The first `count` verdicts of e, with the cell of e and, where
 * `second` is not NULL, its cell too (the same cell, or two bits). */
LANES void store(eight e, const v8i *second, size_t count, isa_verdict *out)
{
    for (size_t t = 0; t < count; t++) {
        isa_verdict *o = &out[t];
        o->classes = (uint32_t)e.all[t];
        o->at_result = (uint32_t)e.at[t];
        o->tie_exp = e.tie_exp[t];
        for (int k = 0; k < ISA_CELL_WORDS; k++)
            o->cells[k] = 0;
        uint32_t cell = (uint32_t)e.cell[t];  /* unsigned: the word and bit without a sign's correction */
        o->cells[cell / 64] = 1ull << (cell % 64);
        if (second) {
            cell = (uint32_t)(*second)[t];
            o->cells[cell / 64] |= 1ull << (cell % 64);
        }
    }
}

/* Eight lanes' double-round answers where a rounding has none to give. */
static const uint8_t none_dr[8] = {RDNA2_DR_SCALAR, RDNA2_DR_SCALAR, RDNA2_DR_SCALAR, RDNA2_DR_SCALAR,
                                   RDNA2_DR_SCALAR, RDNA2_DR_SCALAR, RDNA2_DR_SCALAR, RDNA2_DR_SCALAR};

/* The last n % 8 lanes of l and dr (dr NULL: none_dr), padded with zeros
 * to eight (the padding's verdicts are made, never written). */
static void tail_of(const fp_fma_lane *l, const uint8_t *dr, size_t whole, size_t n, fp_fma_lane *tail,
                    uint8_t *tail_dr)
{
    memset(tail, 0, 8 * sizeof *tail);
    memset(tail_dr, 0, 8);
    __builtin_memcpy(tail, l + whole, (n - whole) * sizeof *l);
    __builtin_memcpy(tail_dr, dr ? dr + whole : none_dr, n - whole);
}

/* n lanes' verdicts, eight at a time, each a rounding that writes the
 * result (never an intermediate one: those come in pairs, below). */
LANES_ENTRY void verdict_lanes(const fp_fma_lane *l, const uint8_t *dr, int emin, int emax, int precision, size_t n,
                               isa_verdict *v)
{
    size_t whole = n & ~(size_t)7;
    for (size_t t = 0; t < whole; t += 8)
        store(eight_verdicts(l + t, dr + t, emin, emax, precision, false), NULL, 8, v + t);
    if (whole < n) {
        fp_fma_lane tail[8];
        uint8_t tail_dr[8];
        tail_of(l, dr, whole, n, tail, tail_dr);
        store(eight_verdicts(tail, tail_dr, emin, emax, precision, false), NULL, n - whole, v + whole);
    }
}

/* n pairs of lanes' verdicts, merged (merged(): the first's, the
 * second's merged in), eight pairs at a time: a packed tuple's low and
 * high lanes, or the legacy form's product (intermediate) and sum; dr1
 * or dr2 NULL: none_dr's answers.  Two
 * passes and a merge a case were stores of each lane's verdict and loads
 * of them back. */
LANES_ENTRY void verdict_pair_lanes(const fp_fma_lane *l1, const uint8_t *dr1, bool intermediate1,
                                    const fp_fma_lane *l2, const uint8_t *dr2, int emin, int emax, int precision,
                                    size_t n, isa_verdict *v)
{
    size_t whole = n & ~(size_t)7;
    for (size_t t = 0; t < whole; t += 8) {
        eight e1 = eight_verdicts(l1 + t, dr1 ? dr1 + t : none_dr, emin, emax, precision, intermediate1);
        eight e2 = eight_verdicts(l2 + t, dr2 ? dr2 + t : none_dr, emin, emax, precision, false);
        store(merged(e1, e2), &e2.cell, 8, v + t);
    }
    if (whole < n) {
        fp_fma_lane tail1[8], tail2[8];
        uint8_t tail_dr1[8], tail_dr2[8];
        tail_of(l1, dr1, whole, n, tail1, tail_dr1);
        tail_of(l2, dr2, whole, n, tail2, tail_dr2);
        eight e1 = eight_verdicts(tail1, tail_dr1, emin, emax, precision, intermediate1);
        eight e2 = eight_verdicts(tail2, tail_dr2, emin, emax, precision, false);
        store(merged(e1, e2), &e2.cell, n - whole, v + whole);
    }
}

void rdna2_lane_verdict_pairs(const fp_fma_lane *first, const uint8_t *dr_first, bool first_intermediate,
                              const fp_fma_lane *second, const uint8_t *dr_second, const fp_format *dest, size_t n,
                              isa_verdict *v)
{
    verdict_pair_lanes(first, dr_first, first_intermediate, second, dr_second, dest->emin, dest->emax,
                       (int)dest->precision, n, v);
}

void rdna2_lane_verdicts(const fp_fma_lane *lanes, const uint8_t *dr, const fp_format *dest, size_t n,
                         isa_verdict *v)
{
    verdict_lanes(lanes, dr, dest->emin, dest->emax, (int)dest->precision, n, v);
}
