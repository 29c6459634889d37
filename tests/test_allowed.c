/* spirv/allowed: the sets of results the Vulkan rules allow, on built-in
 * modules and on small hand-written ones.  No device needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "engine/module.h"
#include "fp/fp.h"
#include "gen/gen.h"
#include "isa/classify.h"
#include "isa/isa.h"
#include "spirv/allowed.h"
#include "spirv/tools.h"

/* A device that offers every float control the built-in modules declare. */
static vkd_info device_offering_all(void)
{
    vkd_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "test device");
    for (int w = 0; w < 3; w++)
        d.caps.rte[w] = d.caps.signed_zero_inf_nan[w] = true;
    d.caps.float16 = d.caps.float64 = d.caps.int64 = true;
    return d;
}

/* Rules where RTE and SignedZeroInfNanPreserve are advertised for every width. */
static spa_rules rules_rte_szinp(void)
{
    spa_rules r;
    memset(&r, 0, sizeof r);
    for (int w = 0; w < 3; w++)
        r.rte[w] = r.signed_zero_inf_nan[w] = true;
    return r;
}

static int assemble(const char *text, spv_module *m)
{
    char err[1024];
    if (spv_assemble(text, m, err, sizeof err)) {
        fprintf(stderr, "assembly failed: %s\n%s", err, text);
        return -1;
    }
    return 0;
}

static int builtin_module(const char *op_name, isa_lowering l, spv_module *m)
{
    const isa_op *op = isa_op_find(op_name);
    if (!op) {
        fprintf(stderr, "no op %s\n", op_name);
        return -1;
    }
    isa_instance in;
    isa_instance_default(&in, op);
    vkd_info dev = device_offering_all();
    char err[1024];
    char *text = eng_module_text(&in, l, &dev, err, sizeof err);
    if (!text) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    int rc = assemble(text, m);
    free(text);
    return rc;
}

/* The allowed set of one tuple (one invocation, one output word). */
static int allowed(const spv_module *m, const spa_rules *rules, const uint32_t *spec, unsigned n_spec,
                   const uint32_t *in, unsigned n_in, spa_set *s)
{
    char err[256];
    if (spa_allowed(m->words, m->count, rules, spec, n_spec, in, n_in, 1, 1, s, err, sizeof err)) {
        fprintf(stderr, "spa_allowed: %s\n", err);
        return -1;
    }
    return 0;
}

static bool has_result(const spa_set *s, uint32_t word, unsigned liberties)
{
    const spa_group *g = &s->groups[0];
    for (unsigned i = 0; i < g->n_results; i++)
        if (g->results[i].out[0] == word && g->results[i].liberties == liberties)
            return true;
    return false;
}

static void print_set(const char *what, const spa_set *s)
{
    if (getenv("TEST_ALLOWED_VERBOSE") == NULL)
        return;
    printf("%s: status %d %s\n", what, s->status, s->unsupported);
    for (unsigned g = 0; g < s->n_groups; g++)
        for (unsigned i = 0; i < s->groups[g].n_results; i++)
            printf("  %08x liberties %#x %s\n", s->groups[g].results[i].out[0], s->groups[g].results[i].liberties,
                   s->groups[g].results[i].where);
}

/* 1. rdna2.v_fma_f32: a*b = 1 + 2^-22 + 2^-46, c = -(1 + 2^-22): fused
 * 2^-46, unfused (product rounded first) +0. */
static void fma_direct_and_exact(void)
{
    const uint32_t in[3] = {0x3f800001, 0x3f800001, 0xbf800002};
    const uint32_t fused = 0x28800000, unfused = 0;
    spa_rules rules = rules_rte_szinp();
    spv_module m;
    spa_set s;
    if (builtin_module("rdna2.v_fma_f32", LOWERING_DIRECT, &m) == 0 && allowed(&m, &rules, NULL, 0, in, 3, &s) == 0) {
        print_set("v_fma_f32 direct", &s);
        CHECK(s.status == SPA_OK && s.n_groups == 1, "direct: status %d (%s)", s.status, s.unsupported);
        if (s.status == SPA_OK) {
            const spa_group *g = &s.groups[0];
            CHECK(g->n_results == 2, "direct: %u results, want fused and unfused", g->n_results);
            CHECK_EQ_HEX(g->strict.out[0], fused, "direct: strict result is the fused one");
            CHECK(g->results[0].out[0] == fused && g->results[0].liberties == 0, "direct: strict first");
            CHECK(has_result(&s, unfused, SPA_FMA_UNFUSED), "direct: unfused +0 with SPA_FMA_UNFUSED");
            uint32_t dev = unfused;
            const spa_result *r = spa_match(&s, &dev, 0);
            CHECK(r && strstr(r->where, "Fma"), "direct: the unfused match names the Fma (%s)", r ? r->where : "none");
            dev = 0x80000000;
            CHECK(!spa_contains(&s, &dev, 1), "direct: -0 is outside the set (SZINP in force)");
        }
        spa_set_free(&s);
        spv_module_free(&m);
    } else {
        CHECK(false, "direct module");
    }
    if (builtin_module("rdna2.v_fma_f32", LOWERING_EXACT, &m) == 0 && allowed(&m, &rules, NULL, 0, in, 3, &s) == 0) {
        print_set("v_fma_f32 exact", &s);
        CHECK(s.status == SPA_OK, "exact: status %d (%s)", s.status, s.unsupported);
        if (s.status == SPA_OK) {
            CHECK(s.groups[0].n_results == 1, "exact: %u results, want the exact one only", s.groups[0].n_results);
            CHECK_EQ_HEX(s.groups[0].strict.out[0], fused, "exact: the correctly rounded fma");
        }
        spa_set_free(&s);
        spv_module_free(&m);
    } else {
        CHECK(false, "exact module");
    }
}

