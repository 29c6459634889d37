/* The Maxwell integer family: XMAD, IADD3 and the multiply sequences built
 * from them.  Semantics: README.md, "The Maxwell integer family" (restating
 * NVIDIA's SASS description of XMAD and public hardware measurements). */
#ifndef TIEFUZZ_MAXWELL_H
#define TIEFUZZ_MAXWELL_H

#include "isa.h"

typedef enum {
    MAXWELL_XMAD, MAXWELL_IADD3, MAXWELL_IMAD_LO, MAXWELL_IMAD_HI_U32, MAXWELL_IMUL_IMM16, MAXWELL_IMAD_HI_S32
} maxwell_form;
/* One past the last form (outside the enum, which switches cover whole). */
enum { MAXWELL_FORM_COUNT = MAXWELL_IMAD_HI_S32 + 1 };

enum { COP_C32, COP_CLO, COP_CHI, COP_CBCC, COP_CSFU };
enum { SB_REG, SB_IMM, SB_CBUF };
enum { SHIFT_NS, SHIFT_RS, SHIFT_LS };
enum { CSFU_ENVYTOOLS, CSFU_RYUJINX, CSFU_CROSS };
enum { CC_ZF = 1, CC_SF = 2, CC_CF = 4, CC_OF = 8 };

/* The table's rows: NULL past the last. */
const isa_op *maxwell_op_at(unsigned i);
extern const isa_family_impl maxwell_impl;

/* One XMAD, as the models and the sequences use it. */
typedef struct {
    bool sa, sb, psl, mrg, x, cc, a_h1, b_h1, sb_imm;
    int cop;
    uint32_t imm;
} maxwell_xmad_ctl;

typedef struct {
    int shift;
    bool nega, negb, negc, x, cc;
    int apart, bpart, cpart;
    int form;      /* SB_REG, SB_IMM (20-bit, sign-extended), SB_CBUF */
    uint32_t imm;
} maxwell_iadd3_ctl;

uint32_t maxwell_xmad(const maxwell_xmad_ctl *c, int csfu, uint32_t ra, uint32_t sb, uint32_t sc, uint32_t cc_in,
                      uint32_t *cc_out);
uint32_t maxwell_iadd3(const maxwell_iadd3_ctl *c, uint32_t ra, uint32_t sb, uint32_t rc, uint32_t cc_in,
                       uint32_t *cc_out);
/* The carry class's sharpest shape, per add: the add carries out of bit 31
 * only because of its carry-in (the sum before it all ones with a carry-in
 * of 1, or 0xfffffffe with XMAD's carry-in of 2).  Bit 0: XMAD's add or
 * IADD3's first (A + B), bit 1: IADD3's second (the shifted sum + C);
 * MAXWELL_ZERO_CHAINED: a zero result under .X.CC, whose ZF chains the
 * incoming ZF.  0 for the sequences, which add no carry-in. */
typedef struct {
    unsigned n;
    uint64_t pre[2];   /* each add's sum before its carry-in */
    uint32_t cin[2];
} maxwell_adds;
enum { MAXWELL_ZERO_CHAINED = 4 };
unsigned maxwell_carry_in_only(const isa_instance *in, const uint32_t *w);
/* The CSFU fix-up under a reading, for explanations and the oracle tests. */
uint32_t maxwell_csfu_fixup(int csfu, int32_t pa, int32_t pb, uint32_t ra, uint32_t sb, bool a_h1, bool b_h1);

maxwell_xmad_ctl maxwell_xmad_controls(const isa_instance *in);
maxwell_iadd3_ctl maxwell_iadd3_controls(const isa_instance *in);

/* The multiply sequences as data (maxwell_seq.c), which the model and the
 * lowering both walk: each step an XMAD (flags of MAXWELL_SEQ_* and a cop;
 * with imm, Sb is the instance's immediate) or an IADD3.RS, reading three
 * registers and writing one.  Registers 0-2 are the tuple's input words,
 * MAXWELL_SEQ_RZ is zero, the rest temporaries; the last step's is the result. */
enum { MAXWELL_SEQ_SA = 1, MAXWELL_SEQ_SB = 2, MAXWELL_SEQ_A_H1 = 4, MAXWELL_SEQ_B_H1 = 8, MAXWELL_SEQ_PSL = 16,
       MAXWELL_SEQ_MRG = 32 };
