/* The T-FDPA host model in exact integer arithmetic (mma-tfdpa.md):
 * products exact and not renormalised, every term (C included, zero terms
 * at e_zero) truncated toward zero on the grid 2^(E_max - F), the integer
 * sum rounded once to the output, chunks of L_max products in k order. */
#include <stdlib.h>
#include <string.h>
#include "mma.h"

/* An element as (sign, integer significand, exponent of the significand's
 * unit): value = (-1)^sign * sig * 2^unit; exp is the element's exponent
 * (the minimum for a subnormal, never renormalised). */
typedef struct {
    bool sign, zero, inf, nan;
    uint64_t sig;
    int unit, exp;
} element;

/* The element as its word holds it: tf32 as an f32 word with the ignored bits cleared. */
static element decode(mma_type t, uint32_t bits)
{
    const fp_format *f = mma_format(t);
    unsigned ignored = mma_ignored_bits(t), exp_bits = f->exp_bits, frac_bits = f->precision - 1 + ignored;
    bits &= ~((1u << ignored) - 1);
    element e = {0};
    uint32_t emask = (1u << exp_bits) - 1, fmask = (1u << frac_bits) - 1;
    uint32_t ex = (bits >> frac_bits) & emask, fr = bits & fmask;
    e.sign = (bits >> (exp_bits + frac_bits)) & 1;
    if (f->finite_top ? (ex == emask && fr == fmask) : ex == emask) {
        /* e4m3 has no infinity: only S.1111.111 is NaN */
        e.nan = f->finite_top || fr != 0;
        e.inf = !e.nan;
        return e;
    }
    e.exp = ex ? (int)ex - f->bias : f->emin;
    e.sig = ex ? (fr | (1u << frac_bits)) : fr;
    e.unit = e.exp - (int)frac_bits;
    e.zero = e.sig == 0;
    return e;
}

uint32_t mma_canonical_nan(mma_type d) { return d == MMA_F16 ? 0x7fffu : 0x7fffffffu; }

uint32_t mma_infinity(mma_type d, bool sign)
{
    return d == MMA_F16 ? (sign ? 0xfc00u : 0x7c00u) : (sign ? 0xff800000u : 0x7f800000u);
}

static uint32_t round_out(const isa_instance *in, bool sign, uint64_t mag, int unit)
{
    if (mag == 0)
        return 0;  /* an exactly zero sum is +0 */
    fp_value v = fp_from_int(sign, mag, unit);
    fp_round_info info;
    switch (in->param[PARAM_RHO]) {
    case RHO_RNE_FP16:
        return (uint32_t)fp_round(&fp_f16, v, FP_RNE, &info) & 0xffff;  /* past the top: infinity */
    case RHO_RZ_E8M13: {
        /* truncated to e8m13's 14-bit significand, then encoded as f32 */
        fp_round(&fp_e8m13, v, FP_RTZ, &info);
        if (info.overflow)
            return mma_infinity(MMA_F32, sign);
        fp_value t = fp_decode(&fp_e8m13, fp_round(&fp_e8m13, v, FP_RTZ, NULL));
        return (uint32_t)fp_round(&fp_f32, t, FP_RTZ, NULL);
    }
    default: {
        uint32_t r = (uint32_t)fp_round(&fp_f32, v, FP_RTZ, &info);
        return info.overflow ? mma_infinity(MMA_F32, sign) : r;  /* RZ, yet 2^128 and above is infinity */
    }
    }
}

int mma_e_zero_threshold(const isa_instance *in)
{
    int f16 = in->param[PARAM_E_ZERO_F16], f32 = in->param[PARAM_E_ZERO_F32];
    return f16 > f32 ? f16 : f32;
}

int mma_e_zero(const isa_instance *in, mma_type d)
{
    mma_type key = in->param[PARAM_E_ZERO_KEY] ? mma_row_of(in->op)->c : d;
    return key == MMA_F16 ? in->param[PARAM_E_ZERO_F16] : in->param[PARAM_E_ZERO_F32];
}

