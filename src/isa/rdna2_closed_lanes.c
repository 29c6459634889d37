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
#include "../fp/fast.h"
#include "../fp/lanes.h"
#include "rdna2.h"

/* Cases an entry point takes at once (rdna2_closed_lanes splits more). */
#define CLOSED_LANES_MAX 256

/* A format (f32 or f16): constants in the entry points whose sources and
 * result share one, values read at run time in the one for mixed formats. */
typedef struct {
    int p, emin, emax, bias, bits;
} lane_format;

/* The formats of a, b, c and the result. */
typedef struct {
    lane_format a, b, c, d;
} lane_formats;

/* The two formats the lanes take.  Initializers, not objects, so that clang
 * takes them in static ones (C's constant expressions do not include a const
 * object's value). */
#define F32_FORMAT {24, -126, 127, 127, 32}
#define F16_FORMAT {11, -14, 15, 15, 16}
static const lane_format F32 = F32_FORMAT, F16 = F16_FORMAT;
static const lane_formats ALL_F32 = {F32_FORMAT, F32_FORMAT, F32_FORMAT, F32_FORMAT},
                          ALL_F16 = {F16_FORMAT, F16_FORMAT, F16_FORMAT, F16_FORMAT};

/* What an instance's lane fixes for every attempt (rdna2_closed_design's
 * reading of its rdna2_lane): the product's binades, the factor negated with
 * c where abs forces c's sign, and the literal K where it is b or c (where
 * it is, a constant of each entry point: a branch on it cost the lanes
 * without K 1.6% more instructions a case). */
typedef struct {
    int lo, hi;      /* rdna2_closed_target_range */
    int flip;        /* rdna2_respect_forced_signs' free factor, or -1 */
    int short_mode;  /* a short product: SHORT_NEVER, SHORT_ALWAYS or SHORT_COIN (d1's bit 49) */
    int budget;      /* a short product's significant bits (K's own counted where it is b) */
    double k;        /* K's value; its top bit's exponent, its bits above the lowest */
    int k_exp, k_span;
    uint64_t k_bits;
} closed_params;

/* rdna2_closed.c's short_budget, read once a call: whether it is 0 (never),
 * its value (always) or either by a coin. */
enum { SHORT_NEVER, SHORT_ALWAYS, SHORT_COIN };

/* A vector of cases' random streams, and which of them still draw. */
typedef struct {
    vu s;
    vl live;
} streams;

