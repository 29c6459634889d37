/* Many streams' next draws at once, as 32-bit words: what a block of
 * cases' first draws (their random words) take, one stream a case. */
#include "gen.h"

/* A case's words in a row from its stream.  Inlined with per a constant,
 * GCC makes the loop over the streams vector code that stores each case's
 * words together.  Drawn a word index at a time over every stream (as
 * until 2026-12-07), the words went out one 4-byte store each: 3.65 ns a
 * case for four words against 0.71, in a loop of its own on the AVX-512
 * development machine. */
static inline __attribute__((always_inline)) void draw_per(gen_rng *restrict r, size_t n, unsigned per,
                                                          uint32_t *restrict w)
{
    for (size_t i = 0; i < n; i++) {
        for (unsigned j = 0; j < per; j++)
            w[i * per + j] = (uint32_t)gen_peek(&r[i], j + 1);
        gen_skip(&r[i], per);
    }
}

/* Built for AVX-512, AVX2 and plain x86-64, the loader picking one: the
 * draws of different streams are independent, so the loop over the
 * streams is vector code, where a case at a time the two 64-bit
 * multiplies of each draw held v_fma_f16's random words (four a case) to
 * about eight cycles a case.  Static, with the exported name calling it:
 * clang 14 gives a non-static target_clones function no plain symbol
 * (fp/lanes.h's entry points do the same). */
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
static void draw_words(gen_rng *restrict r, size_t n, unsigned per, uint32_t *restrict w)
{
    switch (per) {
    case 1: draw_per(r, n, 1, w); return;
    case 2: draw_per(r, n, 2, w); return;
    case 3: draw_per(r, n, 3, w); return;
    case 4: draw_per(r, n, 4, w); return;
    default: draw_per(r, n, per, w); return;
    }
}

void gen_draw_words(gen_rng *r, size_t n, unsigned per, uint32_t *w) { draw_words(r, n, per, w); }

/* Streams r[at[0..m)] each take their next `per` draws into w[at[j] * per
 * ..]: the streams gathered into a chunk, drawn as draw_per draws, and the
 * words and states put back, per a constant of each use (a copy of a
 * varying length was a call to memcpy a case).  For the cases of a block
 * that are every p-th (rdna2_construct.c's random positions), whose words
 * drawn a case at a time were about a fifth of v_fma_f32's construct_block
 * (the two multiplies of each draw, perf). */
enum { AT_CHUNK = 256 };
static inline __attribute__((always_inline)) void draw_at_per(gen_rng *restrict r, const uint32_t *restrict at,
                                                             size_t m, unsigned per, uint32_t *restrict w)
{
    gen_rng s[AT_CHUNK];
    uint32_t d[AT_CHUNK * GEN_DRAW_AT_MAX];
    for (size_t first = 0; first < m; first += AT_CHUNK) {
        size_t k = m - first < AT_CHUNK ? m - first : AT_CHUNK;
        for (size_t j = 0; j < k; j++)
            s[j] = r[at[first + j]];
        draw_per(s, k, per, d);
        for (size_t j = 0; j < k; j++) {
            uint32_t i = at[first + j];
            r[i] = s[j];
            for (unsigned q = 0; q < per; q++)
                w[(size_t)i * per + q] = d[j * per + q];
        }
    }
}

__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
static void draw_words_at(gen_rng *restrict r, const uint32_t *restrict at, size_t m, unsigned per,
                          uint32_t *restrict w)
{
    switch (per) {
    case 3: draw_at_per(r, at, m, 3, w); return;
    case 4: draw_at_per(r, at, m, 4, w); return;
    default:
        if (per <= GEN_DRAW_AT_MAX) {
            draw_at_per(r, at, m, per, w);
            return;
        }
        for (size_t j = 0; j < m; j++)  /* wider than the chunk's words: a stream at a time */
            draw_per(&r[at[j]], 1, per, w + (size_t)at[j] * per);
    }
}

void gen_draw_words_at(gen_rng *r, const uint32_t *at, size_t m, unsigned per, uint32_t *w)
{
    draw_words_at(r, at, m, per, w);
}

/* The next k draws of streams r[at[0..m)] (m at most PEEK_CHUNK), draw q
 * (gen_peek's q + 1) of stream at[j] into d[q * stride + j]: the streams
 * gathered, then vector code as above. */
enum { PEEK_CHUNK = 256 };
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
static void peek_draws(const gen_rng *restrict r, const uint32_t *restrict at, size_t m, unsigned k, size_t stride,
                       uint64_t *restrict d)
{
    gen_rng s[PEEK_CHUNK];
    for (size_t j = 0; j < m; j++)
        s[j] = r[at[j]];
    for (unsigned q = 0; q < k; q++)
        for (size_t j = 0; j < m; j++)
            d[q * stride + j] = gen_peek(&s[j], q + 1);
}

void gen_peek_draws(const gen_rng *r, const uint32_t *at, size_t m, unsigned k, uint64_t *d)
{
    for (size_t first = 0; k && first < m; first += PEEK_CHUNK)
        peek_draws(r, at + first, m - first < PEEK_CHUNK ? m - first : PEEK_CHUNK, k, m, d + first);
}

/* A block's streams: gen_rng_for's first draw depends on the seed and the
 * stream alone, so a case's state is three operations on its index, a
 * vector of cases at a time (a case at a time, one 8-byte store each, about
 * a quarter of eng_make_cases's own time in a maxwell.imul_imm16 campaign,
 * perf). */
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
static void rngs_for(uint64_t seed, uint64_t stream, uint64_t first, size_t n, gen_rng *restrict r)
{
    for (size_t i = 0; i < n; i++)
        r[i] = gen_rng_for(seed, stream, first + i);
}

void gen_rngs_for(uint64_t seed, uint64_t stream, uint64_t first, size_t n, gen_rng *r)
{
    rngs_for(seed, stream, first, n, r);
}
