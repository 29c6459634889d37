/* The hand-worked cases of doc/translation.md and the modifier rules, on the
 * host model. */
#include <string.h>
#include "check.h"
#include "isa/isa.h"
#include "isa/classify.h"

static uint32_t eval(const char *op, const char *ctrl, const char *param, uint32_t a, uint32_t b, uint32_t c,
                     uint32_t d)
{
    isa_instance in;
    const isa_op *o = isa_op_find(op);
    if (!o) {
        CHECK(0, "no op %s", op);
        return 0;
    }
    isa_instance_default(&in, o);
    const char *e;
    if (ctrl && (e = isa_parse_controls(&in, ctrl)))
        CHECK(0, "%s", e);
    if (param && (e = isa_parse_params(&in, param)))
        CHECK(0, "%s", e);
    uint32_t w[6] = {a, b, c, d}, out[2];
    o->impl->eval(&in, w, out, NULL);
    /* The batch path on the same tuple, repeated to fill its vector loops
     * and one tail lane (33 tuples): every case here guards it too. */
    enum { COPIES = 33 };
    uint32_t many[COPIES * 6], got[COPIES * 2];
    for (unsigned i = 0; i < COPIES; i++)
        memcpy(many + i * o->n_in, w, o->n_in * sizeof *w);
    if (o->impl->fast_batch) {
        o->impl->fast_batch(&in, many, COPIES, got);
        unsigned bad = 0;
        for (unsigned i = 0; i < COPIES * o->n_out && !bad; i++)
            if (got[i] != out[i % o->n_out]) {
                CHECK(0, "%s %s %s: batch path word %u %08x, exact model %08x (copy %u)", op, ctrl ? ctrl : "",
                      param ? param : "", i % o->n_out, got[i], out[i % o->n_out], i / o->n_out);
                bad = 1;
            }
    }
    return out[0];
}

/* The model without a trace (a campaign's re-check of each disagreement,
 * eval, repro, minimize, replay) against the same model with one
 * (explanations, the audit, selftest): eval_body is written once with the
 * trace's steps under tests of t, so a step that did more than trace would
 * set the two apart.  Every RDNA 2 op, every class's constructed cases and
 * random words, controls drawn half the time, each parameter value. */
static void untraced_matches_traced(void)
{
    static const char *params[] = {NULL, "omod=applied", "div_fmas_scale=guide32", "div_fmas_order=after-rounding",
                                   "div_fmas_order=after-rounding,div_fmas_scale=guide32"};
    static isa_trace trace;
    unsigned differ = 0, ops = 0;
    gen_class all[GEN_CLASS_COUNT];
    for (int c = 0; c < GEN_CLASS_COUNT; c++)
        all[c] = (gen_class)c;
    for (unsigned o = 0; o < isa_op_count(); o++) {
        const isa_op *op = isa_op_at(o);
        if (strncmp(op->name, "rdna2.", 6) != 0)
            continue;
        ops++;
        gen_class mine[GEN_CLASS_COUNT];
        unsigned n_mine = isa_op_classes(op, all, GEN_CLASS_COUNT, mine);
        for (unsigned t = 0; t < 40000; t++) {
            gen_rng r = gen_rng_for(7, o, t);
            isa_instance in;
            isa_instance_default(&in, op);
            const char *p = params[t % (sizeof params / sizeof params[0])];
            if (p && isa_parse_params(&in, p)) {  /* a parameter this op does not take: the defaults */
                p = NULL;
                isa_instance_default(&in, op);
            }
            if (gen_coin(&r)) {
                isa_instance drawn = in;
                isa_random_controls(&drawn, &r);
                if (!isa_instance_check(&drawn))
                    in = drawn;
            }
            gen_class c = mine[t % n_mine];
            if (op->literal)
                isa_literal_set(&in, isa_literal_draw(op, c, &r));
            uint32_t w[ISA_MAX_IN] = {0}, plain[ISA_MAX_OUT], traced[ISA_MAX_OUT];
            if (c == GEN_RANDOM || !op->impl->construct(&in, c, &r, w))
                for (unsigned i = 0; i < op->n_in; i++)
                    w[i] = (uint32_t)gen_next(&r);
            op->impl->eval(&in, w, plain, NULL);
            op->impl->eval(&in, w, traced, &trace);
            if (memcmp(plain, traced, op->n_out * sizeof plain[0]) && differ++ < 8)
                CHECK(0, "%s --param %s: %08x %08x %08x %08x %08x %08x: untraced %08x %08x, traced %08x %08x",
                      op->name, p ? p : "none", w[0], w[1], w[2], w[3], w[4], w[5], plain[0],
                      op->n_out > 1 ? plain[1] : 0, traced[0], op->n_out > 1 ? traced[1] : 0);
        }
    }
    CHECK(differ == 0, "untraced against traced: %u cases differ", differ);
    CHECK(ops >= 16, "only %u RDNA 2 ops", ops);
}

