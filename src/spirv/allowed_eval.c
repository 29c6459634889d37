/* spirv/allowed: the exact instructions (integer, logical, bit,
 * composite, GLSL.std.450 integer functions) and the dispatch of every
 * instruction with a result. */
#include <stdio.h>
#include <string.h>
#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/spirv.h>
#include "allowed_internal.h"

/* ---- Integer, logical and bit operations: exact ---- */

static uint64_t spa_sext(uint64_t x, unsigned w) { return w >= 64 || !((x >> (w - 1)) & 1) ? x : x | ~spa_mask_of(w); }

static int find_msb_lsb(uint64_t x, unsigned w, int which)
{
    x &= spa_mask_of(w);
    if (which == 0)   /* FindILsb */
        return x ? __builtin_ctzll(x) : -1;
    if (which == 2 && ((x >> (w - 1)) & 1))   /* FindSMsb of a negative: its complement's */
        x = ~x & spa_mask_of(w);
    return x ? 63 - __builtin_clzll(x) : -1;
}

/* One component of an integer binary operation; -1 with why for the cases
 * the rules leave undefined. */
static int int_binary(unsigned op, unsigned w, bool s, uint64_t a, uint64_t b, uint64_t *out, const char **why)
{
    uint64_t m = spa_mask_of(w);
    a &= m, b &= m;
    int64_t sa = (int64_t)spa_sext(a, w), sb = (int64_t)spa_sext(b, w);
    (void)s;
    switch (op) {
    case SpvOpIAdd: *out = a + b; break;
    case SpvOpISub: *out = a - b; break;
    case SpvOpIMul: *out = a * b; break;
    case SpvOpUDiv: case SpvOpUMod:
        if (!b)
            return *why = "division by zero (undefined)", -1;
        *out = op == SpvOpUDiv ? a / b : a % b;
        break;
    case SpvOpSDiv: case SpvOpSRem: case SpvOpSMod:
        if (!b || (sb == -1 && a == (1ull << (w - 1))))
            return *why = "division by zero or overflow (undefined)", -1;
        if (op != SpvOpSDiv && (sa < 0 || sb < 0))
            return *why = "a negative operand (undefined in Vulkan)", -1;
        *out = (uint64_t)(op == SpvOpSDiv ? sa / sb : sa % sb);
        break;
    case SpvOpShiftLeftLogical: case SpvOpShiftRightLogical: case SpvOpShiftRightArithmetic:
        if (b >= w)
            return *why = "a shift by the width or more (undefined)", -1;
        *out = op == SpvOpShiftLeftLogical ? a << b : op == SpvOpShiftRightLogical ? a >> b : (uint64_t)(sa >> b);
        break;
    case SpvOpBitwiseAnd: case SpvOpLogicalAnd: *out = a & b; break;
    case SpvOpBitwiseOr: case SpvOpLogicalOr: *out = a | b; break;
    case SpvOpBitwiseXor: case SpvOpLogicalNotEqual: *out = a ^ b; break;
    case SpvOpLogicalEqual: *out = a == b; break;
    case SpvOpIEqual: *out = a == b; break;
    case SpvOpINotEqual: *out = a != b; break;
    case SpvOpUGreaterThan: *out = a > b; break;
    case SpvOpUGreaterThanEqual: *out = a >= b; break;
    case SpvOpULessThan: *out = a < b; break;
    case SpvOpULessThanEqual: *out = a <= b; break;
    case SpvOpSGreaterThan: *out = sa > sb; break;
    case SpvOpSGreaterThanEqual: *out = sa >= sb; break;
    case SpvOpSLessThan: *out = sa < sb; break;
    case SpvOpSLessThanEqual: *out = sa <= sb; break;
    default: return *why = NULL, -1;
    }
    return 0;
}

