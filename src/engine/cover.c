/* engine/cover: see cover.h.  A greedy covering array (each row the
 * candidate that covers the most pairs not yet covered), over the legal
 * encodings a sample of isa_random_controls draws finds. */
#include <stdlib.h>
#include <string.h>
#include "cover.h"
#include "gen/gen.h"

#define POOL 2048        /* legal encodings sampled: the candidates and the legal pairs */
#define CANDIDATES 48    /* drawn from the pool for each row */

bool eng_cover_paired(const isa_op *op, int c)
{
    return op->ctrl_limit[c] && op->ctrl_limit[c] < ENG_COVER_VALUES && !isa_controls[c].value;
}

static size_t pair_bytes(void) { return (size_t)CTRL_COUNT * ENG_COVER_VALUES * CTRL_COUNT * ENG_COVER_VALUES / 8; }

static unsigned pair_id(int c1, uint32_t v1, int c2, uint32_t v2)
{
    return ((unsigned)(c1 * (int)ENG_COVER_VALUES + (int)v1) * CTRL_COUNT + (unsigned)c2) * ENG_COVER_VALUES + v2;
}

static bool bit(const uint8_t *b, unsigned i) { return b[i / 8] >> (i % 8) & 1; }
static void set_bit(uint8_t *b, unsigned i) { b[i / 8] |= (uint8_t)(1u << (i % 8)); }

/* The pair ids of one encoding into ids; their count.  Each control's own
 * value counts as the pair (a, a), so that every value is covered too (an
 * op with one paired control gets a row per value). */
#define MAX_PAIRS (CTRL_COUNT * (CTRL_COUNT + 1) / 2)
static unsigned pairs_of(const isa_op *op, const uint32_t *ctrl, unsigned *ids)
{
    unsigned n = 0;
    for (int a = 0; a < CTRL_COUNT; a++)
        for (int b = a; b < CTRL_COUNT; b++)
            if (eng_cover_paired(op, a) && eng_cover_paired(op, b))
                ids[n++] = pair_id(a, ctrl[a], b, ctrl[b]);
    return n;
}

/* Pairs of ctrl not yet in covered. */
static unsigned gain(const isa_op *op, const uint32_t *ctrl, const uint8_t *covered)
{
    unsigned ids[MAX_PAIRS], n = pairs_of(op, ctrl, ids), g = 0;
    for (unsigned i = 0; i < n; i++)
        g += !bit(covered, ids[i]);
    return g;
}

static unsigned mark(const isa_op *op, const uint32_t *ctrl, uint8_t *bits)
{
    unsigned ids[MAX_PAIRS], n = pairs_of(op, ctrl, ids), added = 0;
    for (unsigned i = 0; i < n; i++)
        if (!bit(bits, ids[i])) {
            set_bit(bits, ids[i]);
            added++;
        }
    return added;
}

/* The next row: the best of a few random candidates, else (when none adds
 * a pair) the first pool entry that does. */
static const uint32_t *next_row(const isa_op *op, uint32_t (*pool)[CTRL_COUNT], const uint8_t *covered, gen_rng *r)
{
    const uint32_t *best = NULL;
    unsigned best_gain = 0;
    for (int k = 0; k < CANDIDATES; k++) {
        const uint32_t *cand = pool[gen_below(r, POOL)];
        unsigned g = gain(op, cand, covered);
        if (g > best_gain) {
            best = cand;
            best_gain = g;
        }
    }
    for (unsigned i = 0; !best && i < POOL; i++)
        if (gain(op, pool[i], covered))
            best = pool[i];
    return best;
}

void eng_cover_make(const isa_instance *tmpl, uint64_t seed, eng_cover *c)
{
    memset(c, 0, sizeof *c);
    const isa_op *op = tmpl->op;
    c->op = op;
    unsigned n_paired = 0;
    for (int i = 0; i < CTRL_COUNT; i++)
        n_paired += eng_cover_paired(op, i);
    if (!n_paired)
        return;
    uint32_t (*pool)[CTRL_COUNT] = malloc(POOL * sizeof *pool);
    c->legal_bits = calloc(1, pair_bytes());
    uint8_t *covered = calloc(1, pair_bytes());
    c->ctrl = malloc(ENG_COVER_MAX_ROWS * sizeof *c->ctrl);
    uint64_t name = 0xcbf29ce484222325ull;  /* the op's own stream: FNV-1a of its name */
    for (const char *p = op->name; *p; p++)
        name = (name ^ (uint8_t)*p) * 0x100000001b3ull;
    gen_rng r = gen_rng_for(seed, name, 0x636f766572ull);
    for (unsigned i = 0; i < POOL; i++) {
        isa_instance x = *tmpl;
        if (i)  /* entry 0: the plain encoding */
            isa_random_controls(&x, &r);
        memcpy(pool[i], x.ctrl, sizeof pool[i]);
        c->legal += mark(op, pool[i], c->legal_bits);
    }
    /* Row 0 is the plain encoding: the first cases of an op test what a
     * translation meets first, as block 0 did before the schedule. */
    memcpy(c->ctrl[c->rows++], pool[0], sizeof c->ctrl[0]);
    unsigned done = mark(op, pool[0], covered);
    while (done < c->legal && c->rows < ENG_COVER_MAX_ROWS) {
        const uint32_t *row = next_row(op, pool, covered, &r);
        if (!row)
            break;
        memcpy(c->ctrl[c->rows++], row, sizeof c->ctrl[0]);
        done += mark(op, row, covered);
    }
    c->segment = c->rows ? ENG_COVER_CASES / c->rows : 0;
    free(covered);
    free(pool);
}

void eng_cover_free(eng_cover *c)
{
    free(c->ctrl);
    free(c->legal_bits);
    memset(c, 0, sizeof *c);
}

int eng_cover_row(const eng_cover *c, uint64_t i)
{
    if (!c->rows || i >= (uint64_t)c->rows * c->segment)
        return -1;
    return (int)(i / c->segment);
}

unsigned eng_cover_reached(const eng_cover *c, const uint64_t *rows_run)
{
    if (!c->rows)
        return 0;
    uint8_t *bits = calloc(1, pair_bytes());
    unsigned n = 0;
    for (unsigned k = 0; k < c->rows; k++)
        if (rows_run[k / 64] >> (k % 64) & 1)
            n += mark(c->op, c->ctrl[k], bits);
    free(bits);
    return n;
}
