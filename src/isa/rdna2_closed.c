/* Closed-form lane designs for the lanes most RDNA 2 cases have: a*b + c
 * fused (or all f32 unfused, the legacy forms), with a, b, c and the result
 * f32 or f16 in any mix, no literal, K as b, or K as c (f32 throughout; its
 * own design, below), for the classes that aim the
 * addend at a spot of the result's grid: tie, near-tie, cancel, overflow,
 * and double-round to f32 (a tie for the product rounded to f32: the legacy
 * forms round it so themselves, a fused form's exact sum lands just off it;
 * until 2026-12 the legacy forms' went through the generic design, at 1.2-1.5 times
 * the time a case).
 *
 * They build the shapes the generic designs of rdna2_construct.c and
 * gen/addend_fast.c build (a product of a chosen binade with full or short
 * significands; an addend that puts the sum on a tie directly, by
 * cancelling the product's head, or in a higher binade; a few units of the
 * product's lowest bit off a tie; a zero or tiny residue; the overflow
 * midpoint or a tie in the top binade; a tie for the product rounded
 * first), but straight-line, from three or four random words an attempt
 * cut into fields, where the generic path makes 15-20 draws and dispatches
 * on formats, literals and classes at every step (about 1,100 instructions
 * a tie, against about 560 here, measured with callgrind).
 *
 * Where the formats differ, the product's binade is drawn from the range the
 * generic design aims at (an f16 c of an f32 result needs a short product
 * within its reach), clipped to what the factors can make; a K as b fixes
 * one factor, and a's binade puts the product at the target.  Where that
 * range is empty the generic design takes the lane (rdna2_closed_covers),
 * but for K as b's overflow class under a K too small for any a to reach
 * the top binades: the product as large as a makes it, c taking the sum
 * there.  A near tie's product wider than c is drawn no lower than the
 * generic design's floor (rdna2_near_tie_floor).
 *
 * Every value is exact in double: the product of two significands of at
 * most 24 bits, and sums spanning at most 50 bits.  Nothing here decides a
 * class: the caller's verdict verifies every case, and an attempt whose
 * addend the format cannot hold draws again. */
#include "../fp/fast.h"
#include "rdna2.h"

/* Fields of a random word: 16 bits at `at` scaled to [lo, hi], or one bit. */
static inline int field(uint64_t w, int at, int lo, int hi)
{
    return lo + (int)((((w >> at) & 0xffffu) * (uint64_t)(hi - lo + 1)) >> 16);
}
static inline bool flag(uint64_t w, int at) { return (w >> at) & 1u; }
static inline int max_int(int a, int b) { return a > b ? a : b; }
static inline int min_int(int a, int b) { return a < b ? a : b; }

static inline int prec(const fp_format *f) { return (int)f->precision; }
static inline uint64_t frac_mask(const fp_format *f) { return (1ull << (f->precision - 1)) - 1; }
static inline int lowest_bit(const fp_format *f) { return f->emin - prec(f) + 1; }
static bool f16_or_f32(const fp_format *f) { return f == &fp_f16 || f == &fp_f32; }

/* The f32 literal K as b, where the closed design takes it: finite and
 * normal (a subnormal K is the generic design's, flushed in the legacy forms). */
static bool k_is_normal(uint64_t k) { return ((k >> 23) & 0xff) != 0 && ((k >> 23) & 0xff) != 0xff; }
static double k_value(const rdna2_lane *s) { return fp_fast_f32_to_double((uint32_t)s->fixed_bits); }

/* c cannot take a full product's bits below the result's unit, so the
 * product is short: an f16 c of an f32 result (V_FMA_MIX_F32's), or any c
 * of a product with more bits than c and the result's unit hold between
 * them (to an f16 result, a full product held 76% of ties at a seventh of
 * the speed, two f32 factors and an f16 c). */
static bool narrow_c(const rdna2_lane *s)
{
    int pc = prec(s->fmt[2]), pd = prec(s->dest);
    return pc < pd || pc + pd < prec(s->fmt[0]) + prec(s->fmt[1]) - 1;
}

/* The binades [lo, hi] the product's top is drawn from: class_target's
 * (rdna2_construct.c), clipped to the products the factors can make.  False
 * where none is left. */