/* A module over f16 operands in the low halves of words 0..2; BODY computes
 * %r (f16) from %a %b %c (f16) and their f32 conversions %a32 %b32 %c32. */
static char *f16_module(const char *modes, const char *decorations, const char *body)
{
    static const char head[] =
        "OpCapability Shader\nOpCapability Float16\n%s"
        "%%glsl = OpExtInstImport \"GLSL.std.450\"\n"
        "OpMemoryModel Logical GLSL450\n"
        "OpEntryPoint GLCompute %%main \"main\" %%gid %%in %%out %%pc\n"
        "OpExecutionMode %%main LocalSize 64 1 1\n%s"
        "OpDecorate %%gid BuiltIn GlobalInvocationId\n"
        "OpDecorate %%arr ArrayStride 4\nOpMemberDecorate %%blk 0 Offset 0\nOpDecorate %%blk Block\n"
        "OpDecorate %%in DescriptorSet 0\nOpDecorate %%in Binding 0\n"
        "OpDecorate %%out DescriptorSet 0\nOpDecorate %%out Binding 1\n"
        "OpMemberDecorate %%pcb 0 Offset 0\nOpDecorate %%pcb Block\n%s"
        "%%u32 = OpTypeInt 32 0\n%%void = OpTypeVoid\n%%bool = OpTypeBool\n"
        "%%f16 = OpTypeFloat 16\n%%f32 = OpTypeFloat 32\n%%v2f16 = OpTypeVector %%f16 2\n"
        "%%v3 = OpTypeVector %%u32 3\n%%pv3 = OpTypePointer Input %%v3\n"
        "%%arr = OpTypeRuntimeArray %%u32\n%%blk = OpTypeStruct %%arr\n%%pblk = OpTypePointer StorageBuffer %%blk\n"
        "%%pu32 = OpTypePointer StorageBuffer %%u32\n%%pcb = OpTypeStruct %%u32\n"
        "%%ppc = OpTypePointer PushConstant %%pcb\n%%ppcu = OpTypePointer PushConstant %%u32\n"
        "%%fn = OpTypeFunction %%void\n"
        "%%gid = OpVariable %%pv3 Input\n%%in = OpVariable %%pblk StorageBuffer\n"
        "%%out = OpVariable %%pblk StorageBuffer\n%%pc = OpVariable %%ppc PushConstant\n"
        "%%c0 = OpConstant %%u32 0\n%%c1 = OpConstant %%u32 1\n%%c2 = OpConstant %%u32 2\n%%c3 = OpConstant %%u32 3\n"
        "%%h0 = OpConstant %%f16 0\n"
        "%%main = OpFunction %%void None %%fn\n%%entry = OpLabel\n"
        "%%g = OpLoad %%v3 %%gid\n%%i = OpCompositeExtract %%u32 %%g 0\n"
        "%%pcp = OpAccessChain %%ppcu %%pc %%c0\n%%n = OpLoad %%u32 %%pcp\n%%inside = OpULessThan %%bool %%i %%n\n"
        "OpSelectionMerge %%end None\nOpBranchConditional %%inside %%body %%end\n%%body = OpLabel\n"
        "%%base = OpIMul %%u32 %%i %%c3\n"
        "%%ia = OpIAdd %%u32 %%base %%c0\n%%pa = OpAccessChain %%pu32 %%in %%c0 %%ia\n%%wa = OpLoad %%u32 %%pa\n"
        "%%ib = OpIAdd %%u32 %%base %%c1\n%%pb = OpAccessChain %%pu32 %%in %%c0 %%ib\n%%wb = OpLoad %%u32 %%pb\n"
        "%%ic = OpIAdd %%u32 %%base %%c2\n%%pcc = OpAccessChain %%pu32 %%in %%c0 %%ic\n%%wc = OpLoad %%u32 %%pcc\n"
        "%%va = OpBitcast %%v2f16 %%wa\n%%a = OpCompositeExtract %%f16 %%va 0\n"
        "%%vb = OpBitcast %%v2f16 %%wb\n%%b = OpCompositeExtract %%f16 %%vb 0\n"
        "%%vc = OpBitcast %%v2f16 %%wc\n%%c = OpCompositeExtract %%f16 %%vc 0\n"
        "%%a32 = OpFConvert %%f32 %%a\n%%b32 = OpFConvert %%f32 %%b\n%%c32 = OpFConvert %%f32 %%c\n"
        "%s"
        "%%vr = OpCompositeConstruct %%v2f16 %%r %%h0\n%%wr = OpBitcast %%u32 %%vr\n"
        "%%po = OpAccessChain %%pu32 %%out %%c0 %%i\nOpStore %%po %%wr\n"
        "OpBranch %%end\n%%end = OpLabel\nOpReturn\nOpFunctionEnd\n";
    size_t n = sizeof head + strlen(modes) * 2 + strlen(decorations) + strlen(body) + 256;
    char *text = malloc(n);
    const char *caps = strstr(modes, "RoundingModeRTE") ? "OpCapability RoundingModeRTE\n" : "";
    snprintf(text, n, head, caps, modes, decorations, body);
    return text;
}

