/* The T-FDPA host model against a second implementation written here from
 * the spec with MPFR (values as MPFR numbers, truncation with mpfr_trunc,
 * the final rounding by MPFR with the output's exponent range), on random
 * tiles: uniform bit patterns and tiles scaled toward the bottom of the
 * range, where truncation and e_zero matter. */
#include <mpfr.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "gen/gen.h"
#include "isa/classify.h"
#include "isa/mma.h"

typedef struct { int exp_bits, frac_bits, bias; bool e4m3; } fmt;

static fmt fmt_of(mma_type t)
{
    switch (t) {
    case MMA_F16: return (fmt){5, 10, 15, false};
    case MMA_BF16: return (fmt){8, 7, 127, false};
    case MMA_TF32: return (fmt){8, 23, 127, false};
    case MMA_E4M3: return (fmt){4, 3, 7, true};
    case MMA_E5M2: return (fmt){5, 2, 15, false};
    default: return (fmt){8, 23, 127, false};
    }
}

/* Value and T-FDPA exponent of an element; returns 1 NaN, 2 inf, 0 finite. */
static int value_of(mma_type t, uint32_t bits, mpfr_t v, long *e)
{
    if (t == MMA_TF32)
        bits &= ~0x1fffu;
    fmt f = fmt_of(t);
    uint32_t emax = (1u << f.exp_bits) - 1, fmask = (1u << f.frac_bits) - 1;
    uint32_t ex = (bits >> f.frac_bits) & emax, fr = bits & fmask;
    int sign = (bits >> (f.exp_bits + f.frac_bits)) & 1;
    if (f.e4m3 ? (ex == emax && fr == fmask) : ex == emax) {
        if (f.e4m3 || fr)
            return 1;
        mpfr_set_inf(v, sign ? -1 : 1);
        return 2;
    }
    long unbiased = ex ? (long)ex - f.bias : 1 - f.bias;
    *e = unbiased;
    mpfr_set_ui(v, ex ? fr + (1u << f.frac_bits) : fr, MPFR_RNDN);
    mpfr_mul_2si(v, v, unbiased - f.frac_bits, MPFR_RNDN);
    if (sign)
        mpfr_neg(v, v, MPFR_RNDN);
    return 0;
}

static uint32_t encode_out(mma_type d, mpfr_t s, int rho)
{
    if (mpfr_zero_p(s))
        return 0;
    int neg = mpfr_signbit(s);
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    int prec = rho == 1 ? 11 : rho == 2 ? 14 : 24;
    mpfr_t r;
    mpfr_init2(r, prec);
    mpfr_set_emin(rho == 1 ? -23 : -148);   /* smallest subnormal 2^-24 (f16) or 2^-149 */
    mpfr_set_emax(rho == 1 ? 16 : 128);
    int t = mpfr_set(r, s, rho == 1 ? MPFR_RNDN : MPFR_RNDZ);
    t = mpfr_check_range(r, t, rho == 1 ? MPFR_RNDN : MPFR_RNDZ);
    mpfr_subnormalize(r, t, rho == 1 ? MPFR_RNDN : MPFR_RNDZ);
    /* |s| >= 2^E exactly when MPFR's exponent (s = m 2^exp, 1/2 <= m < 1) exceeds E. */
    bool overflow = mpfr_inf_p(r) || mpfr_get_exp(s) > (rho == 1 ? 16 : 128);
    uint32_t out;
    if (d == MMA_F16) {
        if (overflow && rho == 1) {
            mpfr_set_inf(r, neg ? -1 : 1);
        }
        _Float16 h = (_Float16)mpfr_get_d(r, MPFR_RNDN);
        uint16_t b;
        memcpy(&b, &h, 2);
        if (mpfr_zero_p(r))
            b = neg ? 0x8000 : 0;
        out = b;
    } else {
        float x = overflow ? (neg ? -__builtin_inff() : __builtin_inff()) : mpfr_get_flt(r, MPFR_RNDN);
        if (mpfr_zero_p(r) && !overflow)
            x = neg ? -0.0f : 0.0f;
        memcpy(&out, &x, 4);
    }
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_clear(r);
    return out;
}

