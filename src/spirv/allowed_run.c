/* spirv/allowed: the interpreter.  One run executes the entry function for
 * one invocation with concrete bit patterns; where the rules give the device
 * a choice, it asks an oracle (a vector of choices).  spa_allowed enumerates
 * the oracle's vectors depth first (re-running from the start for each), so
 * every path is one combination of choices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/spirv.h>
#include "allowed_internal.h"

#define SPA_MAX_PATHS 4096
#define SPA_MAX_STEPS 1000000
#define MAXC 4   /* vector components */

typedef enum { V_UNSET, V_VALUE, V_POINTER } val_state;

typedef struct {
    uint8_t state, n;             /* val_state; components */
    /* Components whose value the rules leave undefined (an OpUndef, a shift
     * by the width or more, a division by zero): harmless until a store, a
     * branch or an address depends on one. */
    uint8_t undef;
    uint16_t nan[MAXC];           /* per component: NaN lane codes, 3 bits per 16-bit lane */
    uint64_t c[MAXC];
    unsigned ptr_var, ptr_n;      /* V_POINTER: the variable and the indices into it */
    uint64_t ptr_idx[2];
    bool has_prod[MAXC];          /* an OpFMul result: its exact product (for contraction) */
    fp_value prod[MAXC];
} spa_val;

typedef struct {
    const spa_module *m;
    const spa_rules *rules;
    spa_fmode mode[3];
    const uint32_t *spec, *in;
    unsigned n_spec, n_in, n_out, invocation;
    spa_val *vals;
    /* The oracle: choices made so far on this path, the first n_prefix given. */
    unsigned *choice, *n_opt, depth, n_prefix, cap;
    /* This path's liberties and outputs. */
    unsigned liberties, n_lib_choices, approximate;
    char where[96];
    unsigned word[SPA_MAX_OUT], n_words;
    uint32_t out[SPA_MAX_OUT];
    uint8_t lanes[SPA_MAX_OUT];
    /* Why the run stopped early (unsupported names it). */
    bool failed;
    char why[96];
    char undef_from[96];   /* the first undefined value of this path: where it came from */
    unsigned cur_label, prev_label;
} spa_run;

static uint64_t mask_of(unsigned width) { return width >= 64 ? ~0ull : (1ull << width) - 1; }

static int fail_at(spa_run *r, const spa_inst *in, const char *detail)
{
    char name[64];
    spa_inst_name(r->m, in, name, sizeof name);
    if (detail)
        snprintf(r->why, sizeof r->why, "%s (%%%u): %s", name, in->result, detail);
    else
        snprintf(r->why, sizeof r->why, "%s (%%%u)", name, in->result);
    r->failed = true;
    return -1;
}

/* ---- The oracle ---- */

static int grow_choices(spa_run *r)
{
    unsigned cap = r->cap ? 2 * r->cap : 64;
    unsigned *c = realloc(r->choice, cap * sizeof *c), *n;
    if (!c)
        return -1;
    r->choice = c;
    n = realloc(r->n_opt, cap * sizeof *n);
    if (!n)
        return -1;
    r->n_opt = n;
    r->cap = cap;
    return 0;
}

static unsigned choose(spa_run *r, unsigned n)
{
    if (n <= 1)
        return 0;
    if (r->depth < r->n_prefix)
        return r->choice[r->depth++];
    if (r->depth == r->cap && grow_choices(r)) {
        r->failed = true;
        snprintf(r->why, sizeof r->why, "out of memory");
        return 0;
    }
    r->choice[r->depth] = 0;
    r->n_opt[r->depth++] = n;
    return 0;
}

/* The next path: the last choice that has options left, advanced. */
static bool next_path(spa_run *r)
{
    unsigned len = r->depth;
    while (len && r->choice[len - 1] + 1 == r->n_opt[len - 1])
        len--;
    if (!len)
        return false;
    r->choice[len - 1]++;
    r->n_prefix = len;
    return true;
}

static void take(spa_run *r, const spa_inst *in, unsigned lib)
{
    if (!lib)
        return;
    r->liberties |= lib;
    if (!r->n_lib_choices++) {
        char name[64];
        spa_inst_name(r->m, in, name, sizeof name);
        snprintf(r->where, sizeof r->where, "%%%u %s: %s", in->result, name, spa_liberty_name(lib & -lib));
    }
}

/* ---- Values ---- */

static const spa_type *type_of(const spa_run *r, unsigned id)
{
    static const spa_type none = {TK_NONE, 0, false, 0, 0, 0};
    return id && id < r->m->bound ? &r->m->types[id] : &none;
}

/* The scalar type of a scalar or vector type, and its component count. */
static const spa_type *scalar_of(const spa_run *r, unsigned type, unsigned *n)
{
    const spa_type *t = type_of(r, type);
    *n = 1;
    if (t->kind == TK_VECTOR) {
        *n = t->count;
        t = type_of(r, t->comp);
    }
    return t;
}

static const spa_val *get(spa_run *r, const spa_inst *in, unsigned id)
{
    if (id >= r->m->bound || r->vals[id].state == V_UNSET) {
        fail_at(r, in, "an operand the interpreter has no value for");
        return NULL;
    }
    return &r->vals[id];
}

static spa_val *result_slot(spa_run *r, unsigned id, unsigned n)
{
    spa_val *v = &r->vals[id];
    memset(v, 0, sizeof *v);
    v->state = V_VALUE;
    v->n = (uint8_t)n;
    return v;
}

/* A component's value left undefined by in (why): noted for the message
 * should it reach a store or a branch. */
static void note_undef(spa_run *r, const spa_inst *in, const char *why)
{
    if (r->undef_from[0])
        return;
    char name[64];
    spa_inst_name(r->m, in, name, sizeof name);
    snprintf(r->undef_from, sizeof r->undef_from, "%s (%%%u): %s", name, in->result, why);
}

