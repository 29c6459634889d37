/* The closed-form designs of rdna2_closed.c, a vector of cases at a time
 * (LANES_N: four, or eight in lanes.h's wide build).
 *
 * Same cases, bit for bit, as rdna2_closed_design called on each: the same
 * draws from each case's stream (three words an attempt, a fourth where the
 * scalar design draws one), the same double arithmetic in the same order,
 * with selects where it branches.  Each case keeps its own stream, so the
 * cases still without a design after an attempt are packed into whole
 * vectors again for the next; a case that fails eight attempts is left
 * where its stream stopped, for the caller's fallback.  tests/test_closed_lanes.c holds the two to each
 * other on every class, format, form and forced sign, and with Ks as b and as c.
 *
 * Why it is faster: a block's cases of one class share every constant
 * (format, class, forced signs), so the branches of the scalar design
 * become selects over a vector of cases, and the random draws are streams
 * stepped together. */
#include "rdna2_lanes_kit.h"

/* What an instance's lane fixes for every attempt (rdna2_closed_design's
 * reading of its rdna2_lane): the product's binades, the factor negated with
 * c where abs forces c's sign, and the literal K where it is b or c (where
 * it is, a constant of each entry point: a branch on it cost the lanes
 * without K 1.6% more instructions a case). */
typedef struct {
    int lo, hi;      /* rdna2_closed_target_range */
    int head_lo, head_hi;  /* rdna2_closed_head_range: the tie shapes 0-2's */
    int flip;        /* rdna2_respect_forced_signs' free factor, or -1 */
    int side;        /* rdna2_forced_side */
    int short_mode;  /* a short product: SHORT_NEVER, SHORT_ALWAYS or SHORT_COIN (d1's bit 49) */
    int budget;      /* a short product's significant bits (pick_products counts K's own where it is b) */
    bool rounds_twice;  /* the lane's (a MIX f16 form's record): a near tie aims from the product rounded to f32 */
    double k;        /* K's value; its top bit's exponent, its bits above the lowest */
    int k_exp, k_span;
    uint64_t k_bits;
} closed_params;

/* rdna2_closed.c's short_budget, read once a call: whether it is 0 (never),
 * its value (always) or either by a coin. */
enum { SHORT_NEVER, SHORT_ALWAYS, SHORT_COIN };

typedef struct {
    vd x;     /* the exact product */
    vu a, b;  /* its factors' encodings */
} products;

/* rdna2_closed.c's pick_product, short_bits a mask (the lanes whose
 * product is short: `budget` significant bits between the factors, a lane's own). */
LANES products pick_products(lane_formats FS, bool mixed, bool k_is_b, const int forced[3], const closed_params *P,
                             vl target, vl short_bits, vl budget, vu d0, vu d1, vu d2)
{
    lane_format Fa = FS.a, Fb = FS.b;
    if (k_is_b)  /* K's own bits count against the budget, as pick_product's */
        budget = max_l(ALL(2), budget - P->k_span);
    vl ea = k_is_b ? target - P->k_exp
                       : field(d1, 16, max_l(ALL(Fa.emin), target - Fb.emax), min_l(ALL(Fa.emax), target - Fb.emin));
    vl eb = target - ea;
    /* rdna2_closed.c's trailing_zeros: a short a of sa bits, b the rest of
     * the budget (the clamps bind only where the budget is above a factor's
     * precision, which happens only in a mixed lane: a narrow c's budget,
     * or an f32 c's or result's with an f16 factor). */
    vl sa_bits = field(d2, 0, ALL(1), budget - 1);
    if (mixed)
        sa_bits = min_l(sa_bits, ALL(Fa.p));
    vl tza = pick(short_bits, Fa.p - sa_bits, pick(((d0 >> 52) & 3) != 0, ALL(0), field(d2, 0, ALL(0), ALL(Fa.p - 1))));
    vu ma = significand(Fa, d0) & ~(((vu)ALL(1) << (vu)tza) - 1);
    vl sa = forced[0] >= 0 ? ALL(-(int64_t)forced[0]) : flag(d0, 63);
    vd xa = to_double((vl)ma) * pow2(ea - Fa.p + 1);
    if (k_is_b)
        return (products){neg_where(sa, xa * P->k), value_bits(Fa, sa, ea, ma), (vu)ALL((int64_t)P->k_bits)};
    vl tzb_short = Fb.p - (mixed ? max_l(ALL(1), min_l(budget - sa_bits, ALL(Fb.p))) : budget - sa_bits);
    vl tzb = pick(short_bits, tzb_short, pick(((d0 >> 54) & 3) != 0, ALL(0), field(d2, 16, ALL(0), ALL(Fb.p - 1))));
    vu mb = significand(Fb, d0 >> 24) & ~(((vu)ALL(1) << (vu)tzb) - 1);
    vl sb = forced[1] >= 0 ? ALL(-(int64_t)forced[1]) : flag(d0, 62);
    vd x = xa * (to_double((vl)mb) * pow2(eb - Fb.p + 1));
    return (products){neg_where(sa ^ sb, x), value_bits(Fa, sa, ea, ma), value_bits(Fb, sb, eb, mb)};
}

