/* spirv/allowed: float operations with the liberties the Vulkan rules
 * leave a device, on exact values from the fp kit.  Each operation returns
 * every value it may produce (deduplicated, the strict one first), each with
 * the liberties that produce it; the interpreter forks over them. */
#include <string.h>
#include "allowed_internal.h"

const fp_format *spa_format_of(unsigned bits)
{
    return bits == 16 ? &fp_f16 : bits == 32 ? &fp_f32 : bits == 64 ? &fp_f64 : NULL;
}

static uint64_t sign_bit(const fp_format *f) { return 1ull << (f->bits - 1); }
static uint64_t zero_bits(const fp_format *f, bool negative) { return negative ? sign_bit(f) : 0; }

bool spa_is_inf_or_nan(const fp_format *f, uint64_t bits)
{
    uint64_t exp_mask = ((1ull << f->exp_bits) - 1) << (f->precision - 1);
    return (bits & exp_mask) == exp_mask;
}

static bool is_zero_bits(const fp_format *f, uint64_t bits) { return (bits & ~sign_bit(f)) == 0; }

static bool same_value(const fp_value *a, const fp_value *b)
{
    if (a->kind != b->kind || a->sign != b->sign)
        return false;
    if (a->kind != FPK_FINITE)
        return true;
    return a->jammed == b->jammed && fp_msb(*a) == fp_msb(*b) && fp_lsb(*a) == fp_lsb(*b) &&
           fp_compare_mag(*a, *b) == 0;
}

/* An operation's own liberty (an unfused Fma, a contraction, a conversion's
 * rounding) ranks before a denormal or special-value one: an unfused Fma
 * whose result underflows to zero is no flush, though a flush of the fused
 * result gives the same bits. */
unsigned spa_liberty_rank(unsigned lib)
{
    static const unsigned order[] = {SPA_FMA_UNFUSED, SPA_CONTRACTED, SPA_CONVERT_ROUNDING, SPA_ROUNDING_MODE,
                                     SPA_FLUSH_INPUT, SPA_FLUSH_RESULT, SPA_SIGNED_ZERO, SPA_INF_NAN};
    for (unsigned i = 0; i < sizeof order / sizeof *order; i++)
        if (lib & order[i])
            return i;
    return sizeof order / sizeof *order;
}

static bool preferred(unsigned lib, unsigned than)
{
    int a = __builtin_popcount(lib), b = __builtin_popcount(than);
    return a < b || (a == b && spa_liberty_rank(lib) < spa_liberty_rank(than));
}

/* Keeps one candidate per distinct outcome: the one with the fewest
 * liberties, the better ranked on a tie (the strict one, with none, stays
 * first). */
void spa_cands_add_open(spa_fcands *out, const fp_format *f, uint64_t bits, unsigned lib, const fp_value *prod,
                        bool open)
{
    for (unsigned i = 0; i < out->n; i++) {
        spa_fcand *c = &out->c[i];
        /* An open zero stands for both zeros. */
        bool same = c->bits == bits || (f && open && c->open && is_zero_bits(f, bits) && is_zero_bits(f, c->bits));
        if (!same || c->has_prod != (prod != NULL) || (prod && !same_value(&c->prod, prod)))
            continue;
        if (preferred(lib, c->lib))
            c->lib = lib;
        c->open |= open;
        return;
    }
    if (out->n == SPA_MAX_CANDS) {
        out->overflow = true;
        return;
    }
    spa_fcand *c = &out->c[out->n++];
    memset(c, 0, sizeof *c);
    c->bits = bits;
    c->lib = lib;
    c->open = open;
    if (prod) {
        c->has_prod = true;
        c->prod = *prod;
    }
}

void spa_cands_add(spa_fcands *out, uint64_t bits, unsigned lib, const fp_value *prod)
{
    spa_cands_add_open(out, NULL, bits, lib, prod, false);
}

