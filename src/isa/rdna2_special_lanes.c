/* The special class's design (rdna2_construct.c's design_special), a
 * vector of cases at a time: same cases, bit for bit, as the scalar design
 * called on each (test construct-many holds a block's cases to construct's,
 * case by case). */
#include "rdna2_lanes_kit.h"

/* Each source one of gen_special_kind's kinds two times in three, else a
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
/* The plain names, in the narrow build: the wide build's where the host has
 * AVX-512 (lanes.h), and which lanes the entry points take. */
#ifndef LANES_WIDE
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
#endif
