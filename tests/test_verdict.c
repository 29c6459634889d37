/* Triage verdicts on synthetic device outputs (issue 13, acceptance 3): the
 * built-in modules judged against results no device had to produce, so each
 * verdict's rule is tested where it can fail: a result two units off is a
 * device bug (correct rounding), -0 where SignedZeroInfNanPreserve is
 * declared and advertised is a device bug naming that mode (and the rules'
 * +0 is what a reproducer expects), the same -0 on a device that does not
 * advertise the mode is the translation's, an unfused Fma result is the
 * translation's (fma-unfused, also where a flush would give the same), and a module computing another parameter
 * value's model is the model's.  Needs no Vulkan device. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "engine/module.h"
#include "engine/verdict.h"

static vkd_info device_promising_all(void)
{
    vkd_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "synthetic");
    d.api_version = VK_API_VERSION_1_2;
    d.float16 = d.float64 = d.int64 = true;
    for (int w = 0; w < 3; w++)
        d.caps.rte[w] = d.caps.signed_zero_inf_nan[w] = true;
    d.caps.float16 = d.caps.float64 = d.caps.int64 = true;
    return d;
}

static isa_instance instance(const char *op, const char *ctrl, const char *param)
{
    isa_instance in;
    char err[300];
    static const char *const names[2] = {"--ctrl", "--param"};
    const isa_op *o = isa_op_find(op);
    if (!o || isa_instance_from_text(o, ctrl, param, names, &in, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", op, o ? err : "no such op");
        exit(2);
    }
    return in;
}

/* Judge device[] for words[] on the module built for `built` (the instance
 * itself unless a test plants another), the model being `in`'s. */
static eng_verdict judge(const vkd_info *dev, const isa_instance *built, const isa_instance *in,
                         const uint32_t *words, const uint32_t *device)
{
    eng_module m;
    static char err[1 << 16];
    eng_verdict v;
    memset(&v, 0, sizeof v);
    if (eng_module_build(built, LOWERING_DIRECT, dev, &m, err, sizeof err)) {
        fprintf(stderr, "module: %s\n", err);
        exit(2);
    }
    eng_dispatch_shape shape = eng_dispatch_shape_of(&m, built);
    uint32_t host[ISA_MAX_OUT];
    in->op->impl->eval(in, words, host, NULL);
    eng_judge_module(&m, &shape, dev, in, words, host, device, false, &v);
    eng_module_free(&m);
    return v;
}

static void wrong_rounding(const vkd_info *dev)
{
    isa_instance in = instance("rdna2.v_fma_f32", NULL, NULL);
    const uint32_t words[3] = {0x3fc00000, 0x3fc00000, 0};   /* 1.5 * 1.5 + 0 = 2.25 */
    const uint32_t two_units_off[1] = {0x40100002};
    eng_verdict v = judge(dev, &in, &in, words, two_units_off);
    CHECK(v.kind == VERDICT_DEVICE, "2 units off: %s (%s)", eng_verdict_name(v.kind), v.reason);
    CHECK(!strcmp(v.rule, "correct rounding"), "2 units off: rule '%s'", v.rule);
    CHECK(v.has_required && v.required[0] == 0x40100000, "2 units off: the rules require 2.25, got %08x", v.required[0]);
}

static void unfused_fma(const vkd_info *dev)
{
    isa_instance in = instance("rdna2.v_fma_f32", NULL, NULL);
    /* a = b = 1 + 2^-12, c = -(1 + 2^-11): fused 2^-24, unfused +0. */
    const uint32_t words[3] = {0x3f800800, 0x3f800800, 0xbf801000};
    const uint32_t unfused[1] = {0};
    eng_verdict v = judge(dev, &in, &in, words, unfused);
    CHECK(v.kind == VERDICT_TRANSLATION, "unfused: %s (%s)", eng_verdict_name(v.kind), v.reason);
    CHECK(v.liberty == SPA_FMA_UNFUSED, "unfused: liberty %s", eng_liberty_id(v.liberty));
    char cause[64];
    const char *c = eng_verdict_cause(&v, cause, sizeof cause);
    CHECK(c && !strcmp(c, "fma-unfused"), "unfused: cause '%s'", c ? c : "(none)");
}

