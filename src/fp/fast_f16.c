/* binary16 in hardware arithmetic: conversions and the fused multiply-add
 * rounded once, scalar and eight lanes at a time; and the f32 fused
 * multiply-add over arrays (the MIX forms' last step). */
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

#if defined(__x86_64__)
__attribute__((target("avx2,f16c"))) static void f16_to_f32_x8(const uint16_t *h, uint32_t *f, size_t n)
{
    for (size_t i = 0; i + 8 <= n; i += 8)
        _mm256_storeu_si256((__m256i *)(f + i),
                            _mm256_castps_si256(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(h + i)))));
}

/* vfmadd rounds once to nearest even (the host environment is checked at
 * start); NaN lanes become the kit's default NaN. */
__attribute__((target("avx2,fma"))) static void fma32_x8(const uint32_t *a, const uint32_t *b, const uint32_t *c,
                                                        uint32_t *r, size_t n)
{
    const __m256i magnitude = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
    const __m256i qnan = _mm256_set1_epi32(0x7fc00000);
    for (size_t i = 0; i + 8 <= n; i += 8) {
        __m256 fa = _mm256_loadu_ps((const float *)(a + i)), fb = _mm256_loadu_ps((const float *)(b + i));
        __m256 fc = _mm256_loadu_ps((const float *)(c + i));
        __m256i s = _mm256_castps_si256(_mm256_fmadd_ps(fa, fb, fc));
        __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(s, magnitude), inf);
        _mm256_storeu_si256((__m256i *)(r + i), _mm256_blendv_epi8(s, qnan, nan));
    }
}

static bool have_avx2_fma(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
#endif

void fp_fast_f16_to_f32_array(const uint16_t *h, uint32_t *f, size_t n)
{
    size_t done = 0;
#if defined(__x86_64__)
    if (have_avx2_f16c()) {
        f16_to_f32_x8(h, f, n);
        done = n & ~(size_t)7;
    }
#endif
    for (size_t i = done; i < n; i++)
        f[i] = fp_fbits(fp_fast_f16_to_f32(h[i]));
}

/* Without the FMA instruction: glibc's fmaf (correctly rounded in software). */
__attribute__((target_clones("fma", "default"))) static void fma32_scalar(const uint32_t *a, const uint32_t *b,
                                                                         const uint32_t *c, uint32_t *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t s = fp_fbits(__builtin_fmaf(fp_ffrom(a[i]), fp_ffrom(b[i]), fp_ffrom(c[i])));
        r[i] = (s & 0x7fffffffu) > 0x7f800000u ? 0x7fc00000u : s;
    }
}

void fp_fast_fma32_array(const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *r, size_t n)
{
    size_t done = 0;
#if defined(__x86_64__)
    if (have_avx2_fma()) {
        fma32_x8(a, b, c, r, n);
        done = n & ~(size_t)7;
    }
#endif
    fma32_scalar(a + done, b + done, c + done, r + done, n - done);
}

/* ---- the MIX forms' f16 result ---- */

/* An odd double (fp_fast_sum_to_odd's) to f32: to nearest even, or to odd
 * (which keeps the one correct rounding for f16 after it). */
static uint32_t f32_of_odd(double x, bool to_odd)
{
    float r = (float)x;
    uint32_t b = fp_fbits(r);
    double back = (double)r;
    if (to_odd && back != x && x == x && !(b & 1))
        b += __builtin_fabs(back) < __builtin_fabs(x) ? 1u : -1u;  /* toward x, in magnitude */
    return b;
}

static uint16_t mix16_one(uint32_t a, uint32_t b, uint32_t c, bool once)
{
    double odd = fp_fast_sum_to_odd(fp_fast_f32_to_double(a), fp_fast_f32_to_double(b), fp_fast_f32_to_double(c));
    return (uint16_t)fp_fast_f32_to_f16(f32_of_odd(odd, once));
}

