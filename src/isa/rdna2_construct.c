/* Case constructors for the RDNA 2 multiply-adds.
 *
 * A case is designed per lane as three values after modifiers (a, b, c of
 * a*b + c in their source formats), then the modifiers are undone and the
 * values placed into the tuple words.  The op's literal K, when it takes
 * one, is a fixed operand of the design.  Every design is verified by the
 * caller (isa_case_classes); this file only aims. */
#include <string.h>
#include "../fp/fast.h"
#include "classify.h"
#include "rdna2.h"

/* Into a tuple word in place. */
static void put_half(uint32_t *w, uint32_t h, bool hi) { *w = rdna2_put_half(*w, h, hi); }

#define BIT(v, i) (((v) >> (i)) & 1u)

/* Cases construct_many builds together: isa_generate_fast_many's block. */
#define CLOSED_BLOCK ISA_GENERATE_BLOCK

static fp_value val(const fp_format *f, uint64_t bits) { return fp_decode(f, bits); }

static int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }

static bool sign_for(const rdna2_lane *s, int i, gen_rng *r)
{
    return s->forced_sign[i] >= 0 ? s->forced_sign[i] : gen_coin(r);
}

/* Lowest exponent a product may have its top at so that every bit of it is
 * still on c's grid (otherwise no c can make the sum a tie). */
int rdna2_product_floor(const fp_format *a, const fp_format *b, const fp_format *c, const fp_format *dest)
{
    int lowest = c->emin - (int)c->precision + 1;
    int product_bits = (int)(a->precision + b->precision) - 1;
    /* A destination wider than the product needs c to reach below it too. */
    int reach = (int)dest->precision + 10;
    return lowest + (product_bits > reach ? product_bits : reach);
}

static int product_floor(const rdna2_lane *s) { return rdna2_product_floor(s->fmt[0], s->fmt[1], s->fmt[2], s->dest); }

/* a, b with msb(a) + msb(b) == target and at most `budget` significant
 * bits between them (0: no limit); with exact_lowest, each factor's lowest
 * kept bit set, so that the product's lowest bit is the one the budget
 * puts it at (where the subnormal class wants it), not one to a few places
 * above it three times in four. */
static void pick_product(const rdna2_lane *s, int target, int budget, bool exact_lowest, gen_rng *r, uint64_t *a,
                         uint64_t *b)
{
    const fp_format *fa = s->fmt[0], *fb = s->fmt[1];
    int lo = fa->emin, hi = fa->emax;
    if (target - fb->emax > lo)
        lo = target - fb->emax;
    if (target - fb->emin < hi)
        hi = target - fb->emin;
    if (lo > hi)
        lo = hi = clampi(target / 2, fa->emin, fa->emax);
    int ea = gen_range(r, lo, hi);
    int eb = clampi(target - ea, fb->emin - (int)fb->precision + 1, fb->emax);
    int pa = (int)fa->precision, pb = (int)fb->precision;
    int tza, tzb;
    if (budget > 0) {
        int sa = clampi(gen_range(r, 1, budget > 1 ? budget - 1 : 1), 1, pa);
        int sb = clampi(budget - sa, 1, pb);
        tza = pa - sa;
        tzb = pb - sb;
    } else {
        /* Mostly full significands; sometimes short ones, which move the
         * product's lowest bit and so the shape of the tie. */
        tza = gen_below(r, 4) ? 0 : gen_range(r, 0, pa - 1);
        tzb = gen_below(r, 4) ? 0 : gen_range(r, 0, pb - 1);
    }
    uint64_t (*value)(const fp_format *, gen_rng *, bool, int, int) =
        exact_lowest && budget > 0 ? gen_value_with_lowest : gen_value_with_exp;
    *a = value(fa, r, sign_for(s, 0, r), ea, tza);
    *b = value(fb, r, sign_for(s, 1, r), eb, tzb);
}

/* The exact value the sum starts from: the product, or for the legacy
 * forms the flushed, rounded product. */
static fp_value start(const rdna2_lane *s, uint64_t a, uint64_t b)
{
    fp_value p = fp_mul(val(s->fmt[0], a), val(s->fmt[1], b));
    if (!s->unfused)
        return p;
    uint64_t pr = fp_flush_bits(&fp_f32, fp_round(&fp_f32, p, FP_RNE, 0));
    return val(&fp_f32, pr);
}

/* Factors of at most 24 bits (f32, f16): their product is exact in double,
 * so start() can run in hardware arithmetic (the kit's version is three
 * times the cost of the rest of a tie's construction). */
static bool double_product(const rdna2_lane *s)
{
    return s->fmt[0]->precision <= 24 && s->fmt[1]->precision <= 24 && s->fmt[0]->bits <= 32 &&
           s->fmt[1]->bits <= 32;
}

static double double_of(const fp_format *f, uint64_t bits)
{
    return f == &fp_f16 ? (double)fp_fast_f16_to_f32((uint32_t)bits) : fp_fast_f32_to_double((uint32_t)bits);
}

/* An exact double rounded to f32 (the host rounds to nearest even: checked
 * at start), as a double. */
static double round_f32(double x) { return (double)(float)x; }

/* start() for double_product lanes. */
static double start_double(const rdna2_lane *s, uint64_t a, uint64_t b)
{
    double p = double_of(s->fmt[0], a) * double_of(s->fmt[1], b);
    if (!s->unfused)
        return p;
    uint32_t pr = fp_fbits((float)p);
    return fp_fast_f32_to_double((uint32_t)fp_flush_bits(&fp_f32, pr));
}

static gen_aim aim_of(gen_class c)
{
    switch (c) {
    case GEN_NEAR_TIE: return AIM_NEAR_TIE;
    case GEN_SUBNORMAL: return AIM_SUBNORMAL;
    case GEN_OVERFLOW: return AIM_OVERFLOW;
    case GEN_CANCEL: return AIM_CANCEL;
    default: return AIM_TIE;
    }
}

static int lowest_bit(const fp_format *f) { return f->emin - (int)f->precision + 1; }

/* c narrower than the destination: the f16 c of V_FMA_MIX_F32. */
static bool narrow_c(const rdna2_lane *s) { return s->fmt[2]->precision < s->dest->precision; }

/* Whether only a zero c lets a sum reach the subnormal class (the
 * destination's two lowest normal binades and below): a nonzero c has its
 * lowest bit so far above them that a product cancelling it down to there
 * would span more bits than the factors hold.  An f16 c under an f32 result
 * (V_FMA_MIX_F32 with c from a half and a factor from a word).  There the
 * grid design (whose c is a multiple of the subnormal grid's unit) never
 * lands, nor the generic aim but where its tie's c is no units (a third of
 * its attempts): that class took 3.75 designs a case. */
static bool subnormal_needs_zero_c(const rdna2_lane *s)
{
    return lowest_bit(s->fmt[2]) - (s->dest->emin + 2) > (int)(s->fmt[0]->precision + s->fmt[1]->precision);
}

/* The range of the tie class's product exponents, where c is no narrower
 * than the destination: from the lowest with every product bit on c's grid
 * to one below the top binade. */
static void tie_target_range(const rdna2_lane *s, int *lo, int *hi)
{
    *lo = product_floor(s);
    *hi = s->dest->emax - 1;
    if (*lo > *hi)
        *lo = *hi - 4;
}

/* The binades class_target draws the tie class's product from: where c is
 * narrow, those of a short product whose unit is within c's range. */
static void tie_class_range(const rdna2_lane *s, int *lo, int *hi)
{
    const fp_format *d = s->dest, *fc = s->fmt[2];
    if (narrow_c(s)) {
        int budget = (int)(d->precision + fc->precision) - 3;
        *lo = lowest_bit(fc) + budget - 1;
        *hi = fc->emax + (int)d->precision - 1;
    } else {
        tie_target_range(s, lo, hi);
    }
}

/* A near tie's product wider than c is drawn no lower than half the
 * destination's lowest unit: c holds the tie's bits, from that half unit up,
 * and the product's bits below them, more than its own width where the
 * product is that far down.  An f16 result's f32 c under an f32 factor (a
 * MIX f16 form's) drew products from 2^-115 up, and two near-tie attempts
 * in three missed (below 2^-26).  Not for a product c holds whole (two
 * halves' under an f32 c: floored, their near ties cost a quarter more);
 * elsewhere product_floor is the higher.  The floor, within [lo, hi]; the
 * closed designs' too (rdna2_closed_target_range). */
int rdna2_near_tie_floor(const rdna2_lane *s, int lo, int hi)
{
    int bits = (int)(s->fmt[0]->precision + s->fmt[1]->precision) - 1, floor = lowest_bit(s->dest) - 1;
    if (bits <= (int)s->fmt[2]->precision || lo >= floor)
        return lo;
    return floor < hi ? floor : hi;
}

static int class_target(const rdna2_lane *s, gen_class c, gen_rng *r, int *budget)
{
    const fp_format *d = s->dest, *fc = s->fmt[2];
    *budget = 0;
    switch (c) {
    case GEN_SUBNORMAL: {
        int t = gen_range(r, d->emin - (int)d->precision + 1, d->emin + 1);
        /* The product's lowest bit (the factors' lowest bits' sum: t - budget + 2)
         * on the half unit of the subnormal grid, where a tie there has it. */
        *budget = t - (d->emin - (int)d->precision) + 2;
        if (*budget < 2)
            *budget = 2;
        return t;
    }
    case GEN_CANCEL:
        if (narrow_c(s)) {
            /* An f16 c cannot take a full product's head off leaving only bits
             * far below it: a product it cancels exactly, within its range. */
            *budget = (int)fc->precision;
            return gen_range(r, lowest_bit(fc) + *budget - 1, fc->emax);
        }
        /* Half the time a product narrow enough for c to cancel it exactly. */
        if (fc->precision < s->fmt[0]->precision + s->fmt[1]->precision && gen_coin(r))
            *budget = (int)fc->precision;
        return gen_range(r, product_floor(s), d->emax - 1);
    case GEN_OVERFLOW:
        /* A short product, so that c can reach from it to the top of the range. */
        *budget = (int)d->precision;
        return gen_range(r, d->emax - 1, d->emax);
    default: {
        /* Where c is narrow, it must carry the product's bits below the unit
         * plus half a unit: a short product whose unit is within c's range. */
        if (narrow_c(s))
            *budget = (int)(d->precision + fc->precision) - 3;
        int lo, hi;
        tie_class_range(s, &lo, &hi);
        if (c == GEN_NEAR_TIE)
            lo = rdna2_near_tie_floor(s, lo, hi);
        return gen_range(r, lo, hi);
    }
    }
}

