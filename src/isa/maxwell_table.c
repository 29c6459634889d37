/* The Maxwell integer opcodes and program ops: one row each. */
#include <stddef.h>
#include "maxwell.h"

/* Legality rules, each named in its message (maxwell-xmad.md). */
static const char *check(const isa_instance *in)
{
    const uint32_t *c = in->ctrl;
    switch ((maxwell_form)in->op->form) {
    case MAXWELL_XMAD:
        if (c[CTRL_COP] > COP_CSFU)
            return "XMAD: cop must be 0 C32, 1 CLO, 2 CHI, 3 CBCC or 4 CSFU";
        if (c[CTRL_SB_KIND] > SB_CBUF)
            return "XMAD: sb_kind must be 0 register, 1 IMM16 or 2 constant bank";
        if (c[CTRL_SB_KIND] == SB_IMM && c[CTRL_B_H1])
            return "XMAD: an IMM16 Sb takes no half selector (rule: no .H1 on an immediate)";
        if (c[CTRL_SB_KIND] == SB_IMM && c[CTRL_SC_KIND])
            return "XMAD: an IMM16 Sb takes a register Sc (legal pairs: reg/reg, imm/reg, const/reg, reg/const)";
        if (c[CTRL_SB_KIND] == SB_CBUF && c[CTRL_SC_KIND])
            return "XMAD: Sb and Sc cannot both come from the constant bank (legal pairs: reg/reg, imm/reg, const/reg, reg/const)";
        if (c[CTRL_COP] == COP_CBCC && (c[CTRL_SB_KIND] == SB_CBUF || c[CTRL_SC_KIND]))
            return "XMAD: .CBCC takes no constant-bank Sb or Sc";
        if ((c[CTRL_PSL] || c[CTRL_MRG]) && c[CTRL_SC_KIND])
            return "XMAD: .PSL and .MRG take no constant-bank Sc";
        if (c[CTRL_SB_KIND] != SB_IMM && c[CTRL_IMM])
            return "XMAD: imm is only for an IMM16 Sb";
        if (c[CTRL_IMM] > 0xffff)
            return "XMAD: imm is 16 bits";
        if (c[CTRL_CC] && in->param[PARAM_XMAD_CC] == 1)
            return "XMAD: .CC refused under xmad_cc=refuse (which carries become CF and OF is not publicly known)";
        return NULL;
    case MAXWELL_IADD3:
        if (c[CTRL_SHIFT] > SHIFT_LS || c[CTRL_A_PART] > 2 || c[CTRL_B_PART] > 2 || c[CTRL_C_PART] > 2)
            return "IADD3: shift is 0 NS, 1 RS or 2 LS; parts are 0 full, 1 H0 or 2 H1";
        if (c[CTRL_SB_KIND] > SB_CBUF)
            return "IADD3: sb_kind must be 0 register, 1 IMM20 or 2 constant bank";
        if (c[CTRL_NEGA] && c[CTRL_NEGB])
            return "IADD3: -Ra together with -Sb is illegal";
        if (c[CTRL_SB_KIND] != SB_REG && (c[CTRL_SHIFT] || c[CTRL_A_PART] || c[CTRL_B_PART] || c[CTRL_C_PART]))
            return "IADD3: parts and shifts exist in the register form only";
        if (c[CTRL_SB_KIND] != SB_IMM && c[CTRL_IMM])
            return "IADD3: imm is only for the IMM20 form";
        if (c[CTRL_IMM] > 0xfffff)
            return "IADD3: imm is 20 bits";
        return NULL;
    case MAXWELL_IMUL_IMM16:
        return c[CTRL_IMM] > 0xffff ? "imul_imm16: imm is 16 bits" : NULL;
    default:
        return NULL;
    }
}

/* merge (a B whose halves differ, read whole by .MRG or .CBCC with B.H1)
 * exists only under those controls, which uniformly fuzzed controls rarely
 * combine: when merge is wanted, half the fuzzed XMAD blocks get them. */
static void controls_for(isa_instance *in, uint32_t wanted, gen_rng *rng)
{
    if (!(wanted & (1u << GEN_MERGE)) || in->op->form != MAXWELL_XMAD || !gen_coin(rng))
        return;
    uint32_t *k = in->ctrl;
    k[CTRL_B_H1] = 1;
    k[CTRL_SB_KIND] = SB_REG;
    k[CTRL_SC_KIND] = 0;
    if (gen_coin(rng))
        k[CTRL_MRG] = 1;
    else
        k[CTRL_COP] = COP_CBCC;
}

/* An immediate exists only in the immediate forms (sb_kind 1); the ops
 * without sb_kind (imul_imm16) always have one. */
static void controls_drawn(isa_instance *in)
{
    if (in->op->ctrl_limit[CTRL_SB_KIND] && in->ctrl[CTRL_SB_KIND] != SB_IMM)
        in->ctrl[CTRL_IMM] = 0;
}

