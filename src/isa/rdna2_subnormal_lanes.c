/* The subnormal class's designs of rdna2_construct.c whose first attempt
 * runs a vector of cases at a time: same cases, bit for bit, as the scalar
 * designs called on each (test construct-many holds a block's cases to
 * construct's, case by case, and the gen_count checksums to the last
 * revision's). */
#include <string.h>
#include "rdna2_lanes_kit.h"

/* ---- the subnormal class's grid design (rdna2_construct.c's
 * design_subnormal_grid), for cases whose design already drew its coin for
 * it: every draw the scalar design makes, in its order, the optional ones
 * (sticky's range, the head's bits, the sticky side, and everything after
 * an empty exponent range) only in the lanes that make them. */


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

/* ---- the subnormal class's sum design (rdna2_construct.c's
 * design_subnormal_sum), f32 throughout, no literal or K as b ----
 *
 * A normal product p = round_f32(a*b) with its top in [-125, -104] and
 * c = -(p + d) or -(p - d), d on the subnormal grid.  A case's draws: the
 * product's top, then with no literal pick_product's (a's exponent, each
 * factor's trailing-zeros coin and, where it comes up, their count; a's
 * sign where free and fraction, b's likewise), with K as b gen_value_with_exp's
 * for a (sign where free, fraction); then, in the lanes whose p is in
 * range, d's bits and its side. */
LANES vu sum_factor(vl e, vl tz, int forced, streams *st, vl live)
{
    vl sign = forced < 0 ? flag(next(st, live), 63) : ALL(-(int64_t)forced);
    return value_with_exp_lanes(F32, sign, e, tz, next(st, live));
}

/* gen_below(4) ? 0 : gen_range(0, 23), pick_product's trailing zeros. */
LANES vl trailing_zeros(streams *st, vl live)
{
    vl some = (vl)(next(st, live) >> 62) == 0;
    return pick(some, range_of(next(st, live & some), ALL(0), ALL(23)), ALL(0));
}

/* k_exp: K's leading-bit exponent where K is b (fixed 1); the scalar design
 * draws nothing where K's exponent is above 21 (the caller's cover). */
LANES void sum_attempt(int fixed, int k_exp, const int forced[3], uint64_t fixed_bits, streams *st, vu out[3],
                       vl *done)
{
    vl live = st->live;
    vu a, b;
    if (fixed == 1) {
        vl lo = ALL(k_exp - 125 > -125 ? k_exp - 125 : -125);  /* a = p / K stays normal */
        vl e = range_of(next(st, live), lo, ALL(-104)) - k_exp;
        a = sum_factor(e, ALL(0), forced[0], st, live);
        b = (vu)ALL(fixed_bits);
    } else {
        /* pick_product with f32 factors and a top in [-125, -104]: a's
         * exponent in [-126, top + 126], b's the rest (both normal). */
        vl top = range_of(next(st, live), ALL(-125), ALL(-104));
        vl ea = range_of(next(st, live), ALL(-126), top + 126);
        vl tza = trailing_zeros(st, live);
        vl tzb = trailing_zeros(st, live);
        a = sum_factor(ea, tza, forced[0], st, live);
        b = sum_factor(top - ea, tzb, forced[1], st, live);
    }
    vd p = to_f32(f32_value(a) * f32_value(b));
    vl pe = dexp(dabs(p));
    vl in_range = live & (dabs(p) >= 0x1p-126) & (pe <= -104);  /* not flushed, finite, small enough */
    vl lowest = pick(in_range, max_l(pe - 23, ALL(-149)), ALL(-149));  /* a shift in range in every lane */
    vu m = next(st, in_range) & (vu)((ALL(1) << (-126 - lowest)) - 1);
    vd d = to_double(pick(m == 0, ALL(1), (vl)m)) * pow2(lowest);
    vd c = -(p + pickd(flag(next(st, in_range), 63), d, -d));  /* exact in double */
    vl c_ok;
    out[0] = a;
    out[1] = b;
    out[2] = double_bits(F32, c, &c_ok);  /* c an f32 value (no carry past 24 bits) */
    *done = in_range & (dabs(c) >= 0x1p-126) & c_ok;
}

/* The designs of a single attempt a case (the operands design always
 * makes one; ok may then be NULL). */
enum { GRID_DESIGN, OPERANDS_DESIGN, SUM_DESIGN };

