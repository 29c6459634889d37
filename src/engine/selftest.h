/* engine/selftest: the host's fast paths against the exact model, case by
 * case, with no device (tiefuzz selftest). */
#ifndef TIEFUZZ_ENGINE_SELFTEST_H
#define TIEFUZZ_ENGINE_SELFTEST_H

#include "campaign.h"

typedef struct {
    const char *const *globs;   /* every op when n_globs == 0 */
    unsigned n_globs;
    gen_class classes[64];
    unsigned n_classes;
    uint64_t seed;
    uint64_t cases;             /* per op */
    uint64_t tiles;             /* per tile op (a case is a whole tile) */
    const char *ctrl_text;      /* fixed controls (else fuzzed per block) */
    const char *param_text;     /* fixed parameters (else drawn per block) */
    unsigned threads;
    unsigned max_reported;      /* differences printed per op; each thread stops the op after as many */
    bool quiet;
} eng_selftest_options;

/* Cases come in blocks of this many, each with its own controls and
 * parameters: tiles in smaller ones, so that a few thousand of them still
 * meet many parameter draws. */
#define ENG_SELFTEST_BLOCK 4096u
#define ENG_SELFTEST_TILE_BLOCK 64u

void eng_selftest_options_default(eng_selftest_options *o);
/* Prints a line per op on stdout and each difference on stderr.  Returns
 * EXIT_AGREE, EXIT_USAGE (bad glob, controls or parameters) or
 * EXIT_INTERNAL (the fast path and the exact model differ). */
int eng_selftest(const eng_selftest_options *o);

#endif
