/* Translations of the RDNA 2 multiply-adds to SPIR-V.
 *
 * Both lowerings share the plumbing (operand selection, sign modifiers,
 * omod, clamp, half placement: all integer edits of bit patterns) and differ
 * only in the arithmetic core:
 *  - direct: the translation decision (doc/translation.md): GLSL.std.450 Fma for the
 *    fused f32 forms; for the all-half fused forms an exact f32 product,
 *    TwoSum, round to odd and a conversion to f16; Fma then conversion for a
 *    mix narrowing with an f32 source; NoContraction multiply and add with
 *    explicit flushing for the legacy forms.
 *  - exact: f64 emulation (emulate.c) that is bit-exact on any device that
 *    offers Float64, Int64 and RTE for f64. */
#include <stddef.h>
#include <stdio.h>
#include "rdna2.h"
#include "../spirv/emulate.h"
#include "../spirv/kernel.h"

#define BIT(v, i) (((v) >> (i)) & 1u)

typedef struct {
    const isa_instance *in;
    isa_lowering l;
    spv_builder *b;
    const unsigned *words;
    unsigned k;  /* the literal, a specialization constant (SpecId 0) */
} lower_ctx;

static unsigned source_reg(lower_ctx *c, int i)
{
    int s = c->in->op->src[i];
    if (s != RDNA2_SRC_K)
        return c->words[s];
    if (!c->k)
        c->k = sb_spec_u32(c->b, 0, c->in->ctrl[CTRL_K]);
    return c->k;
}

static unsigned half_of(spv_builder *b, unsigned reg, bool hi) { return sb_and(b, sb_shr(b, reg, hi ? 16 : 0), 0xffff); }

static unsigned put_half(spv_builder *b, unsigned d, unsigned h, bool hi)
{
    if (hi)
        return sb_op(b, T_U32, "OpBitwiseOr $ $", sb_and(b, d, 0xffff), sb_shl(b, h, 16));
    return sb_op(b, T_U32, "OpBitwiseOr $ $", sb_and(b, d, 0xffff0000u), h);
}

/* ---- direct-lowering helpers (plain float arithmetic) ---- */

static unsigned f32_of(spv_builder *b, unsigned bits) { return sb_bitcast(b, T_F32, bits); }
static unsigned bits_of(spv_builder *b, unsigned f) { return sb_bitcast(b, T_U32, f); }

static unsigned f32_from_half(spv_builder *b, unsigned h)
{
    unsigned v = sb_bitcast(b, T_V2F16, h);
    unsigned x = sb_op(b, T_F16, "OpCompositeExtract $ 0", v);
    return sb_op(b, T_F32, "OpFConvert $", x);
}

static unsigned half_bits_from_f32(spv_builder *b, unsigned f)
{
    unsigned h = sb_op(b, T_F16, "OpFConvert $", f);
    unsigned v = sb_op(b, T_V2F16, "OpCompositeConstruct $ $", h, h);
    return sb_and(b, sb_bitcast(b, T_U32, v), 0xffff);
}

static unsigned fop(spv_builder *b, const char *fmt, unsigned x, unsigned y)
{
    unsigned r = sb_op(b, T_F32, fmt, x, y);
    sb_no_contraction(b, r);
    return r;
}

/* fused_to_half (doc/translation.md) in f32: the product of halves is exact; TwoSum finds
 * the sum's error; round to odd; one conversion to f16. */
static unsigned direct_sum_to_half(spv_builder *b, unsigned p, unsigned c)
{
    unsigned s = fop(b, "OpFAdd $ $", p, c);
    unsigned cv = fop(b, "OpFSub $ $", s, p);
    unsigned pv = fop(b, "OpFSub $ $", s, cv);
    unsigned e = fop(b, "OpFAdd $ $", fop(b, "OpFSub $ $", p, pv), fop(b, "OpFSub $ $", c, cv));
    unsigned sb_ = bits_of(b, s), eb = bits_of(b, e);
    unsigned inexact = sb_op(b, T_BOOL, "OpFOrdNotEqual $ $", e, f32_of(b, sb_u32(b, 0)));
    unsigned even = sb_ieq(b, sb_and(b, sb_, 1), 0);
    unsigned toward_zero = sb_ugt(b, sb_and(b, sb_op(b, T_U32, "OpBitwiseXor $ $", sb_, eb), 0x80000000u), 0);
    unsigned moved = sb_select(b, T_U32, toward_zero, sb_op(b, T_U32, "OpISub $ $", sb_, sb_u32(b, 1)),
                               sb_op(b, T_U32, "OpBitwiseOr $ $", sb_, sb_u32(b, 1)));
    unsigned odd = sb_select(b, T_U32, sb_op(b, T_BOOL, "OpLogicalAnd $ $", inexact, even), moved, sb_);
    return half_bits_from_f32(b, f32_of(b, odd));
}

