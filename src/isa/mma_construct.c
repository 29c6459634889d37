/* The tensor-core family's tiles aimed at the generator classes, and the
 * verification of the classes a tile reaches.  A tuple's layout: mma.h. */
#include <string.h>
#include "mma.h"

/* An element's fields as its word holds them: exponent bits, fraction bits
 * and bias (tf32: an f32 word, whose low bits it ignores). */
typedef struct { unsigned eb, fb; int bias; } ab_fmt;
static ab_fmt ab_fmt_of(mma_type t)
{
    const fp_format *f = mma_format(t);
    return (ab_fmt){f->exp_bits, f->precision - 1 + mma_ignored_bits(t), f->bias};
}

/* The element pickers take one draw an element, its fields from separate
 * bits of it (fraction from bit 0, exponent field from bit 32, the zero
 * choice from bit 40, sign from bit 63): three or four draws an element
 * were a sixth of a subnormal or e-zero tile's generation. */
static uint32_t bottom_bits(mma_type t, uint64_t z)
{
    /* An exponent field of 0..3: subnormals and the smallest normals. */
    unsigned fb = ab_fmt_of(t).fb, width = mma_format(t)->bits + mma_ignored_bits(t);
    uint32_t v = ((uint32_t)z & ((1u << fb) - 1)) | (uint32_t)(z >> 32 & 3) << fb;
    return z >> 63 ? v | 1u << (width - 1) : v;
}

static uint32_t bottom_element(mma_type t, gen_rng *r) { return bottom_bits(t, gen_next(r)); }

static void fill_part(uint32_t *w, mma_type t, unsigned count, gen_rng *r, uint32_t (*pick)(mma_type, gen_rng *))
{
    unsigned per = mma_per_word(t), bits = 32 / per;
    for (unsigned i = 0; i < count; i++) {
        uint32_t v = pick(t, r);
        if (per == 1)
            w[i] = v;
        else
            w[i / per] = (w[i / per] & ~(((1u << bits) - 1) << (bits * (i % per)))) | (v & ((1u << bits) - 1)) << (bits * (i % per));
    }
}

/* Zero a third of the time, else a bottom element. */
static uint32_t zero_or_bottom(mma_type t, gen_rng *r)
{
    uint64_t z = gen_next(r);
    return (z >> 40 & 0xfffff) % 3 ? bottom_bits(t, z) : 0;
}

static uint32_t special_element(mma_type t, gen_rng *r)
{
    static const uint32_t f16[] = {0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x0000, 0x8000, 0x3c00, 0x7bff};
    static const uint32_t bf16[] = {0x7f80, 0xff80, 0x7fc0, 0x7f81, 0x0000, 0x8000, 0x3f80, 0x7f7f};
    static const uint32_t f32[] = {0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0, 0x80000000, 0x3f800000, 0x7f7fffff};
    static const uint32_t e4m3[] = {0x7f, 0xff, 0x7e, 0x00, 0x80, 0x38, 0x01, 0x77};
    static const uint32_t e5m2[] = {0x7c, 0xfc, 0x7e, 0x7d, 0x00, 0x80, 0x3c, 0x7b};
    uint64_t z = gen_next(r);
    unsigned k = z & 7;
    if (z >> 3 & 3)  /* three times in four, random bits (the draw's top half) */
        return (uint32_t)(z >> 32);
    switch (t) {
    case MMA_F16: return f16[k];
    case MMA_BF16: return bf16[k];
    case MMA_E4M3: return e4m3[k];
    case MMA_E5M2: return e5m2[k];
    default: return f32[k];
    }
}


/* Bits of (-1)^sign * (1 + frac * 2^-fb) * 2^e in t, or UINT32_MAX if t cannot hold it exactly. */
static uint32_t encode(mma_type t, bool sign, int e, uint32_t frac)
{
    ab_fmt f = ab_fmt_of(t);
    const fp_format *ff = mma_format(t);
    int emin = ff->emin, emax = ff->emax;  /* e4m3 uses the top exponent field for numbers (finite_top) */
    if (frac & ((1u << mma_ignored_bits(t)) - 1))
        return UINT32_MAX;
    uint32_t s = (uint32_t)sign << (f.eb + f.fb);
    if (e > emax || (ff->finite_top && e == emax && frac == (1u << f.fb) - 1))
        return UINT32_MAX;
    if (e >= emin)
        return s | (uint32_t)(e + f.bias) << f.fb | frac;
    int shift = emin - e;  /* subnormal: (1.frac) >> shift must stay exact */
    uint32_t sig = frac | 1u << f.fb;
    if (shift > (int)f.fb || (sig & ((1u << shift) - 1)))
        return UINT32_MAX;
    return s | sig >> shift;
}