static int fail_undef(spa_run *r, const spa_inst *in, const char *what)
{
    char detail[200];
    snprintf(detail, sizeof detail, "%s an undefined value, from %s", what, r->undef_from[0] ? r->undef_from : "?");
    return fail_at(r, in, detail);
}

static bool tainted(const spa_val *v)
{
    for (unsigned i = 0; i < v->n; i++)
        if (v->nan[i])
            return true;
    return false;
}

static uint16_t nan_code(unsigned width)
{
    if (width == 16)
        return SPA_LANE_F16;
    if (width == 32)
        return SPA_LANE_F32_LO | SPA_LANE_F32_HI << 3;
    return SPA_LANE_F64_P0 | SPA_LANE_F64_P1 << 3 | SPA_LANE_F64_P2 << 6 | SPA_LANE_F64_P3 << 9;
}

/* ---- Float operations: the candidates of each component, one choice each ---- */

static spa_fmode mode_of(const spa_module *m, const spa_rules *k, int w)
{
    spa_fmode f = {m->em_preserve[w] && k->denorm_preserve[w], m->em_flush[w] && k->denorm_flush[w],
                   m->em_szinp[w] && k->signed_zero_inf_nan[w], SPA_RND_FREE};
    if (m->em_rtz[w] && k->rtz[w])
        f.round = SPA_RND_RTZ;
    else if (m->em_rte[w] && k->rte[w])
        f.round = SPA_RND_RTE;
    return f;
}

static void pick(spa_run *r, const spa_inst *in, const spa_fcands *c, const fp_format *f, spa_val *v, unsigned i)
{
    if (c->inf_nan)
        r->approximate |= SPA_INF_NAN;
    unsigned k = choose(r, c->n);
    take(r, in, c->c[k].lib);
    v->c[i] = c->c[k].bits;
    if (f && fp_is_nan_bits(f, c->c[k].bits))
        v->nan[i] = nan_code(f->bits);
    if (c->c[k].has_prod) {
        v->has_prod[i] = true;
        v->prod[i] = c->c[k].prod;
    }
}

/* Operand j of an OpFAdd/OpFSub, if it is an OpFMul the rules let fuse. */
static bool contractible(spa_run *r, unsigned add_id, unsigned opnd, unsigned comp)
{
    const spa_module *m = r->m;
    if (m->no_contraction[add_id] || m->def[opnd] < 0)
        return false;
    const spa_inst *d = &m->inst[m->def[opnd]];
    return d->opcode == SpvOpFMul && !m->no_contraction[opnd] && r->vals[opnd].has_prod[comp];
}

static int float_arith(spa_run *r, const spa_inst *in, spa_fop op, unsigned type, unsigned rid, const uint32_t *ops,
                       unsigned n_args)
{
    unsigned n;
    const spa_type *t = scalar_of(r, type, &n);
    const fp_format *f = spa_format_of(t->width);
    if (t->kind != TK_FLOAT || !f || n > MAXC)
        return fail_at(r, in, "float type not modelled");
    const spa_val *a[3] = {NULL, NULL, NULL};
    for (unsigned j = 0; j < n_args; j++)
        if (!(a[j] = get(r, in, ops[j])))
            return -1;
    spa_fmode m = r->mode[spa_width_index(t->width)];
    spa_val res;
    memset(&res, 0, sizeof res);
    res.state = V_VALUE, res.n = (uint8_t)n;
    for (unsigned i = 0; i < n; i++) {
        if ((a[0]->undef | (n_args > 1 ? a[1]->undef : 0) | (n_args > 2 ? a[2]->undef : 0)) & (1u << i)) {
            res.undef |= (uint8_t)(1u << i);
            continue;
        }
        uint64_t x[3] = {a[0]->c[i], n_args > 1 ? a[1]->c[i] : 0, n_args > 2 ? a[2]->c[i] : 0};
        spa_fcands c = {0};
        spa_float_arith(op, f, x, &m, &c);
        bool is_add = op == SPA_F_ADD || op == SPA_F_SUB;
        for (unsigned j = 0; is_add && j < 2; j++)
            if (contractible(r, rid, ops[j], i))
                spa_float_fused(f, r->vals[ops[j]].prod[i], x[1 - j], j == 0, op == SPA_F_SUB, &m, SPA_CONTRACTED,
                                &c);
        if (c.overflow)
            return fail_at(r, in, "too many distinct results for one instruction");
        pick(r, in, &c, f, &res, i);
    }
    r->vals[rid] = res;
    return 0;
}

static spa_rounding conversion_rounding(spa_run *r, unsigned rid, unsigned to_width)
{
    int8_t d = r->m->fp_rounding[rid];
    if (d >= 0)
        return (spa_rounding)d;   /* FPRoundingMode: RTE, RTZ, RTP, RTN in this order */
    spa_fmode m = r->mode[spa_width_index(to_width)];
    return m.round;
}

static int float_convert(spa_run *r, const spa_inst *in, unsigned type, unsigned rid, const uint32_t *ops)
{
    unsigned n, n_from;
    const spa_val *a = get(r, in, ops[0]);
    if (!a)
        return -1;
    const spa_type *t = scalar_of(r, type, &n);
    const spa_type *s = scalar_of(r, r->m->inst[r->m->def[ops[0]]].type, &n_from);
    const fp_format *to = spa_format_of(t->width), *from = spa_format_of(s->width);
    if (!to || !from || t->kind != TK_FLOAT || s->kind != TK_FLOAT || n > MAXC)
        return fail_at(r, in, "float type not modelled");
    spa_fmode mf = r->mode[spa_width_index(s->width)], mt = r->mode[spa_width_index(t->width)];
    spa_rounding conv = conversion_rounding(r, rid, t->width);
    spa_val res;
    memset(&res, 0, sizeof res);
    res.state = V_VALUE, res.n = (uint8_t)n;
    res.undef = a->undef;
    for (unsigned i = 0; i < n; i++) {
        if (a->undef & (1u << i))
            continue;
        spa_fcands c = {0};
        spa_float_convert(from, to, a->c[i], &mf, &mt, conv, &c);
        pick(r, in, &c, to, &res, i);
    }
    r->vals[rid] = res;
    return 0;
}