/* ---- the arithmetic cores ---- */

/* round_f32(a*b + c) of three f32 bit patterns, scaled by 2^k (k from a
 * runtime select, as an f64 value) before or after rounding. */
static unsigned fma32(lower_ctx *c, unsigned a, unsigned bb, unsigned cc)
{
    spv_builder *b = c->b;
    if (c->l == LOWERING_DIRECT)
        return bits_of(b, sb_glsl(b, T_F32, "Fma $ $ $", f32_of(b, a), f32_of(b, bb), f32_of(b, cc)));
    unsigned p = emu_mul(b, emu_decode(b, &fp_f32, a), emu_decode(b, &fp_f32, bb));
    return emu_round(b, &fp_f32, emu_sum_to_odd(b, p, emu_decode(b, &fp_f32, cc)));
}

static unsigned div_fmas(lower_ctx *c, unsigned a, unsigned bb, unsigned cc, unsigned vcc_word, unsigned s2_raw)
{
    spv_builder *b = c->b;
    const isa_instance *in = c->in;
    unsigned vcc = sb_ugt(b, sb_and(b, vcc_word, 1), 0);
    double up = in->param[PARAM_DIV_FMAS_SCALE] == 1 ? 0x1p32 : 0x1p64;
    double down = in->param[PARAM_DIV_FMAS_SCALE] == 1 ? 0x1p32 : 0x1p-64;
    unsigned big = sb_ugt(b, sb_and(b, sb_shr(b, s2_raw, 23), 0xff), 127);
    if (c->l == LOWERING_DIRECT) {
        /* A translator's natural form: the rounded fma, times the scale in f32. */
        unsigned r = sb_glsl(b, T_F32, "Fma $ $ $", f32_of(b, a), f32_of(b, bb), f32_of(b, cc));
        unsigned scale = sb_select(b, T_U32, big, sb_u32(b, 0x5f800000u), sb_u32(b, 0x1f800000u));
        if (in->param[PARAM_DIV_FMAS_SCALE] == 1)
            scale = sb_u32(b, 0x4f800000u);
        unsigned scaled = fop(b, "OpFMul $ $", r, f32_of(b, scale));
        return bits_of(b, sb_select(b, T_F32, vcc, scaled, r));
    }
    unsigned p = emu_mul(b, emu_decode(b, &fp_f32, a), emu_decode(b, &fp_f32, bb));
    unsigned s = emu_sum_to_odd(b, p, emu_decode(b, &fp_f32, cc));
    unsigned scale = sb_select(b, T_F64, big, sb_f64(b, up), sb_f64(b, down));
    scale = sb_select(b, T_F64, vcc, scale, sb_f64(b, 1.0));
    if (in->param[PARAM_DIV_FMAS_ORDER] == 0)  /* the exact value scaled, rounded once */
        return emu_round(b, &fp_f32, emu_mul(b, s, scale));
    unsigned r = emu_round(b, &fp_f32, s);
    return emu_round(b, &fp_f32, emu_mul(b, emu_decode(b, &fp_f32, r), scale));
}

static unsigned mad32(lower_ctx *c, unsigned a, unsigned bb, unsigned cc)
{
    spv_builder *b = c->b;
    a = emu_flush(b, &fp_f32, a);
    bb = emu_flush(b, &fp_f32, bb);
    cc = emu_flush(b, &fp_f32, cc);
    unsigned p, s;
    if (c->l == LOWERING_DIRECT) {
        p = emu_flush(b, &fp_f32, bits_of(b, fop(b, "OpFMul $ $", f32_of(b, a), f32_of(b, bb))));
        s = bits_of(b, fop(b, "OpFAdd $ $", f32_of(b, p), f32_of(b, cc)));
    } else {
        p = emu_flush(b, &fp_f32, emu_round(b, &fp_f32, emu_mul(b, emu_decode(b, &fp_f32, a), emu_decode(b, &fp_f32, bb))));
        s = emu_round(b, &fp_f32, emu_sum_to_odd(b, emu_decode(b, &fp_f32, p), emu_decode(b, &fp_f32, cc)));
    }
#ifdef TIEFUZZ_PLANT_MAD_SUM_FLUSH
    /* A planted mistake (test builds only, tests/planted.sh): the final sum
     * is not flushed.  Only a sum in the subnormal range shows it. */
    return s;
#endif
    return emu_flush(b, &fp_f32, s);
}

