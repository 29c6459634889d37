/* Class verification: which generator classes a case really belongs to,
 * decided by exact evaluation of the op's model (its trace), never by the
 * generator's intent.  Also the generation entry point with its retries. */
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

uint32_t isa_trace_classes(const isa_trace *t, uint32_t want)
{
    uint32_t m = 1u << GEN_RANDOM;
    for (unsigned i = 0; i < t->n_steps; i++) {
        const isa_step *s = &t->step[i];
        if (!s->final)
            continue;
        if (s->info.position == FP_TIE)
            m |= 1u << GEN_TIE;
        if (near_tie(&s->info))
            m |= 1u << GEN_NEAR_TIE;
        if (s->info.tiny && s->exact.kind == FPK_FINITE)
            m |= 1u << GEN_SUBNORMAL;
        if (s->info.overflow)
            m |= 1u << GEN_OVERFLOW;
    }
    for (int k = 0; k < 2; k++) {
        const isa_lane *l = &t->lane[k];
        if (!l->used)
            continue;
        for (int j = 0; j < 3; j++) {
            if (l->src_subnormal[j])
                m |= 1u << GEN_SUBNORMAL;
            if (l->src[j].kind != FPK_FINITE)
                m |= 1u << GEN_SPECIAL;
        }
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
    }
    return m;
}

uint32_t isa_case_classes(const isa_instance *in, const uint32_t *words)
{
    isa_trace t;
    uint32_t out[ISA_MAX_OUT];
    in->op->impl->eval(in, words, out, &t);
    if (in->op->impl->classify)
        return in->op->impl->classify(in, words, &t, ~0u);
    return isa_trace_classes(&t, ~0u);
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
        m = in->op->impl->classify ? in->op->impl->classify(in, words, t, 1u << c) : isa_trace_classes(t, 1u << c);
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
        unsigned kind = st->exact.kind == FPK_NAN ? 5 : st->exact.kind == FPK_INF ? 4 : st->exact.kind == FPK_ZERO ? 0
                        : st->info.overflow ? 3 : st->info.tiny ? 1 : 2;
        unsigned cell = kind << 5 | (unsigned)(st->info.position != FP_EXACT) << 4 | (unsigned)st->info.lsb << 3 |
                        (unsigned)st->info.guard << 2 | (unsigned)st->info.sticky << 1 | (unsigned)st->exact.sign;
        cells[cell / 64] |= 1ull << (cell % 64);
    }
}