/* What a product of a power of two and an f32 can be exactly: 24 significant
 * bits over a far wider exponent range than f32's (a fused product near a
 * subnormal K reaches below 2^-149).  Only an encoding for gen_addend. */
static const fp_format f32_product = {.name = "f32-product", .bits = 35, .exp_bits = 11, .precision = 24, .emin = -1022, .emax = 1023, .bias = 1023};

/* y (an f32, or an f32_product) as a double, where it is finite and its
 * exponent within -999..1000 (so that scaling it by a power of two of
 * f32's range stays exact in double); false: the exact kit takes it. */
static bool y_as_double(const fp_format *fy, uint64_t y, double *out)
{
    if (fy == &fp_f32) {
        *out = fp_fast_f32_to_double((uint32_t)y);
        return __builtin_isfinite(*out);
    }
    unsigned biased = (unsigned)(y >> 23) & 0x7ff;
    if (biased < 24 || biased > 2023)
        return false;  /* subnormal, zero, infinite, NaN or far out: the kit's */
    double m = (double)((1u << 23) | (y & 0x7fffff)) * fp_pow2((int)biased - 1023 - 23);
    *out = (y >> 34) & 1 ? -m : m;
    return true;
}

/* K is the addend: build the product y so that K + y aims, then split y
 * into a power of two times b. */
static bool design_fixed_addend(const rdna2_lane *s, gen_class c, gen_rng *r, uint64_t v[3])
{
    /* The legacy forms flush K like any other source, and round the product
     * to f32 (flushed) before the sum: y must then be an f32 itself. */
    uint32_t k_bits = (uint32_t)(s->unfused ? fp_flush_bits(&fp_f32, s->fixed_bits) : s->fixed_bits);
    const fp_format *fy = s->unfused || c == GEN_DOUBLE_ROUND ? &fp_f32 : &f32_product;
    uint64_t y;
    /* gen_addend of an f32 K is gen_addend_double's (K is exact in double). */
    if (!gen_addend_double(fp_fast_f32_to_double(k_bits), fy, s->dest, aim_of(c), r, &y))
        return false;
    double yd;
    bool in_double = y_as_double(fy, y, &yd);
    fp_value yv = in_double ? fp_zero(false) : val(fy, y);
    if (in_double ? yd == 0 : yv.kind != FPK_FINITE)
        return false;
    /* a = +-2^e near 1, moved as far as b = y / a needs to stay an f32. */
    int my = in_double ? fp_dexp(fp_dabs(yd)) : fp_msb(yv);
    int e = clampi(gen_range(r, -8, 8), my - fp_f32.emax, my - fp_f32.emin);
    if (c == GEN_DOUBLE_ROUND) {
        /* An inexact product that rounds to y: a near one, b = y / a. */
        double a = 1.0 + (double)(gen_next(r) >> 41) * 0x1p-23;
        float yf;
        uint32_t yb = (uint32_t)y;
        memcpy(&yf, &yb, 4);
        float bf = (float)((double)yf / a);
        float af = (float)a;
        memcpy(&v[0], &af, 4);
        v[0] &= 0xffffffffu;
        uint32_t bb;
        memcpy(&bb, &bf, 4);
        v[1] = bb;
        return true;
    }
    bool a_negative = gen_coin(r);
    if (in_double && e >= fp_f32.emin && e <= fp_f32.emax) {
        /* a a normal power of two: b = y / a exact in double (y's exponent within +-1000). */
        v[0] = (uint64_t)a_negative << 31 | (uint64_t)(e + fp_f32.bias) << 23;
        double b = fp_dabs(yd) * fp_pow2(-e);
        return gen_double_bits(&fp_f32, (yd < 0) != a_negative ? -b : b, &v[1]);
    }
    if (in_double)
        yv = val(fy, y);
    fp_value a = fp_from_int(a_negative, 1, e);
    v[0] = fp_round(&fp_f32, a, FP_RNE, 0);
    fp_value b = fp_scale(yv, -e);
    b.sign = yv.sign != a.sign;
    if (!fp_representable(&fp_f32, b))
        return false;
    v[1] = fp_round(&fp_f32, b, FP_RNE, 0);
    return true;
}

/* The exponents of the literal's leading and lowest bits, where it is
 * finite and nonzero; an f32 K read in double (exactly), where the exact
 * kit's decoding cost a K case of the subnormal class about 70 instructions. */
static bool k_bits_at(const rdna2_lane *s, int *msb, int *lsb)
{
    const fp_format *f = s->fmt[s->fixed];
    if (f != &fp_f32) {
        fp_value k = val(f, s->fixed_bits);
        if (k.kind != FPK_FINITE)
            return false;
        *msb = fp_msb(k);
        *lsb = fp_lsb(k);
        return true;
    }
    double k = fp_dabs(fp_fast_f32_to_double((uint32_t)s->fixed_bits));
    if (k == 0 || !__builtin_isfinite(k))
        return false;
    *msb = fp_dexp(k);
    *lsb = fp_dlsb(k);
    return true;
}

/* Subnormal operands rather than a subnormal result: each free operand near
 * the subnormal range half the time, at least one of them always (with a
 * literal K far from that range, the only way to the class). */
static bool subnormal_operands(const rdna2_lane *s, gen_rng *r, uint64_t v[3])
{
    int sure = gen_below(r, 3);
    if (sure == s->fixed)
        sure = (sure + 1) % 3;
    for (int i = 0; i < 3; i++) {
        if (i == sure || gen_coin(r)) {
            v[i] = gen_near_subnormal(s->fmt[i], r);
            continue;
        }
        int e = gen_range(r, -4, 4);  /* before the sign (see gen_near_subnormal) */
        v[i] = gen_value_with_exp(s->fmt[i], r, sign_for(s, i, r), e, 0);
    }
    if (s->fixed >= 0)
        v[s->fixed] = s->fixed_bits;
    return true;
}

/* Where no c (or K) puts the sum exactly at the overflow midpoint, the
 * product x or c still takes it to the top two binades: the class's other
 * half.  With K as c, the product goes there. */
static bool overflow_by_magnitude(const rdna2_lane *s, fp_value x, gen_rng *r, uint64_t v[3])
{
    const fp_format *fc = s->fmt[2];
    int top = s->dest->emax - 1;
    if (s->fixed == 2) {
        pick_product(s, gen_range(r, top, s->dest->emax), 0, false, r, &v[0], &v[1]);
        v[2] = s->fixed_bits;
        return true;
    }
    if (x.kind == FPK_FINITE && fp_msb(x) >= top) {
        /* The product is there already: a c of its sign adds sticky bits. */
        v[2] = gen_value_with_exp(fc, r, x.sign, clampi(fp_msb(x) - gen_range(r, 12, 40), fc->emin, fc->emax), 0);
        return true;
    }
    if (fc->emax >= top) {
        int e = gen_range(r, top, fc->emax < top + 1 ? fc->emax : top + 1);  /* before the sign */
        v[2] = gen_value_with_exp(fc, r, sign_for(s, 2, r), e, 0);
        return true;
    }
    return false;
}

/* An f16 value's encoding in f (f16 or f32: exact either way). */
static uint64_t half_as(const fp_format *f, uint32_t h)
{
    return f == &fp_f16 ? h : fp_fbits(fp_fast_f16_to_f32(h));
}

/* Round onto a tie at f32 first: for an f16 destination, c on the f16 grid
 * and a product just under half a unit of it (1 - m^2 2^-20, the record's
 * shape); for an f32 destination, an inexact product whose rounded value
 * plus c is a tie. */
static bool design_double_round(const rdna2_lane *s, gen_rng *r, uint64_t v[3])
{
    if (s->dest == &fp_f16) {
        int ec = gen_range(r, -3, 14);
        uint32_t c = (uint32_t)gen_value_with_exp(&fp_f16, r, sign_for(s, 2, r), ec, 0);
        int m = gen_range(r, 1, 7);
        bool neg = gen_coin(r);
        /* As f16 encodings, all normal: a = (1024 + m) 2^(ec - 21), exponent
         * ec - 11 in [-14, 3] and fraction m; b = (1024 - m) 2^-10, exponent
         * -1 and fraction 1024 - 2m; c as drawn.  An f32 source (a MIX op's)
         * takes the same value widened.  (Through gen_double_bits from
         * doubles, the three encodings were a tenth of a packed case.) */
        uint32_t a = (uint32_t)neg << 15 | (uint32_t)(ec - 11 + 15) << 10 | (uint32_t)m;
        uint32_t b = 14u << 10 | (uint32_t)(1024 - 2 * m);
        v[0] = half_as(s->fmt[0], a);
        v[1] = half_as(s->fmt[1], b);
        v[2] = half_as(s->fmt[2], c);
        return true;
    }
    int budget;
    int target = class_target(s, GEN_TIE, r, &budget);
    const fp_format *fc = s->fmt[2];
    if (fc->precision < s->dest->precision)
        /* c narrower than the destination (an f16 c of a MIX op): c is half a
         * unit of the rounded product, so that unit must be on c's grid. */
        target = gen_range(r, fc->emin - (int)fc->precision + (int)s->dest->precision + 1,
                           fc->emax + (int)s->dest->precision - 1);
    pick_product(s, target, 0, false, r, &v[0], &v[1]);
    if (double_product(s)) {
        double x = round_f32(double_of(s->fmt[0], v[0]) * double_of(s->fmt[1], v[1]));
        return gen_addend_double(x, s->fmt[2], s->dest, AIM_TIE, r, &v[2]);
    }
    fp_value p = fp_mul(val(s->fmt[0], v[0]), val(s->fmt[1], v[1]));
    fp_value x = val(&fp_f32, fp_round(&fp_f32, p, FP_RNE, 0));
    return gen_addend(x, s->fmt[2], s->dest, AIM_TIE, r, &v[2]);
}

/* The legacy forms flush a subnormal product or source before the sum, so
 * the subnormal class aimed there never reaches their last step.  Here the
 * sum itself lands in the subnormal range: a normal product p (rounded, not
 * flushed) and c = -(p + d) with d on the subnormal grid, so p + c = -d
 * (a fused form's exact product differs from p by under 2^-128: its sum is
 * as tiny; no_subnormal_ties says where it is used).
 * (Two normal f32 values sum to a multiple of 2^-149: such a sum is exact,
 * then flushed; it is never a tie.) */