unsigned spa_read_options(const fp_format *f, uint64_t bits, const spa_fmode *m, uint64_t opt[3], unsigned lib[3])
{
    bool negative = (bits & sign_bit(f)) != 0;
    opt[0] = bits, lib[0] = 0;
    if (is_zero_bits(f, bits) && !m->szinp) {   /* a zero's sign is not kept */
        opt[1] = bits ^ sign_bit(f), lib[1] = SPA_SIGNED_ZERO;
        return 2;
    }
    if (!fp_is_subnormal_bits(f, bits) || m->preserve)
        return 1;
    unsigned n = 0;
    if (m->flush) {   /* the flush is the only behaviour; its sign is kept */
        opt[n] = zero_bits(f, negative), lib[n++] = 0;
    } else {
        opt[n] = bits, lib[n++] = 0;
        opt[n] = zero_bits(f, negative), lib[n++] = SPA_FLUSH_INPUT;
    }
    if (!m->szinp)
        opt[n] = zero_bits(f, !negative), lib[n++] = (m->flush ? 0 : SPA_FLUSH_INPUT) | SPA_SIGNED_ZERO;
    return n;
}

/* The neighbour of v on f's grid in direction dir (RTP, RTN, RTZ or RTE). */
static uint64_t round_dir(const fp_format *f, fp_value v, spa_rounding dir)
{
    if (dir == SPA_RND_RTE)
        return fp_round(f, v, FP_RNE, NULL);
    fp_round_info info;
    uint64_t toward_zero = fp_round(f, v, FP_RTZ, &info);
    bool inexact = v.kind == FPK_FINITE && (info.position != FP_EXACT || info.overflow);
    bool away = inexact && ((dir == SPA_RND_RTP && !v.sign) || (dir == SPA_RND_RTN && v.sign));
    /* One step up in magnitude: the next bit pattern (max finite -> inf). */
    return away ? toward_zero + 1 : toward_zero;
}

unsigned spa_open_options(const fp_format *f, uint64_t bits, const spa_fmode *m, uint64_t opt[3], unsigned lib[3])
{
    bool negative = (bits & sign_bit(f)) != 0;
    opt[0] = bits, lib[0] = 0;
    if (is_zero_bits(f, bits) && !m->szinp) {
        opt[1] = bits ^ sign_bit(f), lib[1] = SPA_SIGNED_ZERO;
        return 2;
    }
    if (!fp_is_subnormal_bits(f, bits) || m->preserve || m->flush)
        return 1;
    opt[1] = zero_bits(f, negative), lib[1] = SPA_FLUSH_RESULT;
    if (m->szinp)
        return 2;
    opt[2] = zero_bits(f, !negative), lib[2] = SPA_FLUSH_RESULT | SPA_SIGNED_ZERO;
    return 3;
}

/* A rounded value as written.  Under DenormFlushToZero a denormal becomes a
 * zero of its sign, the only behaviour.  Otherwise a denormal's flush and a
 * zero's sign are left open: every float instruction that reads the value
 * takes them itself (spa_read_options), and the interpreter settles them
 * where the bits are observed otherwise (spa_open_options: a store, an
 * integer instruction), so that a choice that changes nothing forks nothing. */
static void written_options(const fp_format *f, uint64_t r, const spa_fmode *m, unsigned lib, spa_fcands *out)
{
    if (spa_is_inf_or_nan(f, r) && !m->szinp)
        out->inf_nan = true;
    bool negative = (r & sign_bit(f)) != 0, denormal = fp_is_subnormal_bits(f, r);
    if (denormal && m->flush && !m->preserve)
        r = zero_bits(f, negative);
    if (m->lazy) {
        bool open = (denormal && !m->preserve && !m->flush) || (is_zero_bits(f, r) && !m->szinp);
        spa_cands_add_open(out, f, r, lib, NULL, open);
        return;
    }
    /* Observed as written: every way it may be written is a candidate. */
    uint64_t opt[3];
    unsigned l[3], n = spa_open_options(f, r, m, opt, l);
    for (unsigned i = 0; i < n; i++)
        spa_cands_add(out, opt[i], lib | l[i], NULL);
}