bool rdna2_closed_target_range(const rdna2_lane *s, gen_class c, int *lo, int *hi)
{
    const fp_format *fa = s->fmt[0], *fb = s->fmt[1], *fc = s->fmt[2], *d = s->dest;
    *lo = rdna2_product_floor(fa, fb, fc, d);
    *hi = d->emax - 1;
    if (*lo > *hi)
        *lo = *hi - 4;
    if (c == GEN_OVERFLOW) {
        *lo = d->emax - 1;
        *hi = d->emax;
    } else if (narrow_c(s) && c == GEN_CANCEL) {
        *lo = lowest_bit(fc) + prec(fc) - 1;
        *hi = fc->emax;
    } else if (narrow_c(s) && c == GEN_DOUBLE_ROUND) {
        /* c is half a unit of the rounded product: that unit on c's grid. */
        *lo = lowest_bit(fc) + prec(d);
        *hi = fc->emax + prec(d) - 1;
    } else if (narrow_c(s)) {
        *lo = lowest_bit(fc) + prec(d) + prec(fc) - 4;
        *hi = fc->emax + prec(d) - 1;
    }
    *hi = min_int(*hi, d->emax - (c != GEN_OVERFLOW));  /* an f16 result's range ends below c's reach */
    if (c == GEN_NEAR_TIE)  /* the generic design's floor: it changes only an f32 c's of an f16 result */
        *lo = rdna2_near_tie_floor(s, *lo, *hi);
    int ek = s->fixed == 1 ? fp_dexp(fp_dabs(k_value(s))) : 0;
    *lo = max_int(*lo, fa->emin + (s->fixed == 1 ? ek : fb->emin));
    *hi = min_int(*hi, fa->emax + (s->fixed == 1 ? ek : fb->emax));
    if (c == GEN_OVERFLOW && s->fixed == 1 && *lo > *hi) {
        /* A K as b under 2^-1: no a puts the product in the top two
         * binades, so it is as large as a makes it and c takes the sum
         * there (overflow_addend).  The generic design made these cases
         * the same way after aiming at the midpoint, which c cannot reach
         * from a product this far below, at 1,030 instructions a case
         * against 370 here (v_fmamk_f32, K = 0xbcf6e801; callgrind). */
        *hi = fa->emax + ek;
        *lo = max_int(*hi - 1, fa->emin + ek);
    }
    return *lo <= *hi;
}

/* Significant bits the two factors share, where the class wants a short
 * product (0: mostly full significands, sometimes short ones). */
static int short_budget(const rdna2_lane *s, gen_class c, uint64_t d1)
{
    const fp_format *fc = s->fmt[2];
    if (c == GEN_OVERFLOW)
        return prec(s->dest);  /* so that c can reach from it to the top of the range */
    if (c == GEN_CANCEL)       /* narrow c: always; else half the time a product c cancels exactly */
        return narrow_c(s) || (prec(fc) < prec(s->fmt[0]) + prec(s->fmt[1]) && flag(d1, 49)) ? prec(fc) : 0;
    if (narrow_c(s) && c != GEN_DOUBLE_ROUND)
        return prec(s->dest) + prec(fc) - 3;  /* the bits below the unit, plus half a unit, on c's grid */
    return 0;
}

/* A tie that cancels the product's head (tie_value's shapes 0-2) keeps the
 * product's p lowest bits, p the result's precision, and puts c's lowest
 * bit p places above the product's: c is 2^(p + the product's lowest bit)
 * or twice that where the product has at most p bits, and else the
 * product's head above that place, about the product's size.  A narrow c
 * holds the first only where the product's lowest bit is low, the second
 * only where the product is within c's range.  Under a narrow c the tie's
 * product is short (short_budget's bits at most, or the factors' own), so
 * from its span the binades where c reaches: its lowest
 * bit at least c's lowest less p, and the half unit on the result's grid
 * (the bottom), and c no larger than c's largest binade (the top).  Drawn
 * from the class's range instead (for V_FMA_MIX_F32's default, f16 sources
 * to f32, 2^7 up, against 2^-28 to 2^10 here), those shapes missed nine
 * attempts in ten, the tie class made 1.9 attempts a case, and the ties
 * these shapes make were 6% of its ties, not 3/8 as elsewhere.  The range
 * is only ever lowered at the bottom and cut at the top. */