/* A fused result that is subnormal, flushed, equals the unfused Fma's +0
 * (clamped, so the sign goes too): the Fma's own liberty is named, which is
 * what a device that computes Fma unfused (lavapipe) is known for. */
static void unfused_or_flushed(const vkd_info *dev)
{
    isa_instance in = instance("rdna2.v_fma_f32", "abs=3,neg=6,clamp=1,omod=1", NULL);
    const uint32_t words[3] = {0xa982ec00, 0xa2e49e8c, 0x8ce9d68b};
    const uint32_t zero[1] = {0};
    eng_verdict v = judge(dev, &in, &in, words, zero);
    CHECK(v.kind == VERDICT_TRANSLATION && v.liberty == SPA_FMA_UNFUSED, "unfused or flushed: %s, %s (%s)",
          eng_verdict_name(v.kind), eng_liberty_id(v.liberty), v.reason);
}

/* V_MADAK_F32 with K = +0: S0 * S1 = -0, and -0 + +0 is +0 under
 * SignedZeroInfNanPreserve; lavapipe's folding gives -0. */
static void folded_zero(const vkd_info *promising, const vkd_info *not_promising)
{
    isa_instance in = instance("rdna2.v_madak_f32", "k=0", NULL);
    const uint32_t words[2] = {0x80000000, 0x3f800000};
    const uint32_t minus_zero[1] = {0x80000000};
    eng_verdict v = judge(promising, &in, &in, words, minus_zero);
    CHECK(v.kind == VERDICT_DEVICE, "-0, mode advertised: %s (%s)", eng_verdict_name(v.kind), v.reason);
    CHECK(!strcmp(v.rule, "SignedZeroInfNanPreserve 32"), "-0, mode advertised: rule '%s'", v.rule);
    CHECK(v.has_required && v.required[0] == 0, "-0: the rules require +0, got %08x", v.required[0]);
    v = judge(not_promising, &in, &in, words, minus_zero);
    CHECK(v.kind == VERDICT_TRANSLATION, "-0, mode not advertised: %s (%s)", eng_verdict_name(v.kind), v.reason);
    CHECK(v.liberty == SPA_SIGNED_ZERO, "-0, mode not advertised: liberty %s", eng_liberty_id(v.liberty));
}

/* A module built with omod applied, judged against the model with omod
 * ignored: the device computes the module exactly, which is the other
 * parameter value's model. */
static void other_parameter(const vkd_info *dev)
{
    isa_instance in = instance("rdna2.v_fma_f32", "omod=1", "omod=ignored");
    isa_instance planted = instance("rdna2.v_fma_f32", "omod=1", "omod=applied");
    const uint32_t words[3] = {0x3fc00000, 0x3fc00000, 0};   /* 2.25; omod=1 doubles it: 4.5 */
    const uint32_t doubled[1] = {0x40900000};
    eng_verdict v = judge(dev, &planted, &in, words, doubled);
    CHECK(v.kind == VERDICT_MODEL, "omod: %s (%s)", eng_verdict_name(v.kind), v.reason);
    CHECK(!strcmp(v.rule, "omod=applied"), "omod: parameter '%s'", v.rule);
}

int main(void)
{
    vkd_info promising = device_promising_all(), not_promising = promising;
    for (int w = 0; w < 3; w++)
        not_promising.caps.signed_zero_inf_nan[w] = false;
    wrong_rounding(&promising);
    unfused_fma(&promising);
    unfused_or_flushed(&promising);
    folded_zero(&promising, &not_promising);
    other_parameter(&promising);
    return check_report("verdict");
}