void spa_result_options(const fp_format *f, fp_value exact, const spa_fmode *m, spa_rounding conv_round, bool conv,
                        unsigned lib_in, spa_fcands *out)
{
    spa_rounding strict = conv ? conv_round : m->round;
    if (strict == SPA_RND_FREE)
        strict = SPA_RND_RTE;
    written_options(f, round_dir(f, exact, strict), m, lib_in, out);
    if (conv && conv_round == SPA_RND_FREE) {
        /* A conversion's rounding is the implementation's: either neighbour. */
        written_options(f, round_dir(f, exact, SPA_RND_RTZ), m, lib_in | SPA_CONVERT_ROUNDING, out);
        written_options(f, round_dir(f, exact, exact.sign ? SPA_RND_RTN : SPA_RND_RTP), m,
                        lib_in | SPA_CONVERT_ROUNDING, out);
    }
    /* Arithmetic arrives with its mode decided: where none is in force the
     * interpreter chooses one per path and width (allowed_fops.c). */
}

static void note_specials(const fp_format *f, const uint64_t *a, unsigned n, const spa_fmode *m, spa_fcands *out)
{
    for (unsigned i = 0; i < n && !m->szinp; i++)
        if (spa_is_inf_or_nan(f, a[i]))
            out->inf_nan = true;
}

static fp_value exact_of(spa_fop op, const fp_format *f, uint64_t a, uint64_t b)
{
    fp_value x = fp_decode(f, a), y = fp_decode(f, b);
    switch (op) {
    case SPA_F_ADD: return fp_add(x, y);
    case SPA_F_SUB: return fp_sub(x, y);
    case SPA_F_MUL: return fp_mul(x, y);
    case SPA_F_NEG: return fp_neg(x);
    case SPA_F_ABS: return fp_abs(x);
    default: return fp_nan();
    }
}

/* GLSL.std.450 Fma: fused (strict), or a rounded multiply then a rounded
 * add, each with its own liberties (SPA_FMA_UNFUSED). */
static void fma_options(const fp_format *f, uint64_t a, uint64_t b, uint64_t c, const spa_fmode *m, unsigned lib,
                        spa_fcands *out)
{
    fp_value prod = fp_mul(fp_decode(f, a), fp_decode(f, b));
    spa_result_options(f, fp_add(prod, fp_decode(f, c)), m, SPA_RND_FREE, false, lib, out);
    spa_fcands mul = {0};
    spa_fmode inner = *m;   /* the rounded product is read by the add only */
    inner.lazy = true;
    spa_result_options(f, prod, &inner, SPA_RND_FREE, false, lib | SPA_FMA_UNFUSED, &mul);
    for (unsigned i = 0; i < mul.n; i++) {
        /* The rounded product is read by the add like any operand. */
        uint64_t opt[3];
        unsigned l[3], n = spa_read_options(f, mul.c[i].bits, m, opt, l);
        for (unsigned j = 0; j < n; j++)
            spa_result_options(f, fp_add(fp_decode(f, opt[j]), fp_decode(f, c)), m, SPA_RND_FREE, false,
                               mul.c[i].lib | l[j], out);
    }
    out->overflow |= mul.overflow;
    out->inf_nan |= mul.inf_nan;
}

void spa_float_arith(spa_fop op, const fp_format *f, const uint64_t *a, const spa_fmode *m, spa_fcands *out)
{
    unsigned n_args = op == SPA_F_FMA ? 3 : op == SPA_F_NEG || op == SPA_F_ABS ? 1 : 2;
    uint64_t opt[3][3];
    unsigned lib[3][3], n[3] = {1, 1, 1};
    for (unsigned i = 0; i < n_args; i++)
        n[i] = spa_read_options(f, a[i], m, opt[i], lib[i]);
    note_specials(f, a, n_args, m, out);
    for (unsigned i = 0; i < n[0]; i++)
        for (unsigned j = 0; j < n[1]; j++)
            for (unsigned k = 0; k < n[2]; k++) {
                unsigned l = lib[0][i] | (n_args > 1 ? lib[1][j] : 0) | (n_args > 2 ? lib[2][k] : 0);
                uint64_t x = opt[0][i], y = n_args > 1 ? opt[1][j] : 0, z = n_args > 2 ? opt[2][k] : 0;
                if (op == SPA_F_FMA) {
                    fma_options(f, x, y, z, m, l, out);
                    continue;
                }
                fp_value v = exact_of(op, f, x, y);
                spa_fcands one = {0};
                spa_result_options(f, v, m, SPA_RND_FREE, false, l, &one);
                out->inf_nan |= one.inf_nan;
                for (unsigned c = 0; c < one.n; c++)
                    spa_cands_add_open(out, f, one.c[c].bits, one.c[c].lib, op == SPA_F_MUL ? &v : NULL,
                                       one.c[c].open);
            }
}