int main(void)
{
    untraced_matches_traced();
    /* f32: a = b = 1 + 2^-12, c = -(1 + 2^-11). Fused 2^-24, unfused +0. */
    CHECK_EQ_HEX(eval("v_fma_f32", 0, 0, 0x3f800800, 0x3f800800, 0xbf801000, 0), 0x33800000, "fma f32 record case");
    CHECK_EQ_HEX(eval("v_fmac_f32", 0, 0, 0x3f800800, 0x3f800800, 0xbf801000, 0), 0x33800000, "fmac");
    CHECK_EQ_HEX(eval("v_fmaak_f32", "k=0xbf801000", 0, 0x3f800800, 0x3f800800, 0, 0), 0x33800000, "fmaak");
    CHECK_EQ_HEX(eval("v_fmamk_f32", "k=0x3f800800", 0, 0x3f800800, 0xbf801000, 0, 0), 0x33800000, "fmamk");
    CHECK_EQ_HEX(eval("v_mad_f32", 0, 0, 0x3f800800, 0x3f800800, 0xbf801000, 0), 0, "mad record case");
    CHECK_EQ_HEX(eval("v_madak_f32", "k=0xbf801000", 0, 0x3f800800, 0x3f800800, 0, 0), 0, "madak");
    CHECK_EQ_HEX(eval("v_fma_mix_f32", "op_sel_hi=0", 0, 0x3f800800, 0x3f800800, 0xbf801000, 0), 0x33800000, "mix f32");
    /* f16: a = 2^-11 (1 + 2^-10), b = 1 - 2^-10, c = 1 + 2^-10: fused 0x3c01, via f32 0x3c02. */
    CHECK_EQ_HEX(eval("v_fma_f16", 0, 0, 0x1001, 0x3bfe, 0x3c01, 0), 0x3c01, "fma f16 record case");
    CHECK_EQ_HEX(eval("v_fma_f16", "op_sel=15", 0, 0x10010000, 0x3bfe0000, 0x3c010000, 0x1234), 0x3c011234,
                 "op_sel halves and destination half");
    CHECK_EQ_HEX(eval("v_fmac_f16", 0, 0, 0x1001, 0x3bfe, 0xabcd3c01, 0), 0xabcd3c01, "fmac f16 keeps D.hi");
    CHECK_EQ_HEX(eval("v_pk_fma_f16", 0, 0, 0x10011001, 0x3bfe3bfe, 0x3c013c01, 0), 0x3c013c01, "packed lanes");
    CHECK_EQ_HEX(eval("v_pk_fmac_f16", 0, 0, 0x10011001, 0x3bfe3bfe, 0x3c013c01, 0), 0x3c013c01, "pk_fmac");
    CHECK_EQ_HEX(eval("v_fma_mixlo_f16", 0, 0, 0x1001, 0x3bfe, 0x3c01, 0x55550000), 0x55553c01, "mixlo all halves: once");
    CHECK_EQ_HEX(eval("v_fma_mixhi_f16", 0, 0, 0x1001, 0x3bfe, 0x3c01, 0x5555), 0x3c015555, "mixhi");
    CHECK_EQ_HEX(eval("v_fma_mixlo_f16", 0, "mix_rounding=always-twice", 0x1001, 0x3bfe, 0x3c01, 0), 0x3c02,
                 "always-twice double-rounds");
    /* The same sum with c given as f32 (op_sel_hi bit 2 clear): the record rounds twice. */
    CHECK_EQ_HEX(eval("v_fma_mixlo_f16", "op_sel_hi=3", 0, 0x1001, 0x3bfe, 0x3f802000, 0), 0x3c02,
                 "an f32 source rounds twice");
    CHECK_EQ_HEX(eval("v_fma_mixlo_f16", "op_sel_hi=3", "mix_rounding=always-once", 0x1001, 0x3bfe, 0x3f802000, 0),
                 0x3c01, "always-once");
    /* Modifiers. */
    CHECK_EQ_HEX(eval("v_fma_f32", "neg=4", 0, 0x3f800000, 0x3f800000, 0x3f800000, 0), 0, "neg c: 1 - 1 = +0");
    CHECK_EQ_HEX(eval("v_fma_f32", "abs=1,neg=1", 0, 0x40000000, 0x3f800000, 0, 0), 0xc0000000, "abs then neg");
    CHECK_EQ_HEX(eval("v_fma_f32", "clamp=1", 0, 0x7fc00000, 0x3f800000, 0, 0), 0, "clamp NaN -> +0");
    CHECK_EQ_HEX(eval("v_fma_f32", "clamp=1", 0, 0x80000000, 0x3f800000, 0x80000000, 0), 0, "clamp -0 -> +0");
    CHECK_EQ_HEX(eval("v_fma_f32", "clamp=1", 0, 0x40000000, 0x40000000, 0, 0), 0x3f800000, "clamp 4 -> 1");
    CHECK_EQ_HEX(eval("v_fma_f32", "omod=1", 0, 0x3f800000, 0x3f800000, 0, 0), 0x3f800000, "omod ignored by default");
    CHECK_EQ_HEX(eval("v_fma_f32", "omod=1", "omod=applied", 0x3f800000, 0x3f800000, 0, 0), 0x40000000, "omod x2");
    CHECK_EQ_HEX(eval("v_fma_f32", "omod=3", "omod=applied", 0x00800000, 0x3f800000, 0, 0), 0, "omod /2 below normal");
    CHECK_EQ_HEX(eval("v_fma_f32", "omod=2", "omod=applied", 0x7f000000, 0x3f800000, 0, 0), 0x7f800000, "omod overflow");
    CHECK_EQ_HEX(eval("v_fma_mix_f32", "neg_hi=1,neg_lo=1,op_sel_hi=0", 0, 0x40000000, 0x3f800000, 0, 0), 0xc0000000,
                 "mix: neg_hi is abs, neg_lo is neg");
    /* V_DIV_FMAS_F32: scale with VCC per the parameters. */
    CHECK_EQ_HEX(eval("v_div_fmas_f32", 0, 0, 0x3f800000, 0x3f800000, 0x40000000, 1), 0x60400000,
                 "vcc, |S2| >= 2: times 2^64");
    CHECK_EQ_HEX(eval("v_div_fmas_f32", 0, 0, 0x3f800000, 0x3f800000, 0x3f000000, 1), 0x1fc00000,
                 "vcc, |S2| < 2: times 2^-64");
    CHECK_EQ_HEX(eval("v_div_fmas_f32", 0, "div_fmas_scale=guide32", 0x3f800000, 0x3f800000, 0x3f000000, 1),
                 0x4fc00000, "guide: times 2^32");
    CHECK_EQ_HEX(eval("v_div_fmas_f32", 0, 0, 0x3f800000, 0x3f800000, 0x3f000000, 0), 0x3fc00000, "no vcc");
    /* Before and after rounding differ when the scaled result is subnormal:
     * exact 1.5*2^-85 - 2^-115 rounds to 1.5*2^-85 in f32, whose scaled value
     * 3*2^-150 is a tie (to even: 2^-148); scaled first, it is just below
     * the tie (2^-149). */
    CHECK_EQ_HEX(eval("v_div_fmas_f32", 0, 0, 0x15400000, 0x3f800000, 0x86000000, 1), 0x00000001, "before rounding");
    CHECK_EQ_HEX(eval("v_div_fmas_f32", 0, "div_fmas_order=after-rounding", 0x15400000, 0x3f800000, 0x86000000, 1),
                 0x00000002, "after rounding");
    /* An f32 result at the bottom of the normal range, 2^-126, rounded up
     * from the subnormal sum 2^-126 - 2^-150 (a tie, to even), then scaled
     * by 2^32: scaled first, the value needs 24 bits and keeps them. */
    CHECK_EQ_HEX(eval("v_div_fmas_f32", 0, "div_fmas_scale=guide32", 0x3f7fffff, 0x00800000, 0x00000000, 1),
                 0x107fffff, "2^-126 from below, scaled");
    CHECK_EQ_HEX(eval("v_div_fmas_f32", 0, "div_fmas_scale=guide32,div_fmas_order=after-rounding", 0x3f7fffff,
                      0x00800000, 0x00000000, 1),
                 0x10800000, "the same, scaled after rounding");
    /* Legacy forms flush subnormal inputs and outputs. */
    CHECK_EQ_HEX(eval("v_mad_f32", 0, 0, 0x00000001, 0x4b000000, 0x00000000, 0), 0, "mad flushes a subnormal input");
    CHECK_EQ_HEX(eval("v_fma_f32", 0, 0, 0x00000001, 0x4b000000, 0x00000000, 0), 0x00800000, "fma keeps it");
    CHECK_EQ_HEX(eval("v_mad_f32", 0, 0, 0x00800000, 0x3f000000, 0x00000000, 0), 0, "mad flushes a subnormal result");
    /* Illegal controls are rejected with the rule named. */
    isa_instance in;
    isa_instance_default(&in, isa_op_find("v_fma_mix_f32"));
    const char *e = isa_parse_controls(&in, "op_sel=1,op_sel_hi=0");
    CHECK(e && strstr(e, "op_sel_hi"), "mix op_sel without op_sel_hi: %s", e ? e : "(accepted)");
    isa_instance_default(&in, isa_op_find("v_fmaak_f32"));
    e = isa_parse_controls(&in, "abs=1");
    CHECK(e && strstr(e, "takes no control"), "fmaak abs: %s", e ? e : "(accepted)");
    CHECK(isa_op_find("v_fma_f64") && !isa_op_find("v_fma_f64")->translated, "f64 listed, not translated");
    return check_report("test_rdna2_cases");
}
