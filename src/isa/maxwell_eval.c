/* The host model of XMAD, IADD3 and the multiply sequences. */
#include <stdio.h>
#include <string.h>
#include "maxwell.h"
#include "classify.h"

static int32_t ext16(uint32_t h, bool sign) { return sign ? (int32_t)(int16_t)(uint16_t)h : (int32_t)(h & 0xffff); }
static uint32_t half(uint32_t x, bool hi) { return hi ? x >> 16 : x & 0xffff; }

uint32_t maxwell_csfu_fixup(int csfu, int32_t pa, int32_t pb, uint32_t ra, uint32_t sb, bool a_h1, bool b_h1)
{
    switch (csfu) {
    case CSFU_RYUJINX:
        return 0x10000u * ((pa < 0) + (pb < 0));
    case CSFU_CROSS:
        return 0x10000u * ((pa < 0 && half(sb, !b_h1) != 0) + (pb < 0 && half(ra, !a_h1) != 0));
    default:  /* envytools */
        return pa == 0 || pb == 0 ? 0 : 0x10000u * ((pa < 0) + (pb < 0));
    }
}

/* XMAD; adds, when given, gets its add's sum before the carry-in and the carry-in. */
static inline uint32_t xmad(const maxwell_xmad_ctl *c, int csfu, uint32_t ra, uint32_t sb, uint32_t sc, uint32_t cc_in,
                            uint32_t *cc_out, maxwell_adds *adds)
{
    uint32_t sbv = c->sb_imm ? c->imm & 0xffff : sb;  /* an IMM16 is Sb zero-extended, H0 implied */
    int32_t pa = ext16(half(ra, c->a_h1), c->sa);
    int32_t pb = ext16(half(sbv, c->b_h1 && !c->sb_imm), c->sb);
    uint32_t p = (uint32_t)((int64_t)pa * pb);
    if (c->psl)
        p <<= 16;
    uint32_t cv;
    switch (c->cop) {
    case COP_CLO: cv = sc & 0xffff; break;
    case COP_CHI: cv = sc >> 16; break;
    case COP_CBCC: cv = sc + ((sbv & 0xffff) << 16); break;  /* Sb[15:0] of the full Sb */
    case COP_CSFU: cv = sc - maxwell_csfu_fixup(csfu, pa, pb, ra, sbv, c->a_h1, c->b_h1); break;
    default: cv = sc; break;
    }
    uint32_t cin = c->x ? ((cc_in >> 2) & 1) + ((cc_in >> 3) & 1) : 0;
    uint64_t sum = (uint64_t)p + cv + cin;
    if (adds)
        *adds = (maxwell_adds){1, {(uint64_t)p + cv}, {cin}};
    uint32_t d = (uint32_t)sum;
    if (c->mrg)
        d = (d & 0xffff) | ((sbv & 0xffff) << 16);
    if (cc_out) {
        if (c->cc) {
            bool zf = d == 0 && (!c->x || (cc_in & CC_ZF));
            *cc_out = (zf ? CC_ZF : 0) | (d >> 31 ? CC_SF : 0) | ((sum >> 32) ? CC_CF : 0);
        } else {
            *cc_out = cc_in & 0xf;
        }
    }
    return d;
}

uint32_t maxwell_xmad(const maxwell_xmad_ctl *c, int csfu, uint32_t ra, uint32_t sb, uint32_t sc, uint32_t cc_in,
                      uint32_t *cc_out)
{
    return xmad(c, csfu, ra, sb, sc, cc_in, cc_out, NULL);
}

static uint32_t part(uint32_t x, int p) { return p == 1 ? x & 0xffff : p == 2 ? x >> 16 : x; }

static inline uint32_t iadd3(const maxwell_iadd3_ctl *c, uint32_t ra, uint32_t sb, uint32_t rc, uint32_t cc_in,
                             uint32_t *cc_out, maxwell_adds *adds)
{
    uint32_t a = part(ra, c->apart), cc = part(rc, c->cpart), b;
    if (c->form == SB_IMM)
        b = (c->imm & 0x80000) ? (c->imm | 0xfff00000u) : (c->imm & 0xfffff);  /* 20 bits, sign-extended */
    else
        b = c->form == SB_CBUF ? sb : part(sb, c->bpart);
    uint32_t A = c->nega ? ~a : a, B = c->negb ? ~b : b, C = c->negc ? ~cc : cc;
    uint32_t cin1 = c->x ? (cc_in >> 3) & 1 : (c->nega || c->negb);
    uint32_t cin2 = c->x ? (cc_in >> 2) & 1 : c->negc;
    uint64_t s1 = (uint64_t)A + B + cin1;
    uint32_t t = c->shift == SHIFT_RS ? (uint32_t)(s1 >> 16)         /* bit 32 kept: 33-bit shift */
                 : c->shift == SHIFT_LS ? (uint32_t)(s1 << 16) : (uint32_t)s1;
    uint64_t s2 = (uint64_t)t + C + cin2;
    if (adds)
        *adds = (maxwell_adds){2, {(uint64_t)A + B, (uint64_t)t + C}, {cin1, cin2}};
    uint32_t d = (uint32_t)s2;
    if (cc_out) {
        if (c->cc) {
            bool zf = d == 0 && (!c->x || (cc_in & CC_ZF));
            *cc_out = (zf ? CC_ZF : 0) | (d >> 31 ? CC_SF : 0) | ((s2 >> 32) ? CC_CF : 0) | ((s1 >> 32) ? CC_OF : 0);
        } else {
            *cc_out = cc_in & 0xf;
        }
    }
    return d;
}