/* gen_next's output for the state it steps to. */
LANES vu mix(vu z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* gen_next in the lanes of mask (the others keep their state). */
LANES vu next(streams *st, vl mask)
{
    st->s += (vu)mask & 0x9e3779b97f4a7c15ull;
    return mix(st->s);
}

/* Draws made ahead: draw[j] is the (j + 1)-th draw from where the streams
 * stood, in every lane, and `taken` how many a lane has used.  Where a
 * draw is made only in some lanes (by a coin's outcome), each later draw's
 * stream position waits on that coin; drawn one after another, that was a
 * chain of 64-bit multiplies (vpmullq, about 15 cycles each on an Intel
 * host).  Made ahead, the draws are independent, and a lane picks its own
 * by the count it has taken. */
#define AHEAD_MAX 9
typedef struct {
    vu draw[AHEAD_MAX];
    vl taken;
} ahead;

LANES ahead ahead_of(const streams *st, int count)
{
    ahead d = {.taken = ALL(0)};
    for (int j = 0; j < count; j++)
        d.draw[j] = mix(st->s + (uint64_t)((uint64_t)(j + 1) * 0x9e3779b97f4a7c15ull));
    return d;
}

/* The draw `k` after a lane's taken ones, where every lane has taken one of
 * from, from + step, ..., to (constants, after inlining: a select each). */
LANES vu ahead_at(const ahead *d, int from, int to, int step, int k)
{
    vu w = d->draw[from + k];
    for (int t = from + step; t <= to; t += step)
        w = (vu)pick(d->taken == t, (vl)d->draw[t + k], (vl)w);
    return w;
}

/* next() from draws made ahead: the lanes of mask take the draw (each has
 * taken from..to before it). */
LANES vu ahead_next(ahead *d, vl mask, int from, int to)
{
    vu w = ahead_at(d, from, to, 1, 0);
    d->taken -= mask;
    return w;
}

/* The live lanes' streams stepped past the draws they took. */
LANES void ahead_done(const ahead *d, streams *st) { st->s += (vu)(d->taken & st->live) * 0x9e3779b97f4a7c15ull; }

/* rdna2_closed.c's field and flag: 16 bits at `at` scaled to [lo, hi]; one bit, as a mask. */
LANES vl field(vu w, int at, vl lo, vl hi)
{
    return lo + (vl)((((w >> at) & 0xffffu) * (vu)(hi - lo + 1)) >> 16);
}
LANES vl flag(vu w, int at) { return -(vl)((w >> at) & 1u); }
LANES vl max_l(vl a, vl b) { return pick(a > b, a, b); }
LANES vl min_l(vl a, vl b) { return pick(a < b, a, b); }

/* fp_pow2 (the same bits for every k), and a small integer (|i| < 2^51) as a double. */
LANES vd pow2(vl k) { return (vd)((k + 1023) << 52); }
LANES vd to_double(vl i) { return (vd)(i + 0x4338000000000000LL) - 0x1.8p52; }
LANES vd dabs(vd x) { return (vd)((vl)x & ~SIGN_BIT); }
LANES vd neg_where(vl mask, vd x) { return (vd)((vl)x ^ (mask & SIGN_BIT)); }

/* fp_dfloor_to: |x| with the bits below 2^u cleared, by masking its encoding
 * (the truncation of |x| / 2^u, times 2^u, where that is below 2^64). */
LANES vd floor_to(vd ax, vl u)
{
    vl drop = u - (dexp(ax) - 52);  /* encoding bits below 2^u */
    vl shift = pick(drop < 0, ALL(0), pick(drop > 63, ALL(63), drop));  /* a shift in range */
    vl cleared = (vl)ax & ~((ALL(1) << shift) - 1);
    return (vd)pick(drop <= 0, (vl)ax, pick(drop > 52, ALL(0), cleared));
}

LANES vl frac_mask(lane_format F) { return ALL(((int64_t)1 << (F.p - 1)) - 1); }
/* A significand: the hidden bit and a fraction from the low bits of w. */
LANES vu significand(lane_format F, vu w) { return ((vu)frac_mask(F) + 1) | (w & (vu)frac_mask(F)); }
/* f32 values' encodings, widened to the lanes' 64 bits. */
LANES vu f32_bits(vf x)
{
    vw w;
    __builtin_memcpy(&w, &x, sizeof w);
    return widen_u32(w);
}
LANES vl f32_finite(vu bits) { return (vl)((bits & 0x7f800000u) != 0x7f800000u); }
LANES vl unit_exp(lane_format F, vl m) { return max_l(m, ALL(F.emin)) - (F.p - 1); }

/* A normal value with leading-bit exponent e and significand m (hidden bit included). */
LANES vu value_bits(lane_format F, vl sign, vl e, vu m)
{
    return (vu)(bit(sign) << (F.bits - 1)) | (vu)((e + F.bias) << (F.p - 1)) | (m & (vu)frac_mask(F));
}

/* gen_double_bits for f32 and f16: y's encoding, and whether it is one. */
LANES vu double_bits(lane_format F, vd y, vl *ok)
{
    if (F.bits == 32) {
        vf x = __builtin_convertvector(y, vf);
        vu bits = f32_bits(x);
        *ok = (widen_f32(x) == y) & f32_finite(bits);
        return bits;
    }
    vd ay = dabs(y);
    vl sign = ((vl)y >> 63) & 1, e = dexp(ay);
    vl q = max_l(e, ALL(F.emin)) - (F.p - 1);
    vl sig = (vl)(ay * pow2(-q) + TWO52) & MANT, hidden = ALL((int64_t)1 << (F.p - 1));
    vl normal = ((e + F.bias) << (F.p - 1)) | (sig - hidden);
    vl bits = (sign << (F.bits - 1)) | pick(sig < hidden, sig, normal);
    *ok = (y == 0) | ((e <= F.emax) & (dlsb(ay) >= q));
    return (vu)pick(y == 0, sign << (F.bits - 1), bits);
}

typedef struct {
    vd x;     /* the exact product */
    vu a, b;  /* its factors' encodings */
} products;

/* rdna2_closed.c's pick_product, short_bits a mask (the lanes whose
 * product is short: `budget` significant bits between the factors). */
LANES products pick_products(lane_formats FS, bool mixed, bool k_is_b, const int forced[3], const closed_params *P,
                             vl target, vl short_bits, int budget, vu d0, vu d1, vu d2)
{
    lane_format Fa = FS.a, Fb = FS.b;
    vl ea = k_is_b ? target - P->k_exp
                       : field(d1, 16, max_l(ALL(Fa.emin), target - Fb.emax), min_l(ALL(Fa.emax), target - Fb.emin));
    vl eb = target - ea;
    /* rdna2_closed.c's trailing_zeros: a short a of sa bits, b the rest of
     * the budget (the clamps bind only where the budget is above a factor's
     * precision, which happens only in a mixed lane: a narrow c's budget,
     * or an f32 c's or result's with an f16 factor). */
    vl sa_bits = field(d2, 0, ALL(1), ALL(budget - 1));
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

/* A tie some binades above a value whose leading bit is 2^msb (the tie
 * class's shape 7, both designs'): one to twelve binades up (d2), its
 * significand from a fourth draw, made in the live lanes of that shape. */
LANES vd up_ties(lane_format F, vl msb, vu d2, vl up_shape, streams *st)
{
    vl up = unit_exp(F, msb + field(d2, 32, ALL(1), ALL(12)));
    vu d3 = next(st, st->live & up_shape);
    return to_double((vl)significand(F, d3)) * pow2(up) + pow2(up - 1);
}

/* rdna2_closed.c's tie_value for the tie and near-tie classes: the value the
 * sum is to have, by magnitude; *fail marks the lanes where none is made.
 * The tie's fourth draw (a tie some binades up) comes from the live lanes
 * that take that shape. */
LANES vd tie_values(lane_format F, lane_format Fc, vd ax, gen_class c, vu d0, vu d1, vu d2, streams *st, vl *fail)
{
    vl msb = dexp(ax), u = unit_exp(F, msb);
    vd v = floor_to(ax, u) + pow2(u - 1) + to_double(field(d2, 32, ALL(-1), ALL(1))) * pow2(u);
    *fail = ALL(0);
    if (c == GEN_NEAR_TIE) {
        vl low = dlsb(ax);
        int p = F.p < Fc.p ? F.p : Fc.p;  /* near_tie_depth */
        vl e = pick(low <= u - 9, low, u - 1 - field(d2, 48, ALL(9), ALL(p - 2 > 9 ? p - 2 : 9)));
        vd off = to_double(field(d1, 32, ALL(1), ALL(3))) * pow2(e);
        return pickd(flag(d1, 48), v - off, v + off);
    }
    vl shape = (vl)((d0 >> 59) & 7);
    /* Cancel the product's head (shapes 0-2). */
    vl top = dlsb(ax) + F.p;
    vd lo = ax - floor_to(ax, top);
    vd head = pickd(shape == 0, lo - pow2(top + 1), lo + pow2(top));
    /* A tie some binades above the product (shape 7). */
    vl up_shape = shape == 7;
    vd up_tie = up_ties(F, msb, d2, up_shape, st);
    *fail = (shape < 3) & (top < F.emin);
    return pickd(shape < 3, head, pickd(up_shape, up_tie, v));
}

/* The addend for product x, class c: its encoding in c's format Fc; *ok
 * where Fc holds it.  The ties are on the result's grid, Fd. */
LANES vu addends(lane_format Fc, lane_format Fd, vd x, gen_class c, vu d0, vu d1, vu d2, streams *st, vl *ok)
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
        /* Where c cannot hold the difference: a c of the product's sign far below it. */
        vl e = max_l(ALL(Fc.emin), min_l(ALL(Fc.emax), dexp(dabs(x)) - field(d2, 48, ALL(12), ALL(40))));
        vu below = value_bits(Fc, negative, e, d3 >> 24);
        aimed = (vu)pick(*ok, (vl)aimed, (vl)below);
        *ok = ALL(-1);
        return aimed;
    }
    case GEN_DOUBLE_ROUND: {
        /* A tie for the product rounded to f32. */
        vd xr = widen_f32(__builtin_convertvector(x, vf));
        vd v = tie_values(Fd, Fc, dabs(xr), GEN_TIE, d0, d1, d2, st, &fail);
        vu bits = double_bits(Fc, pickd(xr < 0, -v, v) - xr, ok);
        *ok &= ~fail;
        return bits;
    }
    default: {
        vd v = tie_values(Fd, Fc, dabs(x), c, d0, d1, d2, st, &fail);
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
    vl lo = ALL(P->lo), hi = ALL(P->hi);
    int flip = P->flip;
    vu sbit = (vu)ALL((int64_t)1 << (FS.c.bits - 1));
    vu d0 = next(st, st->live), d1 = next(st, st->live), d2 = next(st, st->live);
    /* A uniform lane's short product, from the class with the format's
     * precision as the budget (P->budget less K's bits): constants of its
     * entry point, where reading P's cost v_fma_f32 6 instructions a case. */
    int p = FS.d.p, uniform_budget = k_is_b ? P->budget : p;
    int budget = mixed ? P->budget : uniform_budget;
    vl short_bits = mixed ? (P->short_mode == SHORT_ALWAYS ? ALL(-1) : P->short_mode == SHORT_COIN ? flag(d1, 49) : ALL(0))
                           : c == GEN_OVERFLOW ? ALL(-1) : c == GEN_CANCEL ? flag(d1, 49) : ALL(0);
    products pr = pick_products(FS, mixed, k_is_b, forced, P, field(d1, 0, lo, hi), short_bits, budget, d0, d1, d2);
    vl usable = st->live;
    if (unfused) {
        /* The sum starts from the product rounded to f32, flushed when subnormal. */
        pr.x = widen_f32(__builtin_convertvector(pr.x, vf));
        usable &= ~(dabs(pr.x) < 0x1p-126);
    }
    /* Only the usable lanes draw an addend's fourth word. */
    streams drawing = {st->s, usable};
    vl ok;
    vu cb = addends(FS.c, FS.d, pr.x, c, d0, d1, d2, &drawing, &ok);
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
    if (c == GEN_NEAR_TIE) {
        vl low = dlsb(ak);
        vl e = pick(low <= u - 9, low, u - 1 - field(d2, 48, ALL(9), ALL(F.p - 2)));
        vd off = to_double(field(d1, 32, ALL(1), ALL(3))) * pow2(e);
        return pickd(flag(d1, 48), v - off, v + off);
    }
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

/* f32 encodings (in 64-bit lanes) as doubles, any of them (the hardware's widening). */
LANES vd f32_value(vu bits)
{
    vw w = __builtin_convertvector(bits, vw);
    vf f;
    __builtin_memcpy(&f, &w, sizeof f);
    return widen_f32(f);
}

/* A double's value rounded to f32 by the hardware, back in double. */
LANES vd to_f32(vd x) { return widen_f32(__builtin_convertvector(x, vf)); }

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
    vd sv = P->k < 0 ? -av : av, y = sv - k, bb = y - sv;
    vd err = (sv - (y - bb)) + (-k - bb);
    vd ay = dabs(y);
    vl fits = (err == 0) & (y != 0) & (dexp(ay) - dlsb(ay) + 1 <= F32.p);
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
                                    ALL(0), 2, d0, d1, d2);
        out[0] = (vu)pick(ok, (vl)out[0], (vl)pr.a);
        out[1] = (vu)pick(ok, (vl)out[1], (vl)pr.b);
        ok = ALL(-1);
    }
    *done = ok & st->live;
}