static bool is_comparison(unsigned op)
{
    return (op >= SpvOpIEqual && op <= SpvOpSLessThanEqual) || op == SpvOpLogicalEqual ||
           op == SpvOpLogicalNotEqual;
}

static int integer_binary(spa_run *r, const spa_inst *in, unsigned op, unsigned type, unsigned rid,
                          const uint32_t *ops)
{
    const spa_val *a = spa_get(r, in, ops[0]), *b = a ? spa_get(r, in, ops[1]) : NULL;
    if (!b)
        return -1;
    spa_val settled_a, settled_b;
    a = spa_settle(r, a, &settled_a);
    b = spa_settle(r, b, &settled_b);
    unsigned n;
    const spa_type *t = spa_scalar_of(r, type, &n);
    /* Comparisons compute in the operands' width, shifts in the base's. */
    const spa_type *s = spa_scalar_of(r, spa_type_id_of(r, ops[0]), &n);
    if ((s->kind != TK_INT && s->kind != TK_BOOL) || n > SPA_MAXC || a->n != n)
        return spa_fail_at(r, in, "type not modelled");
    if (spa_tainted(a) || spa_tainted(b))
        r->approximate |= SPA_NAN_PAYLOAD;
    spa_val res = spa_value_of(n, 0);
    for (unsigned i = 0; i < n; i++) {
        const char *why = NULL;
        unsigned bit = 1u << i, bbit = b->n == 1 ? 1u : bit;
        if ((a->undef & bit) || (b->undef & bbit)) {
            res.undef |= (uint8_t)bit;
            continue;
        }
        uint64_t bi = b->n == 1 ? b->c[0] : b->c[i];
        if (int_binary(op, s->width, s->is_signed, a->c[i], bi, &res.c[i], &why)) {
            if (!why)
                return spa_fail_at(r, in, NULL);
            spa_note_undef(r, in, why);
            res.undef |= (uint8_t)bit;
            res.c[i] = 0;
            continue;
        }
        res.c[i] &= is_comparison(op) ? 1 : spa_mask_of(t->width);
    }
    r->vals[rid] = res;
    return 0;
}

static int integer_unary(spa_run *r, const spa_inst *in, unsigned op, unsigned type, unsigned rid,
                         const uint32_t *ops)
{
    const spa_val *a = spa_get(r, in, ops[0]);
    if (!a)
        return -1;
    unsigned n, n_from;
    const spa_type *t = spa_scalar_of(r, type, &n);
    const spa_type *s = spa_scalar_of(r, spa_type_id_of(r, ops[0]), &n_from);
    if (n > SPA_MAXC || n != a->n)
        return spa_fail_at(r, in, "type not modelled");
    bool transparent = op == SpvOpUConvert && t->width >= s->width;   /* zero extension keeps lanes */
    spa_val settled;
    if (!transparent)
        a = spa_settle(r, a, &settled);
    if (spa_tainted(a) && !transparent)
        r->approximate |= SPA_NAN_PAYLOAD;
    spa_val res = spa_value_of(n, a->undef);
    for (unsigned i = 0; i < n; i++) {
        uint64_t x = a->c[i] & spa_mask_of(s->width);
        switch (op) {
        case SpvOpUConvert:
            res.c[i] = x;
            res.nan[i] = t->width >= s->width ? a->nan[i] : a->nan[i] & (uint16_t)((1u << (3 * (t->width / 16))) - 1);
            res.open[i] = a->open[i];
            res.open_from[i] = a->open_from[i];
            break;
        case SpvOpSConvert: res.c[i] = spa_sext(x, s->width); break;
        case SpvOpSNegate: res.c[i] = ~x + 1; break;
        case SpvOpNot: res.c[i] = ~x; break;
        case SpvOpLogicalNot: res.c[i] = !x; break;
        case SpvOpBitCount: res.c[i] = (uint64_t)__builtin_popcountll(x); break;
        default: return spa_fail_at(r, in, NULL);
        }
        res.c[i] &= spa_mask_of(t->width);
    }
    r->vals[rid] = res;
    return 0;
}