#if defined(__x86_64__)
/* Four lanes in double: the product and TwoSum, the odd fix-up in 64-bit
 * integer lanes, (once) the rounding to odd at f32's precision on the
 * double's bits, vcvtpd2ps to nearest even (exact after that step, where it
 * matters), vcvtps2ph to nearest even.  f32_of_odd's way (convert, convert
 * back, compare, step) cost a third more. */
__attribute__((target("avx2,f16c"))) static void mix16_x4(const uint32_t *a, const uint32_t *b, const uint32_t *c,
                                                          uint16_t *r, size_t n, bool once)
{
    const __m256i exp_mask = _mm256_set1_epi64x(0x7ff0000000000000ll), one = _mm256_set1_epi64x(1);
    for (size_t i = 0; i + 4 <= n; i += 4) {
        __m256d da = _mm256_cvtps_pd(_mm_loadu_ps((const float *)(a + i)));
        __m256d db = _mm256_cvtps_pd(_mm_loadu_ps((const float *)(b + i)));
        __m256d dc = _mm256_cvtps_pd(_mm_loadu_ps((const float *)(c + i)));
        __m256d p = _mm256_mul_pd(da, db), s = _mm256_add_pd(p, dc), bb = _mm256_sub_pd(s, p);
        __m256d e = _mm256_add_pd(_mm256_sub_pd(p, _mm256_sub_pd(s, bb)), _mm256_sub_pd(dc, bb));
        __m256i si = _mm256_castpd_si256(s), ei = _mm256_castpd_si256(e);
        __m256i finite = _mm256_xor_si256(_mm256_cmpeq_epi64(_mm256_and_si256(si, exp_mask), exp_mask),
                                          _mm256_set1_epi64x(-1));
        __m256i inexact = _mm256_castpd_si256(_mm256_cmp_pd(e, _mm256_setzero_pd(), _CMP_NEQ_OQ));
        __m256i even = _mm256_cmpeq_epi64(_mm256_and_si256(si, one), _mm256_setzero_si256());
        __m256i step = _mm256_or_si256(_mm256_cmpgt_epi64(_mm256_setzero_si256(), _mm256_xor_si256(ei, si)), one);
        __m256i fix = _mm256_and_si256(step, _mm256_and_si256(finite, _mm256_and_si256(inexact, even)));
        __m256d odd = _mm256_castsi256_pd(_mm256_add_epi64(si, fix));
        if (once) {
            /* To odd at f32's 24 bits on the double itself: cut the 29 bits
             * below, and set the lowest kept bit when any was set.  The
             * conversion is then exact for a normal f32 value; below
             * f32's normal range, or above its largest, the value is far
             * outside f16's, where f32's rounding of it cannot change the
             * f16 result (+-0, +-infinity). */
            __m256i below = _mm256_set1_epi64x(0x1fffffff);
            __m256i oi = _mm256_castpd_si256(odd);
            __m256i cut = _mm256_cmpeq_epi64(_mm256_and_si256(oi, below), _mm256_setzero_si256());
            __m256i sticky = _mm256_andnot_si256(cut, _mm256_set1_epi64x(0x20000000));
            odd = _mm256_castsi256_pd(_mm256_or_si256(_mm256_andnot_si256(below, oi), sticky));
        }
        __m128 f = _mm256_cvtpd_ps(odd);
        __m128i h = _mm_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __m128i nan = _mm_cmpgt_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7fff)), _mm_set1_epi16(0x7c00));
        h = _mm_blendv_epi8(h, _mm_set1_epi16(0x7e00), nan);
        _mm_storel_epi64((__m128i *)(r + i), h);
    }
}
#endif

void fp_fast_mix16_array(const uint32_t *a, const uint32_t *b, const uint32_t *c, uint16_t *r, size_t n, bool once)
{
    size_t done = 0;
#if defined(__x86_64__)
    if (have_avx2_f16c()) {
        mix16_x4(a, b, c, r, n, once);
        done = n & ~(size_t)3;
    }
#endif
    for (size_t i = done; i < n; i++)
        r[i] = mix16_one(a[i], b[i], c[i], once);
}
