/* spirv/builder: modules encoded straight to words.  No device needed.
 * - Every translated op, both lowerings, under two sets of device
 *   capabilities, for the plain encoding, every row of its covering schedule
 *   and random controls: the module validates, and its disassembly
 *   assembles (SPIRV-Tools) back to the very same words.  That holds only
 *   where each instruction's word count, operand order and which words are
 *   ids agree with SPIRV-Tools' reading of the opcode, and where the ids are
 *   numbered as its assembler numbers them (first appearance).
 * - Literals SPIRV-Tools reads back as the values written: a 64-bit float
 *   and integer (two words, low first), a negative i32, a boolean, a
 *   specialization constant's default, a GLSL.std.450 instruction. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "engine/cover.h"
#include "engine/module.h"
#include "spirv/kernel.h"

static unsigned modules_checked;

static void round_trip(const isa_instance *in, isa_lowering l, const vkd_info *dev, const char *caps_name)
{
    spv_module m;
    char err[1024], ctrl[512];
    if (eng_module_words(in, l, dev, &m, err, sizeof err)) {
        /* Only a device lacking a capability the module needs may refuse it. */
        CHECK(strstr(err, "which the device does not offer") != NULL, "%s: %s", caps_name, err);
        return;
    }
    const char *what = isa_controls_text(in, ctrl, sizeof ctrl);
    CHECK(spv_validate(&m, dev->api_version, err, sizeof err) == 0, "%s %s %s (%s): %s", in->op->name,
          isa_lowering_name(l), what, caps_name, err);
    char *text = spv_to_text(&m);
    CHECK(text != NULL, "%s %s %s: no disassembly", in->op->name, isa_lowering_name(l), what);
    spv_module back = {0};
    if (text && spv_assemble(text, &back, err, sizeof err) == 0) {
        size_t first = 0;
        while (first < m.count && first < back.count && m.words[first] == back.words[first])
            first++;
        CHECK(back.count == m.count && first == m.count,
              "%s %s %s (%s): the disassembly assembles to other words (%zu and %zu words, first difference at "
              "word %zu)\n%s",
              in->op->name, isa_lowering_name(l), what, caps_name, m.count, back.count, first, text);
    } else {
        CHECK(0, "%s %s %s: the disassembly does not assemble: %s", in->op->name, isa_lowering_name(l), what, err);
    }
    spv_module_free(&back);
    free(text);
    spv_module_free(&m);
    modules_checked++;
}

static void every_op(const vkd_info *dev, const char *caps_name)
{
    for (unsigned i = 0; isa_op_at(i); i++) {
        const isa_op *op = isa_op_at(i);
        if (!op->translated)
            continue;
        isa_instance tmpl;
        isa_instance_default(&tmpl, op);
        eng_cover cov;
        eng_cover_make(&tmpl, 0, &cov);
        gen_rng r = gen_rng_for(1, i, 0);
        for (int l = 0; l < LOWERING_COUNT; l++) {
            round_trip(&tmpl, (isa_lowering)l, dev, caps_name);
            for (unsigned row = 1; row < cov.rows; row++) {
                isa_instance in = tmpl;
                memcpy(in.ctrl, cov.ctrl[row], sizeof in.ctrl);
                round_trip(&in, (isa_lowering)l, dev, caps_name);
            }
            for (int k = 0; k < 8; k++) {
                isa_instance in = tmpl;
                isa_random_controls(&in, &r);
                round_trip(&in, (isa_lowering)l, dev, caps_name);
            }
        }
        eng_cover_free(&cov);
    }
}

/* Whether some line of text holds a, then b ending a word there (b may be empty). */
static bool has_line(const char *text, const char *a, const char *b)
{
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        const char *at = strstr(line, a);
        if (at && at + strlen(a) <= line + len && !*b)
            return true;
        if (at && at + strlen(a) <= line + len) {
            const char *end = strstr(at + strlen(a), b);
            if (end && end + strlen(b) <= line + len) {
                char next = end[strlen(b)];
                if (next == '\n' || next == ' ' || next == 0)
                    return true;
            }
        }
        line += len + (line[len] == '\n');
    }
    return false;
}

