/* fp_fast_fma16_once_lanes (float lanes) against fp_fast_fma_half_lanes
 * rounding to odd (double lanes, which fast-verdicts holds to the exact
 * model), its subnormal halves marked as its caller marks them: every
 * field of every lane the same, on f16 triples drawn to reach each path: any bits (NaNs, infinities, zeros, subnormals), and
 * significands cut short, so that sums land exactly on ties and near them,
 * cancel to zero, overflow and go tiny.  Lane counts that are not a whole
 * vector exercise the padded tail.  Run in both lane builds (meson.build).
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

int main(void)
{
    const char *env = getenv("TIEFUZZ_HALF_LANES_CASES");
    unsigned long cases = env ? strtoul(env, NULL, 10) : 16000000, differ = 0, ties = 0, nears = 0;
    gen_rng r = gen_rng_for(7, 0, 0);
    static uint16_t h[3][BLOCK];
    static uint32_t f[3][BLOCK];
    static fp_fma_lane once[BLOCK], odd[BLOCK];
    for (unsigned long first = 0; first < cases; first += BLOCK) {
        size_t m = cases - first < BLOCK ? cases - first : BLOCK;
        m -= (first / BLOCK) % 7;  /* odd counts: the tails */
        for (size_t t = 0; t < m; t++)
            for (int i = 0; i < 3; i++)
                h[i][t] = draw_half(&r);
        for (int i = 0; i < 3; i++)
            fp_fast_f16_to_f32_array(h[i], f[i], m);
        fp_fast_fma16_once_lanes(f[0], f[1], f[2], m, once);
        fp_fast_fma_half_lanes(f[0], f[1], f[2], m, true, odd);
        for (size_t t = 0; t < m; t++)  /* the double lanes' caller marks subnormal halves */
            for (int i = 0; i < 3; i++)
                if ((h[i][t] & 0x7c00) == 0 && (h[i][t] & 0x3ff) != 0)
                    odd[t].flags |= FP_LANE_SUBNORMAL_SOURCE;
        for (size_t t = 0; t < m; t++) {
            ties += (odd[t].flags & FP_LANE_TIE) != 0;
            nears += (odd[t].flags & FP_LANE_NEAR) != 0;
            if (!memcmp(&once[t], &odd[t], sizeof once[t]))
                continue;
            if (differ++ < 5)
                CHECK(0,
                      "%04x*%04x+%04x: float lanes bits %04x unit %d msb %d big %d flags %#x, "
                      "double lanes %04x %d %d %d %#x",
                      h[0][t], h[1][t], h[2][t], once[t].bits, once[t].ulp_exp, once[t].msb, once[t].big,
                      once[t].flags, odd[t].bits, odd[t].ulp_exp, odd[t].msb, odd[t].big, odd[t].flags);
        }
    }
    CHECK(differ == 0, "%lu of %lu lanes differ", differ, cases);
    /* The draws reach the paths that matter (about one in forty a tie). */
    CHECK(ties > cases / 50 && nears > cases / 1000, "only %lu ties and %lu near ties in %lu lanes", ties, nears,
          cases);
    printf("%lu lanes, %lu ties, %lu near ties, %s lanes\n", cases, ties, nears,
           fp_lanes_wide() ? "wide" : "narrow");
    return check_report("half-lanes");
}
