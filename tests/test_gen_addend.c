/* The double-arithmetic addend constructor (gen_addend) against the exact
 * kit's (gen_addend_exact): the same result, the same y and the same draws
 * from the random stream, for products of every source format pair the
 * families build, every aim and both destinations.  TIEFUZZ_ADDEND_CASES
 * overrides the count (default 2,000,000).  Also: gen_special_kind's kinds
 * below GEN_SPECIAL_KIND_FINITE, and only those, are gen_is_special (the
 * special class's design counts its hits by kind), and each kind's
 * encoding is the one a switch written out here gives (gen_special_kind
 * picks its fields without branches); gen_double_bits says
 * what the kit does of whether a double is a value of f16, f32 or f64, and
 * its encoding. */
#include <math.h>
#include <stdlib.h>
#include "check.h"
#include "fp/fast.h"
#include "gen/gen.h"

static const fp_format *const formats[] = {&fp_f32, &fp_f16};

/* Kind by kind, as the header lists them. */
static uint64_t special_by_switch(const fp_format *f, bool sign, uint64_t payload, unsigned kind)
{
    unsigned fb = f->precision - 1;
    uint64_t exp_all = (1ull << f->exp_bits) - 1, quiet = 1ull << (fb - 1), p = payload & (quiet - 1), e = 0,
             frac = 0;
    switch (kind) {
    case 0: break;
    case 1: e = exp_all; break;
    case 2: e = exp_all, frac = quiet | p; break;
    case 3: e = exp_all, frac = p ? p : 1; break;
    case 4: e = exp_all - 1, frac = (1ull << fb) - 1; break;
    case 5: e = 1; break;
    case 6: frac = 1; break;
    case 7: e = (uint64_t)f->bias; break;
    default: frac = (1ull << fb) - 1; break;
    }
    return (uint64_t)sign << (f->bits - 1) | e << fb | frac;
}

static void special_kinds(void)
{
    /* The tile formats too: the encodings must not depend on the format's kind (e4m3 has no
     * infinity, so the gen_is_special check is for the formats with IEEE specials). */
    static const fp_format *const all[] = {&fp_f16, &fp_f32, &fp_f64, &fp_bf16, &fp_tf32, &fp_e5m2, &fp_e8m13,
                                           &fp_e4m3};
    gen_rng r = {7};
    for (unsigned f = 0; f < sizeof all / sizeof all[0]; f++)
        for (unsigned kind = 0; kind < GEN_SPECIAL_KINDS + 3; kind++)  /* past the last: the last */
            for (int i = 0; i < 64; i++) {
                uint64_t payload = i < 2 ? (uint64_t)-i : gen_next(&r);
                uint64_t bits = gen_special_kind(all[f], i & 1, payload, kind);
                if (kind < GEN_SPECIAL_KINDS && !all[f]->finite_top)
                    CHECK(gen_is_special(all[f], bits) == (kind < GEN_SPECIAL_KIND_FINITE),
                          "%s kind %u (%llx): gen_is_special %d", all[f]->name, kind, (unsigned long long)bits,
                          gen_is_special(all[f], bits));
                uint64_t want = special_by_switch(all[f], i & 1, payload, kind);
                CHECK(bits == want, "%s kind %u payload %llx: %llx, want %llx", all[f]->name, kind,
                      (unsigned long long)payload, (unsigned long long)bits, (unsigned long long)want);
            }
}