static uint32_t reference_step(const isa_instance *in, mma_type ab, const uint32_t *a, const uint32_t *b, unsigned l,
                               mma_type ct, uint32_t c, mma_type d)
{
    mpfr_t va, vb, prod[65], sum, tmp;
    mpfr_inits2(64, va, vb, (mpfr_ptr)0);
    mpfr_init2(sum, 400);
    mpfr_init2(tmp, 400);
    long exps[65];
    bool zero[65];
    int nan = 0, pinf = 0, ninf = 0;
    mma_type key = in->param[PARAM_E_ZERO_KEY] ? mma_row_of(in->op)->c : d;
    long ez = key == MMA_F16 ? in->param[PARAM_E_ZERO_F16] : in->param[PARAM_E_ZERO_F32];
    for (unsigned i = 0; i <= l; i++)
        mpfr_init2(prod[i], 128);
    for (unsigned i = 0; i < l; i++) {
        long ea = 0, eb = 0;
        int ka = value_of(ab, a[i], va, &ea), kb = value_of(ab, b[i], vb, &eb);
        if (ka == 1 || kb == 1 || (ka == 2 && mpfr_zero_p(vb)) || (kb == 2 && mpfr_zero_p(va)))
            nan = 1;
        else if (ka == 2 || kb == 2) {
            int neg = (mpfr_signbit(va) != 0) != (mpfr_signbit(vb) != 0);
            if (neg) ninf = 1; else pinf = 1;
        }
        if (ka || kb) {
            mpfr_set_zero(prod[i], 1);
            zero[i] = true;
            exps[i] = ez;
            continue;
        }
        mpfr_mul(prod[i], va, vb, MPFR_RNDN);  /* exact at 128 bits */
        zero[i] = mpfr_zero_p(prod[i]);
        exps[i] = zero[i] ? ez : ea + eb;
    }
    long ec = 0;
    int kc = value_of(ct, c, prod[l], &ec);
    if (kc == 1) nan = 1;
    if (kc == 2) { if (mpfr_signbit(prod[l])) ninf = 1; else pinf = 1; }
    zero[l] = kc || mpfr_zero_p(prod[l]);
    exps[l] = zero[l] ? ez : ec;
    uint32_t result;
    if (nan || (pinf && ninf)) {
        result = d == MMA_F16 ? 0x7fff : 0x7fffffff;
    } else if (pinf || ninf) {
        result = d == MMA_F16 ? (ninf ? 0xfc00 : 0x7c00) : (ninf ? 0xff800000u : 0x7f800000u);
    } else {
        long emax = exps[0];
        for (unsigned i = 1; i <= l; i++)
            if (exps[i] > emax)
                emax = exps[i];
        long g = emax - in->param[PARAM_F];
        mpfr_set_zero(sum, 1);
        for (unsigned i = 0; i <= l; i++) {
            if (zero[i])
                continue;
            mpfr_mul_2si(tmp, prod[i], -g, MPFR_RNDN);
            mpfr_trunc(tmp, tmp);                       /* toward zero on the grid */
            mpfr_mul_2si(tmp, tmp, g, MPFR_RNDN);
            mpfr_add(sum, sum, tmp, MPFR_RNDN);          /* exact at 400 bits */
        }
        result = encode_out(d, sum, in->param[PARAM_RHO]);
    }
    for (unsigned i = 0; i <= l; i++)
        mpfr_clear(prod[i]);
    mpfr_clears(va, vb, sum, tmp, (mpfr_ptr)0);
    return result;
}

static uint32_t scaled_element(mma_type t, gen_rng *r)
{
    fmt f = fmt_of(t);
    uint32_t bits = (uint32_t)gen_next(r);
    if (gen_below(r, 4) == 0)
        return 0;
    /* An exponent field near the bottom: subnormals and the smallest normals. */
    uint32_t ex = gen_below(r, 4);
    uint32_t fr = bits & ((1u << f.frac_bits) - 1);
    uint32_t sign = (bits >> 31) & 1;
    uint32_t v = sign << (f.exp_bits + f.frac_bits) | ex << f.frac_bits | fr;
    return t == MMA_TF32 ? v << 0 : v;
}

