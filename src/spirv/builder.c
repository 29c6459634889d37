/* The builder's text sections and id bookkeeping. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builder.h"

typedef struct {
    char *s;
    size_t len, cap;
} text;

static void text_add(text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2 + 256;
        t->s = realloc(t->s, t->cap);
        if (!t->s) {
            fputs("tiefuzz: out of memory\n", stderr);
            exit(4);
        }
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = 0;
}

static void text_printf(text *t, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    text_add(t, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* Expand $ (id) and # (number) in fmt. */
static void text_expand(text *t, const char *fmt, va_list ap)
{
    for (const char *p = fmt; *p; p++) {
        if (*p == '$')
            text_printf(t, "%%%u", va_arg(ap, unsigned));
        else if (*p == '#')
            text_printf(t, "%u", va_arg(ap, unsigned));
        else
            text_add(t, p, 1);
    }
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
    text decorations, globals, body;
    sb_constant consts[MAX_CONSTS];
    unsigned n_consts;
    unsigned glsl;
    unsigned float_widths;
    bool int64;
};

spv_builder *sb_create(void)
{
    spv_builder *b = calloc(1, sizeof *b);
    if (!b) {
        fputs("tiefuzz: out of memory\n", stderr);
        exit(4);
    }
    b->next_id = 100;  /* ids below 100 are the scaffold's fixed names */
    return b;
}

void sb_destroy(spv_builder *b)
{
    if (!b)
        return;
    free(b->decorations.s);
    free(b->globals.s);
    free(b->body.s);
    free(b);
}

unsigned sb_fresh(spv_builder *b) { return b->next_id++; }