static void double_bits(void)
{
    static const fp_format *const all[] = {&fp_f16, &fp_f32, &fp_f64};
    gen_rng r = {11};
    unsigned long wrong = 0, held = 0, n = 300000;
    for (unsigned long i = 0; i < n; i++) {
        const fp_format *f = all[i % 3];
        /* Values of f, of a wider format, exact sums of two of f's, across
         * the range and beyond it, zeros and infinities included. */
        /* Every draw in its own statement: the same inputs whatever order a
         * compiler evaluates arguments in. */
        double y;
        unsigned shape = gen_below(&r, 5);
        bool sign = gen_coin(&r);
        if (shape == 0) {
            int e = gen_range(&r, f->emin - (int)f->precision - 3, f->emax + 2), zeros = gen_range(&r, 0, 52);
            y = fp_dfrom(gen_value_with_exp(&fp_f64, &r, sign, e, zeros));
        } else if (shape == 1) {
            y = fp_dfrom(gen_next(&r));
        } else if (shape == 2) {
            y = sign ? -0.0 : 0.0;
        } else if (shape == 3) {
            y = sign ? -1.0 / 0.0 : 1.0 / 0.0;
        } else {
            int ea = gen_range(&r, f->emin - 3, f->emax), zeros = gen_range(&r, 0, (int)f->precision - 1);
            uint64_t a = gen_value_with_exp(f, &r, sign, ea, zeros);
            bool sb = gen_coin(&r);
            int eb = gen_range(&r, f->emin - 3, f->emax);
            uint64_t b = gen_value_with_exp(f, &r, sb, eb, 0);
            y = fp_dfrom(fp_round(&fp_f64, fp_decode(f, a), FP_RNE, 0)) + fp_dfrom(fp_round(&fp_f64, fp_decode(f, b), FP_RNE, 0));
        }
        fp_value x = fp_from_double(y);
        bool want = x.kind == FPK_FINITE || x.kind == FPK_ZERO ? fp_representable(f, x) : false;
        uint64_t bits = 0;
        bool got = gen_double_bits(f, y, &bits);
        held += want;
        if (got != want || (want && bits != fp_round(f, x, FP_RNE, 0))) {
            if (wrong++ < 10)
                CHECK(0, "gen_double_bits(%s, %a): %d %llx, the kit: %d %llx", f->name, y, got,
                      (unsigned long long)bits, want, (unsigned long long)(want ? fp_round(f, x, FP_RNE, 0) : 0));
        }
    }
    CHECK(wrong == 0, "gen_double_bits: %lu of %lu differ from the kit", wrong, n);
    CHECK(held > n / 5 && held < n - n / 5, "gen_double_bits: %lu of %lu representable: the check says little", held, n);
}

/* x a power of two (a literal K of 1.0 is the addend's x), or just below
 * one (fd's significand all ones, bits below it or not): every tie built is
 * an exact tie at fd, including a unit down from a power of two, which
 * lands in the binade below (the unit halves there; the first design built
 * a number there, not a tie, a sixth of the time for a power of two), and
 * a unit up to one (the unit doubles). */
static void ties_at_powers_of_two(void)
{
    gen_rng r = {77};
    unsigned built = 0, ties = 0;
    for (int i = 0; i < 40000; i++) {
        const fp_format *fd = formats[gen_below(&r, 2)];
        int e = gen_range(&r, fd->emin + 1, fd->emax - 1), p = (int)fd->precision;
        fp_value x = fp_from_int(gen_coin(&r), 1, e);
        if (i % 2) {  /* (2^p - 1) units of 2^(e-p+1), and 0-3 bits below */
            unsigned low = gen_below(&r, 4);
            x = fp_from_int(x.sign, ((((fp_u128)1 << p) - 1) << 2) | low, e - p - 1);
        }
        uint64_t y;
        if (!gen_addend(x, &fp_f32, fd, AIM_TIE, &r, &y))
            continue;
        fp_round_info info;
        fp_round(fd, fp_add(x, fp_decode(&fp_f32, y)), FP_RNE, &info);
        built++;
        ties += info.position == FP_TIE;
    }
    CHECK(built > 20000 && ties == built, "x at a power of two: %u of %u ties built are ties", ties, built);
}

/* A near tie of a product far below an f16 result's subnormal unit (a
 * power of two under 2^-160; an f32 c): y is then the tie point itself, x
 * plus an offset of -x, for the one draw in six whose offset cancels x.  The
 * kit summed the head, half a unit and the offset first, a value spanning
 * over its 128 bits, and the rounding lost what the subtraction of x would
 * have cancelled: it built none of these (and the double kit, summing in
 * another order, differed from it). */
static void near_ties_far_below(void)
{
    gen_rng r = {4242};
    unsigned built = 0, wrong = 0;
    for (int i = 0; i < 600; i++) {
        fp_value x = fp_from_int(gen_coin(&r), 1, gen_range(&r, -200, -160));
        gen_rng r1 = {gen_next(&r)}, r2 = r1;
        uint64_t y1 = 0, y2 = 0;
        bool ok1 = gen_addend(x, &fp_f32, &fp_f16, AIM_NEAR_TIE, &r1, &y1);
        bool ok2 = gen_addend_exact(x, &fp_f32, &fp_f16, AIM_NEAR_TIE, &r2, &y2);
        if (ok1 != ok2 || y1 != y2 || r1.s != r2.s)
            wrong++;
        if (!ok2)
            continue;
        built++;
        /* The tie point: half of f16's subnormal unit, give or take a unit (2^-24; a unit down
         * crosses zero), so |y| is 2^-25 or 3 2^-25. */
        fp_value y = fp_decode(&fp_f32, y2);
        double m = ldexp((double)(uint64_t)y.sig, y.exp) * 0x1p25;
        if (y.kind != FPK_FINITE || (m != 1 && m != 3))
            wrong++;
    }
    CHECK(built > 50 && wrong == 0, "near ties below 2^-160: %u built, %u wrong", built, wrong);
}

