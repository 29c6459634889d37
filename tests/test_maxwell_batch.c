/* The Maxwell batch paths (maxwell_batch.c: controls as masks, sequences in
 * closed form) against the step-by-step model, under every combination of
 * XMAD's and IADD3's controls and every CSFU reading: 61 tuples each, words
 * with halves at 0, 1, 0x7fff, 0x8000 and 0xffff half the time (the carries,
 * zeros and signs), CC words with every flag pattern and noise above it; and
 * the verdicts campaigns make many at a time (maxwell_fast_verdicts: the
 * batch's outputs, maxwell_classify_many's classes) against
 * maxwell_classify.  selftest samples the controls; this covers them all. */
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "gen/gen.h"
#include "isa/classify.h"
#include "isa/maxwell.h"

enum { TUPLES = 61 };  /* not a multiple of any vector width: the loops' scalar tails run too */

static uint32_t edge_word(gen_rng *r)
{
    static const uint16_t h[] = {0, 1, 0x7fff, 0x8000, 0xffff};
    uint32_t lo = gen_coin(r) ? h[gen_below(r, 5)] : (uint32_t)gen_next(r) & 0xffff;
    uint32_t hi = gen_coin(r) ? h[gen_below(r, 5)] : (uint32_t)gen_next(r) & 0xffff;
    return hi << 16 | lo;
}

static uint32_t word(gen_rng *r) { return gen_coin(r) ? edge_word(r) : (uint32_t)gen_next(r); }

/* IADD3's carry class as its definition reads, written out apart from the
 * model's classifier: either add carries out of bit 31 (CF, OF), or before a
 * shift the first add carries out of bit 15, of its operands as read (the
 * parts, negated where asked) and its carry-in.  Legal encodings only. */
static bool iadd3_carry_reference(const isa_instance *in, const uint32_t *w)
{
    const uint32_t *c = in->ctrl;
    uint32_t parts[2] = {c[CTRL_A_PART], c[CTRL_B_PART]}, ops[2];
    for (int i = 0; i < 2; i++) {
        uint32_t v = parts[i] == 1 ? w[i] & 0xffff : parts[i] == 2 ? w[i] >> 16 : w[i];
        ops[i] = c[i ? CTRL_NEGB : CTRL_NEGA] ? ~v : v;
    }
    uint32_t cin1 = c[CTRL_X] ? (w[3] >> 3) & 1 : (c[CTRL_NEGA] || c[CTRL_NEGB]);
    bool low = c[CTRL_SHIFT] && (ops[0] & 0xffff) + (ops[1] & 0xffff) + cin1 > 0xffff;
    maxwell_iadd3_ctl x = maxwell_iadd3_controls(in);
    x.cc = true;
    uint32_t cc;
    maxwell_iadd3(&x, w[0], w[1], w[2], w[3], &cc);
    return low || (cc & (CC_CF | CC_OF));
}

/* The batch path against maxwell_eval on fresh tuples; a difference is
 * printed once per instance (with its controls' index). */
static void compare(const isa_instance *in, gen_rng *r, unsigned index)
{
    const isa_op *op = in->op;
    uint32_t w[TUPLES * 4], batch[TUPLES * 2], one[2];
    for (unsigned i = 0; i < TUPLES * op->n_in; i++)
        w[i] = word(r);
    if (op->n_in == 4)
        for (unsigned t = 0; t < TUPLES; t++)
            w[4 * t + 3] = ((uint32_t)gen_next(r) & ~0xfu) | (t & 0xf);  /* every flag pattern, other bits set */
    maxwell_fast_batch(in, w, TUPLES, batch);
    for (unsigned t = 0; t < TUPLES; t++) {
        const uint32_t *tw = w + t * op->n_in;
        maxwell_eval(in, tw, one, NULL);
        bool same = true;
        for (unsigned k = 0; k < op->n_out; k++)
            same = same && batch[t * op->n_out + k] == one[k];
        uint32_t cc_b = op->n_out > 1 ? batch[t * op->n_out + 1] : 0, cc_m = op->n_out > 1 ? one[1] : 0;
        CHECK(same, "%s controls #%u imm %x csfu %d: tuple %08x %08x %08x %08x: batch %08x %x, model %08x %x", op->name,
              index, in->ctrl[CTRL_IMM], in->param[PARAM_CSFU], tw[0], tw[1], op->n_in > 2 ? tw[2] : 0,
              op->n_in > 3 ? tw[3] : 0, batch[t * op->n_out], cc_b, one[0], cc_m);
        if (!same)
            return;
    }
    /* The verdicts campaigns make many at a time: the classes as
     * maxwell_classify gives them a tuple at a time, the outputs the batch's. */
    isa_verdict v[TUPLES];
    uint32_t want[TUPLES] = {0}, outs[TUPLES * 2];
    maxwell_fast_verdicts(in, w, TUPLES, outs, v, want);
    for (unsigned t = 0; t < TUPLES; t++) {
        const uint32_t *tw = w + t * op->n_in;
        uint32_t classes = maxwell_classify(in, tw, NULL, 0);
        bool same = v[t].classes == classes && v[t].tie_exp == ISA_NO_EXPONENT &&
                    !memcmp(outs + t * op->n_out, batch + t * op->n_out, op->n_out * sizeof *outs);
        CHECK(same, "%s controls #%u imm %x: tuple %08x %08x %08x %08x: classes %x, maxwell_classify %x", op->name,
              index, in->ctrl[CTRL_IMM], tw[0], tw[1], op->n_in > 2 ? tw[2] : 0, op->n_in > 3 ? tw[3] : 0,
              v[t].classes, classes);
        if (!same)
            return;
        isa_instance legal = *in;  /* the immediate exists only in the immediate form */
        if (legal.ctrl[CTRL_SB_KIND] != SB_IMM)
            legal.ctrl[CTRL_IMM] = 0;
        if (op == isa_op_find("maxwell.iadd3") && !isa_instance_check(&legal)) {
            bool carry = maxwell_classify(&legal, tw, NULL, 0) >> GEN_CARRY & 1;
            bool want_carry = iadd3_carry_reference(&legal, tw);
            CHECK(carry == want_carry, "iadd3 controls #%u: tuple %08x %08x %08x %x: carry class %d, by its definition %d",
                  index, tw[0], tw[1], tw[2], tw[3], carry, want_carry);
            if (carry != want_carry)
                return;
        }
    }
}

