/* Many streams' next draws at once, as 32-bit words: what a block of
 * cases' first draws (their random words) take, one stream a case. */
#include "gen.h"

/* Built for AVX-512, AVX2 and plain x86-64, the loader picking one: the
 * draws of different streams are independent, so GCC makes the loop over
 * the streams vector code, where a case at a time the two 64-bit
 * multiplies of each draw held v_fma_f16's random words (four a case) to
 * about eight cycles a case.  Static, with the exported name calling it:
 * clang 14 gives a non-static target_clones function no plain symbol
 * (fp/lanes.h's entry points do the same). */
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
static void draw_words(gen_rng *r, size_t n, unsigned per, uint32_t *w)
{
    for (unsigned j = 0; j < per; j++)
        for (size_t i = 0; i < n; i++)
            w[i * per + j] = (uint32_t)gen_peek(&r[i], j + 1);
    for (size_t i = 0; i < n; i++)
        gen_skip(&r[i], per);
}

void gen_draw_words(gen_rng *r, size_t n, unsigned per, uint32_t *w) { draw_words(r, n, per, w); }
