/* Lanes of double arithmetic, LANES_N at a time: the vector types and
 * small helpers the lane code shares (fast_fma_lanes.c's roundings, the
 * RDNA 2 lane designs (rdna2_closed_lanes.c, rdna2_special_lanes.c,
 * rdna2_subnormal_lanes.c), the tiles' sums and
 * V_DIV_FMAS's scaled lanes).  GCC's vector extensions.  Include from .c
 * files only.
 *
 * Two builds of a lane file:
 * - narrow, four lanes (the core library): its entry points (LANES_ENTRY)
 *   built for AVX-512, AVX2 and plain x86-64, the loader picking one;
 * - wide, eight lanes (LANES_WIDE, the tiefuzz_lanes_wide library, for the
 *   files whose calls are the generation pipeline's largest): the whole file
 *   built for x86-64-v4 alone, one AVX-512 register of doubles a vector,
 *   its exported calls named NAME_wide (LANES_API).  The narrow build's
 *   calls go to them where the host has AVX-512 (fp_lanes_wide).
 * Why not eight lanes in the clones: GCC 12 compiles these helpers for the
 * file's own target before inlining them into a clone, and for a target
 * without AVX-512 it makes a 512-bit comparison element by element; the
 * v4 clone of fma32_lanes came out slower than four lanes (v_fma_f32's
 * generated cases 0.97 s to 1.30 s for 20 million).  A file built for
 * x86-64-v4 throughout keeps every operation in one instruction. */
#ifndef TIEFUZZ_FP_LANES_H
#define TIEFUZZ_FP_LANES_H

#include <stddef.h>
#include <stdint.h>

/* The helpers pass vectors by value; they are always inlined into an entry
 * point, so the ABI GCC warns about is never used. */
#pragma GCC diagnostic ignored "-Wpsabi"
#define LANES static inline __attribute__((always_inline))

#ifdef LANES_WIDE
#define LANES_N 8
#define LANES_ENTRY static
#define LANES_API(name) name##_wide
#else
#define LANES_N 4
/* The builds for each instruction set, chosen at load time.  Static, with
 * exported names calling them: clang 14 does not give a non-static
 * target_clones function its plain name.  An entry point passes its
 * helpers scalars and pointers, never a vector by value: clang refuses
 * that in the plain x86-64 clone (the AVX calling convention differs). */
#define LANES_ENTRY static __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define LANES_API(name) name##_narrow
/* An exported call's build for this host. */
#define LANES_PICK(name) (fp_lanes_wide() ? name##_wide : name##_narrow)
#endif

typedef double vd __attribute__((vector_size(8 * LANES_N)));
typedef int64_t vl __attribute__((vector_size(8 * LANES_N)));
typedef uint64_t vu __attribute__((vector_size(8 * LANES_N)));
typedef float vf __attribute__((vector_size(4 * LANES_N)));
typedef uint32_t vw __attribute__((vector_size(4 * LANES_N)));
typedef int32_t vi __attribute__((vector_size(4 * LANES_N)));

/* The last m < width lanes of a, b, c (f32 bit patterns) into pa, pb, pc,
 * padded with 1.0 to width: a whole vector for the loops' tails. */
static inline void lanes_pad(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t m, size_t width,
                             uint32_t *pa, uint32_t *pb, uint32_t *pc)
{
    for (size_t i = 0; i < width; i++) {
        pa[i] = i < m ? a[i] : 0x3f800000u;
        pb[i] = i < m ? b[i] : 0x3f800000u;
        pc[i] = i < m ? c[i] : 0x3f800000u;
    }
}

/* Each lane's index. */
#if LANES_N == 8
#define LANES_INDEX ((vl){0, 1, 2, 3, 4, 5, 6, 7})
#else
#define LANES_INDEX ((vl){0, 1, 2, 3})
#endif

/* Widening conversions.  Four lanes: element by element, since GCC 12
 * splits __builtin_convertvector's widening forms into halves (four or five
 * instructions where one does) but makes one vcvtps2pd, vpmovsxdq or
 * vpmovzxdq of these.  Eight lanes (built for x86-64-v4): the AVX-512
 * intrinsics, one instruction each.  GCC 12 splits convertvector's 256- to
 * 512-bit forms too (two conversions of 128-bit halves, an extract and an
 * insert: widen_any's three sources were about a fifth of fma32_lanes's
 * loop), and element by element stops it with an internal error.
 * (Narrowing convertvector is one instruction.) */
#if LANES_N == 8
#include <immintrin.h>
LANES vd widen_f32(vf x) { return (vd)_mm512_cvtps_pd((__m256)x); }
LANES vl widen_mask(vi x) { return (vl)_mm512_cvtepi32_epi64((__m256i)x); }
LANES vu widen_u32(vw x) { return (vu)_mm512_cvtepu32_epi64((__m256i)x); }
#else
LANES vd widen_f32(vf x) { return (vd){x[0], x[1], x[2], x[3]}; }
LANES vl widen_mask(vi x) { return (vl){x[0], x[1], x[2], x[3]}; }
LANES vu widen_u32(vw x) { return (vu){x[0], x[1], x[2], x[3]}; }
#endif

#define SIGN_BIT INT64_MIN
#define MANT ((((int64_t)1) << 52) - 1)
#define TWO52 0x1p52

/* A mask lane (-1 or 0) from a condition already a mask, as 0/1 bits. */
LANES vl bit(vl mask) { return mask & 1; }
LANES vl pick(vl mask, vl yes, vl no) { return (yes & mask) | (no & ~mask); }
LANES vd pickd(vl mask, vd yes, vd no) { return (vd)pick(mask, (vl)yes, (vl)no); }
#define ALL(x) ((vl){0} + (int64_t)(x))
#define ONE ((vd){0} + 1.0)
#define ZERO_D ((vd){0})

/* Unbiased exponent field of a double (either sign), as fp_dexp. */
LANES vl dexp(vd x) { return (((vl)x >> 52) & 0x7ff) - 1023; }

/* floor(log2(x)) of lanes 1 <= x < 2^52: the exponent of x as a double,
 * made by bits (the 2^52 trick; AVX2 has no 64-bit integer conversion). */
LANES vl log2_floor(vl x) { return dexp((vd)(x | 0x4330000000000000LL) - TWO52); }

/* Exponent of the lowest set bit of a positive normal double, as fp_dlsb. */
LANES vl dlsb(vd x)
{
    vl m = (vl)x & MANT;
    vl low = m & -m;  /* a power of two below 2^52; m = 0: bit 52 */
    vl tz = pick(m == 0, ALL(52), log2_floor(low));
    return dexp(x) - 52 + tz;
}

#endif