/* The states of the cases now[0..m) (case which[now[i]]'s in state[i];
 * now NULL: which[i]'s), zeros after them to a whole vector, for each
 * group to read in one load.  Not case by case into a vector: scalar
 * stores read back as one vector miss store forwarding, and that
 * stall was a tenth of closed_f32's time. */
LANES void gather_states(const gen_rng *rng, const uint32_t *which, const uint32_t *now, size_t m, uint64_t *state)
{
    for (size_t i = 0; i < m; i++)
        state[i] = rng[which[now ? now[i] : i]].s;
    for (size_t i = m; i % LANES_N; i++)
        state[i] = 0;
}

/* The states back to their cases (now as gather_states takes it). */
LANES void scatter_states(gen_rng *rng, const uint32_t *which, const uint32_t *now, size_t m, const uint64_t *state)
{
    for (size_t i = 0; i < m; i++)
        rng[which[now ? now[i] : i]].s = state[i];
}

/* A group of up to LANES_N cases' streams from state[0..lanes), the lanes past them dead. */
LANES streams group_streams(const uint64_t *state, size_t lanes)
{
    streams st;
    __builtin_memcpy(&st.s, state, sizeof st.s);
    st.live = LANES_INDEX < (int64_t)lanes;
    return st;
}

/* Where a group's streams stand after it drew, back into state[0..LANES_N). */
LANES void ungroup_streams(const streams *st, uint64_t *state) { __builtin_memcpy(state, &st->s, sizeof st->s); }

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

