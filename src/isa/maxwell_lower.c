/* Translations of XMAD, IADD3 and the sequences to SPIR-V: 32-bit integer
 * code only (no Int64 needed); controls are compile-time constants, as a
 * translator emits them.  The direct and exact lowerings are the same
 * integer translation.  The carries travel as words of the tuple.
 *
 * A test build plants known translation mistakes (tests/meson.build,
 * tests/planted.sh): TIEFUZZ_PLANT_CBCC_HALF reads the selected half of Sb
 * for CBCC, TIEFUZZ_PLANT_RS_32 drops bit 32 of the .RS sum,
 * TIEFUZZ_PLANT_SEXT_8000 sign-extends 0x8000 as if it were positive, and
 * TIEFUZZ_PLANT_X_CARRY_IN takes an .X add's carry out from the sum before
 * the carry-in (lost when that sum is all ones and the carry-in carries it). */
#include <stddef.h>
#include "maxwell.h"
#include "../spirv/builder.h"

static unsigned u(spv_builder *b, uint32_t v) { return sb_u32(b, v); }
static unsigned add(spv_builder *b, unsigned x, unsigned y) { return sb_op(b, T_U32, "OpIAdd $ $", x, y); }
static unsigned sub(spv_builder *b, unsigned x, unsigned y) { return sb_op(b, T_U32, "OpISub $ $", x, y); }
static unsigned or_(spv_builder *b, unsigned x, unsigned y) { return sb_op(b, T_U32, "OpBitwiseOr $ $", x, y); }
static unsigned bit(spv_builder *b, unsigned cond) { return sb_select(b, T_U32, cond, u(b, 1), u(b, 0)); }
static unsigned half(spv_builder *b, unsigned x, bool hi) { return hi ? sb_shr(b, x, 16) : sb_and(b, x, 0xffff); }
static unsigned sext16(spv_builder *b, unsigned h)
{
#ifdef TIEFUZZ_PLANT_SEXT_8000
    return sb_select(b, T_U32, sb_ugt(b, h, 0x8000), sub(b, h, u(b, 0x10000)), h);  /* planted: off by one */
#else
    return sub(b, sb_op(b, T_U32, "OpBitwiseXor $ $", h, u(b, 0x8000)), u(b, 0x8000));
#endif
}
static unsigned ult(spv_builder *b, unsigned x, unsigned y) { return sb_op(b, T_BOOL, "OpULessThan $ $", x, y); }

/* Carries of x + y + z as a 0/1/2 count. */
static unsigned add3_carry(spv_builder *b, unsigned x, unsigned y, unsigned z, unsigned *sum)
{
    unsigned s1 = add(b, x, y);
    unsigned s2 = add(b, s1, z);
    *sum = s2;
    return add(b, bit(b, ult(b, s1, x)), bit(b, ult(b, s2, s1)));
}

/* The same for an add whose carry-in z comes from the CC word (.X). */
static unsigned add3_carry_x(spv_builder *b, unsigned x, unsigned y, unsigned z, unsigned *sum)
{
#ifdef TIEFUZZ_PLANT_X_CARRY_IN
    unsigned s1 = add(b, x, y);
    *sum = add(b, s1, z);
    return bit(b, ult(b, s1, x));  /* planted mistake: the carry-in's own carry dropped */
#else
    return add3_carry(b, x, y, z, sum);
#endif
}

static unsigned flags(spv_builder *b, bool x, unsigned d, unsigned cc_in, unsigned cf, unsigned of)
{
    unsigned zero = sb_ieq(b, d, 0);
    if (x)
        zero = sb_op(b, T_BOOL, "OpLogicalAnd $ $", zero, sb_ugt(b, sb_and(b, cc_in, 1), 0));
    unsigned f = or_(b, bit(b, zero), sb_shl(b, sb_shr(b, d, 31), 1));
    f = or_(b, f, sb_shl(b, cf, 2));
    return of ? or_(b, f, sb_shl(b, of, 3)) : f;
}