static void set_element(uint32_t *part, mma_type t, unsigned index, uint32_t v)
{
    unsigned per = mma_per_word(t), bits = 32 / per;
    if (per == 1)
        part[index] = v;
    else
        part[index / per] = (part[index / per] & ~(((1u << bits) - 1) << (bits * (index % per)))) |
                            (v & ((1u << bits) - 1)) << (bits * (index % per));
}

/* Element (0,0) of the tile as designed products a[q] * b[q] (the rest of
 * row 0 and column 0 zero) and C zero; false when a value is not representable. */
static bool design(const mma_row *row, uint32_t *w, const uint32_t *a, const uint32_t *b, unsigned n)
{
    uint32_t *A = w, *B = w + mma_words(row->ab, row->m * row->k), *C = B + mma_words(row->ab, row->k * row->n);
    for (unsigned q = 0; q < row->k; q++) {
        uint32_t x = q < n ? a[q] : 0, y = q < n ? b[q] : 0;
        if (x == UINT32_MAX || y == UINT32_MAX)
            return false;
        set_element(A, row->ab, q, x);
        set_element(B, row->ab, q, y);
    }
    set_element(C, row->c, 0, 0);
    return true;
}

/* Bits of (-1)^sign * sig * 2^ex in t (sig >= 1), or UINT32_MAX where t cannot hold it exactly. */
static uint32_t value_bits(mma_type t, bool sign, uint32_t sig, int ex)
{
    unsigned len = 0;
    while (len < 32 && sig >> len)
        len++;
    unsigned fb = ab_fmt_of(t).fb;
    if (!sig || len - 1 > fb)
        return UINT32_MAX;
    return encode(t, sign, ex + (int)len - 1, (sig - (1u << (len - 1))) << (fb - (len - 1)));
}

/* An element's exponent as the model aligns it: the field's, the minimum for a subnormal. */
static int nominal_exp(mma_type t, uint32_t bits)
{
    ab_fmt f = ab_fmt_of(t);
    uint32_t ex = (bits >> f.fb) & ((1u << f.eb) - 1);
    return ex ? (int)ex - f.bias : mma_format(t)->emin;
}

static int pick(gen_rng *r, int lo, int hi) { return lo > hi ? lo : gen_range(r, lo, hi); }

/* A product a * b equal to (-1)^sign * sig * 2^ex of one operand kind, drawn:
 * normal x normal, normal x subnormal, subnormal x normal or subnormal x subnormal
 * (the next kind where one cannot hold it).  b is a power of two. */
static bool product_of(mma_type t, gen_rng *r, bool sign, uint32_t sig, int ex, uint32_t *a, uint32_t *b)
{
    const fp_format *f = mma_format(t);
    int p = (int)f->precision, emin = f->emin, emax = f->emax, len = 0;
    while (len < 32 && sig >> len)
        len++;
    int top = ex + len - 1;  /* the value's exponent: a's is top - s for b = 2^s */
    int first = (int)gen_below(r, 4);
    for (int step = 0; step < 4; step++) {
        int kind = (first + step) % 4;
        bool a_sub = kind & 1, b_sub = kind & 2;
        int blo = b_sub ? emin - (p - 1) : emin, bhi = b_sub ? emin - 1 : emax;
        int alo = a_sub ? emin - (p - 1) : emin, ahi = a_sub ? emin - 1 : emax;
        int lo = top - ahi > blo ? top - ahi : blo, hi = top - alo < bhi ? top - alo : bhi;
        if (lo > hi)
            continue;
        for (int tries = 0; tries < 4; tries++) {
            int sh = pick(r, lo, hi);
            uint32_t x = value_bits(t, sign, sig, ex - sh), y = value_bits(t, false, 1, sh);
            if (x != UINT32_MAX && y != UINT32_MAX) {
                *a = x, *b = y;
                return true;
            }
        }
    }
    return false;
}

