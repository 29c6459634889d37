/* The closed-form designs four cases at a time (rdna2_closed_lanes) against
 * the scalar ones (rdna2_closed_design), which they must equal bit for bit:
 * the same values, the same success, and each case's stream left at the
 * same state.  Every lane the designs cover (f32 and f16, fused and f32
 * unfused; f32 with the literal K as b, and as c, for Ks of every shape below (and
 * subnormal Ks as c, fused); every
 * mix of f32 and f16 sources and result, fused, as the MIX forms make), each
 * covered class, every combination of the signs abs and neg can force, and
 * cases gathered out of order in counts that do not fill the last four
 * lanes.  TIEFUZZ_CLOSED_CASES sets the cases per combination (default
 * 8,000; a quarter of that per K, half per mix of formats). */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "gen/gen.h"
#include "isa/rdna2.h"

enum { MAX_CASES = 1 << 16 };

static gen_rng scalar_rng[MAX_CASES], lane_rng[MAX_CASES];
static uint64_t scalar_v[MAX_CASES][3], lane_v[MAX_CASES][3];
static bool scalar_ok[MAX_CASES], lane_ok[MAX_CASES];
static uint32_t which[MAX_CASES];

static unsigned long compare(const rdna2_lane *lane, gen_class c, size_t n, uint64_t seed)
{
    /* Streams for 2n cases; the designs take every other one, from the end. */
    for (size_t i = 0; i < 2 * n; i++)
        scalar_rng[i] = lane_rng[i] = gen_rng_for(seed, c, i);
    for (size_t k = 0; k < n; k++)
        which[k] = (uint32_t)(2 * (n - 1 - k) + 1);
    rdna2_closed_lanes(lane, c, lane_rng, which, n, lane_v, lane_ok);
    unsigned long differ = 0;
    for (size_t k = 0; k < n; k++) {
        gen_rng *r = &scalar_rng[which[k]];
        memset(scalar_v[k], 0, sizeof scalar_v[k]);
        scalar_ok[k] = rdna2_closed_design(lane, c, r, scalar_v[k]);
        bool same = scalar_ok[k] == lane_ok[k] && r->s == lane_rng[which[k]].s &&
                    (!scalar_ok[k] || !memcmp(scalar_v[k], lane_v[k], sizeof scalar_v[k]));
        if (!same && differ++ < 3)
            CHECK(0, "%s %s %s -> %s%s K %llx class %d signs %d %d %d, case %u: ok %d/%d, v %llx %llx %llx / %llx %llx %llx",
                  lane->fmt[0]->name, lane->fmt[1]->name, lane->fmt[2]->name, lane->dest->name,
                  lane->unfused ? " unfused" : "",
                  lane->fixed >= 1 ? (unsigned long long)lane->fixed_bits : 0ull, (int)c, lane->forced_sign[0],
                  lane->forced_sign[1], lane->forced_sign[2], which[k], scalar_ok[k],
                  lane_ok[k], (unsigned long long)scalar_v[k][0], (unsigned long long)scalar_v[k][1],
                  (unsigned long long)scalar_v[k][2], (unsigned long long)lane_v[k][0],
                  (unsigned long long)lane_v[k][1], (unsigned long long)lane_v[k][2]);
    }
    /* The streams the designs did not take are untouched. */
    for (size_t i = 0; i < 2 * n; i += 2)
        if (lane_rng[i].s != scalar_rng[i].s && differ++ < 3)
            CHECK(0, "stream %zu moved", i);
    return differ;
}

/* Every covered class of a lane, under every combination of forced signs. */
static void compare_lane(rdna2_lane lane, size_t n, unsigned long *differ, unsigned long *combos,
                         unsigned long *failed, unsigned long *total)
{
    static const gen_class classes[] = {GEN_TIE, GEN_NEAR_TIE, GEN_CANCEL, GEN_OVERFLOW, GEN_DOUBLE_ROUND};
    lane.closed = rdna2_closed_mask(&lane);
    for (size_t ci = 0; ci < sizeof classes / sizeof classes[0]; ci++) {
        if (!rdna2_closed_lanes_cover(&lane, classes[ci]))
            continue;
        for (int signs = 0; signs < 27; signs++) {
            for (int i = 0; i < 3; i++)
                lane.forced_sign[i] = signs / (i == 0 ? 1 : i == 1 ? 3 : 9) % 3 - 1;
            *differ += compare(&lane, classes[ci], n, 1000 + (uint64_t)signs + lane.fixed_bits);
            for (size_t k = 0; k < n; k++)
                *failed += !lane_ok[k];
            *total += n;
            (*combos)++;
        }
    }
}