/* ---- Bit reinterpretation and composites (no liberty, NaN lanes kept) ---- */

static unsigned comp_width(const spa_type *t) { return t->kind == TK_BOOL ? 1 : t->width; }

static int bitcast(spa_run *r, const spa_inst *in, unsigned type, unsigned rid, const uint32_t *ops)
{
    const spa_val *a = spa_get(r, in, ops[0]);
    if (!a)
        return -1;
    unsigned n, n_from;
    const spa_type *t = spa_scalar_of(r, type, &n), *s = spa_scalar_of(r, spa_type_id_of(r, ops[0]), &n_from);
    unsigned wt = comp_width(t), ws = comp_width(s);
    if (wt % 16 || ws % 16 || n > SPA_MAXC || n_from > SPA_MAXC || n * wt != n_from * ws)
        return spa_fail_at(r, in, "type not modelled");
    /* Open fields are settled before a narrower shape would cut them. */
    spa_val settled;
    if (wt < ws)
        a = spa_settle(r, a, &settled);
    /* Through 16-bit lanes: data, NaN and open codes. */
    uint16_t lane[16], code[16], open[16];
    unsigned from[16];
    unsigned k = 0;
    for (unsigned i = 0; i < n_from; i++)
        for (unsigned l = 0; l < ws / 16; l++, k++) {
            lane[k] = (uint16_t)(a->c[i] >> (16 * l));
            code[k] = (a->nan[i] >> (3 * l)) & 7;
            open[k] = (a->open[i] >> (3 * l)) & 7;
            from[k] = a->open_from[i];
        }
    spa_val *v = spa_result_slot(r, rid, n);
    /* Undefined components: the same ones when the shapes match, else all. */
    v->undef = a->undef ? (n == n_from ? a->undef : (uint8_t)((1u << n) - 1)) : 0;
    k = 0;
    for (unsigned i = 0; i < n; i++)
        for (unsigned l = 0; l < wt / 16; l++, k++) {
            v->c[i] |= (uint64_t)lane[k] << (16 * l);
            v->nan[i] |= (uint16_t)(code[k] << (3 * l));
            v->open[i] |= (uint16_t)(open[k] << (3 * l));
            if (open[k] && !v->open_from[i])
                v->open_from[i] = from[k];
        }
    return 0;
}

int spa_composite_construct(spa_run *r, const spa_inst *in, unsigned type, unsigned rid, const uint32_t *ops,
                               unsigned nops)
{
    unsigned n;
    spa_scalar_of(r, type, &n);
    if (n > SPA_MAXC)
        return spa_fail_at(r, in, "type not modelled");
    spa_val res;
    memset(&res, 0, sizeof res);
    res.state = V_VALUE;
    for (unsigned j = 0; j < nops; j++) {
        const spa_val *a = spa_get(r, in, ops[j]);
        if (!a)
            return -1;
        for (unsigned i = 0; i < a->n; i++) {
            if (res.n == SPA_MAXC)
                return spa_fail_at(r, in, "type not modelled");
            res.nan[res.n] = a->nan[i];
            res.open[res.n] = a->open[i];
            res.open_from[res.n] = a->open_from[i];
            if (a->undef & (1u << i))
                res.undef |= (uint8_t)(1u << res.n);
            res.c[res.n++] = a->c[i];
        }
    }
    r->vals[rid] = res;
    return 0;
}

static int composite_extract(spa_run *r, const spa_inst *in, unsigned rid, const uint32_t *ops, unsigned nops)
{
    const spa_val *a = spa_get(r, in, ops[0]);
    if (!a)
        return -1;
    if (nops != 2 || ops[1] >= a->n)
        return spa_fail_at(r, in, "composite not modelled");
    spa_val *v = spa_result_slot(r, rid, 1);
    v->c[0] = a->c[ops[1]];
    v->nan[0] = a->nan[ops[1]];
    v->open[0] = a->open[ops[1]];
    v->open_from[0] = a->open_from[ops[1]];
    v->undef = (a->undef >> ops[1]) & 1;
    return 0;
}