/* A tie some binades above a value whose leading bit is 2^msb (K as c's
 * shape 7, k_tie_values; the tie class's under a c wider than the result):
 * one to twelve binades up (d2), its
 * significand from a fourth draw, made in the live lanes of that shape. */
LANES vd up_ties(lane_format F, vl msb, vu d2, vl up_shape, streams *st)
{
    vl up = unit_exp(F, msb + field(d2, 32, ALL(1), ALL(12)));
    vu d3 = next(st, st->live & up_shape);
    return to_double((vl)significand(F, d3)) * pow2(up) + pow2(up - 1);
}

/* The tie above the product (the tie class's shape 7 in tie_value): the
 * sum's p significant bits ending one place above the product's lowest
 * bit, its significand from a fourth draw made in the live lanes of that
 * shape; *fits where the sum is normal, at most a binade past F's range
 * (elsewhere the shape is made as 3-6), and, a guard, the product has at
 * most p bits (attempt draws it so). */
LANES vd above_ties(lane_format F, vd ax, vl up_shape, streams *st, vl *fits)
{
    vl low = dlsb(ax);
    *fits = (dexp(ax) - low < F.p) & (low >= F.emin - F.p) & (low + F.p <= F.emax + 1);
    vu d3 = next(st, st->live & up_shape);
    return to_double((vl)significand(F, d3)) * pow2(low + 1) + pow2(low);
}

/* rdna2_closed.c's near_tie_off. */
LANES vd near_tie_offs(lane_format F, lane_format Fc, vd ax, vl u, vu d1, vu d2, vd v)
{
    vl low = dlsb(ax);
    int p = F.p < Fc.p ? F.p : Fc.p;  /* near_tie_depth */
    vl e = pick(low <= u - 9, low, u - 1 - field(d2, 48, ALL(9), ALL(p - 2 > 9 ? p - 2 : 9)));
    vd off = to_double(field(d1, 32, ALL(1), ALL(3))) * pow2(e);
    return pickd(flag(d1, 48), v - off, v + off);
}

/* rdna2_closed.c's on_side, for the lanes not failed (side a constant of the call). */
LANES vd on_sides(lane_format F, lane_format Fc, vd ax, gen_class c, vu d1, vu d2, int side, vl fail, vd v)
{
    if (!side)
        return v;
    vl wrong = (side > 0 ? v < ax : v > ax) & ~fail;
    vl u = unit_exp(F, dexp(ax));
    vd t = floor_to(ax, u) + (double)side * pow2(u);
    vd w = t + pow2(unit_exp(F, dexp(t)) - 1);
    if (c == GEN_NEAR_TIE)
        w = near_tie_offs(F, Fc, ax, u, d1, d2, w);
    return pickd(wrong, w, v);
}

