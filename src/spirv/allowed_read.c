/* spirv/allowed: the module read into a table with SPIRV-Tools' binary
 * parser: instructions, types, the decorations and execution modes that
 * decide the float rules, and the entry function's extent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* libspirv.h defines (not declares) kDefaultMaxIdBound when read as C, and
 * tools.c includes it too: give this file's copy its own name. */
#define kDefaultMaxIdBound spa_kDefaultMaxIdBound
#include <spirv-tools/libspirv.h>
#undef kDefaultMaxIdBound
#include <spirv/unified1/spirv.h>
#include "allowed_internal.h"

typedef struct {
    spa_module *m;
    unsigned cap;
    size_t offset;   /* where the next instruction starts in m->words */
    unsigned glsl_set;
} reader;

static spv_result_t on_header(void *user, spv_endianness_t e, uint32_t magic, uint32_t version, uint32_t generator,
                              uint32_t id_bound, uint32_t reserved)
{
    (void)e, (void)magic, (void)version, (void)generator, (void)reserved;
    spa_module *m = ((reader *)user)->m;
    m->bound = id_bound;
    m->observed = calloc(id_bound ? id_bound : 1, 1);
    return m->observed ? SPV_SUCCESS : SPV_ERROR_OUT_OF_MEMORY;
}

/* Instructions that read their float operands as values (and so take a
 * denormal's flush or a zero's sign themselves). */
static bool float_reader(const reader *r, const spv_parsed_instruction_t *p)
{
    switch (p->opcode) {
    case SpvOpFAdd: case SpvOpFSub: case SpvOpFMul: case SpvOpFNegate: case SpvOpFConvert: case SpvOpIsNan:
    case SpvOpIsInf:
        return true;
    case SpvOpExtInst:
        return p->num_words > 4 && p->words[3] == r->glsl_set && (p->words[4] == 50 || p->words[4] == 4);  /* Fma, FAbs */
    default:
        return p->opcode >= SpvOpFOrdEqual && p->opcode <= SpvOpFUnordGreaterThanEqual;
    }
}

static void note_uses(reader *r, const spv_parsed_instruction_t *p)
{
    spa_module *m = r->m;
    if (p->opcode == SpvOpExtInstImport && p->num_words > 2 && !strcmp((const char *)&p->words[2], "GLSL.std.450"))
        r->glsl_set = p->result_id;
    if (float_reader(r, p) || !m->observed)
        return;
    for (unsigned k = 0; k < p->num_operands; k++) {
        const spv_parsed_operand_t *o = &p->operands[k];
        if (o->type == SPV_OPERAND_TYPE_ID && p->words[o->offset] < m->bound)
            m->observed[p->words[o->offset]] = 1;
    }
}

static spv_result_t on_inst(void *user, const spv_parsed_instruction_t *p)
{
    reader *r = user;
    spa_module *m = r->m;
    if (m->n_inst == r->cap) {
        unsigned cap = r->cap ? 2 * r->cap : 256;
        spa_inst *grown = realloc(m->inst, cap * sizeof *grown);
        if (!grown)
            return SPV_ERROR_OUT_OF_MEMORY;
        m->inst = grown;
        r->cap = cap;
    }
    /* The parser may hand over converted copies of the words: point into our
     * own copy, where instructions follow each other from word 5. */
    m->inst[m->n_inst++] = (spa_inst){p->opcode, p->type_id, p->result_id, p->num_words, m->words + r->offset};
    r->offset += p->num_words;
    note_uses(r, p);
    return SPV_SUCCESS;
}

static int alloc_tables(spa_module *m)
{
    unsigned n = m->bound ? m->bound : 1;
    m->types = calloc(n, sizeof *m->types);
    m->def = malloc(n * sizeof *m->def);
    m->label = malloc(n * sizeof *m->label);
    m->no_contraction = calloc(n, 1);
    m->spec_id = malloc(n * sizeof *m->spec_id);
    m->fp_rounding = malloc(n);
    m->var_kind = calloc(n, 1);
    m->globals = malloc((m->n_inst ? m->n_inst : 1) * sizeof *m->globals);
    if (!m->types || !m->def || !m->label || !m->no_contraction || !m->spec_id || !m->fp_rounding || !m->var_kind ||
        !m->globals)
        return -1;
    for (unsigned i = 0; i < n; i++) {
        m->def[i] = m->label[i] = -1;
        m->spec_id[i] = -1;
        m->fp_rounding[i] = -1;
    }
    return 0;
}