void rdna2_closed_head_range(const rdna2_lane *s, gen_class c, int *lo, int *hi)
{
    if (c != GEN_TIE || !narrow_c(s))
        return;
    const fp_format *fa = s->fmt[0], *fb = s->fmt[1], *fc = s->fmt[2];
    const fp_format *d = s->dest;
    int p = prec(d);
    /* The product's lowest bit at its top less span - 1: two full
     * significands', or the short budget's less one (each factor's top is
     * one of its bits; a tie's budget reads no coin). */
    int span = min_int(prec(fa) + prec(fb) - 1, short_budget(s, c, 0) - 1);
    /* The half unit on d's grid too (tie_value's test): an f16 result's. */
    int bottom = max_int(max_int(lowest_bit(fc), d->emin) - p + span - 1, fa->emin + fb->emin);
    int top = span <= p ? fc->emax - p + span - 2 : fc->emax - 1;
    *lo = min_int(*lo, bottom);
    *hi = max_int(*lo, min_int(*hi, top));
}

bool rdna2_closed_covers(const rdna2_lane *s, gen_class c)
{
    const fp_format *d = s->dest;
    if (c != GEN_TIE && c != GEN_NEAR_TIE && c != GEN_CANCEL && c != GEN_OVERFLOW &&
        (c != GEN_DOUBLE_ROUND || d != &fp_f32))
        return false;
    if (s->fixed == 2)  /* K as c: f32 throughout, K finite and normal (or subnormal where it is not flushed) */
        return d == &fp_f32 && s->fmt[0] == d && s->fmt[1] == d && s->fmt[2] == d &&
               (k_is_normal(s->fixed_bits) || (!s->unfused && fp_is_subnormal_bits(&fp_f32, s->fixed_bits)));
    if (!f16_or_f32(d) || !f16_or_f32(s->fmt[0]) || !f16_or_f32(s->fmt[1]) || !f16_or_f32(s->fmt[2]))
        return false;
    if (s->fixed == 1 ? s->fmt[1] != &fp_f32 || !k_is_normal(s->fixed_bits) : s->fixed >= 0)
        return false;
    /* The legacy forms' product rounds to f32 and flushes. */
    bool uniform = s->fmt[0] == d && s->fmt[1] == d && s->fmt[2] == d;
    if (s->unfused && (d != &fp_f32 || !uniform))
        return false;
    /* A near tie where the formats differ only with an f16 c, a c of the
     * result's format, or an f32 c of an f16 result where the sum rounds to
     * f32 first (a MIX f16 form's record): aimed from the product rounded
     * so, as the generic design aims, 100% (2026-12; 1,417 to 546
     * instructions a case).  Rounding once, an f32 c of an f16 result stays
     * the generic design's: its offsets below half a unit reach bits c
     * cannot hold more often (28-49% verified against 55-64%, before the
     * generic design aimed from the rounded product: 99.95-100% since).  An f16
     * c of an f16 result: 100% against 87-99.9%, at a half to a fifth of
     * the cost; of an f32 result, with offsets no deeper than c reaches
     * (near_tie_depth), 100% as the generic design, and V_FMA_MIX_F32's
     * near-tie class 110 ns a case to 47 (tests/gen_count; offsets as deep
     * as f32's made most attempts miss, 130 ns).  An f32 c of an f32
     * result (V_FMA_MIX_F32 under op_sel_hi 1-3): 100% as the generic
     * design, at 494-515 instructions a case against 1,252-1,270
     * (callgrind). */
    if (c == GEN_NEAR_TIE && !uniform && s->fmt[2] != &fp_f16 && s->fmt[2] != d && !s->rounds_twice)
        return false;
    if (c == GEN_DOUBLE_ROUND) {
        /* An inexact product: more bits than f32 holds (a power-of-two K adds none). */
        double k = k_value(s);
        int kbits = s->fixed == 1 ? fp_dexp(fp_dabs(k)) - fp_dlsb(fp_dabs(k)) + 1 : prec(s->fmt[1]);
        if (prec(s->fmt[0]) + kbits - 1 <= prec(d))
            return false;
    }
    /* The uniform lanes' ranges are never empty (f32's floor is 2^-102, f16's 2^-3). */
    int lo, hi;
    return (uniform && s->fixed < 0) || rdna2_closed_target_range(s, c, &lo, &hi);
}

uint32_t rdna2_closed_mask(const rdna2_lane *s)
{
    uint32_t m = 0;
    for (int c = 0; c < GEN_CLASS_COUNT; c++)
        m |= (uint32_t)rdna2_closed_covers(s, (gen_class)c) << c;
    return m;
}

static bool all_f32(const rdna2_lane *s)
{
    return s->dest == &fp_f32 && s->fmt[0] == &fp_f32 && s->fmt[1] == &fp_f32 && s->fmt[2] == &fp_f32;
}