/* rdna2_closed.c's tie_value for the tie and near-tie classes: the value the
 * sum is to have, by magnitude; *fail marks the lanes where none is made.
 * The tie's fourth draw (a tie above the product) comes from the live lanes
 * that take that shape. */
LANES vd tie_values(lane_format F, lane_format Fc, vd ax, gen_class c, vu d0, vu d1, vu d2, streams *st, vl *fail)
{
    vl msb = dexp(ax), u = unit_exp(F, msb);
    vd v = floor_to(ax, u) + pow2(u - 1) + to_double(field(d2, 32, ALL(-1), ALL(1))) * pow2(u);
    *fail = ALL(0);
    if (c == GEN_NEAR_TIE)
        return near_tie_offs(F, Fc, ax, u, d1, d2, v);
    vl shape = (vl)((d0 >> 59) & 7);
    /* Cancel the product's head (shapes 0-2). */
    vl top = dlsb(ax) + F.p;
    vd lo = ax - floor_to(ax, top);
    vd head = pickd(shape == 0, lo - pow2(top + 1), lo + pow2(top));
    /* A tie above the product (shape 7; as 3-6 for a c narrower than F,
     * which cannot hold one, and where the sum would leave F's range);
     * some binades up at random for a c wider than F. */
    vl up_shape = Fc.p < F.p ? ALL(0) : shape == 7, fits = ALL(-1);
    vd up_tie = Fc.p > F.p ? up_ties(F, msb, d2, up_shape, st) : above_ties(F, ax, up_shape, st, &fits);
    *fail = (shape < 3) & (top < F.emin);
    return pickd(shape < 3, head, pickd(up_shape & fits, up_tie, v));
}

/* The addend for product x, class c: its encoding in c's format Fc; *ok
 * where Fc holds it.  The ties are on the result's grid, Fd. */
LANES vu addends(lane_format Fc, lane_format Fd, vd x, gen_class c, int side, vu d0, vu d1, vu d2, streams *st,
                 vl *ok)
{
    vl negative = x < 0, fail;
    switch (c) {
    case GEN_CANCEL: {
        vu y = f32_bits(__builtin_convertvector(-x, vf));
        if (Fc.bits == 32) {
            *ok = f32_finite(y);
            return y;
        }
        vu h;
        for (int i = 0; i < LANES_N; i++)
            h[i] = fp_fast_f32_to_f16((uint32_t)y[i]);  /* by way of f32, as the scalar design: an aim, not a verdict */
        *ok = (vl)((h & 0x7fffu) != 0x7c00u);
        return h;
    }
    case GEN_OVERFLOW: {
        vl u = ALL(Fd.emax - Fd.p + 1);
        vu d3 = next(st, st->live);
        vd mid = pow2(ALL(Fd.emax + 1)) - pow2(u - 1);
        vd top_tie = to_double((vl)significand(Fd, d3)) * pow2(u) + pow2(u - 1);
        vd v = pickd(flag(d1, 49), mid, top_tie);
        vu aimed = double_bits(Fc, pickd(negative, -v, v) - x, ok);
        /* Where c cannot hold the difference: a c of the product's sign,
         * far below a product in the top two binades, or in them above one
         * below (overflow_addend's). */
        vl ex = dexp(dabs(x));
        vl far = max_l(ALL(Fc.emin), min_l(ALL(Fc.emax), ex - field(d2, 48, ALL(12), ALL(40))));
        vl top = field(d2, 48, ALL(Fd.emax - 1), ALL(Fd.emax <= Fc.emax ? Fd.emax : Fd.emax - 1));
        vl e = pick(ex >= Fd.emax - 1, far, top);
        vu below = value_bits(Fc, negative, e, d3 >> 24);
        aimed = (vu)pick(*ok, (vl)aimed, (vl)below);
        *ok = ALL(-1);
        return aimed;
    }
    default: {  /* tie and near tie; a double round is a tie of the product rounded (attempt) */
        vd v = tie_values(Fd, Fc, dabs(x), c, d0, d1, d2, st, &fail);
        v = on_sides(Fd, Fc, dabs(x), c, d1, d2, side, fail, v);
        vu bits = double_bits(Fc, pickd(negative, -v, v) - x, ok);
        *ok &= ~fail;
        return bits;
    }
    }
}

