/* binary16 in hardware arithmetic: conversions and the fused multiply-add
 * rounded once, scalar and eight lanes at a time. */
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include "fast.h"
#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

float fp_fast_f16_to_f32(uint32_t h)
{
    uint32_t e = (h >> 10) & 31, m = h & 1023, sign = (h & 0x8000) << 16;
    if (e == 0)
        return fp_ffrom(sign | fp_fbits((float)m * 0x1p-24f));
    if (e == 31)
        return fp_ffrom(sign | 0x7f800000u | m << 13);
    return fp_ffrom(sign | (e + 112) << 23 | m << 13);
}

uint32_t fp_fast_f32_to_f16(uint32_t b)
{
    uint32_t sign = (b >> 16) & 0x8000, e = (b >> 23) & 0xff, m = (b & 0x7fffff) | 0x800000;
    if (e == 255)
        return (b & 0x7fffff) ? 0x7e00 : sign | 0x7c00;
    int E = (int)e - 127;
    if (E > 15)
        return sign | 0x7c00;
    int shift = E >= -14 ? 13 : 13 + (-14 - E);
    if (e == 0 || shift > 25)
        return sign;  /* below a quarter of the smallest subnormal */
    uint32_t kept = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    kept += rem > half || (rem == half && (kept & 1));
    if (E < -14)
        return sign | kept;  /* a carry makes it the smallest normal, as encoded */
    if (kept == 2048) {
        kept = 1024;
        E++;
    }
    return E > 15 ? sign | 0x7c00 : sign | (uint32_t)(E + 15) << 10 | (kept - 1024);
}

uint32_t fp_fast_fma16(uint32_t a, uint32_t b, uint32_t c)
{
    float p = fp_fast_f16_to_f32(a) * fp_fast_f16_to_f32(b), cf = fp_fast_f16_to_f32(c);
    float s = p + cf;
    uint32_t sb = fp_fbits(s);
    if ((sb & 0x7f800000u) != 0x7f800000u) {
        float bb = s - p;
        float e = (p - (s - bb)) + (cf - bb);
        if (e != 0 && !(sb & 1))
            sb += ((fp_fbits(e) ^ sb) >> 31) ? -1u : 1u;  /* toward the error: odd */
    }
    return fp_fast_f32_to_f16(sb);
}

#if defined(__x86_64__)
/* Eight lanes: vcvtph2ps is exact, the product and TwoSum as above, the
 * odd fix-up with integer lanes, and vcvtps2ph rounds to nearest even. */
__attribute__((target("avx2,f16c"))) static void fma16_x8(const uint16_t *a, const uint16_t *b, const uint16_t *c,
                                                         uint16_t *r, size_t n)
{
    const __m256i exp_mask = _mm256_set1_epi32(0x7f800000), one = _mm256_set1_epi32(1);
    for (size_t i = 0; i + 8 <= n; i += 8) {
        __m256 fa = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(a + i)));
        __m256 fb = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(b + i)));
        __m256 fc = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(c + i)));
        __m256 p = _mm256_mul_ps(fa, fb);
        __m256 s = _mm256_add_ps(p, fc);
        __m256 bb = _mm256_sub_ps(s, p);
        __m256 e = _mm256_add_ps(_mm256_sub_ps(p, _mm256_sub_ps(s, bb)), _mm256_sub_ps(fc, bb));
        __m256i si = _mm256_castps_si256(s), ei = _mm256_castps_si256(e);
        __m256i finite = _mm256_xor_si256(_mm256_cmpeq_epi32(_mm256_and_si256(si, exp_mask), exp_mask),
                                          _mm256_set1_epi32(-1));
        __m256i inexact = _mm256_castps_si256(_mm256_cmp_ps(e, _mm256_setzero_ps(), _CMP_NEQ_OQ));
        __m256i even = _mm256_cmpeq_epi32(_mm256_and_si256(si, one), _mm256_setzero_si256());
        __m256i step = _mm256_or_si256(_mm256_srai_epi32(_mm256_xor_si256(ei, si), 31), one);  /* +1 or -1 */
        __m256i fix = _mm256_and_si256(step, _mm256_and_si256(finite, _mm256_and_si256(inexact, even)));
        __m256 odd = _mm256_castsi256_ps(_mm256_add_epi32(si, fix));
        __m128i h = _mm256_cvtps_ph(odd, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        /* NaN lanes: the kit's default NaN. */
        __m128i nan = _mm_cmpgt_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7fff)), _mm_set1_epi16(0x7c00));
        h = _mm_blendv_epi8(h, _mm_set1_epi16(0x7e00), nan);
        _mm_storeu_si128((__m128i *)(r + i), h);
    }
}
#endif

#if defined(__x86_64__)
/* AVX2 and F16C, asked of cpuid once (not every compiler knows "f16c" as a
 * __builtin_cpu_supports name). */
static bool have_avx2_f16c(void)
{
    static _Atomic int known = -1;  /* threads may race to fill it in: with the same answer */
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (k < 0) {
        unsigned a, b, c, d;
        bool f16c = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
        k = f16c && __builtin_cpu_supports("avx2");
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k;
}
#endif

void fp_fast_fma16_array(const uint16_t *a, const uint16_t *b, const uint16_t *c, uint16_t *r, size_t n)
{
    size_t done = 0;
#if defined(__x86_64__)
    if (have_avx2_f16c()) {
        fma16_x8(a, b, c, r, n);
        done = n & ~(size_t)7;
    }
#endif
    for (size_t i = done; i < n; i++)
        r[i] = (uint16_t)fp_fast_fma16(a[i], b[i], c[i]);
}
