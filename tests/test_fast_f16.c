/* fp/fast: the f16 fused multiply-add in hardware arithmetic, scalar and
 * eight lanes at a time, against the exact kit on random and boundary
 * halves; and the conversions on every f16 value. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fp/fast.h"
#include "fp/fp.h"
#include "gen/gen.h"

static uint16_t kit_fma16(uint16_t a, uint16_t b, uint16_t c)
{
    fp_value v = fp_add(fp_mul(fp_decode(&fp_f16, a), fp_decode(&fp_f16, b)), fp_decode(&fp_f16, c));
    return (uint16_t)fp_round(&fp_f16, v, FP_RNE, 0);
}

int main(void)
{
    /* Every half converts to f32 exactly and back. */
    unsigned bad_conv = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
        float f = fp_fast_f16_to_f32(h);
        uint32_t bits;
        memcpy(&bits, &f, 4);
        uint32_t back = fp_fast_f32_to_f16(bits);
        bool nan = (h & 0x7fff) > 0x7c00;
        bad_conv += nan ? back != 0x7e00 : back != h;
    }
    CHECK(bad_conv == 0, "%u halves do not survive f16 -> f32 -> f16", bad_conv);

    enum { N = 1 << 21 };
    uint16_t *a = malloc(N * 2), *b = malloc(N * 2), *c = malloc(N * 2), *r = malloc(N * 2);
    gen_rng g = {777};
    for (size_t i = 0; i < N; i++) {
        /* Half uniform bits; half products and addends aimed near each other (ties, cancellation). */
        a[i] = (uint16_t)gen_next(&g);
        b[i] = (uint16_t)gen_next(&g);
        c[i] = (uint16_t)gen_next(&g);
        if (gen_coin(&g)) {
            fp_value p = fp_mul(fp_decode(&fp_f16, a[i]), fp_decode(&fp_f16, b[i]));
            if (p.kind == FPK_FINITE) {
                uint64_t y;
                if (gen_addend_exact(p, &fp_f16, &fp_f16, (gen_aim)gen_below(&g, 5), &g, &y))
                    c[i] = (uint16_t)y;
            }
        }
    }
    fp_fast_fma16_array(a, b, c, r, N - 3);  /* a tail that is not a multiple of eight */
    unsigned long bad_scalar = 0, bad_array = 0;
    for (size_t i = 0; i < N - 3; i++) {
        uint16_t want = kit_fma16(a[i], b[i], c[i]);
        if (fp_fast_fma16(a[i], b[i], c[i]) != want && bad_scalar++ < 5)
            CHECK(0, "scalar: %04x * %04x + %04x: %04x, want %04x", a[i], b[i], c[i], fp_fast_fma16(a[i], b[i], c[i]), want);
        if (r[i] != want && bad_array++ < 5)
            CHECK(0, "array: %04x * %04x + %04x: %04x, want %04x", a[i], b[i], c[i], r[i], want);
    }
    CHECK(bad_scalar == 0 && bad_array == 0, "%lu scalar and %lu array results differ from the kit", bad_scalar,
          bad_array);
    printf("fast f16: %d triples, %lu scalar and %lu array differences\n", N - 3, bad_scalar, bad_array);
    return check_report("test_fast_f16");
}
