/* Case constructors and class verification for the Maxwell integer ops.
 * Classes: carry (sums that carry out of bit 31, or out of bit 15 where a
 * shift follows), sign (selected halves at 0x7fff, 0x8000, 0xffff, 0, 1),
 * merge (an Sb whose low half differs from the selected half, where MRG or
 * CBCC read the full Sb), zero-half (one half zero, the other not), random. */
#include <stddef.h>
#include "maxwell.h"

#define BIT(v, i) (((v) >> (i)) & 1u)

static const uint16_t sign_values[] = {0x7fff, 0x8000, 0xffff, 0x0000, 0x0001};

static bool is_sign_value(uint32_t h)
{
    for (unsigned i = 0; i < sizeof sign_values / sizeof sign_values[0]; i++)
        if ((h & 0xffff) == sign_values[i])
            return true;
    return false;
}

static bool one_zero_half(uint32_t x) { return ((x & 0xffff) == 0) != ((x >> 16) == 0); }

static uint32_t set_half(uint32_t x, bool hi, uint32_t h)
{
    return hi ? (x & 0xffffu) | (h << 16) : (x & 0xffff0000u) | (h & 0xffff);
}

static uint32_t sign_half(gen_rng *r) { return sign_values[gen_below(r, 5)]; }

static uint32_t zero_one_half(gen_rng *r)
{
    uint32_t nz = (uint32_t)(gen_next(r) & 0xffff) | 1;
    return gen_coin(r) ? nz : nz << 16;
}

/* The middle sum of a 32x32 high-word sequence: it needs 33 bits. */
static uint64_t middle_sum(uint32_t a, uint32_t b)
{
    uint64_t a0 = a & 0xffff, a1 = a >> 16, b0 = b & 0xffff, b1 = b >> 16;
    return a0 * b1 + a1 * b0 + ((a0 * b0) >> 16);
}

uint32_t maxwell_classify(const isa_instance *in, const uint32_t *w, const isa_trace *t, uint32_t want)
{
    (void)t;
    (void)want;
    uint32_t m = 1u << GEN_RANDOM;
    const uint32_t *c = in->ctrl;
    switch ((maxwell_form)in->op->form) {
    case MAXWELL_XMAD: {
        bool imm = c[CTRL_SB_KIND] == SB_IMM;
        uint32_t sbv = imm ? c[CTRL_IMM] : w[1];
        uint32_t ha = c[CTRL_A_H1] ? w[0] >> 16 : w[0] & 0xffff;
        uint32_t hb = c[CTRL_B_H1] && !imm ? sbv >> 16 : sbv & 0xffff;
        if (is_sign_value(ha) || is_sign_value(hb))
            m |= 1u << GEN_SIGN;
        if (one_zero_half(w[0]) || (!imm && one_zero_half(w[1])))
            m |= 1u << GEN_ZERO_HALF;
        if ((c[CTRL_MRG] || c[CTRL_COP] == COP_CBCC) && c[CTRL_B_H1] && !imm && (sbv & 0xffff) != (sbv >> 16))
            m |= 1u << GEN_MERGE;
        maxwell_xmad_ctl x = maxwell_xmad_controls(in);
        x.cc = true;
        x.mrg = false;
        uint32_t cc;
        maxwell_xmad(&x, in->param[PARAM_CSFU], w[0], w[1], w[2], w[3], &cc);
        if (cc & CC_CF)
            m |= 1u << GEN_CARRY;
        break;
    }
    case MAXWELL_IADD3: {
        maxwell_iadd3_ctl x = maxwell_iadd3_controls(in);
        x.cc = true;
        uint32_t cc;
        maxwell_iadd3(&x, w[0], w[1], w[2], w[3], &cc);
        uint32_t a = x.nega ? ~w[0] : w[0], b = x.negb ? ~w[1] : w[1];
        bool low_carry = x.shift && (a & 0xffff) + (b & 0xffff) > 0xffff;
        if ((cc & (CC_CF | CC_OF)) || low_carry)
            m |= 1u << GEN_CARRY;
        for (int i = 0; i < 3; i++) {
            int p = (int)c[CTRL_A_PART + i];
            if (is_sign_value(p == 1 ? w[i] : w[i] >> 16) || (p == 0 && is_sign_value(w[i])))
                m |= 1u << GEN_SIGN;
            if (one_zero_half(w[i]))
                m |= 1u << GEN_ZERO_HALF;
        }
        break;
    }
    default: {
        uint32_t a = w[0], b = in->op->form == MAXWELL_IMUL_IMM16 ? c[CTRL_IMM] : w[1];
        uint32_t cw = in->op->form == MAXWELL_IMUL_IMM16 ? w[1] : w[2];
        if (is_sign_value(a) || is_sign_value(a >> 16) || is_sign_value(b) || is_sign_value(b >> 16))
            m |= 1u << GEN_SIGN;
        if (one_zero_half(a) || one_zero_half(b))
            m |= 1u << GEN_ZERO_HALF;
        if (in->op->form == MAXWELL_IMAD_LO && (b & 0xffff) != (b >> 16))
            m |= 1u << GEN_MERGE;  /* XMAD.MRG T, A, B.H1 reads B's low half */
        bool carry;
        if (in->op->form == MAXWELL_IMAD_HI_U32 || in->op->form == MAXWELL_IMAD_HI_S32)
            carry = middle_sum(a, b) >> 32;
        else
            carry = (uint64_t)(uint32_t)((uint64_t)a * b) + cw > 0xffffffffull;
        if (carry)
            m |= 1u << GEN_CARRY;
        break;
    }
    }
    return m;
}