/* One attempt a case, a vector of cases at a time; design, a constant of
 * each caller, picks the attempt (the grid design's lanes are all FS.d). */
LANES void single_attempts(int design, lane_formats FS, const int forced[3], int fixed, uint64_t fixed_bits,
                           int k_exp, gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3], bool *ok)
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
        else if (design == SUM_DESIGN)
            sum_attempt(fixed, k_exp, forced, fixed_bits, &st, out, &done);
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


/* The formats: constants where the sources share f32 or f16, read at run time where they mix. */
LANES_ENTRY void operands_f32(const int forced[3], int fixed, uint64_t fixed_bits, gen_rng *rng, const uint32_t *which,
                              size_t n, uint64_t (*v)[3])
{
    single_attempts(OPERANDS_DESIGN, ALL_F32, forced, fixed, fixed_bits, 0, rng, which, n, v, NULL);
}

LANES_ENTRY void operands_f16(const int forced[3], int fixed, uint64_t fixed_bits, gen_rng *rng, const uint32_t *which,
                              size_t n, uint64_t (*v)[3])
{
    single_attempts(OPERANDS_DESIGN, ALL_F16, forced, fixed, fixed_bits, 0, rng, which, n, v, NULL);
}

LANES_ENTRY void operands_mixed(const lane_formats *FS, const int forced[3], int fixed, uint64_t fixed_bits,
                                gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3])
{
    single_attempts(OPERANDS_DESIGN, *FS, forced, fixed, fixed_bits, 0, rng, which, n, v, NULL);
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

LANES_ENTRY void grid_f32(gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3], bool *ok)
{
    single_attempts(GRID_DESIGN, ALL_F32, NULL, -1, 0, 0, rng, which, n, v, ok);
}

LANES_ENTRY void grid_f16(gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3], bool *ok)
{
    single_attempts(GRID_DESIGN, ALL_F16, NULL, -1, 0, 0, rng, which, n, v, ok);
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

LANES_ENTRY void sum_f32(const int forced[3], gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3], bool *ok)
{
    single_attempts(SUM_DESIGN, ALL_F32, forced, -1, 0, 0, rng, which, n, v, ok);
}

/* K as b (V_MADMK_F32, V_FMAMK_F32). */
LANES_ENTRY void sum_f32_k(const int forced[3], uint64_t k, int k_exp, gen_rng *rng, const uint32_t *which, size_t n,
                           uint64_t (*v)[3], bool *ok)
{
    single_attempts(SUM_DESIGN, ALL_F32, forced, 1, k, k_exp, rng, which, n, v, ok);
}

/* An f32 K's exponent field, unbiased: its leading bit's exponent where K
 * is normal (-127: zero or subnormal; 128: infinite or NaN). */
static int k_field_exp(uint64_t k) { return (int)((k >> 23) & 0xff) - 127; }

void LANES_API(rdna2_subnormal_sum_lanes)(const rdna2_lane *s, gen_rng *rng, const uint32_t *which, size_t n,
                                          uint64_t (*v)[3], bool *ok)
{
    int k_exp = s->fixed == 1 ? k_field_exp(s->fixed_bits) : 0;  /* K normal: the cover */
    for (size_t first = 0; first < n; first += CLOSED_LANES_MAX) {
        size_t m = n - first < CLOSED_LANES_MAX ? n - first : CLOSED_LANES_MAX;
        if (s->fixed == 1)
            sum_f32_k(s->forced_sign, s->fixed_bits, k_exp, rng, which + first, m, v + first, ok + first);
        else
            sum_f32(s->forced_sign, rng, which + first, m, v + first, ok + first);
    }
}

/* ---- the subnormal class's generic aim (rdna2_construct.c's design_aimed
 * for that class), for the cases past the grid and operands designs'
 * coins, on a lane of one format (f32 or f16) throughout, fused, with no
 * literal.  Its draws, always the same count: class_target's binade, then
 * pick_product's (a's exponent, a's share of the bits, each factor's sign
 * where free and fraction, its lowest kept bit set), then
 * gen_addend_double's aim, aimed()'s coin and keep_shape's step (the near
 * tie's branch never fits one format: gen_subnormal_near_fits).  Where the
 * scalar aim would leave this path (keep_shape unsure, the kit's turn, or
 * what never happens for these formats) the lane says so and its stream
 * is put back, for the scalar aim to make the whole case again. */

