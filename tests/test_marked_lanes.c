/* fp/marked_lanes: packing the marked lanes of a block and putting results
 * back, both ways (a lane at a time, and AVX-512's compress and expand
 * where the CPU has them) against a plain reference, over block lengths
 * around multiples of sixteen and marks from none to all.  The file is
 * included whole so that both of its paths are reachable. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fp/marked_lanes.c"

enum { MAX = 600, GUARD = 0x5eed5eedu };
typedef size_t pack_fn(const uint8_t *, size_t, size_t, const uint32_t *const *, uint32_t *const *);
typedef void unpack_fn(const uint8_t *, size_t, const uint32_t *, uint32_t *);

static uint64_t rng = 88172645463325252ull;
static uint32_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* One block: m lanes, each marked with probability per_64 / 64. */
static void one_block(const char *way, pack_fn *pack, unpack_fn *unpack, size_t m, unsigned per_64, size_t width)
{
    static uint32_t from[4][MAX], to[4][MAX + FP_MARKED_SLACK + 1], out[MAX + 1], want[MAX + 1];
    static uint8_t mark[MAX];
    size_t marked = 0;
    for (size_t t = 0; t < m; t++) {
        mark[t] = (next() & 63) < per_64;
        marked += mark[t];
        for (size_t i = 0; i < 4; i++)
            from[i][t] = next();
        out[t] = want[t] = next();
    }
    out[m] = want[m] = GUARD;
    for (size_t i = 0; i < 4; i++)
        to[i][m + FP_MARKED_SLACK] = GUARD;
    size_t k = pack(mark, m, width, (const uint32_t *const[4]){from[0], from[1], from[2], from[3]},
                    (uint32_t *const[4]){to[0], to[1], to[2], to[3]});
    CHECK(k == marked, "%s: m %zu, %u/64 marked: packed %zu of %zu", way, m, per_64, k, marked);
    size_t bad = 0, j = 0;
    for (size_t t = 0; t < m && k == marked; t++)
        if (mark[t]) {
            for (size_t i = 0; i < width; i++)
                bad += to[i][j] != from[i][t];
            want[t] = to[0][j] ^ 0xa5a5a5a5u;  /* a result for the lane */
            j++;
        }
    for (size_t i = 0; i < 4; i++)
        bad += to[i][m + FP_MARKED_SLACK] != GUARD;
    CHECK(bad == 0, "%s: m %zu, %u/64 marked, width %zu: %zu lanes packed wrong or past the slack", way, m,
          per_64, width, bad);
    for (size_t j2 = 0; j2 < k; j2++)
        to[0][j2] ^= 0xa5a5a5a5u;
    unpack(mark, m, to[0], out);
    size_t wrong = 0;
    for (size_t t = 0; t <= m; t++)
        wrong += out[t] != want[t];
    CHECK(wrong == 0, "%s: m %zu, %u/64 marked: %zu lanes wrong after unpacking (or past m)", way, m, per_64,
          wrong);
}

static void every_block(const char *way, pack_fn *pack, unpack_fn *unpack)
{
    static const size_t lengths[] = {0, 1, 2, 15, 16, 17, 31, 32, 33, 100, 511, 512, 600};
    static const unsigned densities[] = {0, 1, 11, 32, 63, 64};
    for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++)
        for (size_t d = 0; d < sizeof densities / sizeof *densities; d++)
            for (size_t width = 1; width <= 4; width++)
                for (int rep = 0; rep < 8; rep++)
                    one_block(way, pack, unpack, lengths[l], densities[d], width);
}

int main(void)
{
    every_block("one by one", pack_one_by_one, unpack_one_by_one);
    every_block("fp_pack_marked", fp_pack_marked, fp_unpack_marked);
#if defined(__x86_64__)
    if (have_avx512())
        every_block("by sixteen", pack_by_sixteen, unpack_by_sixteen);
    printf("marked-lanes: AVX-512 path %s\n", have_avx512() ? "checked" : "not on this CPU (the portable one is used)");
#endif
    return check_report("marked-lanes");
}