bool rdna2_closed_lanes_cover(const rdna2_lane *s, gen_class c)
{
    /* rdna2_closed_covers has taken only f32 and f16, fused where they mix;
     * the lanes' K, as b or as c, is f32 throughout. */
    return ((s->closed >> c) & 1) && (s->fixed < 0 || ((s->fixed == 1 || s->fixed == 2) && all_f32(s)));
}

/* A normal value with leading-bit exponent e and significand m (hidden bit included). */
static uint64_t value_bits(const fp_format *f, bool sign, int e, uint64_t m)
{
    return (uint64_t)sign << (f->bits - 1) | (uint64_t)(e + f->bias) << (prec(f) - 1) | (m & frac_mask(f));
}

typedef struct {
    double x;          /* the exact product */
    uint64_t a, b;     /* its factors' encodings */
} product;

/* a's trailing zeros and b's: `budget` > 0 gives the two significands that
 * many significant bits between them (so that c can hold the whole
 * product), else mostly full ones, sometimes short. */
static void trailing_zeros(const rdna2_lane *s, int budget, uint64_t d0, uint64_t d2, int *tza, int *tzb)
{
    int pa = prec(s->fmt[0]), pb = prec(s->fmt[1]);
    if (budget) {
        int sa = min_int(field(d2, 0, 1, budget - 1), pa);
        *tza = pa - sa;
        *tzb = pb - max_int(1, min_int(budget - sa, pb));
    } else {
        *tza = (d0 >> 52) & 3 ? 0 : field(d2, 0, 0, pa - 1);
        *tzb = (d0 >> 54) & 3 ? 0 : field(d2, 16, 0, pb - 1);
    }
}

/* a*b with msb(a) + msb(b) == target (b = K where the literal is b). */
static product pick_product(const rdna2_lane *s, int target, int budget, uint64_t d0, uint64_t d1, uint64_t d2)
{
    const fp_format *fa = s->fmt[0], *fb = s->fmt[1];
    bool k_is_b = s->fixed == 1;
    double k = k_is_b ? k_value(s) : 0;
    int ek = k_is_b ? fp_dexp(fp_dabs(k)) : 0;
    int ea = k_is_b ? target - ek : field(d1, 16, max_int(fa->emin, target - fb->emax), min_int(fa->emax, target - fb->emin));
    int eb = target - ea;
    int tza, tzb;
    /* K's own significant bits count against a short product's budget. */
    trailing_zeros(s, k_is_b && budget ? max_int(2, budget - (ek - fp_dlsb(fp_dabs(k)))) : budget, d0, d2, &tza, &tzb);
    uint64_t ma = ((frac_mask(fa) + 1) | (d0 & frac_mask(fa))) & ~((1ull << tza) - 1);
    uint64_t mb = ((frac_mask(fb) + 1) | ((d0 >> 24) & frac_mask(fb))) & ~((1ull << tzb) - 1);
    bool sa = s->forced_sign[0] >= 0 ? s->forced_sign[0] : flag(d0, 63);
    bool sb = s->forced_sign[1] >= 0 ? s->forced_sign[1] : flag(d0, 62);
    double xa = (double)ma * fp_pow2(ea - prec(fa) + 1);
    if (k_is_b) {
        double x = xa * k;
        return (product){sa ? -x : x, value_bits(fa, sa, ea, ma), s->fixed_bits};
    }
    double x = xa * ((double)mb * fp_pow2(eb - prec(fb) + 1));
    return (product){sa != sb ? -x : x, value_bits(fa, sa, ea, ma), value_bits(fb, sb, eb, mb)};
}

/* How many places below half a unit of f a near tie's offset goes at most,
 * c of format fc: f's precision less two, or c's where that is less, at
 * least nine. */
static int near_tie_depth(const fp_format *f, const fp_format *fc)
{
    return max_int(min_int(prec(f), prec(fc)) - 2, 9);
}

/* v a few units of the product's lowest bit off, or of a bit 9 or more
 * places below half a unit, and no further than c reaches (an f16 c of an
 * f32 result: 9 places, where 22 made the closed design miss most
 * attempts); u the unit of ax's binade. */
static double near_tie_off(const fp_format *f, const fp_format *fc, double ax, int u, uint64_t d1, uint64_t d2,
                           double v)
{
    int low = fp_dlsb(ax);
    int e = low <= u - 9 ? low : u - 1 - field(d2, 48, 9, near_tie_depth(f, fc));
    double off = field(d1, 32, 1, 3) * fp_pow2(e);
    return flag(d1, 48) ? v - off : v + off;
}

