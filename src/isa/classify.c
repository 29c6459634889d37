/* Class verification: which generator classes a case really belongs to,
 * decided by exact evaluation of the op's model (its trace), never by the
 * generator's intent.  Also the generation entry point with its retries. */
#include <stdio.h>
#include <string.h>
#include "classify.h"

static bool near_tie(const fp_round_info *i)
{
    if (i->position == FP_EXACT || i->position == FP_TIE || i->shift < 8 || i->shift > 127)
        return false;
    fp_u128 half = (fp_u128)1 << (i->shift - 1);
    fp_u128 dist = i->rem > half ? i->rem - half : half - i->rem;
    return dist <= half >> 6;  /* within 2^-7 of a unit of the tie */
}

static bool is_tie(const fp_format *f, fp_value v)
{
    fp_round_info info;
    fp_round(f, v, FP_RNE, &info);
    return info.position == FP_TIE;
}

static bool lane_double_round(const isa_lane *l)
{
    if (l->product.kind != FPK_FINITE || l->addend.kind == FPK_NAN || l->addend.kind == FPK_INF)
        return false;
    fp_value fused = fp_add(l->product, l->addend);
    if (l->dest == &fp_f32) {
        /* The product rounded first turns the sum into a tie. */
        fp_value p32 = fp_decode(&fp_f32, fp_round(&fp_f32, l->product, FP_RNE, 0));
        return is_tie(&fp_f32, fp_add(p32, l->addend)) && !is_tie(&fp_f32, fused);
    }
    /* Narrow destination: the sum rounded to f32 lands on a tie of it. */
    fp_value s32 = fp_decode(&fp_f32, fp_round(&fp_f32, fused, FP_RNE, 0));
    return is_tie(l->dest, s32) && !is_tie(l->dest, fused);
}

/* One final rounding's classes. */
static uint32_t step_classes(const isa_step *s)
{
    uint32_t m = 0;
    if (s->info.position == FP_TIE)
        m |= 1u << GEN_TIE;
    if (near_tie(&s->info))
        m |= 1u << GEN_NEAR_TIE;
    if (s->info.tiny && s->exact.kind == FPK_FINITE)
        m |= 1u << GEN_SUBNORMAL;
    if (s->info.overflow)
        m |= 1u << GEN_OVERFLOW;
    return m;
}

/* What a lane's sources are: subnormal, not finite. */
static uint32_t source_classes(const isa_lane *l)
{
    uint32_t m = 0;
    for (int j = 0; j < 3; j++) {
        if (l->src_subnormal[j])
            m |= 1u << GEN_SUBNORMAL;
        if (l->src[j].kind != FPK_FINITE)
            m |= 1u << GEN_SPECIAL;
    }
    return m;
}

/* Where the value the lane's last rounding rounds lies: near the subnormal
 * or overflow threshold, cancelled; and whether it rounds twice. */
static uint32_t sum_classes(const isa_lane *l, uint32_t want)
{
    uint32_t m = 0;
    fp_value v = l->exact;
    if (v.kind == FPK_FINITE) {
        int msb = fp_msb(v);
        if (msb < l->dest->emin + 2)
            m |= 1u << GEN_SUBNORMAL;
        if (msb >= l->dest->emax - 1)
            m |= 1u << GEN_OVERFLOW;
        int big = -100000;
        if (l->product.kind == FPK_FINITE)
            big = fp_msb(l->product);
        if (l->addend.kind == FPK_FINITE && fp_msb(l->addend) > big)
            big = fp_msb(l->addend);
        if (msb < big - (int)l->dest->precision)
            m |= 1u << GEN_CANCEL;
    } else if (v.kind == FPK_ZERO && l->product.kind != FPK_ZERO) {
        m |= 1u << GEN_CANCEL;  /* exact cancellation to zero */
    }
    /* The costly check only when asked for. */
    if ((want & (1u << GEN_DOUBLE_ROUND)) && lane_double_round(l))
        m |= 1u << GEN_DOUBLE_ROUND;
    return m;
}

/* at_result: only the final roundings that write the result, and no source's classes. */
static uint32_t trace_classes(const isa_trace *t, uint32_t want, bool at_result)
{
    uint32_t m = 1u << GEN_RANDOM;
    for (unsigned i = 0; i < t->n_steps; i++)
        if (t->step[i].final && !(at_result && t->step[i].intermediate))
            m |= step_classes(&t->step[i]);
    for (int k = 0; k < 2; k++) {
        const isa_lane *l = &t->lane[k];
        if (!l->used)
            continue;
        uint32_t src = source_classes(l);
        m |= sum_classes(l, want) | (at_result ? src & (1u << GEN_SPECIAL) : src);
    }
    return m;
}

