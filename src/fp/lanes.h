/* Four lanes of double arithmetic at a time: the vector types and small
 * helpers the lane code shares (fast_fma_lanes.c's roundings, the RDNA 2
 * closed-form designs of rdna2_closed_lanes.c).  GCC's vector extensions;
 * each user builds its entry points for AVX-512, AVX2 and plain x86-64
 * (LANES_ENTRY) and the loader picks one.  Include from .c files only. */
#ifndef TIEFUZZ_FP_LANES_H
#define TIEFUZZ_FP_LANES_H

#include <stdint.h>

/* The helpers pass vectors by value; they are always inlined into an entry
 * point, so the ABI GCC warns about is never used. */
#pragma GCC diagnostic ignored "-Wpsabi"
#define LANES static inline __attribute__((always_inline))

/* The builds for each instruction set, chosen at load time.  Static, with
 * exported names calling them: clang 14 does not give a non-static
 * target_clones function its plain name.  An entry point passes its
 * helpers scalars and pointers, never a vector by value: clang refuses
 * that in the plain x86-64 clone (the AVX calling convention differs). */
#define LANES_ENTRY static __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

typedef double v4d __attribute__((vector_size(32)));
typedef int64_t v4l __attribute__((vector_size(32)));
typedef uint64_t v4u __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
typedef uint32_t v4w __attribute__((vector_size(16)));

typedef int32_t v4i __attribute__((vector_size(16)));

/* Widening conversions, element by element: GCC 12 splits
 * __builtin_convertvector's widening forms into halves (four or five
 * instructions where one does), but makes one vcvtps2pd, vpmovsxdq or
 * vpmovzxdq of these.  (Narrowing convertvector is one instruction.) */
LANES v4d widen_f32(v4f x) { return (v4d){x[0], x[1], x[2], x[3]}; }
LANES v4l widen_mask(v4i m) { return (v4l){m[0], m[1], m[2], m[3]}; }
LANES v4u widen_u32(v4w w) { return (v4u){w[0], w[1], w[2], w[3]}; }

#define SIGN_BIT INT64_MIN
#define MANT ((((int64_t)1) << 52) - 1)
#define TWO52 0x1p52

/* A mask lane (-1 or 0) from a condition already a mask, as 0/1 bits. */
LANES v4l bit(v4l mask) { return mask & 1; }
LANES v4l pick(v4l mask, v4l yes, v4l no) { return (yes & mask) | (no & ~mask); }
LANES v4d pickd(v4l mask, v4d yes, v4d no) { return (v4d)pick(mask, (v4l)yes, (v4l)no); }
#define ALL(x) ((v4l){x, x, x, x})
#define ONE ((v4d){1.0, 1.0, 1.0, 1.0})
#define ZERO_D ((v4d){0, 0, 0, 0})

/* Unbiased exponent field of a double (either sign), as fp_dexp. */
LANES v4l dexp(v4d x) { return (((v4l)x >> 52) & 0x7ff) - 1023; }

/* floor(log2(x)) of lanes 1 <= x < 2^52: the exponent of x as a double,
 * made by bits (the 2^52 trick; AVX2 has no 64-bit integer conversion). */
LANES v4l log2_floor(v4l x) { return dexp((v4d)(x | 0x4330000000000000LL) - TWO52); }

/* Exponent of the lowest set bit of a positive normal double, as fp_dlsb. */
LANES v4l dlsb(v4d x)
{
    v4l m = (v4l)x & MANT;
    v4l low = m & -m;  /* a power of two below 2^52; m = 0: bit 52 */
    v4l tz = pick(m == 0, (v4l){52, 52, 52, 52}, log2_floor(low));
    return dexp(x) - 52 + tz;
}

#endif
