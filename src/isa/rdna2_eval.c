/* The host model of the RDNA 2 multiply-adds: exact arithmetic through the
 * fp kit, one rounding per rounding the model makes, each one traced. */
#include <stddef.h>
#include "rdna2.h"

#define BIT(v, i) (((v) >> (i)) & 1u)

uint32_t rdna2_source_word(const isa_instance *in, const uint32_t *words, int i)
{
    int s = in->op->src[i];
    return s == RDNA2_SRC_K ? in->ctrl[CTRL_K] : words[s];
}

bool rdna2_mix_all_half(const isa_instance *in) { return (in->ctrl[CTRL_OP_SEL_HI] & 7) == 7; }

bool rdna2_mix_rounds_once(const isa_instance *in)
{
    switch (in->param[PARAM_MIX_ROUNDING]) {
    case 1: return false;                    /* always-twice */
    case 2: return true;                     /* always-once */
    default: return rdna2_mix_all_half(in);  /* record */
    }
}

uint32_t rdna2_pk_hi_select(const isa_instance *in)
{
    /* V_PK_FMAC_F16 has no op_sel_hi field: its high lane reads high halves. */
    return in->op->ctrl_limit[CTRL_OP_SEL_HI] ? in->ctrl[CTRL_OP_SEL_HI] : 7u;
}

int rdna2_div_fmas_scale(const isa_instance *in, uint32_t s2_bits)
{
    if (in->param[PARAM_DIV_FMAS_SCALE] == 1)
        return 32;
    return ((s2_bits >> 23) & 0xff) > 127 ? 64 : -64;
}

static uint64_t rounded(isa_trace *t, const char *label, const fp_format *f, fp_rounding mode, fp_value v,
                        bool final)
{
    fp_round_info info;
    uint64_t r = fp_round(f, v, mode, &info);
    isa_trace_step(t, label, f, mode, v, &info, r, final);
    return r;
}

/* The step just traced is rounded again later: it does not write the result. */
static void mark_intermediate(isa_trace *t)
{
    if (t && t->n_steps)
        t->step[t->n_steps - 1].intermediate = true;
}

static void note_lane(isa_trace *t, int lane, const fp_format *dest, const fp_value src[3], const bool sub[3],
                      fp_value product, fp_value addend, fp_value exact, bool unfused)
{
    if (!t)
        return;
    isa_lane *l = &t->lane[lane];
    *l = (isa_lane){true, dest, {src[0], src[1], src[2]}, {sub[0], sub[1], sub[2]}, product, addend, exact,
                    unfused};
}

/* Output modifiers, after rounding: omod (when the model applies it), then clamp. */
static uint64_t omod(const isa_instance *in, const fp_format *f, uint64_t r)
{
    uint32_t m = in->op->ctrl_limit[CTRL_OMOD] ? in->ctrl[CTRL_OMOD] : 0;
    if (!m || in->param[PARAM_OMOD] == 0)
        return r;
    fp_value v = fp_decode(f, r);
    if (v.kind == FPK_NAN || v.kind == FPK_INF)
        return r;
    if (v.kind == FPK_ZERO)
        return 0;  /* +0 */
    static const int k[4] = {0, 1, 2, -1};
    v = fp_scale(v, k[m]);
    if (fp_msb(v) < f->emin)
        return fp_round(f, fp_zero(v.sign), FP_RNE, 0);
    return fp_round(f, v, FP_RNE, 0);  /* exact, or past the largest finite: infinity */
}

uint64_t rdna2_clamp(const isa_instance *in, const fp_format *f, uint64_t r)
{
    if (!in->ctrl[CTRL_CLAMP])
        return r;
    uint64_t one = (uint64_t)f->bias << (f->precision - 1);
    if (fp_is_nan_bits(f, r) || (r >> (f->bits - 1)))
        return 0;
    return r > one ? one : r;
}

/* round_f(a*b + c), fused. */
static uint64_t fused(isa_trace *t, int lane, const char *label, const fp_format *dest, const fp_value s[3],
                      const bool sub[3])
{
    if (!t)  /* the same rounding without the steps a trace keeps: in words where they are exact (fp/fused.c) */
        return fp_fused_round(dest, s[0], s[1], s[2], FP_RNE);
    fp_value p = fp_mul(s[0], s[1]);
    fp_value v = fp_add(p, s[2]);
    note_lane(t, lane, dest, s, sub, p, s[2], v, false);
    return rounded(t, label, dest, FP_RNE, v, true);
}

/* The record's fused_to_half: round to odd at f32, then to nearest at f16. */
static uint16_t fused_to_half(isa_trace *t, int lane, const fp_value s[3], const bool sub[3])
{
    static const char *odd[2] = {"sum, to odd (f32)", "hi lane: sum, to odd (f32)"};
    static const char *half[2] = {"to f16", "hi lane: to f16"};
    if (!t)
        return (uint16_t)fp_round(&fp_f16, fp_decode(&fp_f32, fp_fused_round(&fp_f32, s[0], s[1], s[2], FP_RTO)),
                                  FP_RNE, NULL);
    fp_value p = fp_mul(s[0], s[1]);
    fp_value v = fp_add(p, s[2]);
    note_lane(t, lane, &fp_f16, s, sub, p, s[2], v, false);
    uint64_t s32 = rounded(t, odd[lane], &fp_f32, FP_RTO, v, false);
    return (uint16_t)rounded(t, half[lane], &fp_f16, FP_RNE, fp_decode(&fp_f32, s32), true);
}

