/* The multiply sequences against plain 64-bit arithmetic on the host, an
 * oracle independent of the XMAD model: 1M pairs each, random and edge
 * (halves at 0, 1, 0x7fff, 0x8000, 0xffff).  The signed high word is exact
 * only under csfu=cross; the other readings' mismatch rates are printed. */
#include <stdio.h>
#include "check.h"
#include "gen/gen.h"
#include "isa/maxwell.h"

static uint32_t edge_word(gen_rng *r)
{
    static const uint16_t h[] = {0, 1, 0x7fff, 0x8000, 0xffff};
    uint32_t lo = gen_coin(r) ? h[gen_below(r, 5)] : (uint32_t)gen_next(r) & 0xffff;
    uint32_t hi = gen_coin(r) ? h[gen_below(r, 5)] : (uint32_t)gen_next(r) & 0xffff;
    return hi << 16 | lo;
}

int main(void)
{
    const unsigned n = 1000000;
    unsigned lo_bad = 0, hi_bad = 0, imm_bad = 0, s_bad[3] = {0};
    gen_rng r = {12345};
    for (unsigned i = 0; i < n; i++) {
        uint32_t a = i & 1 ? edge_word(&r) : (uint32_t)gen_next(&r);
        uint32_t b = i & 2 ? edge_word(&r) : (uint32_t)gen_next(&r);
        uint32_t c = (uint32_t)gen_next(&r);
        uint32_t imm = (uint32_t)gen_next(&r) & 0xffff;
        lo_bad += maxwell_imad_lo(a, b, c) != (uint32_t)((uint64_t)a * b + c);
        hi_bad += maxwell_imad_hi_u32(a, b, c) != (uint32_t)(((uint64_t)a * b) >> 32) + c;
        imm_bad += maxwell_imul_imm16(a, imm, c) != (uint32_t)((uint64_t)a * imm + c);
        uint32_t s = (uint32_t)(((int64_t)(int32_t)a * (int32_t)b) >> 32) + c;
        for (int k = 0; k < 3; k++)
            s_bad[k] += maxwell_imad_hi_s32(k, a, b, c) != s;
    }
    printf("imad_lo:     %u mismatches in %u pairs (signed and unsigned agree mod 2^32)\n", lo_bad, n);
    printf("imad_hi_u32: %u mismatches in %u pairs\n", hi_bad, n);
    printf("imul_imm16:  %u mismatches in %u pairs\n", imm_bad, n);
    for (int k = 0; k < 3; k++)
        printf("imad_hi_s32 under csfu=%-9s %7u mismatches in %u pairs (%.2f%%)\n", isa_params[PARAM_CSFU].values[k],
               s_bad[k], n, 100.0 * s_bad[k] / n);
    CHECK(lo_bad == 0, "IMAD.LO");
    CHECK(hi_bad == 0, "IMAD.HI.U32");
    CHECK(imm_bad == 0, "multiply by IMM16");
    CHECK(s_bad[CSFU_CROSS] == 0, "signed high word under cross");
    CHECK(s_bad[CSFU_ENVYTOOLS] > 0 && s_bad[CSFU_RYUJINX] > 0, "the other readings differ somewhere");
    return check_report("test_maxwell_oracles");
}