static int int_to_float(spa_run *r, const spa_inst *in, unsigned type, unsigned rid, const uint32_t *ops, bool sgn)
{
    unsigned n, n_from;
    const spa_val *a = get(r, in, ops[0]);
    if (!a)
        return -1;
    const spa_type *t = scalar_of(r, type, &n);
    const spa_type *s = scalar_of(r, r->m->inst[r->m->def[ops[0]]].type, &n_from);
    const fp_format *to = spa_format_of(t->width);
    if (!to || s->kind != TK_INT || n > MAXC)
        return fail_at(r, in, "type not modelled");
    if (tainted(a))
        r->approximate |= SPA_NAN_PAYLOAD;
    spa_fmode mt = r->mode[spa_width_index(t->width)];
    spa_val res;
    memset(&res, 0, sizeof res);
    res.state = V_VALUE, res.n = (uint8_t)n;
    res.undef = a->undef;
    for (unsigned i = 0; i < n; i++) {
        if (a->undef & (1u << i))
            continue;
        uint64_t x = a->c[i] & mask_of(s->width);
        bool neg = sgn && s->width && (x >> (s->width - 1)) & 1;
        uint64_t mag = neg ? ((~x + 1) & mask_of(s->width)) : x;
        spa_fcands c = {0};
        spa_int_to_float(to, fp_from_int(neg, mag, 0), &mt, conversion_rounding(r, rid, t->width), &c);
        pick(r, in, &c, to, &res, i);
    }
    r->vals[rid] = res;
    return 0;
}

static int float_compare(spa_run *r, const spa_inst *in, unsigned rid, const uint32_t *ops, spa_cmp cmp, bool ord)
{
    const spa_val *a = get(r, in, ops[0]), *b = a ? get(r, in, ops[1]) : NULL;
    if (!b)
        return -1;
    unsigned n;
    const spa_type *s = scalar_of(r, r->m->inst[r->m->def[ops[0]]].type, &n);
    const fp_format *f = spa_format_of(s->width);
    if (!f || s->kind != TK_FLOAT || n > MAXC)
        return fail_at(r, in, "float type not modelled");
    spa_fmode m = r->mode[spa_width_index(s->width)];
    spa_val res;
    memset(&res, 0, sizeof res);
    res.state = V_VALUE, res.n = (uint8_t)n;
    res.undef = a->undef | b->undef;
    for (unsigned i = 0; i < n; i++) {
        if (res.undef & (1u << i))
            continue;
        spa_fcands c = {0};
        spa_float_compare(cmp, ord, f, a->c[i], b->c[i], &m, &c);
        pick(r, in, &c, NULL, &res, i);
    }
    r->vals[rid] = res;
    return 0;
}

static int float_class(spa_run *r, const spa_inst *in, unsigned rid, const uint32_t *ops, bool nan)
{
    const spa_val *a = get(r, in, ops[0]);
    if (!a)
        return -1;
    unsigned n;
    const spa_type *s = scalar_of(r, r->m->inst[r->m->def[ops[0]]].type, &n);
    const fp_format *f = spa_format_of(s->width);
    if (!f || n > MAXC)
        return fail_at(r, in, "float type not modelled");
    if (!r->mode[spa_width_index(s->width)].szinp)
        r->approximate |= SPA_INF_NAN;
    spa_val *v = result_slot(r, rid, n);
    v->undef = a->undef;
    for (unsigned i = 0; i < n; i++)
        v->c[i] = nan ? fp_is_nan_bits(f, a->c[i]) : spa_is_inf_or_nan(f, a->c[i]) && !fp_is_nan_bits(f, a->c[i]);
    return 0;
}

/* ---- Integer, logical and bit operations: exact ---- */

static uint64_t sext(uint64_t x, unsigned w) { return w >= 64 || !((x >> (w - 1)) & 1) ? x : x | ~mask_of(w); }

static int find_msb_lsb(uint64_t x, unsigned w, int which)
{
    x &= mask_of(w);
    if (which == 0)   /* FindILsb */
        return x ? __builtin_ctzll(x) : -1;
    if (which == 2 && ((x >> (w - 1)) & 1))   /* FindSMsb of a negative: its complement's */
        x = ~x & mask_of(w);
    return x ? 63 - __builtin_clzll(x) : -1;
}

/* One component of an integer binary operation; -1 with why for the cases
 * the rules leave undefined. */
static int int_binary(unsigned op, unsigned w, bool s, uint64_t a, uint64_t b, uint64_t *out, const char **why)
{
    uint64_t m = mask_of(w);
    a &= m, b &= m;
    int64_t sa = (int64_t)sext(a, w), sb = (int64_t)sext(b, w);
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
    const spa_val *a = get(r, in, ops[0]), *b = a ? get(r, in, ops[1]) : NULL;
    if (!b)
        return -1;
    unsigned n;
    const spa_type *t = scalar_of(r, type, &n);
    /* Comparisons compute in the operands' width, shifts in the base's. */
    const spa_type *s = scalar_of(r, r->m->inst[r->m->def[ops[0]]].type, &n);
    if ((s->kind != TK_INT && s->kind != TK_BOOL) || n > MAXC || a->n != n)
        return fail_at(r, in, "type not modelled");
    if (tainted(a) || tainted(b))
        r->approximate |= SPA_NAN_PAYLOAD;
    spa_val res;
    memset(&res, 0, sizeof res);
    res.state = V_VALUE, res.n = (uint8_t)n;
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
                return fail_at(r, in, NULL);
            note_undef(r, in, why);
            res.undef |= (uint8_t)bit;
            res.c[i] = 0;
            continue;
        }
        res.c[i] &= is_comparison(op) ? 1 : mask_of(t->width);
    }
    r->vals[rid] = res;
    return 0;
}

