/* The builder's sections of words and id bookkeeping. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/spirv.h>
#include "builder.h"

/* A growing array of words: one section of the module.  Each word's kind
 * is kept beside it ('r' a result id, 'i' another id, 'l' a literal or
 * the opcode word) for the numbering at the end (sb_module_words). */
typedef struct {
    uint32_t *w;
    char *kind;
    size_t len, cap;
} word_list;

static void out_of_memory(void)
{
    fputs("tiefuzz: out of memory\n", stderr);
    exit(4);
}

/* Append one instruction: op, then n words of the kinds given ("ril"). */
static void emit(word_list *l, uint32_t op, const uint32_t *w, const char *kinds, unsigned n)
{
    if (l->len + n + 1 > l->cap) {
        l->cap = (l->len + n + 1) * 2 + 64;
        l->w = realloc(l->w, l->cap * sizeof *l->w);
        l->kind = realloc(l->kind, l->cap);
        if (!l->w || !l->kind)
            out_of_memory();
    }
    l->w[l->len] = (n + 1) << 16 | op;
    l->kind[l->len] = 'l';
    memcpy(l->w + l->len + 1, w, n * sizeof *w);
    memcpy(l->kind + l->len + 1, kinds, n);
    l->len += n + 1;
}

/* The opcodes the lowerings and the scaffold write, by their assembly
 * names.  The names and numbers both come from the SPIR-V headers (OP(x)
 * is "Opx" and SpvOpx), so a row cannot pair a name with another's number. */
typedef struct {
    const char *name;
    uint32_t value;
} named;

#define OP(x) {"Op" #x, SpvOp##x}
static named opcodes[] = {
    OP(AccessChain), OP(Bitcast), OP(BitwiseAnd), OP(BitwiseOr), OP(BitwiseXor), OP(Branch),
    OP(BranchConditional), OP(Capability), OP(CompositeConstruct), OP(CompositeExtract), OP(Constant),
    OP(ConstantFalse), OP(ConstantTrue), OP(Decorate), OP(EntryPoint), OP(ExecutionMode), OP(ExtInst),
    OP(ExtInstImport), OP(FAdd), OP(FConvert), OP(FMul), OP(FOrdNotEqual), OP(FSub), OP(Function),
    OP(FunctionEnd), OP(IAdd), OP(IEqual), OP(IMul), OP(INotEqual), OP(ISub), OP(Label), OP(Load),
    OP(LogicalAnd), OP(LogicalNot), OP(LogicalOr), OP(MemberDecorate), OP(MemoryModel), OP(Not), OP(Return),
    OP(SLessThan), OP(Select), OP(SelectionMerge), OP(ShiftLeftLogical), OP(ShiftRightLogical),
    OP(SpecConstant), OP(Store), OP(TypeBool), OP(TypeFloat), OP(TypeFunction), OP(TypeInt), OP(TypePointer),
    OP(TypeRuntimeArray), OP(TypeStruct), OP(TypeVector), OP(TypeVoid), OP(UConvert), OP(UDiv),
    OP(UGreaterThan), OP(UGreaterThanEqual), OP(ULessThan), OP(UMod), OP(Variable),
};
#undef OP

/* GLSL.std.450's instructions the lowerings call (sb_glsl). */
#define GLSL(x) {#x, GLSLstd450##x}
static named glsl_instructions[] = {GLSL(Fma), GLSL(FindUMsb)};
#undef GLSL

/* A lowering's mistake (a tiefuzz bug), which the tests building every
 * op's modules meet first. */
static void bad_instruction(const char *fmt, const char *why, const char *token, size_t len)
{
    fprintf(stderr, "tiefuzz: SPIR-V builder: \"%s\": %s '%.*s' (a tiefuzz bug)\n", fmt, why, (int)len, token);
    exit(4);
}

static int by_name(const void *a, const void *b) { return strcmp(((const named *)a)->name, ((const named *)b)->name); }