static const char f32_madd[] =
    "%p = OpFMul %f32 %a32 %b32\n%s32 = OpFAdd %f32 %p %c32\n%r = OpFConvert %f16 %s32\n";

/* 2. An f16 multiply-add computed in f32 then narrowed double-rounds:
 * a*b + c = (1 + 2^-10 + 2^-11) - 2^-31 rounds in f32 to the f16 tie, which
 * goes to even (0x3c02), where the correctly rounded fma is 0x3c01. */
static void f16_through_f32(void)
{
    const uint32_t in[3] = {0x1001, 0x3bfe, 0x3c01};
    fp_value exact = fp_add(fp_mul(fp_decode(&fp_f16, in[0]), fp_decode(&fp_f16, in[1])), fp_decode(&fp_f16, in[2]));
    uint32_t correct = (uint32_t)fp_round(&fp_f16, exact, FP_RNE, NULL);
    CHECK_EQ_HEX(correct, 0x3c01, "the correctly rounded f16 fma");
    char *text = f16_module("OpExecutionMode %main RoundingModeRTE 16\nOpExecutionMode %main RoundingModeRTE 32\n",
                            "OpDecorate %p NoContraction\nOpDecorate %s32 NoContraction\n", f32_madd);
    spa_rules rules = rules_rte_szinp();
    spv_module m;
    spa_set s;
    if (assemble(text, &m) == 0 && allowed(&m, &rules, NULL, 0, in, 3, &s) == 0) {
        print_set("f16 via f32", &s);
        CHECK(s.status == SPA_OK, "status %d (%s)", s.status, s.unsupported);
        if (s.status == SPA_OK) {
            CHECK_EQ_HEX(s.groups[0].strict.out[0], 0x3c02, "strict: double rounded");
            CHECK(s.groups[0].strict.out[0] != correct, "strict differs from the correctly rounded fma");
            CHECK(s.groups[0].n_results == 1, "%u results, want 1 (no liberty applies)", s.groups[0].n_results);
            uint32_t dev = correct;
            CHECK(!spa_contains(&s, &dev, 1), "the correctly rounded fma is outside the set: a translation verdict");
        }
        spa_set_free(&s);
        spv_module_free(&m);
    } else {
        CHECK(false, "f16 module");
    }
    free(text);
}

/* 3. OpFDiv is outside the interpreter: named, with its id. */
static void unsupported_fdiv(void)
{
    char *text = f16_module("", "",
                            "%q = OpFDiv %f32 %a32 %b32\n%r = OpFConvert %f16 %q\n");
    const uint32_t in[3] = {0x3c00, 0x4000, 0};
    spa_rules rules = rules_rte_szinp();
    spv_module m;
    spa_set s;
    if (assemble(text, &m) == 0 && allowed(&m, &rules, NULL, 0, in, 3, &s) == 0) {
        CHECK(s.status == SPA_UNSUPPORTED, "status %d, want SPA_UNSUPPORTED", s.status);
        CHECK(strstr(s.unsupported, "OpFDiv (%") != NULL, "unsupported names OpFDiv: '%s'", s.unsupported);
        spa_set_free(&s);
        spv_module_free(&m);
    } else {
        CHECK(false, "fdiv module");
    }
    free(text);
}

/* An f32 module over words 0..2 (%wa %wb %wc as u32, %a %b %c as f32):
 * BODY computes %s (f32), stored as the tuple's one output word. */