/* One attempt of rdna2_closed_design for the live lanes of a vector: where
 * it succeeds, out[] gets a, b, c and *done the lane. */
LANES void attempt(lane_formats FS, bool mixed, bool k_is_b, bool unfused, const int forced[3], gen_class c,
                   const closed_params *P, streams *st, vu out[3], vl *done)
{
    int flip = P->flip;
    vu sbit = (vu)ALL((int64_t)1 << (FS.c.bits - 1));
    vu d0 = next(st, st->live), d1 = next(st, st->live), d2 = next(st, st->live);
    vl lo = ALL(P->lo), hi = ALL(P->hi);
    if (mixed) {  /* the tie shapes 0-2 from lower binades where c is narrow (a uniform lane's c never is) */
        vl head = (vl)((d0 >> 59) & 7) < 3;
        lo = pick(head, ALL(P->head_lo), lo);
        hi = pick(head, ALL(P->head_hi), hi);
    }
    /* A uniform lane's short product, from the class with the format's
     * precision as the budget (P->budget with K as b): constants of its
     * entry point, where reading P's cost v_fma_f32 6 instructions a case. */
    int p = FS.d.p, uniform_budget = k_is_b ? P->budget : p;
    vl budget = ALL(mixed ? P->budget : uniform_budget);
    vl short_bits = mixed ? (P->short_mode == SHORT_ALWAYS ? ALL(-1) : P->short_mode == SHORT_COIN ? flag(d1, 49) : ALL(0))
                           : c == GEN_OVERFLOW ? ALL(-1) : c == GEN_CANCEL ? flag(d1, 49) : ALL(0);
    if (c == GEN_TIE && FS.c.p == FS.d.p) {
        /* The tie above the product (shape 7) from a product short enough
         * for it: 2 to p bits between the factors (d1's near-tie field). */
        vl above = (vl)((d0 >> 59) & 7) == 7;
        short_bits |= above;
        budget = pick(above, field(d1, 32, ALL(2), ALL(FS.d.p)), budget);
    }
    products pr = pick_products(FS, mixed, k_is_b, forced, P, field(d1, 0, lo, hi), short_bits, budget, d0, d1, d2);
    vl usable = st->live;
    vd x32 = to_f32(pr.x);  /* the product rounded to f32 */
    if (c == GEN_DOUBLE_ROUND)  /* a product f32 holds rounds once (rdna2_closed_design) */
        usable &= x32 != pr.x;
    if (unfused)  /* flushed: the legacy sum would start from zero */
        usable &= ~(dabs(x32) < 0x1p-126);
    /* The sum from x32 where the form rounds the product, for a double
     * round (a tie of x32) and for a near tie where the sum rounds to f32
     * first (rdna2_closed_design's). */
    if (unfused || c == GEN_DOUBLE_ROUND || (c == GEN_NEAR_TIE && P->rounds_twice))
        pr.x = x32;
    /* Only the usable lanes draw an addend's fourth word. */
    streams drawing = {st->s, usable};
    vl ok;
    vu cb = addends(FS.c, FS.d, pr.x, c == GEN_DOUBLE_ROUND ? GEN_TIE : c, P->side, d0, d1, d2, &drawing, &ok);
    st->s = drawing.s;
    ok &= usable;
    if (flip >= 0) {
        /* -(a*b + c) has the same shape: negate c and the free factor. */
        vu w = (vu)(ok & (((cb & sbit) != 0) != ALL(-(int64_t)forced[2])));
        cb ^= w & sbit;
        if (flip == 0)
            pr.a ^= w & (vu)ALL((int64_t)1 << (FS.a.bits - 1));
        else
            pr.b ^= w & (vu)ALL((int64_t)1 << (FS.b.bits - 1));
    }
    out[0] = pr.a, out[1] = pr.b, out[2] = cb;
    *done = ok;
}

