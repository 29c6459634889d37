/* What the lane designs of the RDNA 2 generator share (rdna2_closed_lanes.c,
 * rdna2_special_lanes.c, rdna2_subnormal_lanes.c): the lane formats, the
 * cases' random streams stepped a vector at a time, and the bit-level
 * helpers their designs are written with.  Every helper is LANES (always
 * inlined), so each lane file's two builds (fp/lanes.h) make their own.
 * Include from those .c files only. */
#ifndef TIEFUZZ_ISA_RDNA2_LANES_KIT_H
#define TIEFUZZ_ISA_RDNA2_LANES_KIT_H

#include "../fp/fast.h"
#include "../fp/lanes.h"
#include "classify.h"
#include "rdna2.h"

/* Cases an entry point takes at once (rdna2_closed_lanes splits more). */
#define CLOSED_LANES_MAX ISA_GENERATE_BLOCK

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
                          ALL_F16 = {F16_FORMAT, F16_FORMAT, F16_FORMAT, F16_FORMAT},
                          HALVES_F32 = {F16_FORMAT, F16_FORMAT, F16_FORMAT, F32_FORMAT};  /* MIX32's default */


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

/* gen_range(lo, hi) of w, per lane (gen_below's scaling). */
LANES vl range_of(vu w, vl lo, vl hi) { return lo + (vl)(((w >> 32) * (vu)(hi - lo + 1)) >> 32); }

/* value_with_exp (gen/values.c) in format F: sign a mask, e the leading
 * bit's exponent (at least F's lowest subnormal one), tz the trailing
 * zeros (0 to F.p - 1), w's low bits the fraction; with lowest_set (a
 * constant of each use) the lowest kept bit set, gen_value_with_lowest. */
LANES vu value_bits_lanes(lane_format F, vl sign, vl e, vl tz, vu w, bool lowest_set)
{
    int fb = F.p - 1, lowest = F.emin - fb;
    vu frac = (w & (vu)frac_mask(F)) & ~(((vu)ALL(1) << (vu)tz) - 1);
    if (lowest_set)
        frac |= (vu)(tz < fb) & ((vu)ALL(1) << (vu)min_l(tz, ALL(fb - 1)));
    e = min_l(e, ALL(F.emax));
    vu normal = (vu)((e + F.bias) << fb) | frac;
    /* Subnormal, its leading bit at 2^e, with as many significant bits as
     * a normal value of these trailing zeros (the lowest of them set where
     * asked). */
    vl lead = max_l(e, ALL(lowest)) - lowest;
    vu sig = ((vu)ALL(1) << (vu)lead) | (frac >> (vu)(fb - lead));
    vl low = max_l(lead + 1 - max_l(fb + 1 - tz, ALL(1)), ALL(0));
    sig &= ~(((vu)ALL(1) << (vu)low) - 1);
    if (lowest_set)
        sig |= (vu)ALL(1) << (vu)low;
    return (vu)(bit(sign) << (F.bits - 1)) | (vu)pick(e >= F.emin, (vl)normal, (vl)sig);
}
LANES vu value_with_exp_lanes(lane_format F, vl sign, vl e, vl tz, vu w)
{
    return value_bits_lanes(F, sign, e, tz, w, false);
}

/* s = a + b was exact (TwoSum's error zero), as gen/addend_fast.c's add() tests it. */
LANES vl exact_sum(vd a, vd b, vd s)
{
    vd bb = s - a;
    return ((a - (s - bb)) + (b - bb)) == 0;
}

static inline lane_format lane_format_of(const fp_format *f) { return f == &fp_f32 ? F32 : F16; }
static inline bool f16_or_f32(const fp_format *f) { return f == &fp_f32 || f == &fp_f16; }

#endif