static int composite_insert(spa_run *r, const spa_inst *in, unsigned rid, const uint32_t *ops, unsigned nops)
{
    const spa_val *obj = spa_get(r, in, ops[0]), *a = obj ? spa_get(r, in, ops[1]) : NULL;
    if (!a)
        return -1;
    if (nops != 3 || ops[2] >= a->n)
        return spa_fail_at(r, in, "composite not modelled");
    spa_val res = *a;
    memset(res.has_prod, 0, sizeof res.has_prod);
    res.c[ops[2]] = obj->c[0];
    res.nan[ops[2]] = obj->nan[0];
    res.open[ops[2]] = obj->open[0];
    res.open_from[ops[2]] = obj->open_from[0];
    res.undef = (uint8_t)((res.undef & ~(1u << ops[2])) | ((obj->undef & 1u) << ops[2]));
    r->vals[rid] = res;
    return 0;
}

static int vector_shuffle(spa_run *r, const spa_inst *in, unsigned rid, const uint32_t *ops, unsigned nops)
{
    const spa_val *a = spa_get(r, in, ops[0]), *b = a ? spa_get(r, in, ops[1]) : NULL;
    if (!b)
        return -1;
    if (nops - 2 > SPA_MAXC)
        return spa_fail_at(r, in, "type not modelled");
    spa_val *v = spa_result_slot(r, rid, nops - 2);
    for (unsigned i = 0; i + 2 < nops; i++) {
        unsigned k = ops[2 + i];
        const spa_val *src = k < a->n ? a : b;
        unsigned j = k < a->n ? k : k - a->n;
        if (k == 0xffffffffu || j >= src->n)
            return spa_fail_at(r, in, "an undefined component");
        v->c[i] = src->c[j];
        v->nan[i] = src->nan[j];
        v->open[i] = src->open[j];
        v->open_from[i] = src->open_from[j];
        v->undef |= (uint8_t)(((src->undef >> j) & 1u) << i);
    }
    return 0;
}

static int select_op(spa_run *r, const spa_inst *in, unsigned rid, const uint32_t *ops)
{
    const spa_val *c = spa_get(r, in, ops[0]), *x = c ? spa_get(r, in, ops[1]) : NULL, *y = x ? spa_get(r, in, ops[2]) : NULL;
    if (!y)
        return -1;
    spa_val res = *x;
    memset(res.has_prod, 0, sizeof res.has_prod);
    res.undef = 0;
    for (unsigned i = 0; i < res.n; i++) {
        unsigned ci = c->n == 1 ? 0 : i;
        bool pick_x = c->c[ci];
        const spa_val *src = pick_x ? x : y;
        res.c[i] = src->c[i];
        res.nan[i] = src->nan[i];
        res.open[i] = src->open[i];
        res.open_from[i] = src->open_from[i];
        if (((c->undef >> ci) & 1) || ((src->undef >> i) & 1))
            res.undef |= (uint8_t)(1u << i);
    }
    r->vals[rid] = res;
    return 0;
}

/* ---- GLSL.std.450 ---- */

