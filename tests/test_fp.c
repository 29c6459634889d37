/* Unit tests of the exact floating-point kit. */
#include "check.h"
#include "fp/fp.h"
#include "gen/gen.h"  /* gen_next: the test's own stream, fixed by its seed */

static uint64_t rne(const fp_format *f, fp_value v, fp_round_info *i) { return fp_round(f, v, FP_RNE, i); }

/* A source value of a narrow format: any pattern, or a finite one whose
 * exponent lies within spread of e (the product and addend then land at
 * every gap, close ones most: the cancellations and the jam's edges). */
static fp_value source(gen_rng *x, const fp_format *f, int e, int spread)
{
    uint64_t r = gen_next(x), bits = r >> (64 - f->bits);
    if (r % 8 == 0)
        return fp_decode(f, bits);  /* specials, zeros and subnormals as they come */
    int biased = e + f->bias + (int)((r >> 3) % (uint64_t)(2 * spread + 1)) - spread;
    int top = (1 << f->exp_bits) - 2;
    biased = biased < 0 ? 0 : biased > top ? top : biased;
    uint64_t frac = bits & ((1ull << (f->precision - 1)) - 1);
    return fp_decode(f, (bits >> (f->bits - 1)) << (f->bits - 1) | (uint64_t)biased << (f->precision - 1) | frac);
}

/* fp_fused_round against fp_round(fp_add(fp_mul)) on n triples: sources of
 * f32, f16 and bf16, every destination it takes in words and one it does
 * not, each rounding mode; a third of the addends the negated product
 * rounded to f32 and nudged a few units (the deepest cancellations). */
static void fused_against_kit(long n)
{
    const fp_format *src[] = {&fp_f32, &fp_f16, &fp_bf16};
    const fp_format *dest[] = {&fp_f32, &fp_f16, &fp_bf16, &fp_tf32, &fp_e8m13, &fp_f64};
    gen_rng x = {12345};
    long bad = 0;
    for (long i = 0; i < n; i++) {
        const fp_format *fa = src[gen_next(&x) % 3], *fb = src[gen_next(&x) % 3], *fc = src[gen_next(&x) % 3];
        const fp_format *fd = dest[gen_next(&x) % 6];
        fp_rounding mode = (fp_rounding)(gen_next(&x) % 3);
        int ea = (int)(gen_next(&x) % 60) - 30, eb = (int)(gen_next(&x) % 60) - 30;
        fp_value a = source(&x, fa, ea, 4), b = source(&x, fb, eb, 4);
        fp_value c = source(&x, fc, ea + eb, 70);
        if (gen_next(&x) % 3 == 0) {
            uint64_t p = fp_round(&fp_f32, fp_mul(a, b), FP_RNE, NULL) ^ 0x80000000u;
            c = fp_decode(&fp_f32, fp_is_nan_bits(&fp_f32, p) ? p : p + (gen_next(&x) % 7) - 3);
        }
        uint64_t want = fp_round(fd, fp_add(fp_mul(a, b), c), mode, NULL);
        uint64_t got = fp_fused_round(fd, a, b, c, mode);
        if (got != want && bad++ < 5)
            CHECK_EQ_HEX(got, want, "fp_fused_round");
    }
    CHECK(bad == 0, "fp_fused_round: %ld of %ld triples differ from the kit's general path", bad, n);
}