/* Issue 12, item 3: element (0,0)'s truncated sum on an output tie (RNE-FP16) or
 * on an output grid point (the rounding toward zero outputs), plus one product
 * 2^k at the bit that e_zero (want_ez) or F decides: 2^(E_max - F + j), j of
 * -2..1 (mostly the last kept bit, j = 0, and the first dropped one, j = -1),
 * its sign the one that moves the rounded result.  For e_zero the sum stays
 * below e_zero - 2 so that e_zero sets E_max; for F its level is drawn over
 * normal and subnormal outputs.  Every product's operand kind is drawn.  Kept
 * only when the model says the element changes with e_zero (F) one off. */
static bool construct_grid_bit(const isa_instance *in, bool want_ez, gen_rng *r, uint32_t *w)
{
    const mma_row *row = mma_row_of(in->op);
    const fp_format *fa = mma_format(row->ab);
    int rho = in->param[PARAM_RHO], F = in->param[PARAM_F], Z = mma_e_zero(in, row->d);
    const fp_format *fo = rho == RHO_RNE_FP16 ? &fp_f16 : rho == RHO_RZ_E8M13 ? &fp_e8m13 : &fp_f32;
    bool ties = rho == RHO_RNE_FP16;
    int p_out = (int)fo->precision, p_ab = (int)fa->precision;
    int u_min = fo->emin - (p_out - 1);                   /* the output's smallest unit */
    int prod_min = 2 * (fa->emin - (p_ab - 1));          /* the smallest product */
    unsigned l = row->k < (unsigned)in->param[PARAM_L_MAX] ? row->k : (unsigned)in->param[PARAM_L_MAX];
    if (l < 3)
        return false;
    int hi, lo = u_min > prod_min + p_ab ? u_min : prod_min + p_ab;
    if (want_ez) {
        hi = Z - 3;
        if (Z - F - 2 < prod_min)
            return false;  /* every product lies above e_zero: it never sets E_max */
    } else {
        hi = 3;
        if (lo < prod_min + F + 3)
            lo = prod_min + F + 3;
        if (gen_below(r, 3) == 0 && fo->emin - 1 >= lo)
            hi = fo->emin - 1;  /* a subnormal output level */
        else if (fo->emin > lo)
            lo = fo->emin < hi - 6 ? fo->emin : hi - 6;
    }
    if (lo > hi)
        return false;
    for (int attempt = 0; attempt < 8; attempt++) {
        int eo = gen_range(r, lo, hi);
        int u = (eo > fo->emin ? eo : fo->emin) - (p_out - 1);  /* the output unit at this level */
        bool sx = gen_coin(r);
        uint32_t a[3], b[3];
        unsigned n = 0;
        /* x on the output grid: at most p_ab bits, the lowest at or above u */
        int maxlen = eo - u + 1 < p_ab ? eo - u + 1 : p_ab;
        int len = gen_range(r, 1, maxlen);
        uint32_t sig = 1u << (len - 1) | ((uint32_t)gen_next(r) & ((1u << (len - 1)) - 1));
        int xe = eo - len + 1;
        bool with_x = !ties || gen_below(r, 4);  /* a tie may be between 0 and the smallest unit */
        if (with_x && !product_of(row->ab, r, sx, sig, xe, &a[n], &b[n]))
            continue;
        n += with_x;
        bool up = true;  /* which way the grid bit has to push the sum (in x's sign) */
        if (ties) {
            int tu = with_x ? u : u_min;
            if (!product_of(row->ab, r, sx, 1, tu - 1, &a[n], &b[n]))
                continue;
            n++;
            /* the tie goes to the even neighbour: the grid bit must push toward the odd one */
            bool low_odd = with_x && xe == tu && (sig & 1);
            up = !low_odd;
        } else {
            up = false;  /* toward zero: only a term of the other sign moves the result */
        }
        int e_max = Z;
        for (unsigned q = 0; q < n; q++) {
            int e = nominal_exp(row->ab, a[q]) + nominal_exp(row->ab, b[q]);
            e_max = e > e_max ? e : e_max;
        }
        if (want_ez && e_max != Z)
            continue;
        int j = gen_below(r, 4) ? -(int)gen_below(r, 2) : (gen_coin(r) ? 1 : -2);
        if (!product_of(row->ab, r, up ? sx : !sx, 1, e_max - F + j, &a[n], &b[n]))
            continue;
        n++;
        /* the three products at distinct places among the first chunk's l */
        uint32_t pa[64] = {0}, pb[64] = {0};
        unsigned slot[3];
        for (unsigned q = 0; q < n; q++) {
            bool clash;
            do {
                slot[q] = gen_below(r, l);
                clash = false;
                for (unsigned o = 0; o < q; o++)
                    clash |= slot[o] == slot[q];
            } while (clash);
            pa[slot[q]] = a[q], pb[slot[q]] = b[q];
        }
        if (!design(row, w, pa, pb, l))
            continue;
        unsigned s = mma_sensitivity(in, w, 0, 0);
        if (s & (want_ez ? MMA_SENS_EZ_DOWN | MMA_SENS_EZ_UP : MMA_SENS_F_DOWN | MMA_SENS_F_UP))
            return true;
    }
    return false;
}

