/* The Maxwell family's batch paths: outputs alone, many tuples at a time.
 *
 * The step-by-step model (maxwell_eval.c, maxwell_seq.c) decides every
 * control per tuple, through branches.  Here each form's controls become
 * masks, shifts and constants once a batch, so a tuple's work is straight
 * arithmetic with no branch and the loops vectorize (built for AVX-512,
 * AVX2 and plain x86-64, picked at load time).  The sequences run as closed
 * forms, each derived below from its steps.  None of this is trusted on its
 * own: selftest and every campaign's audit hold it to the step model. */
#include "maxwell.h"
#include "../fp/lanes.h"

static uint32_t all_if(bool b) { return b ? 0xffffffffu : 0; }

/* The CSFU reading as three masks, one of them all ones (all zero: no fix-up). */
typedef struct {
    uint32_t ryujinx, cross, envytools;
} csfu_masks;

static csfu_masks csfu_select(bool on, int csfu)
{
    return (csfu_masks){all_if(on && csfu == CSFU_RYUJINX), all_if(on && csfu == CSFU_CROSS),
                        all_if(on && csfu != CSFU_RYUJINX && csfu != CSFU_CROSS)};
}

/* maxwell_csfu_fixup without a branch: pa, pb the signed factors; a_other,
 * b_other the halves of their words that the factors are not. */
static inline uint32_t csfu_fixup(csfu_masks m, int32_t pa, int32_t pb, uint32_t a_other, uint32_t b_other)
{
    uint32_t a_neg = (uint32_t)(pa < 0), b_neg = (uint32_t)(pb < 0);
    uint32_t both = (a_neg + b_neg) << 16;
    uint32_t cross = ((a_neg & (uint32_t)(b_other != 0)) + (b_neg & (uint32_t)(a_other != 0))) << 16;
    uint32_t envytools = both & ~all_if(pa == 0 || pb == 0);
    return (both & m.ryujinx) | (cross & m.cross) | (envytools & m.envytools);
}

/* ---- IADD3 ---- */

/* A source part is (x >> shift) & mask: the whole word, its low or its high
 * half.  IADD3's 20-bit immediate is a constant with a zero mask. */
typedef struct {
    uint32_t a_shift, a_mask, b_shift, b_mask, b_const, c_shift, c_mask;
    uint32_t nega, negb, negc;       /* XOR masks: ~x where negated */
    uint32_t x;                      /* 1 under .X: carry-ins come from the CC word */
    uint32_t cin1, cin2;             /* the carry-ins without .X */
    uint32_t rs, ls;                 /* the first sum's shift: >> 16 (.RS) or << 16 (.LS) */
    uint32_t cc;                     /* all ones where .CC writes the flags */
} iadd3_masks;

static void part_mask(int part, uint32_t *shift, uint32_t *mask)
{
    *shift = part == 2 ? 16 : 0;
    *mask = part == 1 || part == 2 ? 0xffff : 0xffffffffu;
}

static iadd3_masks iadd3_decode(const maxwell_iadd3_ctl *c)
{
    iadd3_masks m = {.nega = all_if(c->nega), .negb = all_if(c->negb), .negc = all_if(c->negc), .x = c->x,
                     .cin1 = !c->x && (c->nega || c->negb), .cin2 = !c->x && c->negc,
                     .rs = c->shift == SHIFT_RS ? 16 : 0, .ls = c->shift == SHIFT_LS ? 16 : 0, .cc = all_if(c->cc)};
    part_mask(c->apart, &m.a_shift, &m.a_mask);
    part_mask(c->cpart, &m.c_shift, &m.c_mask);
    if (c->form == SB_IMM)
        m.b_const = (c->imm & 0x80000) ? (c->imm | 0xfff00000u) : (c->imm & 0xfffff);  /* 20 bits, sign-extended */
    else if (c->form == SB_CBUF)
        m.b_mask = 0xffffffffu;  /* a constant-bank Sb is read whole */
    else
        part_mask(c->bpart, &m.b_shift, &m.b_mask);
    return m;
}

/* The flags .CC writes, or the incoming ones kept: ZF chains the incoming
 * ZF under .X.  carry and overflow are 0 or 1. */
static inline uint32_t cc_word(uint32_t cc_mask, uint32_t x, uint32_t d, uint32_t cc_in, uint32_t carry,
                               uint32_t overflow)
{
    uint32_t zf = (uint32_t)(d == 0) & ((x ^ 1) | (cc_in & CC_ZF));
    uint32_t flags = zf * CC_ZF | (d >> 31) * CC_SF | carry * CC_CF | overflow * CC_OF;
    return (flags & cc_mask) | (cc_in & 0xf & ~cc_mask);
}