static bool design_subnormal_sum(const rdna2_lane *s, gen_rng *r, uint64_t v[3])
{
    /* p's top below 2^-103, so that some subnormal d has its bits at or above p's lowest. */
    int lo = -125, hi = -104;
    if (s->fixed == 1) {
        int ek, lk;
        if (!k_bits_at(s, &ek, &lk) || ek - 125 > hi)
            return false;
        lo = ek - 125 > lo ? ek - 125 : lo;  /* a = p / K stays normal */
        v[1] = s->fixed_bits;
        int e = gen_range(r, lo, hi) - ek;  /* before the sign */
        v[0] = gen_value_with_exp(s->fmt[0], r, sign_for(s, 0, r), e, 0);
    } else {
        pick_product(s, gen_range(r, lo, hi), 0, false, r, &v[0], &v[1]);
    }
    double p = round_f32(double_of(s->fmt[0], v[0]) * double_of(s->fmt[1], v[1]));
    if (!(fp_dabs(p) >= 0x1p-126) || fp_dexp(fp_dabs(p)) > hi)
        return false;  /* flushed, not finite, or too large */
    int lowest = fp_dexp(fp_dabs(p)) - 23 > -149 ? fp_dexp(fp_dabs(p)) - 23 : -149;
    uint64_t m = gen_next(r) & ((1ull << (-126 - lowest)) - 1);
    double d = (double)(m ? m : 1) * fp_pow2(lowest);
    double c = -(p + (gen_coin(r) ? d : -d));  /* exact in double */
    if (!(fp_dabs(c) >= 0x1p-126) || round_f32(c) != c)
        return false;  /* c not a normal f32 (a carry past 24 bits): draw again */
    v[2] = fp_fbits((float)c);
    return true;
}

/* A tie or near tie on the destination's subnormal grid, built directly:
 * the product x = A * 2^(h-s) carries the half-unit bit h (and for a near
 * tie one more bit s places lower, either side), b is a power of two, and c
 * cancels x's head and puts the result R units up the grid. */
static bool design_subnormal_grid(const rdna2_lane *s, gen_rng *r, uint64_t v[3])
{
    const fp_format *fa = s->fmt[0], *fb = s->fmt[1], *fc = s->fmt[2], *d = s->dest;
    int h = d->emin - (int)d->precision;  /* the half unit of the subnormal grid */
    int u = h + 1;
    int sticky = gen_coin(r) ? 0 : gen_range(r, 1, 6);
    int head_bits = gen_range(r, 0, (int)fa->precision - sticky - 2);
    fp_u128 H = head_bits ? (((fp_u128)1 << (head_bits - 1)) | (gen_next(r) & (((fp_u128)1 << (head_bits - 1)) - 1))) : 0;
    fp_u128 A = (H << (sticky + 1)) | ((fp_u128)1 << sticky);
    if (sticky)
        A = gen_coin(r) ? A + 1 : A - 1;
    int a_lowest = fa->emin - (int)fa->precision + 1;
    int len = fp_bit_length(A);
    int lo = fb->emin, hi = fb->emax;
    if (h - sticky - a_lowest < hi)
        hi = h - sticky - a_lowest;                 /* a's lowest bit on its grid */
    if (h - sticky + len - 1 - fa->emax > lo)
        lo = h - sticky + len - 1 - fa->emax;       /* a's top below its largest */
    if (lo > hi)
        return false;
    int eb = gen_range(r, lo, hi);
    bool neg = gen_coin(r);
    uint64_t R = gen_next(r) & ((1ull << (d->precision - 1)) - 1);
    if (double_product(s)) {
        /* Every value here is exact in double: A and H have at most 24 bits,
         * R at most 23, and the exponents stay within double's normal range. */
        double a = (double)(uint64_t)A * fp_pow2(h - sticky - eb), c = ((double)R - (double)(uint64_t)H) * fp_pow2(u);
        return gen_double_bits(fa, neg ? -a : a, &v[0]) && gen_double_bits(fb, fp_pow2(eb), &v[1]) &&
               gen_double_bits(fc, neg ? -c : c, &v[2]);
    }
    fp_value a = fp_from_int(neg, A, h - sticky - eb);
    fp_value b = fp_from_int(false, 1, eb);
    fp_value c = fp_sub(fp_from_int(false, R, u), fp_from_int(false, H, u));
    if (neg)
        c = fp_neg(c);
    if (!fp_representable(fa, a) || !fp_representable(fb, b) || !fp_representable(fc, c))
        return false;
    v[0] = fp_round(fa, a, FP_RNE, 0);
    v[1] = fp_round(fb, b, FP_RNE, 0);
    v[2] = fp_round(fc, c, FP_RNE, 0);
    return true;
}

/* Each free source one of gen_special's values two times in three, else a
 * value around the tie class's binades; drawn again until some source is a
 * zero, an infinity or a NaN, what the class is verified by (a third of the
 * draws have none: built, evaluated and rebuilt for nothing before). */
static bool design_special(const rdna2_lane *s, gen_rng *r, uint64_t v[3])
{
    for (int round = 0; round < 64; round++) {
        bool hit = false;
        for (int i = 0; i < 3; i++) {
            const fp_format *f = s->fmt[i];
            if (i == s->fixed) {
                v[i] = s->fixed_bits;
            } else {
                /* Bits 32-63 pick the kind (18 of 27: a special one), bit 31 the sign. */
                uint64_t w = gen_next(r);
                unsigned pick = (unsigned)(((w >> 32) * 27) >> 32);
                bool sign = (w >> 31) & 1;
                int budget;
                if (pick < 18) {
                    v[i] = gen_special_kind(f, sign, f->bits == 64 ? gen_next(r) : w, pick / 2);
                    hit |= pick / 2 < GEN_SPECIAL_KIND_FINITE;
                    continue;
                }
                v[i] = gen_value_with_exp(f, r, sign, class_target(s, GEN_TIE, r, &budget) / 2, 0);
            }
            hit |= gen_is_special(f, v[i]);
        }
        if (hit)
            break;
    }
    return true;
}

/* The subnormal class's product with K as b (fused): K's own significant
 * bits take most of what a product in the subnormal binades can hold, so a
 * is cut to the bits left, its lowest kept bit set where the product's
 * lowest lands on the half unit of the subnormal grid (where a tie there
 * has it), and the product's top is drawn where that leaves a at least one
 * bit.  The generic aim cut a by the class's budget alone: its products
 * kept K's bits below the grid, and about 1 attempt in 28 landed (v_fmamk_f32
 * spent 2.8 designs a subnormal case).  False where no such a exists (a K
 * whose lowest bit is 2^-1 or higher puts a's below f32's grid). */
static bool subnormal_with_k(const rdna2_lane *s, gen_rng *r, uint64_t v[3])
{
    const fp_format *fa = s->fmt[0], *d = s->dest;
    int ek, lk, pa = (int)fa->precision;
    if (!k_bits_at(s, &ek, &lk))
        return false;
    int h = d->emin - (int)d->precision;  /* the half unit of the subnormal grid */
    /* The product's top: a keeps at least one bit, and the product (a top
     * of t or t + 1) stays within the grid whose half unit is h: one in the
     * lowest normal binade's up has a coarser one, and its lowest bit at h
     * was below what c holds (2^-149), so two thirds of these attempts
     * missed where t went to emin + 1 (v_fmamk_f32, K = 0xbcf6e801). */
    int lo = h + ek - lk, hi = d->emin - 1;
    if (hi - ek > fa->emax)
        hi = fa->emax + ek;
    if (lo > hi || h - lk < lowest_bit(fa))
        return false;
    int t = gen_range(r, lo, hi);
    int bits = t - ek - (h - lk) + 1;  /* a's, from its top t - ek down to h - lk */
    v[0] = gen_value_with_lowest(fa, r, sign_for(s, 0, r), t - ek, pa - (bits < pa ? bits : pa));
    v[1] = s->fixed_bits;
    return gen_addend_double(start_double(s, v[0], v[1]), s->fmt[2], d, AIM_SUBNORMAL, r, &v[2]);
}

/* No product of these factors gets within reach of the destination's
 * subnormal range with any c: a nonzero product is a multiple of its grid
 * unit 2^g (the factors' lowest bits together), and a c that cancels it is
 * as large, so their sum is a multiple of c's last place there, 2^(g - p_c)
 * at the least.  Where that is above the class's binades (the destination's
 * two lowest normal ones and below), only subnormal or tiny operands reach
 * the class: V_FMA_MIX_F32 with f16 factors (products at least 2^-48). */
static bool sum_never_tiny(const rdna2_lane *s)
{
    return lowest_bit(s->fmt[0]) + lowest_bit(s->fmt[1]) - (int)s->fmt[2]->precision >= s->dest->emin + 2;
}

/* Whether the f32 K is finite with its leading bit at 2^e or above, read
 * from its exponent field (a subnormal K's leading bit is below -126, under
 * any e asked here): decoding it in the kit cost every K case. */
static bool k_at_least(uint64_t k, int e)
{
    int field = (int)(k >> 23) & 0xff;
    return field != 0 && field != 0xff && field - fp_f32.bias >= e;
}

static bool design_aimed(const rdna2_lane *s, gen_class c, gen_rng *r, uint64_t v[3]);

/* No sum of these f32 operands is a tie on the subnormal grid, whose half
 * unit 2^-150 is below f32's lowest bit: the legacy forms' rounded product
 * and c are both on f32's grid, and so is a fused product with an integer K
 * as b (its lowest bit 2^0 or above).  The aimed design's ties there can
 * only miss: v_fmamk_f32 with K = 1 spent 2.9 designs a subnormal case, most
 * of them aimed ones that failed.  design_subnormal_sum's sum is in the
 * class every time: exactly -d, or for a fused product that f32 does not
 * hold (K = 3, say), -d plus the product's rounding error (under 2^-128),
 * still below 2^-124. */
static bool no_subnormal_ties(const rdna2_lane *s)
{
    bool f32 = s->dest == &fp_f32 && s->fmt[0] == &fp_f32 && s->fmt[1] == &fp_f32 && s->fmt[2] == &fp_f32;
    if (!f32 || s->fixed == 2)
        return false;
    if (s->unfused)
        return true;
    int ek, lk;
    return s->fixed == 1 && k_bits_at(s, &ek, &lk) && lk >= 0;
}

