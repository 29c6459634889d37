/* eng_kind_of, the kind of a disagreement, against the rule written out
 * here on decoded values (the kit's fp_decode), for f32, f16 and f64
 * results, with and without a tie; the pairs mix zeros of both signs,
 * subnormals, infinities, NaNs, neighbours one unit apart and random
 * encodings.  A few pairs are also checked by hand. */
#include "check.h"
#include "engine/signature.h"
#include "fp/fp.h"
#include "isa/classify.h"

static uint64_t state = 0x2545f4914f6cdd1dull;
static uint64_t draw(void)
{
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
}

/* An encoding of f: one of the kinds the rule tells apart, sign drawn. */
static uint64_t encoding(const fp_format *f)
{
    uint64_t sign = (draw() & 1) << (f->bits - 1), frac = (1ull << (f->precision - 1)) - 1;
    uint64_t top = ((1ull << f->exp_bits) - 1) << (f->precision - 1), mask = f->bits == 64 ? ~0ull : (1ull << f->bits) - 1;
    switch (draw() % 6) {
    case 0: return sign;                                  /* a zero */
    case 1: return sign | ((draw() & frac) | 1);          /* a subnormal */
    case 2: return sign | top;                            /* an infinity */
    case 3: return sign | top | ((draw() & frac) | 1);    /* a NaN */
    default: return draw() & mask;                        /* anything */
    }
}

/* The partner a device might give: another encoding, or a unit away. */
static uint64_t partner(const fp_format *f, uint64_t h)
{
    uint64_t mask = f->bits == 64 ? ~0ull : (1ull << f->bits) - 1;
    switch (draw() % 3) {
    case 0: return (h + 1) & mask;
    case 1: return (h - 1) & mask;
    default: return encoding(f);
    }
}

static eng_kind rule(const fp_format *f, uint64_t h, uint64_t d, bool tie)
{
    fp_value hv = fp_decode(f, h), dv = fp_decode(f, d);
    bool hn = hv.kind == FPK_NAN, dn = dv.kind == FPK_NAN;
    if (hn || dn)
        return hn && dn ? KIND_NAN_PAYLOAD : KIND_NAN_VS_NUMBER;
    if ((hv.kind == FPK_INF) != (dv.kind == FPK_INF))
        return KIND_INF_VS_FINITE;
    if (hv.kind == FPK_ZERO && dv.kind == FPK_ZERO)
        return KIND_SIGN_OF_ZERO;
    bool h_sub = hv.kind == FPK_FINITE && fp_msb(hv) < f->emin, d_sub = dv.kind == FPK_FINITE && fp_msb(dv) < f->emin;
    if ((hv.kind == FPK_ZERO && d_sub) || (dv.kind == FPK_ZERO && h_sub))
        return KIND_FLUSH;
    uint64_t sign = 1ull << (f->bits - 1);
    if ((h & sign) == (d & sign) && (h - d == 1 || d - h == 1))
        return tie ? KIND_TIE_DIRECTION : KIND_ONE_UNIT;
    return KIND_OTHER;
}

/* eng_kind_of on one differing pair of op's first result. */
static eng_kind kind_of(const isa_op *op, const fp_format *f, uint64_t h, uint64_t d, bool tie)
{
    uint32_t host[ISA_MAX_OUT] = {0}, dev[ISA_MAX_OUT] = {0};
    host[0] = (uint32_t)h, dev[0] = (uint32_t)d;
    if (f == &fp_f64)
        host[1] = (uint32_t)(h >> 32), dev[1] = (uint32_t)(d >> 32);
    return eng_kind_of(op, tie, host, dev);
}

int main(void)
{
    static const struct {
        const char *op;
        const fp_format *f;
    } formats[] = {{"rdna2.v_fma_f32", &fp_f32}, {"rdna2.v_fma_f16", &fp_f16}, {"rdna2.v_fma_f64", &fp_f64}};
    unsigned seen[KIND_COUNT] = {0};
    for (unsigned k = 0; k < sizeof formats / sizeof formats[0]; k++) {
        const isa_op *op = isa_op_find(formats[k].op);
        const fp_format *f = formats[k].f;
        CHECK(op != NULL, "no op %s", formats[k].op);
        if (!op)
            continue;
        unsigned wrong = 0;
        for (int i = 0; i < 200000; i++) {
            uint64_t h = encoding(f), d = partner(f, h);
            bool tie = draw() & 1;
            if (h == d)
                continue;
            eng_kind want = rule(f, h, d, tie), got = kind_of(op, f, h, d, tie);
            seen[want]++;
            if (got != want && wrong++ < 5)
                CHECK(false, "%s: host %llx device %llx tie %d: %s, the rule says %s", op->name,
                      (unsigned long long)h, (unsigned long long)d, tie, eng_kind_name(got), eng_kind_name(want));
        }
        CHECK(wrong == 0, "%s: %u pairs judged against the rule", op->name, wrong);
    }
    for (int k = 0; k < KIND_COUNT; k++)
        CHECK(seen[k] > 100, "kind %s drawn %u times", eng_kind_name((eng_kind)k), seen[k]);
    /* By hand, f32: -0 vs +0; +inf vs the largest finite; a subnormal vs +0. */
    const isa_op *f32 = isa_op_find("rdna2.v_fma_f32");
    CHECK(kind_of(f32, &fp_f32, 0x80000000u, 0, false) == KIND_SIGN_OF_ZERO, "-0 vs +0");
    CHECK(kind_of(f32, &fp_f32, 0x7f800000u, 0x7f7fffffu, true) == KIND_INF_VS_FINITE, "inf vs largest finite");
    CHECK(kind_of(f32, &fp_f32, 0x00000001u, 0, false) == KIND_FLUSH, "subnormal vs +0");
    CHECK(kind_of(f32, &fp_f32, 0x3f800001u, 0x3f800000u, true) == KIND_TIE_DIRECTION, "a unit at a tie");
    CHECK(kind_of(f32, &fp_f32, 0x7fc00000u, 0x7f800001u, false) == KIND_NAN_PAYLOAD, "two NaNs");
    /* A low f64 word that ends the tuple has no high word to read: a plain
     * word (an op shaped so is made up here; none in the table is). */
    static const isa_word lone_low[1] = {{"d", WORD_F64LO}};
    isa_op lone = {0};
    lone.n_out = 1, lone.out = lone_low;
    uint32_t host[ISA_MAX_OUT + 1] = {1, 0}, dev[ISA_MAX_OUT + 1] = {2, 0};
    CHECK(eng_kind_of(&lone, false, host, dev) == KIND_OTHER, "a lone low f64 word: %s",
          eng_kind_name(eng_kind_of(&lone, false, host, dev)));
    return check_report("kinds");
}