uint32_t isa_trace_classes(const isa_trace *t, uint32_t want) { return trace_classes(t, want, false); }

uint32_t isa_case_classes(const isa_instance *in, const uint32_t *words)
{
    isa_trace t;
    uint32_t out[ISA_MAX_OUT];
    in->op->impl->eval(in, words, out, &t);
    if (in->op->impl->classify)
        return in->op->impl->classify(in, words, &t, ~0u);
    return isa_trace_classes(&t, ~0u);
}

static uint32_t classes_of(const isa_instance *in, const uint32_t *words, const isa_trace *t, uint32_t want)
{
    return in->op->impl->classify ? in->op->impl->classify(in, words, t, want) : isa_trace_classes(t, want);
}

uint32_t isa_generate_eval(const isa_instance *in, gen_class c, gen_rng *rng, uint32_t *words, uint32_t *out,
                           isa_trace *t)
{
    uint32_t m = 0;
    /* A few fresh draws when a construction misses; the rate stays honest
     * because the report counts the class of the case finally kept. */
    for (int attempt = 0; attempt < 4; attempt++) {
        bool reachable = in->op->impl->construct(in, c, rng, words);
        in->op->impl->eval(in, words, out, t);
        m = classes_of(in, words, t, 1u << c);
        if ((m & (1u << c)) || !reachable)
            break;
    }
    return m;
}

uint32_t isa_generate(const isa_instance *in, gen_class c, gen_rng *rng, uint32_t *words)
{
    isa_trace t;
    uint32_t out[ISA_MAX_OUT];
    return isa_generate_eval(in, c, rng, words, out, &t);
}

void isa_verdict_of_trace(const isa_instance *in, const uint32_t *words, const isa_trace *t, uint32_t want,
                          isa_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->classes = classes_of(in, words, t, want);
    /* A family's own classifier judges the whole op: no steps to tell apart. */
    v->at_result = in->op->impl->classify ? v->classes : trace_classes(t, want, true);
    v->tie_exp = isa_trace_tie_exponent(t);
    isa_trace_cells(t, v->cells);
}

void isa_eval_exact(const isa_instance *in, const uint32_t *words, uint32_t *out, uint32_t want, isa_verdict *v)
{
    isa_trace t;
    in->op->impl->eval(in, words, out, &t);
    isa_verdict_of_trace(in, words, &t, want, v);
}

bool isa_has_fast(const isa_op *op) { return op->impl->fast != NULL; }

void isa_eval_fast(const isa_instance *in, const uint32_t *words, uint32_t *out, uint32_t want, isa_verdict *v)
{
    if (in->op->impl->fast) {
        in->op->impl->fast(in, words, out, v, want);
        if (v && in->op->impl->classify)
            v->at_result = v->classes;  /* as isa_verdict_of_trace: the family judges the whole op */
    } else {
        isa_eval_exact(in, words, out, want, v);
    }
}

void isa_eval_batch(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out)
{
    const isa_family_impl *impl = in->op->impl;
    unsigned ni = in->op->n_in, no = in->op->n_out;
    if (impl->fast_batch)
        impl->fast_batch(in, words, n, out);
    else if (impl->fast)
        for (size_t i = 0; i < n; i++)
            impl->fast(in, words + i * ni, out + i * no, NULL, 0);
    else
        for (size_t i = 0; i < n; i++)
            impl->eval(in, words + i * ni, out + i * no, NULL);
}

/* After a first attempt: a case that missed its class is built again from
 * where its draws left off, up to four attempts in all (isa_generate_eval's
 * draws and retries, so the same cases). */
/* A case to build again: it missed its class, and the class is within reach. */
static inline bool to_rebuild(const isa_verdict *v, gen_class c, bool reachable)
{
    return !(v->classes & (1u << c)) && reachable;
}

static inline void rebuild_miss(const isa_instance *in, gen_class c, gen_rng *rng, bool reachable, uint32_t *words,
                         uint32_t *out, isa_verdict *v)
{
    for (int attempt = 1; attempt < 4 && to_rebuild(v, c, reachable); attempt++) {
        reachable = in->op->impl->construct(in, c, rng, words);
        isa_eval_fast(in, words, out, 1u << c, v);
    }
}

uint32_t isa_generate_fast(const isa_instance *in, gen_class c, gen_rng *rng, uint32_t *words, uint32_t *out,
                           isa_verdict *v)
{
    bool reachable = in->op->impl->construct(in, c, rng, words);
    isa_eval_fast(in, words, out, 1u << c, v);
    rebuild_miss(in, c, rng, reachable, words, out, v);
    return v->classes;
}

