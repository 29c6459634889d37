/* Minimization, see minimize.h. */
#include <stdlib.h>
#include <string.h>
#include "compare.h"
#include "minimize.h"

static unsigned value_complexity(const fp_format *f, uint64_t bits)
{
    uint64_t frac_mask = (1ull << (f->precision - 1)) - 1;
    unsigned e = (unsigned)((bits >> (f->precision - 1)) & ((1u << f->exp_bits) - 1));
    unsigned sign = (unsigned)(bits >> (f->bits - 1)) & 1;
    if (e == (1u << f->exp_bits) - 1)
        return 64 + sign + (unsigned)__builtin_popcountll(bits & frac_mask);  /* inf and NaN: keep only if needed */
    int unbiased = e ? (int)e - f->bias : f->emin;
    if (!e && !(bits & frac_mask))
        return sign;
    return (unsigned)__builtin_popcountll(bits & frac_mask) + (unsigned)abs(unbiased) + sign + 1;
}

static unsigned word_complexity(isa_word_format fmt, uint32_t w)
{
    switch (fmt) {
    case WORD_F32:
        return value_complexity(&fp_f32, w);
    case WORD_B32: {
        /* Read as f32 or as halves: the simpler reading counts. */
        unsigned a = value_complexity(&fp_f32, w);
        unsigned b = value_complexity(&fp_f16, w & 0xffff) + value_complexity(&fp_f16, w >> 16);
        return a < b ? a : b;
    }
    case WORD_F16X2:
        return value_complexity(&fp_f16, w & 0xffff) + value_complexity(&fp_f16, w >> 16);
    case WORD_FLAG:
        return (unsigned)__builtin_popcount(w);
    default:
        return (unsigned)__builtin_popcount(w);
    }
}

unsigned eng_case_complexity(const eng_case *c)
{
    const isa_op *op = c->in.op;
    isa_instance d;
    isa_instance_default(&d, op);
    unsigned n = 0;
    const isa_literal *lit = op->literal;
    for (int i = 0; i < CTRL_COUNT; i++)
        if (!(lit && i == (int)lit->ctrl))
            n += 2u * (unsigned)__builtin_popcount(c->in.ctrl[i] ^ d.ctrl[i]);
    if (lit)
        n += value_complexity(lit->format, isa_literal_value(&c->in));
    for (unsigned i = 0; i < op->n_in; i++)
        n += word_complexity(op->in[i].format, c->words[i]);
    return n;
}

/* Simpler values for one operand, simplest first. */
static unsigned value_candidates(const fp_format *f, uint64_t bits, uint64_t *out)
{
    unsigned n = 0;
    uint64_t sign = 1ull << (f->bits - 1);
    uint64_t frac_mask = (1ull << (f->precision - 1)) - 1;
    uint64_t one = (uint64_t)f->bias << (f->precision - 1);
    unsigned shift = f->precision - 1;
    uint64_t e = (bits >> shift) & ((1u << f->exp_bits) - 1);
    uint64_t frac = bits & frac_mask;
    out[n++] = 0;
    out[n++] = one;
    out[n++] = one | sign;
    if (frac)
        out[n++] = bits & ~frac_mask;                        /* a power of two */
    if (frac) {
        out[n++] = bits & ~(frac & -frac);                   /* lowest set bit cleared */
        int low = __builtin_ctzll(frac), high = 63 - __builtin_clzll(frac);
        int cut = low + (high - low + 1) / 2;
        out[n++] = bits & ~((1ull << cut) - 1);              /* the lower half of the span cleared */
    }
    if (e != 0 && e != (uint64_t)((1u << f->exp_bits) - 1)) {
        int ue = (int)e - f->bias;
        if (ue) {
            int step = abs(ue) / 2 ? abs(ue) / 2 : 1;
            int toward = ue > 0 ? ue - step : ue + step;
            out[n++] = (bits & ~(((1ull << f->exp_bits) - 1) << shift)) | ((uint64_t)(toward + f->bias) << shift);
            if (step > 1)
                out[n++] = (bits & ~(((1ull << f->exp_bits) - 1) << shift)) | ((uint64_t)(ue + (ue > 0 ? -1 : 1) + f->bias) << shift);
        }
    }
    if (bits & sign)
        out[n++] = bits & ~sign;
    return n;
}

