/* The characterize probes: per width, the operands that tell each pair of
 * behaviours apart, with the bits each behaviour gives (worked by hand; the
 * comments say how).  Generated once into a static table. */
#include <stdio.h>
#include <string.h>
#include "characterize.h"

/* Operands and results of one width. */
typedef struct {
    unsigned w;
    const char *name;                 /* "f32" */
    uint64_t pos0, neg0, inf, one;
    /* a = b = 1 + 2^-(p/2), c = -(1 + 2^-(p/2 - 1)): the exact a*b + c is one
     * bit below the product's rounding point, so fused gives it, unfused 0. */
    uint64_t fma_a, fma_c, fused;
    /* Denormals: the smallest subnormal d, the smallest normal N. */
    uint64_t d, n, n_plus_d, n_1_5, neg_n, half_n;
    uint64_t big, d_times_big;        /* d * big is normal */
    uint64_t tiny, tiny_sq;           /* tiny * tiny is subnormal */
    uint64_t qnan_a, qnan_b, qnan_canon, snan, snan_quiet;
} width_k;

static const width_k widths[3] = {
    {16, "f16", 0x0000, 0x8000, 0x7c00, 0x3c00,
     /* (1 + 2^-6)^2 = 1 + 2^-5 + 2^-12; 2^-12 = 0x0c00 */
     0x3c10, 0xbc20, 0x0c00,
     /* 2^-24, 2^-14, 2^-14 + 2^-24, 1.5 * 2^-14, -2^-14, 2^-15 */
     0x0001, 0x0400, 0x0401, 0x0600, 0x8400, 0x0200,
     /* 2^11, 2^-13; 2^-8, 2^-16 */
     0x6800, 0x0800, 0x1c00, 0x0100,
     0x7e01, 0x7e02, 0x7e00, 0x7c01, 0x7e01},
    {32, "f32", 0x00000000, 0x80000000, 0x7f800000, 0x3f800000,
     /* (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 */
     0x3f800800, 0xbf801000, 0x33800000,
     /* 2^-149, 2^-126, ..., 2^-127 */
     0x00000001, 0x00800000, 0x00800001, 0x00c00000, 0x80800000, 0x00400000,
     /* 2^24, 2^-125; 2^-70, 2^-140 */
     0x4b800000, 0x01000000, 0x1c800000, 0x00000200,
     0x7fc00001, 0x7fc00002, 0x7fc00000, 0x7f800001, 0x7fc00001},
    {64, "f64", 0, 0x8000000000000000, 0x7ff0000000000000, 0x3ff0000000000000,
     /* (1 + 2^-27)^2 = 1 + 2^-26 + 2^-54 */
     0x3ff0000002000000, 0xbff0000004000000, 0x3c90000000000000,
     /* 2^-1074, 2^-1022, ..., 2^-1023 */
     0x1, 0x0010000000000000, 0x0010000000000001, 0x0018000000000000, 0x8010000000000000, 0x0008000000000000,
     /* 2^60, 2^-1014; 2^-520, 2^-1040 */
     0x43b0000000000000, 0x0090000000000000, 0x1f70000000000000, 0x0000000400000000,
     0x7ff8000000000001, 0x7ff8000000000002, 0x7ff8000000000000, 0x7ff0000000000001, 0x7ff8000000000001},
};

#define MAX_PROBES 160
static ch_probe table[MAX_PROBES];
static unsigned n_table;

static ch_probe *add(const char *topic, const char *question, const width_k *k, const char *id_fmt, unsigned modes)
{
    ch_probe *p = &table[n_table++];
    memset(p, 0, sizeof *p);
    snprintf(p->id, sizeof p->id, id_fmt, k->name);
    p->topic = topic;
    p->question = question;
    p->in_width = p->out_width = k->w;
    p->modes = modes;
    p->consts = p->decor = "";
    return p;
}

static void tuple(ch_probe *p, uint64_t a, uint64_t b, uint64_t c, const ch_alt *alts, unsigned n)
{
    ch_tuple *t = &p->tuple[p->n_tuples++];
    t->in[0] = a, t->in[1] = b, t->in[2] = c;
    memcpy(t->alt, alts, n * sizeof *alts);
}