static int glsl(spa_run *r, const spa_inst *in, unsigned type, unsigned rid, const uint32_t *ops, unsigned nops)
{
    unsigned k = ops[1];
    ops += 2, nops -= 2;
    if (k == GLSLstd450Fma && nops == 3)
        return spa_op_float_arith(r, in, SPA_F_FMA, type, rid, ops, 3);
    if (k == GLSLstd450FAbs && nops == 1)
        return spa_op_float_arith(r, in, SPA_F_ABS, type, rid, ops, 1);
    bool minmax = k == GLSLstd450UMin || k == GLSLstd450UMax || k == GLSLstd450SMin || k == GLSLstd450SMax;
    bool bits = k == GLSLstd450FindUMsb || k == GLSLstd450FindSMsb || k == GLSLstd450FindILsb || k == GLSLstd450SAbs;
    if (!(minmax && nops == 2) && !(bits && nops == 1))
        return spa_fail_at(r, in, NULL);
    const spa_val *a = spa_get(r, in, ops[0]), *b = minmax && a ? spa_get(r, in, ops[1]) : a;
    if (!b)
        return -1;
    spa_val settled_a, settled_b;
    a = spa_settle(r, a, &settled_a);
    b = minmax ? spa_settle(r, b, &settled_b) : a;
    unsigned n;
    const spa_type *s = spa_scalar_of(r, spa_type_id_of(r, ops[0]), &n);
    if (s->kind != TK_INT || n > SPA_MAXC)
        return spa_fail_at(r, in, "type not modelled");
    if (spa_tainted(a) || spa_tainted(b))
        r->approximate |= SPA_NAN_PAYLOAD;
    unsigned w = s->width;
    spa_val *v = spa_result_slot(r, rid, n);
    v->undef = a->undef | b->undef;
    for (unsigned i = 0; i < n; i++) {
        uint64_t x = a->c[i] & spa_mask_of(w), y = b->c[i] & spa_mask_of(w);
        int64_t sx = (int64_t)spa_sext(x, w), sy = (int64_t)spa_sext(y, w);
        switch (k) {
        case GLSLstd450UMin: v->c[i] = x < y ? x : y; break;
        case GLSLstd450UMax: v->c[i] = x > y ? x : y; break;
        case GLSLstd450SMin: v->c[i] = (uint64_t)(sx < sy ? sx : sy); break;
        case GLSLstd450SMax: v->c[i] = (uint64_t)(sx > sy ? sx : sy); break;
        case GLSLstd450SAbs: v->c[i] = (uint64_t)(sx < 0 ? -sx : sx); break;
        case GLSLstd450FindILsb: v->c[i] = (uint64_t)(int64_t)find_msb_lsb(x, w, 0); break;
        case GLSLstd450FindUMsb: v->c[i] = (uint64_t)(int64_t)find_msb_lsb(x, w, 1); break;
        default: v->c[i] = (uint64_t)(int64_t)find_msb_lsb(x, w, 2); break;
        }
        v->c[i] &= spa_mask_of(w);
    }
    return 0;
}

/* ---- Dispatch ---- */