static unsigned lower_xmad(spv_builder *b, const maxwell_xmad_ctl *c, int csfu, unsigned ra, unsigned sb,
                           unsigned sc, unsigned cc_in, unsigned *cc_out)
{
    unsigned sbv = c->sb_imm ? u(b, c->imm & 0xffff) : sb;
    unsigned ha = half(b, ra, c->a_h1), hb = half(b, sbv, c->b_h1 && !c->sb_imm);
    unsigned pa = c->sa ? sext16(b, ha) : ha, pb = c->sb ? sext16(b, hb) : hb;
    unsigned p = sb_op(b, T_U32, "OpIMul $ $", pa, pb);  /* low 32 bits of the exact product */
    if (c->psl)
        p = sb_shl(b, p, 16);
    unsigned cv = sc;
    switch (c->cop) {
    case COP_CLO: cv = sb_and(b, sc, 0xffff); break;
    case COP_CHI: cv = sb_shr(b, sc, 16); break;
    case COP_CBCC:
#ifdef TIEFUZZ_PLANT_CBCC_HALF
        cv = add(b, sc, sb_shl(b, hb, 16));                 /* planted mistake: the selected half */
#else
        cv = add(b, sc, sb_shl(b, sb_and(b, sbv, 0xffff), 16));  /* the full Sb's low half */
#endif
        break;
    case COP_CSFU: {
        unsigned a_neg = c->sa ? sb_ugt(b, sb_and(b, ha, 0x8000), 0) : sb_bool(b, false);
        unsigned b_neg = c->sb ? sb_ugt(b, sb_and(b, hb, 0x8000), 0) : sb_bool(b, false);
        if (csfu == CSFU_CROSS) {
            a_neg = sb_op(b, T_BOOL, "OpLogicalAnd $ $", a_neg, sb_ugt(b, half(b, sbv, !(c->b_h1 && !c->sb_imm)), 0));
            b_neg = sb_op(b, T_BOOL, "OpLogicalAnd $ $", b_neg, sb_ugt(b, half(b, ra, !c->a_h1), 0));
        }
        unsigned fix = sb_shl(b, add(b, bit(b, a_neg), bit(b, b_neg)), 16);
        if (csfu == CSFU_ENVYTOOLS) {
            unsigned either_zero = sb_op(b, T_BOOL, "OpLogicalOr $ $", sb_ieq(b, ha, 0), sb_ieq(b, hb, 0));
            fix = sb_select(b, T_U32, either_zero, u(b, 0), fix);
        }
        cv = sub(b, sc, fix);
        break;
    }
    default: break;
    }
    unsigned cin = c->x ? add(b, sb_and(b, sb_shr(b, cc_in, 2), 1), sb_and(b, sb_shr(b, cc_in, 3), 1)) : u(b, 0);
    unsigned d;
    unsigned carries = (c->x ? add3_carry_x : add3_carry)(b, p, cv, cin, &d);
    if (c->mrg)
        d = or_(b, sb_and(b, d, 0xffff), sb_shl(b, sb_and(b, sbv, 0xffff), 16));
    if (cc_out)
        *cc_out = c->cc ? flags(b, c->x, d, cc_in, bit(b, sb_ugt(b, carries, 0)), 0) : sb_and(b, cc_in, 0xf);
    return d;
}

static unsigned part(spv_builder *b, unsigned x, int p) { return p == 1 ? sb_and(b, x, 0xffff) : p == 2 ? sb_shr(b, x, 16) : x; }
static unsigned not_(spv_builder *b, unsigned x) { return sb_op(b, T_U32, "OpNot $", x); }