/* ---- K as c (V_FMAAK_F32, V_MADAK_F32): rdna2_closed.c's k_addend_design,
 * f32 throughout.  The sum's value is aimed from |K| (k_sum_value), y = v - K
 * is the product that gets there, and k_split makes it a times b. */

/* rdna2_closed.c's k_tie_value, by magnitude, from |K| = ak; the tie's
 * fourth draw (a tie some binades up) from the live lanes of that shape. */
LANES vd k_tie_values(vd ak, gen_class c, vu d0, vu d1, vu d2, streams *st)
{
    lane_format F = F32;
    vl msb = dexp(ak), u = unit_exp(F, msb);
    vd t = ak + to_double(field(d2, 32, ALL(-1), ALL(1))) * pow2(u);
    vd v = t + pow2(unit_exp(F, dexp(t)) - 1);
    if (c == GEN_NEAR_TIE)
        return near_tie_offs(F, F, ak, u, d1, d2, v);
    vl shape = (vl)((d0 >> 59) & 7);
    /* Cancel K's head (shapes 0-2): y is a power of two. */
    vl top = dlsb(ak) + F.p;
    vd head = pickd(shape == 0, ak - pow2(top + 1), ak + pow2(top));
    /* A tie some binades above K (shape 7). */
    vl up_shape = shape == 7;
    vd up_tie = up_ties(F, msb, d2, up_shape, st);
    return pickd(shape < 3, head, pickd(up_shape, up_tie, v));
}

/* rdna2_closed.c's k_sum_value: |v| the class aims the sum at. */
LANES vd k_sum_values(vd ak, gen_class c, vu d0, vu d1, vu d2, streams *st)
{
    lane_format F = F32;
    switch (c) {
    case GEN_CANCEL:
        return ZERO_D;
    case GEN_OVERFLOW: {
        /* The midpoint to infinity, or (a fourth draw) a tie in the top binade. */
        vl u = ALL(F.emax - F.p + 1), midpoint = flag(d1, 49);
        vu d3 = next(st, st->live & ~midpoint);
        vd top_tie = to_double((vl)significand(F, d3)) * pow2(u) + pow2(u - 1);
        return pickd(midpoint, pow2(ALL(F.emax + 1)) - pow2(u - 1), top_tie);
    }
    case GEN_DOUBLE_ROUND:  /* a tie for the product rounded to f32 (k_split) */
        return k_tie_values(ak, GEN_TIE, d0, d1, d2, st);
    default:
        return k_tie_values(ak, c, d0, d1, d2, st);
    }
}

/* rdna2_closed.c's k_split: y as a times b in out[0], out[1]; the lanes where no f32 b makes it. */
LANES vl k_splits(bool unfused, gen_class c, vd y, vu d0, vu d2, vu out[2])
{
    if (c == GEN_DOUBLE_ROUND) {
        /* An inexact product that rounds to y: a near 1, b = y / a rounded,
         * then b one ulp back toward y where a*b fell half an ulp or more off. */
        vd a = 1.0 + to_double((vl)(d0 & (vu)frac_mask(F32))) * 0x1p-23;
        vu b = f32_bits(__builtin_convertvector(y / a, vf));
        vd p = a * f32_value(b);
        vl off = to_f32(p) != y;
        vu step = (vu)pick(dabs(p) > dabs(y), ALL(0xffffffff), ALL(1));
        b = (vu)pick(off, (vl)((b + step) & 0xffffffffu), (vl)b);
        p = a * f32_value(b);
        out[0] = f32_bits(__builtin_convertvector(a, vf));
        out[1] = b;
        vl fail = (to_f32(p) != y) | (p == y);
        if (unfused)  /* the legacy forms flush a subnormal b */
            fail |= dabs(f32_value(b)) < 0x1p-126;
        return fail;
    }
    /* a = +-2^e, normal; b = y / a, exact where y's 24 bits fit. */
    vl my = dexp(dabs(y));
    vl e = max_l(my - F32.emax, min_l(my - F32.emin, field(d2, 0, ALL(-8), ALL(8))));
    vl a_negative = flag(d0, 62);
    out[0] = (vu)((a_negative & ((int64_t)1 << 31)) | ((e + F32.bias) << 23));
    vl ok;
    out[1] = double_bits(F32, neg_where(a_negative, y * pow2(-e)), &ok);
    return ~ok;
}

