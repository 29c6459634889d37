/* The closed-form designs four cases at a time (rdna2_closed_lanes) against
 * the scalar ones (rdna2_closed_lane), which they must equal bit for bit:
 * the same values, the same success, and each case's stream left at the
 * same state.  Every lane the designs cover (f32 and f16, fused and f32
 * unfused), each covered class, every combination of the signs abs and neg
 * can force, and cases gathered out of order in counts that do not fill the
 * last four lanes.  TIEFUZZ_CLOSED_CASES sets the cases per combination
 * (default 8,000). */
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

static unsigned long compare(const fp_format *f, bool unfused, const int forced[3], gen_class c, size_t n,
                             uint64_t seed)
{
    /* Streams for 2n cases; the designs take every other one, from the end. */
    for (size_t i = 0; i < 2 * n; i++)
        scalar_rng[i] = lane_rng[i] = gen_rng_for(seed, c, i);
    for (size_t k = 0; k < n; k++)
        which[k] = (uint32_t)(2 * (n - 1 - k) + 1);
    rdna2_closed_lanes(f, unfused, forced, c, lane_rng, which, n, lane_v, lane_ok);
    unsigned long differ = 0;
    for (size_t k = 0; k < n; k++) {
        gen_rng *r = &scalar_rng[which[k]];
        memset(scalar_v[k], 0, sizeof scalar_v[k]);
        scalar_ok[k] = rdna2_closed_lane(f, unfused, forced, c, r, scalar_v[k]);
        bool same = scalar_ok[k] == lane_ok[k] && r->s == lane_rng[which[k]].s &&
                    (!scalar_ok[k] || !memcmp(scalar_v[k], lane_v[k], sizeof scalar_v[k]));
        if (!same && differ++ < 3)
            CHECK(0, "%s%s class %d signs %d %d %d, case %u: ok %d/%d, v %llx %llx %llx / %llx %llx %llx", f->name,
                  unfused ? " unfused" : "", (int)c, forced[0], forced[1], forced[2], which[k], scalar_ok[k],
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

int main(void)
{
    const char *env = getenv("TIEFUZZ_CLOSED_CASES");
    size_t n = env ? strtoul(env, NULL, 10) : 8000;
    if (n < 1 || n > MAX_CASES / 2)
        n = 8000;
    n |= 3;  /* never a whole number of fours */
    static const gen_class classes[] = {GEN_TIE, GEN_NEAR_TIE, GEN_CANCEL, GEN_OVERFLOW, GEN_DOUBLE_ROUND};
    const fp_format *formats[2] = {&fp_f32, &fp_f16};
    unsigned long differ = 0, combos = 0, failed = 0, total = 0;
    for (int fi = 0; fi < 2; fi++)
        for (int unfused = 0; unfused < 2; unfused++)
            for (size_t ci = 0; ci < sizeof classes / sizeof classes[0]; ci++) {
                const fp_format *f = formats[fi];
                rdna2_lane lane = {.fmt = {f, f, f}, .dest = f, .unfused = unfused, .fixed = -1,
                                   .forced_sign = {-1, -1, -1}};
                lane.closed = rdna2_closed_mask(&lane);
                if (!rdna2_closed_lanes_cover(&lane, classes[ci]))
                    continue;
                for (int signs = 0; signs < 27; signs++) {
                    int forced[3] = {signs % 3 - 1, signs / 3 % 3 - 1, signs / 9 - 1};
                    differ += compare(f, unfused, forced, classes[ci], n, 1000 + (uint64_t)signs);
                    for (size_t k = 0; k < n; k++)
                        failed += !lane_ok[k];
                    total += n;
                    combos++;
                }
            }
    CHECK(differ == 0, "%lu cases differ", differ);
    CHECK(combos == (5 + 4 + 4) * 27, "%lu combinations covered", combos);
    /* Some attempts fail (an addend the format cannot hold), but few cases run out of attempts. */
    CHECK(failed * 1000 < total, "%lu of %lu cases without a design", failed, total);
    printf("closed lanes: %lu combinations, %lu cases, %lu without a design, %lu differ\n", combos, total, failed,
           differ);
    return check_report("closed-lanes");
}
