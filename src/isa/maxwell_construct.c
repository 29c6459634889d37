/* The carry designs of XMAD and IADD3, and class verification for the
 * Maxwell integer ops (the other classes' designs, and the words every
 * case draws first: maxwell_designs.c).  Classes: carry (sums that carry
 * out of bit 31, or out of bit 15 where a shift follows: IADD3's first
 * add, of the halves it selects and its carry-in; where an add has a
 * carry-in, half the cases make it carry only because of it: the sum
 * before the carry-in all ones), sign (selected halves at 0x7fff, 0x8000,
 * 0xffff, 0, 1), merge (an Sb whose low half differs from the selected
 * half, where MRG or CBCC read the full Sb), zero-half (one half zero, the
 * other not), random. */
#include <stddef.h>
#include "maxwell.h"

#define BIT(v, i) (((v) >> (i)) & 1u)

const uint16_t maxwell_sign_values[MAXWELL_SIGN_VALUES] = {0x7fff, 0x8000, 0xffff, 0x0000, 0x0001};

static bool is_sign_value(uint32_t h)
{
    for (unsigned i = 0; i < MAXWELL_SIGN_VALUES; i++)
        if ((h & 0xffff) == maxwell_sign_values[i])
            return true;
    return false;
}

static bool one_zero_half(uint32_t x) { return ((x & 0xffff) == 0) != ((x >> 16) == 0); }

/* ---- carry-in-only carries (issue 12): an add whose sum before its
 * carry-in is all ones (0xfffffffe with XMAD's carry-in of 2), so that only
 * the carry-in carries it out of bit 31 and leaves a zero result ---- */

static uint32_t inv16(uint32_t a)  /* a odd: a * inv16(a) = 1 mod 2^16 */
{
    uint32_t v = a;
    for (int i = 0; i < 4; i++)
        v *= 2 - a * v;
    return v & 0xffff;
}

static uint32_t between(gen_rng *r, uint32_t lo, uint32_t hi) { return lo + (uint32_t)gen_below(r, hi - lo + 1); }

/* A product pa * pb in [-(0xffff + cin), -max(cin, 1)] from 16-bit halves (signed
 * where sa, sb say), so that a 16-bit addend (CLO, CHI) can take it to all
 * ones; fixed_b: pb is the immediate's.  False where the signs forbid it. */
static bool small_negative_product(bool sa, bool sb, bool fixed_b, int32_t *pa, int32_t *pb, uint32_t cin, gen_rng *r)
{
    bool a_neg;
    if (fixed_b) {
        if (*pb == 0 || (*pb > 0 && !sa))
            return false;
        a_neg = *pb > 0;
    } else {
        if (!sa && !sb)
            return false;
        a_neg = sa && (!sb || gen_coin(r));
    }
    bool m_signed = a_neg ? sb : sa;  /* the positive factor */
    uint32_t m;
    if (fixed_b && a_neg) {
        m = (uint32_t)*pb;
    } else if (fixed_b) {
        m = (uint32_t)-*pb;
    } else {
        unsigned k = (unsigned)gen_below(r, m_signed ? 15 : 16);
        m = (1u << k) | ((uint32_t)gen_next(r) & ((1u << k) - 1));
    }
    uint32_t lo = cin ? (cin + m - 1) / m : 1, hi = (0xffff + cin) / m;  /* no zero product: with no carry-in it never carries */
    uint32_t other_max = fixed_b && !a_neg ? (sa ? 0x7fff : 0xffff) : 0x8000;  /* the other factor's magnitude */
    if (hi > other_max)
        hi = other_max;
    if (lo > hi)
        return false;
    int32_t n = (int32_t)between(r, lo, hi);
    if (fixed_b)
        *pa = a_neg ? -n : n;
    else if (a_neg)
        *pa = -n, *pb = (int32_t)m;
    else
        *pa = (int32_t)m, *pb = -n;
    return true;
}