uint32_t maxwell_iadd3(const maxwell_iadd3_ctl *c, uint32_t ra, uint32_t sb, uint32_t rc, uint32_t cc_in,
                       uint32_t *cc_out)
{
    return iadd3(c, ra, sb, rc, cc_in, cc_out, NULL);
}

unsigned maxwell_carry_in_only(const isa_instance *in, const uint32_t *w)
{
    maxwell_adds a = {0};
    uint32_t d = 0, cc = 0;
    if (in->op->form == MAXWELL_XMAD) {
        maxwell_xmad_ctl c = maxwell_xmad_controls(in);
        d = xmad(&c, in->param[PARAM_CSFU], w[0], w[1], w[2], w[3], &cc, &a);
    } else if (in->op->form == MAXWELL_IADD3) {
        maxwell_iadd3_ctl c = maxwell_iadd3_controls(in);
        d = iadd3(&c, w[0], w[1], w[2], w[3], &cc, &a);
    } else {
        return 0;  /* the sequences add no carry-in */
    }
    unsigned m = 0;
    for (unsigned i = 0; i < a.n; i++)
        if (a.pre[i] < (1ull << 32) && a.pre[i] + a.cin[i] >= (1ull << 32))
            m |= 1u << i;
    if (d == 0 && in->ctrl[CTRL_X] && in->ctrl[CTRL_CC])
        m |= MAXWELL_ZERO_CHAINED;
    return m;
}

maxwell_xmad_ctl maxwell_xmad_controls(const isa_instance *in)
{
    const uint32_t *c = in->ctrl;
    return (maxwell_xmad_ctl){c[CTRL_SASIGN], c[CTRL_SBSIGN], c[CTRL_PSL], c[CTRL_MRG], c[CTRL_X], c[CTRL_CC],
                              c[CTRL_A_H1], c[CTRL_B_H1], c[CTRL_SB_KIND] == SB_IMM, (int)c[CTRL_COP], c[CTRL_IMM]};
}

maxwell_iadd3_ctl maxwell_iadd3_controls(const isa_instance *in)
{
    const uint32_t *c = in->ctrl;
    return (maxwell_iadd3_ctl){(int)c[CTRL_SHIFT], c[CTRL_NEGA], c[CTRL_NEGB], c[CTRL_NEGC], c[CTRL_X], c[CTRL_CC],
                               (int)c[CTRL_A_PART], (int)c[CTRL_B_PART], (int)c[CTRL_C_PART], (int)c[CTRL_SB_KIND],
                               c[CTRL_IMM]};
}

/* ---- the sequences, as NVIDIA's compiler emits them ---- */

uint32_t maxwell_imad_lo(uint32_t a, uint32_t b, uint32_t c)
{
    return maxwell_seq_run(maxwell_seq_of(MAXWELL_IMAD_LO), CSFU_ENVYTOOLS, 0, (uint32_t[]){a, b, c}, 3);
}

uint32_t maxwell_imad_hi_u32(uint32_t a, uint32_t b, uint32_t c)
{
    return maxwell_seq_run(maxwell_seq_of(MAXWELL_IMAD_HI_U32), CSFU_ENVYTOOLS, 0, (uint32_t[]){a, b, c}, 3);
}

uint32_t maxwell_imul_imm16(uint32_t a, uint32_t imm, uint32_t c)
{
    return maxwell_seq_run(maxwell_seq_of(MAXWELL_IMUL_IMM16), CSFU_ENVYTOOLS, imm, (uint32_t[]){a, c}, 2);
}

uint32_t maxwell_imad_hi_s32(int csfu, uint32_t a, uint32_t b, uint32_t c)
{
    return maxwell_seq_run(maxwell_seq_of(MAXWELL_IMAD_HI_S32), csfu, 0, (uint32_t[]){a, b, c}, 3);
}