/* The value v the sum x + c is to have, by magnitude (sign taken from x),
 * for the tie and near-tie classes on f's grid, c of format fc; false where
 * none is made. */
static bool tie_value(const fp_format *f, const fp_format *fc, double ax, gen_class c, uint64_t d0, uint64_t d1,
                      uint64_t d2, gen_rng *r, double *v)
{
    int msb = fp_dexp(ax), u = gen_unit_exp(f, msb);
    unsigned pick = (d0 >> 59) & 7;
    if (c == GEN_TIE && pick < 3) {
        /* Cancel the product's head: what is left is its low p + 1 bits with
         * the lowest (x's lowest set bit) as the half unit. */
        int top = fp_dlsb(ax) + prec(f);
        if (top < f->emin)
            return false;  /* that half unit is below the subnormal grid's */
        double hi = fp_dfloor_to(ax, top), lo = ax - hi;
        *v = pick == 0 ? lo - fp_pow2(top + 1) : lo + fp_pow2(top);
        return true;
    }
    if (c == GEN_TIE && pick == 7 && prec(fc) > prec(f)) {
        /* A tie some binades above the product, for a c wider than f,
         * which holds the sum's bits and the product's below them. */
        int up = gen_unit_exp(f, msb + field(d2, 32, 1, 12));
        uint64_t sig = (frac_mask(f) + 1) | (gen_next(r) & frac_mask(f));
        *v = (double)sig * fp_pow2(up) + fp_pow2(up - 1);
        return true;
    }
    if (c == GEN_TIE && pick == 7 && prec(fc) == prec(f)) {
        /* A tie above the product (an accumulator's tie, c mostly the
         * larger): the sum's p significant bits end one place above the
         * product's lowest bit, which is the half unit, and c = v - x is on
         * the sum's grid, so f holds it.  The product has at most p bits
         * (rdna2_closed_design draws it short for this shape); where the
         * sum would be subnormal, or more than a binade past f's largest
         * finite value, the tie is made as 3-6 make it.  A sum that one
         * binade past is a tie that overflows,
         * where c still holds it (the tie class's only such cells).  (Until
         * 2026-12 this shape drew the sum's binade and significand at random,
         * as it still does for a wider c, and made a tie about one attempt
         * in a hundred: c had the product's bits below the sum's grid.)  A
         * c narrower than f never holds one. */
        uint64_t sig = (frac_mask(f) + 1) | (gen_next(r) & frac_mask(f));
        int low = fp_dlsb(ax);
        if (msb - low < prec(f) && low >= f->emin - prec(f) && low + prec(f) <= f->emax + 1) {
            *v = (double)sig * fp_pow2(low + 1) + fp_pow2(low);
            return true;
        }
    }
    *v = fp_dfloor_to(ax, u) + fp_pow2(u - 1) + field(d2, 32, -1, 1) * fp_pow2(u);
    if (c == GEN_NEAR_TIE)
        *v = near_tie_off(f, fc, ax, u, d1, d2, *v);
    return true;
}

/* Where abs fixes every sign, c has the product's sign (side +1: the sum is
 * the larger) or the other (-1), and rdna2_respect_forced_signs has no free
 * factor to negate with it: a tie or near tie on the other side of the
 * product is made the default shape's one unit up (or down) instead, from
 * the same draws.  As it was, c took the sign it could not have and the
 * attempt missed: v_fma_f32's ties under abs=7 took 2.9 times the
 * instructions a case (callgrind). */
static double on_side(const fp_format *f, const fp_format *fc, double ax, gen_class c, uint64_t d1, uint64_t d2,
                      int side, double v)
{
    if (!side || (side > 0 ? v >= ax : v <= ax))
        return v;
    /* The half unit of the binade the step lands in (k_tie_value's way):
     * one unit down from 2^msb is the binade below, whose unit is half. */
    int u = gen_unit_exp(f, fp_dexp(ax));
    double t = fp_dfloor_to(ax, u) + side * fp_pow2(u);
    double w = t + fp_pow2(gen_unit_exp(f, fp_dexp(t)) - 1);
    return c == GEN_NEAR_TIE ? near_tie_off(f, fc, ax, u, d1, d2, w) : w;
}