unsigned sb_type_id(spv_builder *b, sb_type t)
{
    if (b->type[t])
        return b->type[t];
    unsigned id = 0;
    switch (t) {
    case T_VOID: id = sb_fresh(b); text_printf(&b->globals, "%%%u = OpTypeVoid\n", id); break;
    case T_BOOL: id = sb_fresh(b); text_printf(&b->globals, "%%%u = OpTypeBool\n", id); break;
    case T_U32: id = sb_fresh(b); text_printf(&b->globals, "%%%u = OpTypeInt 32 0\n", id); break;
    case T_I32: id = sb_fresh(b); text_printf(&b->globals, "%%%u = OpTypeInt 32 1\n", id); break;
    case T_U64: id = sb_fresh(b); text_printf(&b->globals, "%%%u = OpTypeInt 64 0\n", id); b->int64 = true; break;
    case T_F16: id = sb_fresh(b); text_printf(&b->globals, "%%%u = OpTypeFloat 16\n", id); break;
    case T_F32: id = sb_fresh(b); text_printf(&b->globals, "%%%u = OpTypeFloat 32\n", id); break;
    case T_F64: id = sb_fresh(b); text_printf(&b->globals, "%%%u = OpTypeFloat 64\n", id); break;
    case T_V2U32: {
        unsigned c = sb_type_id(b, T_U32);
        id = sb_fresh(b);
        text_printf(&b->globals, "%%%u = OpTypeVector %%%u 2\n", id, c);
        break;
    }
    case T_V2F16: {
        unsigned c = sb_type_id(b, T_F16);
        id = sb_fresh(b);
        text_printf(&b->globals, "%%%u = OpTypeVector %%%u 2\n", id, c);
        break;
    }
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

static unsigned constant(spv_builder *b, sb_type t, uint64_t key, const char *literal)
{
    for (unsigned i = 0; i < b->n_consts; i++)
        if (b->consts[i].t == t && b->consts[i].v == key)
            return b->consts[i].id;
    unsigned ty = sb_type_id(b, t);
    unsigned id = sb_fresh(b);
    text_printf(&b->globals, "%%%u = OpConstant %%%u %s\n", id, ty, literal);
    if (b->n_consts < MAX_CONSTS)
        b->consts[b->n_consts++] = (sb_constant){t, key, id};
    return id;
}

unsigned sb_u32(spv_builder *b, uint32_t v)
{
    char lit[16];
    snprintf(lit, sizeof lit, "%u", v);
    return constant(b, T_U32, v, lit);
}

unsigned sb_i32(spv_builder *b, int32_t v)
{
    char lit[16];
    snprintf(lit, sizeof lit, "%d", v);
    return constant(b, T_I32, (uint32_t)v, lit);
}

unsigned sb_u64(spv_builder *b, uint64_t v)
{
    char lit[24];
    snprintf(lit, sizeof lit, "%llu", (unsigned long long)v);
    /* Keys of different types never collide: the type is part of the key. */
    return constant(b, T_U64, v, lit);
}

unsigned sb_f64(spv_builder *b, double v)
{
    char lit[40];
    snprintf(lit, sizeof lit, "%a", v);
    uint64_t key;
    memcpy(&key, &v, sizeof key);
    return constant(b, T_F64, key, lit);
}

unsigned sb_bool(spv_builder *b, bool v)
{
    for (unsigned i = 0; i < b->n_consts; i++)
        if (b->consts[i].t == T_BOOL && b->consts[i].v == v)
            return b->consts[i].id;
    unsigned ty = sb_type_id(b, T_BOOL);
    unsigned id = sb_fresh(b);
    text_printf(&b->globals, "%%%u = %s %%%u\n", id, v ? "OpConstantTrue" : "OpConstantFalse", ty);
    if (b->n_consts < MAX_CONSTS)
        b->consts[b->n_consts++] = (sb_constant){T_BOOL, v, id};
    return id;
}

unsigned sb_spec_u32(spv_builder *b, unsigned spec_id, uint32_t default_value)
{
    unsigned ty = sb_type_id(b, T_U32);
    unsigned id = sb_fresh(b);
    text_printf(&b->globals, "%%%u = OpSpecConstant %%%u %u\n", id, ty, default_value);
    text_printf(&b->decorations, "OpDecorate %%%u SpecId %u\n", id, spec_id);
    return id;
}

unsigned sb_op(spv_builder *b, sb_type result, const char *fmt, ...)
{
    unsigned ty = sb_type_id(b, result);
    unsigned id = sb_fresh(b);
    text_printf(&b->body, "%%%u = ", id);
    va_list ap;
    va_start(ap, fmt);
    size_t name_len = strcspn(fmt, " ");
    text_add(&b->body, fmt, name_len);
    text_printf(&b->body, " %%%u", ty);
    text_expand(&b->body, fmt + name_len, ap);
    va_end(ap);
    text_add(&b->body, "\n", 1);
    return id;
}

void sb_stmt(spv_builder *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    text_expand(&b->body, fmt, ap);
    va_end(ap);
    text_add(&b->body, "\n", 1);
}

void sb_decoration(spv_builder *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    text_expand(&b->decorations, fmt, ap);
    va_end(ap);
    text_add(&b->decorations, "\n", 1);
}

void sb_global(spv_builder *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    text_expand(&b->globals, fmt, ap);
    va_end(ap);
    text_add(&b->globals, "\n", 1);
}

void sb_label(spv_builder *b, unsigned id) { text_printf(&b->body, "%%%u = OpLabel\n", id); }

unsigned sb_glsl(spv_builder *b, sb_type result, const char *fmt, ...)
{
    /* %1 is the scaffold's GLSL.std.450 import. */
    unsigned ty = sb_type_id(b, result);
    unsigned id = sb_fresh(b);
    text_printf(&b->body, "%%%u = OpExtInst %%%u %%1 ", id, ty);
    va_list ap;
    va_start(ap, fmt);
    text_expand(&b->body, fmt, ap);
    va_end(ap);
    text_add(&b->body, "\n", 1);
    return id;
}

void sb_no_contraction(spv_builder *b, unsigned id) { sb_decoration(b, "OpDecorate $ NoContraction", id); }

unsigned sb_float_widths(const spv_builder *b) { return b->float_widths; }
bool sb_uses_int64(const spv_builder *b) { return b->int64; }
const char *sb_section_decorations(const spv_builder *b) { return b->decorations.s ? b->decorations.s : ""; }
const char *sb_section_globals(const spv_builder *b) { return b->globals.s ? b->globals.s : ""; }
const char *sb_section_body(const spv_builder *b) { return b->body.s ? b->body.s : ""; }

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