static void read_type(spa_module *m, const spa_inst *in)
{
    const uint32_t *w = in->w;
    spa_type *t = &m->types[w[1]];
    switch (in->opcode) {
    case SpvOpTypeVoid: t->kind = TK_VOID; break;
    case SpvOpTypeBool: t->kind = TK_BOOL, t->width = 1; break;
    case SpvOpTypeInt: t->kind = TK_INT, t->width = w[2], t->is_signed = w[3]; break;
    case SpvOpTypeFloat: t->kind = TK_FLOAT, t->width = w[2]; break;
    case SpvOpTypeVector: t->kind = TK_VECTOR, t->comp = w[2], t->count = w[3]; break;
    case SpvOpTypePointer: t->kind = TK_POINTER, t->storage = w[2]; break;
    default: t->kind = TK_OTHER; break;
    }
}

static void read_execution_mode(spa_module *m, const uint32_t *w, unsigned n)
{
    if (n < 4 || w[1] != m->entry)
        return;
    int wi = spa_width_index(w[3]);
    if (wi < 0)
        return;
    switch (w[2]) {
    case SpvExecutionModeDenormPreserve: m->em_preserve[wi] = true; break;
    case SpvExecutionModeDenormFlushToZero: m->em_flush[wi] = true; break;
    case SpvExecutionModeSignedZeroInfNanPreserve: m->em_szinp[wi] = true; break;
    case SpvExecutionModeRoundingModeRTE: m->em_rte[wi] = true; break;
    case SpvExecutionModeRoundingModeRTZ: m->em_rtz[wi] = true; break;
    default: break;
    }
}

/* Decorations: what the float rules and the interface need. */
static void read_decoration(spa_module *m, const uint32_t *w, unsigned n, uint8_t *binding, uint8_t *builtin)
{
    if (n < 3 || w[1] >= m->bound)
        return;
    unsigned id = w[1];
    switch (w[2]) {
    case SpvDecorationNoContraction: m->no_contraction[id] = 1; break;
    case SpvDecorationSpecId: if (n > 3) m->spec_id[id] = (int32_t)w[3]; break;
    case SpvDecorationFPRoundingMode: if (n > 3 && w[3] <= 3) m->fp_rounding[id] = (int8_t)w[3]; break;
    case SpvDecorationBinding: if (n > 3) binding[id] = (uint8_t)(w[3] < 2 ? w[3] + 1 : 3); break;
    case SpvDecorationBuiltIn: if (n > 3) builtin[id] = w[3] == SpvBuiltInGlobalInvocationId ? 1 : 2; break;
    default: break;
    }
}

static void classify_variable(spa_module *m, const spa_inst *in, const uint8_t *binding, const uint8_t *builtin)
{
    unsigned id = in->result, storage = in->w[3];
    spa_var_kind k = VAR_NONE;
    if (storage == SpvStorageClassStorageBuffer || storage == SpvStorageClassUniform)
        k = binding[id] == 1 ? VAR_IN : binding[id] == 2 ? VAR_OUT : VAR_NONE;
    else if (storage == SpvStorageClassPushConstant)
        k = VAR_PUSH;
    else if (storage == SpvStorageClassInput)
        k = builtin[id] == 1 ? VAR_GID : VAR_NONE;
    else if (storage == SpvStorageClassFunction || storage == SpvStorageClassPrivate)
        k = VAR_LOCAL;
    m->var_kind[id] = (uint8_t)k;
}

static bool is_global_value(unsigned op)
{
    switch (op) {
    case SpvOpConstant: case SpvOpConstantTrue: case SpvOpConstantFalse: case SpvOpConstantComposite:
    case SpvOpConstantNull: case SpvOpSpecConstant: case SpvOpSpecConstantTrue: case SpvOpSpecConstantFalse:
    case SpvOpSpecConstantComposite: case SpvOpSpecConstantOp: case SpvOpUndef: case SpvOpVariable:
        return true;
    default:
        return false;
    }
}

/* Second pass: everything above, now that the id bound is known. */
static int index_module(spa_module *m, char *err, size_t errn)
{
    uint8_t *binding = calloc(m->bound ? m->bound : 1, 1), *builtin = calloc(m->bound ? m->bound : 1, 1);
    if (!binding || !builtin) {
        free(binding), free(builtin);
        snprintf(err, errn, "out of memory");
        return -1;
    }
    bool in_fn = false, in_entry = false;
    for (unsigned i = 0; i < m->n_inst; i++) {
        const spa_inst *in = &m->inst[i];
        if (in->result && in->result < m->bound)
            m->def[in->result] = (int)i;
        if (in->opcode == SpvOpEntryPoint && in->w[1] == SpvExecutionModelGLCompute && !m->entry)
            m->entry = in->w[2];
        else if (in->opcode == SpvOpExtInstImport && !strcmp((const char *)&in->w[2], "GLSL.std.450"))
            m->glsl_set = in->result;
        else if (in->opcode == SpvOpExecutionMode)
            read_execution_mode(m, in->w, in->n_words);
        else if (in->opcode == SpvOpDecorate)
            read_decoration(m, in->w, in->n_words, binding, builtin);
        else if (in->opcode >= SpvOpTypeVoid && in->opcode <= SpvOpTypeForwardPointer)
            read_type(m, in);
        else if (in->opcode == SpvOpFunction) {
            in_fn = true;
            in_entry = in->result == m->entry;
            if (in_entry)
                m->fn_begin = i + 1;
        } else if (in->opcode == SpvOpFunctionEnd) {
            if (in_entry)
                m->fn_end = i;
            in_fn = in_entry = false;
        } else if (in->opcode == SpvOpLabel)
            m->label[in->result] = (int)i;
        if (in->opcode == SpvOpVariable)
            classify_variable(m, in, binding, builtin);
        if (!in_fn && is_global_value(in->opcode))
            m->globals[m->n_globals++] = i;
    }
    free(binding), free(builtin);
    if (!m->entry || !m->fn_end) {
        snprintf(err, errn, "the module has no GLCompute entry point with a body");
        return -1;
    }
    return 0;
}