static bool design(const rdna2_lane *s, gen_class c, gen_rng *r, uint64_t v[3])
{
    if (c == GEN_RANDOM) {
        for (int i = 0; i < 3; i++)
            v[i] = gen_next(r) & ((s->fmt[i]->bits == 64) ? ~0ull : ((1ull << s->fmt[i]->bits) - 1));
        if (s->fixed >= 0)
            v[s->fixed] = s->fixed_bits;
        return true;
    }
    if (c == GEN_SPECIAL)
        return design_special(s, r, v);
    if (s->fixed == 2) {
        /* K + y aimed exactly, unless K is far from the subnormal range (y would
         * need over 100 significant bits); else the class's other half. */
        bool far = c == GEN_SUBNORMAL && k_at_least(s->fixed_bits, s->dest->emin + 2);
        if (!far && design_fixed_addend(s, c, r, v))
            return true;
        return c == GEN_SUBNORMAL ? subnormal_operands(s, r, v)
               : c == GEN_OVERFLOW ? overflow_by_magnitude(s, fp_zero(false), r, v)
                                   : false;
    }
    if (c == GEN_DOUBLE_ROUND && s->fixed < 0)
        return design_double_round(s, r, v);
    if (c == GEN_SUBNORMAL && sum_never_tiny(s))
        return subnormal_operands(s, r, v);
    if (c == GEN_SUBNORMAL && s->unfused && s->fixed != 2 && gen_coin(r))
        return design_subnormal_sum(s, r, v);
    if (c == GEN_SUBNORMAL && s->fixed < 0 && gen_coin(r))
        /* Where only a zero c reaches the class, the grid design's half goes
         * to the operands design, about the share of the cases it made when
         * the grid design's attempts all missed (5 in 8: two thirds now). */
        return subnormal_needs_zero_c(s) ? subnormal_operands(s, r, v) : design_subnormal_grid(s, r, v);
    if (c == GEN_SUBNORMAL && gen_below(r, 3) == 0)
        return subnormal_operands(s, r, v);
    if (c == GEN_SUBNORMAL && no_subnormal_ties(s))
        return design_subnormal_sum(s, r, v);
    return design_aimed(s, c, r, v);
}

/* design() past the subnormal class's coins (for a class that draws none
 * there, from the same place): the product aimed at the class's target,
 * then the addend. */
static bool design_aimed(const rdna2_lane *s, gen_class c, gen_rng *r, uint64_t v[3])
{
    if (c == GEN_SUBNORMAL && s->fixed == 1 && !s->unfused && double_product(s) && subnormal_with_k(s, r, v))
        return true;
    int budget;
    int target = class_target(s, c, r, &budget);
    if (s->fixed != 1) {
        pick_product(s, target, budget, c == GEN_SUBNORMAL, r, &v[0], &v[1]);
    } else {
        /* b is the literal: aim a so that the product lands at the target
         * (until 2026-12 a product was picked first and both its factors
         * written over here, its draws and work for nothing). */
        int ek = 0, lk;
        k_bits_at(s, &ek, &lk);  /* ek stays 0 where K is not finite and nonzero */
        v[1] = s->fixed_bits;
        v[0] = gen_value_with_exp(s->fmt[0], r, sign_for(s, 0, r), target - ek,
                                  budget ? (int)s->fmt[0]->precision - budget / 2 : 0);
    }
    if (c == GEN_SUBNORMAL && subnormal_needs_zero_c(s)) {
        v[2] = 0;  /* +0, as the generic aim's c where it landed (a tie's c of no units) */
        return true;
    }
    if (double_product(s)) {
        double x = start_double(s, v[0], v[1]);
        if (c == GEN_DOUBLE_ROUND)  /* f32 destination with K as b: round the product first */
            x = round_f32(x);
        else if (c == GEN_NEAR_TIE && s->rounds_twice)
            /* The near tie is of what the f16 rounding sees, the sum
             * rounded to f32: offsets of the product's own lowest bit (an
             * f32 factor's product has 34-35 or 47-48 bits) fell below
             * f32's grid and that rounding put the sum on the tie (55-64%
             * verified under op_sel_hi 0-2, 1.4-3.7 designs a case). */
            x = round_f32(x);
        if (gen_addend_double(x, s->fmt[2], s->dest, aim_of(c), r, &v[2]))
            return true;
        return c == GEN_OVERFLOW && overflow_by_magnitude(s, fp_from_double(x), r, v);
    }
    fp_value x = start(s, v[0], v[1]);
    if (c == GEN_DOUBLE_ROUND)
        x = val(&fp_f32, fp_round(&fp_f32, x, FP_RNE, 0));
    if (gen_addend(x, s->fmt[2], s->dest, aim_of(c), r, &v[2]))
        return true;
    return c == GEN_OVERFLOW && overflow_by_magnitude(s, x, r, v);
}

int rdna2_forced_side(const rdna2_lane *s)
{
    int sa = s->forced_sign[0], sb = s->forced_sign[1], sc = s->forced_sign[2];
    if (sa < 0 || sb < 0 || sc < 0)
        return 0;
    return (sa ^ sb) == sc ? 1 : -1;
}

void rdna2_respect_forced_signs(const rdna2_lane *s, uint64_t v[3])
{
    int c_forced = s->forced_sign[2];
    uint64_t sbit = 1ull << (s->fmt[2]->bits - 1);
    if (c_forced < 0 || s->fixed == 2 || (int)((v[2] & sbit) != 0) == c_forced)
        return;
    /* -(a*b + c) has the same rounding shape: negate c and one factor. */
    for (int i = 0; i < 2; i++)
        if (s->forced_sign[i] < 0 && s->fixed != i) {
            v[i] ^= 1ull << (s->fmt[i]->bits - 1);
            v[2] ^= sbit;
            return;
        }
}

/* Some classes cannot be reached by some lanes whatever the operands: a
 * product of halves is exact in f32 (no double rounding at f32), halves
 * cannot reach f32's overflow, and a literal that is NaN, infinite or zero
 * leaves nothing to aim with.  Those draws are not searched for; the
 * report shows the miss. */
/* A fused product and c whose signs are fixed and the same: their sum is at
 * least the larger of them, so nothing cancels (abs on every source, say;
 * the K forms take no abs).
 * Not the legacy forms: their product is rounded and flushed first, and a
 * product flushed to zero plus a zero c is an exact zero of a product that
 * was not, which the verdict counts as cancelled. */
static bool sum_cannot_cancel(const rdna2_lane *s)
{
    if (s->unfused)
        return false;
    int sa = s->forced_sign[0], sb = s->forced_sign[1], sc = s->forced_sign[2];  /* abs's, or -1 */
    return sa >= 0 && sb >= 0 && sc >= 0 && (sa ^ sb) == sc;
}

/* The legacy forms flush a subnormal K to a zero.  As a factor it leaves
 * the product zero, and c alone reaches the subnormal and overflow ranges,
 * nothing else (the product's rounding is exact); every design of the
 * others missed, eight attempts a case: v_madmk_f32's cases under such a K
 * took 5.2 times the instructions of another K's (tests/gen_count's drawn
 * instances, callgrind).  As c, the sum is the product rounded and flushed
 * and its own rounding exact: no double round; the product's rounding
 * still has its ties, near ties and cancellations, which the verdict
 * counts. */
static bool flushed_k_reaches(const rdna2_lane *s, gen_class c)
{
    if (c == GEN_RANDOM || c == GEN_SPECIAL)
        return true;
    if (s->fixed < 2)
        return c == GEN_SUBNORMAL || c == GEN_OVERFLOW;
    return c != GEN_DOUBLE_ROUND;
}

static bool feasible(const rdna2_lane *s, gen_class c)
{
    if (c == GEN_CANCEL && sum_cannot_cancel(s))
        return false;
    if (s->fixed >= 0) {
        fp_value k = val(s->fmt[s->fixed], s->fixed_bits);
        if (c != GEN_RANDOM && c != GEN_SPECIAL && k.kind != FPK_FINITE)
            return false;
        if (s->unfused && fp_is_subnormal_bits(&fp_f32, s->fixed_bits) && !flushed_k_reaches(s, c))
            return false;
        /* A power-of-two factor K leaves every product exact in f32: nothing to round twice. */
        if (c == GEN_DOUBLE_ROUND && s->fixed < 2 && s->dest != &fp_f16 && k.kind == FPK_FINITE &&
            fp_msb(k) == fp_lsb(k))
            return false;
    }
    const fp_format *a = s->fmt[0], *b = s->fmt[1], *cf = s->fmt[2], *d = s->dest;
    if (c == GEN_DOUBLE_ROUND && d != &fp_f16 && a->precision + b->precision <= d->precision)
        return false;
    if (c == GEN_OVERFLOW && a->emax + b->emax + 2 < d->emax && cf->emax < d->emax)
        return false;
    return true;
}

/* The classes feasible here, once for an instance's cases (design_lane reads
 * them): a closed design takes only those (the others go to design_lane's
 * fallback, and count as out of reach). */
static uint32_t feasible_mask(const rdna2_lane *s)
{
    uint32_t m = 0;
    for (int c = 0; c < GEN_CLASS_COUNT; c++)
        m |= (uint32_t)feasible(s, (gen_class)c) << c;
    return m;
}

/* design_lane's attempts from attempt `first` on (the earlier ones made
 * elsewhere and failed), the forced signs respected; after eight, a random
 * case (it counts as a miss). */
static void design_from(const rdna2_lane *s, gen_class c, gen_rng *r, uint64_t v[3], int first)
{
    for (int attempt = first; attempt < 8; attempt++)
        if (design(s, c, r, v)) {
            rdna2_respect_forced_signs(s, v);
            return;
        }
    design(s, GEN_RANDOM, r, v);
}

/* The class a lane's design aims at for class c: c, or where c is out of
 * reach a tie instead (the case counted as a miss). */
static gen_class class_designed(const rdna2_lane *s, gen_class c)
{
    if ((s->feasible >> c) & 1)
        return c;
    return (s->feasible >> GEN_TIE) & 1 ? GEN_TIE : GEN_RANDOM;
}