/* The classes a tile reaches by its bits (mma_bit_classes), from their
 * definitions: special, an A element whose exponent field is all ones;
 * for an output element whose C is zero (either sign), e-zero when it has
 * a product of two nonzero elements, no element with an all-ones exponent
 * field among its products, and every such product's exponents (a
 * subnormal's counted as the smallest normal's) summing below the e_zero
 * threshold; subnormal when one of its products of two nonzero elements
 * has a subnormal factor.  "Nonzero" by the element's bits below the sign
 * (tf32: its word's, the 13 bits the arithmetic ignores included: the
 * definition's own choice, which this copy cannot judge; likewise "special"
 * is a bit test, e4m3's finite 0x78-0x7e included). */
static uint32_t reference_bit_classes(const isa_instance *in, const mma_row *row, const uint32_t *A, const uint32_t *B,
                                      const uint32_t *C)
{
    fmt f = fmt_of(row->ab);
    uint32_t top = (1u << f.exp_bits) - 1, mag = (1u << (f.exp_bits + f.frac_bits)) - 1;
    uint32_t c_mag = row->c == MMA_F16 ? 0x7fffu : 0x7fffffffu;
    int threshold = mma_e_zero_threshold(in);
    uint32_t m = 1u << GEN_RANDOM;
    for (unsigned q = 0; q < row->m * row->k; q++)
        if (((mma_element(A, row->ab, q) >> f.frac_bits) & top) == top)
            m |= 1u << GEN_SPECIAL;
    for (unsigned i = 0; i < row->m; i++)
        for (unsigned j = 0; j < row->n; j++) {
            if (mma_element(C, row->c, i * row->n + j) & c_mag)
                continue;
            bool any = false, all_below = true, special = false;
            for (unsigned q = 0; q < row->k; q++) {
                uint32_t x = mma_element(A, row->ab, i * row->k + q), y = mma_element(B, row->ab, j * row->k + q);
                uint32_t ex = (x >> f.frac_bits) & top, ey = (y >> f.frac_bits) & top;
                special |= ex == top || ey == top;
                if (!(x & mag) || !(y & mag))
                    continue;
                any = true;
                int e = (ex ? (int)ex : 1) + (ey ? (int)ey : 1) - 2 * f.bias;
                all_below &= e < threshold;
                if (!ex || !ey)
                    m |= 1u << GEN_SUBNORMAL;
            }
            if (any && all_below && !special)
                m |= 1u << GEN_E_ZERO;
        }
    return m;
}

/* mma_bit_classes against the reference on tile w; false (and a line) when they differ. */
static bool same_bit_classes(const isa_instance *in, const mma_row *row, const uint32_t *w, unsigned tile)
{
    uint32_t a[MMA_MAX_ELEMENTS], b[MMA_MAX_ELEMENTS], c[MMA_MAX_ELEMENTS];
    mma_unpack(in, w, a, b, c);
    const uint32_t *A = w, *B = w + mma_words(row->ab, row->m * row->k), *C = B + mma_words(row->ab, row->k * row->n);
    uint32_t got = mma_bit_classes(in, a, b, c), want = reference_bit_classes(in, row, A, B, C);
    if (got != want)
        fprintf(stderr, "%s tile %u: bit classes %#x, reference %#x\n", in->op->name, tile, got, want);
    return got == want;
}