/* The overflow class: the midpoint to infinity or a tie in the top binade of
 * d (a product short enough for c to reach either); where c cannot hold the
 * difference, a c of the product's sign: far below a product in the top two
 * binades already, or in them above one below (K as b too small for a to
 * take the product there: rdna2_closed_target_range; f32 throughout, and
 * no abs to force c's sign against the product's). */
static bool overflow_addend(const fp_format *fc, const fp_format *d, double x, uint64_t d1, uint64_t d2, gen_rng *r,
                            uint64_t *c)
{
    int u = d->emax - prec(d) + 1;
    uint64_t d3 = gen_next(r);
    double v = flag(d1, 49) ? fp_pow2(d->emax + 1) - fp_pow2(u - 1)
                            : (double)((frac_mask(d) + 1) | (d3 & frac_mask(d))) * fp_pow2(u) + fp_pow2(u - 1);
    if (gen_double_bits(fc, (x < 0 ? -v : v) - x, c))
        return true;
    int ex = fp_dexp(fp_dabs(x));
    int e = ex >= d->emax - 1 ? max_int(fc->emin, min_int(fc->emax, ex - field(d2, 48, 12, 40)))
                              : field(d2, 48, d->emax - 1, max_int(d->emax - 1, min_int(d->emax, fc->emax)));
    *c = value_bits(fc, x < 0, e, d3 >> 24);
    return true;
}

/* c for product x; false when c's format cannot hold it. */
static bool addend(const rdna2_lane *s, double x, gen_class c, uint64_t d0, uint64_t d1, uint64_t d2, gen_rng *r,
                   uint64_t *bits)
{
    const fp_format *fc = s->fmt[2], *d = s->dest;
    switch (c) {
    case GEN_CANCEL: {
        /* -x rounded to c's format: an exact zero for a short product, else
         * its rounding error (for an f16 c by way of f32: an aim, not a
         * verdict, so a second rounding does no harm). */
        float y = (float)-x;
        if (fc->bits == 32) {
            *bits = fp_fbits(y);
            return __builtin_isfinite(y);
        }
        uint32_t h = fp_fast_f32_to_f16(fp_fbits(y));
        *bits = h;
        return (h & 0x7fffu) != 0x7c00u;
    }
    case GEN_OVERFLOW:
        return overflow_addend(fc, d, x, d1, d2, r, bits);
    default: {  /* tie and near tie; a double round is a tie of the product rounded (rdna2_closed_design) */
        double v;
        if (!tie_value(d, fc, fp_dabs(x), c, d0, d1, d2, r, &v))
            return false;
        v = on_side(d, fc, fp_dabs(x), c, d1, d2, rdna2_forced_side(s), v);
        return gen_double_bits(fc, (x < 0 ? -v : v) - x, bits);
    }
    }
}

/* K as c (v_fmaak_f32, v_madak_f32): the sum's value v is aimed from K
 * itself and the product y = v - K is what it takes to get there, split as
 * a = +-2^e near 1 times b = y / a: the generic design's shapes
 * (design_fixed_addend, gen_addend_double's), straight-line.  Every v here
 * spans at most 48 bits with K (a near tie's offset 46 places below K's top,
 * a tie 12 binades above it 37), so y = v - K is exact in double but near
 * the overflow midpoint, which a TwoSum check turns away; then y must be a product an f32 and a
 * power of two make exactly (24 significant bits), an f32 itself where the
 * legacy forms round and flush the product first or the double-round class
 * rounds it.  About 880 instructions a v_madak_f32 tie the generic way. */

/* |v| for the tie and near-tie classes from |K| = ak, on f32's grid (K is
 * on it: an f32, normal, or subnormal in the fused form).  A step down from
 * a power-of-two K crosses into the binade below, whose half unit is half
 * as large (a tie there, not a grid point).  Under a subnormal K a double
 * round's y from a tie is never an f32 (its half-unit bit is 2^-150): only
 * the shapes that cancel K's head (a power-of-two y) make one, and an
 * attempt that misses draws again. */
