/* spirv/allowed: the interpreter.  One run executes the entry function for
 * one invocation with concrete bit patterns; where the rules give the device
 * a choice, it asks an oracle (a vector of choices).  spa_allowed enumerates
 * the oracle's vectors depth first (re-running from the start for each), so
 * every path is one combination of choices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spirv/unified1/spirv.h>
#include "allowed_internal.h"

#define SPA_MAX_PATHS 4096
#define SPA_MAX_STEPS 1000000

int spa_fail_at(spa_run *r, const spa_inst *in, const char *detail)
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

unsigned spa_choose(spa_run *r, unsigned n)
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

void spa_take(spa_run *r, const spa_inst *in, unsigned lib)
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

const spa_type *spa_type_of(const spa_run *r, unsigned id)
{
    static const spa_type none = {TK_NONE, 0, false, 0, 0, 0};
    return id && id < r->m->bound ? &r->m->types[id] : &none;
}

/* The scalar type of a scalar or vector type, and its component count. */
const spa_type *spa_scalar_of(const spa_run *r, unsigned type, unsigned *n)
{
    const spa_type *t = spa_type_of(r, type);
    *n = 1;
    if (t->kind == TK_VECTOR) {
        *n = t->count;
        t = spa_type_of(r, t->comp);
    }
    return t;
}

const spa_val *spa_get(spa_run *r, const spa_inst *in, unsigned id)
{
    if (id >= r->m->bound || r->vals[id].state == V_UNSET) {
        spa_fail_at(r, in, "an operand the interpreter has no value for");
        return NULL;
    }
    return &r->vals[id];
}

spa_val *spa_result_slot(spa_run *r, unsigned id, unsigned n)
{
    spa_val *v = &r->vals[id];
    memset(v, 0, sizeof *v);
    v->state = V_VALUE;
    v->n = (uint8_t)n;
    return v;
}

/* A component's value left undefined by in (why): noted for the message
 * should it reach a store or a branch. */
void spa_note_undef(spa_run *r, const spa_inst *in, const char *why)
{
    if (r->undef_from[0])
        return;
    char name[64];
    spa_inst_name(r->m, in, name, sizeof name);
    snprintf(r->undef_from, sizeof r->undef_from, "%s (%%%u): %s", name, in->result, why);
}

int spa_fail_undef(spa_run *r, const spa_inst *in, const char *what)
{
    char detail[200];
    snprintf(detail, sizeof detail, "%s an undefined value, from %s", what, r->undef_from[0] ? r->undef_from : "?");
    return spa_fail_at(r, in, detail);
}

/* An open lane code that starts a field: the field's width (0: none). */
static unsigned open_field_width(unsigned code)
{
    return code == SPA_LANE_F16 ? 16 : code == SPA_LANE_F32_LO ? 32 : code == SPA_LANE_F64_P0 ? 64 : 0;
}

spa_val spa_value_of(unsigned n, uint8_t undef)
{
    spa_val v;
    memset(&v, 0, sizeof v);
    v.state = V_VALUE, v.n = (uint8_t)n, v.undef = undef;
    return v;
}

const spa_val *spa_settle(spa_run *r, const spa_val *v, spa_val *tmp)
{
    bool any = false;
    for (unsigned i = 0; i < v->n; i++)
        any |= v->open[i] != 0;
    if (!any)
        return v;
    *tmp = *v;
    for (unsigned i = 0; i < v->n; i++) {
        if (!v->open[i])
            continue;
        /* The liberty is the writer's: name it.  (Every open value has one;
         * should it not, the value stays as written, the strict reading.) */
        int d = v->open_from[i] < r->m->bound ? r->m->def[v->open_from[i]] : -1;
        const spa_inst *from = d >= 0 ? &r->m->inst[d] : NULL;
        for (unsigned l = 0; from && l < 4; l++) {
            unsigned w = open_field_width((v->open[i] >> (3 * l)) & 7);
            if (!w || 16 * l + w > 64)
                continue;
            uint64_t field = (tmp->c[i] >> (16 * l)) & spa_mask_of(w), opt[3];
            unsigned lib[3], n = spa_open_options(spa_format_of(w), field, &r->mode[spa_width_index(w)], opt, lib);
            unsigned k = spa_choose(r, n);
            spa_take(r, from, lib[k]);
            tmp->c[i] = (tmp->c[i] & ~(spa_mask_of(w) << (16 * l))) | opt[k] << (16 * l);
        }
        tmp->open[i] = 0;
    }
    return tmp;
}