/* IADD3's two sums, 33 bits each: s1 = a + b + carry-in, s2 = s1 shifted + c + carry-in;
 * and low, the first sum's carry out of bit 15 (0 or 1). */
static inline void iadd3_sums(const iadd3_masks *mp, const uint32_t *w, uint64_t *s1_out, uint64_t *s2_out,
                              uint32_t *low)
{
    const iadd3_masks m = *mp;
    uint32_t ra = w[0], sb = w[1], rc = w[2], cc_in = w[3];
    uint32_t a = ((ra >> m.a_shift) & m.a_mask) ^ m.nega;
    uint32_t b = (((sb >> m.b_shift) & m.b_mask) | m.b_const) ^ m.negb;
    uint32_t c = ((rc >> m.c_shift) & m.c_mask) ^ m.negc;
    uint32_t cin1 = ((cc_in >> 3) & m.x) | m.cin1, cin2 = ((cc_in >> 2) & m.x) | m.cin2;
    uint64_t s1 = (uint64_t)a + b + cin1;
    uint32_t shifted = (uint32_t)((s1 >> m.rs) << m.ls);  /* .RS keeps bit 32: a 33-bit shift */
    *s1_out = s1;
    *s2_out = (uint64_t)shifted + c + cin2;
    *low = ((a & 0xffff) + (b & 0xffff) + cin1) >> 16;
}

LANES_ENTRY void iadd3_many(const iadd3_masks *mp, const uint32_t *restrict w, size_t n, uint32_t *restrict out)
{
    const iadd3_masks m = *mp;
    for (size_t t = 0; t < n; t++) {
        uint32_t cc_in = w[4 * t + 3];
        uint64_t s1, s2;
        uint32_t low;  /* not an output */
        iadd3_sums(&m, w + 4 * t, &s1, &s2, &low);
        (void)low;
        uint32_t d = (uint32_t)s2;
        out[2 * t] = d;
        out[2 * t + 1] = cc_word(m.cc, m.x, d, cc_in, (uint32_t)(s2 >> 32), (uint32_t)(s1 >> 32));
    }
}

/* ---- XMAD ---- */

/* A factor is a half, (x >> shift) & 0xffff, sign-extended where signed:
 * (h ^ sign) - sign with sign 0x8000 or 0.  The addend is
 * ((sc >> c_shift) & c_mask), plus Sb's low half in the high one under
 * .CBCC, minus the CSFU fix-up of the model parameter's reading. */
typedef struct {
    uint32_t a_shift, a_sign, b_shift, b_sign, b_const, b_mask;  /* an IMM16 Sb: a constant, mask 0 */
    uint32_t a_other, b_other;        /* the other halves' shifts (CSFU's cross reading) */
    uint32_t psl;                     /* 16 under .PSL */
    uint32_t c_shift, c_mask, cbcc, mrg;  /* cbcc, mrg: all-ones masks */
    csfu_masks csfu;                  /* the reading under .CSFU; none otherwise */
    uint32_t x, cc;
} xmad_masks;

static xmad_masks xmad_decode(const maxwell_xmad_ctl *c, int csfu)
{
    xmad_masks m = {.a_shift = c->a_h1 ? 16 : 0, .a_sign = c->sa ? 0x8000 : 0, .b_sign = c->sb ? 0x8000 : 0,
                    .a_other = c->a_h1 ? 0 : 16, .b_other = c->b_h1 ? 0 : 16, .psl = c->psl ? 16 : 0,
                    .c_shift = c->cop == COP_CHI ? 16 : 0,
                    .c_mask = c->cop == COP_CLO || c->cop == COP_CHI ? 0xffff : 0xffffffffu,
                    .cbcc = all_if(c->cop == COP_CBCC), .mrg = all_if(c->mrg),
                    .csfu = csfu_select(c->cop == COP_CSFU, csfu),
                    .x = c->x, .cc = all_if(c->cc)};
    if (c->sb_imm) {
        m.b_const = c->imm & 0xffff;  /* zero-extended, H0 implied (the cross reading still reads b_h1) */
    } else {
        m.b_shift = c->b_h1 ? 16 : 0;
        m.b_mask = 0xffffffffu;
    }
    return m;
}

static inline int32_t ext16(uint32_t h, uint32_t sign) { return (int32_t)((h ^ sign) - sign); }