static double k_tie_value(double ak, gen_class c, uint64_t d0, uint64_t d1, uint64_t d2, gen_rng *r)
{
    const fp_format *f = &fp_f32;
    int msb = fp_dexp(ak), u = gen_unit_exp(f, msb);
    unsigned pick = (d0 >> 59) & 7;
    if (c == GEN_TIE && pick < 3) {
        /* Cancel K's head: K is all below the place p above its lowest bit, so y is a power of two. */
        int top = fp_dlsb(ak) + prec(f);
        return pick == 0 ? ak - fp_pow2(top + 1) : ak + fp_pow2(top);
    }
    if (c == GEN_TIE && pick == 7) {
        int up = gen_unit_exp(f, msb + field(d2, 32, 1, 12));
        uint64_t sig = (frac_mask(f) + 1) | (gen_next(r) & frac_mask(f));
        return (double)sig * fp_pow2(up) + fp_pow2(up - 1);
    }
    double t = ak + field(d2, 32, -1, 1) * fp_pow2(u);
    double v = t + fp_pow2(gen_unit_exp(f, fp_dexp(t)) - 1);
    return c == GEN_NEAR_TIE ? near_tie_off(f, f, ak, u, d1, d2, v) : v;
}

/* The sum's value |v| the class aims at from |K| (0 for cancel: y = -K). */
static double k_sum_value(gen_class c, double ak, uint64_t d0, uint64_t d1, uint64_t d2, gen_rng *r)
{
    const fp_format *d = &fp_f32;
    switch (c) {
    case GEN_CANCEL:
        return 0;
    case GEN_OVERFLOW: {
        /* The midpoint to infinity, or a tie in the top binade. */
        int u = d->emax - prec(d) + 1;
        if (flag(d1, 49))
            return fp_pow2(d->emax + 1) - fp_pow2(u - 1);
        return (double)((frac_mask(d) + 1) | (gen_next(r) & frac_mask(d))) * fp_pow2(u) + fp_pow2(u - 1);
    }
    case GEN_DOUBLE_ROUND:  /* a tie for the product rounded to f32 (below) */
        return k_tie_value(ak, GEN_TIE, d0, d1, d2, r);
    default:
        return k_tie_value(ak, c, d0, d1, d2, r);
    }
}

/* y as a times b (v[0], v[1]); false where no f32 b makes it exactly. */
static bool k_split(const rdna2_lane *s, gen_class c, double y, uint64_t d0, uint64_t d2, uint64_t v[3])
{
    if (c == GEN_DOUBLE_ROUND) {
        /* An inexact product that rounds to y: a near 1, b = y / a rounded.
         * That rounding can leave a*b half an ulp of y or more from y (14%
         * of such cases missed the class so); then b one ulp back toward it,
         * and an attempt that still misses draws again. */
        float a = (float)(1.0 + (double)(d0 & frac_mask(&fp_f32)) * 0x1p-23), b = (float)(y / a);
        double p = (double)a * b;  /* exact: 48 bits */
        if ((double)(float)p != y) {
            b = fp_ffrom(fp_fbits(b) + (fp_dabs(p) > fp_dabs(y) ? 0xffffffffu : 1u));  /* |b| one ulp down or up */
            p = (double)a * b;
        }
        if ((double)(float)p != y || p == y)
            return false;  /* not rounding to y, or exact: nothing rounds twice */
        v[0] = fp_fbits(a);
        v[1] = fp_fbits(b);
        return !s->unfused || fp_dabs(b) >= 0x1p-126;  /* the legacy forms flush a subnormal b */
    }
    /* a normal: b = y / a is normal too (e <= my + 126), exact where y's 24 bits fit. */
    int my = fp_dexp(fp_dabs(y));
    int e = max_int(my - fp_f32.emax, min_int(my - fp_f32.emin, field(d2, 0, -8, 8)));
    bool a_negative = flag(d0, 62);
    v[0] = (uint64_t)a_negative << 31 | (uint64_t)(e + fp_f32.bias) << 23;
    double b = y * fp_pow2(-e);
    return gen_double_bits(&fp_f32, a_negative ? -b : b, &v[1]);
}

/* a - b, and whether it was exact (its TwoSum error is zero). */
static bool exact_difference(double a, double b, double *d)
{
    *d = a - b;
    return fp_sum_error(a, -b, *d) == 0;
}

static int significant_bits(double y) { return fp_dexp(fp_dabs(y)) - fp_dlsb(fp_dabs(y)) + 1; }

