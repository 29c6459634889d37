/* The emulated lowering of the tensor-core ops: the T-FDPA algorithm in
 * 32-bit integer SPIR-V, one invocation per output word (mma_eval.c is the
 * same algorithm on the host).  Every aligned term is below 2^(F+2), so with
 * at most 17 terms a step's positive and negative parts each fit 32 bits. */
#include <stdio.h>
#include "mma.h"
#include "../spirv/builder.h"
#include "../spirv/kernel.h"

typedef struct {
    spv_builder *b;
    const spv_tile *t;
} ctx;

static unsigned u(ctx *c, uint32_t v) { return sb_u32(c->b, v); }
static unsigned iconst(ctx *c, int32_t v) { return sb_bitcast(c->b, T_U32, sb_i32(c->b, v)); }
static unsigned op2(ctx *c, const char *op, unsigned x, unsigned y)
{
    char fmt[48];
    snprintf(fmt, sizeof fmt, "%s $ $", op);
    return sb_op(c->b, T_U32, fmt, x, y);
}
static unsigned cmp(ctx *c, const char *op, unsigned x, unsigned y)
{
    char fmt[48];
    snprintf(fmt, sizeof fmt, "%s $ $", op);
    return sb_op(c->b, T_BOOL, fmt, x, y);
}
static unsigned sel(ctx *c, unsigned cond, unsigned x, unsigned y) { return sb_select(c->b, T_U32, cond, x, y); }
static unsigned band(ctx *c, unsigned x, unsigned y) { return sb_op(c->b, T_BOOL, "OpLogicalAnd $ $", x, y); }
static unsigned bor(ctx *c, unsigned x, unsigned y) { return sb_op(c->b, T_BOOL, "OpLogicalOr $ $", x, y); }
static unsigned bnot(ctx *c, unsigned x) { return sb_op(c->b, T_BOOL, "OpLogicalNot $", x); }
/* Signed comparisons on u32 ids holding i32 values. */
static unsigned slt(ctx *c, unsigned x, unsigned y)
{
    return sb_op(c->b, T_BOOL, "OpSLessThan $ $", sb_bitcast(c->b, T_I32, x), sb_bitcast(c->b, T_I32, y));
}
static unsigned smax(ctx *c, unsigned x, unsigned y) { return sel(c, slt(c, x, y), y, x); }
/* x >> s, or x << -s, for a signed shift s; anything shifted 32 or more is 0. */
static unsigned shift_right_signed(ctx *c, unsigned x, unsigned s)
{
    unsigned neg = slt(c, s, iconst(c, 0));
    unsigned amount = sel(c, neg, op2(c, "OpISub", u(c, 0), s), s);
    unsigned big = cmp(c, "OpUGreaterThanEqual", amount, u(c, 32));
    unsigned safe = sel(c, big, u(c, 0), amount);
    unsigned right = op2(c, "OpShiftRightLogical", x, safe), left = op2(c, "OpShiftLeftLogical", x, safe);
    return sel(c, big, u(c, 0), sel(c, neg, left, right));
}

typedef struct {
    unsigned sign, sig, unit, exp;   /* u32 ids (unit and exp hold i32 values) */
    unsigned zero, nan, inf;         /* bool ids */
} term;

typedef struct { unsigned exp_bits, frac_bits; int bias; bool e4m3; unsigned shift; } layout;

static layout layout_of(mma_type t)
{
    const fp_format *f = mma_format(t);  /* tf32: bits 31:13 of an f32 word */
    return (layout){f->exp_bits, f->precision - 1, f->bias, f->finite_top, mma_ignored_bits(t)};
}

