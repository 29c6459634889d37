/* Closed-form lane designs for the lane most RDNA 2 cases have: a*b + c
 * fused (or f32 unfused, the legacy forms), with a, b, c and the result all
 * f32 or all f16 and no literal, for the classes that aim the addend at a
 * spot of the result's grid: tie, near-tie, cancel, overflow, and (fused)
 * double-round to f32.
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

/* The format of all four (f32 or f16): its precision and fraction mask. */
static inline int prec(const fp_format *f) { return (int)f->precision; }
static inline uint64_t frac_mask(const fp_format *f) { return (1ull << (f->precision - 1)) - 1; }

bool rdna2_closed_covers(const fp_format *const fmt[3], const fp_format *dest, int fixed, bool unfused, gen_class c)
{
    if (c != GEN_TIE && c != GEN_NEAR_TIE && c != GEN_CANCEL && c != GEN_OVERFLOW &&
        (c != GEN_DOUBLE_ROUND || dest != &fp_f32))
        return false;
    if (fixed >= 0 || (dest != &fp_f32 && dest != &fp_f16))
        return false;
    /* The legacy forms' product rounds to f32 and flushes; their double-round
     * design is another one. */
    if (unfused && (dest != &fp_f32 || c == GEN_DOUBLE_ROUND))
        return false;
    return fmt[0] == dest && fmt[1] == dest && fmt[2] == dest;
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

/* a*b with msb(a) + msb(b) == target; `short_bits` > 0 gives the two
 * significands that many significant bits between them (so that c can
 * hold the whole product), else mostly full ones, sometimes short. */
static product pick_product(const fp_format *f, const int forced_sign[3], int target, bool short_bits,
                            uint64_t d0, uint64_t d1, uint64_t d2)
{
    int ea = field(d1, 16, max_int(f->emin, target - f->emax), min_int(f->emax, target - f->emin));
    int eb = target - ea;
    int tza, tzb;
    if (short_bits) {
        tza = prec(f) - field(d2, 0, 1, prec(f) - 1);
        tzb = prec(f) - tza;
    } else {
        tza = (d0 >> 52) & 3 ? 0 : field(d2, 0, 0, prec(f) - 1);
        tzb = (d0 >> 54) & 3 ? 0 : field(d2, 16, 0, prec(f) - 1);
    }
    uint64_t hidden = frac_mask(f) + 1;
    uint64_t ma = (hidden | (d0 & frac_mask(f))) & ~((1ull << tza) - 1);
    uint64_t mb = (hidden | ((d0 >> 24) & frac_mask(f))) & ~((1ull << tzb) - 1);
    bool sa = forced_sign[0] >= 0 ? forced_sign[0] : flag(d0, 63);
    bool sb = forced_sign[1] >= 0 ? forced_sign[1] : flag(d0, 62);
    double x = (double)ma * fp_pow2(ea - prec(f) + 1) * ((double)mb * fp_pow2(eb - prec(f) + 1));
    return (product){sa != sb ? -x : x, value_bits(f, sa, ea, ma), value_bits(f, sb, eb, mb)};
}

/* The value v the sum x + c is to have, by magnitude (sign taken from x),
 * for the tie and near-tie classes; false where none is made. */
static bool tie_value(const fp_format *f, double ax, gen_class c, uint64_t d0, uint64_t d1, uint64_t d2,
                      gen_rng *r, double *v)
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
    if (c == GEN_TIE && pick == 7) {
        /* A tie some binades above the product. */
        int up = gen_unit_exp(f, msb + field(d2, 32, 1, 12));
        uint64_t sig = (frac_mask(f) + 1) | (gen_next(r) & frac_mask(f));
        *v = (double)sig * fp_pow2(up) + fp_pow2(up - 1);
        return true;
    }
    *v = fp_dfloor_to(ax, u) + fp_pow2(u - 1) + field(d2, 32, -1, 1) * fp_pow2(u);
    if (c == GEN_NEAR_TIE) {
        /* A few units of the product's lowest bit off the tie, or of a bit
         * 9 or more places below half a unit. */
        int low = fp_dlsb(ax);
        int e = low <= u - 9 ? low : u - 1 - field(d2, 48, 9, max_int(prec(f) - 2, 9));
        double off = field(d1, 32, 1, 3) * fp_pow2(e);
        *v += flag(d1, 48) ? -off : off;
    }
    return true;
}

/* The overflow class: the midpoint to infinity or a tie in the top binade
 * (a product short enough for c to reach either); where c cannot hold the
 * difference, a c of the product's sign far below it (the product is in the
 * top two binades already). */
