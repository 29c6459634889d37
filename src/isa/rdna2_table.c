/* The RDNA 2 multiply-add opcodes: one row each.  Adding an opcode of an
 * existing form means adding a row here and nothing else.
 * Semantics: README.md, "Instructions, models and lowerings" (the models and
 * parameters, as doc/translation.md states the translation decision they implement). */
#include <stddef.h>
#include "rdna2.h"

static const char *check(const isa_instance *in)
{
    if (in->op->form == RDNA2_MIX32 || in->op->form == RDNA2_MIX16) {
        /* op_sel picks a half: meaningless, and rejected, for a full f32 source. */
        uint32_t stray = in->ctrl[CTRL_OP_SEL] & ~in->ctrl[CTRL_OP_SEL_HI] & 7;
        if (stray)
            return "MIX: op_sel is set for a source that op_sel_hi reads as f32 (op_sel needs op_sel_hi)";
    }
    return NULL;
}

/* A MIX op's op_sel_hi says which sources are halves: it changes the operand formats. */
static uint32_t shape(const isa_instance *in)
{
    return in->op->form == RDNA2_MIX32 || in->op->form == RDNA2_MIX16 ? in->ctrl[CTRL_OP_SEL_HI] : 0;
}

const isa_family_impl rdna2_impl = {.check = check, .eval = rdna2_eval, .lower = rdna2_lower, .construct = rdna2_construct,
                                   .fast = rdna2_fast, .fast_batch = rdna2_fast_batch, .shape = shape};

#define F32(n) {n, WORD_F32}
#define H2(n) {n, WORD_F16X2}
#define B32(n) {n, WORD_B32}
#define VOP3_MODS .ctrl_limit = {[CTRL_ABS] = 7, [CTRL_NEG] = 7, [CTRL_CLAMP] = 1, [CTRL_OMOD] = 3}
#define K_ONLY .ctrl_limit = {[CTRL_K] = 0xffffffffu}
#define MIX_MODS .ctrl_limit = {[CTRL_CLAMP] = 1, [CTRL_OP_SEL] = 7, [CTRL_OP_SEL_HI] = 7, \
                               [CTRL_NEG_LO] = 7, [CTRL_NEG_HI] = 7}
#define P(x) (1u << PARAM_##x)