/* One attempt of k_addend_design for the live lanes: where it succeeds,
 * out[] gets a, b and K, and *done the lane.  The overflow class takes its
 * first attempt always: where y misses, a product in the top two binades. */
LANES void k_addend_attempt(bool unfused, const int forced[3], gen_class c, const closed_params *P, streams *st,
                            vu out[3], vl *done)
{
    vd k = (vd){0} + P->k, ak = dabs(k);
    vu d0 = next(st, st->live), d1 = next(st, st->live), d2 = next(st, st->live);
    vd av = k_sum_values(ak, c, d0, d1, d2, st);
    /* y = v - K, exact (its TwoSum error zero), nonzero, of 24 significant
     * bits at most; an f32 where the product is rounded first. */
    vd sv = P->k < 0 ? -av : av, y = sv - k;
    vd ay = dabs(y);
    vl fits = exact_sum(sv, -k, y) & (y != 0) & (dexp(ay) - dlsb(ay) + 1 <= F32.p);
    if (unfused || c == GEN_DOUBLE_ROUND) {
        vl is_f32;
        double_bits(F32, y, &is_f32);
        fits &= is_f32;
    }
    if (unfused)
        fits &= ay >= 0x1p-126;
    vu ab[2];
    vl split_failed = k_splits(unfused, c, y, d0, d2, ab);
    vl ok = fits & ~split_failed;
    out[0] = ab[0], out[1] = ab[1], out[2] = (vu)ALL((int64_t)P->k_bits);
    if (c == GEN_OVERFLOW) {
        /* pick_product with no short significands (short_bits 0: the budget, 2, is not read). */
        products pr = pick_products(ALL_F32, false, false, forced, P, field(d1, 0, ALL(F32.emax - 1), ALL(F32.emax)),
                                    ALL(0), ALL(2), d0, d1, d2);
        out[0] = (vu)pick(ok, (vl)out[0], (vl)pr.a);
        out[1] = (vu)pick(ok, (vl)out[1], (vl)pr.b);
        ok = ALL(-1);
    }
    *done = ok & st->live;
}


/* Up to eight attempts per case, as rdna2_closed_design makes them; each
 * round packs the cases still without a design into whole vectors (k: the
 * case's position in which[] and v[]). */
LANES void closed_lanes(lane_formats FS, bool mixed, int fixed, bool unfused, const int forced[3], gen_class c,
                        const closed_params *P, gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3],
                        bool *ok)
{
    uint32_t todo[2][CLOSED_LANES_MAX];
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        ok[k] = false;
        todo[0][m++] = (uint32_t)k;
    }
    for (int round = 0; round < 8 && m; round++) {
        const uint32_t *now = todo[round & 1];
        uint32_t *later = todo[~round & 1];
        size_t left = 0;
        uint64_t state[CLOSED_LANES_MAX + LANES_N - 1];
        gather_states(rng, which, now, m, state);
        for (size_t i = 0; i < m; i += LANES_N) {
            size_t lanes = m - i < LANES_N ? m - i : LANES_N;
            streams st = group_streams(state + i, lanes);
            vu out[3];
            vl done;
            if (fixed == 2)
                k_addend_attempt(unfused, forced, c, P, &st, out, &done);
            else
                attempt(FS, mixed, fixed == 1, unfused, forced, c, P, &st, out, &done);
            ungroup_streams(&st, state + i);
            for (size_t j = 0; j < lanes; j++) {
                /* No branch on whether it is done (where attempts fail,
                 * they fail at random): a failed attempt's values are
                 * overwritten by a later round, or by the caller's
                 * fallback. */
                uint32_t k = now[i + j];
                ok[k] = done[j] != 0;
                v[k][0] = out[0][j], v[k][1] = out[1][j], v[k][2] = out[2][j];
                later[left] = k;
                left += !done[j];
            }
        }
        scatter_states(rng, which, now, m, state);
        m = left;
    }
}


