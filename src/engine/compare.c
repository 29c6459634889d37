/* Output comparison. */
#include <string.h>
#include "compare.h"

/* NaN encodings of f32 and f16 (fp_is_nan_bits), as bit tests. */
static inline bool nan32(uint32_t x) { return (x & 0x7fffffffu) > 0x7f800000u; }
static inline bool nan16(uint32_t x) { return (x & 0x7fffu) > 0x7c00u; }

/* Whether a host word and a device word of format f agree.  Branch-free on
 * the words (| and & of bools): in a campaign on a device that takes a
 * known liberty a third of the words differ, at random, and a branch on
 * each cost a misprediction a case. */
static inline bool word_agrees(isa_word_format f, uint32_t h, uint32_t d, bool strict)
{
    switch (f) {
    case WORD_F32:
    case WORD_B32:
        return (h == d) | (!strict & nan32(h) & nan32(d));
    case WORD_F16X2: {
        uint32_t hl = h & 0xffff, dl = d & 0xffff, hh = h >> 16, dh = d >> 16;
        bool lo = (hl == dl) | (!strict & nan16(hl) & nan16(dl));
        bool hi = (hh == dh) | (!strict & nan16(hh) & nan16(dh));
        return lo & hi;
    }
    default:
        return h == d;
    }
}

/* Every word is compared, with no exit at the first that differs: the
 * outcome is a value, not a branch (see word_agrees). */
static inline bool tuple_agrees(const isa_op *op, const uint32_t *host, const uint32_t *device, bool strict_nan)
{
    bool agree = true;
    for (unsigned i = 0; i < op->n_out; i++) {
        if (op->out[i].format == WORD_F64LO && i + 1 < op->n_out) {
            uint64_t h = host[i] | (uint64_t)host[i + 1] << 32, d = device[i] | (uint64_t)device[i + 1] << 32;
            agree &= (h == d) | (!strict_nan & fp_is_nan_bits(&fp_f64, h) & fp_is_nan_bits(&fp_f64, d));
            i++;
            continue;
        }
        agree &= word_agrees(op->out[i].format, host[i], device[i], strict_nan);
    }
    return agree;
}

bool eng_outputs_agree(const isa_op *op, const uint32_t *host, const uint32_t *device, bool strict_nan)
{
    return tuple_agrees(op, host, device, strict_nan);
}

/* The tuples of one word of format f (a constant where it is inlined: the
 * switch in word_agrees folds away).  Each disagreeing tuple's index goes to
 * bad_at[], in order; returns their count.  A group of cases is judged into
 * bytes first, a loop the compiler turns into vector code, and only the
 * groups of eight with a disagreement are walked: walking every case, an
 * index store and a count step each, was 3.7% of a v_fmac_f16 campaign on
 * lavapipe (perf), where NaN payloads that differ defeat the memcmp above
 * in almost every batch while no case disagrees. */
static inline __attribute__((always_inline)) unsigned one_word_tuples(isa_word_format f, const uint32_t *host,
                                                                      const uint32_t *device, unsigned count,
                                                                      bool strict_nan, uint32_t *bad_at)
{
    enum { GROUP = 64 };
    unsigned n = 0;
    for (unsigned g = 0; g < count; g += GROUP) {
        unsigned m = count - g < GROUP ? count - g : GROUP;
        uint8_t bad[GROUP] = {0};
        for (unsigned t = 0; t < m; t++)
            bad[t] = !word_agrees(f, host[g + t], device[g + t], strict_nan);
        for (unsigned e = 0; e < m; e += 8) {
            uint64_t eight;
            memcpy(&eight, bad + e, 8);
            if (!eight)
                continue;
            /* Branch-free within the eight: where a third of the cases
             * disagree (a device's known liberty), at random, a branch a
             * disagreement would mispredict.  Not past the last case: with
             * every case before it disagreeing, n is count there, and
             * bad_at[count] is not the caller's (a check chunk's neighbour). */
            unsigned end = e + 8 < m ? e + 8 : m;
            for (unsigned t = e; t < end; t++) {
                bad_at[n] = g + t;
                n += bad[t];
            }
        }
    }
    return n;
}

unsigned eng_compare_buffers(const isa_op *op, const uint32_t *host, const uint32_t *device, unsigned count,
                             bool strict_nan, uint32_t *bad_at)
{
    /* The common case, all equal, costs one pass over each buffer. */
    if (memcmp(host, device, (size_t)count * op->n_out * 4) == 0)
        return 0;
    /* One-word tuples (most ops) in loops of their own: through the
     * general loop, a call and a format switch a tuple were 3.5% of a
     * v_fma_f32 campaign on lavapipe (perf). */
    if (op->n_out == 1)
        switch (op->out[0].format) {
        case WORD_F32:
        case WORD_B32:
            return one_word_tuples(WORD_F32, host, device, count, strict_nan, bad_at);
        case WORD_F16X2:
            return one_word_tuples(WORD_F16X2, host, device, count, strict_nan, bad_at);
        case WORD_F64LO:  /* not a pair alone: compared as a plain word, as in tuple_agrees */
        default:
            return one_word_tuples(WORD_U32, host, device, count, strict_nan, bad_at);
        }
    unsigned n = 0;
    for (unsigned i = 0; i < count; i++) {
        bad_at[n] = i;
        n += !tuple_agrees(op, host + (size_t)i * op->n_out, device + (size_t)i * op->n_out, strict_nan);
    }
    return n;
}
