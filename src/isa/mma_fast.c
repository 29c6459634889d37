/* The tensor-core tiles' fast path: mma_eval's T-FDPA model and
 * mma_classify's verdict in 64-bit integers.  The exact model decodes an
 * element for every product it takes part in and rounds through the fp
 * kit; here each element of the tile is decoded once, a step's terms are
 * summed in an int64_t and the sum is rounded by integer shifts.
 *
 * Why 64 bits hold the sum: every term is truncated on the grid
 * 2^(E_max - F), and no term exceeds 2^(E_max + 2) (a product's
 * significands are each below 2, C's below 2), so a term is below
 * 2^(F + 2) grid units; with F <= 40 (the parameter's range) and at most
 * 65 terms the sum stays below 2^49.
 *
 * Campaigns audit it against the exact model (--audit), and selftest
 * compares the two on every case. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "classify.h"
#include "mma.h"
#include "../fp/lanes.h"

/* An element as mma_eval.c's decode gives it: value = (-1)^sign * sig *
 * 2^unit; exp is the exponent the alignment uses (a subnormal's is the
 * format's minimum). */
enum { ELEM_FINITE, ELEM_INF, ELEM_NAN };
typedef struct {
    uint32_t sig;
    int16_t unit, exp;
    uint8_t sign, kind;
} element;

/* An element type's fields, looked up once a tile. */
typedef struct {
    uint32_t keep, emask, fmask;  /* keep: the bits not ignored */
    unsigned frac_bits, sign_at;
    int bias, emin;
    bool finite_top;
} layout;

static layout layout_of(mma_type t)
{
    const fp_format *f = mma_format(t);
    unsigned ignored = mma_ignored_bits(t), frac_bits = f->precision - 1 + ignored;
    return (layout){~((1u << ignored) - 1), (1u << f->exp_bits) - 1, (1u << frac_bits) - 1, frac_bits,
                    f->exp_bits + frac_bits, f->bias, f->emin, f->finite_top};
}

static inline element decode(const layout *f, uint32_t bits)
{
    bits &= f->keep;  /* tf32: an f32 word with the ignored bits cleared */
    uint32_t ex = (bits >> f->frac_bits) & f->emask, fr = bits & f->fmask;
    element e = {0};
    e.sign = (bits >> f->sign_at) & 1;
    if (f->finite_top ? (ex == f->emask && fr == f->fmask) : ex == f->emask) {
        e.kind = f->finite_top || fr != 0 ? ELEM_NAN : ELEM_INF;  /* e4m3: only S.1111.111 is NaN */
        return e;
    }
    e.exp = (int16_t)(ex ? (int)ex - f->bias : f->emin);
    e.sig = ex ? (fr | (1u << f->frac_bits)) : fr;
    e.unit = (int16_t)(e.exp - (int)f->frac_bits);
    return e;
}

/* Where a step's sum was cut to the output's precision (round_four's, lane
 * by lane): the kept significand, the bits dropped below it (shift: how
 * many, 0 or less when none, past 63 when every one), and half a unit. */
typedef struct {
    uint64_t kept, rem, half;
    int64_t shift;
} cut;

/* Four steps' sums side by side (four_sums_of): two's complement on the grid
 * 2^grid, the bits the terms lost below it, the largest term. */
typedef struct {
    uint64_t sum[4], dropped[4], biggest[4];
    int64_t grid[4];
    uint64_t bits[4];  /* the sums rounded and encoded in the output format */
    cut cut[4];        /* where each was cut (step_info's tie and near tie) */
} four_sums;

/* mma_tfdpa_info's step info where the sum rounds to f16 to nearest. */
static void tie_info(const cut *c, mma_step_info *info)
{
    if (c->shift > 63 || c->shift <= 0 || c->rem == 0)
        return;  /* below half a unit, or exact */
    info->tie = c->rem == c->half;
    if (!info->tie && c->shift >= 8) {
        uint64_t dist = c->rem > c->half ? c->rem - c->half : c->half - c->rem;
        info->near_tie = dist <= c->half >> 6;
    }
}

/* The tile's constants for its steps. */
typedef struct {
    mma_type d;
    layout d_layout;
    int ez, F, rho;
} step_consts;

/* Lane x's step info (four_sums_of's sum, the bits the terms lost below
 * the grid, the largest term, and where the sum was cut). */