#define MAX_CANDIDATES 512

static void add(eng_case *list, unsigned *n, const eng_case *c, unsigned limit, unsigned cur_complexity)
{
    if (*n < MAX_CANDIDATES && eng_case_complexity(c) < cur_complexity && limit)
        list[(*n)++] = *c;
}

static unsigned candidates(const eng_case *cur, eng_case *list)
{
    const isa_op *op = cur->in.op;
    unsigned cx = eng_case_complexity(cur), n = 0;
    isa_instance d;
    isa_instance_default(&d, op);
    uint64_t vals[16];
    /* Controls back to their defaults, one at a time; then the literal. */
    const isa_literal *lit = op->literal;
    for (int i = 0; i < CTRL_COUNT; i++) {
        if ((lit && i == (int)lit->ctrl) || cur->in.ctrl[i] == d.ctrl[i])
            continue;
        eng_case c = *cur;
        c.in.ctrl[i] = d.ctrl[i];
        if (!isa_instance_check(&c.in))
            add(list, &n, &c, 1, cx);
    }
    if (lit) {
        unsigned k = value_candidates(lit->format, isa_literal_value(&cur->in), vals);
        for (unsigned j = 0; j < k; j++) {
            eng_case c = *cur;
            isa_literal_set(&c.in, (uint32_t)vals[j]);
            add(list, &n, &c, 1, cx);
        }
    }
    for (unsigned w = 0; w < op->n_in; w++) {
        uint32_t word = cur->words[w];
        isa_word_format f = op->in[w].format;
        if (f == WORD_F32 || f == WORD_B32) {
            unsigned k = value_candidates(&fp_f32, word, vals);
            for (unsigned j = 0; j < k; j++) {
                eng_case c = *cur;
                c.words[w] = (uint32_t)vals[j];
                add(list, &n, &c, 1, cx);
            }
        }
        if (f == WORD_F16X2 || f == WORD_B32) {
            for (int h = 0; h < 2; h++) {
                unsigned k = value_candidates(&fp_f16, (word >> (16 * h)) & 0xffff, vals);
                for (unsigned j = 0; j < k; j++) {
                    eng_case c = *cur;
                    c.words[w] = (word & ~(0xffffu << (16 * h))) | (uint32_t)vals[j] << (16 * h);
                    add(list, &n, &c, 1, cx);
                }
            }
        }
        /* Pairs: move exponent from one operand to another (a product keeps
         * its value), scale two together, or flip both signs: the rounding
         * structure survives, so a tie can get simpler without breaking. */
        if (f == WORD_F32) {
            for (unsigned w2 = 0; w2 < op->n_in; w2++) {
                if (w2 == w || op->in[w2].format != WORD_F32)
                    continue;
                int e1 = (int)((word >> 23) & 0xff), e2 = (int)((cur->words[w2] >> 23) & 0xff);
                if (e1 == 0 || e1 == 255 || e2 == 0 || e2 == 255 || e1 == 127)
                    continue;
                int k = 127 - e1;  /* bring word w's exponent to zero */
                eng_case c = *cur;
                if (e2 - k > 0 && e2 - k < 255) {
                    c.words[w] = (word & ~0x7f800000u) | (uint32_t)(e1 + k) << 23;
                    c.words[w2] = (cur->words[w2] & ~0x7f800000u) | (uint32_t)(e2 - k) << 23;
                    add(list, &n, &c, 1, cx);
                }
                c = *cur;
                if (e2 + k > 0 && e2 + k < 255) {
                    c.words[w] = (word & ~0x7f800000u) | (uint32_t)(e1 + k) << 23;
                    c.words[w2] = (cur->words[w2] & ~0x7f800000u) | (uint32_t)(e2 + k) << 23;
                    add(list, &n, &c, 1, cx);
                }
                if ((word >> 31) && (cur->words[w2] >> 31)) {
                    c = *cur;
                    c.words[w] = word & 0x7fffffffu;
                    c.words[w2] = cur->words[w2] & 0x7fffffffu;
                    add(list, &n, &c, 1, cx);
                }
            }
        }
        if ((f == WORD_U32 || f == WORD_CC) && word) {
            /* Integers: zero, one, a half cleared, the lowest set bit cleared, halved. */
            uint32_t ints[6] = {0, 1, word & 0xffff, word & 0xffff0000u, word & (word - 1), word >> 1};
            for (int j = 0; j < 6; j++) {
                eng_case c = *cur;
                c.words[w] = ints[j];
                add(list, &n, &c, 1, cx);
            }
        }
        if (f == WORD_FLAG && word) {
            eng_case c = *cur;
            c.words[w] = 0;
            add(list, &n, &c, 1, cx);
        }
    }
    return n;
}

