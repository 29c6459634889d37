/* fp/marked_lanes: packing the marked lanes of a block and putting results
 * back, both ways (a lane at a time, and AVX-512's compress and expand
 * where the CPU has them) against a plain reference, over block lengths
 * around multiples of sixteen, marks from none to all, and one to six
 * arrays (past four, fp_pack_marked goes a lane at a time).  Every array a
 * call reads or writes ends where an unreadable page begins, so a load or
 * store past its end (an unmasked vector load, say) faults and the test
 * fails.  The file is included whole so that both of its paths are
 * reachable. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"
#include "fp/marked_lanes.c"

enum { MAX = 600, WIDTH_MAX = 6 };
typedef size_t pack_fn(const uint8_t *, size_t, size_t, const uint32_t *const *, uint32_t *const *);
typedef void unpack_fn(const uint8_t *, size_t, const uint32_t *, uint32_t *);

static uint64_t rng = 88172645463325252ull;
static uint32_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* A region of at least `bytes` followed by a page no one may touch; its
 * end, for arrays placed to end there. */
static char *guarded_end(size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), len = (bytes + page - 1) / page * page;
    char *base = mmap(NULL, len + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED || mprotect(base + len, page, PROT_NONE) != 0) {
        perror("marked-lanes: mmap");
        exit(1);
    }
    return base + len;
}

/* The guarded places the calls see: n words (or bytes) ending at a guard page. */
static struct {
    char *mark, *from[WIDTH_MAX], *to[WIDTH_MAX], *results, *out;
} g;

static void make_guarded(void)
{
    g.mark = guarded_end(MAX);
    for (size_t i = 0; i < WIDTH_MAX; i++) {
        g.from[i] = guarded_end(MAX * 4);
        g.to[i] = guarded_end((MAX + FP_MARKED_SLACK) * 4);
    }
    g.results = guarded_end(MAX * 4);
    g.out = guarded_end(MAX * 4);
}

static void *words_at(char *end, size_t n) { return end - n * 4; }

/* One block: m lanes, each marked with probability per_64 / 64. */
static void one_block(const char *way, pack_fn *pack, unpack_fn *unpack, size_t m, unsigned per_64, size_t width)
{
    static uint32_t want[MAX];
    uint8_t *mark = (uint8_t *)g.mark - m;
    uint32_t *gfrom[WIDTH_MAX], *gto[WIDTH_MAX], *out = words_at(g.out, m);
    size_t marked = 0;
    for (size_t i = 0; i < WIDTH_MAX; i++)
        gfrom[i] = words_at(g.from[i], m), gto[i] = words_at(g.to[i], m + FP_MARKED_SLACK);
    for (size_t t = 0; t < m; t++) {
        mark[t] = (next() & 63) < per_64;
        marked += mark[t];
        for (size_t i = 0; i < WIDTH_MAX; i++)
            gfrom[i][t] = next();
        out[t] = want[t] = next();
    }
    size_t k = pack(mark, m, width, (const uint32_t *const *)gfrom, gto);
    CHECK(k == marked, "%s: m %zu, %u/64 marked: packed %zu of %zu", way, m, per_64, k, marked);
    uint32_t *results = words_at(g.results, k);  /* the packed results alone, ending at the guard */
    size_t bad = 0, j = 0;
    for (size_t t = 0; t < m && k == marked; t++)
        if (mark[t]) {
            for (size_t i = 0; i < width; i++)
                bad += gto[i][j] != gfrom[i][t];
            want[t] = results[j] = gto[0][j] ^ 0xa5a5a5a5u;  /* a result for the lane */
            j++;
        }
    CHECK(bad == 0, "%s: m %zu, %u/64 marked, width %zu: %zu lanes packed wrong", way, m, per_64, width, bad);
    unpack(mark, m, results, out);
    size_t wrong = 0;
    for (size_t t = 0; t < m; t++)
        wrong += out[t] != want[t];
    CHECK(wrong == 0, "%s: m %zu, %u/64 marked: %zu lanes wrong after unpacking", way, m, per_64, wrong);
}

static void every_block(const char *way, pack_fn *pack, unpack_fn *unpack, size_t widest)
{
    static const size_t lengths[] = {0, 1, 2, 15, 16, 17, 31, 32, 33, 100, 511, 512, 600};
    static const unsigned densities[] = {0, 1, 11, 32, 63, 64};
    for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++)
        for (size_t d = 0; d < sizeof densities / sizeof *densities; d++)
            for (size_t width = 1; width <= widest; width++)
                for (int rep = 0; rep < 8; rep++)
                    one_block(way, pack, unpack, lengths[l], densities[d], width);
}

int main(void)
{
    make_guarded();
    every_block("one by one", pack_one_by_one, unpack_one_by_one, WIDTH_MAX);
    every_block("fp_pack_marked", fp_pack_marked, fp_unpack_marked, WIDTH_MAX);
#if defined(__x86_64__)
    if (have_avx512())
        every_block("by sixteen", pack_by_sixteen, unpack_by_sixteen, 4);  /* its registers hold four arrays */
    printf("marked-lanes: AVX-512 path %s\n", have_avx512() ? "checked" : "not on this CPU (the portable one is used)");
#endif
    return check_report("marked-lanes");
}