static bool construct_aimed(const isa_instance *in, gen_class c, gen_rng *r, uint32_t *w)
{
    const mma_row *row = mma_row_of(in->op);
    ab_fmt f = ab_fmt_of(row->ab);
    int F = in->param[PARAM_F];
    uint32_t fmask = (1u << f.fb) - 1;
    uint32_t one = encode(row->ab, false, 0, 0);
    for (int attempt = 0; attempt < 8; attempt++) {
        int e = gen_range(r, -3, 3);
        bool s = gen_coin(r);
        uint32_t x = encode(row->ab, s, e, (uint32_t)gen_next(r) & fmask & (row->ab == MMA_TF32 ? ~0x1fffu : ~0u));
        uint32_t a[3], b[3];
        unsigned n = 0;
        if (c == GEN_TIE || c == GEN_NEAR_TIE) {
            /* x plus half a unit of x at f16 precision: an f16 tie (RNE-FP16 outputs) */
            a[n] = x, b[n++] = one;
            a[n] = encode(row->ab, s, e - 11, 0), b[n++] = one;
            if (c == GEN_NEAR_TIE) {
                int below = gen_range(r, 7, 10);  /* before the sign: draws as statements (gen_near_subnormal) */
                a[n] = encode(row->ab, gen_coin(r), e - 11 - below, 0), b[n++] = one;
            }
        } else if (c == GEN_TRUNCATION) {
            /* 2^e and a term just past the grid 2^(e - F): its lowest bit falls below */
            int k = gen_range(r, 0, 2);
            a[n] = encode(row->ab, s, e, 0), b[n++] = one;
            a[n] = encode(row->ab, gen_coin(r), 0, 1), b[n++] = encode(row->ab, false, e - F - k, 0);
        } else if (c == GEN_CANCEL) {
            a[n] = x, b[n++] = one;
            a[n] = x ^ (1u << (f.eb + f.fb)), b[n++] = one;
            /* The class counts a sum more than 8 bits below its largest term
             * (mma_step_classes): 2^(e - 8) only when x is not a power of two, and
             * from 2^(e - 9) down always, for the rows' F (13 and up: the term stays on
             * the grid; 4..7 never counted, and were built again). */
            int below = gen_range(r, 8, 12);  /* before the sign */
            a[n] = encode(row->ab, gen_coin(r), e - below, 0), b[n++] = one;
        } else {
            return false;
        }
        if (design(row, w, a, b, n))
            return true;
    }
    return true;
}

/* Whether a product can sit below e_zero (mma_bit_classes' test): the
 * smallest elements' exponents must sum below it.  Not so for e4m3 at the
 * architecture's e_zero (-6 - 6 against -20): the tile is built all the
 * same, but not built again in vain (three more attempts a case). */
static bool e_zero_in_reach(const isa_instance *in)
{
    return 2 * mma_format(mma_row_of(in->op)->ab)->emin < mma_e_zero_threshold(in);
}