LANES_ENTRY void closed_f32(bool unfused, const int forced[3], gen_class c, const closed_params *P, gen_rng *rng,
                            const uint32_t *which, size_t n, uint64_t (*v)[3], bool *ok)
{
    closed_lanes(ALL_F32, false, -1, unfused, forced, c, P, rng, which, n, v, ok);
}

/* K as b (V_FMAMK_F32, V_MADMK_F32). */
LANES_ENTRY void closed_f32_k(bool unfused, const int forced[3], gen_class c, const closed_params *P, gen_rng *rng,
                              const uint32_t *which, size_t n, uint64_t (*v)[3], bool *ok)
{
    closed_lanes(ALL_F32, false, 1, unfused, forced, c, P, rng, which, n, v, ok);
}

/* K as c (V_FMAAK_F32, V_MADAK_F32). */
LANES_ENTRY void closed_f32_kc(bool unfused, const int forced[3], gen_class c, const closed_params *P, gen_rng *rng,
                               const uint32_t *which, size_t n, uint64_t (*v)[3], bool *ok)
{
    closed_lanes(ALL_F32, false, 2, unfused, forced, c, P, rng, which, n, v, ok);
}

LANES_ENTRY void closed_f16(bool unfused, const int forced[3], gen_class c, const closed_params *P, gen_rng *rng,
                            const uint32_t *which, size_t n, uint64_t (*v)[3], bool *ok)
{
    closed_lanes(ALL_F16, false, -1, unfused, forced, c, P, rng, which, n, v, ok);
}

/* Sources and result of f32 and f16 mixed (the MIX forms under op_sel_hi),
 * fused, no literal: the formats read at run time, one entry point for the
 * fourteen mixes where each of its own would be fourteen copies. */
LANES_ENTRY void closed_mixed(const lane_formats *FS, const int forced[3], gen_class c, const closed_params *P,
                              gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3], bool *ok)
{
    closed_lanes(*FS, true, -1, false, forced, c, P, rng, which, n, v, ok);
}

/* Every source a half, the result an f32 (V_FMA_MIX_F32 where op_sel_hi
 * makes all three sources halves, its default): closed_mixed's designs
 * with the formats constants, as closed_f32's and closed_f16's are. */
LANES_ENTRY void closed_halves_f32(const int forced[3], gen_class c, const closed_params *P, gen_rng *rng,
                                   const uint32_t *which, size_t n, uint64_t (*v)[3], bool *ok)
{
    closed_lanes(HALVES_F32, true, -1, false, forced, c, P, rng, which, n, v, ok);
}

/* rdna2_closed.c's narrow_c and short_budget, as a mode and a budget. */
static void short_product(const rdna2_lane *s, gen_class c, closed_params *P)
{
    int pa = (int)s->fmt[0]->precision, pb = (int)s->fmt[1]->precision, pc = (int)s->fmt[2]->precision;
    int pd = (int)s->dest->precision;
    bool narrow = pc < pd || pc + pd < pa + pb - 1;
    P->short_mode = SHORT_NEVER;
    P->budget = 2;
    if (c == GEN_OVERFLOW)
        P->short_mode = SHORT_ALWAYS, P->budget = pd;
    else if (c == GEN_CANCEL)
        P->short_mode = narrow ? SHORT_ALWAYS : pc < pa + pb ? SHORT_COIN : SHORT_NEVER, P->budget = pc;
    else if (narrow && c != GEN_DOUBLE_ROUND)
        P->short_mode = SHORT_ALWAYS, P->budget = pd + pc - 3;
}