/* A finite value of F (its encoding in the lane's low bits) as a double, exactly. */
LANES vd lane_value(lane_format F, vu bits)
{
    vl biased = (vl)(bits >> (F.p - 1)) & ((1 << (F.bits - F.p)) - 1);
    vu sig = (bits & (vu)frac_mask(F)) | ((vu)(biased != 0) & ((vu)ALL(1) << (F.p - 1)));
    vd x = to_double((vl)sig) * pow2(max_l(biased, ALL(1)) - F.bias - (F.p - 1));
    return neg_where(-(vl)((bits >> (F.bits - 1)) & 1), x);
}

LANES void aimed_attempt(lane_format F, const int forced[3], streams *st, vu out[3], vl *made, vl *scalar)
{
    int p = F.p;
    vl live = st->live;
    /* class_target: the product's top in the two lowest binades' range, its bits. */
    vl t = range_of(next(st, live), ALL(F.emin - p + 1), ALL(F.emin + 1));
    vl budget = max_l(t - (F.emin - p) + 2, ALL(2));
    /* pick_product (budget >= 3 here, so a's share is drawn from 1..budget - 1). */
    vl lo = max_l(ALL(F.emin), t - F.emax), hi = min_l(ALL(F.emax), t - F.emin);
    vl ea = range_of(next(st, live), lo, hi);
    vl eb = max_l(ALL(F.emin - p + 1), min_l(ALL(F.emax), t - ea));
    vl sa = max_l(ALL(1), min_l(ALL(p), range_of(next(st, live), ALL(1), budget - 1)));
    vl sb = max_l(ALL(1), min_l(ALL(p), budget - sa));
    vl sign_a = forced[0] >= 0 ? ALL(-(int64_t)forced[0]) : flag(next(st, live), 63);
    vu a = value_bits_lanes(F, sign_a, ea, p - sa, next(st, live), true);
    vl sign_b = forced[1] >= 0 ? ALL(-(int64_t)forced[1]) : flag(next(st, live), 63);
    vu b = value_bits_lanes(F, sign_b, eb, p - sb, next(st, live), true);
    vd x = lane_value(F, a) * lane_value(F, b);  /* exact: two significands of 24 bits at most */
    /* gen_addend_double: a zero or far product goes elsewhere (never, here). */
    vd ax = dabs(x);
    vl msb = dexp(ax);
    vl elsewhere = (x == 0) | (msb <= -900) | (msb >= 900) | (lo > hi);
    /* aimed()'s coin, then keep_shape with no offset and no binade shift. */
    next(st, live);
    vl u = unit_exp(F, msb);
    vl j = range_of(next(st, live), ALL(-1), ALL(1));
    vd head = floor_to(ax, u), ju = to_double(j) * pow2(u);
    vd tt = head + ju;
    vl exact = exact_sum(head, ju, tt);
    vl ut = pick(tt != 0, unit_exp(F, dexp(tt)), u);
    vd half = pow2(ut - 1), steps = ju + half;
    exact &= exact_sum(ju, half, steps);
    vd nh = -head, inner = ax + nh;
    exact &= exact_sum(ax, nh, inner);
    vd ninner = -inner, rest = ZERO_D + ninner;
    exact &= exact_sum(ZERO_D, ninner, rest);
    /* finish(): y = steps + rest with x's sign, exact, and a value of F. */
    vl negative = x < 0;
    vd v = pickd(negative, -steps, steps), mx = pickd(negative, -rest, rest), y = v + mx;
    vl ok;
    vu c = double_bits(F, y, &ok);
    out[0] = a, out[1] = b, out[2] = c;
    *scalar = live & (elsewhere | ~exact);
    *made = live & ~*scalar & exact_sum(v, mx, y) & ok;
}

/* One attempt a case; outcome[k] says how it went (AIMED_*), and an
 * AIMED_SCALAR case's stream is where it stood before. */