static pthread_once_t sorted_once = PTHREAD_ONCE_INIT;
static void sort_tables(void)
{
    qsort(opcodes, sizeof opcodes / sizeof *opcodes, sizeof *opcodes, by_name);
    qsort(glsl_instructions, sizeof glsl_instructions / sizeof *glsl_instructions, sizeof *glsl_instructions,
          by_name);
}

static uint32_t lookup_name(const named *table, size_t n, const char *name, size_t len, const char *fmt)
{
    char key[48];
    if (len < sizeof key) {
        memcpy(key, name, len);
        key[len] = 0;
        const named *hit = bsearch(&(named){key, 0}, table, n, sizeof *table, by_name);
        if (hit)
            return hit->value;
    }
    bad_instruction(fmt, "no row in the builder's table for", name, len);
    return 0;
}

/* Ops with a result id but no result type: the types, labels and imports
 * (every other op the builder writes with a result has a type). */
static bool untyped_result(uint32_t op)
{
    return op == SpvOpLabel || op == SpvOpExtInstImport || (op >= SpvOpTypeVoid && op <= SpvOpTypeForwardPointer);
}

#define MAX_WORDS 64

/* Encode one instruction written as its assembly: "[$ =] OpName operand..."
 * where an operand is $ (an id from the arguments), # (a number from the
 * arguments) or a decimal number.  type is the result type sb_op supplies
 * (0: none, or as the text's first operand).  Enumerants come as numbers
 * from the SPIR-V headers: their names repeat across kinds. */
static void encode(word_list *l, unsigned result, unsigned type, const char *fmt, va_list ap)
{
    pthread_once(&sorted_once, sort_tables);
    uint32_t w[MAX_WORDS], operands[MAX_WORDS];
    char kinds[MAX_WORDS], operand_kinds[MAX_WORDS];
    unsigned n = 0;
    const char *p = fmt;
    if (p[0] == '$' && p[1] == ' ' && p[2] == '=') {
        result = va_arg(ap, unsigned);
        p += 3;
    }
    p += strspn(p, " ");
    size_t len = strcspn(p, " ");
    uint32_t op = lookup_name(opcodes, sizeof opcodes / sizeof *opcodes, p, len, fmt);
    for (p += len; *p; p += len) {
        p += strspn(p, " ");
        if (!*p)
            break;
        len = strcspn(p, " ");
        if (n == MAX_WORDS - 2)
            bad_instruction(fmt, "too many operands at", p, len);
        if (len == 1 && (*p == '$' || *p == '#')) {
            operand_kinds[n] = *p == '$' ? 'i' : 'l';
            operands[n++] = va_arg(ap, unsigned);
        } else if (*p >= '0' && *p <= '9') {
            operand_kinds[n] = 'l';
            operands[n++] = (uint32_t)strtoul(p, NULL, 10);
        } else {
            bad_instruction(fmt, "not $, # or a number:", p, len);
        }
    }
    unsigned k = 0, from = 0;
    if (result && !type && !untyped_result(op) && n)
        type = operands[from++];  /* "$ = OpLoad $type $ptr" */
    if (type) {
        kinds[k] = 'i';
        w[k++] = type;
    }
    if (result) {
        kinds[k] = 'r';
        w[k++] = result;
    }
    for (unsigned i = from; i < n; i++) {
        kinds[k] = operand_kinds[i];
        w[k++] = operands[i];
    }
    emit(l, op, w, kinds, k);
}

#define MAX_CONSTS 256
typedef struct {
    sb_type t;
    uint64_t v;
    unsigned id;
} sb_constant;

struct spv_builder {
    unsigned next_id;
    unsigned type[T_TYPE_COUNT];
    word_list preamble, decorations, globals, body;
    sb_constant consts[MAX_CONSTS];
    unsigned n_consts;
    unsigned float_widths;
    bool int64;
};

spv_builder *sb_create(void)
{
    spv_builder *b = calloc(1, sizeof *b);
    if (!b)
        out_of_memory();
    b->next_id = 100;  /* ids below 100 are the scaffold's fixed names */
    return b;
}