static void f32_sources(const isa_instance *in, const uint32_t *w, fp_value s[3], bool sub[3], bool flush)
{
    for (int i = 0; i < 3; i++) {
        uint32_t bits = rdna2_sign_mods(rdna2_source_word(in, w, i), 0x80000000u, BIT(in->ctrl[CTRL_ABS], i),
                                  BIT(in->ctrl[CTRL_NEG], i));
        sub[i] = fp_is_subnormal_bits(&fp_f32, bits);
        if (flush)
            bits = (uint32_t)fp_flush_bits(&fp_f32, bits);
        s[i] = fp_decode(&fp_f32, bits);
    }
}

/* A MIX source: the f32 register, or the half op_sel picks; neg_hi = abs, neg_lo = neg. */
static void mix_sources(const isa_instance *in, const uint32_t *w, fp_value s[3], bool sub[3])
{
    for (int i = 0; i < 3; i++) {
        uint32_t reg = rdna2_source_word(in, w, i);
        bool abs = BIT(in->ctrl[CTRL_NEG_HI], i), neg = BIT(in->ctrl[CTRL_NEG_LO], i);
        if (BIT(in->ctrl[CTRL_OP_SEL_HI], i)) {
            uint32_t h = rdna2_sign_mods((reg >> (16 * BIT(in->ctrl[CTRL_OP_SEL], i))) & 0xffff, 0x8000, abs, neg);
            sub[i] = fp_is_subnormal_bits(&fp_f16, h);
            s[i] = fp_decode(&fp_f16, h);
        } else {
            uint32_t b = rdna2_sign_mods(reg, 0x80000000u, abs, neg);
            sub[i] = fp_is_subnormal_bits(&fp_f32, b);
            s[i] = fp_decode(&fp_f32, b);
        }
    }
}

static void half_sources(const isa_instance *in, const uint32_t *w, uint32_t select, uint32_t negate,
                         uint32_t abs, fp_value s[3], bool sub[3])
{
    for (int i = 0; i < 3; i++) {
        uint32_t h = (rdna2_source_word(in, w, i) >> (16 * BIT(select, i))) & 0xffff;
        h = rdna2_sign_mods(h, 0x8000, BIT(abs, i), BIT(negate, i));
        sub[i] = fp_is_subnormal_bits(&fp_f16, h);
        s[i] = fp_decode(&fp_f16, h);
    }
}

/* The model, written once for both uses below: inlined into each, with
 * the trace a constant NULL in one. */