void spa_float_fused(const fp_format *f, fp_value prod, uint64_t c, bool prod_first, bool subtract,
                     const spa_fmode *m, unsigned lib, spa_fcands *out)
{
    uint64_t opt[3];
    unsigned l[3], n = spa_read_options(f, c, m, opt, l);
    for (unsigned i = 0; i < n; i++) {
        fp_value y = fp_decode(f, opt[i]);
        fp_value v = prod_first ? (subtract ? fp_sub(prod, y) : fp_add(prod, y))
                                : (subtract ? fp_sub(y, prod) : fp_add(y, prod));
        spa_result_options(f, v, m, SPA_RND_FREE, false, lib | l[i], out);
    }
}

void spa_float_convert(const fp_format *from, const fp_format *to, uint64_t a, const spa_fmode *m_from,
                       const spa_fmode *m_to, spa_rounding conv_round, spa_fcands *out)
{
    uint64_t opt[3];
    unsigned l[3], n = spa_read_options(from, a, m_from, opt, l);
    note_specials(from, &a, 1, m_from, out);
    for (unsigned i = 0; i < n; i++)
        spa_result_options(to, fp_decode(from, opt[i]), m_to, conv_round, true, l[i], out);
}

void spa_int_to_float(const fp_format *f, fp_value v, const spa_fmode *m, spa_rounding conv_round, spa_fcands *out)
{
    spa_result_options(f, v, m, conv_round, true, 0, out);
}

static bool compare_values(spa_cmp c, bool ordered, fp_value x, fp_value y)
{
    if (x.kind == FPK_NAN || y.kind == FPK_NAN)
        return !ordered;
    /* Order: -inf < negatives < zeros < positives < inf. */
    int sx = x.kind == FPK_ZERO ? 0 : x.sign ? -1 : 1, sy = y.kind == FPK_ZERO ? 0 : y.sign ? -1 : 1;
    int order;
    if (sx != sy)
        order = sx < sy ? -1 : 1;
    else if (sx == 0)
        order = 0;
    else {
        int mag;
        if (x.kind == FPK_INF || y.kind == FPK_INF)
            mag = (x.kind == FPK_INF) - (y.kind == FPK_INF);
        else
            mag = fp_compare_mag(x, y);
        order = sx < 0 ? -mag : mag;
    }
    switch (c) {
    case SPA_CMP_EQ: return order == 0;
    case SPA_CMP_NE: return order != 0;
    case SPA_CMP_LT: return order < 0;
    case SPA_CMP_GT: return order > 0;
    case SPA_CMP_LE: return order <= 0;
    case SPA_CMP_GE: return order >= 0;
    }
    return false;
}

void spa_float_compare(spa_cmp c, bool ordered, const fp_format *f, uint64_t a, uint64_t b, const spa_fmode *m,
                       spa_fcands *out)
{
    uint64_t oa[3], ob[3];
    unsigned la[3], lb[3], na = spa_read_options(f, a, m, oa, la), nb = spa_read_options(f, b, m, ob, lb);
    uint64_t both[2] = {a, b};
    note_specials(f, both, 2, m, out);
    for (unsigned i = 0; i < na; i++)
        for (unsigned j = 0; j < nb; j++)
            spa_cands_add(out, compare_values(c, ordered, fp_decode(f, oa[i]), fp_decode(f, ob[j])), la[i] | lb[j],
                          NULL);
}