static void step_info(const step_consts *k, const four_sums *s, unsigned x, mma_step_info *info)
{
    uint64_t mag = (int64_t)s->sum[x] < 0 ? -s->sum[x] : s->sum[x];
    info->truncated = s->dropped[x] != 0;
    info->cancel = s->biggest[x] && mag < (s->biggest[x] >> 8);  /* the sum lost more than 8 bits against its largest term */
    if (k->rho == RHO_RNE_FP16)
        tie_info(&s->cut[x], info);  /* a zero sum has nothing dropped: no tie */
}

/* A step with an infinity or a NaN among its operands: NaN where the
 * model makes one, else the infinity (0 when the step is finite). */
static bool special_step(const step_consts *k, const element *a, const element *b, unsigned l, element c,
                         uint32_t *result)
{
    bool nan = c.kind == ELEM_NAN, pos_inf = c.kind == ELEM_INF && !c.sign, neg_inf = c.kind == ELEM_INF && c.sign;
    for (unsigned q = 0; q < l; q++) {
        element x = a[q], y = b[q];
        bool x_zero = x.kind == ELEM_FINITE && !x.sig, y_zero = y.kind == ELEM_FINITE && !y.sig;
        if (x.kind == ELEM_NAN || y.kind == ELEM_NAN || ((x.kind == ELEM_INF || y.kind == ELEM_INF) && (x_zero || y_zero)))
            nan = true;
        else if (x.kind == ELEM_INF || y.kind == ELEM_INF)
            *(x.sign != y.sign ? &neg_inf : &pos_inf) = true;
    }
    if (nan || (pos_inf && neg_inf))
        *result = mma_canonical_nan(k->d);
    else if (pos_inf || neg_inf)
        *result = mma_infinity(k->d, neg_inf);
    else
        return false;
    return true;
}

#ifdef TIEFUZZ_PLANT_FAST_MISTAKE
/* A planted mistake (test builds only, and there only with TIEFUZZ_PLANT_TILE
 * set, so that scripts/bug-shapes' tile runs of the same build keep the real
 * path): a step whose sum lies on an f16 tie with an odd kept significand
 * rounds half down instead of to even.  selftest and a campaign's audit must
 * catch it (tests/selftest.sh, tests/audit.sh). */
static uint32_t planted_tie(const step_consts *k, const cut *c, uint32_t bits)
{
    static _Atomic int switched = -1;  /* read once: the generation threads all come here */
    int on = atomic_load_explicit(&switched, memory_order_relaxed);
    if (on < 0) {
        on = getenv("TIEFUZZ_PLANT_TILE") != NULL;
        atomic_store_explicit(&switched, on, memory_order_relaxed);
    }
    bool odd_tie = c->shift > 0 && c->shift <= 63 && c->rem == c->half && (c->kept & 1);
    return on && k->rho == RHO_RNE_FP16 && odd_tie ? bits - 1 : bits;
}
#endif

/* Four steps side by side: the same row of A against four columns of B
 * (the tile's columns are independent), the products and the sum of the
 * truncated terms in vectors, and the sums rounded to the output (round_four).  Why it
 * is exact: a nonzero term is below 2^(F + 2) grid units (the top of the
 * file), so its left shift is at most F + 2 (a zero term's may be any,
 * clamped to keep the shift defined); a right shift past 63 leaves nothing,
 * and the bits it drops mark the step truncated.  The operands as columns of numbers: A's row from the step's
 * first product; B's from its first product and first column, stride
 * words apart from one product to the next; C's four lanes.  No lane may
 * hold an infinity or a NaN. */
typedef struct {
    const uint64_t *a_sig, *a_neg;   /* a_neg, b_neg, c_neg: all ones for a negative value */
    const int64_t *a_unit, *a_exp;
    const uint64_t *b_sig, *b_neg;
    const int64_t *b_unit, *b_exp;
    unsigned l, stride;
    uint64_t c_sig[4], c_neg[4];
    int64_t c_unit[4], c_exp[4];
    int64_t ez, F;
    int rho;  /* the output's rounding (RHO_*) */
} four_terms;

LANES vl load_l(const int64_t *p)
{
    vl v;
    memcpy(&v, p, sizeof v);
    return v;
}

