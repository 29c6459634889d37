/* fp_fast_fma16_lanes (float lanes) against fp_fast_fma_half_lanes
 * (double lanes, which fast-verdicts holds to the exact model), rounding to
 * odd and to nearest at f32, and fp_fast_fma32_halves_lanes (float lanes)
 * against fp_fast_fma32_lanes (double lanes), the double lanes' subnormal
 * halves marked as their caller marks them: every field of every lane the
 * same, on f16 triples drawn to reach each path: any bits (NaNs, infinities, zeros, subnormals), and
 * significands cut short, so that sums land exactly on ties and near them,
 * cancel to zero, overflow and go tiny.  Lane counts that are not a whole
 * vector exercise the padded tail.  Run in both lane builds (meson.build;
 * on a host without AVX-512 both runs take the narrow one).
 * TIEFUZZ_HALF_LANES_CASES sets the triples (default 16M). */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fp/fast.h"
#include "gen/gen.h"

enum { BLOCK = 1000 };  /* not a multiple of any lane count */

/* A half: any bits, or a short significand and an exponent near one of a
 * few spots (tiny, one, the top), so that products and sums line up. */
static uint16_t draw_half(gen_rng *r)
{
    uint64_t d = gen_next(r);
    uint16_t h = (uint16_t)d;
    switch ((d >> 16) & 3) {
    case 0:
        return h;  /* any bits */
    case 1:
        return (uint16_t)(h & ~((1u << ((d >> 20) % 11)) - 1));  /* low significand bits cleared */
    default: {
        static const int spots[] = {1, 4, 15, 20, 27, 30};
        int e = spots[(d >> 24) % 6] + (int)((d >> 28) % 5) - 2;
        uint16_t sig = (uint16_t)(h & 0x3ff & ~((1u << ((d >> 32) % 11)) - 1));
        return (uint16_t)((h & 0x8000) | (uint16_t)(e < 0 ? 0 : e > 31 ? 31 : e) << 10 | sig);
    }
    }
}

/* The double lanes' caller's mark of subnormal halves, on lane t of l. */
static void mark_subnormal_halves(fp_fma_lane *l, uint16_t h[3][BLOCK], size_t t)
{
    for (int i = 0; i < 3; i++)
        if ((h[i][t] & 0x7c00) == 0 && (h[i][t] & 0x3ff) != 0)
            l[t].flags |= FP_LANE_SUBNORMAL_SOURCE;
}

/* Lanes t of floats and doubles against each other (the doubles marked
 * first, as their caller marks them), counted into *ties and *nears (the
 * double lanes'); a difference counted into *differ, the first five said. */
static void compare_lane(uint16_t h[3][BLOCK], size_t t, const char *how, const fp_fma_lane *floats,
                         fp_fma_lane *doubles, unsigned long *ties, unsigned long *nears, unsigned long *differ)
{
    mark_subnormal_halves(doubles, h, t);
    *ties += (doubles[t].flags & FP_LANE_TIE) != 0;
    *nears += (doubles[t].flags & FP_LANE_NEAR) != 0;
    if (!memcmp(&floats[t], &doubles[t], sizeof floats[t]))
        return;
    if ((*differ)++ < 5)
        CHECK(0,
              "%04x*%04x+%04x (%s): float lanes bits %08x unit %d msb %d big %d flags %#x, "
              "double lanes %08x %d %d %d %#x",
              h[0][t], h[1][t], h[2][t], how, floats[t].bits, floats[t].ulp_exp, floats[t].msb, floats[t].big,
              floats[t].flags, doubles[t].bits, doubles[t].ulp_exp, doubles[t].msb, doubles[t].big, doubles[t].flags);
}

int main(void)
{
    const char *env = getenv("TIEFUZZ_HALF_LANES_CASES");
    unsigned long cases = env ? strtoul(env, NULL, 10) : 16000000, drawn = 0, differ = 0, ties = 0, nears = 0;
    unsigned long differ32 = 0, ties32 = 0, nears32 = 0;
    gen_rng r = gen_rng_for(7, 0, 0);
    static uint16_t h[3][BLOCK];
    static uint32_t f[3][BLOCK];
    static fp_fma_lane floats[BLOCK], doubles[BLOCK];
    for (unsigned long first = 0; first < cases; first += BLOCK) {
        size_t m = cases - first < BLOCK ? cases - first : BLOCK, cut = (first / BLOCK) % 7;
        m -= m > cut ? cut : 0;  /* odd counts: the tails */
        drawn += m;
        for (size_t t = 0; t < m; t++)
            for (int i = 0; i < 3; i++)
                h[i][t] = draw_half(&r);
        for (int i = 0; i < 3; i++)
            fp_fast_f16_to_f32_array(h[i], f[i], m);
        for (int odd = 0; odd < 2; odd++) {
            fp_fast_fma16_lanes(f[0], f[1], f[2], m, odd, floats);
            fp_fast_fma_half_lanes(f[0], f[1], f[2], m, odd, doubles);
            for (size_t t = 0; t < m; t++)
                compare_lane(h, t, odd ? "to odd" : "to nearest", floats, doubles, &ties, &nears, &differ);
        }
        fp_fast_fma32_halves_lanes(f[0], f[1], f[2], m, floats);
        fp_fast_fma32_lanes(f[0], f[1], f[2], m, doubles);
        for (size_t t = 0; t < m; t++)
            compare_lane(h, t, "to f32", floats, doubles, &ties32, &nears32, &differ32);
    }
    CHECK(differ == 0, "%lu of %lu lanes differ (each triple rounded both ways)", differ, 2 * drawn);
    CHECK(differ32 == 0, "%lu of %lu lanes rounded to f32 once differ", differ32, drawn);
    CHECK(ties32 > drawn / 200 && nears32 > drawn / 2000, "only %lu f32 ties and %lu near ties in %lu triples", ties32,
          nears32, drawn);
    /* The draws reach the paths that matter (about one in forty a tie). */
    CHECK(ties > drawn / 50 && nears > drawn / 1000, "only %lu ties and %lu near ties in %lu triples", ties, nears,
          drawn);
    printf("%lu triples rounded both ways, %lu ties, %lu near ties; to f32 once, %lu ties, %lu near ties; %s lanes\n",
           drawn, ties, nears, ties32, nears32, fp_lanes_wide() ? "wide" : "narrow");
    return check_report("half-lanes");
}
