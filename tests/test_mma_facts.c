/* The T-FDPA model's directed facts (mma-tfdpa.md and the seed's V100 report). */
#include <string.h>
#include "check.h"
#include "isa/mma.h"

static isa_instance inst(const char *op)
{
    isa_instance in;
    isa_instance_default(&in, isa_op_find(op));
    return in;
}

/* One step: products a[i]*b[i] (f16 bits) plus c. */
static uint32_t step(isa_instance *in, mma_type ab, const uint32_t *a, const uint32_t *b, unsigned l, mma_type c,
                     uint32_t cv, mma_type d)
{
    return mma_tfdpa(in, ab, a, b, l, c, cv, d);
}

int main(void)
{
    isa_instance v32 = inst("mma.volta.m8n8k4.f32.f16.f16.f16");   /* f16 C, f32 D */
    isa_instance v16 = inst("mma.volta.m8n8k4.f16.f16.f16.f16");
    CHECK(v32.param[PARAM_F] == 23 && v32.param[PARAM_E_ZERO_F16] == -19 && v32.param[PARAM_E_ZERO_F32] == -131,
          "Volta defaults");
    uint32_t one = 0x3c00;

    /* The seed's key example: A row (2^-24, 0, 0, 0), B column (2^-24, 0, 0, 0), C = 0:
     * 2^-48 with the output-type key (e_zero -131), +0 with the C-type key (e_zero -19 here). */
    uint32_t a[4] = {0x0001, 0, 0, 0}, b[4] = {0x0001, 0, 0, 0};
    CHECK_EQ_HEX(step(&v32, MMA_F16, a, b, 4, MMA_F16, 0, MMA_F32), 0x27800000, "2^-48 kept (output key)");
    isa_instance ck = v32;
    ck.param[PARAM_E_ZERO_KEY] = 1;
    CHECK_EQ_HEX(step(&ck, MMA_F16, a, b, 4, MMA_F16, 0, MMA_F32), 0, "2^-48 lost (C-type key)");

    /* The V100 probe: 2^-25 (2^-14 x 2^-11) plus 2^-43 (2^-24 x 2^-19, subnormal x subnormal), C = +0.
     * f16 output: E_max = e_zero = -19, grid 2^-42: 2^-43 dropped, the exact tie 2^-25 rounds to even: +0.
     * f32 output: e_zero -131, both kept: 0x33000020. */
    uint32_t pa[4] = {0x0400, 0x0001, 0, 0}, pb[4] = {0x1000, 0x0020, 0, 0};
    CHECK_EQ_HEX(step(&v16, MMA_F16, pa, pb, 4, MMA_F16, 0, MMA_F16), 0, "f16 output drops 2^-43: +0");
    CHECK_EQ_HEX(step(&v32, MMA_F16, pa, pb, 4, MMA_F16, 0, MMA_F32), 0x33000020, "f32 output keeps 2^-43");

    /* Products are not renormalised: 2^-24 x 1 has exponent -14 + 0, so E_max = -14 and the grid is
     * 2^-37: a 2^-38 product (2^-19 x 2^-19: 0x0020 x 0x0020) is truncated away. */
    uint32_t ra[4] = {0x0001, 0x0020, 0, 0}, rb[4] = {one, 0x0020, 0, 0};
    CHECK_EQ_HEX(step(&v32, MMA_F16, ra, rb, 4, MMA_F16, 0, MMA_F32), 0x33800000, "2^-38 below the grid of 2^-14 - 23");

    /* Every term is truncated on its own: 1 + two halves of a grid unit gives 1, not 1 + 2^-23. */
    /* With F = 23 the grid under E_max = 0 is 2^-23. */
    uint32_t ua[4] = {one, 0x1000, 0x1000, 0}, ub[4] = {one, 0x0c00, 0x0c00, 0};  /* 2^-11 x 2^-12 = one unit each */
    CHECK_EQ_HEX(step(&v32, MMA_F16, ua, ub, 4, MMA_F16, 0, MMA_F32), 0x3f800002, "1 + 2 * 2^-23");
    ub[1] = ub[2] = 0x0800;  /* 2^-13 -> product 2^-24 = half a unit each: both truncated */
    CHECK_EQ_HEX(step(&v32, MMA_F16, ua, ub, 4, MMA_F16, 0, MMA_F32), 0x3f800000, "each half unit truncated");

    /* An exactly zero sum is +0, even from negative terms. */
    uint32_t za[4] = {one, 0xbc00, 0, 0}, zb[4] = {one, one, 0, 0};
    CHECK_EQ_HEX(step(&v32, MMA_F16, za, zb, 4, MMA_F16, 0x8000, MMA_F32), 0, "1 - 1 + (-0) = +0");

    /* Canonical NaN: a NaN input, inf x 0, +inf and -inf. */
    uint32_t na[4] = {0x7e01, 0, 0, 0}, nb[4] = {one, 0, 0, 0};
    CHECK_EQ_HEX(step(&v32, MMA_F16, na, nb, 4, MMA_F16, 0, MMA_F32), 0x7fffffff, "NaN input");
    CHECK_EQ_HEX(step(&v16, MMA_F16, na, nb, 4, MMA_F16, 0, MMA_F16), 0x7fff, "NaN input, f16 output");
    uint32_t ia[4] = {0x7c00, 0, 0, 0}, ib[4] = {0, 0, 0, 0};
    CHECK_EQ_HEX(step(&v32, MMA_F16, ia, ib, 4, MMA_F16, 0, MMA_F32), 0x7fffffff, "inf x 0");
    uint32_t pia[4] = {0x7c00, 0xfc00, 0, 0}, pib[4] = {one, one, 0, 0};
    CHECK_EQ_HEX(step(&v32, MMA_F16, pia, pib, 4, MMA_F16, 0, MMA_F32), 0x7fffffff, "+inf and -inf");
    CHECK_EQ_HEX(step(&v32, MMA_F16, pia, pib, 1, MMA_F16, 0, MMA_F32), 0x7f800000, "+inf alone");

    /* RZ-FP32 truncates, yet a sum of 2^128 or more is infinity (not FLT_MAX): bf16 products reach it. */
    isa_instance bf = inst("mma.ampere.m16n8k16.f32.bf16.bf16.f32");
    uint32_t big[1] = {0x5f80}, big2[1] = {0x5f80};  /* 2^64 x 2^64 = 2^128 */
    CHECK_EQ_HEX(step(&bf, MMA_BF16, big, big2, 1, MMA_F32, 0, MMA_F32), 0x7f800000, "2^128 is infinity");
    uint32_t near[1] = {0x5fff};                    /* (2 - 2^-7) 2^64 x 2^63 = (2 - 2^-7) 2^127 */
    uint32_t half[1] = {0x5f00};
    CHECK_EQ_HEX(step(&bf, MMA_BF16, near, half, 1, MMA_F32, 0, MMA_F32), 0x7f7f0000, "just below 2^128 stays finite");
    uint32_t tiny[1] = {0x0001};                    /* a bf16 subnormal: 2^-133 */
    uint32_t one_bf[1] = {0x3f80};
    CHECK_EQ_HEX(step(&bf, MMA_BF16, tiny, one_bf, 1, MMA_F32, 0, MMA_F32), 0x00010000, "2^-133: an f32 subnormal");

    /* RNE-FP16 rounds the truncated sum once, with no f32 rounding between: with F = 24,
     * 1 + 2^-11 + 2^-24 rounds up to 1 + 2^-10 (an f32 truncation first would have made it a tie to 1). */
    isa_instance t16 = v16;
    t16.param[PARAM_F] = 24;
    uint32_t ea[4] = {one, 0x1000, 0x0001, 0}, eb[4] = {one, one, one, 0};  /* 1 + 2^-11 + 2^-24 */
    CHECK_EQ_HEX(step(&t16, MMA_F16, ea, eb, 4, MMA_F16, 0, MMA_F16), 0x3c01, "RNE-FP16 without f32 rounding");

    /* A whole tile: D = A x B + C with chunks (Ampere k16 in two steps of 8): identity-like check. */
    isa_instance amp = inst("mma.ampere.m16n8k16.f32.f16.f16.f32");
    const isa_op *op = amp.op;
    uint32_t w[ISA_MAX_IN] = {0}, out[ISA_MAX_OUT];
    /* A = all ones (16x16 halves = 128 words), B = all ones, C = 0: every D element is 16. */
    for (unsigned i = 0; i < 128 + 64; i++)
        w[i] = 0x3c003c00;
    op->impl->eval(&amp, w, out, NULL);
    CHECK_EQ_HEX(out[0], 0x41800000, "16 ones");
    CHECK_EQ_HEX(out[127], 0x41800000, "last element");
    CHECK(op->n_in == 128 + 64 + 128 && op->n_out == 128, "tile layout %u in, %u out", op->n_in, op->n_out);
    return check_report("test_mma_facts");
}
