/* eng_compare_buffers against the rule it implements, written out here with
 * the kit's NaN test: tuples agree bit for bit, or (without --strict-nan)
 * where each f32 word, each half of an f16 pair, each f64 pair is a NaN on
 * both sides; every other word only bit for bit.  The buffers mix equal
 * words, NaN pairs of any payload and sign, infinities beside NaNs and
 * numbers, and one-bit differences, in every op's tuple formats; the
 * indices must come back complete and in order. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "engine/compare.h"
#include "fp/fp.h"

enum { COUNT = 4099 };  /* not a multiple of anything the loops might unroll by */

static uint64_t state = 0x9e3779b97f4a7c15ull;
static uint32_t draw(void)
{
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return (uint32_t)(state >> 16);
}

/* A NaN of a format with `bits` bits (16 or 32), any payload and sign. */
static uint32_t nan_of(unsigned bits)
{
    uint32_t exp = bits == 16 ? 0x7c00u : 0x7f800000u, frac = exp == 0x7c00u ? 0x3ffu : 0x7fffffu;
    uint32_t f = draw() & frac;
    return (draw() & 1u) << (bits - 1) | exp | (f ? f : 1);
}

/* An infinity of either sign: next to a NaN in encoding, never one. */
static uint32_t inf_of(unsigned bits) { return (draw() & 1u) << (bits - 1) | (bits == 16 ? 0x7c00u : 0x7f800000u); }

/* A special word of a format: a NaN or an infinity (each half of a pair). */
static uint32_t special_of(unsigned half_bits)
{
    uint32_t (*pick)(unsigned) = draw() % 3 ? nan_of : inf_of;
    return half_bits == 16 ? pick(16) | pick(16) << 16 : pick(32);
}

/* A word for the device beside host word h: equal, a NaN or an infinity
 * (in each half of a pair), a number against one, one bit flipped, or random. */
static uint32_t partner(uint32_t h, unsigned half_bits)
{
    switch (draw() % 6) {
    case 0:
    case 1:
        return h;
    case 2:
        return special_of(half_bits);
    case 3:
        return half_bits == 16 ? (h & 0xffff0000u) | (special_of(16) & 0xffff) : special_of(32);
    case 4:
        return h ^ 1u << (draw() % 32);
    default:
        return draw();
    }
}

static bool word_rule(isa_word_format f, uint32_t h, uint32_t d, bool strict)
{
    if (h == d)
        return true;
    if (strict)
        return false;
    switch (f) {
    case WORD_F32:
    case WORD_B32:
        return fp_is_nan_bits(&fp_f32, h) && fp_is_nan_bits(&fp_f32, d);
    case WORD_F16X2:
        for (int s = 0; s < 32; s += 16) {
            uint32_t a = (h >> s) & 0xffff, b = (d >> s) & 0xffff;
            if (a != b && !(fp_is_nan_bits(&fp_f16, a) && fp_is_nan_bits(&fp_f16, b)))
                return false;
        }
        return true;
    default:
        return false;
    }
}

static bool tuple_rule(const isa_op *op, const uint32_t *h, const uint32_t *d, bool strict)
{
    for (unsigned k = 0; k < op->n_out; k++) {
        if (op->out[k].format == WORD_F64LO && k + 1 < op->n_out) {
            uint64_t a = h[k] | (uint64_t)h[k + 1] << 32, b = d[k] | (uint64_t)d[k + 1] << 32;
            if (a != b && (strict || !(fp_is_nan_bits(&fp_f64, a) && fp_is_nan_bits(&fp_f64, b))))
                return false;
            k++;
            continue;
        }
        if (!word_rule(op->out[k].format, h[k], d[k], strict))
            return false;
    }
    return true;
}

/* Every other tuple, at random, the device's words are the host's: a
 * tile's hundred words would otherwise always hold a difference.  Sparse:
 * all but one tuple in 256, so that long runs agree (the comparison skips
 * groups of cases that do) with a few disagreements between. */