/* XMAD's sum before .MRG, 34 bits: the product, the addend and the carry-ins. */
static inline uint64_t xmad_sum(const xmad_masks *mp, const uint32_t *w)
{
    const xmad_masks m = *mp;
    uint32_t ra = w[0], sc = w[2], cc_in = w[3];
    uint32_t sb = (w[1] & m.b_mask) | m.b_const;
    int32_t pa = ext16((ra >> m.a_shift) & 0xffff, m.a_sign);
    int32_t pb = ext16((sb >> m.b_shift) & 0xffff, m.b_sign);
    uint32_t p = ((uint32_t)pa * (uint32_t)pb) << m.psl;
    uint32_t fixup = csfu_fixup(m.csfu, pa, pb, (ra >> m.a_other) & 0xffff, (sb >> m.b_other) & 0xffff);
    uint32_t cv = ((sc >> m.c_shift) & m.c_mask) + ((sb << 16) & m.cbcc) - fixup;
    uint32_t cin = (((cc_in >> 2) & 1) + ((cc_in >> 3) & 1)) & (0 - m.x);
    return (uint64_t)p + cv + cin;
}

LANES_ENTRY void xmad_many(const xmad_masks *mp, const uint32_t *restrict w, size_t n, uint32_t *restrict out)
{
    const xmad_masks m = *mp;
    for (size_t t = 0; t < n; t++) {
        uint32_t cc_in = w[4 * t + 3];
        uint32_t sb = (w[4 * t + 1] & m.b_mask) | m.b_const;
        uint64_t sum = xmad_sum(&m, w + 4 * t);
        uint32_t d = (uint32_t)sum;
        d = (d & ~(m.mrg & 0xffff0000u)) | ((sb << 16) & m.mrg);
        out[2 * t] = d;
        /* The carry out is 0, 1 or 2 (two carry-ins of 1 on all-ones words): CF is whether it is 0. */
        out[2 * t + 1] = cc_word(m.cc, m.x, d, cc_in, (uint32_t)((sum >> 32) != 0), 0);
    }
}

/* ---- the sequences in closed form ---- */

/* IMAD.LO: XMAD, XMAD.MRG and XMAD.PSL.CBCC add the three partial products
 * that reach the low word, carries and all: A*B + C mod 2^32. */
LANES_ENTRY void imad_lo_many(const uint32_t *restrict w, size_t n, uint32_t *restrict out)
{
    for (size_t t = 0; t < n; t++)
        out[t] = w[3 * t] * w[3 * t + 1] + w[3 * t + 2];
}

/* IMAD.HI.U32: the .RS step adds the middle partial products before it
 * shifts, so no carry between them is lost: hi32(A*B) + C. */
LANES_ENTRY void imad_hi_u32_many(const uint32_t *restrict w, size_t n, uint32_t *restrict out)
{
    for (size_t t = 0; t < n; t++)
        out[t] = (uint32_t)(((uint64_t)w[3 * t] * w[3 * t + 1]) >> 32) + w[3 * t + 2];
}

/* IMUL with a 16-bit immediate: XMAD T = A.H0*imm + C, then XMAD.PSL
 * D = (A.H1*imm << 16) + T, both mod 2^32: A*imm + C. */
LANES_ENTRY void imul_imm16_many(uint32_t imm, const uint32_t *restrict w, size_t n, uint32_t *restrict out)
{
    for (size_t t = 0; t < n; t++)
        out[t] = w[2 * t] * (imm & 0xffff) + w[2 * t + 1];
}

/* IMAD.HI.S32.  With A = a1*2^16 + a0 and B = b1*2^16 + b0 (a1, b1 signed
 * halves, a0, b0 unsigned), the steps make T0 = a0*b0, T1 = X = a0*b1,
 * T0' = Y = a1*b0 + (T0 >> 16) (each mod 2^32), D1 = a1*b1 + C - F (F the
 * CSFU fix-up), and D = ((T0' + T1) >> 16) + D1 with the 33-bit sum.  The
 * words X and Y stand for the signed values plus 2^32 where negative, so
 * the 33-bit sum is X + Y + 2^32*k, k the count of negative ones, and its
 * shift is floor((X + Y) / 2^16) + 2^16*k.  Since the exact product is
 * a1*b1*2^32 + (X + Y)*2^16 + (a0*b0 mod 2^16), its high word is
 * a1*b1 + floor((X + Y) / 2^16).  So D = hi32(A*B) + C + 2^16*k - F,
 * mod 2^32: exact exactly where the reading's F equals 2^16*k. */