void sb_destroy(spv_builder *b)
{
    if (!b)
        return;
    word_list *parts[] = {&b->preamble, &b->decorations, &b->globals, &b->body};
    for (int i = 0; i < 4; i++) {
        free(parts[i]->w);
        free(parts[i]->kind);
    }
    free(b);
}

unsigned sb_fresh(spv_builder *b) { return b->next_id++; }

/* A type declaration: its opcode and the operands after the result id. */
static unsigned declare_type(spv_builder *b, uint32_t op, const uint32_t *operands, unsigned n)
{
    uint32_t w[4];
    unsigned id = sb_fresh(b);
    w[0] = id;
    if (n)
        memcpy(w + 1, operands, n * sizeof *w);
    /* A vector's first operand is its component type's id. */
    emit(&b->globals, op, w, op == SpvOpTypeVector ? "ril" : "rll", n + 1);
    return id;
}

unsigned sb_type_id(spv_builder *b, sb_type t)
{
    if (b->type[t])
        return b->type[t];
    unsigned id = 0;
    switch (t) {
    case T_VOID: id = declare_type(b, SpvOpTypeVoid, NULL, 0); break;
    case T_BOOL: id = declare_type(b, SpvOpTypeBool, NULL, 0); break;
    case T_U32: id = declare_type(b, SpvOpTypeInt, (uint32_t[]){32, 0}, 2); break;
    case T_I32: id = declare_type(b, SpvOpTypeInt, (uint32_t[]){32, 1}, 2); break;
    case T_U64: id = declare_type(b, SpvOpTypeInt, (uint32_t[]){64, 0}, 2); b->int64 = true; break;
    case T_F16: id = declare_type(b, SpvOpTypeFloat, (uint32_t[]){16}, 1); break;
    case T_F32: id = declare_type(b, SpvOpTypeFloat, (uint32_t[]){32}, 1); break;
    case T_F64: id = declare_type(b, SpvOpTypeFloat, (uint32_t[]){64}, 1); break;
    case T_V2U32: id = declare_type(b, SpvOpTypeVector, (uint32_t[]){sb_type_id(b, T_U32), 2}, 2); break;
    case T_V2F16: id = declare_type(b, SpvOpTypeVector, (uint32_t[]){sb_type_id(b, T_F16), 2}, 2); break;
    case T_TYPE_COUNT: break;
    }
    if (t == T_F16 || t == T_V2F16)
        b->float_widths |= 1;
    if (t == T_F32)
        b->float_widths |= 2;
    if (t == T_F64)
        b->float_widths |= 4;
    return b->type[t] = id;
}

/* The id of a constant of type t whose bits are v (64-bit types take two
 * words, low first), declared once. */
static unsigned constant(spv_builder *b, sb_type t, uint64_t v)
{
    for (unsigned i = 0; i < b->n_consts; i++)
        if (b->consts[i].t == t && b->consts[i].v == v)
            return b->consts[i].id;
    unsigned ty = sb_type_id(b, t);
    unsigned id = sb_fresh(b);
    if (t == T_BOOL) {
        emit(&b->globals, v ? SpvOpConstantTrue : SpvOpConstantFalse, (uint32_t[]){ty, id}, "ir", 2);
    } else {
        bool wide = t == T_U64 || t == T_F64;
        uint32_t w[4] = {ty, id, (uint32_t)v, (uint32_t)(v >> 32)};
        emit(&b->globals, SpvOpConstant, w, "irll", wide ? 4 : 3);
    }
    if (b->n_consts < MAX_CONSTS)
        b->consts[b->n_consts++] = (sb_constant){t, v, id};
    return id;
}

unsigned sb_u32(spv_builder *b, uint32_t v) { return constant(b, T_U32, v); }
unsigned sb_i32(spv_builder *b, int32_t v) { return constant(b, T_I32, (uint32_t)v); }
/* Keys of different types never collide: the type is part of the key. */
unsigned sb_u64(spv_builder *b, uint64_t v) { return constant(b, T_U64, v); }
unsigned sb_bool(spv_builder *b, bool v) { return constant(b, T_BOOL, v); }

unsigned sb_f64(spv_builder *b, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return constant(b, T_F64, bits);
}