static term decode(ctx *c, mma_type t, unsigned bits)
{
    layout f = layout_of(t);
    if (f.shift)
        bits = sb_shr(c->b, bits, f.shift);
    uint32_t emax = (1u << f.exp_bits) - 1, fmask = (1u << f.frac_bits) - 1;
    unsigned ex = sb_and(c->b, sb_shr(c->b, bits, f.frac_bits), emax);
    unsigned fr = sb_and(c->b, bits, fmask);
    term x;
    x.sign = sb_and(c->b, sb_shr(c->b, bits, f.exp_bits + f.frac_bits), 1);
    unsigned special = f.e4m3 ? cmp(c, "OpIEqual", sb_and(c->b, bits, 0x7f), u(c, 0x7f)) : sb_ieq(c->b, ex, emax);
    x.nan = f.e4m3 ? special : band(c, special, sb_ugt(c->b, fr, 0));
    x.inf = f.e4m3 ? sb_bool(c->b, false) : band(c, special, sb_ieq(c->b, fr, 0));
    unsigned normal = sb_ugt(c->b, ex, 0);
    x.exp = sel(c, normal, op2(c, "OpISub", ex, iconst(c, f.bias)), iconst(c, 1 - f.bias));
    x.sig = sel(c, normal, op2(c, "OpBitwiseOr", fr, u(c, fmask + 1)), fr);
    x.sig = sel(c, special, u(c, 0), x.sig);
    x.unit = op2(c, "OpISub", x.exp, iconst(c, (int32_t)f.frac_bits));  /* tf32: the shift already dropped the zero bits */
    x.zero = band(c, sb_ieq(c->b, x.sig, 0), bnot(c, special));
    return x;
}

/* Element index -> its bits, from the part starting at word offset base. */
static unsigned element(ctx *c, mma_type t, uint32_t base, unsigned index)
{
    unsigned per = mma_per_word(t), bits = 32 / per;
    if (per == 1)
        return spv_tile_load(c->b, c->t, op2(c, "OpIAdd", index, u(c, base)));
    unsigned word = spv_tile_load(c->b, c->t, op2(c, "OpIAdd", op2(c, "OpUDiv", index, u(c, per)), u(c, base)));
    unsigned shift = op2(c, "OpIMul", op2(c, "OpUMod", index, u(c, per)), u(c, bits));
    return sb_and(c->b, op2(c, "OpShiftRightLogical", word, shift), (1u << bits) - 1);
}