bool spa_tainted(const spa_val *v)
{
    for (unsigned i = 0; i < v->n; i++)
        if (v->nan[i])
            return true;
    return false;
}


static spa_fmode spa_mode_of(const spa_module *m, const spa_rules *k, int w)
{
    spa_fmode f = {m->em_preserve[w] && k->denorm_preserve[w], m->em_flush[w] && k->denorm_flush[w],
                   m->em_szinp[w] && k->signed_zero_inf_nan[w], SPA_RND_FREE, false};
    if (m->em_rtz[w] && k->rtz[w])
        f.round = SPA_RND_RTZ;
    else if (m->em_rte[w] && k->rte[w])
        f.round = SPA_RND_RTE;
    return f;
}

/* ---- Memory: the interface buffers, the push constant, locals ---- */

static int load(spa_run *r, const spa_inst *in, unsigned rid, unsigned ptr)
{
    const spa_val *p = spa_get(r, in, ptr);
    if (!p)
        return -1;
    if (p->state != V_POINTER)
        return spa_fail_at(r, in, "not a pointer the interpreter knows");
    spa_var_kind k = (spa_var_kind)r->m->var_kind[p->ptr_var];
    spa_val *v;
    switch (k) {
    case VAR_IN:
        if (p->ptr_n != 2)
            return spa_fail_at(r, in, "an access to the input buffer not modelled");
        if (p->ptr_idx[1] >= r->n_in)
            return spa_fail_at(r, in, "reads an input word beyond the tuple");
        v = spa_result_slot(r, rid, 1);
        v->c[0] = r->in[p->ptr_idx[1]];
        return 0;
    case VAR_PUSH:   /* the tuple count: one tuple */
        v = spa_result_slot(r, rid, 1);
        v->c[0] = 1;
        return 0;
    case VAR_GID:
        v = spa_result_slot(r, rid, p->ptr_n ? 1 : 3);
        if (p->ptr_n ? p->ptr_idx[0] == 0 : true)
            v->c[0] = r->invocation;
        return 0;
    case VAR_LOCAL:
        if (p->ptr_n)
            return spa_fail_at(r, in, "an access chain into a local not modelled");
        if (r->vals[r->m->bound + p->ptr_var].state != V_VALUE)
            return spa_fail_at(r, in, "reads a local never written");
        r->vals[rid] = r->vals[r->m->bound + p->ptr_var];
        return 0;
    default:
        return spa_fail_at(r, in, "reads a variable outside the interface");
    }
}

static int store_output(spa_run *r, const spa_inst *in, uint64_t index, const spa_val *v)
{
    spa_val settled;
    v = spa_settle(r, v, &settled);
    if (index >= r->n_out)
        return spa_fail_at(r, in, "writes an output word beyond the tuple");
    unsigned k = 0;
    while (k < r->n_words && r->word[k] != index)
        k++;
    if (k == r->n_words) {
        if (k == SPA_MAX_OUT)
            return spa_fail_at(r, in, "writes more output words than the interpreter keeps");
        r->word[r->n_words++] = (unsigned)index;
    }
    r->out[k] = (uint32_t)v->c[0];
    r->lanes[k] = (uint8_t)(v->nan[0] & 0x3f);
    return 0;
}

static int store(spa_run *r, const spa_inst *in)
{
    const spa_val *p = spa_get(r, in, in->w[1]), *v = p ? spa_get(r, in, in->w[2]) : NULL;
    if (!v)
        return -1;
    if (p->state != V_POINTER)
        return spa_fail_at(r, in, "not a pointer the interpreter knows");
    spa_var_kind k = (spa_var_kind)r->m->var_kind[p->ptr_var];
    if (k == VAR_OUT && (v->undef & 1))
        return spa_fail_undef(r, in, "stores");
    if (k == VAR_OUT && p->ptr_n == 2)
        return store_output(r, in, p->ptr_idx[1], v);
    if (k == VAR_LOCAL && !p->ptr_n) {
        r->vals[r->m->bound + p->ptr_var] = *v;
        return 0;
    }
    return spa_fail_at(r, in, "a store the interpreter does not model");
}

