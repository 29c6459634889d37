/* engine/signature: what kind of disagreement a case shows, and the
 * signature that makes one finding per distinct problem. */
#ifndef TIEFUZZ_ENGINE_SIGNATURE_H
#define TIEFUZZ_ENGINE_SIGNATURE_H

#include <stdbool.h>
#include <stdint.h>
#include "isa/isa.h"
#include "io/known.h"

/* The documented kinds, judged on the first output value that differs. */
typedef enum {
    KIND_TIE_DIRECTION,   /* a tie of the model's final rounding went the other way (one unit apart) */
    KIND_ONE_UNIT,        /* one unit in the last place apart, not at a tie */
    KIND_FLUSH,           /* one side a subnormal, the other a zero */
    KIND_SIGN_OF_ZERO,    /* +0 against -0 */
    KIND_NAN_VS_NUMBER,   /* a NaN against a number */
    KIND_NAN_PAYLOAD,     /* two different NaNs (only with --strict-nan) */
    KIND_INF_VS_FINITE,   /* an infinity against a finite value */
    KIND_OTHER,
    KIND_COUNT
} eng_kind;

const char *eng_kind_name(eng_kind k);
/* Load the known-divergence rules of dir (required: the user named it) and
 * check what the rules name: kinds that exist, op globs that match an op.
 * Returns 0, or -1 with the file, line and mistake in err. */
int eng_known_load(const char *dir, bool required, io_known *k, char *err, size_t errn);
/* The kind of a disagreement between host and device outputs; tie: a final
 * rounding of the exact model's trace sits on a tie (isa_trace_tie_exponent). */
eng_kind eng_kind_of(const isa_op *op, bool tie, const uint32_t *host, const uint32_t *device);
/* The same, from one run of the exact model on words. */
eng_kind eng_classify(const isa_instance *in, const uint32_t *words, const uint32_t *host, const uint32_t *device);

/* What identifies the translation under test. */
typedef struct {
    const char *lowering;   /* "direct", "exact" or "user-shader" */
    const char *device;     /* name */
    const char *driver;     /* driver name and info */
} eng_target;

/* xxHash of op, controls shape, lowering, device and kind.  The controls
 * shape is what changes operand formats (op_sel_hi of the MIX forms) and
 * whether a literal is present; modifier values are not part of it, so
 * minimization may clear them. */
uint64_t eng_signature(const isa_instance *in, const eng_target *t, eng_kind k);

#endif