static bool overflow_addend(const fp_format *f, double x, uint64_t d1, uint64_t d2, gen_rng *r, uint64_t *c)
{
    int u = f->emax - prec(f) + 1;
    uint64_t d3 = gen_next(r);
    double v = flag(d1, 49) ? fp_pow2(f->emax + 1) - fp_pow2(u - 1)
                            : (double)((frac_mask(f) + 1) | (d3 & frac_mask(f))) * fp_pow2(u) + fp_pow2(u - 1);
    if (gen_double_bits(f, (x < 0 ? -v : v) - x, c))
        return true;
    int e = max_int(f->emin, min_int(f->emax, fp_dexp(fp_dabs(x)) - field(d2, 48, 12, 40)));
    *c = value_bits(f, x < 0, e, d3 >> 24);
    return true;
}

/* c for product x; false when the format cannot hold it. */
static bool addend(const fp_format *f, double x, gen_class c, uint64_t d0, uint64_t d1, uint64_t d2, gen_rng *r,
                   uint64_t *bits)
{
    switch (c) {
    case GEN_CANCEL: {
        /* -x rounded to the format: an exact zero for a short product, else its rounding error. */
        float y = (float)-x;
        if (f->bits == 32) {
            *bits = fp_fbits(y);
            return __builtin_isfinite(y);
        }
        uint32_t h = fp_fast_f32_to_f16(fp_fbits(y));  /* a product of halves is exact in f32 */
        *bits = h;
        return (h & 0x7fffu) != 0x7c00u;
    }
    case GEN_OVERFLOW:
        return overflow_addend(f, x, d1, d2, r, bits);
    case GEN_DOUBLE_ROUND: {
        /* A tie for the product rounded to f32: the sum of the exact product
         * is then just off it, and a second rounding would land on it. */
        double xr = (double)(float)x, v;
        return tie_value(f, fp_dabs(xr), GEN_TIE, d0, d1, d2, r, &v) && gen_double_bits(f, (xr < 0 ? -v : v) - xr, bits);
    }
    default: {
        double v;
        return tie_value(f, fp_dabs(x), c, d0, d1, d2, r, &v) && gen_double_bits(f, (x < 0 ? -v : v) - x, bits);
    }
    }
}

/* Each attempt draws three words and cuts them into fields:
 *   d0: bits 0-22 a's fraction, 24-46 b's, 52-55 whether each significand is
 *       cut short (one time in four), 59-61 the tie's shape, 62-63 the signs;
 *   d1: 0-15 the product's binade, 16-31 a's, 32-48 a near tie's offset and
 *       its side, 49 a coin (cancel: a short product; overflow: the midpoint);
 *   d2: 0-31 the short significands' lengths, 32-47 the tie's unit offset or
 *       binade shift, 48-63 a near tie's depth or an overflow c's distance;
 * a tie some binades up and the overflow class draw one word more. */
bool rdna2_closed_lane(const fp_format *f, bool unfused, const int forced_sign[3], gen_class c, gen_rng *r,
                       uint64_t v[3])
{
    for (int attempt = 0; attempt < 8; attempt++) {
        uint64_t d0 = gen_next(r), d1 = gen_next(r), d2 = gen_next(r);
        int lo = rdna2_product_floor(f, f, f, f), hi = f->emax - 1;
        bool short_bits = false;
        if (c == GEN_OVERFLOW)
            lo = f->emax - 1, hi = f->emax, short_bits = true;
        else if (c == GEN_CANCEL)
            short_bits = flag(d1, 49);  /* half the time a product c cancels exactly */
        product pr = pick_product(f, forced_sign, field(d1, 0, lo, hi), short_bits, d0, d1, d2);
        if (unfused) {
            /* The sum starts from the product rounded to f32, flushed when subnormal. */
            pr.x = (double)(float)pr.x;
            if (fp_dabs(pr.x) < 0x1p-126)
                continue;
        }
        if (!addend(f, pr.x, c, d0, d1, d2, r, &v[2]))
            continue;
        v[0] = pr.a;
        v[1] = pr.b;
        /* A c under abs must keep the sign abs+neg give it: -(a*b + c) has the
         * same shape, so negate c and a free factor. */
        uint64_t sbit = 1ull << (f->bits - 1);
        if (forced_sign[2] >= 0 && (int)((v[2] & sbit) != 0) != forced_sign[2])
            for (int i = 0; i < 2; i++)
                if (forced_sign[i] < 0) {
                    v[i] ^= sbit;
                    v[2] ^= sbit;
                    break;
                }
        return true;
    }
    return false;
}