int spa_access_chain(spa_run *r, const spa_inst *in, unsigned rid, const uint32_t *ops, unsigned nops)
{
    const spa_val *base = spa_get(r, in, ops[0]);
    if (!base)
        return -1;
    if (base->state != V_POINTER)
        return spa_fail_at(r, in, "not a pointer the interpreter knows");
    spa_val p = *base;
    for (unsigned j = 1; j < nops; j++) {
        const spa_val *ix = spa_get(r, in, ops[j]);
        if (!ix)
            return -1;
        if (ix->undef & 1)
            return spa_fail_undef(r, in, "addresses with");
        if (p.ptr_n == 2)
            return spa_fail_at(r, in, "an access chain deeper than the interface's");
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
        const spa_val *init = spa_get(r, in, in->w[4]);
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
    const spa_type *t = spa_scalar_of(r, in->type, &n);
    const uint32_t *w = in->w;
    spa_val *v;
    int32_t sid = r->m->spec_id[in->result];
    bool given = sid >= 0 && (unsigned)sid < r->n_spec;
    switch (in->opcode) {
    case SpvOpConstant: case SpvOpSpecConstant:
        v = spa_result_slot(r, in->result, 1);
        v->c[0] = w[3] | (in->n_words > 4 ? (uint64_t)w[4] << 32 : 0);
        if (in->opcode == SpvOpSpecConstant && given)
            v->c[0] = r->spec[sid];
        v->c[0] &= spa_mask_of(t->width);
        return 0;
    case SpvOpConstantTrue: case SpvOpConstantFalse: case SpvOpSpecConstantTrue: case SpvOpSpecConstantFalse:
        v = spa_result_slot(r, in->result, 1);
        v->c[0] = in->opcode == SpvOpConstantTrue || in->opcode == SpvOpSpecConstantTrue;
        if (in->opcode != SpvOpConstantTrue && in->opcode != SpvOpConstantFalse && given)
            v->c[0] = r->spec[sid] != 0;
        return 0;
    case SpvOpConstantNull:
        if (n > SPA_MAXC)
            return spa_fail_at(r, in, "type not modelled");
        spa_result_slot(r, in->result, n);
        return 0;
    case SpvOpConstantComposite: case SpvOpSpecConstantComposite:
        return spa_composite_construct(r, in, in->type, in->result, w + 3, in->n_words - 3);
    case SpvOpUndef:
        if (n > SPA_MAXC)
            return spa_fail_at(r, in, "type not modelled");
        v = spa_result_slot(r, in->result, n);
        v->undef = (uint8_t)((1u << n) - 1);
        spa_note_undef(r, in, "OpUndef");
        return 0;
    default:
        return spa_fail_at(r, in, NULL);
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
            rc = spa_eval(r, in, in->w[3], in->type, in->result, in->w + 4, in->n_words - 4);
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
        return spa_fail_at(r, from, "a branch outside the function");
    r->prev_label = r->cur_label;
    r->cur_label = label;
    unsigned i = (unsigned)m->label[label] + 1;
    enum { MAX_PHI = 32 };
    spa_val tmp[MAX_PHI];
    unsigned ids[MAX_PHI], n = 0;
    for (; i < m->fn_end && m->inst[i].opcode == SpvOpPhi; i++) {
        const spa_inst *phi = &m->inst[i];
        if (n == MAX_PHI)
            return spa_fail_at(r, phi, "too many OpPhi in one block");
        unsigned k = 3;
        while (k + 1 < phi->n_words && phi->w[k + 1] != r->prev_label)
            k += 2;
        if (k + 1 >= phi->n_words)
            return spa_fail_at(r, phi, "no incoming value for the block we came from");
        const spa_val *v = spa_get(r, phi, phi->w[k]);
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
            return spa_fail_at(r, in, "more steps than the interpreter runs (an endless loop?)");
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
            const spa_val *c = spa_get(r, in, w[1]);
            if (c && (c->undef & 1))
                return spa_fail_undef(r, in, "branches on");
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
                return spa_fail_at(r, in, NULL);
            rc = (unsigned)spa_eval(r, in, in->opcode, in->type, in->result, w + 3, in->n_words - 3);
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
    memset(r->round_chosen, 0, sizeof r->round_chosen);
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
    res.liberties = res.alternatives = r->liberties;
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
        else if (res.n_choices == old->n_choices)
            old->alternatives |= res.liberties;
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
        r.mode[w] = spa_mode_of(&m, rules, w);
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