uint32_t mma_tfdpa_info(const isa_instance *in, mma_type ab, const uint32_t *a, const uint32_t *b, unsigned l,
                        mma_type c_type, uint32_t c, mma_type d_type, mma_step_info *info)
{
    if (info)
        *info = (mma_step_info){0};
    element terms[65];
    int exps[65];
    unsigned n = 0;
    bool nan = false, pos_inf = false, neg_inf = false;
    int ez = mma_e_zero(in, d_type);
    for (unsigned i = 0; i < l; i++) {
        element x = decode(ab, a[i]), y = decode(ab, b[i]);
        element p = {0};
        p.sign = x.sign != y.sign;
        if (x.nan || y.nan || ((x.inf || y.inf) && (x.zero || y.zero)))
            nan = true;
        else if (x.inf || y.inf)
            *(p.sign ? &neg_inf : &pos_inf) = true;
        p.sig = x.sig * y.sig;          /* exact; significand in (0, 4) of 2^(e_a + e_b), not renormalised */
        p.unit = x.unit + y.unit;
        p.zero = p.sig == 0;
        exps[n] = p.zero ? ez : x.exp + y.exp;
        terms[n++] = p;
    }
    element cv = decode(c_type, c);
    if (cv.nan)
        nan = true;
    else if (cv.inf)
        *(cv.sign ? &neg_inf : &pos_inf) = true;
    exps[n] = cv.zero ? ez : cv.exp;
    terms[n++] = cv;
    if (nan || (pos_inf && neg_inf))
        return mma_canonical_nan(d_type);
    if (pos_inf || neg_inf)
        return mma_infinity(d_type, neg_inf);
    int e_max = exps[0];
    for (unsigned i = 1; i < n; i++)
        if (exps[i] > e_max)
            e_max = exps[i];
    int grid = e_max - in->param[PARAM_F];
    /* Each term truncated toward zero on the grid; the sum is exact. */
    __int128 sum = 0;
    uint64_t biggest = 0;
    for (unsigned i = 0; i < n; i++) {
        if (terms[i].zero)
            continue;
        int shift = terms[i].unit - grid;
        uint64_t m;
        if (shift >= 0)
            m = shift >= 64 ? 0 : terms[i].sig << shift;  /* terms are below 2^(F+2) units: no overflow */
        else
            m = -shift >= 64 ? 0 : terms[i].sig >> -shift;
        if (info && shift < 0 && (-shift >= 64 || (terms[i].sig & ((1ull << -shift) - 1))))
            info->truncated = true;  /* bits below the grid were dropped */
        biggest = m > biggest ? m : biggest;
        sum += terms[i].sign ? -(__int128)m : (__int128)m;
    }
    bool sign = sum < 0;
    uint64_t mag = (uint64_t)(sign ? -sum : sum);
    if (info) {
        /* cancellation: the sum lost more than 8 bits against its largest term */
        info->cancel = biggest && mag < (biggest >> 8);
        if (mag && in->param[PARAM_RHO] == RHO_RNE_FP16) {
            fp_round_info ri;
            fp_round(&fp_f16, fp_from_int(sign, mag, grid), FP_RNE, &ri);
            info->tie = ri.position == FP_TIE;
            if (ri.position != FP_TIE && ri.position != FP_EXACT && ri.shift >= 8 && ri.shift <= 127) {
                fp_u128 half = (fp_u128)1 << (ri.shift - 1);
                fp_u128 dist = ri.rem > half ? ri.rem - half : half - ri.rem;
                info->near_tie = dist <= half >> 6;
            }
        }
    }
    return round_out(in, sign, mag, grid);
}

uint32_t mma_tfdpa(const isa_instance *in, mma_type ab, const uint32_t *a, const uint32_t *b, unsigned l,
                   mma_type c_type, uint32_t c, mma_type d_type)
{
    return mma_tfdpa_info(in, ab, a, b, l, c_type, c, d_type, NULL);
}

