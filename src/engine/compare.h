/* engine/compare: do two output tuples agree?  Bit for bit, except that by
 * default any NaN equals any NaN (RDNA 2's NaN payload rules are
 * undocumented, and Vulkan never promises payloads). */
#ifndef TIEFUZZ_ENGINE_COMPARE_H
#define TIEFUZZ_ENGINE_COMPARE_H

#include <stdbool.h>
#include "isa/isa.h"

bool eng_outputs_agree(const isa_op *op, const uint32_t *host, const uint32_t *device, bool strict_nan);
/* Whole buffers: one memcmp first, then per tuple.  Returns the number of
 * tuples that disagree and writes their indices, in increasing order, to
 * bad_at[] (room for count). */
unsigned eng_compare_buffers(const isa_op *op, const uint32_t *host, const uint32_t *device, unsigned count,
                             bool strict_nan, uint32_t *bad_at);

#endif