LANES_ENTRY void imad_hi_s32_many(int csfu, const uint32_t *restrict w, size_t n, uint32_t *restrict out)
{
    csfu_masks reading = csfu_select(true, csfu);
    for (size_t t = 0; t < n; t++) {
        uint32_t a = w[3 * t], b = w[3 * t + 1], c = w[3 * t + 2];
        int32_t a1 = (int32_t)a >> 16, b1 = (int32_t)b >> 16;
        uint32_t a0 = a & 0xffff, b0 = b & 0xffff;
        int64_t x = (int64_t)a0 * b1, y = (int64_t)a1 * b0 + ((a0 * b0) >> 16);
        uint32_t k = ((uint32_t)(x < 0) + (uint32_t)(y < 0)) << 16;
        uint32_t hi = (uint32_t)((uint64_t)((int64_t)(int32_t)a * (int32_t)b) >> 32);
        out[t] = hi + c + k - csfu_fixup(reading, a1, b1, a0, b0);
    }
}

void maxwell_fast_batch(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out)
{
    switch ((maxwell_form)in->op->form) {
    case MAXWELL_XMAD: {
        maxwell_xmad_ctl c = maxwell_xmad_controls(in);
        xmad_masks m = xmad_decode(&c, in->param[PARAM_CSFU]);
        xmad_many(&m, words, n, out);
        break;
    }
    case MAXWELL_IADD3: {
        maxwell_iadd3_ctl c = maxwell_iadd3_controls(in);
        iadd3_masks m = iadd3_decode(&c);
        iadd3_many(&m, words, n, out);
        break;
    }
    case MAXWELL_IMAD_LO:
        imad_lo_many(words, n, out);
        break;
    case MAXWELL_IMAD_HI_U32:
        imad_hi_u32_many(words, n, out);
        break;
    case MAXWELL_IMUL_IMM16:
        imul_imm16_many(in->ctrl[CTRL_IMM], words, n, out);
        break;
    case MAXWELL_IMAD_HI_S32:
        imad_hi_s32_many(in->param[PARAM_CSFU], words, n, out);
        break;
    }
}

/* ---- the classes a tuple reaches, many at a time ----
 * maxwell_classify's answers (maxwell_construct.c says what each class
 * means), with the controls read once a batch and no branch a tuple: the
 * carries from the sums above with .CC on and .MRG off, as maxwell_classify
 * evaluates them.  Held to maxwell_classify by test maxwell-batch (every
 * control), selftest and every campaign's audit. */

#define CLASS_BIT(cond, cls) ((uint32_t)(cond) << (cls))

/* A half at 0x7fff, 0x8000, 0xffff, 0 or 1. */
static inline uint32_t sign_half_at(uint32_t h)
{
    uint32_t x = h & 0xffff;
    return (uint32_t)(((x + 1) & 0xffff) <= 2) | (uint32_t)(x - 0x7fff <= 1);
}

static inline uint32_t one_half_zero(uint32_t x) { return (uint32_t)((x & 0xffff) == 0) ^ (uint32_t)((x >> 16) == 0); }

LANES_ENTRY void xmad_classes(const xmad_masks *mp, bool sb_word, bool merge_reads, const uint32_t *restrict w,
                              size_t n, uint32_t *restrict classes)
{
    const xmad_masks m = *mp;
    uint32_t word = all_if(sb_word), merge = all_if(merge_reads);
    for (size_t t = 0; t < n; t++) {
        const uint32_t *tw = w + 4 * t;
        uint32_t sb = (tw[1] & m.b_mask) | m.b_const;
        uint32_t sign = sign_half_at(tw[0] >> m.a_shift) | sign_half_at(sb >> m.b_shift);
        uint32_t zero = one_half_zero(tw[0]) | (one_half_zero(tw[1]) & word);
        uint32_t merged = (uint32_t)((sb & 0xffff) != (sb >> 16)) & merge;
        uint32_t carry = (uint32_t)((xmad_sum(&m, tw) >> 32) != 0);
        classes[t] = CLASS_BIT(1, GEN_RANDOM) | CLASS_BIT(sign, GEN_SIGN) | CLASS_BIT(zero, GEN_ZERO_HALF) |
                     CLASS_BIT(merged, GEN_MERGE) | CLASS_BIT(carry, GEN_CARRY);
    }
}