enum { MAXWELL_SEQ_RZ = 3, MAXWELL_SEQ_REGS = 7, MAXWELL_SEQ_STEPS = 5 };
typedef struct {
    bool iadd3_rs;      /* else an XMAD */
    unsigned flags;
    int cop;
    bool imm;
    int dst, src[3];
} maxwell_seq_step;
typedef struct {
    unsigned n;
    maxwell_seq_step step[MAXWELL_SEQ_STEPS];
} maxwell_seq;
const maxwell_seq *maxwell_seq_of(int form);  /* NULL: not a sequence */
maxwell_xmad_ctl maxwell_seq_xmad(const maxwell_seq_step *s, uint32_t imm);
uint32_t maxwell_seq_run(const maxwell_seq *seq, int csfu, uint32_t imm, const uint32_t *words, unsigned n_words);

/* The sequences on their operands (for the oracle tests). */
uint32_t maxwell_imad_lo(uint32_t a, uint32_t b, uint32_t c);
uint32_t maxwell_imad_hi_u32(uint32_t a, uint32_t b, uint32_t c);
uint32_t maxwell_imul_imm16(uint32_t a, uint32_t imm, uint32_t c);
uint32_t maxwell_imad_hi_s32(int csfu, uint32_t a, uint32_t b, uint32_t c);

void maxwell_eval(const isa_instance *in, const uint32_t *words, uint32_t *out, isa_trace *trace);
const char *maxwell_lower(const isa_instance *in, isa_lowering l, struct spv_builder *b, const unsigned *in_ids,
                          unsigned *out_ids);
/* Cases (maxwell_designs.c): one at a time, and a block at a time, the same cases. */
bool maxwell_construct(const isa_instance *in, gen_class c, gen_rng *rng, uint32_t *words);
void maxwell_construct_many(const isa_instance *in, const gen_class *c, gen_rng *rng, size_t n, uint32_t *words,
                            bool *reachable);
/* The carry designs of XMAD and IADD3 on words already drawn
 * (maxwell_construct.c): xp the instance's controls as the models read them,
 * heads the design's first draw, a coin the caller has taken. */
bool maxwell_xmad_carry(const maxwell_xmad_ctl *xp, int csfu, bool heads, gen_rng *rng, uint32_t *words);
bool maxwell_iadd3_carry(const maxwell_iadd3_ctl *xp, bool heads, gen_rng *rng, uint32_t *words);
/* The sign class's halves: 0x7fff, 0x8000, 0xffff, 0, 1. */
enum { MAXWELL_SIGN_VALUES = 5 };
extern const uint16_t maxwell_sign_values[MAXWELL_SIGN_VALUES];

/* x with half hi (0 low, 1 high) replaced by h's low 16 bits (no branch:
 * hi may be a case's coin). */
static inline uint32_t maxwell_set_half(uint32_t x, uint32_t hi, uint32_t h)
{
    unsigned s = hi * 16;
    return (x & ~(0xffffu << s)) | (h & 0xffff) << s;
}

/* What the merge and carry classes turn on, read by the designs
 * (maxwell_designs.c) and the classifier (maxwell_construct.c) alike. */
/* An XMAD reads Sb whole (.MRG or CBCC, with B.H1 of a register). */
static inline bool maxwell_xmad_reads_sb_whole(const uint32_t *ctrl)
{
    return (ctrl[CTRL_MRG] || ctrl[CTRL_COP] == COP_CBCC) && ctrl[CTRL_B_H1] && ctrl[CTRL_SB_KIND] != SB_IMM;
}
/* A sequence reads B's low half (IMAD.LO's .MRG step). */
static inline bool maxwell_seq_reads_b_low(int form) { return form == MAXWELL_IMAD_LO; }
/* An IADD3 whose adds take a carry-in (.X's flags, or a negation's +1). */
static inline bool maxwell_iadd3_has_carry_in(const maxwell_iadd3_ctl *x)
{
    return x->x || x->nega || x->negb || x->negc;
}
/* A sequence of a product's high word. */
static inline bool maxwell_seq_high_word(int form)
{
    return form == MAXWELL_IMAD_HI_U32 || form == MAXWELL_IMAD_HI_S32;
}
void maxwell_fast(const isa_instance *in, const uint32_t *words, uint32_t *out, isa_verdict *v, uint32_t want);
void maxwell_fast_batch(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out);
void maxwell_fast_verdicts(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out, isa_verdict *v,
                           const uint32_t *want);
uint32_t maxwell_classify(const isa_instance *in, const uint32_t *words, const isa_trace *t, uint32_t want);
/* maxwell_classify of n tuples in a row, with the controls read once (maxwell_batch.c). */
void maxwell_classify_many(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *classes);

#endif