const isa_op rdna2_ops[] = {
    {"rdna2.v_fma_f32", "rdna2", "RDNA 2 VOP3", "D = S0*S1 + S2, fused to f32", true, 3, 1,
     {F32("s0"), F32("s1"), F32("s2")}, {F32("d")}, VOP3_MODS, P(OMOD), &rdna2_impl, RDNA2_FMA32, {0, 1, 2}, 0, GEN_FLOAT_CLASSES, NULL},
    {"rdna2.v_fmac_f32", "rdna2", "RDNA 2 VOP2 and VOP3 (_e64)", "D = S0*S1 + D, fused", true, 3, 1,
     {F32("s0"), F32("s1"), F32("d")}, {F32("d")}, VOP3_MODS, P(OMOD), &rdna2_impl, RDNA2_FMA32, {0, 1, 2}, 0, GEN_FLOAT_CLASSES, NULL},
    {"rdna2.v_fmaak_f32", "rdna2", "RDNA 2 VOP2 + literal", "D = S0*S1 + K, fused; no modifiers", true, 2, 1,
     {F32("s0"), F32("s1")}, {F32("d")}, K_ONLY, 0, &rdna2_impl, RDNA2_FMA32, {0, 1, RDNA2_SRC_K}, 0, GEN_FLOAT_CLASSES, NULL},
    {"rdna2.v_fmamk_f32", "rdna2", "RDNA 2 VOP2 + literal", "D = S0*K + S1, fused; no modifiers", true, 2, 1,
     {F32("s0"), F32("s1")}, {F32("d")}, K_ONLY, 0, &rdna2_impl, RDNA2_FMA32, {0, RDNA2_SRC_K, 1}, 0, GEN_FLOAT_CLASSES, NULL},
    {"rdna2.v_div_fmas_f32", "rdna2", "RDNA 2 VOP3, reads VCC", "D = fma(S0,S1,S2), scaled when VCC", true, 4, 1,
     {F32("s0"), F32("s1"), F32("s2"), {"vcc", WORD_FLAG}}, {F32("d")}, VOP3_MODS,
     P(DIV_FMAS_SCALE) | P(DIV_FMAS_ORDER) | P(OMOD), &rdna2_impl, RDNA2_DIV_FMAS, {0, 1, 2}, 0, GEN_FLOAT_CLASSES, NULL},
    {"rdna2.v_fma_mix_f32", "rdna2", "RDNA 2 VOP3P", "D.f32 = fma of mixed f16/f32 sources", true, 3, 1,
     {B32("s0"), B32("s1"), B32("s2")}, {F32("d")}, MIX_MODS, 0, &rdna2_impl, RDNA2_MIX32, {0, 1, 2}, 0, GEN_FLOAT_CLASSES, NULL},
    {"rdna2.v_fma_mixlo_f16", "rdna2", "RDNA 2 VOP3P", "D.lo = fma of mixed sources to f16; D.hi kept", true, 4, 1,
     {B32("s0"), B32("s1"), B32("s2"), H2("d")}, {H2("d")}, MIX_MODS, P(MIX_ROUNDING), &rdna2_impl, RDNA2_MIX16,
     {0, 1, 2}, 0, GEN_FLOAT_CLASSES, NULL},
    {"rdna2.v_fma_mixhi_f16", "rdna2", "RDNA 2 VOP3P", "D.hi = fma of mixed sources to f16; D.lo kept", true, 4, 1,
     {B32("s0"), B32("s1"), B32("s2"), H2("d")}, {H2("d")}, MIX_MODS, P(MIX_ROUNDING), &rdna2_impl, RDNA2_MIX16,
     {0, 1, 2}, RDNA2_DST_HI, GEN_FLOAT_CLASSES, NULL},
    {"rdna2.v_fma_f16", "rdna2", "RDNA 2 VOP3", "D.h = S0.h*S1.h + S2.h fused to f16 (op_sel halves)", true, 4, 1,
     {H2("s0"), H2("s1"), H2("s2"), H2("d")}, {H2("d")},
     .ctrl_limit = {[CTRL_ABS] = 7, [CTRL_NEG] = 7, [CTRL_CLAMP] = 1, [CTRL_OMOD] = 3, [CTRL_OP_SEL] = 15},
     P(OMOD), &rdna2_impl, RDNA2_FMA16, {0, 1, 2}, 0, GEN_FLOAT_CLASSES, NULL},
    {"rdna2.v_fmac_f16", "rdna2", "RDNA 2 VOP2", "D.lo = S0.lo*S1.lo + D.lo fused; D.hi kept", true, 3, 1,
     {H2("s0"), H2("s1"), H2("d")}, {H2("d")}, {0}, 0, &rdna2_impl, RDNA2_FMA16, {0, 1, 2}, 0, GEN_FLOAT_CLASSES, NULL},
    {"rdna2.v_pk_fma_f16", "rdna2", "RDNA 2 VOP3P", "two f16 lanes, each fused", true, 3, 1,
     {H2("s0"), H2("s1"), H2("s2")}, {H2("d")},
     .ctrl_limit = {[CTRL_CLAMP] = 1, [CTRL_OP_SEL] = 7, [CTRL_OP_SEL_HI] = 7, [CTRL_NEG_LO] = 7, [CTRL_NEG_HI] = 7},
     0, &rdna2_impl, RDNA2_PK16, {0, 1, 2}, 0, GEN_FLOAT_CLASSES, NULL},
    {"rdna2.v_pk_fmac_f16", "rdna2", "RDNA 2 VOP2", "two lanes, D = S0*S1 + D, fused; no modifiers", true, 3, 1,
     {H2("s0"), H2("s1"), H2("d")}, {H2("d")}, {0}, 0, &rdna2_impl, RDNA2_PK16, {0, 1, 2}, 0, GEN_FLOAT_CLASSES, NULL},
    {"rdna2.v_mad_f32", "rdna2", "GCN and RDNA 1 VOP3 (absent from RDNA 2 tables; kept: doc/translation.md)",
     "D = S0*S1 + S2, unfused, denormals flushed", true, 3, 1, {F32("s0"), F32("s1"), F32("s2")}, {F32("d")},
     VOP3_MODS, P(OMOD), &rdna2_impl, RDNA2_MAD32, {0, 1, 2}, 0, GEN_FLOAT_CLASSES, NULL},
    {"rdna2.v_mac_f32", "rdna2", "GCN and RDNA 1 VOP2 (absent from RDNA 2 tables; kept: doc/translation.md)",
     "D = S0*S1 + D, unfused, flushed", true, 3, 1, {F32("s0"), F32("s1"), F32("d")}, {F32("d")}, {0}, 0,
     &rdna2_impl, RDNA2_MAD32, {0, 1, 2}, 0, GEN_FLOAT_CLASSES, NULL},
    {"rdna2.v_madak_f32", "rdna2", "GCN and RDNA 1 VOP2 + literal (absent from RDNA 2 tables; kept: doc/translation.md)",
     "D = S0*S1 + K, unfused, flushed", true, 2, 1, {F32("s0"), F32("s1")}, {F32("d")}, K_ONLY, 0, &rdna2_impl,
     RDNA2_MAD32, {0, 1, RDNA2_SRC_K}, 0, GEN_FLOAT_CLASSES, NULL},
    {"rdna2.v_madmk_f32", "rdna2", "GCN and RDNA 1 VOP2 + literal (absent from RDNA 2 tables; kept: doc/translation.md)",
     "D = S0*K + S1, unfused, flushed", true, 2, 1, {F32("s0"), F32("s1")}, {F32("d")}, K_ONLY, 0, &rdna2_impl,
     RDNA2_MAD32, {0, RDNA2_SRC_K, 1}, 0, GEN_FLOAT_CLASSES, NULL},
    {"rdna2.v_fma_f64", "rdna2", "RDNA 2 VOP3", "D = S0*S1 + S2 in f64 (not translated: doc/translation.md)", false, 6, 2,
     {{"s0_lo", WORD_F64LO}, {"s0_hi", WORD_F64HI}, {"s1_lo", WORD_F64LO}, {"s1_hi", WORD_F64HI},
      {"s2_lo", WORD_F64LO}, {"s2_hi", WORD_F64HI}},
     {{"d_lo", WORD_F64LO}, {"d_hi", WORD_F64HI}}, {0}, 0, &rdna2_impl, RDNA2_FMA64, {0, 1, 2}, 0, GEN_FLOAT_CLASSES, NULL},
};

const unsigned rdna2_op_count = sizeof rdna2_ops / sizeof rdna2_ops[0];