/* Round sign * mag * 2^grid (mag nonzero) to the output, as mma_eval does. */
static unsigned round_out(ctx *c, int rho, unsigned sign, unsigned mag, unsigned grid)
{
    unsigned msb = sb_glsl(c->b, T_U32, "FindUMsb $", mag);
    unsigned e = op2(c, "OpIAdd", msb, grid);
    if (rho == RHO_RNE_FP16) {
        unsigned normal = bnot(c, slt(c, e, iconst(c, -14)));
        /* bits dropped: msb - 10 when normal, -(grid + 24) below */
        unsigned drop = sel(c, normal, op2(c, "OpISub", msb, u(c, 10)), op2(c, "OpISub", u(c, 0), op2(c, "OpIAdd", grid, u(c, 24))));
        unsigned keep = shift_right_signed(c, mag, drop);
        /* Nearest-even on the dropped bits, for 1 <= drop <= 32. */
        unsigned rounds = band(c, bnot(c, slt(c, drop, iconst(c, 1))), bnot(c, slt(c, iconst(c, 32), drop)));
        unsigned d = sel(c, rounds, drop, u(c, 1));                      /* 1..32 */
        unsigned low = sel(c, cmp(c, "OpULessThan", d, u(c, 32)),
                           op2(c, "OpISub", op2(c, "OpShiftLeftLogical", u(c, 1), sb_and(c->b, d, 31)), u(c, 1)),
                           u(c, 0xffffffffu));
        unsigned rem = op2(c, "OpBitwiseAnd", mag, low);
        unsigned half = op2(c, "OpShiftLeftLogical", u(c, 1), op2(c, "OpISub", d, u(c, 1)));
        unsigned odd = sb_ugt(c->b, sb_and(c->b, keep, 1), 0);
        unsigned up = band(c, rounds, bor(c, cmp(c, "OpUGreaterThan", rem, half), band(c, cmp(c, "OpIEqual", rem, half), odd)));
        unsigned inc = sel(c, up, u(c, 1), u(c, 0));
        /* normal: (e + 15 - 1) << 10 plus keep (its hidden bit adds one to the field) */
        unsigned nbits = op2(c, "OpIAdd", op2(c, "OpIAdd", op2(c, "OpShiftLeftLogical", op2(c, "OpIAdd", e, u(c, 14)), u(c, 10)), keep), inc);
        unsigned sbits = op2(c, "OpIAdd", keep, inc);
        unsigned r = sel(c, normal, nbits, sbits);
        unsigned over = bor(c, slt(c, iconst(c, 15), e), cmp(c, "OpUGreaterThanEqual", r, u(c, 0x7c00)));
        r = sel(c, band(c, normal, over), u(c, 0x7c00), r);
        return op2(c, "OpBitwiseOr", r, op2(c, "OpShiftLeftLogical", sign, u(c, 15)));
    }
    const fp_format *kept = rho == RHO_RZ_E8M13 ? &fp_e8m13 : &fp_f32;  /* f32 with fewer significand bits */
    unsigned p = kept->precision, pad = 24 - p;
    int sub_unit = kept->emin - (int)(p - 1);
    unsigned normal = bnot(c, slt(c, e, iconst(c, -126)));
    unsigned nkeep = shift_right_signed(c, mag, op2(c, "OpISub", msb, u(c, p - 1)));
    unsigned nbits = op2(c, "OpBitwiseOr", op2(c, "OpShiftLeftLogical", op2(c, "OpIAdd", e, u(c, 127)), u(c, 23)),
                         op2(c, "OpShiftLeftLogical", sb_and(c->b, nkeep, (1u << (p - 1)) - 1), u(c, pad)));
    unsigned skeep = shift_right_signed(c, mag, op2(c, "OpISub", u(c, 0), op2(c, "OpIAdd", grid, iconst(c, -sub_unit))));
    unsigned sbits = op2(c, "OpShiftLeftLogical", skeep, u(c, pad));
    unsigned r = sel(c, normal, nbits, sbits);
    r = sel(c, slt(c, iconst(c, 127), e), u(c, 0x7f800000), r);  /* 2^128 and above: infinity */
    return op2(c, "OpBitwiseOr", r, op2(c, "OpShiftLeftLogical", sign, u(c, 31)));
}