static bool k_addend_design(const rdna2_lane *s, gen_class c, gen_rng *r, uint64_t v[3])
{
    double k = k_value(s), ak = fp_dabs(k);
    /* The product as the legacy forms round it, and as the double-round class rounds it: an f32. */
    bool y_f32 = s->unfused || c == GEN_DOUBLE_ROUND;
    for (int attempt = 0; attempt < 8; attempt++) {
        uint64_t d0 = gen_next(r), d1 = gen_next(r), d2 = gen_next(r), yb;
        double av = k_sum_value(c, ak, d0, d1, d2, r), y;
        bool fits = exact_difference(k < 0 ? -av : av, k, &y) && y != 0 && significant_bits(y) <= prec(&fp_f32) &&
                    (!y_f32 || gen_double_bits(&fp_f32, y, &yb)) && (!s->unfused || fp_dabs(y) >= 0x1p-126);
        if (fits && k_split(s, c, y, d0, d2, v)) {
            v[2] = s->fixed_bits;
            return true;
        }
        if (c == GEN_OVERFLOW) {
            /* No product K leaves gets there: one in the top two binades, with K. */
            product pr = pick_product(s, field(d1, 0, s->dest->emax - 1, s->dest->emax), 0, d0, d1, d2);
            v[0] = pr.a, v[1] = pr.b, v[2] = s->fixed_bits;
            return true;
        }
    }
    return false;
}

/* Each attempt draws three words and cuts them into fields:
 *   d0: bits 0-22 a's fraction, 24-46 b's, 52-55 whether each significand is
 *       cut short (one time in four; a tie above the product's always,
 *       where c is as wide as the result), 59-61 the tie's shape, 62-63
 *       the signs;
 *   d1: 0-15 the product's binade (a head-cancelling tie's from its own
 *       range where c is narrow), 16-31 a's, 32-48 a near tie's offset and
 *       its side (32-47 a tie above the product's budget), 49 a coin
 *       (cancel: a short product; overflow: the midpoint);
 *   d2: 0-31 the short significands' lengths (K as c: 0-15 the power of
 *       two's exponent; d0's 0-22 a double round's a, 62 its sign), 32-47 the tie's unit offset (K
 *       as c: or its binade shift), 48-63 a near tie's depth or an overflow c's distance;
 * a tie above the product (or K) and the overflow class draw one word more. */
bool rdna2_closed_design(const rdna2_lane *s, gen_class c, gen_rng *r, uint64_t v[3])
{
    if (s->fixed == 2)
        return k_addend_design(s, c, r, v);
    int lo, hi;
    if (!rdna2_closed_target_range(s, c, &lo, &hi))
        return false;  /* a lane rdna2_closed_covers does not take */
    int head_lo = lo, head_hi = hi;
    rdna2_closed_head_range(s, c, &head_lo, &head_hi);
    for (int attempt = 0; attempt < 8; attempt++) {
        uint64_t d0 = gen_next(r), d1 = gen_next(r), d2 = gen_next(r);
        unsigned shape = (d0 >> 59) & 7;  /* tie_value's */
        /* The tie above the product (shape 7, where c is as wide as the
         * result) from a product short enough for it: 2 to p bits between
         * the factors (p the result's precision; d1's near-tie field, which
         * a tie does not read), so that the sum stands 1 to p binades above
         * it, evenly, where a budget of p put it mostly 1 to 3 above; the
         * legacy forms' too, whose rounded product put it a binade above. */
        bool above = c == GEN_TIE && shape == 7 && prec(s->fmt[2]) == prec(s->dest);
        product pr = pick_product(s, shape < 3 ? field(d1, 0, head_lo, head_hi) : field(d1, 0, lo, hi),
                                  above ? field(d1, 32, 2, prec(s->dest)) : short_budget(s, c, d1), d0, d1, d2);
        double x32 = (double)(float)pr.x;  /* the product rounded to f32 */
        if (c == GEN_DOUBLE_ROUND && x32 == pr.x)
            continue;  /* a product f32 holds (short significands) rounds once: 7.7% of attempts missed so */
        if (s->unfused && fp_dabs(x32) < 0x1p-126)
            continue;  /* flushed: the legacy sum would start from zero */
        /* The sum starts from x32 where the form rounds the product (the
         * legacy forms); a double round is a tie for x32 (the sum of the
         * exact product is then just off it, and a second rounding would
         * land on it); a near tie where the sum rounds to f32 first is
         * aimed from what the f16 rounding sees (the generic design's way). */
        if (s->unfused || c == GEN_DOUBLE_ROUND || (c == GEN_NEAR_TIE && s->rounds_twice))
            pr.x = x32;
        if (!addend(s, pr.x, c == GEN_DOUBLE_ROUND ? GEN_TIE : c, d0, d1, d2, r, &v[2]))
            continue;
        v[0] = pr.a;
        v[1] = pr.b;
        rdna2_respect_forced_signs(s, v);  /* a c under abs keeps its sign */
        return true;
    }
    return false;
}