/* ---- the special class (rdna2_construct.c's design_special) ----
 *
 * Each source one of gen_special_kind's kinds two times in three, else a
 * normal value of exponent class_target(GEN_TIE) / 2; rounds of three
 * sources until some source is a zero, an infinity or a NaN (64 at most).
 * A case's draws per source: one word, and where it is not a special kind,
 * two more (class_target's gen_range, gen_value_with_exp's fraction).  The
 * literal K, where a source is one, is drawn for nothing and hits where it
 * is special itself. */

/* gen_special_kind: kind 0 zero, 1 infinity, 2 quiet NaN, 3 signalling NaN
 * (payload, never 0), 4 largest finite, 5 smallest normal, 6 smallest
 * subnormal, 7 one, 8 largest subnormal; the payload from w's low bits. */
LANES vu special_kind_bits(lane_format F, vl sign, vu w, vl kind)
{
    int64_t fb = F.p - 1, all_exp = 2 * (int64_t)F.bias + 1;
    vl frac_max = ALL(((int64_t)1 << fb) - 1), quiet = ALL((int64_t)1 << (fb - 1));
    vl payload = (vl)w & (quiet - 1);
    vl biased = (((kind >= 1) & (kind <= 3)) & all_exp) | ((kind == 4) & (all_exp - 1)) | ((kind == 5) & 1) |
                 ((kind == 7) & F.bias);
    vl frac = ((kind == 2) & (quiet | payload)) | ((kind == 3) & (payload | bit(payload == 0))) |
               (((kind == 4) | (kind == 8)) & frac_max) | ((kind == 6) & 1);
    return (vu)((bit(sign) << (F.bits - 1)) | (biased << fb) | frac);
}

/* One source for the lanes, source `index` of the round (its lanes have
 * taken index to 3 * index draws, in steps of two: a source takes one or
 * three, by its first draw's coin): its encoding, and whether it is
 * special.  clamp: the normal values' exponent may be above F's range (an
 * f16 source of an f32 result's ties), and is clamped to it as
 * gen_value_with_exp does. */
LANES vu special_source(lane_format F, bool clamp, int lo, int hi, ahead *d, int index, vl *hit)
{
    vu w = ahead_at(d, index, 3 * index, 2, 0);
    vl pick_ = (vl)(((w >> 32) * 27) >> 32), sign = (vl)((w >> 31) & 1) != 0;
    vl special = pick_ < 18, kind = pick_ >> 1;
    vu sk = special_kind_bits(F, sign, w, kind);
    /* The others: gen_range(lo, hi) (gen_below's scaling), then the fraction. */
    vu t = ahead_at(d, index, 3 * index, 2, 1);
    vl target = lo + (vl)(((t >> 32) * (uint64_t)(hi - lo + 1)) >> 32);
    vl e = (target - (target >> 63)) >> 1;  /* C's target / 2: toward zero */
    if (clamp)
        e = min_l(e, ALL(F.emax));
    vu f = ahead_at(d, index, 3 * index, 2, 2);
    vu normal = value_bits(F, sign, e, f);
    d->taken += pick(special, ALL(1), ALL(3));
    *hit |= special & (kind < GEN_SPECIAL_KIND_FINITE);
    return (vu)pick(special, (vl)sk, (vl)normal);
}