/* parts[i]: 0 whole, 1 low half, 2 high half, as CTRL_A_PART + i. */
LANES_ENTRY void iadd3_classes(const iadd3_masks *mp, const uint32_t *parts, uint32_t low_carry_on,
                               const uint32_t *restrict w, size_t n, uint32_t *restrict classes)
{
    const iadd3_masks m = *mp;
    uint32_t low_half[3], whole[3];
    for (int i = 0; i < 3; i++) {
        low_half[i] = all_if(parts[i] == 1);
        whole[i] = all_if(parts[i] == 0);
    }
    for (size_t t = 0; t < n; t++) {
        const uint32_t *tw = w + 4 * t;
        uint64_t s1, s2;
        uint32_t low;
        iadd3_sums(&m, tw, &s1, &s2, &low);
        uint32_t carry = (uint32_t)(s2 >> 32) | (uint32_t)(s1 >> 32) | (low & low_carry_on);
        uint32_t sign = 0, zero = 0;
        for (int i = 0; i < 3; i++) {
            uint32_t h = (tw[i] & low_half[i]) | ((tw[i] >> 16) & ~low_half[i]);
            sign |= sign_half_at(h) | (sign_half_at(tw[i]) & whole[i]);
            zero |= one_half_zero(tw[i]);
        }
        classes[t] = CLASS_BIT(1, GEN_RANDOM) | CLASS_BIT(sign, GEN_SIGN) | CLASS_BIT(zero, GEN_ZERO_HALF) |
                     CLASS_BIT(carry, GEN_CARRY);
    }
}

/* The sequences: a, b (the immediate where b_fixed), c the addend. */
LANES_ENTRY void seq_classes(int form, uint32_t b_fixed, bool b_is_fixed, const uint32_t *restrict w, size_t n,
                             uint32_t *restrict classes)
{
    unsigned ni = b_is_fixed ? 2 : 3;
    uint32_t fixed = all_if(b_is_fixed);
    uint32_t merge_on = all_if(form == MAXWELL_IMAD_LO);
    bool hi = form == MAXWELL_IMAD_HI_U32 || form == MAXWELL_IMAD_HI_S32;
    for (size_t t = 0; t < n; t++) {
        const uint32_t *tw = w + ni * t;
        uint32_t a = tw[0], b = (b_fixed & fixed) | (tw[1] & ~fixed), c = tw[ni - 1];
        uint32_t sign = sign_half_at(a) | sign_half_at(a >> 16) | sign_half_at(b) | sign_half_at(b >> 16);
        uint32_t zero = one_half_zero(a) | one_half_zero(b);
        uint32_t merged = (uint32_t)((b & 0xffff) != (b >> 16)) & merge_on;
        uint64_t a0 = a & 0xffff, a1 = a >> 16, b0 = b & 0xffff, b1 = b >> 16;
        uint64_t middle = a0 * b1 + a1 * b0 + ((a0 * b0) >> 16);  /* needs 33 bits where it carries */
        uint64_t low = (uint64_t)(a * b) + c;
        uint32_t carry = (uint32_t)(((hi ? middle : low) >> 32) != 0);
        classes[t] = CLASS_BIT(1, GEN_RANDOM) | CLASS_BIT(sign, GEN_SIGN) | CLASS_BIT(zero, GEN_ZERO_HALF) |
                     CLASS_BIT(merged, GEN_MERGE) | CLASS_BIT(carry, GEN_CARRY);
    }
}

void maxwell_classify_many(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *classes)
{
    const uint32_t *c = in->ctrl;
    switch ((maxwell_form)in->op->form) {
    case MAXWELL_XMAD: {
        maxwell_xmad_ctl x = maxwell_xmad_controls(in);
        x.cc = true;
        x.mrg = false;
        xmad_masks m = xmad_decode(&x, in->param[PARAM_CSFU]);
        bool imm = c[CTRL_SB_KIND] == SB_IMM;
        bool merge_reads = (c[CTRL_MRG] || c[CTRL_COP] == COP_CBCC) && c[CTRL_B_H1] && !imm;
        xmad_classes(&m, !imm, merge_reads, words, n, classes);
        break;
    }
    case MAXWELL_IADD3: {
        maxwell_iadd3_ctl x = maxwell_iadd3_controls(in);
        x.cc = true;
        iadd3_masks m = iadd3_decode(&x);
        uint32_t parts[3] = {c[CTRL_A_PART], c[CTRL_A_PART + 1], c[CTRL_A_PART + 2]};
        iadd3_classes(&m, parts, all_if(x.shift), words, n, classes);
        break;
    }
    default: {
        bool imm = in->op->form == MAXWELL_IMUL_IMM16;
        seq_classes(in->op->form, imm ? c[CTRL_IMM] : 0, imm, words, n, classes);
        break;
    }
    }
}