static bool design_lane(const rdna2_lane *s, gen_class c, gen_rng *r, uint64_t v[3])
{
    bool reachable = (s->feasible >> c) & 1;
    c = class_designed(s, c);
    if ((s->closed >> c) & 1) {
        /* The common lanes, in closed form (every such class is feasible there). */
        if (!rdna2_closed_design(s, c, r, v))
            design(s, GEN_RANDOM, r, v);
        return reachable;
    }
    design_from(s, c, r, v, 0);
    return reachable;
}

static int forced(bool abs, bool neg) { return abs ? (int)neg : -1; }

static void spec_init(const isa_instance *in, rdna2_lane *s, const fp_format *dest, const fp_format *fmt)
{
    memset(s, 0, sizeof *s);
    s->dest = dest;
    s->fixed = -1;
    for (int i = 0; i < 3; i++) {
        s->fmt[i] = fmt;
        s->forced_sign[i] = -1;
        if (in->op->src[i] == RDNA2_SRC_K) {
            s->fixed = i;
            s->fixed_bits = in->ctrl[CTRL_K];
        }
    }
}

/* The lane an instance's cases are designed in: formats, the literal, the
 * signs abs+neg force; the same for every case (and both lanes of a packed
 * form, whose modifiers are placed per lane). */
static void instance_spec(const isa_instance *in, rdna2_lane *s)
{
    const isa_op *op = in->op;
    switch ((rdna2_form)op->form) {
    case RDNA2_FMA32:
    case RDNA2_DIV_FMAS:
    case RDNA2_MAD32:
    case RDNA2_FMA16: {
        const fp_format *f = op->form == RDNA2_FMA16 ? &fp_f16 : &fp_f32;
        spec_init(in, s, f, f);
        s->unfused = op->form == RDNA2_MAD32;
        for (int i = 0; i < 3; i++)
            s->forced_sign[i] = forced(BIT(in->ctrl[CTRL_ABS], i), BIT(in->ctrl[CTRL_NEG], i));
        break;
    }
    case RDNA2_MIX32:
    case RDNA2_MIX16:
        spec_init(in, s, op->form == RDNA2_MIX32 ? &fp_f32 : &fp_f16, &fp_f32);
        for (int i = 0; i < 3; i++) {
            if (BIT(in->ctrl[CTRL_OP_SEL_HI], i))
                s->fmt[i] = &fp_f16;
            s->forced_sign[i] = forced(BIT(in->ctrl[CTRL_NEG_HI], i), BIT(in->ctrl[CTRL_NEG_LO], i));
        }
        s->rounds_twice = op->form == RDNA2_MIX16 && !rdna2_mix_rounds_once(in);
        break;
    case RDNA2_PK16:
        spec_init(in, s, &fp_f16, &fp_f16);
        break;
    case RDNA2_FMA64:
        spec_init(in, s, &fp_f64, &fp_f64);
        break;
    }
}

static bool is_f32_form(const isa_op *op)
{
    return op->form == RDNA2_FMA32 || op->form == RDNA2_DIV_FMAS || op->form == RDNA2_MAD32;
}

/* Lanes a case designs: two for the packed form, one for the others. */
static int lanes_of(const isa_op *op) { return op->form == RDNA2_PK16 ? 2 : 1; }

/* A random case's words as drawn, but V_DIV_FMAS's VCC word: a coin, its
 * bit 0 alone. */
static inline void keep_vcc_coin(const isa_op *op, uint32_t *w)
{
    if (op->form == RDNA2_DIV_FMAS)
        w[3] &= 1;
}

/* A case's first draws: random words where a design leaves some (the other
 * half of an f16 source, the kept half of D; the f32 forms' designs write
 * every word), and the whole of a random case.  True when that is all.
 * Where the placement writes every word whole (`whole`: the packed form
 * with each source's two lanes in opposite halves, the default op_sel or
 * the swapped one), a designed case's words are stepped over, not drawn:
 * the same stream, so the same cases, without three draws thrown away.
 * A case at a time (construct_case); prefill_block makes the same draws
 * for a block's cases together. */
static inline __attribute__((always_inline)) bool prefill(const isa_instance *in, gen_class c, bool whole,
                                                          gen_rng *r, uint32_t *w)
{
    const isa_op *op = in->op;
    if (c != GEN_RANDOM && whole) {
        gen_skip(r, op->n_in);
        return false;
    }
    if (c == GEN_RANDOM || !is_f32_form(op))
        for (unsigned i = 0; i < op->n_in; i++)
            w[i] = (uint32_t)gen_next(r);
    if (c != GEN_RANDOM)
        return false;
    keep_vcc_coin(op, w);
    return true;
}

/* How a one-lane form's designed values go into their words, worked out
 * once for an instance's cases: each source's word (-1: the literal) and
 * half (-1: the whole word; an f16 source's op_sel half), its sign bit, the
 * sign neg flips, and the sources abs gives a drawn sign (the modifiers
 * undone: the input whose modified value is the design's; neg flips the
 * sign, abs leaves any sign, drawn, and then neg has nothing to flip;
 * with the controls and the op's table read once, not per case: placing was
 * a tenth of a v_fma_f32 case's instructions, and 8% of a V_FMA_MIX_F32
 * case's until the MIX and f16 forms were planned too, in 2026-12). */
typedef struct {
    int8_t word[3], half[3];
    uint32_t sign[3], flip[3];
    uint8_t abs;
    bool vcc;    /* V_DIV_FMAS: the VCC word is drawn too */
    bool whole;  /* every source a whole word (no literal, no half): place_direct's three stores */
} placement;

/* The plan where the form has one (NULL: the packed form and V_FMA_F64 place case by case). */
static const placement *placement_for(const isa_instance *in, const rdna2_lane *s, placement *p)
{
    const isa_op *op = in->op;
    bool mix = op->form == RDNA2_MIX32 || op->form == RDNA2_MIX16, f16 = op->form == RDNA2_FMA16;
    if (!is_f32_form(op) && !mix && !f16)
        return NULL;
    /* The MIX forms' abs is NEG_HI, their neg NEG_LO. */
    uint32_t abs = mix ? in->ctrl[CTRL_NEG_HI] : in->ctrl[CTRL_ABS], neg = mix ? in->ctrl[CTRL_NEG_LO] : in->ctrl[CTRL_NEG];
    *p = (placement){.abs = (uint8_t)(abs & 7), .vcc = op->form == RDNA2_DIV_FMAS};
    p->whole = true;
    for (int i = 0; i < 3; i++) {
        bool half = f16 || (mix && s->fmt[i] == &fp_f16);
        p->word[i] = op->src[i] == RDNA2_SRC_K ? -1 : (int8_t)op->src[i];
        p->half[i] = half ? (int8_t)BIT(in->ctrl[CTRL_OP_SEL], i) : -1;
        p->sign[i] = half ? 0x8000u : 0x80000000u;
        p->flip[i] = !BIT(abs, i) && BIT(neg, i) ? p->sign[i] : 0;
        p->whole &= p->word[i] >= 0 && p->half[i] < 0;
    }
    return p;
}

/* A planned placement's part that draws nothing: each source into its
 * word or half, neg's flip applied. */
static inline void place_direct(const placement *p, const uint64_t v[3], uint32_t *w)
{
    if (p->whole) {  /* the loop below without its two tests a source: a tenth of the f32 forms' construct_block */
        w[p->word[0]] = (uint32_t)v[0] ^ p->flip[0];
        w[p->word[1]] = (uint32_t)v[1] ^ p->flip[1];
        w[p->word[2]] = (uint32_t)v[2] ^ p->flip[2];
        return;
    }
    for (int i = 0; i < 3; i++) {
        if (p->word[i] < 0)
            continue;
        uint32_t x = (uint32_t)v[i] ^ p->flip[i];
        if (p->half[i] < 0)
            w[p->word[i]] = x;
        else
            put_half(&w[p->word[i]], (uint16_t)x, p->half[i]);
    }
}

/* V_DIV_FMAS's VCC: mostly clear, the scaled path a boundary case. */
static inline uint32_t vcc_draw(gen_rng *r) { return gen_below(r, 4) == 0; }

/* A planned placement: source by source (abs's sign drawn, where neg
 * flips nothing), then VCC. */
static void place_planned(const placement *p, gen_rng *r, const uint64_t v[3], uint32_t *w)
{
    uint64_t signed_v[3] = {v[0], v[1], v[2]};
    for (int i = 0; i < 3; i++)
        if (p->word[i] >= 0 && ((p->abs >> i) & 1))
            signed_v[i] = (v[i] & ~(uint64_t)p->sign[i]) | (gen_coin(r) ? p->sign[i] : 0);
    place_direct(p, signed_v, w);
    if (p->vcc)
        w[3] = vcc_draw(r);
}

/* The packed form's placement, worked out once for a block's cases: the
 * halves the low lane's sources go into, then those of the high lane's
 * that it does not share with the low lane, each with its neg flip (no abs:
 * no draws, so the lanes' designs may come first). */
typedef struct {
    int8_t lane, src, word, hi;
    uint16_t flip;
} half_put;

/* A word written whole: lane 0's source and lane 1's, each shifted to its
 * half, then both halves' neg flips. */
typedef struct {
    uint32_t word, src[2], shift[2], flip;
} word_put;

typedef struct {
    int n;
    bool whole;  /* six puts, each source's word written whole by its two (lane 0's, then lane 1's) */
    half_put put[6];
    word_put words[3];  /* where whole */
} packed_plan;

static void packed_plan_for(const isa_instance *in, packed_plan *pp)
{
    bool placed[3][2] = {{false}};
    uint32_t sel[2] = {in->ctrl[CTRL_OP_SEL], rdna2_pk_hi_select(in)};
    uint32_t neg[2] = {in->ctrl[CTRL_NEG_LO], in->ctrl[CTRL_NEG_HI]};
    pp->n = 0;
    for (int lane = 0; lane < 2; lane++)
        for (int i = 0; i < 3; i++) {
            int h = (int)BIT(sel[lane], i);
            if (placed[i][h])
                continue;
            placed[i][h] = true;
            pp->put[pp->n++] = (half_put){(int8_t)lane, (int8_t)i, (int8_t)in->op->src[i], (int8_t)h,
                                          BIT(neg[lane], i) ? 0x8000u : 0};
        }
    const int *src = in->op->src;
    pp->whole = pp->n == 6 && src[0] != src[1] && src[0] != src[2] && src[1] != src[2];
    for (int k = 0; pp->whole && k < 3; k++) {
        const half_put *a = &pp->put[k], *b = &pp->put[k + 3];
        pp->words[k] = (word_put){(uint32_t)a->word, {(uint32_t)a->src, (uint32_t)b->src},
                                  {16u * (uint32_t)a->hi, 16u * (uint32_t)b->hi},
                                  (uint32_t)a->flip << (16 * a->hi) | (uint32_t)b->flip << (16 * b->hi)};
    }
}