/* Sources given as bit patterns with their formats (f16 in the low half). */
typedef struct {
    unsigned bits[3];
    const fp_format *fmt[3];
} sources;

static unsigned as_f32(spv_builder *b, unsigned bits, const fp_format *f)
{
    return f == &fp_f16 ? f32_from_half(b, bits) : f32_of(b, bits);
}

/* Fused to f32 from mixed sources. */
static unsigned mixed_to_f32(lower_ctx *c, const sources *s)
{
    spv_builder *b = c->b;
    if (c->l == LOWERING_DIRECT)
        return bits_of(b, sb_glsl(b, T_F32, "Fma $ $ $", as_f32(b, s->bits[0], s->fmt[0]),
                                  as_f32(b, s->bits[1], s->fmt[1]), as_f32(b, s->bits[2], s->fmt[2])));
    unsigned p = emu_mul(b, emu_decode(b, s->fmt[0], s->bits[0]), emu_decode(b, s->fmt[1], s->bits[1]));
    return emu_round(b, &fp_f32, emu_sum_to_odd(b, p, emu_decode(b, s->fmt[2], s->bits[2])));
}

/* Fused with one rounding to f16. */
static unsigned fused_to_half(lower_ctx *c, const sources *s)
{
    spv_builder *b = c->b;
    bool all_half = s->fmt[0] == &fp_f16 && s->fmt[1] == &fp_f16 && s->fmt[2] == &fp_f16;
    if (c->l == LOWERING_DIRECT) {
        if (!all_half)  /* no exact f32 product: the best a direct translation does */
            return half_bits_from_f32(b, f32_of(b, mixed_to_f32(c, s)));
        unsigned p = fop(b, "OpFMul $ $", as_f32(b, s->bits[0], s->fmt[0]), as_f32(b, s->bits[1], s->fmt[1]));
        return direct_sum_to_half(b, p, as_f32(b, s->bits[2], s->fmt[2]));
    }
    unsigned p = emu_mul(b, emu_decode(b, s->fmt[0], s->bits[0]), emu_decode(b, s->fmt[1], s->bits[1]));
    return emu_round(b, &fp_f16, emu_sum_to_odd(b, p, emu_decode(b, s->fmt[2], s->bits[2])));
}

/* Rounded to f32, then to f16: two roundings. */
static unsigned twice_to_half(lower_ctx *c, const sources *s)
{
    spv_builder *b = c->b;
    unsigned r32 = mixed_to_f32(c, s);
    if (c->l == LOWERING_DIRECT)
        return half_bits_from_f32(b, f32_of(b, r32));
    return emu_round(b, &fp_f16, emu_decode(b, &fp_f32, r32));
}

/* omod when the model applies it: zero -> +0, below the normal range ->
 * signed zero, past the largest finite -> infinity. */
static unsigned omod(lower_ctx *c, const fp_format *f, unsigned bits)
{
    const isa_instance *in = c->in;
    uint32_t m = in->op->ctrl_limit[CTRL_OMOD] ? in->ctrl[CTRL_OMOD] : 0;
    if (!m || in->param[PARAM_OMOD] == 0)
        return bits;
    spv_builder *b = c->b;
    static const int k[4] = {0, 1, 2, -1};
    unsigned v = emu_scale(b, emu_decode(b, f, bits), k[m]);
    unsigned r = emu_round(b, f, v);
    uint32_t sign = 1u << (f->bits - 1);
    uint32_t min_normal = 1u << (f->precision - 1);
    unsigned mag = sb_and(b, bits, sign - 1);
    unsigned is_zero = sb_ieq(b, mag, 0);
    unsigned rmag = sb_and(b, r, sign - 1);
    unsigned below = sb_ult(b, rmag, min_normal);
    r = sb_select(b, T_U32, below, sb_and(b, r, sign), r);
    return sb_select(b, T_U32, is_zero, sb_u32(b, 0), r);
}