/* One element of D. */
static unsigned element_out(ctx *c, const isa_instance *in, const mma_row *row, unsigned e)
{
    unsigned n = row->n, k = row->k;
    uint32_t wa = mma_words(row->ab, row->m * k), wb = mma_words(row->ab, k * n);
    unsigned i = op2(c, "OpUDiv", e, u(c, n)), j = op2(c, "OpUMod", e, u(c, n));
    mma_type key = in->param[PARAM_E_ZERO_KEY] ? row->c : row->d;
    int ez = key == MMA_F16 ? in->param[PARAM_E_ZERO_F16] : in->param[PARAM_E_ZERO_F32];
    int F = in->param[PARAM_F];
    unsigned lmax = (unsigned)in->param[PARAM_L_MAX];
    unsigned acc = element(c, row->c, wa + wb, e);
    mma_type acc_type = row->c;
    unsigned row_base = op2(c, "OpIMul", i, u(c, k)), col_base = op2(c, "OpIMul", j, u(c, k));
    for (unsigned k0 = 0; k0 < k; k0 += lmax) {
        unsigned l = k - k0 < lmax ? k - k0 : lmax;
        term t[65];
        unsigned nan = sb_bool(c->b, false), pinf = nan, ninf = nan;
        for (unsigned q = 0; q < l; q++) {
            term a = decode(c, row->ab, element(c, row->ab, 0, op2(c, "OpIAdd", row_base, u(c, k0 + q))));
            term bb = decode(c, row->ab, element(c, row->ab, wa, op2(c, "OpIAdd", col_base, u(c, k0 + q))));
            term p;
            p.sign = op2(c, "OpBitwiseXor", a.sign, bb.sign);
            p.sig = op2(c, "OpIMul", a.sig, bb.sig);
            p.unit = op2(c, "OpIAdd", a.unit, bb.unit);
            p.zero = sb_ieq(c->b, p.sig, 0);
            p.exp = sel(c, p.zero, iconst(c, ez), op2(c, "OpIAdd", a.exp, bb.exp));
            unsigned any_inf = bor(c, a.inf, bb.inf);
            nan = bor(c, nan, bor(c, bor(c, a.nan, bb.nan), bor(c, band(c, a.inf, bb.zero), band(c, bb.inf, a.zero))));
            unsigned neg = sb_ugt(c->b, p.sign, 0);
            pinf = bor(c, pinf, band(c, any_inf, bnot(c, neg)));
            ninf = bor(c, ninf, band(c, any_inf, neg));
            t[q] = p;
        }
        term cv = decode(c, acc_type, acc);
        nan = bor(c, nan, cv.nan);
        unsigned cneg = sb_ugt(c->b, cv.sign, 0);
        pinf = bor(c, pinf, band(c, cv.inf, bnot(c, cneg)));
        ninf = bor(c, ninf, band(c, cv.inf, cneg));
        cv.exp = sel(c, cv.zero, iconst(c, ez), cv.exp);
        t[l] = cv;
        unsigned emax = t[0].exp;
        for (unsigned q = 1; q <= l; q++)
            emax = smax(c, emax, t[q].exp);
        unsigned grid = op2(c, "OpISub", emax, u(c, (uint32_t)F));
        unsigned pos = u(c, 0), negsum = u(c, 0);
        for (unsigned q = 0; q <= l; q++) {
            /* truncated on the grid: sig * 2^(unit - grid), toward zero */
            unsigned s = op2(c, "OpISub", t[q].unit, grid);
            unsigned m = shift_right_signed(c, t[q].sig, op2(c, "OpISub", u(c, 0), s));
            unsigned neg = sb_ugt(c->b, t[q].sign, 0);
            pos = op2(c, "OpIAdd", pos, sel(c, neg, u(c, 0), m));
            negsum = op2(c, "OpIAdd", negsum, sel(c, neg, m, u(c, 0)));
        }
        unsigned negative = cmp(c, "OpULessThan", pos, negsum);
        unsigned mag = sel(c, negative, op2(c, "OpISub", negsum, pos), op2(c, "OpISub", pos, negsum));
        unsigned sign = sel(c, negative, u(c, 1), u(c, 0));
        unsigned r = round_out(c, in->param[PARAM_RHO], sign, mag, grid);
        r = sel(c, sb_ieq(c->b, mag, 0), u(c, 0), r);  /* an exactly zero sum is +0 */
        bool f16 = row->d == MMA_F16;
        r = sel(c, bor(c, pinf, ninf), u(c, f16 ? 0x7c00 : 0x7f800000), r);
        r = sel(c, ninf, u(c, f16 ? 0xfc00 : 0xff800000u), r);
        r = sel(c, bor(c, nan, band(c, pinf, ninf)), u(c, f16 ? 0x7fff : 0x7fffffff), r);
        acc = r;
        acc_type = row->d;
    }
    return acc;
}

const char *mma_lower_tile(const isa_instance *in, isa_lowering l, spv_builder *b, const spv_tile *t, unsigned *out)
{
    (void)l;
    const mma_row *row = mma_row_of(in->op);
    int F = in->param[PARAM_F], lmax = in->param[PARAM_L_MAX];
    int terms = lmax + 1, bits = 0;
    while ((1 << bits) < terms)
        bits++;
    if (F + 2 + bits > 32)
        return "the emulated lowering keeps a step's sum in 32-bit halves: F + 2 + log2(L_max + 1) must be at most 32";
    ctx c = {b, t};
    unsigned per = mma_per_word(row->d);
    unsigned first = op2(&c, "OpIMul", t->sub, u(&c, per));
    if (per == 1) {
        out[0] = element_out(&c, in, row, first);
        return NULL;
    }
    unsigned lo = element_out(&c, in, row, first);
    unsigned hi = element_out(&c, in, row, op2(&c, "OpIAdd", first, u(&c, 1)));
    out[0] = op2(&c, "OpBitwiseOr", lo, op2(&c, "OpShiftLeftLogical", hi, u(&c, 16)));
    return NULL;
}