static void xmad_all(gen_rng *r)
{
    isa_instance in;
    isa_instance_default(&in, isa_op_find("maxwell.xmad"));
    static const unsigned flags[] = {CTRL_SASIGN, CTRL_SBSIGN, CTRL_PSL, CTRL_MRG, CTRL_X, CTRL_CC, CTRL_A_H1, CTRL_B_H1};
    for (unsigned i = 0; i < 256 * 8 * 4 * 3; i++) {
        unsigned bits = i % 256, cop = i / 256 % 8, sb_kind = i / 2048 % 4;
        for (unsigned f = 0; f < 8; f++)
            in.ctrl[flags[f]] = bits >> f & 1;
        in.ctrl[CTRL_COP] = cop;
        in.ctrl[CTRL_SB_KIND] = sb_kind;
        in.ctrl[CTRL_IMM] = edge_word(r) & 0xffff;
        in.param[PARAM_CSFU] = (int32_t)(i / 8192);
        compare(&in, r, i);
    }
}

static void iadd3_all(gen_rng *r)
{
    isa_instance in;
    isa_instance_default(&in, isa_op_find("maxwell.iadd3"));
    for (unsigned i = 0; i < 4 * 8 * 4 * 64 * 4; i++) {
        unsigned v = i;
        in.ctrl[CTRL_SHIFT] = v % 4, v /= 4;
        in.ctrl[CTRL_NEGA] = v & 1, in.ctrl[CTRL_NEGB] = v >> 1 & 1, in.ctrl[CTRL_NEGC] = v >> 2 & 1, v /= 8;
        in.ctrl[CTRL_X] = v & 1, in.ctrl[CTRL_CC] = v >> 1 & 1, v /= 4;
        in.ctrl[CTRL_A_PART] = v % 4, in.ctrl[CTRL_B_PART] = v / 4 % 4, in.ctrl[CTRL_C_PART] = v / 16 % 4, v /= 64;
        in.ctrl[CTRL_SB_KIND] = v;
        /* The 20-bit immediate's sign bit either way, drawn apart from the controls. */
        in.ctrl[CTRL_IMM] = ((uint32_t)gen_next(r) & 0x7ffff) | (uint32_t)gen_coin(r) << 19;
        compare(&in, r, i);
    }
}

static void sequences(gen_rng *r)
{
    static const char *names[] = {"maxwell.imad_lo", "maxwell.imad_hi_u32", "maxwell.imul_imm16", "maxwell.imad_hi_s32"};
    for (unsigned n = 0; n < 4; n++) {
        isa_instance in;
        isa_instance_default(&in, isa_op_find(names[n]));
        for (unsigned i = 0; i < 3 * 2000; i++) {
            in.param[PARAM_CSFU] = (int32_t)(i % 3);
            in.ctrl[CTRL_IMM] = edge_word(r) & 0xffff;
            compare(&in, r, i);
        }
    }
}

int main(void)
{
    gen_rng r = {20261202};
    xmad_all(&r);
    iadd3_all(&r);
    sequences(&r);
    return check_report("maxwell-batch");
}