#define ALTS(...) (const ch_alt[]){__VA_ARGS__}, sizeof (ch_alt[]){__VA_ARGS__} / sizeof(ch_alt)

static const char fma_body[] = "%r = OpExtInst $O %glsl Fma %a %b %c\n";
static const char muladd_body[] = "%p = OpFMul $O %a %b\n%r = OpFAdd $O %p %c\n";
static const char nocontract_decor[] = "OpDecorate %p NoContraction\nOpDecorate %r NoContraction\n";

/* f16 has a second tuple that tells an exact multiply-add from one done in
 * f32 and rounded to f16: a = 2^-11 (1 + 2^-10), b = -(1 - 2^-10),
 * c = 1 + 2^-10, so a*b + c = 1 + 2^-11 + 2^-31, just above the f16 tie.
 * Exact: 0x3c01.  In f32 the 2^-31 is lost, the tie goes to even: 0x3c00.
 * Product rounded to f16 first (-2^-11): 1 + 2^-11, the tie again: 0x3c00. */
static void f16_muladd(ch_probe *p, const char *fused, const char *in_f32, const char *f16_product)
{
    tuple(p, 0x3c10, 0x3c10, 0xbc20, ALTS({fused, 0x0c00, false}, {in_f32, 0x0c00, false}, {f16_product, 0, false}));
    tuple(p, 0x1001, 0xbbfe, 0x3c01, ALTS({fused, 0x3c01, false}, {in_f32, 0x3c00, false}, {f16_product, 0x3c00, false}));
}

static void muladd_probes(const width_k *k)
{
    ch_probe *p = add("fma", "GLSL.std.450 Fma: one rounding or two?", k, "fma.%s", 0);
    p->body = fma_body;
    if (k->w == 16)
        f16_muladd(p, "fused", "computed in f32, rounded to f16", "product rounded to f16");
    else
        tuple(p, k->fma_a, k->fma_a, k->fma_c, ALTS({"fused", k->fused, false}, {"unfused", 0, false}));

    p = add("contraction", "OpFMul then OpFAdd, no decoration: contracted to a fused multiply-add?", k,
            "contract.%s", 0);
    p->body = muladd_body;
    if (k->w == 16)
        f16_muladd(p, "contracted", "computed in f32, rounded to f16", "not contracted");
    else
        tuple(p, k->fma_a, k->fma_a, k->fma_c, ALTS({"contracted", k->fused, false}, {"not contracted", 0, false}));

    p = add("contraction", "OpFMul then OpFAdd, both NoContraction: honoured?", k, "nocontract.%s", 0);
    p->body = muladd_body;
    p->decor = nocontract_decor;
    if (k->w == 16)
        f16_muladd(p, "contracted despite NoContraction", "computed in f32, rounded to f16", "honoured");
    else
        tuple(p, k->fma_a, k->fma_a, k->fma_c,
              ALTS({"contracted despite NoContraction", k->fused, false}, {"honoured", 0, false}));
}

static const char *const mode_suffix[] = {"", ".preserve", ".flush"};
static const unsigned denorm_modes[] = {0, CH_DENORM_PRESERVE, CH_DENORM_FLUSH};

static void denorm_probes(const width_k *k)
{
    static const char add_b[] = "%r = OpFAdd $O %a %b\n", mul_b[] = "%r = OpFMul $O %a %b\n";
    for (unsigned m = 0; m < 3; m++) {
        char id[48];
        ch_probe *p;
#define DENORM(name, question, code, a, b, c, kept)                                                          \
    snprintf(id, sizeof id, "denorm." name ".%%s%s", mode_suffix[m]);                                        \
    p = add("denormals", question, k, id, denorm_modes[m]);                                                  \
    p->body = code;                                                                                          \
    tuple(p, a, b, c, ALTS({"preserved", kept, false}, {"flushed", k->pos0, false}, {"flushed", k->neg0, false}))
        DENORM("add.in", "OpFAdd, a subnormal input (N + d): kept or flushed?", add_b, k->d, k->n, 0, k->n_plus_d);
        /* Flushing the input d gives N, not zero. */
        p->tuple[0].alt[1].bits = k->n, p->tuple[0].alt[2].bits = k->n;
        DENORM("add.out", "OpFAdd, a subnormal result (1.5N - N): kept or flushed?", add_b, k->n_1_5, k->neg_n, 0,
               k->half_n);
        DENORM("mul.in", "OpFMul, a subnormal input with a normal product: kept or flushed?", mul_b, k->d, k->big, 0,
               k->d_times_big);
        DENORM("mul.out", "OpFMul, a subnormal product of normals: kept or flushed?", mul_b, k->tiny, k->tiny, 0,
               k->tiny_sq);
        DENORM("fma.in", "Fma, a subnormal factor with a normal result: kept or flushed?", fma_body, k->d, k->big,
               k->pos0, k->d_times_big);
        DENORM("fma.out", "Fma, a subnormal result from normals: kept or flushed?", fma_body, k->tiny, k->tiny,
               k->pos0, k->tiny_sq);
#undef DENORM
    }
}

