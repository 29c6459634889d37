/* Host model vs MPFR: every IEEE-definable RDNA 2 op, written here again
 * from the spec (rdna2-fma.md) with MPFR's correctly rounded arithmetic, and
 * compared bit for bit (any NaN equals any NaN) over cases drawn from every
 * generator class, half of them with random controls.
 * Cases per op: TIEFUZZ_MPFR_CASES (default 1M). */
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isa/classify.h"
#include "isa/rdna2.h"

typedef struct { int p, emin, emax; } range;  /* IEEE precision and normal exponent range */
static const range R16 = {11, -14, 15}, R32 = {24, -126, 127}, R64 = {53, -1022, 1023};

#define BIT(v, i) (((v) >> (i)) & 1u)

/* Round x (exact, held at high precision) into format r: mpfr_t of precision p with
 * the format's exponent range and subnormals.  Returns the value as a double. */
static double round_to(const range *r, mpfr_t x, int ternary_in)
{
    mpfr_t y;
    mpfr_init2(y, r->p);
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_set_emin(r->emin - r->p + 2);
    mpfr_set_emax(r->emax + 1);
    int t = mpfr_set(y, x, MPFR_RNDN);
    if (ternary_in && !t)
        t = ternary_in;
    t = mpfr_check_range(y, t, MPFR_RNDN);
    mpfr_subnormalize(y, t, MPFR_RNDN);
    double d = mpfr_get_d(y, MPFR_RNDN);
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    mpfr_clear(y);
    return d;
}

/* fma at working precision wide enough to be exact, then one rounding. */
static double fma_to(const range *r, double a, double b, double c, int scale)
{
    mpfr_t x, y, z, t;
    /* Wide enough that a*b + c is exact: f64 operands span about 3200 bits. */
    mpfr_inits2(r == &R64 ? 3400 : 700, x, y, z, t, (mpfr_ptr)0);
    mpfr_set_d(x, a, MPFR_RNDN);
    mpfr_set_d(y, b, MPFR_RNDN);
    mpfr_set_d(z, c, MPFR_RNDN);
    int tern = mpfr_fma(t, x, y, z, MPFR_RNDN);
    if (tern)
        abort();
    mpfr_mul_2si(t, t, scale, MPFR_RNDN);
    double d = round_to(r, t, 0);
    mpfr_clears(x, y, z, t, (mpfr_ptr)0);
    return d;
}

static double round_d(const range *r, double v)
{
    mpfr_t x;
    mpfr_init2(x, 64);
    mpfr_set_d(x, v, MPFR_RNDN);
    double d = round_to(r, x, 0);
    mpfr_clear(x);
    return d;
}

