/* engine/cover: a pairwise covering schedule of an op's controls for the
 * first cases of a campaign.
 *
 * Controls change at most once per block of 262,144 cases (eng_block_instance),
 * so a mistake that needs one control value, or two values together, waits
 * for a block that draws them.  Instead the first ENG_COVER_CASES cases of an op run through rows
 * of controls chosen so that every value of every control and every pair of
 * values of two controls that some legal encoding has (the legal pairs)
 * appears in some row: each row for an equal segment of those cases, row 0
 * the plain encoding.  The rows depend on the seed and the op
 * only, so case i's instance still depends on (seed, op, i) alone, and
 * --shard and --jobs splits stay exact. */
#ifndef TIEFUZZ_ENGINE_COVER_H
#define TIEFUZZ_ENGINE_COVER_H

#include <stdbool.h>
#include <stdint.h>
#include "isa/isa.h"

#define ENG_COVER_CASES 98304u  /* the schedule's cases: within the first 10^5 */
#define ENG_COVER_MAX_ROWS 512u
#define ENG_COVER_VALUES 32u    /* controls with more values (literals, immediates) are not paired */

typedef struct {
    const isa_op *op;
    unsigned rows, segment;     /* rows, and the cases each runs (rows * segment <= ENG_COVER_CASES) */
    uint32_t (*ctrl)[CTRL_COUNT];
    unsigned legal;             /* legal pairs, a control's single values included (found by sampling) */
    uint8_t *legal_bits;        /* bit per pair id */
} eng_cover;

/* Whether control c of op is scheduled: taken, a choice or flag (not a
 * literal or immediate), with fewer than ENG_COVER_VALUES values. */
bool eng_cover_paired(const isa_op *op, int c);
/* The schedule for tmpl's op (its other controls and K as tmpl has them).
 * An op with no control to pair gets no rows. */
void eng_cover_make(const isa_instance *tmpl, uint64_t seed, eng_cover *c);
void eng_cover_free(eng_cover *c);
/* The row case i runs under, or -1 past the schedule. */
int eng_cover_row(const eng_cover *c, uint64_t i);
/* Pairs of the rows marked in rows_run (bit per row) among the legal ones. */
unsigned eng_cover_reached(const eng_cover *c, const uint64_t *rows_run);

#endif
