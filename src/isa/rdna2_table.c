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

const isa_family_impl rdna2_impl = {.check = check, .eval = rdna2_eval, .lower = rdna2_lower, .construct = rdna2_construct, .construct_many = rdna2_construct_many,
                                   .fast = rdna2_fast, .fast_batch = rdna2_fast_batch,
                                   .fast_verdicts = rdna2_fast_verdicts, .shape = shape};

/* The words of a tuple: a list, and its length. */
#define IN(...) .in = (const isa_word[]){__VA_ARGS__}, .n_in = sizeof (isa_word[]){__VA_ARGS__} / sizeof (isa_word)
#define OUT(...) .out = (const isa_word[]){__VA_ARGS__}, .n_out = sizeof (isa_word[]){__VA_ARGS__} / sizeof (isa_word)
#define F32(n) {n, WORD_F32}
#define H2(n) {n, WORD_F16X2}
#define B32(n) {n, WORD_B32}
#define P(x) (1u << PARAM_##x)

/* What every row of the family shares. */
#define RDNA2 .family = "rdna2", .impl = &rdna2_impl, .classes = GEN_FLOAT_CLASSES

/* The control sets of the encodings.  op_sel_hi defaults to all ones on
 * VOP3P (assemblers do the same), so a MIX op reads halves and a packed op
 * reads the high halves for its high lane. */
#define VOP3_MODS .ctrl_limit = {[CTRL_ABS] = 7, [CTRL_NEG] = 7, [CTRL_CLAMP] = 1, [CTRL_OMOD] = 3}
#define VOP3P_MODS .ctrl_limit = {[CTRL_CLAMP] = 1, [CTRL_OP_SEL] = 7, [CTRL_OP_SEL_HI] = 7, [CTRL_NEG_LO] = 7, \
                                  [CTRL_NEG_HI] = 7}, \
                   .ctrl_default = {[CTRL_OP_SEL_HI] = 7}
/* The literal K: any 32 bits, 1.0 in the plain encoding. */
static const isa_literal literal_k = {.ctrl = CTRL_K, .format = &fp_f32};
#define K_ONLY .ctrl_limit = {[CTRL_K] = 0xffffffffu}, .ctrl_default = {[CTRL_K] = 0x3f800000u}, .literal = &literal_k

#define LEGACY_SCOPE(encoding) "GCN and RDNA 1 " encoding " (absent from RDNA 2 tables; kept: doc/translation.md)"

