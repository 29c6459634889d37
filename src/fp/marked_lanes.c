/* fp/marked_lanes: the few lanes of a block that a fast step leaves to a
 * slower one, packed together and put back.  Packing a lane at a time costs
 * a store and a dependent add for every lane of the block, marked or not:
 * for V_DIV_FMAS's batch path (a sixth of its lanes marked) that was a
 * third of the path's time.  AVX-512's compress and expand take sixteen
 * lanes in a few instructions; without them, the lane-at-a-time loop. */
#include "fast.h"
#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* The lanes of the first m marked in `mark` (a byte each, 0 or 1), in
 * order: from[i][t] to to[i][0..k) for every array i < width; returns k.
 * Each to[i] holds m + FP_MARKED_SLACK words. */
static size_t pack_one_by_one(const uint8_t *mark, size_t m, size_t width, const uint32_t *const *from,
                              uint32_t *const *to)
{
    size_t k = 0;
    for (size_t t = 0; t < m; t++) {
        for (size_t i = 0; i < width; i++)
            to[i][k] = from[i][t];
        k += mark[t];
    }
    return k;
}

/* to[t] = from[j] for the j-th marked lane t. */
static void unpack_one_by_one(const uint8_t *mark, size_t m, const uint32_t *from, uint32_t *to)
{
    size_t j = 0;
    for (size_t t = 0; t < m; t++) {
        if (mark[t])
            to[t] = from[j];
        j += mark[t];
    }
}

#if defined(__x86_64__)
#define AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))

/* The lanes of sixteen from t that are live (below m) and marked. */
AVX512 static __mmask16 live_of(size_t t, size_t m)
{
    return m - t >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (m - t)) - 1);
}
AVX512 static __mmask16 marked_of(const uint8_t *mark, size_t t, __mmask16 live)
{
    __m128i bytes = _mm_maskz_loadu_epi8(live, mark + t);
    return _mm_test_epi8_mask(bytes, bytes);
}

/* Compress in registers and store all sixteen lanes at k (the slack takes
 * the rest): the memory form of vpcompressd is microcoded on AMD's Zen 4. */
AVX512 static size_t pack_by_sixteen(const uint8_t *mark, size_t m, size_t width, const uint32_t *const *from,
                                     uint32_t *const *to)
{
    const uint32_t *src[4] = {0};
    uint32_t *dst[4] = {0};
    for (size_t i = 0; i < width; i++)
        src[i] = from[i], dst[i] = to[i];
    size_t k = 0;
    for (size_t t = 0; t < m; t += 16) {
        __mmask16 live = live_of(t, m), marked = marked_of(mark, t, live);
        for (size_t i = 0; i < width; i++) {
            __m512i x = _mm512_maskz_loadu_epi32(live, src[i] + t);
            _mm512_storeu_si512(dst[i] + k, _mm512_maskz_compress_epi32(marked, x));
        }
        k += (size_t)__builtin_popcount(marked);
    }
    return k;
}

AVX512 static void unpack_by_sixteen(const uint8_t *mark, size_t m, const uint32_t *from, uint32_t *to)
{
    size_t j = 0;
    for (size_t t = 0; t < m; t += 16) {
        __mmask16 live = live_of(t, m), marked = marked_of(mark, t, live);
        unsigned n = (unsigned)__builtin_popcount(marked);
        __m512i packed = _mm512_maskz_loadu_epi32((__mmask16)((1u << n) - 1), from + j);
        __m512i x = _mm512_maskz_loadu_epi32(live, to + t);
        _mm512_mask_storeu_epi32(to + t, live, _mm512_mask_expand_epi32(x, marked, packed));
        j += n;
    }
}

static bool have_avx512(void)
{
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl");
}
#endif

size_t fp_pack_marked(const uint8_t *mark, size_t m, size_t width, const uint32_t *const *from, uint32_t *const *to)
{
#if defined(__x86_64__)
    if (width <= 4 && have_avx512())  /* the registers are laid out for four arrays */
        return pack_by_sixteen(mark, m, width, from, to);
#endif
    return pack_one_by_one(mark, m, width, from, to);
}

void fp_unpack_marked(const uint8_t *mark, size_t m, const uint32_t *from, uint32_t *to)
{
#if defined(__x86_64__)
    if (have_avx512()) {
        unpack_by_sixteen(mark, m, from, to);
        return;
    }
#endif
    unpack_one_by_one(mark, m, from, to);
}