unsigned sb_spec_u32(spv_builder *b, unsigned spec_id, uint32_t default_value)
{
    unsigned ty = sb_type_id(b, T_U32);
    unsigned id = sb_fresh(b);
    emit(&b->globals, SpvOpSpecConstant, (uint32_t[]){ty, id, default_value}, "irl", 3);
    emit(&b->decorations, SpvOpDecorate, (uint32_t[]){id, SpvDecorationSpecId, spec_id}, "ill", 3);
    return id;
}

unsigned sb_op(spv_builder *b, sb_type result, const char *fmt, ...)
{
    unsigned ty = sb_type_id(b, result);
    unsigned id = sb_fresh(b);
    va_list ap;
    va_start(ap, fmt);
    encode(&b->body, id, ty, fmt, ap);
    va_end(ap);
    return id;
}

/* sb_stmt, sb_decoration, sb_global, sb_preamble: an instruction in one section. */
#define SECTION_WRITER(name, section)                    \
    void name(spv_builder *b, const char *fmt, ...)      \
    {                                                    \
        va_list ap;                                      \
        va_start(ap, fmt);                               \
        encode(&b->section, 0, 0, fmt, ap);              \
        va_end(ap);                                      \
    }
SECTION_WRITER(sb_stmt, body)
SECTION_WRITER(sb_decoration, decorations)
SECTION_WRITER(sb_global, globals)
SECTION_WRITER(sb_preamble, preamble)
#undef SECTION_WRITER

void sb_preamble_named(spv_builder *b, uint32_t op, const uint32_t *before, const char *before_kinds,
                       const char *name, const uint32_t *after, const char *after_kinds)
{
    /* A literal string: its bytes, nul-terminated, padded to whole words. */
    uint32_t w[MAX_WORDS] = {0};
    char kinds[MAX_WORDS];
    size_t n_before = strlen(before_kinds), n_after = strlen(after_kinds);
    size_t bytes = strlen(name) + 1, name_words = (bytes + 3) / 4;
    if (n_before + name_words + n_after > MAX_WORDS) {
        fprintf(stderr, "tiefuzz: SPIR-V builder: \"%s\" too long (a tiefuzz bug)\n", name);
        exit(4);
    }
    if (n_before)
        memcpy(w, before, n_before * sizeof *w);
    memcpy((char *)(w + n_before), name, bytes);  /* SPIR-V strings are little-endian, as this host */
    if (n_after)
        memcpy(w + n_before + name_words, after, n_after * sizeof *w);
    memcpy(kinds, before_kinds, n_before);
    memset(kinds + n_before, 'l', name_words);
    memcpy(kinds + n_before + name_words, after_kinds, n_after);
    emit(&b->preamble, op, w, kinds, (unsigned)(n_before + name_words + n_after));
}

void sb_label(spv_builder *b, unsigned id) { emit(&b->body, SpvOpLabel, &id, "r", 1); }

unsigned sb_glsl(spv_builder *b, sb_type result, const char *fmt, ...)
{
    pthread_once(&sorted_once, sort_tables);
    unsigned ty = sb_type_id(b, result);
    unsigned id = sb_fresh(b);
    size_t len = strcspn(fmt, " ");
    uint32_t w[8] = {ty, id, SB_ID_GLSL,
                     lookup_name(glsl_instructions, sizeof glsl_instructions / sizeof *glsl_instructions, fmt, len,
                                 fmt)};
    char kinds[8] = "iril";
    unsigned n = 4;
    va_list ap;
    va_start(ap, fmt);
    for (const char *p = fmt + len; *p; p += len) {
        p += strspn(p, " ");
        if (!*p)
            break;
        len = strcspn(p, " ");
        if (len != 1 || *p != '$')
            bad_instruction(fmt, "not $:", p, len);
        if (n == 8)
            bad_instruction(fmt, "too many operands at", p, len);
        kinds[n] = 'i';
        w[n++] = va_arg(ap, unsigned);
    }
    va_end(ap);
    emit(&b->body, SpvOpExtInst, w, kinds, n);
    return id;
}