static bool same_instance(const isa_instance *a, const isa_instance *b) { return memcmp(a, b, sizeof *a) == 0; }

/* Simple values of a format: zero, +-1, +-2, +-1/2, +-(1 + 2^-k); with
 * small, also +-2^-k (an addend often needs to be a unit or half a unit). */
static unsigned simple_values(const fp_format *f, bool small, uint64_t *out)
{
    unsigned n = 0;
    uint64_t sign = 1ull << (f->bits - 1);
    unsigned shift = f->precision - 1;
    uint64_t one = (uint64_t)f->bias << shift;
    out[n++] = 0;
    uint64_t base[3] = {one, one + (1ull << shift), one - (1ull << shift)};
    for (int i = 0; i < 3; i++) {
        out[n++] = base[i];
        out[n++] = base[i] | sign;
    }
    for (unsigned k = 1; k < f->precision; k++) {
        out[n++] = one | (1ull << (shift - k));
        out[n++] = (one | (1ull << (shift - k))) | sign;
    }
    for (unsigned k = 2; small && k <= 2 * f->precision && (int)k <= f->bias + (int)f->precision - 2; k++) {
        uint64_t e = (uint64_t)(f->bias - (int)k) << shift;
        if (f->bias - (int)k <= 0)
            e = 1ull << (shift - (unsigned)(k - (unsigned)f->bias + 1));  /* a subnormal power of two */
        out[n++] = e;
        out[n++] = e | sign;
    }
    return n;
}

/* The catalogue pass: every combination of simple values in the first
 * three operand slots (whole f32 words, or the low halves of f16 words),
 * the rest of the case kept; the simplest combination that keeps the
 * signature, first in enumeration order among equals. */
static int catalogue(eng_exec *x, const eng_target *t, uint64_t signature, eng_case *best, unsigned capacity,
                     char *err, size_t errn, bool *device_error)
{
    const isa_op *op = best->in.op;
    if (op->n_in < 3)
        return 0;
    const fp_format *fmt[3];
    for (int i = 0; i < 3; i++) {
        isa_word_format f = op->in[i].format;
        if (f == WORD_F32)
            fmt[i] = &fp_f32;
        else if (f == WORD_F16X2)
            fmt[i] = &fp_f16;
        else
            return 0;
    }
    uint64_t vals[3][256];
    unsigned nv[3];
    for (int i = 0; i < 3; i++)
        nv[i] = simple_values(fmt[i], i == 2, vals[i]);
    uint64_t total = (uint64_t)nv[0] * nv[1] * nv[2];
    /* Dispatch buffers for at most the whole catalogue: sized by the device's
     * capacity alone, every finding allocated (and, under a perturbing
     * malloc, touched) tens of megabytes. */
    if (total < capacity)
        capacity = (unsigned)total;
    uint32_t *words = malloc((size_t)capacity * op->n_in * 4), *dev = malloc((size_t)capacity * op->n_out * 4);
    int rc = 0;
    unsigned best_cx = eng_case_complexity(best);
    eng_case found = *best;
    bool any = false;
    for (uint64_t base = 0; base < total; base += capacity) {
        unsigned n = (unsigned)(total - base < capacity ? total - base : capacity);
        for (unsigned k = 0; k < n; k++) {
            uint64_t idx = base + k;
            uint32_t *w = words + (size_t)k * op->n_in;
            memcpy(w, best->words, op->n_in * 4);
            unsigned i0 = (unsigned)(idx % nv[0]), i1 = (unsigned)(idx / nv[0] % nv[1]), i2 = (unsigned)(idx / nv[0] / nv[1]);
            unsigned pick[3] = {i0, i1, i2};
            for (int s = 0; s < 3; s++)
                w[s] = fmt[s] == &fp_f32 ? (uint32_t)vals[s][pick[s]]
                                          : (w[s] & 0xffff0000u) | (uint32_t)vals[s][pick[s]];
        }
        if (eng_exec_run(x, &best->in, words, n, dev, err, errn, device_error)) {
            rc = *device_error ? -1 : 0;
            any = false;
            break;
        }
        for (unsigned k = 0; k < n; k++) {
            eng_case c = {best->in, {0}};
            memcpy(c.words, words + (size_t)k * op->n_in, op->n_in * 4);
            unsigned cx = eng_case_complexity(&c);
            if (cx >= best_cx)
                continue;
            uint32_t host[ISA_MAX_OUT];
            op->impl->eval(&c.in, c.words, host, NULL);
            const uint32_t *d = dev + (size_t)k * op->n_out;
            if (eng_outputs_agree(op, host, d, false))
                continue;
            if (eng_signature(&c.in, t, eng_classify(&c.in, c.words, host, d)) != signature)
                continue;
            best_cx = cx;
            found = c;
            any = true;
        }
    }
    if (any)
        *best = found;
    free(words);
    free(dev);
    return rc;
}