static int integer_unary(spa_run *r, const spa_inst *in, unsigned op, unsigned type, unsigned rid,
                         const uint32_t *ops)
{
    const spa_val *a = get(r, in, ops[0]);
    if (!a)
        return -1;
    unsigned n, n_from;
    const spa_type *t = scalar_of(r, type, &n);
    const spa_type *s = scalar_of(r, r->m->inst[r->m->def[ops[0]]].type, &n_from);
    if (n > MAXC || n != a->n)
        return fail_at(r, in, "type not modelled");
    bool transparent = op == SpvOpUConvert;   /* zero extension or truncation keeps lanes */
    if (tainted(a) && !transparent)
        r->approximate |= SPA_NAN_PAYLOAD;
    spa_val res;
    memset(&res, 0, sizeof res);
    res.state = V_VALUE, res.n = (uint8_t)n;
    res.undef = a->undef;
    for (unsigned i = 0; i < n; i++) {
        uint64_t x = a->c[i] & mask_of(s->width);
        switch (op) {
        case SpvOpUConvert:
            res.c[i] = x;
            res.nan[i] = t->width >= s->width ? a->nan[i] : a->nan[i] & (uint16_t)((1u << (3 * (t->width / 16))) - 1);
            break;
        case SpvOpSConvert: res.c[i] = sext(x, s->width); break;
        case SpvOpSNegate: res.c[i] = ~x + 1; break;
        case SpvOpNot: res.c[i] = ~x; break;
        case SpvOpLogicalNot: res.c[i] = !x; break;
        case SpvOpBitCount: res.c[i] = (uint64_t)__builtin_popcountll(x); break;
        default: return fail_at(r, in, NULL);
        }
        res.c[i] &= mask_of(t->width);
    }
    r->vals[rid] = res;
    return 0;
}

/* ---- Bit reinterpretation and composites (no liberty, NaN lanes kept) ---- */

static unsigned comp_width(const spa_type *t) { return t->kind == TK_BOOL ? 1 : t->width; }

static int bitcast(spa_run *r, const spa_inst *in, unsigned type, unsigned rid, const uint32_t *ops)
{
    const spa_val *a = get(r, in, ops[0]);
    if (!a)
        return -1;
    unsigned n, n_from;
    const spa_type *t = scalar_of(r, type, &n), *s = scalar_of(r, r->m->inst[r->m->def[ops[0]]].type, &n_from);
    unsigned wt = comp_width(t), ws = comp_width(s);
    if (wt % 16 || ws % 16 || n > MAXC || n_from > MAXC || n * wt != n_from * ws)
        return fail_at(r, in, "type not modelled");
    /* Through 16-bit lanes: data and NaN codes. */
    uint16_t lane[16], code[16];
    unsigned k = 0;
    for (unsigned i = 0; i < n_from; i++)
        for (unsigned l = 0; l < ws / 16; l++, k++) {
            lane[k] = (uint16_t)(a->c[i] >> (16 * l));
            code[k] = (a->nan[i] >> (3 * l)) & 7;
        }
    spa_val *v = result_slot(r, rid, n);
    /* Undefined components: the same ones when the shapes match, else all. */
    v->undef = a->undef ? (n == n_from ? a->undef : (uint8_t)((1u << n) - 1)) : 0;
    k = 0;
    for (unsigned i = 0; i < n; i++)
        for (unsigned l = 0; l < wt / 16; l++, k++) {
            v->c[i] |= (uint64_t)lane[k] << (16 * l);
            v->nan[i] |= (uint16_t)(code[k] << (3 * l));
        }
    return 0;
}

