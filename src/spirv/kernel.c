/* The scaffold: buffers, bounds check, loads and stores around a body. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spirv/unified1/spirv.h>
#include "kernel.h"

/* Fixed ids the body can rely on: %1 is the GLSL.std.450 import. */
enum { ID_GLSL = SB_ID_GLSL, ID_MAIN = 2, ID_GID = 3, ID_IN = 4, ID_OUT = 5, ID_PC = 6 };

unsigned spv_tile_load(spv_builder *b, const spv_tile *t, unsigned index)
{
    unsigned idx = sb_op(b, T_U32, "OpIAdd $ $", t->base, index);
    unsigned p = sb_fresh(b);
    sb_stmt(b, "$ = OpAccessChain $ $ $ $", p, t->ptr_type, t->in_var, t->zero, idx);
    return sb_op(b, T_U32, "OpLoad $", p);
}

const char *spv_kernel_build(unsigned n_in, unsigned n_out, unsigned per_tuple, const spv_device_caps *caps,
                             spv_body_fn body, void *ctx, spv_kernel *out)
{
    memset(out, 0, sizeof *out);
    spv_builder *b = sb_create();
    unsigned u32 = sb_type_id(b, T_U32), tvoid = sb_type_id(b, T_VOID), tbool = sb_type_id(b, T_BOOL);
    unsigned v3 = sb_fresh(b), p_in_v3 = sb_fresh(b), arr = sb_fresh(b), blk = sb_fresh(b), p_blk = sb_fresh(b);
    unsigned p_sb_u32 = sb_fresh(b), pc_blk = sb_fresh(b), p_pc = sb_fresh(b), p_pc_u32 = sb_fresh(b);
    unsigned fnty = sb_fresh(b);
    sb_global(b, "$ = OpTypeVector $ 3", v3, u32);
    sb_global(b, "$ = OpTypePointer # $", p_in_v3, SpvStorageClassInput, v3);
    sb_global(b, "$ = OpTypeRuntimeArray $", arr, u32);
    sb_global(b, "$ = OpTypeStruct $", blk, arr);
    sb_global(b, "$ = OpTypePointer # $", p_blk, SpvStorageClassStorageBuffer, blk);
    sb_global(b, "$ = OpTypePointer # $", p_sb_u32, SpvStorageClassStorageBuffer, u32);
    sb_global(b, "$ = OpTypeStruct $", pc_blk, u32);
    sb_global(b, "$ = OpTypePointer # $", p_pc, SpvStorageClassPushConstant, pc_blk);
    sb_global(b, "$ = OpTypePointer # $", p_pc_u32, SpvStorageClassPushConstant, u32);
    sb_global(b, "$ = OpTypeFunction $", fnty, tvoid);
    sb_global(b, "$ = OpVariable $ #", ID_GID, p_in_v3, SpvStorageClassInput);
    sb_global(b, "$ = OpVariable $ #", ID_IN, p_blk, SpvStorageClassStorageBuffer);
    sb_global(b, "$ = OpVariable $ #", ID_OUT, p_blk, SpvStorageClassStorageBuffer);
    sb_global(b, "$ = OpVariable $ #", ID_PC, p_pc, SpvStorageClassPushConstant);
    sb_decoration(b, "OpDecorate $ # #", ID_GID, SpvDecorationBuiltIn, SpvBuiltInGlobalInvocationId);
    sb_decoration(b, "OpDecorate $ # 4", arr, SpvDecorationArrayStride);
    sb_decoration(b, "OpMemberDecorate $ 0 # 0", blk, SpvDecorationOffset);
    sb_decoration(b, "OpDecorate $ #", blk, SpvDecorationBlock);
    sb_decoration(b, "OpDecorate $ # 0", ID_IN, SpvDecorationDescriptorSet);
    sb_decoration(b, "OpDecorate $ # 0", ID_IN, SpvDecorationBinding);
    sb_decoration(b, "OpDecorate $ #", ID_IN, SpvDecorationNonWritable);
    sb_decoration(b, "OpDecorate $ # 0", ID_OUT, SpvDecorationDescriptorSet);
    sb_decoration(b, "OpDecorate $ # 1", ID_OUT, SpvDecorationBinding);
    sb_decoration(b, "OpDecorate $ #", ID_OUT, SpvDecorationNonReadable);
    sb_decoration(b, "OpMemberDecorate $ 0 # 0", pc_blk, SpvDecorationOffset);
    sb_decoration(b, "OpDecorate $ #", pc_blk, SpvDecorationBlock);

    unsigned body_label = sb_fresh(b), end_label = sb_fresh(b);
    unsigned zero = sb_u32(b, 0);
    sb_stmt(b, "$ = OpFunction $ # $", ID_MAIN, tvoid, SpvFunctionControlMaskNone, fnty);
    sb_label(b, sb_fresh(b));
    unsigned gid = sb_fresh(b);
    sb_stmt(b, "$ = OpLoad $ $", gid, v3, ID_GID);
    unsigned i = sb_op(b, T_U32, "OpCompositeExtract $ 0", gid);
    unsigned sub = 0;
    if (per_tuple > 1) {  /* invocation i: tuple i / per_tuple, output word i % per_tuple */
        sub = sb_op(b, T_U32, "OpUMod $ $", i, sb_u32(b, per_tuple));
        i = sb_op(b, T_U32, "OpUDiv $ $", i, sb_u32(b, per_tuple));
    }
    unsigned pcp = sb_fresh(b);
    sb_stmt(b, "$ = OpAccessChain $ $ $", pcp, p_pc_u32, ID_PC, zero);
    unsigned count = sb_op(b, T_U32, "OpLoad $", pcp);
    unsigned inside = sb_op(b, T_BOOL, "OpULessThan $ $", i, count);
    (void)tbool;
    sb_stmt(b, "OpSelectionMerge $ #", end_label, SpvSelectionControlMaskNone);
    sb_stmt(b, "OpBranchConditional $ $ $", inside, body_label, end_label);
    sb_label(b, body_label);

    unsigned *in_ids = calloc(n_in, sizeof *in_ids), *out_ids = calloc(n_out ? n_out : 1, sizeof *out_ids);
    unsigned base_in = sb_op(b, T_U32, "OpIMul $ $", i, sb_u32(b, n_in));
    spv_tile tile = {base_in, sub, p_sb_u32, ID_IN, zero};
    for (unsigned j = 0; per_tuple <= 1 && j < n_in; j++) {
        unsigned idx = sb_op(b, T_U32, "OpIAdd $ $", base_in, sb_u32(b, j));
        unsigned p = sb_fresh(b);
        sb_stmt(b, "$ = OpAccessChain $ $ $ $", p, p_sb_u32, ID_IN, zero, idx);
        in_ids[j] = sb_op(b, T_U32, "OpLoad $", p);
    }
    unsigned needs = 0;
    const char *why = body(ctx, b, in_ids, out_ids, &needs, per_tuple > 1 ? &tile : NULL);
    free(in_ids);
    if (why) {
        free(out_ids);
        sb_destroy(b);
        return why;
    }
    unsigned base_out = sb_op(b, T_U32, "OpIMul $ $", i, sb_u32(b, n_out));
    for (unsigned j = 0; j < (per_tuple > 1 ? 1 : n_out); j++) {
        unsigned idx = sb_op(b, T_U32, "OpIAdd $ $", base_out, per_tuple > 1 ? sub : sb_u32(b, j));
        unsigned p = sb_fresh(b);
        sb_stmt(b, "$ = OpAccessChain $ $ $ $", p, p_sb_u32, ID_OUT, zero, idx);
        sb_stmt(b, "OpStore $ $", p, out_ids[j]);
    }
    free(out_ids);
    sb_stmt(b, "OpBranch $", end_label);
    sb_label(b, end_label);
    sb_stmt(b, "OpReturn");
    sb_stmt(b, "OpFunctionEnd");

    /* Float controls: correctly rounded and IEEE specials for every width
     * the body computes in, where the device offers them. */
    unsigned widths = sb_float_widths(b);
    static const unsigned bits_of[3] = {16, 32, 64};
    if ((needs & SB_NEED_RTE64) && !caps->rte[2]) {
        sb_destroy(b);
        return "this module needs RoundingModeRTE for 64-bit floats (shaderRoundingModeRTEFloat64), "
               "which the device does not offer";
    }
    if ((needs & SB_NEED_SZINP64) && !caps->signed_zero_inf_nan[2]) {
        sb_destroy(b);
        return "this module needs SignedZeroInfNanPreserve for 64-bit floats "
               "(shaderSignedZeroInfNanPreserveFloat64), which the device does not offer";
    }
    if ((widths & 1) && !caps->float16) {
        sb_destroy(b);
        return "this module computes in 16-bit floats (shaderFloat16), which the device does not offer";
    }
    if (sb_uses_int64(b) && !caps->int64) {
        sb_destroy(b);
        return "this module uses 64-bit integers (shaderInt64), which the device does not offer";
    }
    if ((widths & 4) && !caps->float64) {
        sb_destroy(b);
        return "this module computes in 64-bit floats (shaderFloat64), which the device does not offer";
    }
    /* The preamble, in SPIR-V's order: capabilities, the import, the
     * memory model, the entry point, its execution modes. */
    bool any_rte = false, any_sz = false;
    for (int w = 0; w < 3; w++) {
        any_rte |= (widths & (1u << w)) && caps->rte[w];
        any_sz |= (widths & (1u << w)) && caps->signed_zero_inf_nan[w];
    }
    sb_preamble(b, "OpCapability #", SpvCapabilityShader);
    if (sb_uses_int64(b))
        sb_preamble(b, "OpCapability #", SpvCapabilityInt64);
    if (widths & 1)
        sb_preamble(b, "OpCapability #", SpvCapabilityFloat16);
    if (widths & 4)
        sb_preamble(b, "OpCapability #", SpvCapabilityFloat64);
    if (any_rte)
        sb_preamble(b, "OpCapability #", SpvCapabilityRoundingModeRTE);
    if (any_sz)
        sb_preamble(b, "OpCapability #", SpvCapabilitySignedZeroInfNanPreserve);
    sb_preamble_named(b, SpvOpExtInstImport, (uint32_t[]){ID_GLSL}, "r", "GLSL.std.450", NULL, "");
    sb_preamble(b, "OpMemoryModel # #", SpvAddressingModelLogical, SpvMemoryModelGLSL450);
    sb_preamble_named(b, SpvOpEntryPoint, (uint32_t[]){SpvExecutionModelGLCompute, ID_MAIN}, "li", "main",
                      (uint32_t[]){ID_GID, ID_IN, ID_OUT, ID_PC}, "iiii");
    sb_preamble(b, "OpExecutionMode $ # # 1 1", ID_MAIN, SpvExecutionModeLocalSize, SPV_LOCAL_SIZE);
    char rte[64] = "", sz[64] = "";
    for (int w = 0; w < 3; w++) {
        if (!(widths & (1u << w)))
            continue;
        if (caps->rte[w]) {
            sb_preamble(b, "OpExecutionMode $ # #", ID_MAIN, SpvExecutionModeRoundingModeRTE, bits_of[w]);
            snprintf(rte + strlen(rte), sizeof rte - strlen(rte), " %u", bits_of[w]);
        }
        if (caps->signed_zero_inf_nan[w]) {
            sb_preamble(b, "OpExecutionMode $ # #", ID_MAIN, SpvExecutionModeSignedZeroInfNanPreserve, bits_of[w]);
            snprintf(sz + strlen(sz), sizeof sz - strlen(sz), " %u", bits_of[w]);
        }
    }
    snprintf(out->declared, sizeof out->declared, "RoundingModeRTE%s; SignedZeroInfNanPreserve%s",
             any_rte ? rte : " none", any_sz ? sz : " none");
    out->words = sb_module_words(b, &out->count);
    out->needs_float16 = widths & 1;
    out->needs_float64 = widths & 4;
    out->needs_int64 = sb_uses_int64(b);
    sb_destroy(b);
    /* A constant message: modules are built on several threads at once. */
    return out->words ? NULL : "out of memory";
}

void spv_kernel_free(spv_kernel *k)
{
    free(k->words);
    k->words = NULL;
    k->count = 0;
}