/* The addend's format as a fused K-as-c form has it (rdna2_construct.c's
 * f32_product: 24 bits over double's exponent range), x an f32 K: the fast
 * path (its cancel aim takes -x itself where the format holds it, since
 * 2026-12) against the kit, every aim. */
static void wide_addends(void)
{
    static const fp_format wide = {.name = "wide", .bits = 35, .exp_bits = 11, .precision = 24, .emin = -1022,
                                   .emax = 1023, .bias = 1023};
    gen_rng r = {777};
    unsigned long differ = 0, made = 0, n = 200000;
    for (unsigned long i = 0; i < n; i++) {
        uint64_t k = gen_value_with_exp(&fp_f32, &r, gen_coin(&r), gen_range(&r, -150, 127),
                                        gen_below(&r, 2) ? 0 : gen_range(&r, 0, 23));
        fp_value x = fp_decode(&fp_f32, k);
        const fp_format *fd = formats[gen_below(&r, 2)];
        gen_aim aim = (gen_aim)gen_below(&r, 5);
        gen_rng r1 = {gen_next(&r)}, r2 = r1;
        uint64_t y1 = 0, y2 = 0;
        bool ok1 = gen_addend(x, &wide, fd, aim, &r1, &y1), ok2 = gen_addend_exact(x, &wide, fd, aim, &r2, &y2);
        made += ok2;
        if ((ok1 != ok2 || (ok1 && y1 != y2) || r1.s != r2.s) && differ++ < 5)
            CHECK(0, "wide case %lu: K %llx fd %s aim %d: fast %d %llx, exact %d %llx", i, (unsigned long long)k,
                  fd->name, (int)aim, ok1, (unsigned long long)y1, ok2, (unsigned long long)y2);
    }
    CHECK(differ == 0 && made > n / 2, "wide addends: %lu of %lu differ, %lu made", differ, n, made);
}

int main(void)
{
    wide_addends();
    near_ties_far_below();
    special_kinds();
    double_bits();
    ties_at_powers_of_two();
    const char *env = getenv("TIEFUZZ_ADDEND_CASES");
    unsigned long n = env ? strtoul(env, NULL, 10) : 2000000;
    unsigned long mismatches = 0, yes = 0;
    gen_rng r = {12345};
    for (unsigned long i = 0; i < n; i++) {
        const fp_format *fa = formats[gen_below(&r, 2)], *fb = formats[gen_below(&r, 2)];
        const fp_format *fy = formats[gen_below(&r, 2)], *fd = formats[gen_below(&r, 2)];
        /* Operands across the whole range, subnormals and short significands included. */
        uint64_t a = gen_coin(&r) ? gen_next(&r) : gen_value_with_exp(fa, &r, gen_coin(&r), gen_range(&r, fa->emin - 12, fa->emax),
                                                                      gen_range(&r, 0, (int)fa->precision - 1));
        uint64_t b = gen_value_with_exp(fb, &r, gen_coin(&r), gen_range(&r, fb->emin - 12, fb->emax), gen_below(&r, 3) ? 0 : gen_range(&r, 0, (int)fb->precision - 1));
        fp_value x = fp_mul(fp_decode(fa, a & ((1ull << fa->bits) - 1)), fp_decode(fb, b));
        if (gen_below(&r, 4) == 0)  /* a rounded product, held untrimmed as the legacy forms hold it */
            x = fp_decode(&fp_f32, fp_round(&fp_f32, x, FP_RNE, 0));
        gen_aim aim = (gen_aim)gen_below(&r, 5);
        gen_rng r1 = {gen_next(&r)}, r2 = r1;
        uint64_t y1 = 0, y2 = 0;
        bool ok1 = gen_addend(x, fy, fd, aim, &r1, &y1);
        bool ok2 = gen_addend_exact(x, fy, fd, aim, &r2, &y2);
        yes += ok2;
        if (ok1 != ok2 || (ok1 && y1 != y2) || r1.s != r2.s) {
            if (mismatches++ < 10)
                CHECK(0, "case %lu: x %s*2^%d, fy %s fd %s aim %d: fast %d %llx, exact %d %llx, draws %s", i,
                      x.sign ? "-" : "+", x.exp, fy->name, fd->name, (int)aim, ok1, (unsigned long long)y1, ok2,
                      (unsigned long long)y2, r1.s == r2.s ? "same" : "differ");
        }
    }
    CHECK(mismatches == 0, "%lu of %lu differ", mismatches, n);
    CHECK(yes > n / 4, "only %lu of %lu constructions succeeded: the comparison says little", yes, n);
    printf("gen_addend vs gen_addend_exact: %lu cases, %lu constructed, %lu differ\n", n, yes, mismatches);
    return check_report("test_gen_addend");
}