/* XMAD.X: p + cv = 2^32 - cin with cin (CF + OF) 1 or 2, under every control
 * shape that allows it: C32, CBCC, CSFU solve Sc; CLO and CHI add 16 bits, so
 * the product must end within 0xffff of 2^32 (with .PSL its low half 0xffff,
 * else a small negative signed product); under .MRG half the cases clear
 * Sb[15:0], which becomes the result's high half, so the result is zero. */
/* An IMM16 Sb's factor (as the product reads it), or 0 where Sb is a register's half. */
static int32_t imm_factor(const maxwell_xmad_ctl *x)
{
    return x->sb_imm ? (x->sb ? (int16_t)(x->imm & 0xffff) : (int32_t)(x->imm & 0xffff)) : 0;
}

/* The product's factors into A's half and (a register's) Sb's half. */
static void put_factors(const maxwell_xmad_ctl *x, int32_t pa, int32_t pb, uint32_t *w)
{
    w[0] = maxwell_set_half(w[0], x->a_h1, (uint32_t)pa);
    if (!x->sb_imm)
        w[1] = maxwell_set_half(w[1], x->b_h1, (uint32_t)pb);
}

static bool xmad_carry_in(const maxwell_xmad_ctl *xp, int csfu, gen_rng *r, uint32_t *w)
{
    if (!xp->x)
        return false;
    uint32_t cin = gen_below(r, 4) ? 1 : 2;
    bool b_hi = xp->b_h1 && !xp->sb_imm, half_c = xp->cop == COP_CLO || xp->cop == COP_CHI;
    if (xp->mrg && !xp->sb_imm && (b_hi || !half_c) && gen_coin(r))
        w[1] &= 0xffff0000u;  /* the merged high half zero (with B.H0 the product too) */
    if (half_c) {
        int32_t pa, pb = imm_factor(xp);
        if (xp->psl) {
            /* p = lo16(pa * pb) << 16 must be 0xffff0000: both odd, pa = -1/pb mod 2^16. */
            uint32_t hb = xp->sb_imm ? xp->imm & 0xffff : ((uint32_t)gen_next(r) & 0xffff) | 1;
            if (!(hb & 1))
                return false;
            pa = (int32_t)((0u - inv16(hb)) & 0xffff);
            pb = (int32_t)hb;
        } else if (!small_negative_product(xp->sa, xp->sb, xp->sb_imm, &pa, &pb, cin, r)) {
            return false;
        }
        put_factors(xp, pa, pb, w);
    }
    maxwell_xmad_ctl y = *xp;
    y.x = y.cc = y.mrg = false;
    y.cop = COP_C32;
    uint32_t p = maxwell_xmad(&y, csfu, w[0], w[1], 0, 0, NULL);
    uint32_t want = 0u - cin, cv = p <= want ? want - p : 0;
    if (half_c) {
        w[2] = maxwell_set_half(w[2], xp->cop == COP_CHI, cv);
    } else {
        /* cv = Sc + k, k independent of Sc: the sum with Sc = 0 is p + k. */
        y.cop = xp->cop;
        w[2] = cv + p - maxwell_xmad(&y, csfu, w[0], w[1], 0, 0, NULL);
    }
    w[3] = (w[3] & (CC_ZF | CC_SF)) | (cin == 2 ? CC_CF | CC_OF : gen_coin(r) ? CC_CF : CC_OF);
    return true;
}

/* XMAD .CLO/.CHI carrying out of bit 31 with no carry-in: a 16-bit addend
 * reaches 2^32 only from a product within 0xffff of it, a small negative
 * signed one (.PSL's product, its low half shifted up, is at most
 * 0xffff0000, which no such addend carries); the addend's half is the rest,
 * or 1 or 2 past it.  False where the signs or .PSL leave none: there the
 * other forms' few draws made misses to build four times over (0 of 1,024
 * carry cases under unsigned .CHI, at 4.5 times the time a case). */
static bool xmad_half_c_carry(const maxwell_xmad_ctl *x, gen_rng *r, uint32_t *w)
{
    if (x->psl)
        return false;
    int32_t pa, pb = imm_factor(x);
    if (!small_negative_product(x->sa, x->sb, x->sb_imm, &pa, &pb, 0, r))
        return false;
    put_factors(x, pa, pb, w);
    uint32_t rest = (uint32_t)(-((int64_t)pa * pb)) + (uint32_t)gen_below(r, 3);  /* 2^32 - p is 1 to 0xffff */
    w[2] = maxwell_set_half(w[2], x->cop == COP_CHI, rest > 0xffff ? 0xffff : rest);
    return true;
}