/* A body that stores constants of every kind the builder writes. */
static const char *constants_body(void *ctx, spv_builder *b, const unsigned *in_words, unsigned *out_words,
                                  unsigned *needs, const spv_tile *tile)
{
    (void)ctx, (void)tile, (void)needs;
    unsigned f = sb_f64(b, -1.5);                         /* 0xbff8000000000000 */
    unsigned u = sb_u64(b, 0x123456789abcdef0ull);
    unsigned lo = sb_op(b, T_U32, "OpUConvert $", sb_op(b, T_U64, "OpIAdd $ $", u, sb_u64(b, 0)));
    unsigned i = sb_bitcast(b, T_U32, sb_i32(b, -5));
    unsigned k = sb_spec_u32(b, 0, 77);
    unsigned fma = sb_glsl(b, T_F32, "Fma $ $ $", sb_op(b, T_F32, "OpFConvert $", f), sb_bitcast(b, T_F32, in_words[0]),
                           sb_bitcast(b, T_F32, in_words[1]));
    sb_no_contraction(b, fma);
    unsigned pick = sb_select(b, T_U32, sb_bool(b, true), lo, i);
    out_words[0] = sb_op(b, T_U32, "OpIAdd $ $", sb_op(b, T_U32, "OpIAdd $ $", pick, k), sb_bitcast(b, T_U32, fma));
    return NULL;
}

static void literals(const vkd_info *dev)
{
    spv_kernel k;
    const char *why = spv_kernel_build(2, 1, 1, &dev->caps, constants_body, NULL, &k);
    CHECK(why == NULL, "the constants module: %s", why ? why : "");
    if (why)
        return;
    spv_module m = {k.words, k.count};
    char err[1024];
    CHECK(spv_validate(&m, dev->api_version, err, sizeof err) == 0, "the constants module: %s", err);
    char *text = spv_to_text(&m);
    /* Lines as the disassembler writes them: an instruction, then how the line ends. */
    static const char *const want[][2] = {
        {"= OpConstant %", " -1.5"}, {"= OpConstant %", " 1311768467463790320"}, {"= OpConstant %", " -5"},
        {"= OpConstantTrue %", ""},  {"= OpSpecConstant %", " 77"},             {"OpDecorate %", " SpecId 0"},
        {"= OpExtInst %", " %1 Fma"}, {"OpDecorate %", " NoContraction"},
        {"OpEntryPoint GLCompute %2 \"main\" %3 %4 %5 %6", ""}, {"%1 = OpExtInstImport \"GLSL.std.450\"", ""},
        {"OpExecutionMode %2 LocalSize 64 1 1", ""},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        CHECK(text && has_line(text, want[i][0], want[i][1]),
              "the constants module has no line with \"%s\" then \"%s\":\n%s", want[i][0], want[i][1],
              text ? text : "");
    free(text);
    spv_kernel_free(&k);
}

int main(void)
{
    vkd_info dev;
    memset(&dev, 0, sizeof dev);
    dev.api_version = (1u << 22) | (2u << 12);
    for (int w = 0; w < 3; w++)
        dev.caps.rte[w] = dev.caps.signed_zero_inf_nan[w] = true;
    dev.caps.float16 = dev.caps.float64 = dev.caps.int64 = true;
    literals(&dev);
    every_op(&dev, "every capability");
    /* Without 16-bit float controls and 64-bit floats (a device that has
     * neither): the preamble declares less, the exact lowering is refused. */
    dev.caps.rte[0] = dev.caps.signed_zero_inf_nan[0] = false;
    dev.caps.float64 = false;
    every_op(&dev, "no f16 controls, no f64");
    printf("%u modules\n", modules_checked);
    CHECK(modules_checked > 2000, "only %u modules were checked", modules_checked);
    return check_report("builder");
}