int eng_minimize(eng_exec *x, const eng_target *t, uint64_t signature, const eng_case *start, eng_case *out,
                 unsigned *rounds, char *err, size_t errn, bool *device_error)
{
    eng_case *list = malloc(MAX_CANDIDATES * sizeof *list);
    /* Candidates keep the op: its own word counts size the buffers (ISA_MAX_IN
     * is a tile's 384). */
    uint32_t *words = malloc((size_t)MAX_CANDIDATES * start->in.op->n_in * 4);
    uint32_t *dev = malloc((size_t)MAX_CANDIDATES * start->in.op->n_out * 4);
    bool *done = malloc(MAX_CANDIDATES);
    *out = *start;
    *rounds = 0;
    int rc = 0;
    /* Greedy passes first (controls cleared, operands simplified), then the
     * catalogue of simple operands, then greedy again on what it found. */
    for (int pass = 0; pass < 3 && rc == 0; pass++) {
    if (pass == 1) {
        rc = catalogue(x, t, signature, out, eng_exec_capacity(x, out->in.op), err, errn, device_error);
        continue;
    }
    for (unsigned round = 0; round < 256; round++) {
        unsigned n = candidates(out, list);
        if (!n)
            break;
        memset(done, 0, n);
        int winner = -1;
        /* One dispatch per distinct instance among the candidates, in order. */
        for (unsigned i = 0; i < n && (winner < 0 || (int)i < winner) && rc == 0; i++) {
            if (done[i])
                continue;
            const isa_op *op = list[i].in.op;
            unsigned group[MAX_CANDIDATES], g = 0;
            unsigned room = eng_exec_capacity(x, op);
            for (unsigned j = i; j < n && g < room; j++)
                if (!done[j] && same_instance(&list[j].in, &list[i].in)) {
                    group[g] = j;
                    memcpy(words + (size_t)g * op->n_in, list[j].words, op->n_in * 4);
                    g++;
                    done[j] = true;
                }
            if (eng_exec_run(x, &list[i].in, words, g, dev, err, errn, device_error)) {
                rc = *device_error ? -1 : 0;  /* an instance the lowering cannot build is no candidate */
                continue;
            }
            for (unsigned k = 0; k < g; k++) {
                const eng_case *c = &list[group[k]];
                uint32_t host[ISA_MAX_OUT];
                op->impl->eval(&c->in, c->words, host, NULL);
                const uint32_t *d = dev + (size_t)k * op->n_out;
                if (eng_outputs_agree(op, host, d, false))
                    continue;
                eng_kind kind = eng_classify(&c->in, c->words, host, d);
                if (eng_signature(&c->in, t, kind) == signature && (winner < 0 || (int)group[k] < winner))
                    winner = (int)group[k];
            }
        }
        if (rc || winner < 0)
            break;
        *out = list[winner];
        ++*rounds;
    }
    }
    free(list);
    free(words);
    free(dev);
    free(done);
    return rc;
}