static uint32_t operand(uint32_t word, int part, bool neg)
{
    uint32_t v = part == 1 ? word & 0xffff : part == 2 ? word >> 16 : word;
    return neg ? ~v : v;
}

/* An IADD3 operand slot: the values it can take, [lo, lo + len), and how to write one. */
typedef struct {
    uint32_t *word;
    int part;
    bool neg, fixed;  /* fixed: the immediate */
    uint32_t value;
} slot;

/* Which part of its word IADD3's operand i is (a constant-bank Sb is whole), and whether it is negated. */
static int iadd3_part(const maxwell_iadd3_ctl *x, int i, bool *neg)
{
    *neg = i == 0 ? x->nega : i == 1 ? x->negb : x->negc;
    return i == 0 ? x->apart : i == 1 ? (x->form == SB_CBUF ? 0 : x->bpart) : x->cpart;
}

/* Operand i of an IADD3 as its adds read it: the part, or the immediate,
 * negated where asked. */
static uint32_t iadd3_operand(const maxwell_iadd3_ctl *x, const uint32_t *w, int i)
{
    if (i == 1 && x->form == SB_IMM) {
        uint32_t b = (x->imm & 0x80000) ? (x->imm | 0xfff00000u) : (x->imm & 0xfffff);
        return x->negb ? ~b : b;
    }
    bool neg;
    int part = iadd3_part(x, i, &neg);
    return operand(w[i], part, neg);
}

static slot slot_of(const maxwell_iadd3_ctl *x, uint32_t *w, int i)
{
    bool neg;
    int part = iadd3_part(x, i, &neg);
    bool fixed = i == 1 && x->form == SB_IMM;
    return (slot){fixed ? NULL : &w[i], fixed ? 0 : part, neg, fixed, iadd3_operand(x, w, i)};
}

/* The first add's carry-in: CC's OF under .X, else 1 where A or B is negated. */
static uint32_t iadd3_cin1(const maxwell_iadd3_ctl *x, const uint32_t *w)
{
    return x->x ? (w[3] >> 3) & 1 : (x->nega || x->negb);
}

/* Write v into the slot, if it can hold it. */
static bool slot_put(slot *s, uint32_t v)
{
    if (s->fixed)
        return v == s->value;
    uint32_t raw = s->neg ? ~v : v;
    if (s->part == 0)
        *s->word = raw;
    else if (raw > 0xffff)
        return false;
    else
        *s->word = maxwell_set_half(*s->word, s->part == 2, raw);
    s->value = v;
    return true;
}

/* A value v the slot can hold with (v + off) mod 2^32 in [wlo, wlo + wlen),
 * uniformly among them; false where there is none. */
static bool slot_aim(slot *s, uint32_t off, uint32_t wlo, uint64_t wlen, gen_rng *r)
{
    uint32_t lo = s->fixed ? s->value : s->part == 0 ? 0 : s->neg ? 0xffff0000u : 0;
    uint64_t len = s->fixed ? 1 : s->part == 0 ? 1ull << 32 : 0x10000;
    /* v = lo + u, u in [0, len) and in [st, st + wlen) mod 2^32 */
    uint64_t st = (uint32_t)(wlo - off - lo), end = st + wlen;
    uint64_t len1 = st < len ? (end < len ? end : len) - st : 0;
    uint64_t len2 = end > (1ull << 32) ? (end - (1ull << 32) < len ? end - (1ull << 32) : len) : 0;
    if (len1 + len2 == 0)
        return false;
    uint64_t u = gen_next(r) % (len1 + len2);
    return slot_put(s, lo + (uint32_t)(u < len1 ? st + u : u - len1));
}

/* IADD3's first add: A + B + cin1 (mod 2^32) in [wlo, wlo + wlen), solving
 * B or A (no_wrap: below 2^32 as well, as a later .RS needs). */