int spa_eval(spa_run *r, const spa_inst *in, unsigned op, unsigned type, unsigned rid, const uint32_t *ops,
                unsigned nops)
{
    switch (op) {
    case SpvOpFAdd: return spa_op_float_arith(r, in, SPA_F_ADD, type, rid, ops, 2);
    case SpvOpFSub: return spa_op_float_arith(r, in, SPA_F_SUB, type, rid, ops, 2);
    case SpvOpFMul: return spa_op_float_arith(r, in, SPA_F_MUL, type, rid, ops, 2);
    case SpvOpFNegate: return spa_op_float_arith(r, in, SPA_F_NEG, type, rid, ops, 1);
    case SpvOpFConvert: return spa_op_float_convert(r, in, type, rid, ops);
    case SpvOpConvertUToF: return spa_op_int_to_float(r, in, type, rid, ops, false);
    case SpvOpConvertSToF: return spa_op_int_to_float(r, in, type, rid, ops, true);
    case SpvOpFOrdEqual: return spa_op_float_compare(r, in, rid, ops, SPA_CMP_EQ, true);
    case SpvOpFUnordEqual: return spa_op_float_compare(r, in, rid, ops, SPA_CMP_EQ, false);
    case SpvOpFOrdNotEqual: return spa_op_float_compare(r, in, rid, ops, SPA_CMP_NE, true);
    case SpvOpFUnordNotEqual: return spa_op_float_compare(r, in, rid, ops, SPA_CMP_NE, false);
    case SpvOpFOrdLessThan: return spa_op_float_compare(r, in, rid, ops, SPA_CMP_LT, true);
    case SpvOpFUnordLessThan: return spa_op_float_compare(r, in, rid, ops, SPA_CMP_LT, false);
    case SpvOpFOrdGreaterThan: return spa_op_float_compare(r, in, rid, ops, SPA_CMP_GT, true);
    case SpvOpFUnordGreaterThan: return spa_op_float_compare(r, in, rid, ops, SPA_CMP_GT, false);
    case SpvOpFOrdLessThanEqual: return spa_op_float_compare(r, in, rid, ops, SPA_CMP_LE, true);
    case SpvOpFUnordLessThanEqual: return spa_op_float_compare(r, in, rid, ops, SPA_CMP_LE, false);
    case SpvOpFOrdGreaterThanEqual: return spa_op_float_compare(r, in, rid, ops, SPA_CMP_GE, true);
    case SpvOpFUnordGreaterThanEqual: return spa_op_float_compare(r, in, rid, ops, SPA_CMP_GE, false);
    case SpvOpIsNan: return spa_op_float_class(r, in, rid, ops, true);
    case SpvOpIsInf: return spa_op_float_class(r, in, rid, ops, false);
    case SpvOpIAdd: case SpvOpISub: case SpvOpIMul: case SpvOpUDiv: case SpvOpSDiv: case SpvOpUMod: case SpvOpSRem:
    case SpvOpSMod: case SpvOpShiftLeftLogical: case SpvOpShiftRightLogical: case SpvOpShiftRightArithmetic:
    case SpvOpBitwiseAnd: case SpvOpBitwiseOr: case SpvOpBitwiseXor: case SpvOpLogicalAnd: case SpvOpLogicalOr:
    case SpvOpLogicalEqual: case SpvOpLogicalNotEqual: case SpvOpIEqual: case SpvOpINotEqual:
    case SpvOpUGreaterThan: case SpvOpSGreaterThan: case SpvOpUGreaterThanEqual: case SpvOpSGreaterThanEqual:
    case SpvOpULessThan: case SpvOpSLessThan: case SpvOpULessThanEqual: case SpvOpSLessThanEqual:
        return nops == 2 ? integer_binary(r, in, op, type, rid, ops) : spa_fail_at(r, in, NULL);
    case SpvOpUConvert: case SpvOpSConvert: case SpvOpSNegate: case SpvOpNot: case SpvOpLogicalNot:
    case SpvOpBitCount:
        return integer_unary(r, in, op, type, rid, ops);
    case SpvOpBitcast: return bitcast(r, in, type, rid, ops);
    case SpvOpSelect: return select_op(r, in, rid, ops);
    case SpvOpCopyObject: {
        const spa_val *a = spa_get(r, in, ops[0]);
        if (!a)
            return -1;
        r->vals[rid] = *a;
        return 0;
    }
    case SpvOpCompositeConstruct: return spa_composite_construct(r, in, type, rid, ops, nops);
    case SpvOpCompositeExtract: return composite_extract(r, in, rid, ops, nops);
    case SpvOpCompositeInsert: return composite_insert(r, in, rid, ops, nops);
    case SpvOpVectorShuffle: return vector_shuffle(r, in, rid, ops, nops);
    case SpvOpAccessChain: case SpvOpInBoundsAccessChain: return spa_access_chain(r, in, rid, ops, nops);
    case SpvOpExtInst:
        if (!r->m->glsl_set || ops[0] != r->m->glsl_set)
            return spa_fail_at(r, in, "an extended instruction set other than GLSL.std.450");
        return glsl(r, in, type, rid, ops, nops);
    default:
        return spa_fail_at(r, in, NULL);
    }
}