void mma_inspect(const isa_instance *in, const uint32_t *w, unsigned i, unsigned j, mma_step_info *info)
{
    const mma_row *row = mma_row_of(in->op);
    unsigned n = row->n, k = row->k;
    const uint32_t *A = w, *B = w + mma_words(row->ab, row->m * k), *C = B + mma_words(row->ab, k * n);
    unsigned l = k < (unsigned)in->param[PARAM_L_MAX] ? k : (unsigned)in->param[PARAM_L_MAX];
    uint32_t a[64], b[64];
    for (unsigned q = 0; q < l; q++) {
        a[q] = mma_element(A, row->ab, i * k + q);
        b[q] = mma_element(B, row->ab, j * k + q);
    }
    mma_tfdpa_info(in, row->ab, a, b, l, row->c, mma_element(C, row->c, i * n + j), row->d, info);
}

/* Output element (i, j): the chunks of L_max products in k order, each result the next chunk's C. */
static uint32_t element_value(const isa_instance *in, const uint32_t *w, unsigned i, unsigned j)
{
    const mma_row *row = mma_row_of(in->op);
    unsigned m = row->m, n = row->n, k = row->k;
    const uint32_t *A = w, *B = w + mma_words(row->ab, m * k), *C = B + mma_words(row->ab, k * n);
    unsigned lmax = (unsigned)in->param[PARAM_L_MAX];
    if (!lmax || lmax > 64)
        lmax = 64;
    uint32_t acc = mma_element(C, row->c, i * n + j);
    mma_type acc_type = row->c;
    for (unsigned k0 = 0; k0 < k; k0 += lmax) {
        uint32_t a[64], b[64];
        unsigned l = k - k0 < lmax ? k - k0 : lmax;
        for (unsigned q = 0; q < l; q++) {
            a[q] = mma_element(A, row->ab, i * k + k0 + q);
            b[q] = mma_element(B, row->ab, j * k + k0 + q);
        }
        acc = mma_tfdpa(in, row->ab, a, b, l, acc_type, acc, row->d);
        acc_type = row->d;  /* the next chunk's C is this result, in the output format */
    }
    return acc;
}

unsigned mma_sensitivity(const isa_instance *in, const uint32_t *w, unsigned i, unsigned j)
{
    static const struct { int param, delta; unsigned bit; } shifts[] = {
        {PARAM_E_ZERO_F16, -1, MMA_SENS_EZ_DOWN}, {PARAM_E_ZERO_F16, 1, MMA_SENS_EZ_UP},
        {PARAM_F, -1, MMA_SENS_F_DOWN}, {PARAM_F, 1, MMA_SENS_F_UP}};
    uint32_t base = element_value(in, w, i, j);
    unsigned s = 0;
    for (unsigned q = 0; q < sizeof shifts / sizeof shifts[0]; q++) {
        isa_instance other = *in;
        other.param[shifts[q].param] += shifts[q].delta;
        if (shifts[q].param == PARAM_E_ZERO_F16)  /* whichever e_zero the key selects */
            other.param[PARAM_E_ZERO_F32] += shifts[q].delta;
        if (element_value(&other, w, i, j) != base)
            s |= shifts[q].bit;
    }
    return s;
}

void mma_eval(const isa_instance *in, const uint32_t *w, uint32_t *out, isa_trace *t)
{
    if (t) {
        t->n_steps = 0;
        t->lane[0].used = t->lane[1].used = false;
        t->note = NULL;
    }
    const mma_row *row = mma_row_of(in->op);
    unsigned wd = mma_words(row->d, row->m * row->n);
    memset(out, 0, wd * 4);
    for (unsigned i = 0; i < row->m; i++)
        for (unsigned j = 0; j < row->n; j++) {
            uint32_t acc = element_value(in, w, i, j);
            unsigned idx = i * row->n + j, per = mma_per_word(row->d);
            if (per == 1)
                out[idx] = acc;
            else
                out[idx / per] |= acc << (16 * (idx % per));
        }
}