static const isa_op ops[] = {
    {RDNA2, .name = "rdna2.v_fma_f32", .scope = "RDNA 2 VOP3", .summary = "D = S0*S1 + S2, fused to f32",
     .translated = true, IN(F32("s0"), F32("s1"), F32("s2")), OUT(F32("d")), VOP3_MODS, .params = P(OMOD),
     .form = RDNA2_FMA32, .src = {0, 1, 2}},
    {RDNA2, .name = "rdna2.v_fmac_f32", .scope = "RDNA 2 VOP2 and VOP3 (_e64)", .summary = "D = S0*S1 + D, fused",
     .translated = true, IN(F32("s0"), F32("s1"), F32("d")), OUT(F32("d")), VOP3_MODS, .params = P(OMOD),
     .form = RDNA2_FMA32, .src = {0, 1, 2}},
    {RDNA2, .name = "rdna2.v_fmaak_f32", .scope = "RDNA 2 VOP2 + literal", .summary = "D = S0*S1 + K, fused; no modifiers",
     .translated = true, IN(F32("s0"), F32("s1")), OUT(F32("d")), K_ONLY,
     .form = RDNA2_FMA32, .src = {0, 1, RDNA2_SRC_K}},
    {RDNA2, .name = "rdna2.v_fmamk_f32", .scope = "RDNA 2 VOP2 + literal", .summary = "D = S0*K + S1, fused; no modifiers",
     .translated = true, IN(F32("s0"), F32("s1")), OUT(F32("d")), K_ONLY,
     .form = RDNA2_FMA32, .src = {0, RDNA2_SRC_K, 1}},
    {RDNA2, .name = "rdna2.v_div_fmas_f32", .scope = "RDNA 2 VOP3, reads VCC", .summary = "D = fma(S0,S1,S2), scaled when VCC",
     .translated = true, IN(F32("s0"), F32("s1"), F32("s2"), {"vcc", WORD_FLAG}), OUT(F32("d")), VOP3_MODS,
     .params = P(DIV_FMAS_SCALE) | P(DIV_FMAS_ORDER) | P(OMOD), .form = RDNA2_DIV_FMAS, .src = {0, 1, 2}},
    {RDNA2, .name = "rdna2.v_fma_mix_f32", .scope = "RDNA 2 VOP3P", .summary = "D.f32 = fma of mixed f16/f32 sources",
     .translated = true, IN(B32("s0"), B32("s1"), B32("s2")), OUT(F32("d")), VOP3P_MODS,
     .form = RDNA2_MIX32, .src = {0, 1, 2}},
    {RDNA2, .name = "rdna2.v_fma_mixlo_f16", .scope = "RDNA 2 VOP3P", .summary = "D.lo = fma of mixed sources to f16; D.hi kept",
     .translated = true, IN(B32("s0"), B32("s1"), B32("s2"), H2("d")), OUT(H2("d")), VOP3P_MODS,
     .params = P(MIX_ROUNDING), .form = RDNA2_MIX16, .src = {0, 1, 2}},
    {RDNA2, .name = "rdna2.v_fma_mixhi_f16", .scope = "RDNA 2 VOP3P", .summary = "D.hi = fma of mixed sources to f16; D.lo kept",
     .translated = true, IN(B32("s0"), B32("s1"), B32("s2"), H2("d")), OUT(H2("d")), VOP3P_MODS,
     .params = P(MIX_ROUNDING), .form = RDNA2_MIX16, .src = {0, 1, 2}, .flags = RDNA2_DST_HI},
    {RDNA2, .name = "rdna2.v_fma_f16", .scope = "RDNA 2 VOP3", .summary = "D.h = S0.h*S1.h + S2.h fused to f16 (op_sel halves)",
     .translated = true, IN(H2("s0"), H2("s1"), H2("s2"), H2("d")), OUT(H2("d")),
     .ctrl_limit = {[CTRL_ABS] = 7, [CTRL_NEG] = 7, [CTRL_CLAMP] = 1, [CTRL_OMOD] = 3, [CTRL_OP_SEL] = 15},
     .params = P(OMOD), .form = RDNA2_FMA16, .src = {0, 1, 2}},
    {RDNA2, .name = "rdna2.v_fmac_f16", .scope = "RDNA 2 VOP2", .summary = "D.lo = S0.lo*S1.lo + D.lo fused; D.hi kept",
     .translated = true, IN(H2("s0"), H2("s1"), H2("d")), OUT(H2("d")), .form = RDNA2_FMA16, .src = {0, 1, 2}},
    {RDNA2, .name = "rdna2.v_pk_fma_f16", .scope = "RDNA 2 VOP3P", .summary = "two f16 lanes, each fused",
     .translated = true, IN(H2("s0"), H2("s1"), H2("s2")), OUT(H2("d")), VOP3P_MODS,
     .form = RDNA2_PK16, .src = {0, 1, 2}},
    {RDNA2, .name = "rdna2.v_pk_fmac_f16", .scope = "RDNA 2 VOP2", .summary = "two lanes, D = S0*S1 + D, fused; no modifiers",
     .translated = true, IN(H2("s0"), H2("s1"), H2("d")), OUT(H2("d")), .form = RDNA2_PK16, .src = {0, 1, 2}},
    {RDNA2, .name = "rdna2.v_mad_f32", .scope = LEGACY_SCOPE("VOP3"), .summary = "D = S0*S1 + S2, unfused, denormals flushed",
     .translated = true, IN(F32("s0"), F32("s1"), F32("s2")), OUT(F32("d")), VOP3_MODS, .params = P(OMOD),
     .form = RDNA2_MAD32, .src = {0, 1, 2}},
    {RDNA2, .name = "rdna2.v_mac_f32", .scope = LEGACY_SCOPE("VOP2"), .summary = "D = S0*S1 + D, unfused, flushed",
     .translated = true, IN(F32("s0"), F32("s1"), F32("d")), OUT(F32("d")), .form = RDNA2_MAD32, .src = {0, 1, 2}},
    {RDNA2, .name = "rdna2.v_madak_f32", .scope = LEGACY_SCOPE("VOP2 + literal"), .summary = "D = S0*S1 + K, unfused, flushed",
     .translated = true, IN(F32("s0"), F32("s1")), OUT(F32("d")), K_ONLY, .form = RDNA2_MAD32, .src = {0, 1, RDNA2_SRC_K}},
    {RDNA2, .name = "rdna2.v_madmk_f32", .scope = LEGACY_SCOPE("VOP2 + literal"), .summary = "D = S0*K + S1, unfused, flushed",
     .translated = true, IN(F32("s0"), F32("s1")), OUT(F32("d")), K_ONLY, .form = RDNA2_MAD32, .src = {0, RDNA2_SRC_K, 1}},
    {RDNA2, .name = "rdna2.v_fma_f64", .scope = "RDNA 2 VOP3", .summary = "D = S0*S1 + S2 in f64 (not translated: doc/translation.md)",
     .translated = false,
     IN({"s0_lo", WORD_F64LO}, {"s0_hi", WORD_F64HI}, {"s1_lo", WORD_F64LO}, {"s1_hi", WORD_F64HI}, {"s2_lo", WORD_F64LO},
        {"s2_hi", WORD_F64HI}),
     OUT({"d_lo", WORD_F64LO}, {"d_hi", WORD_F64HI}), .form = RDNA2_FMA64, .src = {0, 1, 2}},
};

const isa_op *rdna2_op_at(unsigned i) { return i < sizeof ops / sizeof ops[0] ? &ops[i] : NULL; }