static char *f32_module(const char *capability, const char *modes, const char *decorations, const char *body)
{
    static const char head[] =
        "OpCapability Shader\nOpCapability Float16\n%s"
        "OpMemoryModel Logical GLSL450\n"
        "OpEntryPoint GLCompute %%main \"main\" %%gid %%in %%out %%pc\n"
        "OpExecutionMode %%main LocalSize 64 1 1\n%s"
        "OpDecorate %%gid BuiltIn GlobalInvocationId\n"
        "OpDecorate %%arr ArrayStride 4\nOpMemberDecorate %%blk 0 Offset 0\nOpDecorate %%blk Block\n"
        "OpDecorate %%in DescriptorSet 0\nOpDecorate %%in Binding 0\n"
        "OpDecorate %%out DescriptorSet 0\nOpDecorate %%out Binding 1\n"
        "OpMemberDecorate %%pcb 0 Offset 0\nOpDecorate %%pcb Block\n%s"
        "%%u32 = OpTypeInt 32 0\n%%void = OpTypeVoid\n%%bool = OpTypeBool\n%%f32 = OpTypeFloat 32\n"
        "%%f16 = OpTypeFloat 16\n%%v2f16 = OpTypeVector %%f16 2\n"
        "%%v3 = OpTypeVector %%u32 3\n%%pv3 = OpTypePointer Input %%v3\n"
        "%%arr = OpTypeRuntimeArray %%u32\n%%blk = OpTypeStruct %%arr\n%%pblk = OpTypePointer StorageBuffer %%blk\n"
        "%%pu32 = OpTypePointer StorageBuffer %%u32\n%%pcb = OpTypeStruct %%u32\n"
        "%%ppc = OpTypePointer PushConstant %%pcb\n%%fn = OpTypeFunction %%void\n"
        "%%gid = OpVariable %%pv3 Input\n%%in = OpVariable %%pblk StorageBuffer\n"
        "%%out = OpVariable %%pblk StorageBuffer\n%%pc = OpVariable %%ppc PushConstant\n"
        "%%c0 = OpConstant %%u32 0\n%%c1 = OpConstant %%u32 1\n%%c2 = OpConstant %%u32 2\n"
        "%%c3 = OpConstant %%u32 3\n%%c32 = OpConstant %%u32 32\n%%false = OpConstantFalse %%bool\n"
        "%%h0 = OpConstant %%f16 0\n"
        "%%main = OpFunction %%void None %%fn\n%%entry = OpLabel\n"
        "%%g = OpLoad %%v3 %%gid\n%%i = OpCompositeExtract %%u32 %%g 0\n%%base = OpIMul %%u32 %%i %%c3\n"
        "%%pa = OpAccessChain %%pu32 %%in %%c0 %%base\n%%wa = OpLoad %%u32 %%pa\n"
        "%%ib = OpIAdd %%u32 %%base %%c1\n%%pb = OpAccessChain %%pu32 %%in %%c0 %%ib\n%%wb = OpLoad %%u32 %%pb\n"
        "%%ic = OpIAdd %%u32 %%base %%c2\n%%pcc = OpAccessChain %%pu32 %%in %%c0 %%ic\n%%wc = OpLoad %%u32 %%pcc\n"
        "%%a = OpBitcast %%f32 %%wa\n%%b = OpBitcast %%f32 %%wb\n%%c = OpBitcast %%f32 %%wc\n%s"
        "%%ws = OpBitcast %%u32 %%s\n%%po = OpAccessChain %%pu32 %%out %%c0 %%i\nOpStore %%po %%ws\n"
        "OpReturn\nOpFunctionEnd\n";
    size_t n = sizeof head + strlen(capability) + strlen(modes) + strlen(decorations) + strlen(body) + 16;
    char *text = malloc(n);
    snprintf(text, n, head, capability, modes, decorations, body);
    return text;
}

static int f32_set(const char *capability, const char *modes, const char *decorations, const char *body,
                   const spa_rules *rules, const uint32_t in[3], spa_set *s)
{
    char *text = f32_module(capability, modes, decorations, body);
    spv_module m;
    int rc = assemble(text, &m) == 0 ? allowed(&m, rules, NULL, 0, in, 3, s) : -1;
    if (rc == 0)
        spv_module_free(&m);
    free(text);
    return rc;
}

static int f32_add_set(const char *capability, const char *modes, const spa_rules *rules, uint32_t a, uint32_t b,
                       spa_set *s)
{
    const uint32_t in[3] = {a, b, 0};
    return f32_set(capability, modes, "", "%s = OpFAdd %f32 %a %b\n", rules, in, s);
}

