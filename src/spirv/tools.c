/* SPIRV-Tools glue through its C API. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spirv-tools/libspirv.h>
#include <spirv/unified1/spirv.h>
#include "tools.h"

static void diagnostic(spv_diagnostic d, const char *what, char *err, size_t errn)
{
    if (d && d->error)
        snprintf(err, errn, "%s: line %zu, column %zu: %s", what, d->position.line + 1, d->position.column + 1,
                 d->error);
    else
        snprintf(err, errn, "%s failed", what);
}

int spv_assemble(const char *text, spv_module *out, char *err, size_t errn)
{
    spv_context ctx = spvContextCreate(SPV_ENV_VULKAN_1_2);
    spv_binary bin = NULL;
    spv_diagnostic d = NULL;
    spv_result_t r = spvTextToBinary(ctx, text, strlen(text), &bin, &d);
    int rc = -1;
    if (r == SPV_SUCCESS) {
        out->count = bin->wordCount;
        out->words = malloc(bin->wordCount * sizeof(uint32_t));
        if (out->words) {
            memcpy(out->words, bin->code, bin->wordCount * sizeof(uint32_t));
            rc = 0;
        } else {
            snprintf(err, errn, "out of memory");
        }
    } else {
        diagnostic(d, "SPIR-V assembly", err, errn);
    }
    spvDiagnosticDestroy(d);
    spvBinaryDestroy(bin);
    spvContextDestroy(ctx);
    return rc;
}

const char *spv_tools_version(void) { return spvSoftwareVersionDetailsString(); }

int spv_validate(const spv_module *m, uint32_t api, char *err, size_t errn)
{
    unsigned major = api >> 22 & 0x7f, minor = api >> 12 & 0x3ff;
    spv_target_env env;
    if (major > 1 || minor >= 3)
        env = SPV_ENV_VULKAN_1_3;
    else if (minor == 2)
        env = SPV_ENV_VULKAN_1_2;
    else {
        snprintf(err, errn, "the device offers Vulkan %u.%u; tiefuzz modules need Vulkan 1.2 (float controls)",
                 major, minor);
        return -1;
    }
    spv_context ctx = spvContextCreate(env);
    spv_const_binary_t bin = {m->words, m->count};
    spv_diagnostic d = NULL;
    spv_result_t r = spvValidate(ctx, &bin, &d);
    if (r != SPV_SUCCESS)
        diagnostic(d, "SPIR-V validation", err, errn);
    spvDiagnosticDestroy(d);
    spvContextDestroy(ctx);
    return r == SPV_SUCCESS ? 0 : -1;
}

static char *binary_to_text(const spv_module *m, uint32_t options)
{
    spv_context ctx = spvContextCreate(SPV_ENV_VULKAN_1_3);
    spv_text text = NULL;
    spv_diagnostic d = NULL;
    char *out = NULL;
    if (spvBinaryToText(ctx, m->words, m->count, options, &text, &d) == SPV_SUCCESS) {
        out = malloc(text->length + 1);
        if (out) {
            memcpy(out, text->str, text->length);
            out[text->length] = 0;
        }
    }
    spvTextDestroy(text);
    spvDiagnosticDestroy(d);
    spvContextDestroy(ctx);
    return out;
}

char *spv_disassemble(const spv_module *m) { return binary_to_text(m, SPV_BINARY_TO_TEXT_OPTION_INDENT); }

/* Numeric ids, a line an instruction from its first column: what a user
 * edits and scripts match ("%7 = OpFAdd %5 %3 %4"). */
char *spv_to_text(const spv_module *m) { return binary_to_text(m, SPV_BINARY_TO_TEXT_OPTION_NONE); }

void spv_module_free(spv_module *m)
{
    free(m->words);
    m->words = NULL;
    m->count = 0;
}

int spv_load_file(const char *path, spv_module *out, char *err, size_t errn)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errn, "%s: cannot open", path);
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            if (cap >= (64u << 20))
                break;
            cap *= 2;
            buf = realloc(buf, cap + 1);
        }
    }
    fclose(f);
    if (!buf) {
        snprintf(err, errn, "%s: out of memory", path);
        return -1;
    }
    if (len >= (64u << 20)) {
        free(buf);
        snprintf(err, errn, "%s: larger than 64 MiB", path);
        return -1;
    }
    int rc;
    if (len >= 4 && buf[0] == 0x03 && (unsigned char)buf[1] == 0x02 && buf[2] == 0x23 && buf[3] == 0x07) {
        if (len % 4) {
            snprintf(err, errn, "%s: a SPIR-V binary whose size (%zu bytes) is not a whole number of words", path, len);
            rc = -1;
        } else {
            out->count = len / 4;
            out->words = malloc(len);
            memcpy(out->words, buf, len);
            rc = 0;
        }
    } else {
        buf[len] = 0;
        char msg[1024];
        rc = spv_assemble(buf, out, msg, sizeof msg);
        if (rc)
            snprintf(err, errn, "%s: %s", path, msg);
    }
    free(buf);
    return rc;
}

/* Interface facts of a module, read with SPIRV-Tools' binary parser. */
static spv_result_t on_inst(void *user, const spv_parsed_instruction_t *inst)
{
    spv_interface *f = user;
    const uint32_t *w = inst->words;
    switch (inst->opcode) {
    case SpvOpEntryPoint:
        if (w[1] == SpvExecutionModelGLCompute && inst->num_words > 3 && strcmp((const char *)&w[3], "main") == 0) {
            f->glcompute_main = true;
            f->main_id = w[2];
        }
        break;
    case SpvOpExecutionMode:
        if (w[2] == SpvExecutionModeLocalSize && inst->num_words >= 6)
            memcpy(f->local_size, &w[3], sizeof f->local_size);
        if (w[2] == SpvExecutionModeRoundingModeRTE || w[2] == SpvExecutionModeSignedZeroInfNanPreserve ||
            w[2] == SpvExecutionModeDenormPreserve || w[2] == SpvExecutionModeDenormFlushToZero ||
            w[2] == SpvExecutionModeRoundingModeRTZ) {
            const char *name = w[2] == SpvExecutionModeRoundingModeRTE ? "RoundingModeRTE"
                               : w[2] == SpvExecutionModeSignedZeroInfNanPreserve ? "SignedZeroInfNanPreserve"
                               : w[2] == SpvExecutionModeDenormPreserve ? "DenormPreserve"
                               : w[2] == SpvExecutionModeDenormFlushToZero ? "DenormFlushToZero"
                                                                            : "RoundingModeRTZ";
            size_t len = strlen(f->declared);
            snprintf(f->declared + len, sizeof f->declared - len, "%s%s %u", len ? "; " : "", name, w[3]);
        }
        break;
    case SpvOpDecorate:
        if (w[2] == SpvDecorationBinding && w[3] < 2)
            f->binding[w[3]] = true;
        break;
    case SpvOpVariable:
        if (w[3] == SpvStorageClassPushConstant)
            f->push_constant = true;
        break;
    default:
        break;
    }
    return SPV_SUCCESS;
}

void spv_scan_interface(const spv_module *m, spv_interface *f)
{
    memset(f, 0, sizeof *f);
    spv_context ctx = spvContextCreate(SPV_ENV_VULKAN_1_3);
    spvBinaryParse(ctx, f, m->words, m->count, NULL, on_inst, NULL);
    spvContextDestroy(ctx);
}