/* Up to 64 rounds per case; each round packs the cases still without a
 * special source into whole vectors (as closed_lanes packs its attempts: a
 * group of four run until all four hit took half again as long).  v[k]
 * holds case k's latest round. */
LANES void special_lanes(lane_formats FS, bool mixed, int lo, int hi, int fixed, uint64_t fixed_bits, bool fixed_hit,
                         gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3])
{
    uint32_t todo[2][CLOSED_LANES_MAX];
    size_t m = n;
    for (size_t k = 0; k < n; k++)
        todo[0][k] = (uint32_t)k;
    for (int round = 0; round < 64 && m; round++) {
        const uint32_t *now = todo[round & 1];
        uint32_t *later = todo[~round & 1];
        size_t left = 0;
        uint64_t state[CLOSED_LANES_MAX + LANES_N - 1];
        gather_states(rng, which, now, m, state);
        for (size_t i = 0; i < m; i += LANES_N) {
            size_t lanes = m - i < LANES_N ? m - i : LANES_N;
            streams st = group_streams(state + i, lanes);
            ahead d = ahead_of(&st, 9);  /* three sources, three draws at most each */
            vl hit = ALL(fixed_hit ? -1 : 0);
            vu out[3];
            /* Source by source in order, each format a constant where the entry's is
             * (a loop over an array of them had GCC read them from memory); the
             * literal draws nothing. */
            int index = 0;
            out[0] = fixed == 0 ? (vu)ALL((int64_t)fixed_bits) : special_source(FS.a, mixed, lo, hi, &d, index++, &hit);
            out[1] = fixed == 1 ? (vu)ALL((int64_t)fixed_bits) : special_source(FS.b, mixed, lo, hi, &d, index++, &hit);
            out[2] = fixed == 2 ? (vu)ALL((int64_t)fixed_bits) : special_source(FS.c, mixed, lo, hi, &d, index++, &hit);
            ahead_done(&d, &st);
            ungroup_streams(&st, state + i);
            for (size_t j = 0; j < lanes; j++) {
                uint32_t k = now[i + j];
                v[k][0] = out[0][j], v[k][1] = out[1][j], v[k][2] = out[2][j];
                later[left] = k;  /* kept where it missed: no branch on a coin's outcome */
                left += !hit[j];
            }
        }
        scatter_states(rng, which, now, m, state);
        m = left;
    }
}

/* ---- the subnormal class's grid design (rdna2_construct.c's
 * design_subnormal_grid), for cases whose design already drew its coin for
 * it: every draw the scalar design makes, in its order, the optional ones
 * (sticky's range, the head's bits, the sticky side, and everything after
 * an empty exponent range) only in the lanes that make them. */

/* gen_range(lo, hi) of w, per lane (gen_below's scaling). */
LANES vl range_of(vu w, vl lo, vl hi) { return lo + (vl)(((w >> 32) * (vu)(hi - lo + 1)) >> 32); }

LANES void grid_attempt(lane_format F, streams *st, vu out[3], vl *done)
{
    int h = F.emin - F.p, u = h + 1, a_lowest = F.emin - F.p + 1;
    vl live = st->live;
    /* Eight draws at most, three of them by coins (ahead_next's ranges: the draws taken before). */
    ahead d = ahead_of(st, 8);
    vl sticky_zero = flag(ahead_next(&d, live, 0, 0), 63);
    vu w = ahead_next(&d, live & ~sticky_zero, 1, 1);
    vl sticky = pick(sticky_zero, ALL(0), range_of(w, ALL(1), ALL(6)));
    vl head_bits = range_of(ahead_next(&d, live, 1, 2), ALL(0), F.p - sticky - 2);
    vl has_head = head_bits != 0, top = pick(has_head, head_bits - 1, ALL(0));
    w = ahead_next(&d, live & has_head, 2, 3);
    vl H = pick(has_head, (ALL(1) << top) | ((vl)w & ((ALL(1) << top) - 1)), ALL(0));
    vl A = (H << (sticky + 1)) | (ALL(1) << sticky);
    vl has_sticky = sticky != 0;
    vl up = flag(ahead_next(&d, live & has_sticky, 2, 4), 63);
    A = pick(has_sticky, pick(up, A + 1, A - 1), A);
    vl len = dexp(to_double(A)) + 1;  /* A below 2^25: exact */
    /* b's exponent range is never empty here (the scalar design gives up
     * where it is): hi = -1 - sticky, at least -7, and lo = emin, since A
     * has at most p bits. */
    vl hi = min_l(ALL(F.emax), h - sticky - a_lowest), lo = max_l(ALL(F.emin), h - sticky + len - 1 - F.emax);
    vl eb = range_of(ahead_next(&d, live, 2, 5), lo, hi);
    vl neg = flag(ahead_next(&d, live, 3, 6), 63);
    vu R = ahead_next(&d, live, 4, 7) & (vu)frac_mask(F);
    ahead_done(&d, st);
    vd a = to_double(A) * pow2(h - sticky - eb), c = (to_double((vl)R) - to_double(H)) * pow2(ALL(u));
    vl ok_a, ok_b, ok_c;
    out[0] = double_bits(F, neg_where(neg, a), &ok_a);
    out[1] = double_bits(F, pow2(eb), &ok_b);
    out[2] = double_bits(F, neg_where(neg, c), &ok_c);
    *done = live & ok_a & ok_b & ok_c;
}

