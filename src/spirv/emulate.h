/* Exact emulation routines, written once against the builder and shared by
 * every lowering that needs them.  They compute with f64 arithmetic only
 * where it is exact or declared correctly rounded (RTE), and do every
 * decoding, encoding and final rounding with integer operations, so the
 * result does not depend on how the device treats denormals. */
#ifndef TIEFUZZ_SPV_EMULATE_H
#define TIEFUZZ_SPV_EMULATE_H

#include "../fp/fp.h"
#include "builder.h"

/* Exact f64 value of an f16 (low 16 bits of a u32) or f32 bit pattern. */
unsigned emu_decode(spv_builder *b, const fp_format *f, unsigned bits);
/* x + y rounded to odd at 53 bits (TwoSum; needs RTE for f64).  For x, y
 * exact and of f32-sized products, rounding this to any format of at most
 * 51 bits equals one rounding of the exact sum (Boldo and Melquiond 2008). */
unsigned emu_sum_to_odd(spv_builder *b, unsigned x, unsigned y);
/* f64 value -> bits of f (f16 in the low half), round to nearest even. */
unsigned emu_round(spv_builder *b, const fp_format *f, unsigned v);
/* Exact products and power-of-two scalings in f64. */
unsigned emu_mul(spv_builder *b, unsigned x, unsigned y);
unsigned emu_scale(spv_builder *b, unsigned v, int k);
/* Subnormal -> signed zero, on bits. */
unsigned emu_flush(spv_builder *b, const fp_format *f, unsigned bits);
/* Sign-bit edits on bits (abs first, then neg). */
unsigned emu_sign_mods(spv_builder *b, const fp_format *f, unsigned bits, bool abs, bool neg);
/* NaN -> +0, negative -> +0, above one -> one; on bits. */
unsigned emu_clamp01(spv_builder *b, const fp_format *f, unsigned bits);

#endif