int spa_module_read(const uint32_t *words, size_t n_words, spa_module *m, char *err, size_t errn)
{
    memset(m, 0, sizeof *m);
    m->words = malloc((n_words ? n_words : 1) * sizeof *m->words);
    if (!m->words) {
        snprintf(err, errn, "out of memory");
        return -1;
    }
    memcpy(m->words, words, n_words * sizeof *words);
    reader r = {m, 0, 5, 0};
    spv_context ctx = spvContextCreate(SPV_ENV_VULKAN_1_2);
    spv_diagnostic d = NULL;
    spv_result_t rc = spvBinaryParse(ctx, &r, m->words, n_words, on_header, on_inst, &d);
    if (rc != SPV_SUCCESS) {
        snprintf(err, errn, "the module cannot be parsed: %s", d && d->error ? d->error : "SPIRV-Tools parse error");
        spvDiagnosticDestroy(d);
        spvContextDestroy(ctx);
        spa_module_free(m);
        return -1;
    }
    spvDiagnosticDestroy(d);
    spvContextDestroy(ctx);
    if (alloc_tables(m)) {
        snprintf(err, errn, "out of memory");
        spa_module_free(m);
        return -1;
    }
    if (index_module(m, err, errn)) {
        spa_module_free(m);
        return -1;
    }
    return 0;
}

void spa_module_free(spa_module *m)
{
    free(m->words), free(m->inst), free(m->types), free(m->def), free(m->label), free(m->no_contraction);
    free(m->spec_id), free(m->fp_rounding), free(m->var_kind), free(m->globals), free(m->observed);
    memset(m, 0, sizeof *m);
}

/* GLSL.std.450's instruction names, by number (the enumeration's order). */
static const char *const glsl_names[] = {
    "Bad", "Round", "RoundEven", "Trunc", "FAbs", "SAbs", "FSign", "SSign", "Floor", "Ceil", "Fract", "Radians",
    "Degrees", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Tanh", "Asinh", "Acosh", "Atanh",
    "Atan2", "Pow", "Exp", "Log", "Exp2", "Log2", "Sqrt", "InverseSqrt", "Determinant", "MatrixInverse", "Modf",
    "ModfStruct", "FMin", "UMin", "SMin", "FMax", "UMax", "SMax", "FClamp", "UClamp", "SClamp", "FMix", "IMix",
    "Step", "SmoothStep", "Fma", "Frexp", "FrexpStruct", "Ldexp", "PackSnorm4x8", "PackUnorm4x8", "PackSnorm2x16",
    "PackUnorm2x16", "PackHalf2x16", "PackDouble2x32", "UnpackSnorm2x16", "UnpackUnorm2x16", "UnpackHalf2x16",
    "UnpackSnorm4x8", "UnpackUnorm4x8", "UnpackDouble2x32", "Length", "Distance", "Cross", "Normalize",
    "FaceForward", "Reflect", "Refract", "FindILsb", "FindSMsb", "FindUMsb", "InterpolateAtCentroid",
    "InterpolateAtSample", "InterpolateAtOffset", "NMin", "NMax", "NClamp",
};

void spa_inst_name(const spa_module *m, const spa_inst *in, char *buf, size_t n)
{
    if (in->opcode == SpvOpExtInst && in->n_words > 4 && in->w[3] == m->glsl_set && m->glsl_set) {
        unsigned k = in->w[4];
        if (k < sizeof glsl_names / sizeof *glsl_names)
            snprintf(buf, n, "GLSL.std.450 %s", glsl_names[k]);
        else
            snprintf(buf, n, "GLSL.std.450 #%u", k);
        return;
    }
    snprintf(buf, n, "Op%s", spvOpcodeString(in->opcode));
}