bool maxwell_construct(const isa_instance *in, gen_class cls, gen_rng *r, uint32_t *w)
{
    const uint32_t *c = in->ctrl;
    for (unsigned i = 0; i < in->op->n_in; i++)
        w[i] = (uint32_t)gen_next(r);
    int form = in->op->form;
    if (form == MAXWELL_XMAD || form == MAXWELL_IADD3)
        w[3] &= 0xf;
    if (cls == GEN_RANDOM)
        return true;
    if (cls != GEN_CARRY && cls != GEN_SIGN && cls != GEN_MERGE && cls != GEN_ZERO_HALF)
        return false;  /* a floating-point class: nothing to aim at */
    switch ((maxwell_form)form) {
    case MAXWELL_XMAD: {
        bool imm = c[CTRL_SB_KIND] == SB_IMM;
        switch (cls) {
        case GEN_SIGN:
            w[0] = set_half(w[0], c[CTRL_A_H1], sign_half(r));
            if (!imm)
                w[1] = set_half(w[1], c[CTRL_B_H1], sign_half(r));
            return true;
        case GEN_ZERO_HALF:
            w[0] = zero_one_half(r);
            if (!imm && gen_coin(r))
                w[1] = zero_one_half(r);
            return true;
        case GEN_MERGE:
            if (!((c[CTRL_MRG] || c[CTRL_COP] == COP_CBCC) && c[CTRL_B_H1] && !imm))
                return false;
            if ((w[1] & 0xffff) == (w[1] >> 16))
                w[1] ^= 1;
            return true;
        default: {
            /* Solve Sc so that the sum carries by 0..2 past 2^32 (C32 and
             * CBCC read Sc whole); other forms: a few draws. */
            maxwell_xmad_ctl x = maxwell_xmad_controls(in);
            x.mrg = false;
            x.cc = false;
            uint32_t s0 = maxwell_xmad(&x, in->param[PARAM_CSFU], w[0], w[1], 0, w[3], NULL);
            if (x.cop == COP_C32 || x.cop == COP_CBCC || x.cop == COP_CSFU)
                w[2] = 0u - s0 + (uint32_t)gen_below(r, 3);
            return true;
        }
        }
    }
    case MAXWELL_IADD3: {
        switch (cls) {
        case GEN_SIGN:
            for (int i = 0; i < 3; i++) {
                int p = (int)c[CTRL_A_PART + i];
                w[i] = set_half(w[i], p != 1, sign_half(r));
            }
            return true;
        case GEN_ZERO_HALF:
            w[gen_below(r, 3)] = zero_one_half(r);
            return true;
        case GEN_MERGE:
            return false;
        default: {
            maxwell_iadd3_ctl x = maxwell_iadd3_controls(in);
            if (x.shift && gen_coin(r)) {  /* carry out of bit 15 before the shift */
                uint32_t a = x.nega ? ~w[0] : w[0];
                uint32_t need = 0x10000 - (a & 0xffff) + (uint32_t)gen_below(r, 4);
                uint32_t b = (w[1] & 0xffff0000u) | (need & 0xffff);
                w[1] = x.negb ? ~b : b;
                return true;
            }
            /* Otherwise make the second sum carry: Rc = -(first stage) + k. */
            maxwell_iadd3_ctl y = x;
            y.negc = false;
            y.cpart = 0;
            y.cc = false;
            uint32_t t0 = maxwell_iadd3(&y, w[0], w[1], 0, w[3], NULL);
            uint32_t cin2 = x.x ? (w[3] >> 2) & 1 : x.negc;
            uint32_t want = 0u - t0 - cin2 + (uint32_t)gen_below(r, 3);
            if (x.cpart == 0)
                w[2] = x.negc ? ~want : want;
            return true;
        }
        }
    }
    default: {
        int b_index = form == MAXWELL_IMUL_IMM16 ? -1 : 1;
        int c_index = form == MAXWELL_IMUL_IMM16 ? 1 : 2;
        switch (cls) {
        case GEN_SIGN:
            w[0] = set_half(w[0], gen_coin(r), sign_half(r));
            if (b_index > 0)
                w[1] = set_half(w[1], gen_coin(r), sign_half(r));
            return true;
        case GEN_ZERO_HALF:
            w[0] = zero_one_half(r);
            return true;
        case GEN_MERGE:
            if (form != MAXWELL_IMAD_LO)
                return false;
            if ((w[1] & 0xffff) == (w[1] >> 16))
                w[1] ^= 1;
            return true;
        default:
            if (form == MAXWELL_IMAD_HI_U32 || form == MAXWELL_IMAD_HI_S32) {
                /* Big halves make the middle sum need its 33rd bit. */
                w[0] |= 0xc000c000u;
                w[1] |= 0xc000c000u;
                return true;
            }
            {
                uint32_t b = b_index > 0 ? w[1] : c[CTRL_IMM];
                w[c_index] = 0u - (uint32_t)((uint64_t)w[0] * b) + (uint32_t)gen_below(r, 3);
            }
            return true;
        }
    }
    }
    return true;
}