/* ---- the subnormal class's operands design (rdna2_construct.c's
 * subnormal_operands) ----
 *
 * One source sure to be near the subnormal range, each other one by a
 * coin; a near source is gen_near_subnormal's value, the others
 * gen_value_with_exp's with an exponent in [-4, 4].  A case's draws per
 * source, each in the lanes that make it: the coin (not for the sure one),
 * the exponent, a near source's trailing zeros, the sign (a far source's
 * only where abs leaves it free), the fraction.  The literal, where a
 * source is one, is drawn for and then put back. */

/* value_with_exp (gen/values.c, lowest bit not set) in format F: sign a
 * mask, e the leading bit's exponent (at least F's lowest subnormal one),
 * tz the trailing zeros (0 to F.p - 1), w's low bits the fraction. */
LANES vu value_with_exp_lanes(lane_format F, vl sign, vl e, vl tz, vu w)
{
    int fb = F.p - 1, lowest = F.emin - fb;
    vu frac = (w & (vu)frac_mask(F)) & ~(((vu)ALL(1) << (vu)tz) - 1);
    e = min_l(e, ALL(F.emax));
    vu normal = (vu)((e + F.bias) << fb) | frac;
    /* Subnormal, its leading bit at 2^e, with as many significant bits as
     * a normal value of these trailing zeros. */
    vl lead = max_l(e, ALL(lowest)) - lowest;
    vu sig = ((vu)ALL(1) << (vu)lead) | (frac >> (vu)(fb - lead));
    vl low = max_l(lead + 1 - max_l(fb + 1 - tz, ALL(1)), ALL(0));
    sig &= ~(((vu)ALL(1) << (vu)low) - 1);
    return (vu)(bit(sign) << (F.bits - 1)) | (vu)pick(e >= F.emin, (vl)normal, (vl)sig);
}

/* One source's value for the live lanes: near where `sure` (the lane's
 * sure source is this one) or by a coin; forced its forced sign or -1. */
LANES vu operand_source(lane_format F, vl sure, int forced, streams *st)
{
    vl live = st->live;
    vl near = sure | flag(next(st, live & ~sure), 63);
    vu de = next(st, live);
    vl e = pick(near, range_of(de, ALL(F.emin - F.p + 1), ALL(F.emin + 1)), range_of(de, ALL(-4), ALL(4)));
    vl tz = pick(near, range_of(next(st, live & near), ALL(0), ALL(F.p - 1)), ALL(0));
    vl drawn = flag(next(st, live & (forced < 0 ? ALL(-1) : near)), 63);
    vl sign = forced < 0 ? drawn : pick(near, drawn, ALL(-(int64_t)forced));
    return value_with_exp_lanes(F, sign, e, tz, next(st, live));
}

LANES void operands_attempt(lane_formats FS, const int forced[3], int fixed, streams *st, vu out[3])
{
    vl sure = range_of(next(st, st->live), ALL(0), ALL(2));
    sure = pick(sure == fixed, pick(sure == 2, ALL(0), sure + 1), sure);
    out[0] = operand_source(FS.a, sure == 0, forced[0], st);
    out[1] = operand_source(FS.b, sure == 1, forced[1], st);
    out[2] = operand_source(FS.c, sure == 2, forced[2], st);
}

/* The designs of a single attempt a case (the operands design always
 * makes one; ok may then be NULL). */
enum { GRID_DESIGN, OPERANDS_DESIGN };

/* One attempt a case, a vector of cases at a time; design, a constant of
 * each caller, picks the attempt (the grid design's lanes are all FS.d). */
LANES void single_attempts(int design, lane_formats FS, const int forced[3], int fixed, uint64_t fixed_bits,
                           gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3], bool *ok)
{
    uint64_t state[CLOSED_LANES_MAX + LANES_N - 1];
    gather_states(rng, which, NULL, n, state);
    for (size_t i = 0; i < n; i += LANES_N) {
        size_t lanes = n - i < LANES_N ? n - i : LANES_N;
        streams st = group_streams(state + i, lanes);
        vu out[3];
        vl done = ALL(-1);
        if (design == GRID_DESIGN)
            grid_attempt(FS.d, &st, out, &done);
        else
            operands_attempt(FS, forced, fixed, &st, out);
        ungroup_streams(&st, state + i);
        for (size_t j = 0; j < lanes; j++) {
            if (ok)
                ok[i + j] = done[j] != 0;
            v[i + j][0] = out[0][j], v[i + j][1] = out[1][j], v[i + j][2] = out[2][j];
        }
        if (fixed >= 0)  /* the literal, drawn for and put back */
            for (size_t j = 0; j < lanes; j++)
                v[i + j][fixed] = fixed_bits;
    }
    scatter_states(rng, which, NULL, n, state);
}