/* 4. (2^-126 + 2^-149) - 2^-126 = 2^-149, a denormal. */
static void denormal_result(void)
{
    const uint32_t a = 0x00800001, b = 0x80800000;
    spa_rules plain = rules_rte_szinp(), preserving = plain;
    for (int w = 0; w < 3; w++)
        plain.signed_zero_inf_nan[w] = false;
    preserving.denorm_preserve[1] = true;
    spa_set s;
    if (f32_add_set("", "", &plain, a, b, &s) == 0) {
        print_set("denormal, no modes", &s);
        CHECK(s.status == SPA_OK && s.groups[0].n_results == 3, "no modes: %u results, want 3",
              s.n_groups ? s.groups[0].n_results : 0);
        CHECK(s.n_groups && s.groups[0].strict.out[0] == 1, "no modes: strict keeps the denormal");
        CHECK(s.n_groups && has_result(&s, 0, SPA_FLUSH_RESULT), "no modes: +0 by flushing");
        CHECK(s.n_groups && has_result(&s, 0x80000000, SPA_FLUSH_RESULT | SPA_SIGNED_ZERO), "no modes: -0 too");
        spa_set_free(&s);
    }
    const char *cap = "OpCapability DenormPreserve\n", *mode = "OpExecutionMode %main DenormPreserve 32\n";
    if (f32_add_set(cap, mode, &preserving, a, b, &s) == 0) {
        print_set("denormal, DenormPreserve advertised", &s);
        CHECK(s.status == SPA_OK && s.groups[0].n_results == 1 && s.groups[0].strict.out[0] == 1,
              "DenormPreserve in force: only the denormal");
        spa_set_free(&s);
    }
    spa_rules not_advertised = preserving;
    not_advertised.denorm_preserve[1] = false;
    if (f32_add_set(cap, mode, &not_advertised, a, b, &s) == 0) {
        print_set("denormal, DenormPreserve not advertised", &s);
        CHECK(s.status == SPA_OK && has_result(&s, 0, SPA_FLUSH_RESULT),
              "DenormPreserve declared, not advertised: the flush is allowed again");
        uint32_t dev = 0;
        CHECK(spa_contains(&s, &dev, 1), "a flushed +0 is in the set");
        spa_set_free(&s);
    }
}

/* 5. -0 + +0 = +0; without SignedZeroInfNanPreserve either zero. */
static void signed_zero(void)
{
    const char *cap = "OpCapability SignedZeroInfNanPreserve\n",
               *mode = "OpExecutionMode %main SignedZeroInfNanPreserve 32\n";
    spa_rules advertised = rules_rte_szinp(), not_advertised = advertised;
    not_advertised.signed_zero_inf_nan[1] = false;
    spa_set s;
    uint32_t minus = 0x80000000;
    if (f32_add_set(cap, mode, &advertised, 0x80000000, 0, &s) == 0) {
        CHECK(s.status == SPA_OK && s.groups[0].n_results == 1 && s.groups[0].strict.out[0] == 0,
              "SZINP in force: only +0");
        CHECK(!spa_contains(&s, &minus, 1), "SZINP in force: -0 outside");
        spa_set_free(&s);
    }
    if (f32_add_set(cap, mode, &not_advertised, 0x80000000, 0, &s) == 0) {
        CHECK(s.status == SPA_OK && s.groups[0].n_results == 2, "SZINP not in force: two results");
        CHECK(has_result(&s, 0x80000000, SPA_SIGNED_ZERO), "SZINP not in force: -0 by SPA_SIGNED_ZERO");
        CHECK(spa_contains(&s, &minus, 1), "SZINP not in force: -0 inside");
        spa_set_free(&s);
    }
    /* 1 + -1: no zero operand, the result's own sign is free. */
    if (f32_add_set(cap, mode, &not_advertised, 0x3f800000, 0xbf800000, &s) == 0) {
        CHECK(s.status == SPA_OK && s.groups[0].strict.out[0] == 0 && has_result(&s, 0x80000000, SPA_SIGNED_ZERO),
              "SZINP not in force: 1 + -1 may be written -0");
        spa_set_free(&s);
    }
    if (f32_add_set(cap, mode, &advertised, 0x3f800000, 0xbf800000, &s) == 0) {
        CHECK(s.status == SPA_OK && s.groups[0].n_results == 1 && s.groups[0].strict.out[0] == 0,
              "SZINP in force: 1 + -1 is +0 only");
        spa_set_free(&s);
    }
}

