/* The multiply sequences as data: NVIDIA's IMAD replacements, step by step.
 * The host model (maxwell_seq_run) and the lowering (maxwell_lower.c) both
 * walk these tables, so the two cannot drift apart. */
#include "maxwell.h"

enum { S_A = MAXWELL_SEQ_SA, S_B = MAXWELL_SEQ_SB, A_H1 = MAXWELL_SEQ_A_H1, B_H1 = MAXWELL_SEQ_B_H1,
       PSL = MAXWELL_SEQ_PSL, MRG = MAXWELL_SEQ_MRG };
/* Registers: the tuple's input words (a, b, c; imul_imm16 has a, c), RZ and temporaries. */
enum { W0, W1, W2, RZ = MAXWELL_SEQ_RZ, T0, T1, D1 };

#define XMAD(f, c, d, x, y, z) {.flags = (f), .cop = (c), .dst = (d), .src = {(x), (y), (z)}}
#define XMAD_IMM(f, d, x, z) {.flags = (f), .cop = COP_C32, .imm = true, .dst = (d), .src = {(x), RZ, (z)}}
#define IADD3_RS(d, x, y, z) {.iadd3_rs = true, .dst = (d), .src = {(x), (y), (z)}}

static const maxwell_seq imad_lo = {3, {
    XMAD(0, COP_C32, D1, W0, W1, W2),                 /* XMAD D, A, B, C */
    XMAD(MRG | B_H1, COP_C32, T0, W0, W1, RZ),        /* XMAD.MRG T, A, B.H1, RZ */
    XMAD(PSL | A_H1 | B_H1, COP_CBCC, D1, W0, T0, D1), /* XMAD.PSL.CBCC D, A.H1, T.H1, D */
}};

static const maxwell_seq imad_hi_u32 = {5, {
    XMAD(0, COP_C32, T0, W0, W1, RZ),                 /* XMAD T0, A.H0, B.H0, RZ */
    XMAD(B_H1, COP_C32, T1, W0, W1, RZ),              /* XMAD T1, A.H0, B.H1, RZ */
    XMAD(A_H1 | B_H1, COP_C32, D1, W0, W1, W2),       /* XMAD D1, A.H1, B.H1, C */
    XMAD(A_H1, COP_CHI, T0, W0, W1, T0),              /* XMAD.CHI T0, A.H1, B.H0, T0 */
    IADD3_RS(D1, T0, T1, D1),                         /* IADD3.RS D, T0, T1, D1 */
}};

/* The unsigned sequence with S16 on the high halves and CSFU on the high x high step. */
static const maxwell_seq imad_hi_s32 = {5, {
    XMAD(0, COP_C32, T0, W0, W1, RZ),
    XMAD(B_H1 | S_B, COP_C32, T1, W0, W1, RZ),
    XMAD(S_A | S_B | A_H1 | B_H1, COP_CSFU, D1, W0, W1, W2),
    XMAD(A_H1 | S_A, COP_CHI, T0, W0, W1, T0),
    IADD3_RS(D1, T0, T1, D1),
}};

static const maxwell_seq imul_imm16 = {2, {
    XMAD_IMM(0, T0, W0, W1),                          /* XMAD T, A, #imm, C */
    XMAD_IMM(A_H1 | PSL, D1, W0, T0),                 /* XMAD.PSL D, A.H1, #imm, T */
}};

const maxwell_seq *maxwell_seq_of(int form)
{
    switch ((maxwell_form)form) {
    case MAXWELL_IMAD_LO: return &imad_lo;
    case MAXWELL_IMAD_HI_U32: return &imad_hi_u32;
    case MAXWELL_IMAD_HI_S32: return &imad_hi_s32;
    case MAXWELL_IMUL_IMM16: return &imul_imm16;
    default: return NULL;
    }
}

maxwell_xmad_ctl maxwell_seq_xmad(const maxwell_seq_step *s, uint32_t imm)
{
    return (maxwell_xmad_ctl){.sa = s->flags & S_A, .sb = s->flags & S_B, .a_h1 = s->flags & A_H1,
                              .b_h1 = s->flags & B_H1, .psl = s->flags & PSL, .mrg = s->flags & MRG,
                              .cop = s->cop, .sb_imm = s->imm, .imm = s->imm ? imm : 0};
}

uint32_t maxwell_seq_run(const maxwell_seq *seq, int csfu, uint32_t imm, const uint32_t *words, unsigned n_words)
{
    uint32_t r[MAXWELL_SEQ_REGS] = {0};
    for (unsigned i = 0; i < n_words && i < RZ; i++)
        r[i] = words[i];
    const maxwell_seq_step *s = seq->step;
    for (unsigned i = 0; i < seq->n; i++) {
        s = &seq->step[i];
        if (s->iadd3_rs) {
            maxwell_iadd3_ctl c = {.shift = SHIFT_RS};
            r[s->dst] = maxwell_iadd3(&c, r[s->src[0]], r[s->src[1]], r[s->src[2]], 0, NULL);
        } else {
            maxwell_xmad_ctl c = maxwell_seq_xmad(s, imm);
            r[s->dst] = maxwell_xmad(&c, csfu, r[s->src[0]], r[s->src[1]], r[s->src[2]], 0, NULL);
        }
    }
    return r[s->dst];
}