const isa_family_impl maxwell_impl = {.check = check, .eval = maxwell_eval, .lower = maxwell_lower,
                                      .construct = maxwell_construct,
                                      .construct_many = maxwell_construct_many, .classify = maxwell_classify,
                                      .controls_for = controls_for, .fast = maxwell_fast,
                                      .fast_batch = maxwell_fast_batch,
                                      .fast_verdicts = maxwell_fast_verdicts, .controls_drawn = controls_drawn};

/* The words of a tuple: a list, and its length. */
#define IN(...) .in = (const isa_word[]){__VA_ARGS__}, .n_in = sizeof (isa_word[]){__VA_ARGS__} / sizeof (isa_word)
#define OUT(...) .out = (const isa_word[]){__VA_ARGS__}, .n_out = sizeof (isa_word[]){__VA_ARGS__} / sizeof (isa_word)
#define U(n) {n, WORD_U32}
#define CC(n) {n, WORD_CC}
#define P(x) (1u << PARAM_##x)
/* What every row of the family shares: all are translated. */
#define MAXWELL .family = "maxwell", .impl = &maxwell_impl, .translated = true, .src = {0, 1, 2}
#define SASS_SCOPE "Maxwell/Pascal SASS (sm_50-sm_62)"
/* merge needs an Sb that MRG or CBCC reads whole: XMAD and IMAD.LO only. */
#define NO_MERGE (GEN_INT_CLASSES & ~(1u << GEN_MERGE))

static const isa_op ops[] = {
    {MAXWELL, .name = "maxwell.xmad", .scope = SASS_SCOPE, .summary = "16x16+32 multiply-add with modifiers",
     IN(U("ra"), U("sb"), U("sc"), CC("cc")), OUT(U("rd"), CC("cc")),
     .ctrl_limit = {[CTRL_SASIGN] = 1, [CTRL_SBSIGN] = 1, [CTRL_PSL] = 1, [CTRL_COP] = 7, [CTRL_MRG] = 1, [CTRL_X] = 1,
                    [CTRL_CC] = 1, [CTRL_A_H1] = 1, [CTRL_B_H1] = 1, [CTRL_SB_KIND] = 3, [CTRL_SC_KIND] = 1,
                    [CTRL_IMM] = 0xffff},
     .params = P(CSFU) | P(XMAD_CC), .form = MAXWELL_XMAD, .classes = GEN_INT_CLASSES},
    {MAXWELL, .name = "maxwell.iadd3", .scope = SASS_SCOPE, .summary = "three-input add with negations, parts and shifts",
     IN(U("ra"), U("sb"), U("rc"), CC("cc")), OUT(U("rd"), CC("cc")),
     .ctrl_limit = {[CTRL_SHIFT] = 3, [CTRL_NEGA] = 1, [CTRL_NEGB] = 1, [CTRL_NEGC] = 1, [CTRL_X] = 1, [CTRL_CC] = 1,
                    [CTRL_A_PART] = 3, [CTRL_B_PART] = 3, [CTRL_C_PART] = 3, [CTRL_SB_KIND] = 3, [CTRL_IMM] = 0xfffff},
     .form = MAXWELL_IADD3, .classes = NO_MERGE},
    {MAXWELL, .name = "maxwell.imad_lo", .scope = "program: 3 XMADs (NVIDIA's IMAD.LO)",
     .summary = "D = A*B + C mod 2^32 via XMAD, XMAD.MRG, XMAD.PSL.CBCC", IN(U("a"), U("b"), U("c")), OUT(U("d")),
     .form = MAXWELL_IMAD_LO, .classes = GEN_INT_CLASSES},
    {MAXWELL, .name = "maxwell.imad_hi_u32", .scope = "program: 4 XMADs and IADD3.RS",
     .summary = "D = hi32(A*B) + C unsigned", IN(U("a"), U("b"), U("c")), OUT(U("d")),
     .form = MAXWELL_IMAD_HI_U32, .classes = NO_MERGE},
    {MAXWELL, .name = "maxwell.imul_imm16", .scope = "program: 2 XMADs",
     .summary = "D = A*imm + C mod 2^32 via XMAD, XMAD.PSL", IN(U("a"), U("c")), OUT(U("d")),
     .ctrl_limit = {[CTRL_IMM] = 0xffff}, .form = MAXWELL_IMUL_IMM16, .classes = NO_MERGE},
    {MAXWELL, .name = "maxwell.imad_hi_s32", .scope = "program: 4 XMADs (S16 on high halves, CSFU) and IADD3.RS",
     .summary = "D = signed hi32(A*B) + C; exact only under csfu=cross", IN(U("a"), U("b"), U("c")), OUT(U("d")),
     .params = P(CSFU), .form = MAXWELL_IMAD_HI_S32, .classes = NO_MERGE},
};

const isa_op *maxwell_op_at(unsigned i) { return i < sizeof ops / sizeof ops[0] ? &ops[i] : NULL; }