static unsigned lower_iadd3(spv_builder *b, const maxwell_iadd3_ctl *c, unsigned ra, unsigned sb, unsigned rc,
                            unsigned cc_in, unsigned *cc_out)
{
    unsigned a = part(b, ra, c->apart), cc = part(b, rc, c->cpart), bv;
    if (c->form == SB_IMM)
        bv = u(b, (c->imm & 0x80000) ? (c->imm | 0xfff00000u) : (c->imm & 0xfffff));
    else
        bv = c->form == SB_CBUF ? sb : part(b, sb, c->bpart);
    unsigned A = c->nega ? not_(b, a) : a, B = c->negb ? not_(b, bv) : bv, C = c->negc ? not_(b, cc) : cc;
    unsigned cin1 = c->x ? sb_and(b, sb_shr(b, cc_in, 3), 1) : u(b, c->nega || c->negb);
    unsigned cin2 = c->x ? sb_and(b, sb_shr(b, cc_in, 2), 1) : u(b, c->negc);
    unsigned lo;
    unsigned bit32 = (c->x ? add3_carry_x : add3_carry)(b, A, B, cin1, &lo);  /* A + B + 1 < 2^33: one carry */
    unsigned t = lo;
    if (c->shift == SHIFT_RS) {
#ifdef TIEFUZZ_PLANT_RS_32
        t = sb_shr(b, lo, 16);                            /* planted mistake: a 32-bit sum shifted */
#else
        t = or_(b, sb_shr(b, lo, 16), sb_shl(b, bit32, 16));
#endif
    } else if (c->shift == SHIFT_LS) {
        t = sb_shl(b, lo, 16);
    }
    unsigned d;
    unsigned carry2 = (c->x ? add3_carry_x : add3_carry)(b, t, C, cin2, &d);
    if (cc_out)
        *cc_out = c->cc ? flags(b, c->x, d, cc_in, bit(b, sb_ugt(b, carry2, 0)), bit32) : sb_and(b, cc_in, 0xf);
    return d;
}

/* A sequence, step by step from its table: the same steps the model takes. */
static unsigned lower_seq(spv_builder *b, const isa_instance *in, const unsigned *w, unsigned zero)
{
    const maxwell_seq *seq = maxwell_seq_of(in->op->form);
    unsigned r[MAXWELL_SEQ_REGS] = {0};
    for (unsigned i = 0; i < in->op->n_in && i < MAXWELL_SEQ_RZ; i++)
        r[i] = w[i];
    r[MAXWELL_SEQ_RZ] = zero;
    const maxwell_seq_step *s = seq->step;
    for (unsigned i = 0; i < seq->n; i++) {
        s = &seq->step[i];
        unsigned x = r[s->src[0]], y = r[s->src[1]], z = r[s->src[2]];
        if (s->iadd3_rs) {
            maxwell_iadd3_ctl c = {.shift = SHIFT_RS};
            r[s->dst] = lower_iadd3(b, &c, x, y, z, u(b, 0), NULL);
        } else {
            maxwell_xmad_ctl c = maxwell_seq_xmad(s, in->ctrl[CTRL_IMM]);
            r[s->dst] = lower_xmad(b, &c, in->param[PARAM_CSFU], x, y, z, u(b, 0), NULL);
        }
    }
    return r[s->dst];
}

const char *maxwell_lower(const isa_instance *in, isa_lowering l, spv_builder *b, const unsigned *w, unsigned *out)
{
    (void)l;
    int csfu = in->param[PARAM_CSFU];
    unsigned zero = u(b, 0);
    switch ((maxwell_form)in->op->form) {
    case MAXWELL_XMAD: {
        maxwell_xmad_ctl c = maxwell_xmad_controls(in);
        out[0] = lower_xmad(b, &c, csfu, w[0], w[1], w[2], w[3], &out[1]);
        return NULL;
    }
    case MAXWELL_IADD3: {
        maxwell_iadd3_ctl c = maxwell_iadd3_controls(in);
        out[0] = lower_iadd3(b, &c, w[0], w[1], w[2], w[3], &out[1]);
        return NULL;
    }
    case MAXWELL_IMAD_LO:
    case MAXWELL_IMAD_HI_U32:
    case MAXWELL_IMAD_HI_S32:
    case MAXWELL_IMUL_IMM16:
        out[0] = lower_seq(b, in, w, zero);
        return NULL;
    }
    return "unknown form";
}