LANES vu load_u(const uint64_t *p)
{
    vu v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* x clamped to [0, 63] (x is far from overflow: exponents of a tile). */
LANES vl clamp_shift(vl x) { return pick(x > 0, pick(x < 63, x, ALL(63)), ALL(0)); }

/* Four sums (two's complement, magnitudes below 2^49: the top of the file)
 * of terms on the grid 2^grid, rounded to a binary format of precision p
 * and minimum exponent emin: the kept significand, the exponent e of its
 * leading bit (emin for a subnormal), the dropped bits rem and half a unit
 * (a shift past 63 is taken as 63: with the magnitude below 2^49 every bit
 * is dropped and rem < half either way), then encoded: to f16 to nearest
 * even (a carry out of the significand moves the exponent field up by
 * itself; 0x7c00 and above is infinity), or toward zero with f32's
 * exponents and p bits kept (e8m13: p = 14), 2^128 and above infinity.  An
 * exactly zero sum is +0.  The bound on the sum is params_in_reach's F <= 40
 * (log2_floor holds to 2^52: F up to about 47 would still be exact). */
LANES void round_four(vu sum, vl grid, int rho, four_sums *out)
{
    vl negative = (vl)sum < 0;
    vl mag = pick(negative, (vl)-sum, (vl)sum);  /* negated unsigned: defined for every lane */
    bool rne = rho == RHO_RNE_FP16;
    int p = rne ? 11 : rho == RHO_RZ_E8M13 ? 14 : 24, emin = rne ? -14 : -126;
    vl top = grid + log2_floor(pick(mag == 0, ALL(1), mag));
    vl e = pick(top < emin, ALL(emin), top);
    vl shift = e - (p - 1) - grid;
    vu right = (vu)clamp_shift(shift), left = (vu)clamp_shift(-shift);
    vl kept = (vl)(((vu)mag << left) >> right);
    vu unit = (vu)ALL(1) << right;  /* up to 2^63: unsigned, halved by a logical shift */
    vl rem = mag & (vl)(unit - 1), half = (vl)(unit >> 1);  /* no shift: both 0 */
    vl bits;
    if (rne) {
        vl up = (rem > half) | ((rem == half) & (half != 0) & ((kept & 1) != 0));
        vl k = kept - up;  /* up is -1 or 0 */
        bits = pick(k < 1024, k, ((e + 14) << 10) + k);
        bits = pick(bits >= 0x7c00, ALL(0x7c00), bits) | (negative & (1 << 15));
    } else {
        vl k = kept << (24 - p);
        bits = pick(k < (1 << 23), k, ((e + 126) << 23) + k);
        bits = pick(e > 127, ALL(0x7f800000), bits) | (negative & (1ll << 31));
    }
    bits = pick(mag == 0, ALL(0), bits);
    for (int x = 0; x < 4; x++)
        out->bits[x] = (uint64_t)bits[x], out->cut[x] = (cut){(uint64_t)kept[x], (uint64_t)rem[x], (uint64_t)half[x], shift[x]};
}

LANES void four_sums_of(const four_terms *t, four_sums *out)
{
    vu sig[65], neg[65];
    vl unit[65];
    unsigned l = t->l;
    vu c_sig = load_u(t->c_sig);
    vl e_max = pick((vl)(c_sig != 0), load_l(t->c_exp), ALL(t->ez));
    for (unsigned q = 0; q < l; q++) {
        size_t at = (size_t)q * t->stride;
        vu p = load_u(t->b_sig + at) * t->a_sig[q];  /* significands below 2^24: exact */
        vl e = pick((vl)(p != 0), load_l(t->b_exp + at) + t->a_exp[q], ALL(t->ez));
        e_max = pick(e > e_max, e, e_max);
        sig[q] = p;
        unit[q] = load_l(t->b_unit + at) + t->a_unit[q];
        neg[q] = load_u(t->b_neg + at) ^ t->a_neg[q];
    }
    sig[l] = c_sig;
    unit[l] = load_l(t->c_unit);
    neg[l] = load_u(t->c_neg);
    vl grid = e_max - t->F;
    vu sum = {0}, dropped = {0};
    vl biggest = {0};
    for (unsigned q = 0; q <= l; q++) {
        vl shift = unit[q] - grid;
        vu left = (vu)clamp_shift(shift), right = (vu)clamp_shift(-shift);
        vu m = (sig[q] << left) >> right;
        dropped |= sig[q] & (((vu)ALL(1) << right) - 1);
        biggest = pick((vl)m > biggest, (vl)m, biggest);  /* terms below 2^63: signed compares hold */
        sum += (m ^ neg[q]) - neg[q];
    }
    memcpy(out->sum, &sum, sizeof sum);
    memcpy(out->dropped, &dropped, sizeof dropped);
    memcpy(out->biggest, &biggest, sizeof biggest);
    memcpy(out->grid, &grid, sizeof grid);
    round_four(sum, grid, t->rho, out);
}

/* The entry point hands its helper pointers alone (lanes.h: clang's plain
 * x86-64 clone refuses vectors passed by value). */
LANES_ENTRY void sum_four(const four_terms *t, four_sums *out) { four_sums_of(t, out); }

/* A tile's A and B as columns of numbers for sum_four: A by rows (a[i*K + q]),
 * B by products (b[q*N + j]). */
typedef struct {
    uint64_t a_sig[MMA_MAX_ELEMENTS], a_neg[MMA_MAX_ELEMENTS];
    int64_t a_unit[MMA_MAX_ELEMENTS], a_exp[MMA_MAX_ELEMENTS];
    uint64_t b_sig[MMA_MAX_ELEMENTS], b_neg[MMA_MAX_ELEMENTS];
    int64_t b_unit[MMA_MAX_ELEMENTS], b_exp[MMA_MAX_ELEMENTS];
} tile_columns;

/* Decodes `lines` lines of K elements (line r's element q at e[r*K + q]),
 * each also into the columns at q*q_stride + r*line_stride (A: 1, K; B: N, 1);
 * special[r]: whether line r holds an infinity or a NaN (a step that takes
 * its products from two lines without one needs no look for them).  One
 * pass: the columns were a second one, a tenth of a Volta tile's fast path. */
static void decode_part(const layout *f, const uint32_t *bits, unsigned lines, unsigned K, unsigned q_stride,
                        unsigned line_stride, element *e, bool *special, uint64_t *sig, uint64_t *neg, int64_t *unit,
                        int64_t *exp)
{
    for (unsigned r = 0; r < lines; r++) {
        unsigned kinds = 0;
        for (unsigned q = 0; q < K; q++) {
            element x = decode(f, bits[r * K + q]);
            size_t at = (size_t)q * q_stride + (size_t)r * line_stride;
            e[r * K + q] = x;
            kinds |= x.kind;
            sig[at] = x.sig;
            neg[at] = -(uint64_t)x.sign;
            unit[at] = x.unit;
            exp[at] = x.exp;
        }
        special[r] = kinds != 0;
    }
}

/* Output elements (i, j0..j0+3): chunks of L_max products in k order,
 * each result the next chunk's C, the steps four at a time.  special[x]: whether lane x's row of A or column of B
 * holds an infinity or a NaN; such a lane's step (or one whose C is one) is
 * looked at alone, and where the model makes a NaN or an infinity of it,
 * that replaces the vector's sum (whose special elements count as zeros).
 * info: the four first steps' (NULL: none wanted). */
static void four_values(const step_consts *k, const mma_row *row, unsigned lmax, const element *A, const element *B,
                        const tile_columns *cols, element cur[4], const bool special[4], unsigned i, unsigned j0,
                        uint32_t acc[4], mma_step_info *info)
{
    unsigned K = row->k, N = row->n;
    four_terms t;  /* field by field: a zeroed initializer cost a Volta tile 4% */
    t.stride = N;
    t.ez = k->ez;
    t.F = k->F;
    t.rho = k->rho;
    for (unsigned k0 = 0; k0 < K; k0 += lmax) {
        unsigned l = K - k0 < lmax ? K - k0 : lmax;
        mma_step_info *inf = k0 ? NULL : info;
        if (k0)
            for (unsigned x = 0; x < 4; x++)
                cur[x] = decode(&k->d_layout, acc[x]);  /* the next chunk's C: this result, in the output format */
        size_t a_at = (size_t)i * K + k0, b_at = (size_t)k0 * N + j0;
        t.a_sig = cols->a_sig + a_at, t.a_neg = cols->a_neg + a_at;
        t.a_unit = cols->a_unit + a_at, t.a_exp = cols->a_exp + a_at;
        t.b_sig = cols->b_sig + b_at, t.b_neg = cols->b_neg + b_at;
        t.b_unit = cols->b_unit + b_at, t.b_exp = cols->b_exp + b_at;
        t.l = l;
        for (unsigned x = 0; x < 4; x++) {
            t.c_sig[x] = cur[x].sig;
            t.c_neg[x] = -(uint64_t)cur[x].sign;
            t.c_unit[x] = cur[x].unit;
            t.c_exp[x] = cur[x].exp;
        }
        four_sums s;
        sum_four(&t, &s);
        for (unsigned x = 0; x < 4; x++)
            if (!((special[x] || cur[x].kind != ELEM_FINITE) &&
                  special_step(k, A + i * K + k0, B + (j0 + x) * K + k0, l, cur[x], &acc[x]))) {
                acc[x] = (uint32_t)s.bits[x];
#ifdef TIEFUZZ_PLANT_FAST_MISTAKE
                acc[x] = planted_tie(k, &s.cut[x], acc[x]);
#endif
                if (inf)
                    step_info(k, &s, x, &inf[x]);
            }
    }
}

/* What the fast path assumes of the parameters (the registry's ranges,
 * which isa_instance_check holds every instance to): F <= 40 keeps a
 * step's sum in 64 bits, and L_max in 1..64 makes mma_inspect's first step
 * the first chunk.  Anything else goes to the exact model. */
static bool params_in_reach(const isa_instance *in)
{
    return in->param[PARAM_F] >= 0 && in->param[PARAM_F] <= 40 && in->param[PARAM_L_MAX] >= 1 &&
           in->param[PARAM_L_MAX] <= 64;
}

void mma_fast(const isa_instance *in, const uint32_t *w, uint32_t *out, isa_verdict *v, uint32_t want)
{
    if (!params_in_reach(in)) {
        isa_trace t;
        mma_eval(in, w, out, &t);
        if (v)
            isa_verdict_of_trace(in, w, &t, want, v);
        return;
    }
    const mma_row *row = mma_row_of(in->op);
    unsigned M = row->m, N = row->n, K = row->k, lmax = (unsigned)in->param[PARAM_L_MAX];
    uint32_t a[MMA_MAX_ELEMENTS], b[MMA_MAX_ELEMENTS], c[MMA_MAX_ELEMENTS];
    element A[MMA_MAX_ELEMENTS], B[MMA_MAX_ELEMENTS];
    mma_unpack(in, w, a, b, c);
    layout ab = layout_of(row->ab), cl = layout_of(row->c);
    bool row_special[MMA_MAX_ELEMENTS], col_special[MMA_MAX_ELEMENTS];
    tile_columns cols;
    decode_part(&ab, a, M, K, 1, K, A, row_special, cols.a_sig, cols.a_neg, cols.a_unit, cols.a_exp);
    decode_part(&ab, b, N, K, N, 1, B, col_special, cols.b_sig, cols.b_neg, cols.b_unit, cols.b_exp);
    step_consts k = {row->d, layout_of(row->d), mma_e_zero(in, row->d), in->param[PARAM_F], in->param[PARAM_RHO]};
    bool steps_wanted = v && (want & MMA_STEP_CLASSES);
    uint32_t classes = 0;
    unsigned per = mma_per_word(row->d);
    memset(out, 0, mma_words(row->d, M * N) * 4);
    for (unsigned i = 0; i < M; i++)
        for (unsigned j0 = 0; j0 < N; j0 += 4) {  /* N is a multiple of 4 (mma_table.c) */
            element ce[4];
            bool special[4];
            for (unsigned x = 0; x < 4; x++) {
                ce[x] = decode(&cl, c[i * N + j0 + x]);
                special[x] = row_special[i] || col_special[j0 + x];
            }
            uint32_t acc[4];
            mma_step_info info[4] = {0};
            four_values(&k, row, lmax, A, B, &cols, ce, special, i, j0, acc, steps_wanted ? info : NULL);
            for (unsigned x = 0; x < 4; x++) {
                classes |= mma_step_classes(&info[x]);
                unsigned idx = i * N + j0 + x;
                if (per == 1)
                    out[idx] = acc[x];
                else  /* two f16 a word: shifts, not a division by a per known only at run time */
                    out[idx >> 1] |= acc[x] << (16 * (idx & 1));
            }
        }
    if (!v)
        return;
    memset(v, 0, sizeof *v);
    v->classes = mma_bit_classes(in, a, b, c) | classes;
    v->at_result = v->classes;
    v->tie_exp = ISA_NO_EXPONENT;
}