static unsigned post(lower_ctx *c, const fp_format *f, unsigned bits, bool with_omod)
{
    if (with_omod)
        bits = omod(c, f, bits);
    if (c->in->ctrl[CTRL_CLAMP])
        bits = emu_clamp01(c->b, f, bits);
    return bits;
}

static void f32_mods(lower_ctx *c, unsigned r[3])
{
    for (int i = 0; i < 3; i++)
        r[i] = emu_sign_mods(c->b, &fp_f32, source_reg(c, i), BIT(c->in->ctrl[CTRL_ABS], i),
                             BIT(c->in->ctrl[CTRL_NEG], i));
}

static void mix_sources(lower_ctx *c, sources *s)
{
    const isa_instance *in = c->in;
    for (int i = 0; i < 3; i++) {
        bool half = BIT(in->ctrl[CTRL_OP_SEL_HI], i);
        s->fmt[i] = half ? &fp_f16 : &fp_f32;
        unsigned reg = source_reg(c, i);
        unsigned bits = half ? half_of(c->b, reg, BIT(in->ctrl[CTRL_OP_SEL], i)) : reg;
        s->bits[i] = emu_sign_mods(c->b, s->fmt[i], bits, BIT(in->ctrl[CTRL_NEG_HI], i), BIT(in->ctrl[CTRL_NEG_LO], i));
    }
}

static void half_sources(lower_ctx *c, uint32_t select, uint32_t neg, uint32_t abs, sources *s)
{
    for (int i = 0; i < 3; i++) {
        s->fmt[i] = &fp_f16;
        unsigned h = half_of(c->b, source_reg(c, i), BIT(select, i));
        s->bits[i] = emu_sign_mods(c->b, &fp_f16, h, BIT(abs, i), BIT(neg, i));
    }
}

const char *rdna2_lower(const isa_instance *in, isa_lowering l, spv_builder *b, const unsigned *words,
                        unsigned *out)
{
    const isa_op *op = in->op;
    lower_ctx c = {in, l, b, words, 0};
    unsigned r[3];
    sources s;
    switch ((rdna2_form)op->form) {
    case RDNA2_FMA32:
        f32_mods(&c, r);
        out[0] = post(&c, &fp_f32, fma32(&c, r[0], r[1], r[2]), true);
        return NULL;
    case RDNA2_DIV_FMAS:
        f32_mods(&c, r);
        out[0] = post(&c, &fp_f32, div_fmas(&c, r[0], r[1], r[2], words[3], source_reg(&c, 2)), true);
        return NULL;
    case RDNA2_MAD32:
        f32_mods(&c, r);
        out[0] = post(&c, &fp_f32, mad32(&c, r[0], r[1], r[2]), true);
        return NULL;
    case RDNA2_MIX32:
        mix_sources(&c, &s);
        out[0] = post(&c, &fp_f32, mixed_to_f32(&c, &s), false);
        return NULL;
    case RDNA2_MIX16: {
        mix_sources(&c, &s);
        unsigned h = rdna2_mix_rounds_once(in) ? fused_to_half(&c, &s) : twice_to_half(&c, &s);
        out[0] = put_half(b, words[op->n_in - 1], post(&c, &fp_f16, h, false), op->flags & RDNA2_DST_HI);
        return NULL;
    }
    case RDNA2_FMA16: {
        half_sources(&c, in->ctrl[CTRL_OP_SEL], in->ctrl[CTRL_NEG], in->ctrl[CTRL_ABS], &s);
        unsigned h = post(&c, &fp_f16, fused_to_half(&c, &s), true);
        out[0] = put_half(b, words[op->n_in - 1], h, BIT(in->ctrl[CTRL_OP_SEL], 3));
        return NULL;
    }
    case RDNA2_PK16: {
        half_sources(&c, in->ctrl[CTRL_OP_SEL], in->ctrl[CTRL_NEG_LO], 0, &s);
        unsigned lo = post(&c, &fp_f16, fused_to_half(&c, &s), false);
        half_sources(&c, rdna2_pk_hi_select(in), in->ctrl[CTRL_NEG_HI], 0, &s);
        unsigned hi = post(&c, &fp_f16, fused_to_half(&c, &s), false);
        out[0] = sb_op(b, T_U32, "OpBitwiseOr $ $", lo, sb_shl(b, hi, 16));
        return NULL;
    }
    case RDNA2_FMA64:
        return "V_FMA_F64 is not translated (see doc/translation.md); the host model is available through eval";
    }
    return "unknown form";
}