bool mma_construct(const isa_instance *in, gen_class c, gen_rng *r, uint32_t *w)
{
    const mma_row *row = mma_row_of(in->op);
    /* Random words under the designs that place a few elements; the classes
     * that draw every element start from zeros (the draws were wasted). */
    if (c == GEN_E_ZERO || c == GEN_SUBNORMAL || c == GEN_SPECIAL)
        memset(w, 0, in->op->n_in * sizeof *w);
    else
        for (unsigned i = 0; i < in->op->n_in; i++)
            w[i] = (uint32_t)gen_next(r);
    unsigned na = row->m * row->k, nb = row->k * row->n, nc = row->m * row->n;
    uint32_t *A = w, *B = w + mma_words(row->ab, na), *C = B + mma_words(row->ab, nb);
    switch (c) {
    case GEN_RANDOM:
        return true;
    case GEN_E_ZERO:
        /* C zero and products straddling the e_zero values: small elements, some zero. */
        fill_part(A, row->ab, na, r, zero_or_bottom);
        fill_part(B, row->ab, nb, r, zero_or_bottom);
        memset(C, 0, mma_words(row->c, nc) * 4);
        construct_grid_bit(in, true, r, w);  /* element (0,0): a tie and the bit e_zero decides */
        return e_zero_in_reach(in);
    case GEN_SUBNORMAL:
        fill_part(A, row->ab, na, r, bottom_element);
        fill_part(B, row->ab, nb, r, bottom_element);
        /* The class needs a zero C beside a subnormal product (mma_bit_classes):
         * C all zero, or C's elements small too, a third of them zero.  A random
         * C (the other half, before) never had one, and was built again. */
        if (gen_coin(r))
            memset(C, 0, mma_words(row->c, nc) * 4);
        else
            fill_part(C, row->c, nc, r, zero_or_bottom);
        return true;
    case GEN_SPECIAL:
        fill_part(A, row->ab, na, r, special_element);
        fill_part(B, row->ab, nb, r, special_element);
        fill_part(C, row->c, nc, r, special_element);
        return true;
    case GEN_TRUNCATION:
        if (construct_grid_bit(in, false, r, w))
            return true;
        return construct_aimed(in, c, r, w);
    case GEN_TIE:
    case GEN_NEAR_TIE:
    case GEN_CANCEL:
        return construct_aimed(in, c, r, w);
    default:
        return false;
    }
}

/* What mma_bit_classes reads of an element: its exponent as the test
 * counts it (a subnormal's as the smallest normal's) and three flags. */
enum { BIT_TOP = 1, BIT_ZERO = 2, BIT_SUB = 4 };
typedef struct {
    int16_t e;
    uint8_t flags;
} bit_view;

static void bit_views(ab_fmt f, const uint32_t *x, unsigned n, bit_view *out)
{
    uint32_t top = (1u << f.eb) - 1, mag = (1u << (f.fb + f.eb)) - 1;
    for (unsigned q = 0; q < n; q++) {
        uint32_t ex = (x[q] >> f.fb) & top;
        out[q].e = (int16_t)(ex ? (int)ex - f.bias : 1 - f.bias);
        out[q].flags = (uint8_t)((ex == top ? BIT_TOP : 0) | (!(x[q] & mag) ? BIT_ZERO : 0) | (!ex ? BIT_SUB : 0));
    }
}

/* The classes a tile reaches by its elements' bits alone (e-zero,
 * subnormal, special), from its elements unpacked: a[i*K + q], b[j*K + q],
 * c[i*N + j].  Shared by the exact and the fast classifier: no arithmetic
 * to audit here. */