/* 6. rdna2.v_madak_f32 with K (SpecId 0) = +0 and S0*S1 = -0: -0 + +0 = +0. */
static void madak_spec_constant(void)
{
    spv_module m;
    if (builtin_module("rdna2.v_madak_f32", LOWERING_DIRECT, &m)) {
        CHECK(false, "madak module");
        return;
    }
    const uint32_t in[2] = {0x80000000, 0x3f800000}, spec[1] = {0};
    spa_rules advertised = rules_rte_szinp(), not_advertised = advertised;
    not_advertised.signed_zero_inf_nan[1] = false;
    spa_set s;
    uint32_t minus = 0x80000000, plus = 0;
    if (allowed(&m, &advertised, spec, 1, in, 2, &s) == 0) {
        print_set("madak K=0", &s);
        CHECK(s.status == SPA_OK && s.groups[0].n_results == 1 && s.groups[0].strict.out[0] == 0,
              "K = +0, SZINP in force: {+0} only (status %d %s)", s.status, s.unsupported);
        CHECK(!spa_contains(&s, &minus, 1) && spa_contains(&s, &plus, 1), "-0 outside, +0 inside");
        spa_set_free(&s);
    }
    /* The default K (1.0) when no value is given: -0 + 1 = 1. */
    if (allowed(&m, &advertised, NULL, 0, in, 2, &s) == 0) {
        CHECK(s.status == SPA_OK && s.groups[0].strict.out[0] == 0x3f800000, "the SpecId's default K");
        spa_set_free(&s);
    }
    if (allowed(&m, &not_advertised, spec, 1, in, 2, &s) == 0) {
        CHECK(s.status == SPA_OK && spa_contains(&s, &minus, 1), "SZINP not advertised: -0 inside");
        spa_set_free(&s);
    }
    spv_module_free(&m);
}


/* 7. An OpFMul feeding an OpFAdd may be contracted (the fma test's tuple:
 * unfused +0, fused 2^-46); NoContraction on either instruction forbids it. */
static void contraction(void)
{
    const uint32_t in[3] = {0x3f800001, 0x3f800001, 0xbf800002};
    const char *body = "%p = OpFMul %f32 %a %b\n%s = OpFAdd %f32 %p %c\n";
    const char *cap = "OpCapability SignedZeroInfNanPreserve\n",
               *mode = "OpExecutionMode %main SignedZeroInfNanPreserve 32\n";
    spa_rules rules = rules_rte_szinp();
    spa_set s;
    if (f32_set(cap, mode, "", body, &rules, in, &s) == 0) {
        print_set("contraction", &s);
        CHECK(s.status == SPA_OK && s.groups[0].n_results == 2, "contractible: 2 results");
        CHECK(s.n_groups && s.groups[0].strict.out[0] == 0, "contractible: strict is the unfused +0");
        CHECK(s.n_groups && has_result(&s, 0x28800000, SPA_CONTRACTED), "contractible: fused by SPA_CONTRACTED");
        spa_set_free(&s);
    }
    if (f32_set(cap, mode, "OpDecorate %p NoContraction\n", body, &rules, in, &s) == 0) {
        CHECK(s.status == SPA_OK && s.groups[0].n_results == 1 && s.groups[0].strict.out[0] == 0,
              "NoContraction on the multiply: the unfused +0 only");
        spa_set_free(&s);
    }
    if (f32_set(cap, mode, "OpDecorate %s NoContraction\n", body, &rules, in, &s) == 0) {
        CHECK(s.status == SPA_OK && s.groups[0].n_results == 1 && s.groups[0].strict.out[0] == 0,
              "NoContraction on the add: the unfused +0 only");
        spa_set_free(&s);
    }
}

/* 8. OpFConvert f32 -> f16 of 1 + 4095 * 2^-23: RTE gives 1.0 (0x3c00),
 * the other neighbour is 0x3c01.  The result goes out as the low half of
 * the word. */
static void conversion_rounding(void)
{
    const uint32_t in[3] = {0x3f800fff, 0, 0};
    const char *body = "%h = OpFConvert %f16 %a\n%v = OpCompositeConstruct %v2f16 %h %h0\n"
                       "%s = OpBitcast %f32 %v\n";
    spa_rules rules = rules_rte_szinp();
    spa_set s;
    if (f32_set("", "", "", body, &rules, in, &s) == 0) {
        print_set("conversion, no mode", &s);
        CHECK(s.status == SPA_OK && s.groups[0].n_results == 2, "no mode: both neighbours");
        CHECK(s.n_groups && s.groups[0].strict.out[0] == 0x3c00, "no mode: strict is to nearest even");
        CHECK(s.n_groups && has_result(&s, 0x3c01, SPA_CONVERT_ROUNDING), "no mode: 0x3c01 by SPA_CONVERT_ROUNDING");
        spa_set_free(&s);
    }
    if (f32_set("OpCapability RoundingModeRTE\n", "OpExecutionMode %main RoundingModeRTE 16\n", "", body, &rules, in,
                &s) == 0) {
        CHECK(s.status == SPA_OK && s.groups[0].n_results == 1 && s.groups[0].strict.out[0] == 0x3c00,
              "RoundingModeRTE 16 in force: 0x3c00 only");
        spa_set_free(&s);
    }
    if (f32_set("", "", "OpDecorate %h FPRoundingMode RTP\n", body, &rules, in, &s) == 0) {
        CHECK(s.status == SPA_OK && s.groups[0].n_results == 1 && s.groups[0].strict.out[0] == 0x3c01,
              "FPRoundingMode RTP: 0x3c01 only");
        spa_set_free(&s);
    }
}