static bool aim_first(const maxwell_iadd3_ctl *x, uint32_t *w, uint32_t wlo, uint64_t wlen, bool no_wrap, uint32_t cin1,
                      gen_rng *r)
{
    int first = gen_coin(r);
    for (int k = 0; k < 2; k++) {
        slot fixed = slot_of(x, w, (k ^ first) ? 0 : 1), solved = slot_of(x, w, (k ^ first) ? 1 : 0);
        uint64_t off = (uint64_t)fixed.value + cin1;
        if (no_wrap) {  /* the sum stays below 2^32: (v + off) mod 2^32 in [off, 2^32) */
            if (off >> 32)
                continue;
            wlo = (uint32_t)off;
            wlen = (1ull << 32) - off;
        }
        if (slot_aim(&solved, (uint32_t)off, wlo, wlen, r))
            return true;
    }
    return false;
}

static uint32_t first_stage(const maxwell_iadd3_ctl *x, uint32_t *w, uint32_t cin1)
{
    uint64_t s1 = (uint64_t)slot_of(x, w, 0).value + slot_of(x, w, 1).value + cin1;
    return x->shift == SHIFT_RS ? (uint32_t)(s1 >> 16) : x->shift == SHIFT_LS ? (uint32_t)(s1 << 16) : (uint32_t)s1;
}

/* IADD3: either add, or both, with its sum before the carry-in all ones and
 * a carry-in of 1 (.X: OF into the first, CF into the second; without .X a
 * negation's +1).  The second: C = ~t, or where C is a half, the first add
 * aimed so that t (after the shift) lets the half reach it: below 2^16 for
 * -C, at least 0xffff0000 for +C. */