static void zero_probes(const width_k *k)
{
    static const char *const suffix[] = {"", ".szinp"};
    for (unsigned m = 0; m < 2; m++) {
        unsigned modes = m ? CH_SZINP : 0;
        char id[48];
        ch_probe *p;
        snprintf(id, sizeof id, "zero.add-literal.%%s%s", suffix[m]);
        p = add("signed zero, inf, NaN", "-0 + literal 0.0: +0 (IEEE) or folded to -0?", k, id, modes);
        p->consts = "%k = OpConstant $O 0\n";
        p->body = "%r = OpFAdd $O %a %k\n";
        tuple(p, k->neg0, 0, 0, ALTS({"IEEE", k->pos0, false}, {"folded (x + 0 = x)", k->neg0, false}));

        snprintf(id, sizeof id, "zero.mul-literal.%%s%s", suffix[m]);
        p = add("signed zero, inf, NaN", "inf * literal 0.0: NaN (IEEE) or folded to 0?", k, id, modes);
        p->consts = "%k = OpConstant $O 0\n";
        p->body = "%r = OpFMul $O %a %k\n";
        tuple(p, k->inf, 0, 0, ALTS({"IEEE", 0, true}, {"folded (x * 0 = 0)", k->pos0, false},
                                    {"folded (x * 0 = 0)", k->neg0, false}));

        snprintf(id, sizeof id, "zero.sub-self.%%s%s", suffix[m]);
        p = add("signed zero, inf, NaN", "inf - inf, both at run time: NaN (IEEE) or folded x - x = 0?", k, id, modes);
        p->body = "%r = OpFSub $O %a %a\n";
        tuple(p, k->inf, 0, 0, ALTS({"IEEE", 0, true}, {"folded (x - x = 0)", k->pos0, false}));

        snprintf(id, sizeof id, "zero.add-runtime.%%s%s", suffix[m]);
        p = add("signed zero, inf, NaN", "-0 + 0, both at run time: +0?", k, id, modes);
        p->body = "%r = OpFAdd $O %a %b\n";
        tuple(p, k->neg0, k->pos0, 0, ALTS({"IEEE", k->pos0, false}, {"-0", k->neg0, false}));

        if (k->w != 32)
            continue;   /* the runner passes 32-bit specialization constants */
        snprintf(id, sizeof id, "zero.add-spec.%%s%s", suffix[m]);
        p = add("specialization constants", "-0 + spec constant 0.0 (SpecId 0): +0 or folded to -0?", k, id, modes);
        p->consts = "%k = OpSpecConstant $O 1\n";
        p->decor = "OpDecorate %k SpecId 0\n";
        p->body = "%r = OpFAdd $O %a %k\n";
        p->spec = true, p->spec_value = (uint32_t)k->pos0;
        tuple(p, k->neg0, 0, 0, ALTS({"IEEE", k->pos0, false}, {"folded (x + 0 = x)", k->neg0, false}));

        snprintf(id, sizeof id, "zero.mul-spec.%%s%s", suffix[m]);
        p = add("specialization constants", "inf * spec constant 0.0 (SpecId 0): NaN or folded to 0?", k, id, modes);
        p->consts = "%k = OpSpecConstant $O 1\n";
        p->decor = "OpDecorate %k SpecId 0\n";
        p->body = "%r = OpFMul $O %a %k\n";
        p->spec = true, p->spec_value = (uint32_t)k->pos0;
        tuple(p, k->inf, 0, 0, ALTS({"IEEE", 0, true}, {"folded (x * 0 = 0)", k->pos0, false},
                                    {"folded (x * 0 = 0)", k->neg0, false}));
    }
}