/* 9. inf + -inf is a NaN whose bits are not promised: any f32 NaN matches,
 * an infinity does not. */
static void any_nan(void)
{
    spa_rules rules = rules_rte_szinp();
    const char *cap = "OpCapability SignedZeroInfNanPreserve\n",
               *mode = "OpExecutionMode %main SignedZeroInfNanPreserve 32\n";
    spa_set s;
    if (f32_add_set(cap, mode, &rules, 0x7f800000, 0xff800000, &s) == 0) {
        uint32_t quiet = 0xffc00123, signalling = 0x7f800001, inf = 0x7f800000;
        CHECK(s.status == SPA_OK && s.groups[0].any_nan[0] && s.groups[0].nan_width[0] == 32, "a NaN stored: any_nan");
        CHECK(spa_contains(&s, &quiet, 1) && spa_contains(&s, &signalling, 1), "any f32 NaN matches");
        CHECK(!spa_contains(&s, &inf, 1), "an infinity does not");
        CHECK(s.n_groups && s.groups[0].approximate == 0, "SZINP in force: nothing approximated");
        spa_set_free(&s);
    }
}

/* 10. A shift by 32 is undefined: harmless in the arm a select drops, an
 * unsupported case when stored. */
static void undefined_values(void)
{
    const uint32_t in[3] = {1, 0x3f800000, 0};
    spa_rules rules = rules_rte_szinp();
    spa_set s;
    if (f32_set("", "", "", "%sh = OpShiftLeftLogical %u32 %wa %c32\n%k = OpSelect %u32 %false %sh %wb\n"
                "%s = OpBitcast %f32 %k\n", &rules, in, &s) == 0) {
        CHECK(s.status == SPA_OK && s.groups[0].strict.out[0] == 0x3f800000, "the undefined arm is not selected");
        spa_set_free(&s);
    }
    if (f32_set("", "", "", "%sh = OpShiftLeftLogical %u32 %wa %c32\n%s = OpBitcast %f32 %sh\n", &rules, in, &s) ==
        0) {
        CHECK(s.status == SPA_UNSUPPORTED && strstr(s.unsupported, "OpShiftLeftLogical"),
              "storing it: unsupported, naming the shift ('%s')", s.unsupported);
        spa_set_free(&s);
    }
}

/* 11. A tile op runs one invocation per output word: each group's strict
 * result is the host model's word (exact lowering of an MMA). */
static void tile_groups(void)
{
    const isa_op *op = isa_op_find("mma.volta.m8n8k4.f16.f16.f16.f16");
    spv_module m;
    if (!op || builtin_module(op->name, LOWERING_EXACT, &m)) {
        CHECK(false, "tile module");
        return;
    }
    isa_instance inst;
    isa_instance_default(&inst, op);
    uint32_t words[ISA_MAX_IN], out[ISA_MAX_OUT];
    gen_rng g = gen_rng_for(1, 2, 3);
    isa_trace t;
    isa_generate_eval(&inst, GEN_RANDOM, &g, words, out, &t);
    spa_rules rules = rules_rte_szinp();
    spa_set s;
    char err[256];
    if (spa_allowed(m.words, m.count, &rules, NULL, 0, words, op->n_in, op->n_out, op->n_out, &s, err, sizeof err) ==
        0) {
        CHECK(s.status == SPA_OK && s.n_groups == op->n_out, "one group per output word (%u)", s.n_groups);
        unsigned wrong = 0;
        for (unsigned i = 0; i < s.n_groups; i++)
            wrong += s.groups[i].n_words != 1 || s.groups[i].word[0] != i || s.groups[i].strict.out[0] != out[i];
        CHECK(s.n_groups && wrong == 0, "%u groups differ from the host model", wrong);
        CHECK(spa_contains(&s, out, op->n_out), "the host tile is in the set");
        spa_set_free(&s);
    }
    spv_module_free(&m);
}

/* 12. No rounding mode in force: the device rounds every f32 addition the
 * same way, to nearest even or toward zero.  1 + 1.5u then + 0.75u (u the
 * ulp of 1): 1 + 3u to nearest, 1 + 1u toward zero; 1 + 2u would need the
 * two additions to round differently. */
