/* Disagreement kinds and signatures. */
#include <stdio.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "signature.h"
#include "isa/classify.h"

const char *eng_kind_name(eng_kind k)
{
    static const char *names[KIND_COUNT] = {"tie-direction", "one-unit-rounding", "flush-vs-subnormal",
                                            "sign-of-zero", "nan-vs-number", "nan-payload", "inf-vs-finite",
                                            "other"};
    return names[k];
}

static bool kind_known(const char *name, size_t n)
{
    for (int k = 0; k < KIND_COUNT; k++)
        if (strlen(eng_kind_name((eng_kind)k)) == n && !strncmp(eng_kind_name((eng_kind)k), name, n))
            return true;
    return false;
}

static bool op_glob_matches(const char *glob)
{
    for (unsigned i = 0; i < isa_op_count(); i++)
        if (isa_glob_match(glob, isa_op_at(i)->name))
            return true;
    return false;
}

int eng_known_load(const char *dir, bool required, io_known *k, char *err, size_t errn)
{
    if (io_known_load_dir(dir, required, k, err, errn))
        return -1;
    for (unsigned i = 0; i < k->n; i++) {
        const io_known_rule *r = &k->rules[i];
        for (const char *p = r->kinds; *p;) {
            size_t n = strcspn(p, ",");
            if (!kind_known(p, n)) {
                snprintf(err, errn, "%s: kind '%.*s' is not a disagreement kind (tie-direction, one-unit-rounding, "
                         "flush-vs-subnormal, sign-of-zero, nan-vs-number, nan-payload, inf-vs-finite, other)",
                         r->where, (int)n, p);
                return -1;
            }
            p += n + (p[n] == ',');
        }
        if (r->op[0] && !op_glob_matches(r->op)) {
            snprintf(err, errn, "%s: op '%s' matches no op (see 'tiefuzz ops')", r->where, r->op);
            return -1;
        }
    }
    return 0;
}

/* The kind of one differing word pair, from the kit's tests of the
 * encodings, not decoded values: a campaign on a device that takes a
 * liberty judges a third of its cases.  Inlined into each call with its
 * format a constant, so the kit's tests fold to masks: as a call, a
 * --ctrl '' v_fma_f32 campaign's kinds took 32.6M instructions of 1M cases,
 * inlined 21.3M (callgrind). */
static inline __attribute__((always_inline)) eng_kind judge(const fp_format *f, uint64_t h, uint64_t d, bool tie)
{
    /* The kind a device that rounds otherwise gives nearly every time (a
     * third of a fused op's cases on lavapipe, whose Fma is unfused), first
     * and without branches: two adjacent encodings of one sign, both finite
     * and nonzero.  The tests below, a call and a branch each, were 9 ns a
     * disagreement in a v_fmamk_f32 campaign (perf). */
    uint64_t sign = 1ull << (f->bits - 1), inf = ((1ull << f->exp_bits) - 1) << (f->precision - 1);
    uint64_t mh = h & (sign - 1), md = d & (sign - 1);
    bool adjacent = (h & sign) == (d & sign) && (mh - md == 1 || md - mh == 1);
    if (adjacent & (mh != 0) & (md != 0) & (mh < inf) & (md < inf) & !f->finite_top)
        return tie ? KIND_TIE_DIRECTION : KIND_ONE_UNIT;
    bool hn = fp_is_nan_bits(f, h), dn = fp_is_nan_bits(f, d);
    if (hn && dn)
        return KIND_NAN_PAYLOAD;
    if (hn != dn)
        return KIND_NAN_VS_NUMBER;
    if (fp_is_inf_bits(f, h) != fp_is_inf_bits(f, d))
        return KIND_INF_VS_FINITE;
    bool hz = fp_is_zero_bits(f, h), dz = fp_is_zero_bits(f, d);
    if (hz && dz)
        return KIND_SIGN_OF_ZERO;
    if ((hz && fp_is_subnormal_bits(f, d)) || (dz && fp_is_subnormal_bits(f, h)))
        return KIND_FLUSH;
    if (adjacent)  /* past the fast test above: a finite_top format's (its others are told above) */
        return tie ? KIND_TIE_DIRECTION : KIND_ONE_UNIT;
    return KIND_OTHER;
}

eng_kind eng_kind_of(const isa_op *op, bool tie, const uint32_t *host, const uint32_t *device)
{
    for (unsigned i = 0; i < op->n_out; i++) {
        switch (op->out[i].format) {
        case WORD_F16X2:
            for (int s = 0; s < 32; s += 16) {
                uint32_t a = (host[i] >> s) & 0xffff, b = (device[i] >> s) & 0xffff;
                if (a != b)
                    return judge(&fp_f16, a, b, tie);
            }
            break;
        case WORD_F64LO: {
            if (i + 1 >= op->n_out) {  /* a low word with no high word after it: a plain word, as compare.c has it */
                if (host[i] != device[i])
                    return KIND_OTHER;
                break;
            }
            uint64_t a = host[i] | (uint64_t)host[i + 1] << 32, b = device[i] | (uint64_t)device[i + 1] << 32;
            if (a != b)
                return judge(&fp_f64, a, b, tie);
            i++;
            break;
        }
        case WORD_U32:
        case WORD_CC:
            if (host[i] != device[i])
                return KIND_OTHER;  /* integer words: the float kinds do not apply */
            break;
        default:
            if (host[i] != device[i])
                return judge(&fp_f32, host[i], device[i], tie);
        }
    }
    return KIND_OTHER;
}

eng_kind eng_classify(const isa_instance *in, const uint32_t *words, const uint32_t *host, const uint32_t *device)
{
    isa_trace t;
    uint32_t again[ISA_MAX_OUT];
    in->op->impl->eval(in, words, again, &t);
    return eng_kind_of(in->op, isa_trace_tie_exponent(&t) != ISA_NO_EXPONENT, host, device);
}

/* The controls shape: what the family says changes the operand formats. */
static uint32_t controls_shape(const isa_instance *in)
{
    return in->op->impl->shape ? in->op->impl->shape(in) : 0;
}

/* Appends s at *p, within end. */
static void put(char **p, const char *end, const char *s)
{
    size_t n = strlen(s);
    if (n > (size_t)(end - *p))
        n = (size_t)(end - *p);
    memcpy(*p, s, n);
    *p += n;
}

/* The hash of the text "OP|shape=HEX,k=0|1|LOWERING|DEVICE|DRIVER|KIND" (the
 * definition signatures in finding files and known rules were made with),
 * put together without snprintf: formatting it cost about a tenth of a
 * direct campaign, where every disagreement gets a signature. */
uint64_t eng_signature(const isa_instance *in, const eng_target *t, eng_kind k)
{
    char hex[12], *h = hex + sizeof hex;
    uint32_t shape = controls_shape(in);
    *--h = 0;
    do
        *--h = "0123456789abcdef"[shape & 15];
    while (shape >>= 4);
    char text[1024], *p = text;
    const char *end = text + sizeof text;
    put(&p, end, in->op->name);
    put(&p, end, "|shape=");
    put(&p, end, h);
    put(&p, end, in->op->literal ? ",k=1|" : ",k=0|");
    put(&p, end, t->lowering);
    put(&p, end, "|");
    put(&p, end, t->device);
    put(&p, end, "|");
    put(&p, end, t->driver);
    put(&p, end, "|");
    put(&p, end, eng_kind_name(k));
    return XXH64(text, (size_t)(p - text), 0);
}