static void fill(const isa_op *op, bool sparse, uint32_t *host, uint32_t *dev)
{
    for (unsigned i = 0; i < COUNT; i++)
        for (unsigned k = 0, same = sparse ? draw() % 256 != 0 : draw() & 1; k < op->n_out; k++) {
            size_t at = (size_t)i * op->n_out + k;
            isa_word_format f = op->out[k].format;
            if (f == WORD_F64LO && k + 1 < op->n_out) {  /* an f64 NaN pair, or words of their own */
                bool nan = draw() % 3 == 0;
                host[at] = draw(), host[at + 1] = nan ? 0x7ff00000u | (draw() & 0x800fffffu) | 1 : draw();
                dev[at] = nan ? draw() : partner(host[at], 32);
                dev[at + 1] = nan ? 0x7ff80000u | (draw() & 0x80000000u) : partner(host[at + 1], 32);
                if (same)
                    dev[at] = host[at], dev[at + 1] = host[at + 1];
                k++;
                continue;
            }
            host[at] = draw() % 3 == 0 ? special_of(f == WORD_F16X2 ? 16 : 32) : draw();
            dev[at] = partner(host[at], f == WORD_F16X2 ? 16 : 32);
            if (same)
                dev[at] = host[at];
        }
}

int main(void)
{
    unsigned ops = 0;
    for (unsigned o = 0; o < isa_op_count(); o++) {
        const isa_op *op = isa_op_at(o);
        uint32_t *host = malloc((size_t)COUNT * op->n_out * 4), *dev = malloc((size_t)COUNT * op->n_out * 4);
        uint32_t *at = malloc(COUNT * sizeof *at);
        CHECK(host && dev && at, "out of memory");
        if (!host || !dev || !at)
            return check_report("compare");
        for (int sparse = 0; sparse < 2; sparse++) {
            fill(op, sparse, host, dev);
            for (int strict = 0; strict < 2; strict++) {
                unsigned n = eng_compare_buffers(op, host, dev, COUNT, strict, at), k = 0, wrong = 0;
                for (unsigned i = 0; i < COUNT; i++) {
                    bool agree = tuple_rule(op, host + (size_t)i * op->n_out, dev + (size_t)i * op->n_out, strict);
                    if (!agree && (k >= n || at[k++] != i))
                        wrong++;
                    wrong += agree == !eng_outputs_agree(op, host + (size_t)i * op->n_out, dev + (size_t)i * op->n_out,
                                                         strict);
                }
                CHECK(wrong == 0 && k == n, "%s strict=%d sparse=%d: %u tuples judged against the rule, %u listed, %u by the rule",
                      op->name, strict, sparse, wrong, n, k);
                CHECK(n > 0 && n < COUNT / (sparse ? 64 : 1), "%s strict=%d sparse=%d: %u of %u disagree (the mix is meant to hold both)",
                      op->name, strict, sparse, n, COUNT);
            }
        }
        memcpy(dev, host, (size_t)COUNT * op->n_out * 4);
        CHECK(eng_compare_buffers(op, host, dev, COUNT, true, at) == 0, "%s: equal buffers", op->name);
        /* Every tuple disagreeing (a flipped low bit), in counts of every
         * remainder: the list fills exactly its count of places, and the one
         * past it, another check chunk's in a campaign, keeps what it held. */
        for (size_t i = 0; i < (size_t)COUNT * op->n_out; i++)
            dev[i] = host[i] ^ 1u;
        for (unsigned count = 1; count <= 80; count++) {
            at[count] = 0xdeadbeefu;
            unsigned n = eng_compare_buffers(op, host, dev, count, true, at), wrong = 0;
            for (unsigned i = 0; i < n; i++)
                wrong += at[i] != i;
            CHECK(n == count && wrong == 0 && at[count] == 0xdeadbeefu,
                  "%s: %u tuples all disagreeing: %u listed, %u out of place, the next place %s", op->name, count, n,
                  wrong, at[count] == 0xdeadbeefu ? "kept" : "written");
        }
        free(host), free(dev), free(at);
        ops++;
    }
    CHECK(ops > 20, "only %u ops", ops);
    return check_report("compare");
}