/* Bits <-> double, independent of the fp kit: hardware conversions. */
static double f32_value(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static double f16_value(uint16_t b) { _Float16 h; memcpy(&h, &b, 2); return (double)h; }
static double f64_value(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
static uint32_t f32_bits(double d) { float f = (float)d; uint32_t b; memcpy(&b, &f, 4); return b; }
static uint16_t f16_bits(double d) { _Float16 h = (_Float16)d; uint16_t b; memcpy(&b, &h, 2); return b; }
static uint64_t f64_bits(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }

static uint32_t mods32(uint32_t b, bool abs, bool neg) { if (abs) b &= 0x7fffffffu; if (neg) b ^= 0x80000000u; return b; }
static uint16_t mods16(uint16_t b, bool abs, bool neg) { if (abs) b &= 0x7fff; if (neg) b ^= 0x8000; return b; }
static uint32_t flush32(uint32_t b) { return (b & 0x7f800000u) ? b : (b & 0x80000000u); }

static uint32_t clamp32(const isa_instance *in, uint32_t b)
{
    if (!in->ctrl[CTRL_CLAMP]) return b;
    if ((b & 0x7fffffffu) > 0x7f800000u || (b >> 31)) return 0;
    return b > 0x3f800000u ? 0x3f800000u : b;
}
static uint16_t clamp16(const isa_instance *in, uint16_t b)
{
    if (!in->ctrl[CTRL_CLAMP]) return b;
    if ((b & 0x7fff) > 0x7c00 || (b >> 15)) return 0;
    return b > 0x3c00 ? 0x3c00 : b;
}

/* omod when applied: zero -> +0; scaled below the normal range -> signed zero; past max -> inf. */
static double omod(const isa_instance *in, const range *r, double v)
{
    uint32_t m = in->op->ctrl_limit[CTRL_OMOD] ? in->ctrl[CTRL_OMOD] : 0;
    if (!m || !in->param[PARAM_OMOD] || v != v || v == 0.0 / 0.0)
        return v == 0 && m && in->param[PARAM_OMOD] ? 0.0 : v;
    if (v == 0) return 0.0;
    double s = m == 1 ? v * 2 : m == 2 ? v * 4 : v * 0.5;
    double min_normal = r == &R16 ? 0x1p-14 : 0x1p-126;
    if (s < min_normal && s > -min_normal) return s < 0 ? -0.0 : 0.0;
    return round_d(r, s);
}

static uint32_t src(const isa_instance *in, const uint32_t *w, int i)
{
    return in->op->src[i] == RDNA2_SRC_K ? in->ctrl[CTRL_K] : w[in->op->src[i]];
}

static uint32_t put_half(uint32_t d, uint16_t h, bool hi) { return hi ? (d & 0xffffu) | (uint32_t)h << 16 : (d & 0xffff0000u) | h; }

/* The reference model, per form. */
static void reference(const isa_instance *in, const uint32_t *w, uint32_t *out)
{
    const isa_op *op = in->op;
    uint32_t abs = in->ctrl[CTRL_ABS], neg = in->ctrl[CTRL_NEG];
    switch ((rdna2_form)op->form) {
    case RDNA2_FMA32:
    case RDNA2_DIV_FMAS: {
        double v[3];
        for (int i = 0; i < 3; i++) v[i] = f32_value(mods32(src(in, w, i), BIT(abs, i), BIT(neg, i)));
        double r;
        if (op->form == RDNA2_DIV_FMAS && (w[3] & 1)) {
            int k = in->param[PARAM_DIV_FMAS_SCALE] ? 32 : (((w[2] >> 23) & 0xff) > 127 ? 64 : -64);
            r = in->param[PARAM_DIV_FMAS_ORDER] ? round_d(&R32, fma_to(&R32, v[0], v[1], v[2], 0) * (k > 0 ? 0x1p64 : 0x1p-64) / (k == 32 ? 0x1p32 : 1))
                                                : fma_to(&R32, v[0], v[1], v[2], k);
        } else {
            r = fma_to(&R32, v[0], v[1], v[2], 0);
        }
        out[0] = clamp32(in, f32_bits(omod(in, &R32, r)));
        break;
    }
    case RDNA2_MAD32: {
        double v[3];
        for (int i = 0; i < 3; i++) v[i] = f32_value(flush32(mods32(src(in, w, i), BIT(abs, i), BIT(neg, i))));
        double p = f32_value(flush32(f32_bits(fma_to(&R32, v[0], v[1], 0.0, 0))));
        /* fma_to(a, b, 0) gives +0 for a -0 product; the product's own sign matters. */
        if (p == 0) p = ((f32_bits(v[0]) ^ f32_bits(v[1])) >> 31) && v[0] == v[0] && v[1] == v[1] ? -0.0 : 0.0;
        if (v[0] != v[0] || v[1] != v[1] || ((v[0] == 0 || v[1] == 0) && (__builtin_isinf(v[0]) || __builtin_isinf(v[1]))))
            p = 0.0 / 0.0;
        else if (__builtin_isinf(v[0]) || __builtin_isinf(v[1]))
            p = (((f32_bits(v[0]) ^ f32_bits(v[1])) >> 31) ? -1 : 1) * __builtin_inf();
        double r = f32_value(flush32(f32_bits(round_d(&R32, p + 0.0 == 0 && v[2] == 0 ? (p == 0 && (f32_bits(p) >> 31) && (f32_bits(v[2]) >> 31) ? -0.0 : 0.0) : fma_to(&R32, 1.0, p, v[2], 0)))));
        out[0] = clamp32(in, f32_bits(omod(in, &R32, r)));
        break;
    }
    case RDNA2_MIX32:
    case RDNA2_MIX16: {
        double v[3];
        for (int i = 0; i < 3; i++) {
            uint32_t reg = src(in, w, i);
            bool a = BIT(in->ctrl[CTRL_NEG_HI], i), n = BIT(in->ctrl[CTRL_NEG_LO], i);
            v[i] = BIT(in->ctrl[CTRL_OP_SEL_HI], i) ? f16_value(mods16((uint16_t)(reg >> (16 * BIT(in->ctrl[CTRL_OP_SEL], i))), a, n))
                                                    : f32_value(mods32(reg, a, n));
        }
        if (op->form == RDNA2_MIX32) {
            out[0] = clamp32(in, f32_bits(fma_to(&R32, v[0], v[1], v[2], 0)));
        } else {
            bool all_half = (in->ctrl[CTRL_OP_SEL_HI] & 7) == 7;
            bool once = in->param[PARAM_MIX_ROUNDING] == 2 || (in->param[PARAM_MIX_ROUNDING] == 0 && all_half);
            double r = once ? fma_to(&R16, v[0], v[1], v[2], 0) : round_d(&R16, fma_to(&R32, v[0], v[1], v[2], 0));
            out[0] = put_half(w[op->n_in - 1], clamp16(in, f16_bits(r)), op->flags & RDNA2_DST_HI);
        }
        break;
    }
    case RDNA2_FMA16: {
        double v[3];
        for (int i = 0; i < 3; i++)
            v[i] = f16_value(mods16((uint16_t)(src(in, w, i) >> (16 * BIT(in->ctrl[CTRL_OP_SEL], i))), BIT(abs, i), BIT(neg, i)));
        double r = omod(in, &R16, fma_to(&R16, v[0], v[1], v[2], 0));
        out[0] = put_half(w[op->n_in - 1], clamp16(in, f16_bits(r)), BIT(in->ctrl[CTRL_OP_SEL], 3));
        break;
    }
    case RDNA2_PK16: {
        uint32_t sel[2] = {in->ctrl[CTRL_OP_SEL], op->ctrl_limit[CTRL_OP_SEL_HI] ? in->ctrl[CTRL_OP_SEL_HI] : 7u};
        uint32_t ng[2] = {in->ctrl[CTRL_NEG_LO], in->ctrl[CTRL_NEG_HI]};
        uint16_t lane[2];
        for (int l = 0; l < 2; l++) {
            double v[3];
            for (int i = 0; i < 3; i++)
                v[i] = f16_value(mods16((uint16_t)(src(in, w, i) >> (16 * BIT(sel[l], i))), false, BIT(ng[l], i)));
            lane[l] = clamp16(in, f16_bits(fma_to(&R16, v[0], v[1], v[2], 0)));
        }
        out[0] = lane[0] | (uint32_t)lane[1] << 16;
        break;
    }
    case RDNA2_FMA64: {
        double v[3];
        for (int i = 0; i < 3; i++) v[i] = f64_value(w[2 * i] | (uint64_t)w[2 * i + 1] << 32);
        uint64_t r = f64_bits(fma_to(&R64, v[0], v[1], v[2], 0));
        out[0] = (uint32_t)r;
        out[1] = (uint32_t)(r >> 32);
        break;
    }
    }
}

static bool nan32(uint32_t b) { return (b & 0x7fffffffu) > 0x7f800000u; }
static bool nan16(uint32_t b) { return (b & 0x7fff) > 0x7c00; }

static bool agree(const isa_op *op, const uint32_t *h, const uint32_t *r)
{
    for (unsigned i = 0; i < op->n_out; i++) {
        if (op->out[i].format == WORD_F64LO) {
            bool hn = (h[i + 1] & 0x7fffffffu) > 0x7ff00000u || ((h[i + 1] & 0x7fffffffu) == 0x7ff00000u && h[i]);
            bool rn = (r[i + 1] & 0x7fffffffu) > 0x7ff00000u || ((r[i + 1] & 0x7fffffffu) == 0x7ff00000u && r[i]);
            if (!((h[i] == r[i] && h[i + 1] == r[i + 1]) || (hn && rn))) return false;
            i++;
            continue;
        }
        if (h[i] == r[i]) continue;
        switch (op->out[i].format) {
        case WORD_F32: if (nan32(h[i]) && nan32(r[i])) continue; return false;
        case WORD_F16X2:
            for (int s = 0; s < 32; s += 16) {
                uint32_t a = (h[i] >> s) & 0xffff, b = (r[i] >> s) & 0xffff;
                if (a != b && !(nan16(a) && nan16(b))) return false;
            }
            continue;
        default: return false;
        }
    }
    return true;
}

int main(void)
{
    const char *env = getenv("TIEFUZZ_MPFR_CASES");
    long per_op = env ? atol(env) : 1000000;
    long failures = 0, total = 0;
    for (unsigned o = 0; o < isa_op_count(); o++) {
        const isa_op *op = isa_op_at(o);
        if (strcmp(op->family, "rdna2"))
            continue;  /* the floating-point family */
        long bad = 0;
        for (long i = 0; i < per_op; i++) {
            isa_instance in;
            isa_instance_default(&in, op);
            gen_rng r = gen_rng_for(0x4d504652, o, (uint64_t)i);
            if (i % 2)
                isa_random_controls(&in, &r);
            for (int p = 0; p < PARAM_COUNT; p++)
                if (op->params & (1u << p))
                    in.param[p] = (int32_t)gen_below(&r, isa_params[p].count);
            if (op->ctrl_limit[CTRL_K])
                in.ctrl[CTRL_K] = (uint32_t)(gen_below(&r, 4) ? gen_value_with_exp(&fp_f32, &r, gen_coin(&r), gen_range(&r, -30, 30), 0)
                                                                : gen_special(&fp_f32, &r));
            uint32_t w[ISA_MAX_IN], host[ISA_MAX_OUT], ref[ISA_MAX_OUT];
            isa_generate(&in, (gen_class)(i % (GEN_RANDOM + 1)), &r, w);
            op->impl->eval(&in, w, host, NULL);
            reference(&in, w, ref);
            total++;
            if (!agree(op, host, ref)) {
                if (bad < 5) {
                    char ctl[256], par[256];
                    fprintf(stderr, "MISMATCH %s ctrl %s param %s in", op->name, isa_controls_text(&in, ctl, sizeof ctl),
                            isa_params_text(&in, par, sizeof par));
                    for (unsigned k = 0; k < op->n_in; k++) fprintf(stderr, " %08x", w[k]);
                    fprintf(stderr, " host");
                    for (unsigned k = 0; k < op->n_out; k++) fprintf(stderr, " %08x", host[k]);
                    fprintf(stderr, " mpfr");
                    for (unsigned k = 0; k < op->n_out; k++) fprintf(stderr, " %08x", ref[k]);
                    fprintf(stderr, "\n");
                }
                bad++;
            }
        }
        printf("%-24s %8ld cases vs MPFR: %ld mismatches\n", op->name, per_op, bad);
        failures += bad;
    }
    printf("%ld cases, %ld mismatches\n", total, failures);
    return failures ? 1 : 0;
}