static void nan_probes(const width_k *k)
{
    ch_probe *p = add("NaN propagation", "qNaN(1) + qNaN(2): whose payload?", k, "nan.add-two.%s", 0);
    p->body = "%r = OpFAdd $O %a %b\n";
    tuple(p, k->qnan_a, k->qnan_b, 0,
          ALTS({"first operand's", k->qnan_a, false}, {"second operand's", k->qnan_b, false},
               {"canonical", k->qnan_canon, false}, {"another NaN", 0, true}));
    p = add("NaN propagation", "sNaN(1) + 1: quieted payload, canonical, or passed?", k, "nan.add-snan.%s", 0);
    p->body = "%r = OpFAdd $O %a %b\n";
    tuple(p, k->snan, k->one, 0,
          ALTS({"payload quieted", k->snan_quiet, false}, {"canonical", k->qnan_canon, false},
               {"signalling NaN passed", k->snan, false}, {"another NaN", 0, true}));
}

/* Narrowing conversions: a value above a tie, a tie to odd, a tie to even. */
static void convert_probes(void)
{
    static const char *const suffix[] = {"", ".rte", ".rtz"};
    static const unsigned modes[] = {0, CH_RTE, CH_RTZ};
    for (unsigned m = 0; m < 3; m++) {
        char id[48];
        snprintf(id, sizeof id, "fconvert.f32-f16%s", suffix[m]);
        ch_probe *p = add("OpFConvert", "OpFConvert f32 -> f16: how does it round?", &widths[1], id, modes[m]);
        p->in_width = 32, p->out_width = 16;
        p->body = "%r = OpFConvert $O %a\n";
        /* 1 + 2^-11 + 2^-23; 1 + 2^-10 + 2^-11; 1 + 2^-11 */
        tuple(p, 0x3f801001, 0, 0, ALTS({"RTE", 0x3c01, false}, {"RTZ", 0x3c00, false}, {"ties away", 0x3c01, false}));
        tuple(p, 0x3f803000, 0, 0, ALTS({"RTE", 0x3c02, false}, {"RTZ", 0x3c01, false}, {"ties away", 0x3c02, false}));
        tuple(p, 0x3f801000, 0, 0, ALTS({"RTE", 0x3c00, false}, {"RTZ", 0x3c00, false}, {"ties away", 0x3c01, false}));

        snprintf(id, sizeof id, "fconvert.f64-f32%s", suffix[m]);
        p = add("OpFConvert", "OpFConvert f64 -> f32: how does it round?", &widths[2], id, modes[m]);
        p->in_width = 64, p->out_width = 32;
        p->body = "%r = OpFConvert $O %a\n";
        /* 1 + 2^-24 + 2^-52; 1 + 2^-23 + 2^-24; 1 + 2^-24 */
        tuple(p, 0x3ff0000010000001, 0, 0,
              ALTS({"RTE", 0x3f800001, false}, {"RTZ", 0x3f800000, false}, {"ties away", 0x3f800001, false}));
        tuple(p, 0x3ff0000030000000, 0, 0,
              ALTS({"RTE", 0x3f800002, false}, {"RTZ", 0x3f800001, false}, {"ties away", 0x3f800002, false}));
        tuple(p, 0x3ff0000010000000, 0, 0,
              ALTS({"RTE", 0x3f800000, false}, {"RTZ", 0x3f800000, false}, {"ties away", 0x3f800001, false}));
    }
}

const ch_probe *ch_probes(unsigned *count)
{
    if (!n_table) {
        for (unsigned w = 0; w < 3; w++)
            muladd_probes(&widths[w]);
        for (unsigned w = 0; w < 3; w++)
            denorm_probes(&widths[w]);
        for (unsigned w = 0; w < 3; w++)
            zero_probes(&widths[w]);
        for (unsigned w = 0; w < 3; w++)
            nan_probes(&widths[w]);
        convert_probes();
    }
    *count = n_table;
    return table;
}