int main(void)
{
    unsigned total = 0;
    for (unsigned o = 0; o < isa_op_count(); o++) {
        const isa_op *op = isa_op_at(o);
        if (strcmp(op->family, "mma"))
            continue;
        const mma_row *row = mma_row_of(op);
        unsigned bad = 0, bad_fast = 0, outputs = 0, bad_classes = 0;
        for (unsigned tile = 0; tile < 300; tile++) {
            isa_instance in;
            isa_instance_default(&in, op);
            gen_rng r = gen_rng_for(77, o, tile);
            if (tile % 3 == 2)
                in.param[PARAM_E_ZERO_KEY] = 1;
            uint32_t w[ISA_MAX_IN], out[ISA_MAX_OUT], fast_out[ISA_MAX_OUT];
            for (unsigned i = 0; i < op->n_in; i++)
                w[i] = (uint32_t)gen_next(&r);
            if (tile % 2) {  /* scaled: elements near the bottom of the range, C often zero */
                unsigned per = mma_per_word(row->ab), bits = 32 / per;
                unsigned wa = mma_words(row->ab, row->m * row->k) + mma_words(row->ab, row->k * row->n);
                for (unsigned i = 0; i < wa; i++) {
                    uint32_t word = 0;
                    for (unsigned q = 0; q < per; q++)
                        word |= (per == 1 ? scaled_element(row->ab, &r) : scaled_element(row->ab, &r) & ((1u << bits) - 1)) << (bits * q);
                    w[i] = word;
                }
                if (gen_coin(&r))
                    for (unsigned i = wa; i < op->n_in; i++)
                        w[i] = 0;
            }
            op->impl->eval(&in, w, out, NULL);
            op->impl->fast(&in, w, fast_out, NULL, 0);  /* the fast path, held to the same reference */
            unsigned m = row->m, n = row->n, k = row->k;
            const uint32_t *A = w, *B = w + mma_words(row->ab, m * k), *C = B + mma_words(row->ab, k * n);
            bad_classes += !same_bit_classes(&in, row, w, tile);
            unsigned lmax = (unsigned)in.param[PARAM_L_MAX];
            for (unsigned i = 0; i < m; i++)
                for (unsigned j = 0; j < n; j++) {
                    uint32_t acc = mma_element(C, row->c, i * n + j);
                    mma_type at = row->c;
                    for (unsigned k0 = 0; k0 < k; k0 += lmax) {
                        uint32_t a[64], b[64];
                        unsigned l = k - k0 < lmax ? k - k0 : lmax;
                        for (unsigned q = 0; q < l; q++) {
                            a[q] = mma_element(A, row->ab, i * k + k0 + q);
                            b[q] = mma_element(B, row->ab, j * k + k0 + q);
                        }
                        acc = reference_step(&in, row->ab, a, b, l, at, acc, row->d);
                        at = row->d;
                    }
                    uint32_t got = mma_element(out, row->d, i * n + j);
                    uint32_t got_fast = mma_element(fast_out, row->d, i * n + j);
                    if (got_fast != acc && bad_fast++ < 3)
                        fprintf(stderr, "%s tile %u (%u,%u): fast path %08x, reference %08x\n", op->name, tile, i, j,
                                got_fast, acc);
                    outputs++;
                    if (got != acc) {
                        if (bad < 3)
                            fprintf(stderr, "%s tile %u (%u,%u): model %08x, reference %08x\n", op->name, tile, i, j, got, acc);
                        bad++;
                    }
                }
        }
        /* The generator's own tiles too: every class, each aimed at what the bit classes test. */
        gen_class mine[GEN_CLASS_COUNT], all[GEN_CLASS_COUNT];
        for (int c = 0; c < GEN_CLASS_COUNT; c++)
            all[c] = (gen_class)c;
        unsigned nm = isa_op_classes(op, all, GEN_CLASS_COUNT, mine);
        for (unsigned tile = 0; tile < 40 * nm; tile++) {
            isa_instance in;
            isa_instance_default(&in, op);
            gen_rng r = gen_rng_for(78, o, tile);
            uint32_t w[ISA_MAX_IN];
            op->impl->construct(&in, mine[tile % nm], &r, w);
            bad_classes += !same_bit_classes(&in, row, w, tile);
        }
        printf("%-40s %6u outputs vs the MPFR reference: %u mismatches (fast path: %u); bit classes: %u differ\n",
               op->name, outputs, bad, bad_fast, bad_classes);
        CHECK(bad_classes == 0, "%s: %u tiles' bit classes differ from the reference", op->name, bad_classes);
        CHECK(bad == 0, "%s: %u mismatches", op->name, bad);
        CHECK(bad_fast == 0, "%s: fast path: %u mismatches", op->name, bad_fast);
        total += outputs;
    }
    printf("%u outputs compared\n", total);
    return check_report("test_mma_reference");
}