void sb_no_contraction(spv_builder *b, unsigned id)
{
    emit(&b->decorations, SpvOpDecorate, (uint32_t[]){id, SpvDecorationNoContraction}, "il", 2);
}

/* Ids numbered 1, 2, ... in the order they first appear when the module
 * is read as assembly (an instruction's result before its type and
 * operands): how SPIRV-Tools' assembler numbers them, so the module's
 * disassembly assembles back to these very words (test `builder`). */
static unsigned renumber(uint32_t *w, const char *kind, size_t n, unsigned *map, unsigned next)
{
    for (size_t at = 0; at < n; at += w[at] >> 16) {
        size_t end = at + (w[at] >> 16);
        for (int pass = 0; pass < 2; pass++)  /* results first */
            for (size_t i = at + 1; i < end; i++)
                if (kind[i] == (pass ? 'i' : 'r')) {
                    if (!map[w[i]])
                        map[w[i]] = next++;
                    w[i] = map[w[i]];
                }
    }
    return next;
}

uint32_t *sb_module_words(const spv_builder *b, size_t *count)
{
    const word_list *parts[] = {&b->preamble, &b->decorations, &b->globals, &b->body};
    size_t n = 5;
    for (int i = 0; i < 4; i++)
        n += parts[i]->len;
    uint32_t *w = malloc(n * sizeof *w);
    char *kind = malloc(n);
    unsigned *map = calloc(b->next_id, sizeof *map);
    if (!w || !kind || !map) {
        free(w);
        free(kind);
        free(map);
        return NULL;
    }
    size_t at = 5;
    for (int i = 0; i < 4; i++) {
        if (parts[i]->len) {
            memcpy(w + at, parts[i]->w, parts[i]->len * sizeof *w);
            memcpy(kind + at, parts[i]->kind, parts[i]->len);
        }
        at += parts[i]->len;
    }
    unsigned bound = renumber(w + 5, kind + 5, n - 5, map, 1);
    /* The header: SPIR-V 1.5 (what Vulkan 1.2 takes), the generator word
     * SPIRV-Tools' assembler writes (as the modules had when they were
     * assembled from text), the id bound, schema 0. */
    uint32_t head[5] = {SpvMagicNumber, 0x00010500, SB_GENERATOR, bound, 0};
    memcpy(w, head, sizeof head);
    free(kind);
    free(map);
    *count = n;
    return w;
}

unsigned sb_float_widths(const spv_builder *b) { return b->float_widths; }
bool sb_uses_int64(const spv_builder *b) { return b->int64; }

unsigned sb_bitcast(spv_builder *b, sb_type t, unsigned x) { return sb_op(b, t, "OpBitcast $", x); }
unsigned sb_select(spv_builder *b, sb_type t, unsigned c, unsigned x, unsigned y)
{
    return sb_op(b, t, "OpSelect $ $ $", c, x, y);
}
unsigned sb_and(spv_builder *b, unsigned x, uint32_t m) { return sb_op(b, T_U32, "OpBitwiseAnd $ $", x, sb_u32(b, m)); }
unsigned sb_shr(spv_builder *b, unsigned x, unsigned n)
{
    return n ? sb_op(b, T_U32, "OpShiftRightLogical $ $", x, sb_u32(b, n)) : x;
}
unsigned sb_shl(spv_builder *b, unsigned x, unsigned n)
{
    return n ? sb_op(b, T_U32, "OpShiftLeftLogical $ $", x, sb_u32(b, n)) : x;
}
unsigned sb_ieq(spv_builder *b, unsigned x, uint32_t k) { return sb_op(b, T_BOOL, "OpIEqual $ $", x, sb_u32(b, k)); }
unsigned sb_ult(spv_builder *b, unsigned x, uint32_t k) { return sb_op(b, T_BOOL, "OpULessThan $ $", x, sb_u32(b, k)); }
unsigned sb_ugt(spv_builder *b, unsigned x, uint32_t k)
{
    return sb_op(b, T_BOOL, "OpUGreaterThan $ $", x, sb_u32(b, k));
}