void isa_eval_fast_many(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out, const uint32_t *want,
                        isa_verdict *v)
{
    const isa_family_impl *impl = in->op->impl;
    unsigned ni = in->op->n_in, no = in->op->n_out;
    if (!impl->fast_verdicts) {
        for (size_t i = 0; i < n; i++)
            isa_eval_fast(in, words + i * ni, out + i * no, want[i], &v[i]);
        return;
    }
    impl->fast_verdicts(in, words, n, out, v, want);
}

/* Tuples of at most this many words in and out are rebuilt a batch at a
 * time; wider ones (the tiles) one at a time. */
#define REBUILD_WORDS 8

/* n cases built in a row: by the family's construct_many where it has one
 * (the same cases, made many at a time), else one at a time. */
static void construct_n(const isa_instance *in, const gen_class *c, gen_rng *rng, size_t n, uint32_t *words,
                        bool *reachable)
{
    const isa_family_impl *impl = in->op->impl;
    if (impl->construct_many) {
        impl->construct_many(in, c, rng, n, words, reachable);
        return;
    }
    for (size_t t = 0; t < n; t++)
        reachable[t] = impl->construct(in, c[t], &rng[t], words + t * in->op->n_in);
}

/* The cases at[0..k) of a block, which missed their class, rebuilt as
 * rebuild_miss rebuilds each (from where its draws left off, up to four
 * attempts in all), but together: gathered, built by construct_n and
 * judged by isa_eval_fast_many, then put back.  A case's draws are its own
 * stream's, so the cases are rebuild_miss's.  One at a time the rebuilds
 * cost v_fma_f32 about 94 instructions a case on average (7% of its cases
 * miss at first); batched, its tie class went from 769 to 686 (callgrind). */
static void rebuild_batch(const isa_instance *in, uint32_t *at, size_t k, const gen_class *c, gen_rng *rng,
                          bool *reachable, uint32_t *words, uint32_t *out, isa_verdict *v)
{
    unsigned ni = in->op->n_in, no = in->op->n_out;
    uint32_t want[ISA_REBUILD_BATCH];
    gen_class cls[ISA_REBUILD_BATCH];
    gen_rng r[ISA_REBUILD_BATCH];
    bool ok[ISA_REBUILD_BATCH];
    uint32_t w[ISA_REBUILD_BATCH * REBUILD_WORDS], o[ISA_REBUILD_BATCH * REBUILD_WORDS];
    isa_verdict vv[ISA_REBUILD_BATCH];
    for (size_t j = 0; j < k; j++) {
        cls[j] = c[at[j]];
        r[j] = rng[at[j]];
        want[j] = 1u << cls[j];
    }
    for (int attempt = 1; attempt < 4 && k; attempt++) {
        construct_n(in, cls, r, k, w, ok);
        isa_eval_fast_many(in, w, k, o, want, vv);
        size_t still = 0;  /* the misses left, packed to the front for the next attempt */
        for (size_t j = 0; j < k; j++) {
            size_t t = at[j];
            rng[t] = r[j];
            reachable[t] = ok[j];
            memcpy(words + t * ni, w + j * ni, ni * sizeof *w);
            memcpy(out + t * no, o + j * no, no * sizeof *o);
            v[t] = vv[j];
            if (to_rebuild(&vv[j], cls[j], ok[j])) {
                at[still] = at[j];
                cls[still] = cls[j];
                r[still] = r[j];
                want[still] = want[j];
                still++;
            }
        }
        k = still;
    }
}

/* A block's misses rebuilt ISA_REBUILD_BATCH at a time (rebuild_batch), or
 * one at a time where the tuples are wider than a batch's arrays hold. */
static void rebuild_misses(const isa_instance *in, const gen_class *c, gen_rng *rng, bool *reachable, size_t m,
                           uint32_t *words, uint32_t *out, isa_verdict *v)
{
    unsigned ni = in->op->n_in, no = in->op->n_out;
    if (ni > REBUILD_WORDS || no > REBUILD_WORDS) {
        for (size_t t = 0; t < m; t++)
            rebuild_miss(in, c[t], &rng[t], reachable[t], words + t * ni, out + t * no, &v[t]);
        return;
    }
    uint32_t at[ISA_REBUILD_BATCH];
    size_t k = 0;
    for (size_t t = 0; t < m; t++) {
        if (!to_rebuild(&v[t], c[t], reachable[t]))
            continue;
        at[k++] = (uint32_t)t;
        if (k == ISA_REBUILD_BATCH) {
            rebuild_batch(in, at, k, c, rng, reachable, words, out, v);
            k = 0;
        }
    }
    rebuild_batch(in, at, k, c, rng, reachable, words, out, v);
}