/* The source the literal K is (-1: none) is a constant of each entry point:
 * read at run time, it cost the lanes without K 2.6 instructions a case
 * (callgrind of tests/gen_count, v_fma_f32). */
LANES_ENTRY void special_f32(int lo, int hi, gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3])
{
    special_lanes(ALL_F32, false, lo, hi, -1, 0, false, rng, which, n, v);
}

LANES_ENTRY void special_f32_kb(int lo, int hi, uint64_t k, bool k_hit, gen_rng *rng, const uint32_t *which,
                                size_t n, uint64_t (*v)[3])
{
    special_lanes(ALL_F32, false, lo, hi, 1, k, k_hit, rng, which, n, v);
}

LANES_ENTRY void special_f32_kc(int lo, int hi, uint64_t k, bool k_hit, gen_rng *rng, const uint32_t *which,
                                size_t n, uint64_t (*v)[3])
{
    special_lanes(ALL_F32, false, lo, hi, 2, k, k_hit, rng, which, n, v);
}

LANES_ENTRY void special_f16(int lo, int hi, gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3])
{
    special_lanes(ALL_F16, false, lo, hi, -1, 0, false, rng, which, n, v);
}

/* Sources of f32 and f16 mixed (the MIX forms), no literal: formats read at run time. */
LANES_ENTRY void special_mixed(const lane_formats *FS, int lo, int hi, gen_rng *rng, const uint32_t *which, size_t n,
                               uint64_t (*v)[3])
{
    special_lanes(*FS, true, lo, hi, -1, 0, false, rng, which, n, v);
}

static lane_format lane_format_of(const fp_format *f) { return f == &fp_f32 ? F32 : F16; }
void LANES_API(rdna2_special_lanes)(const rdna2_lane *s, int tie_lo, int tie_hi, gen_rng *rng, const uint32_t *which,
                                    size_t n, uint64_t (*v)[3])
{
    bool fixed_hit = s->fixed >= 0 && gen_is_special(s->fmt[s->fixed], s->fixed_bits);
    const fp_format *d = s->dest;
    bool uniform = s->fmt[0] == d && s->fmt[1] == d && s->fmt[2] == d;
    lane_formats FS;
    if (!uniform)  /* the dest's format is not read */
        FS = (lane_formats){lane_format_of(s->fmt[0]), lane_format_of(s->fmt[1]), lane_format_of(s->fmt[2]), F32};
    for (size_t first = 0; first < n; first += CLOSED_LANES_MAX) {
        size_t m = n - first < CLOSED_LANES_MAX ? n - first : CLOSED_LANES_MAX;
        if (s->fixed == 1)
            special_f32_kb(tie_lo, tie_hi, s->fixed_bits, fixed_hit, rng, which + first, m, v + first);
        else if (s->fixed == 2)
            special_f32_kc(tie_lo, tie_hi, s->fixed_bits, fixed_hit, rng, which + first, m, v + first);
        else if (!uniform)
            special_mixed(&FS, tie_lo, tie_hi, rng, which + first, m, v + first);
        else if (s->dest == &fp_f32)
            special_f32(tie_lo, tie_hi, rng, which + first, m, v + first);
        else
            special_f16(tie_lo, tie_hi, rng, which + first, m, v + first);
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

/* The formats: constants where the sources share f32 or f16, read at run time where they mix. */
LANES_ENTRY void operands_f32(const int forced[3], int fixed, uint64_t fixed_bits, gen_rng *rng, const uint32_t *which,
                              size_t n, uint64_t (*v)[3])
{
    single_attempts(OPERANDS_DESIGN, ALL_F32, forced, fixed, fixed_bits, rng, which, n, v, NULL);
}

LANES_ENTRY void operands_f16(const int forced[3], int fixed, uint64_t fixed_bits, gen_rng *rng, const uint32_t *which,
                              size_t n, uint64_t (*v)[3])
{
    single_attempts(OPERANDS_DESIGN, ALL_F16, forced, fixed, fixed_bits, rng, which, n, v, NULL);
}

LANES_ENTRY void operands_mixed(const lane_formats *FS, const int forced[3], int fixed, uint64_t fixed_bits,
                                gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3])
{
    single_attempts(OPERANDS_DESIGN, *FS, forced, fixed, fixed_bits, rng, which, n, v, NULL);
}

void LANES_API(rdna2_subnormal_operands_lanes)(const rdna2_lane *s, gen_rng *rng, const uint32_t *which, size_t n,
                                               uint64_t (*v)[3])
{
    const fp_format *f = s->fmt[0];
    bool uniform = s->fmt[1] == f && s->fmt[2] == f;
    lane_formats FS = {lane_format_of(s->fmt[0]), lane_format_of(s->fmt[1]), lane_format_of(s->fmt[2]), F32};
    for (size_t first = 0; first < n; first += CLOSED_LANES_MAX) {
        size_t m = n - first < CLOSED_LANES_MAX ? n - first : CLOSED_LANES_MAX;
        if (uniform && f == &fp_f32)
            operands_f32(s->forced_sign, s->fixed, s->fixed_bits, rng, which + first, m, v + first);
        else if (uniform)
            operands_f16(s->forced_sign, s->fixed, s->fixed_bits, rng, which + first, m, v + first);
        else
            operands_mixed(&FS, s->forced_sign, s->fixed, s->fixed_bits, rng, which + first, m, v + first);
    }
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
    if (s->fixed == 1)  /* K's own bits count against the budget */
        P->budget = P->budget - P->k_span > 2 ? P->budget - P->k_span : 2;
}

/* The lane's constants, once for a call. */
static closed_params params_of(const rdna2_lane *s, bool uniform, gen_class c)
{
    closed_params P = {.flip = -1};
    rdna2_closed_target_range(s, c, &P.lo, &P.hi);  /* never empty where rdna2_closed_covers took the class */
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
        else if (!uniform)  /* rdna2_closed_covers: fused */
            closed_mixed(&FS, s->forced_sign, c, &P, rng, which + first, m, v + first, ok + first);
        else if (s->dest == &fp_f32)
            closed_f32(s->unfused, s->forced_sign, c, &P, rng, which + first, m, v + first, ok + first);
        else
            closed_f16(s->unfused, s->forced_sign, c, &P, rng, which + first, m, v + first, ok + first);
    }
}