void maxwell_eval(const isa_instance *in, const uint32_t *w, uint32_t *out, isa_trace *t)
{
    if (t) {
        t->n_steps = 0;
        t->lane[0].used = t->lane[1].used = false;
        t->note = NULL;
    }
    int csfu = in->param[PARAM_CSFU];
    switch ((maxwell_form)in->op->form) {
    case MAXWELL_XMAD: {
        maxwell_xmad_ctl c = maxwell_xmad_controls(in);
        out[0] = maxwell_xmad(&c, csfu, w[0], w[1], w[2], w[3], &out[1]);
        if (t && (c.cop == COP_CSFU || c.cc)) {
            snprintf(t->note_text, sizeof t->note_text, "model-dependent: %s%s%s",
                     c.cop == COP_CSFU ? "the CSFU fix-up (csfu=" : "",
                     c.cop == COP_CSFU ? isa_params[PARAM_CSFU].values[csfu] : "",
                     c.cop == COP_CSFU ? (c.cc ? "), the CC flags (xmad_cc=final-carry)" : ")")
                                       : "the CC flags (xmad_cc=final-carry)");
            t->note = t->note_text;
        }
        break;
    }
    case MAXWELL_IADD3: {
        maxwell_iadd3_ctl c = maxwell_iadd3_controls(in);
        out[0] = maxwell_iadd3(&c, w[0], w[1], w[2], w[3], &out[1]);
        if (t && c.cc && (c.x || c.nega || c.negb || c.negc || c.shift)) {
            snprintf(t->note_text, sizeof t->note_text,
                     "model-dependent: CC with negation, shift or .X is not hardware-confirmed");
            t->note = t->note_text;
        }
        break;
    }
    case MAXWELL_IMAD_LO:
    case MAXWELL_IMAD_HI_U32:
    case MAXWELL_IMUL_IMM16:
        out[0] = maxwell_seq_run(maxwell_seq_of(in->op->form), csfu, in->ctrl[CTRL_IMM], w, in->op->n_in);
        break;
    case MAXWELL_IMAD_HI_S32: {
        out[0] = maxwell_seq_run(maxwell_seq_of(in->op->form), csfu, in->ctrl[CTRL_IMM], w, in->op->n_in);
        if (t) {
            /* Which CSFU readings give the exact signed high word here. */
            uint32_t exact = (uint32_t)(((int64_t)(int32_t)w[0] * (int32_t)w[1]) >> 32) + w[2];
            int n = snprintf(t->note_text, sizeof t->note_text, "model-dependent: CSFU; exact signed hi32 + C is "
                             "%08x; readings that agree:", exact);
            bool any = false;
            for (int r = 0; r < 3; r++)
                if (maxwell_imad_hi_s32(r, w[0], w[1], w[2]) == exact) {
                    n += snprintf(t->note_text + n, sizeof t->note_text - (size_t)n, " %s", isa_params[PARAM_CSFU].values[r]);
                    any = true;
                }
            if (!any)
                snprintf(t->note_text + n, sizeof t->note_text - (size_t)n, " none");
            t->note = t->note_text;
        }
        break;
    }
    }
}

/* The fast twin: this model is 64-bit integer arithmetic already, exact by
 * construction; without a trace it writes no notes, and the classes come
 * from the words alone (integer ops have no roundings, hence no cells). */
void maxwell_fast(const isa_instance *in, const uint32_t *w, uint32_t *out, isa_verdict *v, uint32_t want)
{
    if (!v)
        maxwell_fast_batch(in, w, 1, out);
    else
        maxwell_fast_verdicts(in, w, 1, out, v, &want);
}

/* maxwell_fast for n tuples in a row (one at a time too: the one fast
 * path): the outputs from the batch path (the sequences in straight 64-bit
 * arithmetic, where maxwell_eval interprets each step: three quarters of a
 * generated IMUL_IMM16 case), the classes from maxwell_classify_many.  The
 * step model and maxwell_classify are the exact path's.  The classes are
 * also at_result: the family judges the whole op (isa.h's fast_verdicts). */
void maxwell_fast_verdicts(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out, isa_verdict *v,
                           const uint32_t *want)
{
    (void)want;  /* the classes come from the words alone */
    enum { CHUNK = 256 };
    uint32_t classes[CHUNK];
    unsigned ni = in->op->n_in;
    maxwell_fast_batch(in, words, n, out);
    for (size_t first = 0; first < n; first += CHUNK) {
        size_t m = n - first < CHUNK ? n - first : CHUNK;
        maxwell_classify_many(in, words + first * ni, m, classes);
        for (size_t i = 0; i < m; i++)
            v[first + i] = (isa_verdict){.classes = classes[i], .at_result = classes[i], .tie_exp = ISA_NO_EXPONENT};
    }
}