uint32_t mma_bit_classes(const isa_instance *in, const uint32_t *a, const uint32_t *b, const uint32_t *c)
{
    const mma_row *row = mma_row_of(in->op);
    uint32_t m = 1u << GEN_RANDOM;
    unsigned K = row->k, N = row->n;
    int threshold = mma_e_zero_threshold(in);
    ab_fmt f = ab_fmt_of(row->ab);
    uint32_t c_mag = row->c == MMA_F16 ? 0x7fffu : 0x7fffffffu;
    /* A line's views are read only where a C element is zero, so they are
     * made when first needed: most tiles of most classes have one zero C or
     * none (all of them: a seventh of a Volta tile's generation). */
    bit_view va[MMA_MAX_ELEMENTS], vb[MMA_MAX_ELEMENTS];
    uint64_t a_seen = 0, b_seen = 0;  /* a bit a line (m, n <= 64: mma_table.c) */
    const uint32_t by_c = 1u << GEN_E_ZERO | 1u << GEN_SUBNORMAL;  /* what the loop finds: it stops with both */
    for (unsigned i = 0; i < row->m && (m & by_c) != by_c; i++)
        for (unsigned j = 0; j < N && (m & by_c) != by_c; j++) {
            if (c[i * N + j] & c_mag)
                continue;
            if (!(a_seen >> i & 1))
                bit_views(f, a + i * K, K, va + i * K), a_seen |= 1ull << i;
            if (!(b_seen >> j & 1))
                bit_views(f, b + j * K, K, vb + j * K), b_seen |= 1ull << j;
            /* C is zero: e_zero decides E_max when every nonzero product sits below it;
             * subnormal when a nonzero product has a subnormal factor, wherever it
             * lies (the scan once stopped at the first product at or above the
             * threshold, and missed the subnormal ones after it: test mma-reference). */
            bool any = false, below = true, special = false, subnormal = (m >> GEN_SUBNORMAL) & 1;
            for (unsigned q = 0; q < K && (below || !subnormal); q++) {
                bit_view x = va[i * K + q], y = vb[j * K + q];
                special |= ((x.flags | y.flags) & BIT_TOP) != 0;
                if ((x.flags | y.flags) & BIT_ZERO)
                    continue;
                subnormal |= ((x.flags | y.flags) & BIT_SUB) != 0;
                any = true;
                below &= x.e + y.e < threshold;
            }
            if (any && below && !special)
                m |= 1u << GEN_E_ZERO;
            if (subnormal)
                m |= 1u << GEN_SUBNORMAL;
        }
    uint32_t top = (1u << f.eb) - 1;
    for (unsigned q = 0; q < row->m * K; q++)  /* an exponent field all ones in A (a bit test: e4m3's 0x78-0x7e too) */
        if (((a[q] >> f.fb) & top) == top)
            m |= 1u << GEN_SPECIAL;
    return m;
}

uint32_t mma_step_classes(const mma_step_info *info)
{
    return (info->tie ? 1u << GEN_TIE : 0) | (info->near_tie ? 1u << GEN_NEAR_TIE : 0) |
           (info->truncated ? 1u << GEN_TRUNCATION : 0) | (info->cancel ? 1u << GEN_CANCEL : 0);
}

/* n elements of type t from their words, as mma_element reads each: the
 * elements a word holds decided once, not once an element. */
static void unpack_part(const uint32_t *w, mma_type t, unsigned n, uint32_t *out)
{
    switch (mma_per_word(t)) {
    case 1:
        memcpy(out, w, n * sizeof *out);
        break;
    case 2:
        for (unsigned q = 0; q < n; q++)
            out[q] = (w[q / 2] >> (16 * (q % 2))) & 0xffff;
        break;
    default:
        for (unsigned q = 0; q < n; q++)
            out[q] = (w[q / 4] >> (8 * (q % 4))) & 0xff;
        break;
    }
}

void mma_unpack(const isa_instance *in, const uint32_t *w, uint32_t *a, uint32_t *b, uint32_t *c)
{
    const mma_row *row = mma_row_of(in->op);
    unsigned na = row->m * row->k, nb = row->k * row->n, nc = row->m * row->n;
    const uint32_t *A = w, *B = w + mma_words(row->ab, na), *C = B + mma_words(row->ab, nb);
    unpack_part(A, row->ab, na, a);
    unpack_part(B, row->ab, nb, b);
    unpack_part(C, row->c, nc, c);
}

/* Verified classes of a tile (the exact classifier: each element's first
 * step re-run by mma_inspect). */
uint32_t mma_classify(const isa_instance *in, const uint32_t *w, const isa_trace *t, uint32_t want)
{
    (void)t;
    const mma_row *row = mma_row_of(in->op);
    uint32_t a[MMA_MAX_ELEMENTS], b[MMA_MAX_ELEMENTS], c[MMA_MAX_ELEMENTS];
    mma_unpack(in, w, a, b, c);
    uint32_t m = mma_bit_classes(in, a, b, c);
    if (want & MMA_STEP_CLASSES)
        for (unsigned i = 0; i < row->m; i++)
            for (unsigned j = 0; j < row->n; j++) {
                mma_step_info info;
                mma_inspect(in, w, i, j, &info);
                m |= mma_step_classes(&info);
            }
    return m;
}
