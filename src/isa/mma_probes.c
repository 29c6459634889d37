/* The directed probe tiles of the V100 report (seed 003), for `tiefuzz fit`:
 * one output element (row 0 of A, column 0 of B, C[0][0] = +0) carries the
 * probe, every other element is zero.
 *  - f16 output: a sum placed exactly on an f16 rounding tie plus a small
 *    product 2^-k below the tie bit, k = 1..25, at the levels 1 + 2^-11 and
 *    2^-25, with normal x normal, normal x subnormal and subnormal x
 *    subnormal small products (the combinations f16 can represent);
 *  - f32 output: the same, and one product per tile with significands
 *    2047 x 1025 at exponents -14 to -28 (exact products). */
#include <string.h>
#include "mma.h"

/* f16 bits of 2^e (normal or subnormal). */
static uint32_t pow2_f16(int e)
{
    if (e >= -14)
        return (uint32_t)(e + 15) << 10;
    return 1u << (e + 24);  /* subnormal: 2^e = (1 << (e + 24)) * 2^-24 */
}

static void put(uint32_t *w, unsigned index, uint32_t h) { w[index / 2] |= h << (16 * (index % 2)); }

/* A tile with A[0][q] = a[q], B[q][0] = b[q] for q < count. */
static void tile(const mma_row *row, uint32_t *w, unsigned n_in, const uint32_t *a, const uint32_t *b, unsigned count)
{
    memset(w, 0, n_in * 4);
    unsigned wa = mma_words(row->ab, row->m * row->k);
    for (unsigned q = 0; q < count && q < row->k; q++) {
        put(w, q, a[q]);            /* row 0 of A: elements 0..K-1 */
        put(w + wa, q, b[q]);       /* column 0 of B: elements 0..K-1 (column-major) */
    }
}

unsigned mma_probes(const isa_op *op, uint32_t (*tiles)[ISA_MAX_IN], unsigned max)
{
    const mma_row *row = mma_row_of(op);
    if (row->ab != MMA_F16 || row->k < 3)
        return 0;  /* the seed's probes are f16 probes */
    unsigned n = 0;
    const uint32_t one = 0x3c00;
    /* Level 1 + 2^-11 (tie between 1 and 1 + 2^-10) and level 2^-25 (tie between 0 and 2^-24). */
    for (int level = 0; level < 2; level++) {
        int tie_bit = level == 0 ? -11 : -25;
        for (int k = 1; k <= 25; k++) {
            int e = tie_bit - k;  /* the small product 2^e */
            for (int kind = 0; kind < 3; kind++) {  /* nn, ns, ss */
                int e1, e2;
                if (kind == 0) { e1 = e / 2; e2 = e - e1; if (e1 < -14 || e2 < -14) continue; }
                else if (kind == 1) { e1 = -15 - (k % 10); e2 = e - e1; if (e2 < -14 || e2 > 0 || e1 < -24) continue; }
                else { e1 = e / 2; e2 = e - e1; if (e1 > -15 || e2 > -15 || e1 < -24 || e2 < -24) continue; }
                uint32_t a[3], b[3];
                if (level == 0) { a[0] = one; b[0] = one; a[1] = pow2_f16(-11); b[1] = one; }
                else { a[0] = pow2_f16(-14); b[0] = pow2_f16(-11); a[1] = 0; b[1] = 0; }
                a[2] = pow2_f16(e1);
                b[2] = pow2_f16(e2);
                if (n < max)
                    tile(row, tiles[n++], op->n_in, a, b, 3);
            }
        }
    }
    if (row->d == MMA_F32)
        for (int e = -28; e <= -14; e++) {  /* 2047 x 1025 (1.1111111111b x 1.0000000001b) at 2^e */
            uint32_t a[1] = {(uint32_t)(-14 + 15) << 10 | 0x3ff}, b[1] = {(uint32_t)(e + 14 + 15) << 10 | 0x001};
            if (n < max)
                tile(row, tiles[n++], op->n_in, a, b, 1);
        }
    return n;
}