static bool iadd3_carry_in(const maxwell_iadd3_ctl *xp, gen_rng *r, uint32_t *w)
{
    if (!maxwell_iadd3_has_carry_in(xp))
        return false;
    bool can1 = xp->x || xp->nega || xp->negb, can2 = xp->x || xp->negc;
    unsigned aim = can1 && can2 ? 1 + (unsigned)gen_below(r, 3) : can1 ? 1 : 2;  /* bit 0: first add, 1: second */
    if (xp->x) {
        /* Draws as statements (the order of operands is the compiler's; this is GCC's). */
        uint32_t of = aim & 1 || gen_coin(r) ? CC_OF : 0;
        uint32_t cf = aim & 2 || gen_coin(r) ? CC_CF : 0;
        w[3] = (w[3] & ~(uint32_t)(CC_CF | CC_OF)) | of | cf;
    }
    uint32_t cin1 = xp->x ? (w[3] >> 3) & 1 : (xp->nega || xp->negb);
    if ((aim & 1) && !aim_first(xp, w, 0xffffffffu, 1, false, 0, r))
        aim &= ~1u;
    slot c = slot_of(xp, w, 2);
    if ((aim & 2) && !slot_put(&c, ~first_stage(xp, w, cin1))) {
        aim &= ~2u;
        bool aimed;
        if ((aim & 1) && gen_coin(r))
            aimed = false;  /* the two cannot meet here: keep the first half the time */
        else if (xp->shift == SHIFT_LS) {
            /* t = s1 << 16: the sum's low half 0 (-C) or 0xffff (+C); B's low half is free. */
            slot b = slot_of(xp, w, 1);
            uint32_t low = (xp->negc ? 0 : 0xffff) - slot_of(xp, w, 0).value - cin1;
            aimed = slot_put(&b, (b.value & 0xffff0000u) | (low & 0xffff));
        } else if (xp->shift == SHIFT_RS)
            aimed = xp->negc && aim_first(xp, w, 0, 0, true, cin1, r);  /* t = s1 >> 16 below 2^16 */
        else
            aimed = aim_first(xp, w, xp->negc ? 0 : 0xffff0000u, 0x10000, false, cin1, r);
        if (aimed && slot_put(&c, ~first_stage(xp, w, cin1)))
            aim = 2;
    }
    return aim != 0;
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
        if (maxwell_xmad_reads_sb_whole(c) && (sbv & 0xffff) != (sbv >> 16))
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
        /* Before a shift, a carry out of the first add's bit 15 (of its
         * operands as read: the parts, or the immediate, and the carry-in). */
        uint32_t a = iadd3_operand(&x, w, 0), b = iadd3_operand(&x, w, 1);
        bool low_carry = x.shift && (a & 0xffff) + (b & 0xffff) + iadd3_cin1(&x, w) > 0xffff;
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
        if (maxwell_seq_reads_b_low(in->op->form) && (b & 0xffff) != (b >> 16))
            m |= 1u << GEN_MERGE;  /* XMAD.MRG T, A, B.H1 reads B's low half */
        bool carry;
        if (maxwell_seq_high_word(in->op->form))
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

/* XMAD's carry class on words already drawn (maxwell_designs.c draws them
 * and designs the other classes), under controls xp and CSFU's reading
 * csfu: on heads (the design's first draw, which the caller took), where
 * .X gives a carry-in, one that alone carries; else a sum aimed past 2^32.
 * The controls come parsed once for a chunk of cases and are read through
 * xp; a copy is made only where a design changes a field.  Parsed for each
 * case, a struct of bytes copied whole just after its fields were stored,
 * the loads waited on the stores (IADD3's carry class 16.9 to 13.2 ns a
 * case when the parsing moved out). */
bool maxwell_xmad_carry(const maxwell_xmad_ctl *xp, int csfu, bool heads, gen_rng *r, uint32_t *w)
{
    if (heads && xmad_carry_in(xp, csfu, r, w))
        return true;
    if (xp->cop == COP_CLO || xp->cop == COP_CHI)  /* else only .X's carry-in carries */
        return xmad_half_c_carry(xp, r, w) || (xp->x && xmad_carry_in(xp, csfu, r, w));
    /* Solve Sc so that the sum carries by 0..2 past 2^32 (C32 and
     * CBCC read Sc whole; CSFU's fix-up is Sc's too). */
    maxwell_xmad_ctl y = *xp;
    y.mrg = false;
    y.cc = false;
    uint32_t s0 = maxwell_xmad(&y, csfu, w[0], w[1], 0, w[3], NULL);
    w[2] = 0u - s0 + (uint32_t)gen_below(r, 3);
    return true;
}

/* IADD3's carry class on words already drawn: on heads (as XMAD's), where
 * a carry-in or negation allows, a carry-in that alone carries; else a
 * carry out of the first add's bit 15 before a shift, or out of the second
 * add. */
bool maxwell_iadd3_carry(const maxwell_iadd3_ctl *xp, bool heads, gen_rng *r, uint32_t *w)
{
    if (heads && iadd3_carry_in(xp, r, w))
        return true;
    if (xp->shift && gen_coin(r)) {
        /* The first add carries out of bit 15 before the shift: the
         * low halves of its operands (the parts, or the immediate)
         * and its carry-in sum to 2^16 + k.  B's low half is solved,
         * or A's where B is the immediate. */
        slot a = slot_of(xp, w, 0), b = slot_of(xp, w, 1);
        slot *solved = b.fixed ? &a : &b;
        uint32_t other = (b.fixed ? b.value : a.value) & 0xffff;
        uint32_t low = 0x10000 - other - iadd3_cin1(xp, w) + (uint32_t)gen_below(r, 4);
        slot_put(solved, (solved->value & 0xffff0000u) | (low & 0xffff));
        return true;
    }
    /* Otherwise make the second sum carry: Rc = -(first stage) + k. */
    maxwell_iadd3_ctl y = *xp;
    y.negc = false;
    y.cpart = 0;
    y.cc = false;
    uint32_t t0 = maxwell_iadd3(&y, w[0], w[1], 0, w[3], NULL);
    uint32_t cin2 = xp->x ? (w[3] >> 2) & 1 : xp->negc;
    uint32_t want = 0u - t0 - cin2 + (uint32_t)gen_below(r, 3);
    if (xp->cpart == 0)
        w[2] = xp->negc ? ~want : want;
    return true;
}