static inline void place_packed(const packed_plan *pp, uint64_t v[2][3], uint32_t *w)
{
    if (pp->whole) {
        /* Both halves of each word (each source's lanes in opposite halves:
         * the default op_sel, lane 0 low and lane 1 high, or the swapped
         * one): the word written at once, not a half at a time over its
         * drawn bits, which the two halves replace either way. */
        for (int k = 0; k < 3; k++) {
            const word_put *q = &pp->words[k];
            w[q->word] = ((uint32_t)(v[0][q->src[0]] & 0xffffu) << q->shift[0] |
                          (uint32_t)(v[1][q->src[1]] & 0xffffu) << q->shift[1]) ^ q->flip;
        }
        return;
    }
    for (int k = 0; k < pp->n; k++)
        put_half(&w[pp->put[k].word], (uint16_t)(v[pp->put[k].lane][pp->put[k].src] ^ pp->put[k].flip), pp->put[k].hi);
}

/* How an instance's cases are placed, worked out once (for a case, or for
 * a block of them): the one-lane forms' plan but V_FMA_F64's (one, where
 * planned is not NULL; direct where the sources' placement draws nothing:
 * no abs), the packed form's.  V_DIV_FMAS's VCC is its case's last draw
 * (place_planned), so a direct plan draws it after the sources are placed
 * (vcc_after): in place(), and for a block's closed designs (placed as
 * they come) in construct_block's last loop.  The same draws, where the
 * VCC draw had kept that form's closed designs from being placed as they
 * come at all. */
typedef struct {
    placement one;
    const placement *planned;
    bool direct, vcc_after;
    packed_plan packed;
} placing;

static void placing_for(const isa_instance *in, const rdna2_lane *s, placing *p)
{
    p->planned = placement_for(in, s, &p->one);
    p->direct = p->planned && !p->one.abs;
    p->vcc_after = p->direct && p->one.vcc;
    if (in->op->form == RDNA2_PK16)
        packed_plan_for(in, &p->packed);
}

/* Whether place() writes every one of a case's words whole. */
static bool places_whole(const isa_instance *in, const placing *p)
{
    return in->op->form == RDNA2_PK16 && p->packed.whole && in->op->n_in == 3;
}

/* The designed values (v[lane]: a, b, c after modifiers) into the words,
 * the modifiers undone.  Inline: a call a case was a tenth of a plain
 * v_fma_f32 tie case's instructions. */
static inline void place(const isa_instance *in, const placing *p, gen_rng *r, uint64_t v[2][3], uint32_t *w)
{
    if (p->direct) {
        place_direct(&p->one, v[0], w);
        if (p->vcc_after)
            w[3] = vcc_draw(r);
        return;
    }
    if (p->planned) {
        place_planned(&p->one, r, v[0], w);
        return;
    }
    switch ((rdna2_form)in->op->form) {
    case RDNA2_PK16:
        place_packed(&p->packed, v, w);
        break;
    case RDNA2_FMA64:
        for (int i = 0; i < 3; i++) {
            w[2 * i] = (uint32_t)v[0][i];
            w[2 * i + 1] = (uint32_t)(v[0][i] >> 32);
        }
        break;
    default:
        break;  /* planned, above */
    }
}

/* V_DIV_FMAS with VCC set scales the sum by 2^64 or 2^-64
 * (rdna2_div_fmas_scale) before its one rounding (div_fmas_order's
 * default; after-rounding rounds the sum unscaled first, and the class is
 * that rounding's whatever the scaling does).  A double round scaled out
 * of f32's normal range is none (the scaled product rounds to a subnormal
 * or to infinity): 13% of the double-round class's cases were made again
 * (bench_rdna2 --per-class: 1.22 attempts a case against v_fma_f32's
 * 1.08).  Where the VCC drawn would do that, it is left clear, after every
 * draw: the case's draws and the cases after it are as they were.  The
 * sum's size from doubles (the product exact, the sum within a rounding),
 * a binade's margin.  Not for ties and near ties, which lose the class
 * only scaled below the normal range (5% of their cases): the check on a
 * quarter of them cost more than those cases' rebuilds (tests/gen_count,
 * 4M cases a class: the tie class about 10% slower with it, the
 * double-round class 6% faster). */
static inline unsigned vcc_set_in_class(gen_class c, const uint32_t *w)
{
    return (w[3] & 1) & (c == GEN_DOUBLE_ROUND);  /* as 0/1, no branch: VCC is a coin's outcome */
}

static inline bool vcc_in_question(const isa_instance *in, gen_class c, const uint32_t *w)
{
    /* One branch, rarely taken (a quarter of one class in eight): as two,
     * the first (VCC set, at random) mispredicted a quarter of the time. */
    return vcc_set_in_class(c, w) && !in->param[PARAM_DIV_FMAS_ORDER];
}

/* The modifiers on the three sources, as rdna2_sign_masks makes them. */
typedef struct {
    uint32_t keep[3], flip[3];
} sign_masks;

static sign_masks sign_masks_of(const isa_instance *in)
{
    sign_masks m;
    rdna2_sign_masks(0x80000000u, in->ctrl[CTRL_ABS], in->ctrl[CTRL_NEG], m.keep, m.flip);
    return m;
}

/* Whether case w's scaled sum (its sources after the modifiers m) stays in
 * f32's normal range, a binade's margin: S2's exponent picks the scale. */
static inline bool vcc_keeps_range(const isa_instance *in, const sign_masks *m, const uint32_t *w)
{
    double x[3];
    for (int i = 0; i < 3; i++)
        x[i] = fp_fast_f32_to_double((w[i] & m->keep[i]) ^ m->flip[i]);
    double sum = x[0] * x[1] + x[2], scaled = fp_dabs(sum) * fp_pow2(rdna2_div_fmas_scale(in, w[2]));
    return scaled >= 0x1p-125 && scaled < 0x1p127;
}

static void vcc_keeps_class(const isa_instance *in, uint32_t *w)
{
    sign_masks m = sign_masks_of(in);
    if (!vcc_keeps_range(in, &m, w))
        w[3] = 0;
}

/* vcc_keeps_class for a block's cases in question: listed first with no
 * branch, then each checked without one, the masks made once.  A call a
 * case in question was 6.5 ns a double-round case of V_DIV_FMAS
 * (bench_rdna2 --stages, with it and without it). */
static void vcc_keeps_classes(const isa_instance *in, const gen_class *c, size_t n, uint32_t *words)
{
    if (in->param[PARAM_DIV_FMAS_ORDER])  /* vcc_in_question's order */
        return;
    unsigned n_in = in->op->n_in;
    uint32_t at[CLOSED_BLOCK];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        at[k] = (uint32_t)i;
        k += vcc_set_in_class(c[i], words + i * n_in);
    }
    sign_masks m = sign_masks_of(in);
    for (size_t j = 0; j < k; j++) {
        uint32_t *w = words + at[j] * n_in;
        w[3] &= -(uint32_t)vcc_keeps_range(in, &m, w);
    }
}

/* One case, s the instance's spec: its draws are the prefill's, each lane's
 * design's, then the placement's (V_DIV_FMAS's VCC then kept or cleared). */
static bool construct_case(const isa_instance *in, const rdna2_lane *s, gen_class c, gen_rng *r, uint32_t *w)
{
    placing p;
    bool whole = false;
    if (c != GEN_RANDOM) {  /* a random case is its prefill alone */
        placing_for(in, s, &p);  /* no draws */
        whole = places_whole(in, &p);
    }
    if (prefill(in, c, whole, r, w))
        return true;
    bool reachable = true;
    uint64_t v[2][3];
    for (int lane = 0; lane < lanes_of(in->op); lane++)
        reachable &= design_lane(s, c, r, v[lane]);
    place(in, &p, r, v, w);
    if (in->op->form == RDNA2_DIV_FMAS && vcc_in_question(in, c, w))
        vcc_keeps_class(in, w);
    return reachable;
}

bool rdna2_construct(const isa_instance *in, gen_class c, gen_rng *r, uint32_t *w)
{
    rdna2_lane s;
    instance_spec(in, &s);
    s.feasible = (uint32_t)feasible(&s, c) << c | (uint32_t)feasible(&s, GEN_TIE) << GEN_TIE;  /* what design_lane asks */
    s.closed = 0;
    for (int k = 0; k < 2; k++) {  /* c, and the tie a class out of reach falls back to */
        gen_class ck = k ? GEN_TIE : c;
        s.closed |= (uint32_t)(rdna2_closed_covers(&s, ck) && ((s.feasible >> ck) & 1)) << ck;
    }
    return construct_case(in, &s, c, r, w);
}

/* Where a block's closed designs go: each case's v[case][lane], for
 * place() after the block's other designs, or with a direct plan (one-lane
 * forms only) straight into the case's words: such a plan draws nothing
 * for the sources (V_DIV_FMAS's VCC, the one draw it makes, comes last,
 * in construct_block's last loop), so placing early keeps every case's
 * draws. */
typedef struct {
    uint64_t (*v)[2][3];
    const placement *direct;  /* NULL: into v */
    uint32_t *words;
    unsigned n_in;
} design_sink;

static inline void sink_put(const design_sink *d, uint32_t i, int lane, const uint64_t got[3])
{
    if (d->direct)
        place_direct(d->direct, got, d->words + i * d->n_in);
    else
        memcpy(d->v[i][lane], got, sizeof d->v[i][lane]);
}

/* A block's cases of one closed-form class, lane by lane, four at a time
 * (rdna2_closed_lanes; the special class rdna2_special_lanes, which always
 * makes one); a design that runs out of attempts falls back to a random
 * one at once, as design_lane does, before the next lane draws. */