void isa_generate_fast_many(const isa_instance *in, const gen_class *c, gen_rng *rng, size_t n, uint32_t *words,
                            uint32_t *out, isa_verdict *v)
{
    unsigned ni = in->op->n_in, no = in->op->n_out;
    bool reachable[ISA_GENERATE_BLOCK];
    uint32_t want[ISA_GENERATE_BLOCK];
    for (size_t first = 0; first < n; first += ISA_GENERATE_BLOCK) {
        size_t m = n - first < ISA_GENERATE_BLOCK ? n - first : ISA_GENERATE_BLOCK;
        construct_n(in, c + first, rng + first, m, words + first * ni, reachable);
        for (size_t t = 0; t < m; t++)
            want[t] = 1u << c[first + t];
        isa_eval_fast_many(in, words + first * ni, m, out + first * no, want, v + first);
        rebuild_misses(in, c + first, rng + first, reachable, m, words + first * ni, out + first * no, v + first);
    }
}

static int words_text(char *buf, size_t n, const uint32_t *w, unsigned count)
{
    int k = 0;
    for (unsigned i = 0; i < count && (size_t)k < n; i++)
        k += snprintf(buf + k, n - (size_t)k, "%s%08x", i ? " " : "", w[i]);
    return k;
}

bool isa_verdict_equal(const isa_verdict *a, const isa_verdict *b)
{
    return a->classes == b->classes && a->at_result == b->at_result && a->tie_exp == b->tie_exp &&
           memcmp(a->cells, b->cells, sizeof a->cells) == 0;
}

bool isa_fast_audit(const isa_instance *in, const uint32_t *words, const uint32_t *out, const isa_verdict *v,
                    uint32_t want, char *why, size_t n)
{
    uint32_t exact_out[ISA_MAX_OUT];
    isa_verdict exact;
    isa_eval_exact(in, words, exact_out, want, &exact);
    const isa_op *op = in->op;
    bool same_out = memcmp(out, exact_out, op->n_out * sizeof out[0]) == 0;
    bool same_verdict = !v || isa_verdict_equal(v, &exact);
    if (same_out && same_verdict)
        return true;
    char ctl[256], par[256], tuple[ISA_MAX_IN * 9 + 1], fo[ISA_MAX_OUT * 9 + 1], eo[ISA_MAX_OUT * 9 + 1];
    words_text(tuple, sizeof tuple, words, op->n_in);
    words_text(fo, sizeof fo, out, op->n_out);
    words_text(eo, sizeof eo, exact_out, op->n_out);
    int k = snprintf(why, n, "the fast path and the exact model differ on %s --ctrl %s --param %s, tuple %s: ", op->name,
                     isa_controls_text(in, ctl, sizeof ctl), isa_params_text(in, par, sizeof par), tuple);
    if (!same_out && k >= 0 && (size_t)k < n)
        k += snprintf(why + k, n - (size_t)k, "outputs %s (fast) vs %s (exact)%s", fo, eo, same_verdict ? "" : "; ");
    if (!same_verdict && k >= 0 && (size_t)k < n) {
        unsigned cells_fast = 0, cells_exact = 0;
        for (int i = 0; i < ISA_CELL_WORDS; i++) {
            cells_fast += (unsigned)__builtin_popcountll(v->cells[i]);
            cells_exact += (unsigned)__builtin_popcountll(exact.cells[i]);
        }
        snprintf(why + k, n - (size_t)k,
                 "classes %#x vs %#x, at the result %#x vs %#x, tie exponent %d vs %d, rounding cells %s (%u vs %u)",
                 v->classes, exact.classes, v->at_result, exact.at_result, v->tie_exp, exact.tie_exp,
                 memcmp(v->cells, exact.cells, sizeof v->cells) ? "differ" : "equal", cells_fast, cells_exact);
    }
    return false;
}

int isa_trace_tie_exponent(const isa_trace *t)
{
    for (unsigned i = 0; i < t->n_steps; i++)
        if (t->step[i].final && t->step[i].info.position == FP_TIE)
            return t->step[i].info.ulp_exp;
    return ISA_NO_EXPONENT;
}

unsigned isa_op_classes(const isa_op *op, const gen_class *wanted, unsigned n, gen_class *out)
{
    uint32_t set = op->classes ? op->classes : GEN_FLOAT_CLASSES;
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++)
        if (set & (1u << wanted[i]))
            out[k++] = wanted[i];
    return k;
}

void isa_trace_cells(const isa_trace *t, uint64_t *cells)
{
    for (unsigned s = 0; s < t->n_steps; s++) {
        const isa_step *st = &t->step[s];
        if (!st->final)
            continue;
        unsigned cell = isa_step_cell(st);
        cells[cell / 64] |= 1ull << (cell % 64);
    }
}