static inline __attribute__((always_inline)) void eval_body(const isa_instance *in, const uint32_t *w, uint32_t *out,
                                                            isa_trace *t)
{
    const isa_op *op = in->op;
    fp_value s[3];
    bool sub[3];
    if (t) {  /* reset what readers look at; clearing the whole trace costs more than the model */
        t->n_steps = 0;
        t->lane[0].used = t->lane[1].used = false;
        t->note = NULL;
    }
    switch ((rdna2_form)op->form) {
    case RDNA2_FMA32:
        f32_sources(in, w, s, sub, false);
        out[0] = (uint32_t)rdna2_clamp(in, &fp_f32, omod(in, &fp_f32, fused(t, 0, "fma (f32)", &fp_f32, s, sub)));
        break;
    case RDNA2_DIV_FMAS: {
        f32_sources(in, w, s, sub, false);
        fp_value p = fp_mul(s[0], s[1]);
        fp_value v = fp_add(p, s[2]);
        uint64_t r;
        if (!(w[3] & 1)) {
            note_lane(t, 0, &fp_f32, s, sub, p, s[2], v, false);
            r = rounded(t, "fma (f32)", &fp_f32, FP_RNE, v, true);
        } else {
            int k = rdna2_div_fmas_scale(in, w[2]);
            if (t)
                t->note = k == 64 ? "VCC: scaled by 2^64" : k == 32 ? "VCC: scaled by 2^32" : "VCC: scaled by 2^-64";
            if (in->param[PARAM_DIV_FMAS_ORDER] == 0) {
                fp_value sv = fp_scale(v, k);
                note_lane(t, 0, &fp_f32, s, sub, fp_scale(p, k), fp_scale(s[2], k), sv, false);
                r = rounded(t, "scaled fma (f32)", &fp_f32, FP_RNE, sv, true);
            } else {
                note_lane(t, 0, &fp_f32, s, sub, p, s[2], v, false);
                uint64_t f = rounded(t, "fma (f32)", &fp_f32, FP_RNE, v, true);
                mark_intermediate(t);
                r = rounded(t, "scaled (f32)", &fp_f32, FP_RNE, fp_scale(fp_decode(&fp_f32, f), k), true);
            }
        }
        out[0] = (uint32_t)rdna2_clamp(in, &fp_f32, omod(in, &fp_f32, r));
        break;
    }
    case RDNA2_MAD32: {
        f32_sources(in, w, s, sub, true);
        fp_value p = fp_mul(s[0], s[1]);
        uint64_t pr = fp_flush_bits(&fp_f32, rounded(t, "product (f32)", &fp_f32, FP_RNE, p, true));
        mark_intermediate(t);
        fp_value v = fp_add(fp_decode(&fp_f32, pr), s[2]);
        note_lane(t, 0, &fp_f32, s, sub, p, s[2], v, true);
        uint64_t r = fp_flush_bits(&fp_f32, rounded(t, "sum (f32)", &fp_f32, FP_RNE, v, true));
        out[0] = (uint32_t)rdna2_clamp(in, &fp_f32, omod(in, &fp_f32, r));
        break;
    }
    case RDNA2_MIX32:
        mix_sources(in, w, s, sub);
        out[0] = (uint32_t)rdna2_clamp(in, &fp_f32, fused(t, 0, "fma (f32)", &fp_f32, s, sub));
        break;
    case RDNA2_MIX16: {
        mix_sources(in, w, s, sub);
        uint16_t h;
        if (rdna2_mix_rounds_once(in)) {
            h = fused_to_half(t, 0, s, sub);
        } else {
            fp_value p = fp_mul(s[0], s[1]);
            fp_value v = fp_add(p, s[2]);
            note_lane(t, 0, &fp_f16, s, sub, p, s[2], v, false);
            uint64_t f = rounded(t, "fma (f32)", &fp_f32, FP_RNE, v, false);
            h = (uint16_t)rounded(t, "to f16", &fp_f16, FP_RNE, fp_decode(&fp_f32, f), true);
        }
        h = (uint16_t)rdna2_clamp(in, &fp_f16, h);
        out[0] = rdna2_put_half(w[op->n_in - 1], h, op->flags & RDNA2_DST_HI);
        break;
    }
    case RDNA2_FMA16: {
        half_sources(in, w, in->ctrl[CTRL_OP_SEL], in->ctrl[CTRL_NEG], in->ctrl[CTRL_ABS], s, sub);
        uint16_t h = fused_to_half(t, 0, s, sub);
        h = (uint16_t)rdna2_clamp(in, &fp_f16, omod(in, &fp_f16, h));
        out[0] = rdna2_put_half(w[op->n_in - 1], h, BIT(in->ctrl[CTRL_OP_SEL], 3));
        break;
    }
    case RDNA2_PK16: {
        half_sources(in, w, in->ctrl[CTRL_OP_SEL], in->ctrl[CTRL_NEG_LO], 0, s, sub);
        uint16_t lo = (uint16_t)rdna2_clamp(in, &fp_f16, fused_to_half(t, 0, s, sub));
        half_sources(in, w, rdna2_pk_hi_select(in), in->ctrl[CTRL_NEG_HI], 0, s, sub);
        uint16_t hi = (uint16_t)rdna2_clamp(in, &fp_f16, fused_to_half(t, 1, s, sub));
        out[0] = lo | (uint32_t)hi << 16;
        break;
    }
    case RDNA2_FMA64: {
        for (int i = 0; i < 3; i++) {
            uint64_t bits = w[2 * i] | (uint64_t)w[2 * i + 1] << 32;
            sub[i] = fp_is_subnormal_bits(&fp_f64, bits);
            s[i] = fp_decode(&fp_f64, bits);
        }
        uint64_t r = fused(t, 0, "fma (f64)", &fp_f64, s, sub);
        out[0] = (uint32_t)r;
        out[1] = (uint32_t)(r >> 32);
        break;
    }
    }
}

/* Flattened: the kit's calls (fp_mul, fp_add, fp_round, the trace's
 * steps) are inlined here where the build links with LTO (scripts/
 * bootstrap's release build; elsewhere only this file's helpers).  Called,
 * each took its fp_values by value: the caller stored a value's fields one
 * by one, then copied them with 16-byte loads the CPU cannot forward from
 * the narrower stores, a stall per value (the pattern format.c's value_of
 * avoids inside the kit).  Two copies: without a trace (a campaign's
 * re-check of every disagreement, minimize, eval, repro, replay; the
 * audit and selftest ask for the trace) the trace's steps and the rounding
 * reports nothing reads fold away.  scripts/bench-compare's exact column
 * measures the untraced copy. */
static __attribute__((flatten, noinline)) void eval_traced(const isa_instance *in, const uint32_t *w, uint32_t *out,
                                                           isa_trace *t)
{
    eval_body(in, w, out, t);
}

static __attribute__((flatten, noinline)) void eval_untraced(const isa_instance *in, const uint32_t *w, uint32_t *out)
{
    eval_body(in, w, out, NULL);
}

void rdna2_eval(const isa_instance *in, const uint32_t *w, uint32_t *out, isa_trace *t)
{
    if (t)
        eval_traced(in, w, out, t);
    else
        eval_untraced(in, w, out);
}