LANES_ENTRY void grid_f32(gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3], bool *ok)
{
    single_attempts(GRID_DESIGN, ALL_F32, NULL, -1, 0, rng, which, n, v, ok);
}

LANES_ENTRY void grid_f16(gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3], bool *ok)
{
    single_attempts(GRID_DESIGN, ALL_F16, NULL, -1, 0, rng, which, n, v, ok);
}

void LANES_API(rdna2_subnormal_grid_lanes)(const fp_format *f, gen_rng *rng, const uint32_t *which, size_t n,
                                           uint64_t (*v)[3], bool *ok)
{
    for (size_t first = 0; first < n; first += CLOSED_LANES_MAX) {
        size_t m = n - first < CLOSED_LANES_MAX ? n - first : CLOSED_LANES_MAX;
        if (f == &fp_f32)
            grid_f32(rng, which + first, m, v + first, ok + first);
        else
            grid_f16(rng, which + first, m, v + first, ok + first);
    }
}

/* The plain names, in the narrow build: the wide build's where the host has
 * AVX-512 (lanes.h), and which lanes the entry points take. */
#ifndef LANES_WIDE
static bool f16_or_f32(const fp_format *f) { return f == &fp_f32 || f == &fp_f16; }

bool rdna2_special_lanes_cover(const rdna2_lane *s, int tie_lo)
{
    /* The normal values' exponents (tie_lo / 2 and up, C's division) must
     * stay normal in every source's format (above one's range they are
     * clamped, as the scalar design clamps them). */
    const fp_format *d = s->dest;
    bool uniform = s->fmt[0] == d && s->fmt[1] == d && s->fmt[2] == d;
    bool literal_ok = s->fixed < 0 || (uniform && d == &fp_f32 && s->fixed >= 1);  /* the entry points' K: f32, as b or c */
    bool normal = true;
    for (int i = 0; i < 3; i++)
        normal &= f16_or_f32(s->fmt[i]) && tie_lo / 2 >= s->fmt[i]->emin;
    return f16_or_f32(d) && literal_ok && normal;
}

void rdna2_special_lanes(const rdna2_lane *s, int tie_lo, int tie_hi, gen_rng *rng, const uint32_t *which, size_t n,
                         uint64_t (*v)[3])
{
    LANES_PICK(rdna2_special_lanes)(s, tie_lo, tie_hi, rng, which, n, v);
}

void rdna2_closed_lanes(const rdna2_lane *s, gen_class c, gen_rng *rng, const uint32_t *which, size_t n,
                        uint64_t (*v)[3], bool *ok)
{
    LANES_PICK(rdna2_closed_lanes)(s, c, rng, which, n, v, ok);
}

void rdna2_subnormal_grid_lanes(const fp_format *f, gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3],
                                bool *ok)
{
    LANES_PICK(rdna2_subnormal_grid_lanes)(f, rng, which, n, v, ok);
}

bool rdna2_subnormal_operands_lanes_cover(const rdna2_lane *s)
{
    return f16_or_f32(s->fmt[0]) && f16_or_f32(s->fmt[1]) && f16_or_f32(s->fmt[2]);
}

void rdna2_subnormal_operands_lanes(const rdna2_lane *s, gen_rng *rng, const uint32_t *which, size_t n,
                                    uint64_t (*v)[3])
{
    LANES_PICK(rdna2_subnormal_operands_lanes)(s, rng, which, n, v);
}
#endif