int main(void)
{
    fp_round_info info;
    /* Every pattern of each format of 22 bits or fewer but f16 (the loop
     * below): bf16 and the tensor-core operands' tf32, e4m3, e5m2 and e8m13
     * decode and round back to themselves, subnormals included. */
    const fp_format *narrow[] = {&fp_bf16, &fp_tf32, &fp_e4m3, &fp_e5m2, &fp_e8m13};
    for (size_t i = 0; i < sizeof narrow / sizeof narrow[0]; i++)
        for (uint64_t b = 0; b >> narrow[i]->bits == 0; b++)
            if (!fp_is_nan_bits(narrow[i], b))
                CHECK_EQ_HEX(rne(narrow[i], fp_decode(narrow[i], b), NULL), b, narrow[i]->name);
    /* Decode / round trips over a spread of f32 and f16 patterns, specials aside. */
    for (uint64_t b = 0; b < 0x10000; b++) {
        if (fp_is_nan_bits(&fp_f16, b))
            continue;
        CHECK_EQ_HEX(rne(&fp_f16, fp_decode(&fp_f16, b), &info), b, "f16 round trip");
    }
    for (uint64_t b = 0; b < 0x100000000ull; b += 0x10001) {
        if (fp_is_nan_bits(&fp_f32, b))
            continue;
        CHECK_EQ_HEX(rne(&fp_f32, fp_decode(&fp_f32, b), NULL), b, "f32 round trip");
    }
    /* The encoding tests agree with decoding: every f16 and e4m3 pattern (e4m3
     * has no infinity), f32 and f64 at their zeros and infinities. */
    const fp_format *small[2] = {&fp_f16, &fp_e4m3};
    for (int k = 0; k < 2; k++)
        for (uint64_t b = 0; b < (1ull << small[k]->bits); b++) {
            fp_value v = fp_decode(small[k], b);
            CHECK(fp_is_inf_bits(small[k], b) == (v.kind == FPK_INF), "%s %llx infinity", small[k]->name,
                  (unsigned long long)b);
            CHECK(fp_is_zero_bits(small[k], b) == (v.kind == FPK_ZERO), "%s %llx zero", small[k]->name,
                  (unsigned long long)b);
        }
    CHECK(fp_is_inf_bits(&fp_f32, 0xff800000) && !fp_is_inf_bits(&fp_f32, 0x7f800001), "f32 infinity");
    CHECK(fp_is_inf_bits(&fp_f64, 0x7ff0000000000000ull) && fp_is_zero_bits(&fp_f64, 1ull << 63), "f64 inf, -0");
    /* (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: a tie at f32, to even. */
    fp_value a = fp_decode(&fp_f32, 0x3f800800);
    fp_value p = fp_mul(a, a);
    CHECK_EQ_HEX(rne(&fp_f32, p, &info), 0x3f801000, "product tie rounds to even");
    CHECK(info.position == FP_TIE, "position %s", fp_position_name(info.position));
    CHECK(info.guard && !info.sticky, "guard %d sticky %d", info.guard, info.sticky);
    CHECK_EQ_HEX(fp_round(&fp_f32, p, FP_RTZ, NULL), 0x3f801000, "toward zero");
    CHECK_EQ_HEX(fp_round(&fp_f32, p, FP_RTO, NULL), 0x3f801001, "to odd");
    /* Products of significands within 64 bits take fp_mul's 64-bit path while
     * the product fits 127 bits: exact, not jammed, trailing zeros trimmed. */
    uint64_t x63 = 0x6c8e5a3f1d2b4c97ull, y64 = 0xf3a1c5e7092b6d4bull;
    p = fp_mul(fp_from_int(false, (fp_u128)x63 << 3, -5), fp_from_int(true, y64, 7));
    CHECK(p.sign && !p.jammed && p.sig == (fp_u128)x63 * y64 && p.exp == 5, "63 x 64 bits exact (exp %d)", p.exp);
    /* Two odd 64-bit significands make 128 bits: cut to 127, the lost bit jammed. */
    p = fp_mul(fp_from_int(false, y64 | 1ull << 63, 0), fp_from_int(false, y64 | 1ull << 63, 0));
    CHECK(p.jammed && fp_bit_length(p.sig) == 127 && (p.sig & 1) && p.exp == 1, "64 x 64 bits cut to 127");
    /* Exact cancellation is +0; -0 + -0 is -0. */
    fp_value s = fp_add(fp_decode(&fp_f32, 0x3f800000), fp_decode(&fp_f32, 0xbf800000));
    CHECK(s.kind == FPK_ZERO && !s.sign, "x - x is +0");
    s = fp_add(fp_zero(true), fp_zero(true));
    CHECK(s.kind == FPK_ZERO && s.sign, "-0 + -0 is -0");
    /* inf * 0 and inf - inf are NaN. */
    CHECK(fp_mul(fp_inf(false), fp_zero(false)).kind == FPK_NAN, "inf * 0");
    CHECK(fp_add(fp_inf(false), fp_inf(true)).kind == FPK_NAN, "inf - inf");
    /* Subnormal results: half the smallest subnormal is a tie to +0; a bit
     * more rounds up to it. */
    fp_value half_min = fp_from_int(false, 1, -150);
    CHECK_EQ_HEX(rne(&fp_f32, half_min, &info), 0, "2^-150 ties to +0");
    CHECK(info.tiny && info.position == FP_TIE, "tiny tie");
    CHECK_EQ_HEX(rne(&fp_f32, fp_from_int(false, 3, -151), NULL), 1, "3*2^-151 rounds up to 2^-149");
    CHECK_EQ_HEX(rne(&fp_f16, fp_from_int(false, 1, -25), NULL), 0, "f16: 2^-25 ties to +0");
    /* Overflow: the midpoint to infinity rounds to infinity (to even). */
    fp_value mid = fp_sub(fp_from_int(false, 1, 128), fp_from_int(false, 1, 103));
    CHECK_EQ_HEX(rne(&fp_f32, mid, &info), 0x7f800000, "midpoint to infinity");
    CHECK(info.overflow, "overflow flagged");
    CHECK_EQ_HEX(rne(&fp_f32, fp_sub(mid, fp_from_int(false, 1, 80)), NULL), 0x7f7fffff, "just below stays finite");
    /* A far-away addend only contributes a sticky bit, correctly. */
    fp_value one = fp_decode(&fp_f32, 0x3f800000);
    fp_value tiny = fp_from_int(false, 1, -400);
    fp_value halfulp = fp_from_int(false, 1, -24);
    CHECK_EQ_HEX(rne(&fp_f32, fp_add(fp_add(one, halfulp), tiny), NULL), 0x3f800001, "tie + tiny rounds up");
    CHECK_EQ_HEX(rne(&fp_f32, fp_sub(fp_add(one, halfulp), tiny), NULL), 0x3f800000, "tie - tiny rounds down");
    /* Flushing keeps the sign. */
    CHECK_EQ_HEX(fp_flush_bits(&fp_f32, 0x80000001), 0x80000000, "flush -subnormal");
    CHECK_EQ_HEX(fp_flush_bits(&fp_f16, 0x03ff), 0, "flush f16 subnormal");
    char buf[256];
    CHECK(fp_value_hexfloat(p, buf, sizeof buf) && buf[0] == '0', "hexfloat %s", buf);
    fused_against_kit(2000000);
    CHECK(fp_check_host_environment() == NULL, "host environment: %s", fp_check_host_environment());
    return check_report("test_fp");
}
