/* engine/minimize: shrink a disagreement to the simplest case that still
 * shows it with the same signature.  Candidates (an operand replaced by 0,
 * +-1 or a power of two, low significand bits cleared, the exponent moved
 * toward zero, the sign dropped, a control cleared, the literal simplified)
 * are evaluated many at a time in one dispatch; the first in that order that
 * keeps the signature and is strictly simpler wins, until none does.
 * Deterministic: no randomness, the same case in gives the same case out. */
#ifndef TIEFUZZ_ENGINE_MINIMIZE_H
#define TIEFUZZ_ENGINE_MINIMIZE_H

#include "exec.h"
#include "signature.h"

typedef struct {
    isa_instance in;
    uint32_t words[ISA_MAX_IN];
} eng_case;

/* Complexity: significand bits set, exponent distance from zero, signs,
 * specials and set controls; minimization only ever lowers it. */
unsigned eng_case_complexity(const eng_case *c);

/* Returns 0 with the minimized case in out (out = start when nothing
 * simpler keeps the signature), or -1 with err (device_error set when the
 * device failed). */
int eng_minimize(eng_exec *x, const eng_target *t, uint64_t signature, const eng_case *start, eng_case *out,
                 unsigned *rounds, char *err, size_t errn, bool *device_error);

#endif
