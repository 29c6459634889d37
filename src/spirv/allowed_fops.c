/* spirv/allowed: the float instructions on values: each component's
 * candidates (allowed_float.c) become one choice of the oracle. */
#include <string.h>
#include <spirv/unified1/spirv.h>
#include "allowed_internal.h"

static uint16_t nan_code(unsigned width)
{
    if (width == 16)
        return SPA_LANE_F16;
    if (width == 32)
        return SPA_LANE_F32_LO | SPA_LANE_F32_HI << 3;
    return SPA_LANE_F64_P0 | SPA_LANE_F64_P1 << 3 | SPA_LANE_F64_P2 << 6 | SPA_LANE_F64_P3 << 9;
}


static void pick(spa_run *r, const spa_inst *in, const spa_fcands *c, const fp_format *f, spa_val *v, unsigned i)
{
    if (c->inf_nan)
        r->approximate |= SPA_INF_NAN;
    unsigned k = spa_choose(r, c->n);
    spa_take(r, in, c->c[k].lib);
    v->c[i] = c->c[k].bits;
    if (f && fp_is_nan_bits(f, c->c[k].bits))
        v->nan[i] = nan_code(f->bits);
    if (f && c->c[k].open) {
        v->open[i] = nan_code(f->bits);
        v->open_from[i] = in->result;
    }
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

/* Every value of one component of an arithmetic instruction, its operands
 * x (ids ops) read every allowed way, with mode's rounding. */
static void arith_cands(spa_run *r, spa_fop op, const fp_format *f, const uint64_t *x, const uint32_t *ops,
                        unsigned rid, unsigned comp, spa_fmode m, spa_fcands *c)
{
    memset(c, 0, sizeof *c);
    spa_float_arith(op, f, x, &m, c);
    bool is_add = op == SPA_F_ADD || op == SPA_F_SUB;
    for (unsigned j = 0; is_add && j < 2; j++)
        if (contractible(r, rid, ops[j], comp))
            spa_float_fused(f, r->vals[ops[j]].prod[comp], x[1 - j], j == 0, op == SPA_F_SUB, &m, SPA_CONTRACTED, c);
}

static bool same_cands(const spa_fcands *a, const spa_fcands *b)
{
    if (a->n != b->n)
        return false;
    for (unsigned i = 0; i < a->n; i++)
        if (a->c[i].bits != b->c[i].bits)
            return false;
    return true;
}

/* The mode an arithmetic instruction rounds with.  Where none is in force
 * for its width the device's own mode rounds every instruction of that
 * width, to nearest even or toward zero: one choice a path makes at the
 * first instruction where the two differ (SPA_ROUNDING_MODE), kept after. */
static spa_fmode rounding_of(spa_run *r, const spa_inst *in, spa_fop op, const fp_format *f, const uint64_t *x,
                             const uint32_t *ops, unsigned rid, unsigned comp)
{
    int w = spa_width_index(f->bits);
    spa_fmode m = r->mode[w];
    m.lazy = !r->m->observed[rid];
    if (m.round != SPA_RND_FREE)
        return m;
    m.round = r->round_chosen[w] == 2 ? SPA_RND_RTZ : SPA_RND_RTE;
    if (r->round_chosen[w])
        return m;
    spa_fmode rtz = m;
    rtz.round = SPA_RND_RTZ;
    spa_fcands a, b;
    arith_cands(r, op, f, x, ops, rid, comp, m, &a);
    arith_cands(r, op, f, x, ops, rid, comp, rtz, &b);
    if (same_cands(&a, &b))
        return m;
    if (spa_choose(r, 2) == 0) {
        r->round_chosen[w] = 1;
        return m;
    }
    r->round_chosen[w] = 2;
    spa_take(r, in, SPA_ROUNDING_MODE);
    return rtz;
}

int spa_op_float_arith(spa_run *r, const spa_inst *in, spa_fop op, unsigned type, unsigned rid, const uint32_t *ops,
                       unsigned n_args)
{
    unsigned n;
    const spa_type *t = spa_scalar_of(r, type, &n);
    const fp_format *f = spa_format_of(t->width);
    if (t->kind != TK_FLOAT || !f || n > SPA_MAXC)
        return spa_fail_at(r, in, "float type not modelled");
    const spa_val *a[3] = {NULL, NULL, NULL};
    for (unsigned j = 0; j < n_args; j++)
        if (!(a[j] = spa_get(r, in, ops[j])))
            return -1;
    spa_val res = spa_value_of(n, 0);
    for (unsigned i = 0; i < n; i++) {
        if ((a[0]->undef | (n_args > 1 ? a[1]->undef : 0) | (n_args > 2 ? a[2]->undef : 0)) & (1u << i)) {
            res.undef |= (uint8_t)(1u << i);
            continue;
        }
        uint64_t x[3] = {a[0]->c[i], n_args > 1 ? a[1]->c[i] : 0, n_args > 2 ? a[2]->c[i] : 0};
        spa_fcands c;
        arith_cands(r, op, f, x, ops, rid, i, rounding_of(r, in, op, f, x, ops, rid, i), &c);
        if (c.overflow)
            return spa_fail_at(r, in, "too many distinct results for one instruction");
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

int spa_op_float_convert(spa_run *r, const spa_inst *in, unsigned type, unsigned rid, const uint32_t *ops)
{
    unsigned n, n_from;
    const spa_val *a = spa_get(r, in, ops[0]);
    if (!a)
        return -1;
    const spa_type *t = spa_scalar_of(r, type, &n);
    const spa_type *s = spa_scalar_of(r, spa_type_id_of(r, ops[0]), &n_from);
    const fp_format *to = spa_format_of(t->width), *from = spa_format_of(s->width);
    if (!to || !from || t->kind != TK_FLOAT || s->kind != TK_FLOAT || n > SPA_MAXC)
        return spa_fail_at(r, in, "float type not modelled");
    spa_fmode mf = r->mode[spa_width_index(s->width)], mt = r->mode[spa_width_index(t->width)];
    mt.lazy = !r->m->observed[rid];
    spa_rounding conv = conversion_rounding(r, rid, t->width);
    spa_val res = spa_value_of(n, a->undef);
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

int spa_op_int_to_float(spa_run *r, const spa_inst *in, unsigned type, unsigned rid, const uint32_t *ops, bool sgn)
{
    unsigned n, n_from;
    const spa_val *a = spa_get(r, in, ops[0]);
    if (!a)
        return -1;
    spa_val settled;
    a = spa_settle(r, a, &settled);
    const spa_type *t = spa_scalar_of(r, type, &n);
    const spa_type *s = spa_scalar_of(r, spa_type_id_of(r, ops[0]), &n_from);
    const fp_format *to = spa_format_of(t->width);
    if (!to || s->kind != TK_INT || n > SPA_MAXC)
        return spa_fail_at(r, in, "type not modelled");
    if (spa_tainted(a))
        r->approximate |= SPA_NAN_PAYLOAD;
    spa_fmode mt = r->mode[spa_width_index(t->width)];
    mt.lazy = !r->m->observed[rid];
    spa_val res = spa_value_of(n, a->undef);
    for (unsigned i = 0; i < n; i++) {
        if (a->undef & (1u << i))
            continue;
        uint64_t x = a->c[i] & spa_mask_of(s->width);
        bool neg = sgn && s->width && (x >> (s->width - 1)) & 1;
        uint64_t mag = neg ? ((~x + 1) & spa_mask_of(s->width)) : x;
        spa_fcands c = {0};
        spa_int_to_float(to, fp_from_int(neg, mag, 0), &mt, conversion_rounding(r, rid, t->width), &c);
        pick(r, in, &c, to, &res, i);
    }
    r->vals[rid] = res;
    return 0;
}

int spa_op_float_compare(spa_run *r, const spa_inst *in, unsigned rid, const uint32_t *ops, spa_cmp cmp, bool ord)
{
    const spa_val *a = spa_get(r, in, ops[0]), *b = a ? spa_get(r, in, ops[1]) : NULL;
    if (!b)
        return -1;
    unsigned n;
    const spa_type *s = spa_scalar_of(r, spa_type_id_of(r, ops[0]), &n);
    const fp_format *f = spa_format_of(s->width);
    if (!f || s->kind != TK_FLOAT || n > SPA_MAXC)
        return spa_fail_at(r, in, "float type not modelled");
    spa_fmode m = r->mode[spa_width_index(s->width)];
    spa_val res = spa_value_of(n, a->undef | b->undef);
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

int spa_op_float_class(spa_run *r, const spa_inst *in, unsigned rid, const uint32_t *ops, bool nan)
{
    const spa_val *a = spa_get(r, in, ops[0]);
    if (!a)
        return -1;
    unsigned n;
    const spa_type *s = spa_scalar_of(r, spa_type_id_of(r, ops[0]), &n);
    const fp_format *f = spa_format_of(s->width);
    if (!f || n > SPA_MAXC)
        return spa_fail_at(r, in, "float type not modelled");
    if (!r->mode[spa_width_index(s->width)].szinp)
        r->approximate |= SPA_INF_NAN;
    spa_val *v = spa_result_slot(r, rid, n);
    v->undef = a->undef;
    for (unsigned i = 0; i < n; i++)
        v->c[i] = nan ? fp_is_nan_bits(f, a->c[i]) : spa_is_inf_or_nan(f, a->c[i]) && !fp_is_nan_bits(f, a->c[i]);
    return 0;
}