static int composite_construct(spa_run *r, const spa_inst *in, unsigned type, unsigned rid, const uint32_t *ops,
                               unsigned nops)
{
    unsigned n;
    scalar_of(r, type, &n);
    if (n > MAXC)
        return fail_at(r, in, "type not modelled");
    spa_val res;
    memset(&res, 0, sizeof res);
    res.state = V_VALUE;
    for (unsigned j = 0; j < nops; j++) {
        const spa_val *a = get(r, in, ops[j]);
        if (!a)
            return -1;
        for (unsigned i = 0; i < a->n; i++) {
            if (res.n == MAXC)
                return fail_at(r, in, "type not modelled");
            res.nan[res.n] = a->nan[i];
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
    const spa_val *a = get(r, in, ops[0]);
    if (!a)
        return -1;
    if (nops != 2 || ops[1] >= a->n)
        return fail_at(r, in, "composite not modelled");
    spa_val *v = result_slot(r, rid, 1);
    v->c[0] = a->c[ops[1]];
    v->nan[0] = a->nan[ops[1]];
    v->undef = (a->undef >> ops[1]) & 1;
    return 0;
}

static int composite_insert(spa_run *r, const spa_inst *in, unsigned rid, const uint32_t *ops, unsigned nops)
{
    const spa_val *obj = get(r, in, ops[0]), *a = obj ? get(r, in, ops[1]) : NULL;
    if (!a)
        return -1;
    if (nops != 3 || ops[2] >= a->n)
        return fail_at(r, in, "composite not modelled");
    spa_val res = *a;
    memset(res.has_prod, 0, sizeof res.has_prod);
    res.c[ops[2]] = obj->c[0];
    res.nan[ops[2]] = obj->nan[0];
    res.undef = (uint8_t)((res.undef & ~(1u << ops[2])) | ((obj->undef & 1u) << ops[2]));
    r->vals[rid] = res;
    return 0;
}

static int vector_shuffle(spa_run *r, const spa_inst *in, unsigned rid, const uint32_t *ops, unsigned nops)
{
    const spa_val *a = get(r, in, ops[0]), *b = a ? get(r, in, ops[1]) : NULL;
    if (!b)
        return -1;
    if (nops - 2 > MAXC)
        return fail_at(r, in, "type not modelled");
    spa_val *v = result_slot(r, rid, nops - 2);
    for (unsigned i = 0; i + 2 < nops; i++) {
        unsigned k = ops[2 + i];
        const spa_val *src = k < a->n ? a : b;
        unsigned j = k < a->n ? k : k - a->n;
        if (k == 0xffffffffu || j >= src->n)
            return fail_at(r, in, "an undefined component");
        v->c[i] = src->c[j];
        v->nan[i] = src->nan[j];
        v->undef |= (uint8_t)(((src->undef >> j) & 1u) << i);
    }
    return 0;
}

static int select_op(spa_run *r, const spa_inst *in, unsigned rid, const uint32_t *ops)
{
    const spa_val *c = get(r, in, ops[0]), *x = c ? get(r, in, ops[1]) : NULL, *y = x ? get(r, in, ops[2]) : NULL;
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
        return float_arith(r, in, SPA_F_FMA, type, rid, ops, 3);
    if (k == GLSLstd450FAbs && nops == 1)
        return float_arith(r, in, SPA_F_ABS, type, rid, ops, 1);
    bool minmax = k == GLSLstd450UMin || k == GLSLstd450UMax || k == GLSLstd450SMin || k == GLSLstd450SMax;
    bool bits = k == GLSLstd450FindUMsb || k == GLSLstd450FindSMsb || k == GLSLstd450FindILsb || k == GLSLstd450SAbs;
    if (!(minmax && nops == 2) && !(bits && nops == 1))
        return fail_at(r, in, NULL);
    const spa_val *a = get(r, in, ops[0]), *b = minmax && a ? get(r, in, ops[1]) : a;
    if (!b)
        return -1;
    unsigned n;
    const spa_type *s = scalar_of(r, r->m->inst[r->m->def[ops[0]]].type, &n);
    if (s->kind != TK_INT || n > MAXC)
        return fail_at(r, in, "type not modelled");
    if (tainted(a) || tainted(b))
        r->approximate |= SPA_NAN_PAYLOAD;
    unsigned w = s->width;
    spa_val *v = result_slot(r, rid, n);
    v->undef = a->undef | b->undef;
    for (unsigned i = 0; i < n; i++) {
        uint64_t x = a->c[i] & mask_of(w), y = b->c[i] & mask_of(w);
        int64_t sx = (int64_t)sext(x, w), sy = (int64_t)sext(y, w);
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
        v->c[i] &= mask_of(w);
    }
    return 0;
}

/* ---- Memory: the interface buffers, the push constant, locals ---- */

static int load(spa_run *r, const spa_inst *in, unsigned rid, unsigned ptr)
{
    const spa_val *p = get(r, in, ptr);
    if (!p)
        return -1;
    if (p->state != V_POINTER)
        return fail_at(r, in, "not a pointer the interpreter knows");
    spa_var_kind k = (spa_var_kind)r->m->var_kind[p->ptr_var];
    spa_val *v;
    switch (k) {
    case VAR_IN:
        if (p->ptr_n != 2)
            return fail_at(r, in, "an access to the input buffer not modelled");
        if (p->ptr_idx[1] >= r->n_in)
            return fail_at(r, in, "reads an input word beyond the tuple");
        v = result_slot(r, rid, 1);
        v->c[0] = r->in[p->ptr_idx[1]];
        return 0;
    case VAR_PUSH:   /* the tuple count: one tuple */
        v = result_slot(r, rid, 1);
        v->c[0] = 1;
        return 0;
    case VAR_GID:
        v = result_slot(r, rid, p->ptr_n ? 1 : 3);
        if (p->ptr_n ? p->ptr_idx[0] == 0 : true)
            v->c[0] = r->invocation;
        return 0;
    case VAR_LOCAL:
        if (p->ptr_n)
            return fail_at(r, in, "an access chain into a local not modelled");
        if (r->vals[r->m->bound + p->ptr_var].state != V_VALUE)
            return fail_at(r, in, "reads a local never written");
        r->vals[rid] = r->vals[r->m->bound + p->ptr_var];
        return 0;
    default:
        return fail_at(r, in, "reads a variable outside the interface");
    }
}

static int store_output(spa_run *r, const spa_inst *in, uint64_t index, const spa_val *v)
{
    if (index >= r->n_out)
        return fail_at(r, in, "writes an output word beyond the tuple");
    unsigned k = 0;
    while (k < r->n_words && r->word[k] != index)
        k++;
    if (k == r->n_words) {
        if (k == SPA_MAX_OUT)
            return fail_at(r, in, "writes more output words than the interpreter keeps");
        r->word[r->n_words++] = (unsigned)index;
    }
    r->out[k] = (uint32_t)v->c[0];
    r->lanes[k] = (uint8_t)(v->nan[0] & 0x3f);
    return 0;
}

static int store(spa_run *r, const spa_inst *in)
{
    const spa_val *p = get(r, in, in->w[1]), *v = p ? get(r, in, in->w[2]) : NULL;
    if (!v)
        return -1;
    if (p->state != V_POINTER)
        return fail_at(r, in, "not a pointer the interpreter knows");
    spa_var_kind k = (spa_var_kind)r->m->var_kind[p->ptr_var];
    if (k == VAR_OUT && (v->undef & 1))
        return fail_undef(r, in, "stores");
    if (k == VAR_OUT && p->ptr_n == 2)
        return store_output(r, in, p->ptr_idx[1], v);
    if (k == VAR_LOCAL && !p->ptr_n) {
        r->vals[r->m->bound + p->ptr_var] = *v;
        return 0;
    }
    return fail_at(r, in, "a store the interpreter does not model");
}

static int access_chain(spa_run *r, const spa_inst *in, unsigned rid, const uint32_t *ops, unsigned nops)
{
    const spa_val *base = get(r, in, ops[0]);
    if (!base)
        return -1;
    if (base->state != V_POINTER)
        return fail_at(r, in, "not a pointer the interpreter knows");
    spa_val p = *base;
    for (unsigned j = 1; j < nops; j++) {
        const spa_val *ix = get(r, in, ops[j]);
        if (!ix)
            return -1;
        if (ix->undef & 1)
            return fail_undef(r, in, "addresses with");
        if (p.ptr_n == 2)
            return fail_at(r, in, "an access chain deeper than the interface's");
        p.ptr_idx[p.ptr_n++] = ix->c[0];
    }
    r->vals[rid] = p;
    return 0;
}

/* A variable's id holds the pointer to it; a local's contents live in the
 * slot bound + id. */
static int variable(spa_run *r, const spa_inst *in)
{
    spa_val *v = &r->vals[in->result];
    memset(v, 0, sizeof *v);
    v->state = V_POINTER;
    v->ptr_var = in->result;
    if (in->n_words > 4) {   /* an initializer */
        const spa_val *init = get(r, in, in->w[4]);
        if (!init)
            return -1;
        r->vals[r->m->bound + in->result] = *init;
    }
    return 0;
}

/* ---- Constants ---- */

static int constant(spa_run *r, const spa_inst *in)
{
    unsigned n;
    const spa_type *t = scalar_of(r, in->type, &n);
    const uint32_t *w = in->w;
    spa_val *v;
    int32_t sid = r->m->spec_id[in->result];
    bool given = sid >= 0 && (unsigned)sid < r->n_spec;
    switch (in->opcode) {
    case SpvOpConstant: case SpvOpSpecConstant:
        v = result_slot(r, in->result, 1);
        v->c[0] = w[3] | (in->n_words > 4 ? (uint64_t)w[4] << 32 : 0);
        if (in->opcode == SpvOpSpecConstant && given)
            v->c[0] = r->spec[sid];
        v->c[0] &= mask_of(t->width);
        return 0;
    case SpvOpConstantTrue: case SpvOpConstantFalse: case SpvOpSpecConstantTrue: case SpvOpSpecConstantFalse:
        v = result_slot(r, in->result, 1);
        v->c[0] = in->opcode == SpvOpConstantTrue || in->opcode == SpvOpSpecConstantTrue;
        if (in->opcode != SpvOpConstantTrue && in->opcode != SpvOpConstantFalse && given)
            v->c[0] = r->spec[sid] != 0;
        return 0;
    case SpvOpConstantNull:
        if (n > MAXC)
            return fail_at(r, in, "type not modelled");
        result_slot(r, in->result, n);
        return 0;
    case SpvOpConstantComposite: case SpvOpSpecConstantComposite:
        return composite_construct(r, in, in->type, in->result, w + 3, in->n_words - 3);
    case SpvOpUndef:
        if (n > MAXC)
            return fail_at(r, in, "type not modelled");
        v = result_slot(r, in->result, n);
        v->undef = (uint8_t)((1u << n) - 1);
        note_undef(r, in, "OpUndef");
        return 0;
    default:
        return fail_at(r, in, NULL);
    }
}

/* ---- Dispatch ---- */

static int eval(spa_run *r, const spa_inst *in, unsigned op, unsigned type, unsigned rid, const uint32_t *ops,
                unsigned nops)
{
    switch (op) {
    case SpvOpFAdd: return float_arith(r, in, SPA_F_ADD, type, rid, ops, 2);
    case SpvOpFSub: return float_arith(r, in, SPA_F_SUB, type, rid, ops, 2);
    case SpvOpFMul: return float_arith(r, in, SPA_F_MUL, type, rid, ops, 2);
    case SpvOpFNegate: return float_arith(r, in, SPA_F_NEG, type, rid, ops, 1);
    case SpvOpFConvert: return float_convert(r, in, type, rid, ops);
    case SpvOpConvertUToF: return int_to_float(r, in, type, rid, ops, false);
    case SpvOpConvertSToF: return int_to_float(r, in, type, rid, ops, true);
    case SpvOpFOrdEqual: return float_compare(r, in, rid, ops, SPA_CMP_EQ, true);
    case SpvOpFUnordEqual: return float_compare(r, in, rid, ops, SPA_CMP_EQ, false);
    case SpvOpFOrdNotEqual: return float_compare(r, in, rid, ops, SPA_CMP_NE, true);
    case SpvOpFUnordNotEqual: return float_compare(r, in, rid, ops, SPA_CMP_NE, false);
    case SpvOpFOrdLessThan: return float_compare(r, in, rid, ops, SPA_CMP_LT, true);
    case SpvOpFUnordLessThan: return float_compare(r, in, rid, ops, SPA_CMP_LT, false);
    case SpvOpFOrdGreaterThan: return float_compare(r, in, rid, ops, SPA_CMP_GT, true);
    case SpvOpFUnordGreaterThan: return float_compare(r, in, rid, ops, SPA_CMP_GT, false);
    case SpvOpFOrdLessThanEqual: return float_compare(r, in, rid, ops, SPA_CMP_LE, true);
    case SpvOpFUnordLessThanEqual: return float_compare(r, in, rid, ops, SPA_CMP_LE, false);
    case SpvOpFOrdGreaterThanEqual: return float_compare(r, in, rid, ops, SPA_CMP_GE, true);
    case SpvOpFUnordGreaterThanEqual: return float_compare(r, in, rid, ops, SPA_CMP_GE, false);
    case SpvOpIsNan: return float_class(r, in, rid, ops, true);
    case SpvOpIsInf: return float_class(r, in, rid, ops, false);
    case SpvOpIAdd: case SpvOpISub: case SpvOpIMul: case SpvOpUDiv: case SpvOpSDiv: case SpvOpUMod: case SpvOpSRem:
    case SpvOpSMod: case SpvOpShiftLeftLogical: case SpvOpShiftRightLogical: case SpvOpShiftRightArithmetic:
    case SpvOpBitwiseAnd: case SpvOpBitwiseOr: case SpvOpBitwiseXor: case SpvOpLogicalAnd: case SpvOpLogicalOr:
    case SpvOpLogicalEqual: case SpvOpLogicalNotEqual: case SpvOpIEqual: case SpvOpINotEqual:
    case SpvOpUGreaterThan: case SpvOpSGreaterThan: case SpvOpUGreaterThanEqual: case SpvOpSGreaterThanEqual:
    case SpvOpULessThan: case SpvOpSLessThan: case SpvOpULessThanEqual: case SpvOpSLessThanEqual:
        return nops == 2 ? integer_binary(r, in, op, type, rid, ops) : fail_at(r, in, NULL);
    case SpvOpUConvert: case SpvOpSConvert: case SpvOpSNegate: case SpvOpNot: case SpvOpLogicalNot:
    case SpvOpBitCount:
        return integer_unary(r, in, op, type, rid, ops);
    case SpvOpBitcast: return bitcast(r, in, type, rid, ops);
    case SpvOpSelect: return select_op(r, in, rid, ops);
    case SpvOpCopyObject: {
        const spa_val *a = get(r, in, ops[0]);
        if (!a)
            return -1;
        r->vals[rid] = *a;
        return 0;
    }
    case SpvOpCompositeConstruct: return composite_construct(r, in, type, rid, ops, nops);
    case SpvOpCompositeExtract: return composite_extract(r, in, rid, ops, nops);
    case SpvOpCompositeInsert: return composite_insert(r, in, rid, ops, nops);
    case SpvOpVectorShuffle: return vector_shuffle(r, in, rid, ops, nops);
    case SpvOpAccessChain: case SpvOpInBoundsAccessChain: return access_chain(r, in, rid, ops, nops);
    case SpvOpExtInst:
        if (!r->m->glsl_set || ops[0] != r->m->glsl_set)
            return fail_at(r, in, "an extended instruction set other than GLSL.std.450");
        return glsl(r, in, type, rid, ops, nops);
    default:
        return fail_at(r, in, NULL);
    }
}

static int run_globals(spa_run *r)
{
    const spa_module *m = r->m;
    for (unsigned g = 0; g < m->n_globals; g++) {
        const spa_inst *in = &m->inst[m->globals[g]];
        int rc;
        if (in->opcode == SpvOpVariable)
            rc = variable(r, in);
        else if (in->opcode == SpvOpSpecConstantOp)
            rc = eval(r, in, in->w[3], in->type, in->result, in->w + 4, in->n_words - 4);
        else
            rc = constant(r, in);
        if (rc)
            return -1;
    }
    return 0;
}

/* Entering a block: its OpPhis read the values at the end of the block we
 * came from, all at once. */
static int enter_block(spa_run *r, const spa_inst *from, unsigned label, unsigned *ip)
{
    const spa_module *m = r->m;
    if (m->label[label] < 0 || (unsigned)m->label[label] < m->fn_begin || (unsigned)m->label[label] >= m->fn_end)
        return fail_at(r, from, "a branch outside the function");
    r->prev_label = r->cur_label;
    r->cur_label = label;
    unsigned i = (unsigned)m->label[label] + 1;
    enum { MAX_PHI = 32 };
    spa_val tmp[MAX_PHI];
    unsigned ids[MAX_PHI], n = 0;
    for (; i < m->fn_end && m->inst[i].opcode == SpvOpPhi; i++) {
        const spa_inst *phi = &m->inst[i];
        if (n == MAX_PHI)
            return fail_at(r, phi, "too many OpPhi in one block");
        unsigned k = 3;
        while (k + 1 < phi->n_words && phi->w[k + 1] != r->prev_label)
            k += 2;
        if (k + 1 >= phi->n_words)
            return fail_at(r, phi, "no incoming value for the block we came from");
        const spa_val *v = get(r, phi, phi->w[k]);
        if (!v)
            return -1;
        tmp[n] = *v;
        memset(tmp[n].has_prod, 0, sizeof tmp[n].has_prod);
        ids[n++] = phi->result;
    }
    for (unsigned j = 0; j < n; j++)
        r->vals[ids[j]] = tmp[j];
    *ip = i;
    return 0;
}

static int run_function(spa_run *r)
{
    const spa_module *m = r->m;
    unsigned ip = m->fn_begin;
    for (unsigned steps = 0; ip < m->fn_end; steps++) {
        const spa_inst *in = &m->inst[ip];
        if (steps > SPA_MAX_STEPS)
            return fail_at(r, in, "more steps than the interpreter runs (an endless loop?)");
        const uint32_t *w = in->w;
        unsigned rc = 0;
        switch (in->opcode) {
        case SpvOpLabel:
            r->prev_label = r->cur_label;
            r->cur_label = in->result;
            ip++;
            continue;
        case SpvOpBranch:
            if (enter_block(r, in, w[1], &ip))
                return -1;
            continue;
        case SpvOpBranchConditional: {
            const spa_val *c = get(r, in, w[1]);
            if (c && (c->undef & 1))
                return fail_undef(r, in, "branches on");
            if (!c || enter_block(r, in, c->c[0] ? w[2] : w[3], &ip))
                return -1;
            continue;
        }
        case SpvOpReturn:
            return 0;
        case SpvOpSelectionMerge: case SpvOpLoopMerge: case SpvOpNop: case SpvOpLine: case SpvOpNoLine:
        case SpvOpPhi:   /* read on entry to the block */
            break;
        case SpvOpVariable:
            rc = (unsigned)variable(r, in);
            break;
        case SpvOpLoad:
            rc = (unsigned)load(r, in, in->result, w[3]);
            break;
        case SpvOpStore:
            rc = (unsigned)store(r, in);
            break;
        default:
            if (!in->result || !in->type)
                return fail_at(r, in, NULL);
            rc = (unsigned)eval(r, in, in->opcode, in->type, in->result, w + 3, in->n_words - 3);
            break;
        }
        if (rc || r->failed)
            return -1;
        ip++;
    }
    return 0;
}

/* ---- Paths into groups ---- */

static int run_path(spa_run *r)
{
    memset(r->vals, 0, 2 * (size_t)r->m->bound * sizeof *r->vals);
    r->depth = 0;
    r->liberties = r->n_lib_choices = 0;
    r->where[0] = 0;
    r->undef_from[0] = 0;
    r->n_words = 0;
    r->cur_label = r->prev_label = 0;
    if (run_globals(r))
        return -1;
    return run_function(r);
}

static unsigned nan_width_of(uint8_t lanes)
{
    unsigned code = lanes & 7 ? lanes & 7 : (lanes >> 3) & 7;
    return code == SPA_LANE_F16 ? 16 : code <= SPA_LANE_F32_HI ? 32 : 64;
}

static bool same_output(const spa_result *a, const spa_result *b, unsigned n)
{
    return !memcmp(a->out, b->out, n * sizeof *a->out) && !memcmp(a->nan_lanes, b->nan_lanes, n);
}

/* This path's outputs as a result of group g (whose words the first path
 * fixed); 1 when the set overflows, -1 when paths disagree on the words. */
static int add_result(spa_group *g, const spa_run *r, bool first)
{
    if (first) {
        g->n_words = r->n_words;
        memcpy(g->word, r->word, sizeof g->word);
    }
    spa_result res;
    memset(&res, 0, sizeof res);
    if (r->n_words != g->n_words)
        return -1;
    for (unsigned k = 0; k < g->n_words; k++) {
        unsigned j = 0;
        while (j < r->n_words && r->word[j] != g->word[k])
            j++;
        if (j == r->n_words)
            return -1;
        res.out[k] = r->out[j];
        res.nan_lanes[k] = r->lanes[j];
        if (res.nan_lanes[k] && !g->any_nan[k]) {
            g->any_nan[k] = true;
            g->nan_width[k] = nan_width_of(res.nan_lanes[k]);
        }
    }
    res.liberties = r->liberties;
    res.n_choices = r->n_lib_choices;
    snprintf(res.where, sizeof res.where, "%s", r->where);
    if (first)
        g->strict = res;
    for (unsigned i = 0; i < g->n_results; i++) {
        spa_result *old = &g->results[i];
        if (!same_output(old, &res, g->n_words))
            continue;
        if (res.n_choices < old->n_choices)
            *old = res;
        return 0;
    }
    if (g->n_results == SPA_MAX_RESULTS)
        return 1;
    g->results[g->n_results++] = res;
    return 0;
}

/* Every path of one invocation. */
static spa_status run_invocation(spa_run *r, spa_group *g, char *unsupported, size_t n)
{
    r->n_prefix = 0;
    bool first = true;
    do {
        if (run_path(r)) {
            snprintf(unsupported, n, "%s", r->why);
            return SPA_UNSUPPORTED;
        }
        int rc = add_result(g, r, first);
        if (rc < 0) {
            snprintf(unsupported, n, "paths of one invocation write different output words");
            return SPA_UNSUPPORTED;
        }
        first = false;
        g->n_paths++;
        if (rc > 0 || g->n_paths >= SPA_MAX_PATHS)
            return SPA_TOO_MANY;
    } while (next_path(r));
    g->approximate = r->approximate;
    return SPA_OK;
}

int spa_allowed(const uint32_t *words, size_t n_words, const spa_rules *rules, const uint32_t *spec,
                unsigned n_spec, const uint32_t *in, unsigned n_in, unsigned n_out, unsigned per_tuple,
                spa_set *out, char *err, size_t errn)
{
    memset(out, 0, sizeof *out);
    spa_module m;
    if (spa_module_read(words, n_words, &m, err, errn))
        return -1;
    unsigned n_inv = per_tuple > 1 ? per_tuple : 1;
    spa_run r;
    memset(&r, 0, sizeof r);
    r.m = &m, r.rules = rules, r.spec = spec, r.n_spec = n_spec, r.in = in, r.n_in = n_in, r.n_out = n_out;
    for (int w = 0; w < 3; w++)
        r.mode[w] = mode_of(&m, rules, w);
    r.vals = calloc(2 * (size_t)m.bound, sizeof *r.vals);
    out->groups = calloc(n_inv, sizeof *out->groups);
    if (!r.vals || !out->groups) {
        free(r.vals), free(out->groups);
        out->groups = NULL;
        spa_module_free(&m);
        snprintf(err, errn, "out of memory");
        return -1;
    }
    out->n_groups = n_inv;
    for (unsigned i = 0; i < n_inv && out->status != SPA_UNSUPPORTED; i++) {
        r.invocation = i;
        r.approximate = 0;
        spa_status st = run_invocation(&r, &out->groups[i], out->unsupported, sizeof out->unsupported);
        if (st != SPA_OK)
            out->status = st;
    }
    if (out->status == SPA_UNSUPPORTED) {
        free(out->groups);
        out->groups = NULL;
        out->n_groups = 0;
    }
    free(r.vals), free(r.choice), free(r.n_opt);
    spa_module_free(&m);
    return 0;
}