LANES void aimed_attempts(lane_format F, const int forced[3], gen_rng *rng, const uint32_t *which, size_t n,
                          uint64_t (*v)[3], uint8_t *outcome)
{
    uint64_t state[CLOSED_LANES_MAX + LANES_N - 1], before[CLOSED_LANES_MAX + LANES_N - 1];
    gather_states(rng, which, NULL, n, state);
    memcpy(before, state, sizeof state);
    for (size_t i = 0; i < n; i += LANES_N) {
        size_t lanes = n - i < LANES_N ? n - i : LANES_N;
        streams st = group_streams(state + i, lanes);
        vu out[3];
        vl made, scalar;
        aimed_attempt(F, forced, &st, out, &made, &scalar);
        ungroup_streams(&st, state + i);
        for (size_t j = 0; j < lanes; j++) {
            outcome[i + j] = scalar[j] ? AIMED_SCALAR : made[j] ? AIMED_MADE : AIMED_MISSED;
            state[i + j] = scalar[j] ? before[i + j] : state[i + j];
            v[i + j][0] = out[0][j], v[i + j][1] = out[1][j], v[i + j][2] = out[2][j];
        }
    }
    scatter_states(rng, which, NULL, n, state);
}

LANES_ENTRY void aimed_f32(const int forced[3], gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3],
                           uint8_t *outcome)
{
    aimed_attempts(F32, forced, rng, which, n, v, outcome);
}

LANES_ENTRY void aimed_f16(const int forced[3], gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3],
                           uint8_t *outcome)
{
    aimed_attempts(F16, forced, rng, which, n, v, outcome);
}

void LANES_API(rdna2_subnormal_aimed_lanes)(const rdna2_lane *s, gen_rng *rng, const uint32_t *which, size_t n,
                                            uint64_t (*v)[3], uint8_t *outcome)
{
    for (size_t first = 0; first < n; first += CLOSED_LANES_MAX) {
        size_t m = n - first < CLOSED_LANES_MAX ? n - first : CLOSED_LANES_MAX;
        if (s->dest == &fp_f32)
            aimed_f32(s->forced_sign, rng, which + first, m, v + first, outcome + first);
        else
            aimed_f16(s->forced_sign, rng, which + first, m, v + first, outcome + first);
    }
}

/* The plain names, in the narrow build: the wide build's where the host has
 * AVX-512 (lanes.h), and which lanes the entry points take. */
#ifndef LANES_WIDE
bool rdna2_subnormal_operands_lanes_cover(const rdna2_lane *s)
{
    return f16_or_f32(s->fmt[0]) && f16_or_f32(s->fmt[1]) && f16_or_f32(s->fmt[2]);
}

void rdna2_subnormal_operands_lanes(const rdna2_lane *s, gen_rng *rng, const uint32_t *which, size_t n,
                                    uint64_t (*v)[3])
{
    LANES_PICK(rdna2_subnormal_operands_lanes)(s, rng, which, n, v);
}

void rdna2_subnormal_grid_lanes(const fp_format *f, gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3],
                                bool *ok)
{
    LANES_PICK(rdna2_subnormal_grid_lanes)(f, rng, which, n, v, ok);
}

/* f32 throughout, and K as b a finite, nonzero f32 whose leading bit is at
 * 2^21 or below (above, the scalar design gives up before any draw). */
bool rdna2_subnormal_sum_lanes_cover(const rdna2_lane *s)
{
    bool f32 = s->dest == &fp_f32 && s->fmt[0] == &fp_f32 && s->fmt[1] == &fp_f32 && s->fmt[2] == &fp_f32;
    if (!f32 || s->fixed == 0 || s->fixed == 2)
        return false;
    if (s->fixed < 0)
        return true;
    int e = k_field_exp(s->fixed_bits);
    return e > -127 && e <= 21;
}

void rdna2_subnormal_sum_lanes(const rdna2_lane *s, gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3],
                               bool *ok)
{
    LANES_PICK(rdna2_subnormal_sum_lanes)(s, rng, which, n, v, ok);
}

/* One format throughout, f32 or f16, fused, no literal: where the near
 * tie's branch of aimed() cannot be taken (its offsets off c's grid). */
bool rdna2_subnormal_aimed_lanes_cover(const rdna2_lane *s)
{
    const fp_format *f = s->dest;
    return (f == &fp_f32 || f == &fp_f16) && s->fmt[0] == f && s->fmt[1] == f && s->fmt[2] == f && s->fixed < 0 &&
           !s->unfused && !gen_subnormal_near_fits(f, f);
}

void rdna2_subnormal_aimed_lanes(const rdna2_lane *s, gen_rng *rng, const uint32_t *which, size_t n, uint64_t (*v)[3],
                                 uint8_t *outcome)
{
    LANES_PICK(rdna2_subnormal_aimed_lanes)(s, rng, which, n, v, outcome);
}
#endif