static void one_rounding_mode(void)
{
    const uint32_t in[3] = {0x3f800000, 0x34400000, 0x33c00000};
    const char *body = "%t = OpFAdd %f32 %a %b\n%s = OpFAdd %f32 %t %c\n";
    spa_rules rules = rules_rte_szinp();
    rules.rtz[1] = true;
    spa_set s;
    uint32_t mixed = 0x3f800002;
    if (f32_set("", "", "", body, &rules, in, &s) == 0) {
        print_set("no rounding mode", &s);
        CHECK(s.status == SPA_OK && s.groups[0].n_results == 2, "no mode: 2 results");
        CHECK(s.n_groups && s.groups[0].strict.out[0] == 0x3f800003, "no mode: strict to nearest even");
        CHECK(s.n_groups && has_result(&s, 0x3f800001, SPA_ROUNDING_MODE), "no mode: toward zero, SPA_ROUNDING_MODE");
        CHECK(!spa_contains(&s, &mixed, 1), "no mode: the two additions round the same way");
        spa_set_free(&s);
    }
    if (f32_set("OpCapability RoundingModeRTE\n", "OpExecutionMode %main RoundingModeRTE 32\n", "", body, &rules, in,
                &s) == 0) {
        CHECK(s.status == SPA_OK && s.groups[0].n_results == 1 && s.groups[0].strict.out[0] == 0x3f800003,
              "RoundingModeRTE 32: to nearest only");
        spa_set_free(&s);
    }
    if (f32_set("OpCapability RoundingModeRTZ\n", "OpExecutionMode %main RoundingModeRTZ 32\n", "", body, &rules, in,
                &s) == 0) {
        CHECK(s.status == SPA_OK && s.groups[0].n_results == 1 && s.groups[0].strict.out[0] == 0x3f800001,
              "RoundingModeRTZ 32: toward zero only");
        spa_set_free(&s);
    }
}

/* 13. A denormal that only a float instruction reads forks nothing where its
 * flush cannot change the result: (2^-126 + 2^-149) - 2^-126 + 1 is 1.0 on
 * one path. */
static void absorbed_denormal(void)
{
    const uint32_t in[3] = {0x00800001, 0x80800000, 0x3f800000};
    spa_rules rules = rules_rte_szinp();
    const char *cap = "OpCapability SignedZeroInfNanPreserve\n",
               *mode = "OpExecutionMode %main SignedZeroInfNanPreserve 32\n";
    spa_set s;
    if (f32_set(cap, mode, "", "%d = OpFAdd %f32 %a %b\n%s = OpFAdd %f32 %d %c\n", &rules, in, &s) == 0) {
        CHECK(s.status == SPA_OK && s.groups[0].n_results == 1 && s.groups[0].strict.out[0] == 0x3f800000,
              "the sum is 1.0 whether the denormal is flushed or not");
        CHECK(s.n_groups && s.groups[0].n_paths == 1, "one path, not one per way of writing the denormal (%u)",
              s.n_groups ? s.groups[0].n_paths : 0);
        spa_set_free(&s);
    }
}

/* 14. Control flow: a loop (OpLoopMerge, OpPhi) doubling a three times. */
static void loop_with_phi(void)
{
    const uint32_t in[3] = {0x3fc00000, 0, 0};   /* 1.5: 12.0 after three doublings */
    const char *body = "OpBranch %hdr\n%hdr = OpLabel\n"
                       "%k = OpPhi %u32 %c0 %entry %knext %cont\n%acc = OpPhi %f32 %a %entry %accn %cont\n"
                       "%more = OpULessThan %bool %k %c3\nOpLoopMerge %exit %cont None\n"
                       "OpBranchConditional %more %step %exit\n%step = OpLabel\n"
                       "%accn = OpFAdd %f32 %acc %acc\n%knext = OpIAdd %u32 %k %c1\nOpBranch %cont\n"
                       "%cont = OpLabel\nOpBranch %hdr\n%exit = OpLabel\n%s = OpCopyObject %f32 %acc\n";
    spa_rules rules = rules_rte_szinp();
    spa_set s;
    if (f32_set("", "", "", body, &rules, in, &s) == 0) {
        CHECK(s.status == SPA_OK && s.groups[0].n_results == 1 && s.groups[0].strict.out[0] == 0x41400000,
              "1.5 doubled three times is 12.0 (status %d %s)", s.status, s.unsupported);
        spa_set_free(&s);
    }
}

int main(void)
{
    fma_direct_and_exact();
    f16_through_f32();
    unsupported_fdiv();
    denormal_result();
    signed_zero();
    madak_spec_constant();
    contraction();
    conversion_rounding();
    any_nan();
    undefined_values();
    tile_groups();
    one_rounding_mode();
    absorbed_denormal();
    loop_with_phi();
    return check_report("allowed");
}