int main(void)
{
    const char *env = getenv("TIEFUZZ_CLOSED_CASES");
    size_t n = env ? strtoul(env, NULL, 10) : 8000;
    if (n < 1 || n > MAX_CASES / 2)
        n = 8000;
    n |= 3;  /* never a whole number of fours */
    const fp_format *formats[2] = {&fp_f32, &fp_f16};
    unsigned long differ = 0, combos = 0, failed = 0, total = 0;
    for (int fi = 0; fi < 2; fi++)
        for (int unfused = 0; unfused < 2; unfused++) {
            const fp_format *f = formats[fi];
            compare_lane((rdna2_lane){.fmt = {f, f, f}, .dest = f, .unfused = unfused, .fixed = -1}, n, &differ,
                         &combos, &failed, &total);
        }
    CHECK(combos == (5 + 5 + 4) * 27, "%lu combinations covered without K", combos);
    /* K as b (V_FMAMK_F32, V_MADMK_F32): a power of two, short and full
     * significands, both signs, large and small (the products' binades
     * clipped to a's range shifted by K's), the smallest normal. */
    static const uint32_t ks[] = {0x3f800000u, 0xbd800000u, 0x3fc00000u, 0xbf70c000u, 0x49400000u,
                                  0xc3d0d6b8u, 0x36de2c3au, 0x7e967699u, 0x00800000u, 0x80ffffffu};
    /* The same Ks as c (V_FMAAK_F32, V_MADAK_F32): every class of the five,
     * fused and unfused (double-round for every K: the product, not K, is
     * inexact).  Some Ks leave a class few sums in reach (a tiny K's ties
     * need a product of its size, which the legacy forms flush): the cases
     * without a design are counted apart (index 1 below, K as b index 0),
     * and must match the scalar design's as every other case does. */
    unsigned long kx_combos[2] = {0}, kx_failed[2] = {0}, kx_total[2] = {0};
    for (int at = 1; at <= 2; at++)
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
            for (int unfused = 0; unfused < 2; unfused++)
                compare_lane((rdna2_lane){.fmt = {&fp_f32, &fp_f32, &fp_f32}, .dest = &fp_f32, .unfused = unfused,
                                          .fixed = at, .fixed_bits = ks[ki]},
                             n / 4 | 3, &differ, &kx_combos[at - 1], &kx_failed[at - 1], &kx_total[at - 1]);
    /* Every normal K as b takes the overflow class, a K under 2^-1 too
     * (no a puts its product in the top two binades: c takes the sum
     * there).  Until 2026-12 those went to the generic design, at nearly
     * three times the instructions a case. */
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
        for (int unfused = 0; unfused < 2; unfused++) {
            rdna2_lane lane = {.fmt = {&fp_f32, &fp_f32, &fp_f32}, .dest = &fp_f32, .unfused = unfused, .fixed = 1,
                               .fixed_bits = ks[ki]};
            CHECK(rdna2_closed_covers(&lane, GEN_OVERFLOW), "K %08x as b (%s): the overflow class not closed",
                  (unsigned)ks[ki], unfused ? "unfused" : "fused");
        }
    /* A subnormal K as c where it is not flushed (V_FMAAK_F32; the legacy
     * forms flush it: the generic design's, no combination here). */
    static const uint32_t sub_ks[] = {0x007fffffu, 0x80000001u, 0x00400000u, 0x80123457u};
    unsigned long ks_combos[2] = {0}, ks_failed = 0, ks_total = 0;
    for (size_t ki = 0; ki < sizeof sub_ks / sizeof sub_ks[0]; ki++)
        for (int unfused = 0; unfused < 2; unfused++)
            compare_lane((rdna2_lane){.fmt = {&fp_f32, &fp_f32, &fp_f32}, .dest = &fp_f32, .unfused = unfused,
                                      .fixed = 2, .fixed_bits = sub_ks[ki]},
                         n / 4 | 3, &differ, &ks_combos[unfused], &ks_failed, &ks_total);
    CHECK(ks_combos[0] == sizeof sub_ks / sizeof sub_ks[0] * 5 * 27 && ks_combos[1] == 0,
          "subnormal K as c: %lu combinations fused, %lu unfused", ks_combos[0], ks_combos[1]);
    CHECK(ks_failed * 100 < ks_total, "subnormal K as c: %lu of %lu cases without a design", ks_failed, ks_total);
    unsigned long k_combos = kx_combos[0], k_failed = kx_failed[0], k_total = kx_total[0];
    unsigned long kc_combos = kx_combos[1], kc_failed = kx_failed[1], kc_total = kx_total[1];
    /* Sources and result of f32 and f16 mixed, fused (the MIX forms): each
     * mix takes tie and cancel at least (overflow where the product reaches
     * the result's top, near-tie an f16 c of an f16 result, double-round a
     * product f32 cannot hold, to f32). */
    unsigned long mix_combos = 0, mix_failed = 0, mix_total = 0;
    for (int mix = 0; mix < 16; mix++) {
        const fp_format *f[4];
        for (int i = 0; i < 4; i++)
            f[i] = formats[(mix >> i) & 1];
        if (f[0] == f[3] && f[1] == f[3] && f[2] == f[3])
            continue;  /* uniform: above */
        unsigned long before = mix_combos;
        compare_lane((rdna2_lane){.fmt = {f[0], f[1], f[2]}, .dest = f[3], .fixed = -1}, n / 2 | 3, &differ,
                     &mix_combos, &mix_failed, &mix_total);
        CHECK(mix_combos - before >= 2 * 27, "%s %s %s -> %s: %lu combinations", f[0]->name, f[1]->name,
              f[2]->name, f[3]->name, mix_combos - before);
        if (f[3] == &fp_f16 && f[2] == &fp_f32) {
            /* A MIX f16 form's record rounds the sum to f32 first: its near
             * ties under an f32 c, aimed from the product rounded so, are
             * the closed design's (since 2026-12; the generic design's
             * before, at 2.6 times the instructions a case). */
            rdna2_lane twice = {.fmt = {f[0], f[1], f[2]}, .dest = f[3], .fixed = -1, .rounds_twice = true};
            CHECK(rdna2_closed_covers(&twice, GEN_NEAR_TIE), "%s %s %s -> %s rounding twice: near ties not closed",
                  f[0]->name, f[1]->name, f[2]->name, f[3]->name);
            compare_lane(twice, n / 2 | 3, &differ, &mix_combos, &mix_failed, &mix_total);
        }
    }
    CHECK(differ == 0, "%lu cases differ", differ);
    CHECK(mix_failed * 100 < mix_total, "mixed formats: %lu of %lu cases without a design", mix_failed, mix_total);
    /* Every K takes tie, near-tie and cancel (fused and unfused); the powers of two no double rounding. */
    CHECK(k_combos >= sizeof ks / sizeof ks[0] * 2 * 3 * 27, "%lu combinations with K", k_combos);
    /* Some attempts fail (an addend the format cannot hold), but few cases run out of attempts. */
    CHECK(failed * 1000 < total, "%lu of %lu cases without a design", failed, total);
    CHECK(k_failed * 1000 < k_total, "with K: %lu of %lu cases without a design", k_failed, k_total);
    CHECK(kc_combos == sizeof ks / sizeof ks[0] * 2 * 5 * 27, "%lu combinations with K as c", kc_combos);
    /* 115,647 of 5,408,100 (2.1%) at 8,000 cases: the scalar design's own misses, mostly the legacy forms' tiny Ks. */
    CHECK(kc_failed * 100 < 3 * kc_total, "K as c: %lu of %lu cases without a design", kc_failed, kc_total);
    printf("closed lanes: %lu combinations, %lu cases, %lu without a design; with K: %lu combinations, %lu cases, "
           "%lu without a design; K as c: %lu combinations, %lu cases, %lu without a design (subnormal Ks: %lu, "
           "%lu, %lu); mixed formats: %lu combinations, %lu cases, %lu without a design; %lu differ\n",
           combos, total, failed, k_combos, k_total, k_failed, kc_combos, kc_total, kc_failed, ks_combos[0], ks_total,
           ks_failed, mix_combos, mix_total, mix_failed, differ);
    return check_report("closed-lanes");
}