static void closed_designs(const rdna2_lane *s, gen_class c, int lanes, gen_rng *rng, const uint32_t *which, size_t m,
                           const design_sink *sink)
{
    uint64_t got[CLOSED_BLOCK][3];
    bool ok[CLOSED_BLOCK];
    for (int lane = 0; lane < lanes; lane++) {
        if (c == GEN_SPECIAL) {
            /* design_special's values, then design_lane's sign step. */
            int lo, hi;
            tie_class_range(s, &lo, &hi);  /* class_target's for the tie class */
            rdna2_special_lanes(s, lo, hi, rng, which, m, got);
            for (size_t k = 0; k < m; k++) {
                rdna2_respect_forced_signs(s, got[k]);
                sink_put(sink, which[k], lane, got[k]);
            }
            continue;
        }
        rdna2_closed_lanes(s, c, rng, which, m, got, ok);
        for (size_t k = 0; k < m; k++) {
            if (!ok[k])
                design(s, GEN_RANDOM, &rng[which[k]], got[k]);
            sink_put(sink, which[k], lane, got[k]);
        }
    }
}

/* A block's cases by their place in the classes' cycle: a campaign's
 * classes repeat with the case index (gen_class_period), so case i's class,
 * what its prefill leaves and where it is designed are those of position
 * i % p, decided once a position, and the cases of a position are every
 * p-th from it.  A block without a period (a rebuild's misses, a single
 * case) has a position a case (p = n).  Decided case by case, the block's
 * loops over its cases were a third of construct_block's own samples in a
 * v_fma_f32 campaign (perf: the class and state of each case read and
 * branched on four times). */
typedef struct {
    const gen_class *c;
    size_t n, p;
} block_cycle;

/* Where a case of a block stands after its prefill.  PLACED: its words
 * written (random, or a direct sink's); PLACED_BUT_VCC: a direct sink's,
 * its VCC still to draw (placing's vcc_after). */
enum { TO_DESIGN, PLACED, CLOSED_DESIGNED, PLACED_BUT_VCC };

/* The subnormal class feasible on a lane and not a closed one: where a
 * route below may take its cases (design_lane goes straight to design()). */
static bool subnormal_for_lanes(const rdna2_lane *s)
{
    return ((s->feasible >> GEN_SUBNORMAL) & 1) && !((s->closed >> GEN_SUBNORMAL) & 1);
}

/* Whether a lane's subnormal cases go through the grid lanes
 * (rdna2_subnormal_grid_lanes): one where design() draws the grid design's
 * coin first (no literal, fused, some product reaches the class), sources
 * and result all f32 or all f16, and the class feasible and not a closed
 * one (design_lane goes straight to design()). */
static bool grid_lanes_cover(const rdna2_lane *s)
{
    const fp_format *d = s->dest;
    return s->fixed < 0 && !s->unfused && (d == &fp_f32 || d == &fp_f16) && s->fmt[0] == d && s->fmt[1] == d &&
           s->fmt[2] == d && subnormal_for_lanes(s) && !sum_never_tiny(s);
}

/* A subnormal case's lane after design()'s first attempt (ok: it made
 * one): the forced signs respected, or design_lane's loop from its second
 * attempt on. */
static void after_first_attempt(const rdna2_lane *s, bool ok, gen_rng *r, uint64_t v[3])
{
    if (ok)
        rdna2_respect_forced_signs(s, v);
    else
        design_from(s, GEN_SUBNORMAL, r, v, 1);
}

/* The operands design for cases which[0..m) of a block, lane `lane`,
 * always made (rdna2_subnormal_operands_lanes), its forced signs respected. */
static void operands_designs(const rdna2_lane *s, gen_rng *r, const uint32_t *which, size_t m, int lane,
                             uint64_t (*v)[2][3])
{
    uint64_t got[CLOSED_BLOCK][3];
    rdna2_subnormal_operands_lanes(s, r, which, m, got);
    for (size_t k = 0; k < m; k++) {
        uint64_t *w = v[which[k]][lane];
        memcpy(w, got[k], sizeof got[k]);
        rdna2_respect_forced_signs(s, w);
    }
}

/* Whether every subnormal case of a lane is the operands design at its
 * first attempt: design() goes straight there where K is c and far from the
 * subnormal range, and else where no product is small enough
 * (sum_never_tiny; V_FMA_MIX_F32 with f16 factors); the class feasible and
 * not a closed one, the sources f32 or f16. */
static bool operands_lanes_cover(const rdna2_lane *s)
{
    bool straight = s->fixed == 2 ? k_at_least(s->fixed_bits, s->dest->emin + 2) : sum_never_tiny(s);
    return straight && subnormal_for_lanes(s) && rdna2_subnormal_operands_lanes_cover(s);
}

/* Whether a lane's subnormal cases go through the sum lanes
 * (rdna2_subnormal_sum_lanes): where design() sends the cases its other
 * designs leave to the sum design (no_subnormal_ties: the legacy forms, and
 * the fused ones with an integer K as b).  Before that, the legacy forms
 * draw the sum design's coin, then with no literal the grid design's; every
 * such lane the operands design's one in three.  f32 throughout, K as b or
 * none, and the class feasible and not a closed one. */
static bool sum_lanes_cover(const rdna2_lane *s)
{
    return subnormal_for_lanes(s) && no_subnormal_ties(s) && rdna2_subnormal_sum_lanes_cover(s);
}

/* Whether a lane's subnormal cases go through design()'s one coin for K
 * as b, fused, where K has bits below 2^0 (no_subnormal_ties' integer Ks
 * take the sum lanes): the operands design one time in three, a vector at
 * a time, else the aimed design (subnormal_with_k first), case by case.
 * Case by case (design_lane) the coin, its mispredicted branch and the
 * loop's own work were a fifth of such a case: v_fmamk_f32 under K =
 * 0xbcf6e801, 1,016 instructions a subnormal case against 477 under its
 * default K (callgrind). */
static bool k_aimed_cover(const rdna2_lane *s)
{
    return s->fixed == 1 && !s->unfused && subnormal_for_lanes(s) && !sum_never_tiny(s) && !no_subnormal_ties(s) &&
           rdna2_subnormal_operands_lanes_cover(s);
}

/* How a block's subnormal cases are designed: by design()'s coins
 * (subnormal_coins_block: grid_lanes_cover's, sum_lanes_cover's or
 * k_aimed_cover's), all by the operands design (operands_lanes_cover), or
 * case by case (design_lane). */
enum { SUBNORMAL_BY_CASE, SUBNORMAL_GRID, SUBNORMAL_SUM, SUBNORMAL_OPERANDS, SUBNORMAL_K_AIMED };

static int subnormal_route(const rdna2_lane *s)
{
    return grid_lanes_cover(s)         ? SUBNORMAL_GRID
           : sum_lanes_cover(s)        ? SUBNORMAL_SUM
           : operands_lanes_cover(s)   ? SUBNORMAL_OPERANDS
           : k_aimed_cover(s)          ? SUBNORMAL_K_AIMED
                                       : SUBNORMAL_BY_CASE;
}

/* The block's cases still to design whose class is `want`, their positions
 * marked designed (block_cycle), into cases[]; their count. */
static size_t take_class(const block_cycle *b, gen_class want, uint8_t *state, uint32_t *cases)
{
    size_t count = 0;
    for (size_t j = 0; j < b->p; j++) {
        if (state[j] != TO_DESIGN || b->c[j] != want)
            continue;
        state[j] = CLOSED_DESIGNED;
        for (size_t i = j; i < b->n; i += b->p)
            cases[count++] = (uint32_t)i;
    }
    return count;
}

/* A block's subnormal cases where every one is the operands design, lane by lane. */
static void subnormal_operands_block(const rdna2_lane *s, int lanes, const block_cycle *b, gen_rng *r,
                                     uint8_t *state, uint64_t (*v)[2][3])
{
    uint32_t cases[CLOSED_BLOCK];
    size_t count = take_class(b, GEN_SUBNORMAL, state, cases);
    for (int lane = 0; lane < lanes; lane++)
        operands_designs(s, r, cases, count, lane, v);
}

/* design()'s first attempt at a subnormal case, as its coins choose it. */
enum { FIRST_SUM, FIRST_GRID, FIRST_OPERANDS, FIRST_AIMED, FIRST_KINDS };

/* The first attempts of cases which[0..m) made by a lanes design
 * (rdna2_subnormal_grid_lanes or rdna2_subnormal_sum_lanes), each case
 * going on as design_lane's loop would where its attempt failed. */
static void lanes_first_attempts(const rdna2_lane *s, int kind, gen_rng *r, const uint32_t *which, size_t m, int lane,
                                 uint64_t (*v)[2][3])
{
    uint64_t got[CLOSED_BLOCK][3];
    bool ok[CLOSED_BLOCK];
    if (kind == FIRST_GRID)
        rdna2_subnormal_grid_lanes(s->dest, r, which, m, got, ok);
    else
        rdna2_subnormal_sum_lanes(s, r, which, m, got, ok);
    for (size_t k = 0; k < m; k++) {
        uint64_t *w = v[which[k]][lane];
        if (ok[k])
            memcpy(w, got[k], sizeof got[k]);
        after_first_attempt(s, ok[k], &r[which[k]], w);
    }
}

/* The first attempts of the cases which[0..m) that go to the generic aim
 * (design_aimed), each going on as design_lane's loop would where it
 * failed: a vector of cases at a time where the lanes cover the lane (the
 * scalar aim was about half of such a case's time, v_fma_f32's and
 * v_pk_fma_f16's subnormal designs in perf), the scalar aim for the cases
 * the lanes leave to it. */
static void aimed_first_attempts(const rdna2_lane *s, bool lanes, gen_rng *r, const uint32_t *which, size_t m,
                                 int lane, uint64_t (*v)[2][3])
{
    uint64_t got[CLOSED_BLOCK][3];
    uint8_t outcome[CLOSED_BLOCK];
    if (lanes)
        rdna2_subnormal_aimed_lanes(s, r, which, m, got, outcome);
    for (size_t k = 0; k < m; k++) {
        uint32_t i = which[k];
        uint64_t *w = v[i][lane];
        bool ok;
        if (!lanes || outcome[k] == AIMED_SCALAR) {
            ok = design_aimed(s, GEN_SUBNORMAL, &r[i], w);
        } else {
            ok = outcome[k] == AIMED_MADE;
            memcpy(w, got[k], sizeof got[k]);
        }
        after_first_attempt(s, ok, &r[i], w);
    }
}

/* A block's subnormal cases, where grid_lanes_cover or sum_lanes_cover,
 * lane by lane (a packed case's low lane designed to the end before its
 * high lane draws): each draws design()'s coins first (the legacy forms'
 * sum design's, then with no literal the grid design's, then the operands
 * design's one in three); the grid and sum designs' cases make that first
 * attempt a vector at a time, the others theirs here; a first attempt that
 * fails goes on as design_lane's loop would.  The scalar grid design was a
 * third of such a case's time, most of it mispredicted branches on its
 * coins; the scalar sum design and its coins were 60% of a legacy
 * subnormal case's. */