/* The lane's constants, once for a call. */
static closed_params params_of(const rdna2_lane *s, bool uniform, gen_class c)
{
    closed_params P = {.flip = -1, .rounds_twice = s->rounds_twice};
    rdna2_closed_target_range(s, c, &P.lo, &P.hi);  /* never empty where rdna2_closed_covers took the class */
    P.head_lo = P.lo, P.head_hi = P.hi;
    rdna2_closed_head_range(s, c, &P.head_lo, &P.head_hi);
    P.side = rdna2_forced_side(s);
    if (s->forced_sign[2] >= 0)
        for (int i = 0; i < 2 && P.flip < 0; i++)
            if (s->forced_sign[i] < 0 && s->fixed != i)
                P.flip = i;
    if (s->fixed >= 1) {  /* K as b or c */
        P.k_bits = s->fixed_bits;
        P.k = fp_fast_f32_to_double((uint32_t)s->fixed_bits);
        double ak = P.k < 0 ? -P.k : P.k;
        P.k_exp = fp_dexp(ak);
        P.k_span = P.k_exp - fp_dlsb(ak);
    }
    if (s->fixed == 1 || !uniform)  /* the others' entry points make their own */
        short_product(s, c, &P);
    return P;
}

void LANES_API(rdna2_closed_lanes)(const rdna2_lane *s, gen_class c, gen_rng *rng, const uint32_t *which, size_t n,
                                   uint64_t (*v)[3], bool *ok)
{
    const fp_format *d = s->dest;
    bool uniform = s->fmt[0] == d && s->fmt[1] == d && s->fmt[2] == d;
    bool halves_f32 = d == &fp_f32 && s->fmt[0] == &fp_f16 && s->fmt[1] == &fp_f16 && s->fmt[2] == &fp_f16;
    closed_params P = params_of(s, uniform, c);
    lane_formats FS;
    if (!uniform)
        FS = (lane_formats){lane_format_of(s->fmt[0]), lane_format_of(s->fmt[1]), lane_format_of(s->fmt[2]),
                            lane_format_of(d)};
    for (size_t first = 0; first < n; first += CLOSED_LANES_MAX) {
        size_t m = n - first < CLOSED_LANES_MAX ? n - first : CLOSED_LANES_MAX;
        if (s->fixed == 2)  /* rdna2_closed_lanes_cover: f32 throughout */
            closed_f32_kc(s->unfused, s->forced_sign, c, &P, rng, which + first, m, v + first, ok + first);
        else if (s->fixed == 1)  /* likewise */
            closed_f32_k(s->unfused, s->forced_sign, c, &P, rng, which + first, m, v + first, ok + first);
        else if (halves_f32)  /* rdna2_closed_covers: fused */
            closed_halves_f32(s->forced_sign, c, &P, rng, which + first, m, v + first, ok + first);
        else if (!uniform)  /* likewise */
            closed_mixed(&FS, s->forced_sign, c, &P, rng, which + first, m, v + first, ok + first);
        else if (s->dest == &fp_f32)
            closed_f32(s->unfused, s->forced_sign, c, &P, rng, which + first, m, v + first, ok + first);
        else
            closed_f16(s->unfused, s->forced_sign, c, &P, rng, which + first, m, v + first, ok + first);
    }
}
/* The plain names, in the narrow build: the wide build's where the host has
 * AVX-512 (lanes.h), and which lanes the entry points take. */
#ifndef LANES_WIDE

void rdna2_closed_lanes(const rdna2_lane *s, gen_class c, gen_rng *rng, const uint32_t *which, size_t n,
                        uint64_t (*v)[3], bool *ok)
{
    LANES_PICK(rdna2_closed_lanes)(s, c, rng, which, n, v, ok);
}
#endif
