/* Output comparison. */
#include <string.h>
#include "compare.h"

static bool words_agree(isa_word_format f, uint32_t h, uint32_t d, bool strict)
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

bool eng_outputs_agree(const isa_op *op, const uint32_t *host, const uint32_t *device, bool strict_nan)
{
    for (unsigned i = 0; i < op->n_out; i++) {
        if (op->out[i].format == WORD_F64LO && i + 1 < op->n_out) {
            uint64_t h = host[i] | (uint64_t)host[i + 1] << 32, d = device[i] | (uint64_t)device[i + 1] << 32;
            if (h != d && (strict_nan || !(fp_is_nan_bits(&fp_f64, h) && fp_is_nan_bits(&fp_f64, d))))
                return false;
            i++;
            continue;
        }
        if (!words_agree(op->out[i].format, host[i], device[i], strict_nan))
            return false;
    }
    return true;
}

unsigned eng_compare_buffers(const isa_op *op, const uint32_t *host, const uint32_t *device, unsigned count,
                             bool strict_nan, uint8_t *bad)
{
    size_t bytes = (size_t)count * op->n_out * 4;
    if (bad)
        memset(bad, 0, count);
    /* The common case, all equal, costs one pass over each buffer. */
    if (memcmp(host, device, bytes) == 0)
        return 0;
    unsigned n = 0;
    for (unsigned i = 0; i < count; i++) {
        const uint32_t *h = host + (size_t)i * op->n_out, *d = device + (size_t)i * op->n_out;
        /* Equal words agree whatever their formats: only the others need the
         * NaN rules (compared inline: a call to memcmp for a word or two cost
         * a twentieth of a campaign with many disagreements). */
        uint32_t differ = 0;
        for (unsigned k = 0; k < op->n_out; k++)
            differ |= h[k] ^ d[k];
        if (!differ || eng_outputs_agree(op, h, d, strict_nan))
            continue;
        n++;
        if (bad)
            bad[i] = 1;
    }
    return n;
}