static inline __attribute__((always_inline)) void subnormal_coins_block(const rdna2_lane *s, int lanes, bool sum_last,
                                                                         const block_cycle *b, gen_rng *r,
                                                                         uint8_t *state, uint64_t (*v)[2][3])
{
    /* sum_last (sum_lanes_cover's route) is a constant of each call; the
     * grid lanes' lanes are fused with no literal, the sum lanes' legacy
     * (no literal or K as b) or fused with K as b, k_aimed_cover's fused
     * with K as b: design() draws the grid coin only where there is no
     * literal. */
    unsigned sum_coin = sum_last && s->unfused, grid_coin = s->fixed < 0;
    bool aimed_lanes = rdna2_subnormal_aimed_lanes_cover(s);
    int rest = sum_last ? FIRST_SUM : FIRST_AIMED;
    uint32_t cases[CLOSED_BLOCK];
    size_t count = take_class(b, GEN_SUBNORMAL, state, cases);
    for (int lane = 0; lane < lanes; lane++) {
        /* The cases sorted by their coins before any designs: a branch on
         * each coin, taken half the time at random, is mispredicted about
         * as often (two of them were a sixth of a subnormal case's time).
         * Every coin is peeked, then the stream stepped by those taken. */
        uint32_t first[FIRST_KINDS][CLOSED_BLOCK];
        size_t m[FIRST_KINDS] = {0};
        for (size_t k = 0; k < count; k++) {
            /* As 0/1 arithmetic: GCC made each select a branch. */
            uint32_t i = cases[k];
            unsigned at = 1 + sum_coin + grid_coin;
            unsigned sum = sum_coin ? (unsigned)(gen_peek(&r[i], 1) >> 63) : 0;
            unsigned grid = grid_coin ? (sum ^ 1) & (unsigned)(gen_peek(&r[i], 1 + sum_coin) >> 63) : 0;
            unsigned later = (sum | grid) ^ 1;  /* past both coins */
            unsigned ops = later & (gen_below_of(gen_peek(&r[i], at), 3) == 0);
            unsigned is[FIRST_KINDS] = {sum, grid, ops, 0};
            is[rest] |= later & (ops ^ 1);
            gen_skip(&r[i], sum + grid * (1 + sum_coin) + later * at);
            /* Into every list, counted where it belongs: the counts stay in
             * registers (first[kind][m[kind]++] waited on its own stores). */
            for (int kind = 0; kind < FIRST_KINDS; kind++) {
                first[kind][m[kind]] = i;
                m[kind] += is[kind];
            }
        }
        operands_designs(s, r, first[FIRST_OPERANDS], m[FIRST_OPERANDS], lane, v);
        aimed_first_attempts(s, aimed_lanes, r, first[FIRST_AIMED], m[FIRST_AIMED], lane, v);
        lanes_first_attempts(s, FIRST_GRID, r, first[FIRST_GRID], m[FIRST_GRID], lane, v);
        lanes_first_attempts(s, FIRST_SUM, r, first[FIRST_SUM], m[FIRST_SUM], lane, v);
    }
}

/* A block's prefills, prefill's draws for each of its cases, and each
 * position's state after them (block_cycle): PLACED where that is all (a
 * random case), else TO_DESIGN.  Where each case draws all its words (a
 * form not of f32 values, its words not written whole), the block's draws
 * are made at once, in vectors (gen_draw_words; a case at a time they were
 * a tenth of a v_fma_f16 case's construct_block), and only a random case
 * is placed.  Else only the random cases draw (an f32 form's design writes
 * every word), together in vectors, and a case to design whose words are
 * written whole steps over them. */
static void prefill_block(const isa_instance *in, const block_cycle *b, bool whole, gen_rng *r, uint32_t *words,
                          uint8_t *state)
{
    const isa_op *op = in->op;
    if (!is_f32_form(op) && !whole) {
        gen_draw_words(r, b->n, op->n_in, words);
        for (size_t j = 0; j < b->p; j++)
            state[j] = b->c[j] == GEN_RANDOM ? PLACED : TO_DESIGN;
        return;
    }
    uint32_t random[CLOSED_BLOCK];
    size_t m = 0;
    for (size_t j = 0; j < b->p; j++) {
        bool is_random = b->c[j] == GEN_RANDOM;
        if (is_random)
            for (size_t i = j; i < b->n; i += b->p)
                random[m++] = (uint32_t)i;
        else if (whole)
            for (size_t i = j; i < b->n; i += b->p)
                gen_skip(&r[i], op->n_in);
        state[j] = is_random ? PLACED : TO_DESIGN;
    }
    gen_draw_words_at(r, random, m, op->n_in, words);
    for (size_t k = 0; k < m; k++)
        keep_vcc_coin(op, words + (size_t)random[k] * op->n_in);
}

/* Where a block's cases of each class go: closed[c] the closed-form class
 * its cases are gathered under (the class designed: a class out of reach
 * goes with the ties it is designed as, V_FMA_MIX_F32's overflow and
 * double-round under f16 sources), or -1; in_reach[c] design_lane's answer
 * for it.  Read a case at a time, so worked out once a call. */
typedef struct {
    int8_t closed[GEN_CLASS_COUNT];
    bool in_reach[GEN_CLASS_COUNT];
} class_routes;

/* Up to CLOSED_BLOCK cases: every draw of a case in the order construct_case
 * makes them (the cases' streams are their own, so the order across cases is
 * free): the prefills, then the closed-form classes' designs, gathered by
 * class (routes; placed as they come where the plan is direct), then each
 * case's other designs and its placement. */
static void construct_block(const isa_instance *in, const rdna2_lane *s, const class_routes *routes_in, int subnormal,
                            const gen_class *c, gen_rng *r, size_t n, uint32_t *words, bool *reachable)
{
    class_routes routes = *routes_in;  /* a copy the stores below cannot alias, kept out of memory */
    const isa_op *op = in->op;
    int lanes = lanes_of(op);
    uint32_t bucket[GEN_CLASS_COUNT][CLOSED_BLOCK], count[GEN_CLASS_COUNT] = {0};
    uint8_t state[CLOSED_BLOCK];  /* a position's (block_cycle) */
    uint64_t v[CLOSED_BLOCK][2][3];
    size_t p = gen_class_period(c, n, GEN_CLASS_LIST_MAX);
    block_cycle b = {c, n, p ? p : n};
    placing plan;
    placing_for(in, s, &plan);  /* once for the block */
    prefill_block(in, &b, places_whole(in, &plan), r, words, state);
    uint8_t closed_state = plan.direct ? (plan.vcc_after ? PLACED_BUT_VCC : PLACED) : CLOSED_DESIGNED;
    for (size_t j = 0; j < b.p; j++) {
        bool in_reach = routes.in_reach[c[j]];  /* design_lane's answer, which the lanes designed below repeat */
        int k = routes.closed[c[j]];
        bool take = state[j] == TO_DESIGN && k >= 0;
        state[j] = take ? closed_state : state[j];
        for (size_t i = j; i < n; i += b.p) {
            reachable[i] = in_reach;
            if (take)
                bucket[k][count[k]++] = (uint32_t)i;
        }
    }
    design_sink sink = {v, plan.direct ? &plan.one : NULL, words, op->n_in};
    for (int k = 0; k < GEN_CLASS_COUNT; k++)
        if (count[k])
            closed_designs(s, (gen_class)k, lanes, r, bucket[k], count[k], &sink);
    if (subnormal == SUBNORMAL_GRID || subnormal == SUBNORMAL_K_AIMED)
        subnormal_coins_block(s, lanes, false, &b, r, state, v);
    else if (subnormal == SUBNORMAL_SUM)
        subnormal_coins_block(s, lanes, true, &b, r, state, v);
    else if (subnormal == SUBNORMAL_OPERANDS)
        subnormal_operands_block(s, lanes, &b, r, state, v);
    for (size_t j = 0; j < b.p; j++) {
        if (state[j] == PLACED)
            continue;
        if (state[j] == PLACED_BUT_VCC) {
            for (size_t i = j; i < n; i += b.p)
                words[i * op->n_in + 3] = vcc_draw(&r[i]);
            continue;
        }
        int design_lanes = state[j] == TO_DESIGN ? lanes : 0;
        for (size_t i = j; i < n; i += b.p) {
            for (int lane = 0; lane < design_lanes; lane++)
                reachable[i] &= design_lane(s, c[j], &r[i], v[i][lane]);
            place(in, &plan, &r[i], v[i], words + i * op->n_in);
        }
    }
    if (op->form == RDNA2_DIV_FMAS)
        vcc_keeps_classes(in, c, n, words);
}

void rdna2_construct_many(const isa_instance *in, const gen_class *c, gen_rng *r, size_t n, uint32_t *words,
                          bool *reachable)
{
    rdna2_lane s;
    instance_spec(in, &s);  /* once for the call, as which classes it builds in closed form */
    s.feasible = feasible_mask(&s);
    s.closed = rdna2_closed_mask(&s) & s.feasible;
    bool closed[GEN_CLASS_COUNT];
    for (int k = 0; k < GEN_CLASS_COUNT; k++)
        closed[k] = rdna2_closed_lanes_cover(&s, (gen_class)k);
    int tie_lo, tie_hi;
    tie_class_range(&s, &tie_lo, &tie_hi);
    closed[GEN_SPECIAL] = rdna2_special_lanes_cover(&s, tie_lo);
    class_routes routes;
    int instead = class_designed(&s, GEN_TIE);  /* what a class out of reach is designed as */
    for (int k = 0; k < GEN_CLASS_COUNT; k++) {
        bool in_reach = (s.feasible >> k) & 1;
        int designed = in_reach ? k : instead;  /* class_designed */
        routes.closed[k] = (int8_t)(closed[designed] ? designed : -1);
        routes.in_reach[k] = in_reach;
    }
    int subnormal = subnormal_route(&s);
    for (size_t first = 0; first < n; first += CLOSED_BLOCK) {
        size_t m = n - first < CLOSED_BLOCK ? n - first : CLOSED_BLOCK;
        construct_block(in, &s, &routes, subnormal, c + first, r + first, m, words + first * in->op->n_in,
                        reachable + first);
    }
}
