/* engine/cover: see cover.h.  A greedy covering array (each row the legal
 * encoding that covers the most pairs not yet covered), over the legal
 * encodings a sample of isa_random_controls draws finds. */
#include <stdlib.h>
#include <string.h>
#include "cover.h"
#include "gen/gen.h"

#define POOL 2048        /* legal encodings sampled: the candidates and the legal pairs */

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

/* An op's paired controls, listed once: asked of every control pair of
 * every pool entry, eng_cover_paired was seven eighths of the schedule's
 * making (perf). */
typedef struct {
    int n, c[CTRL_COUNT];
} paired_list;

static paired_list paired_of(const isa_op *op)
{
    paired_list p = {0};
    for (int c = 0; c < CTRL_COUNT; c++)
        if (eng_cover_paired(op, c))
            p.c[p.n++] = c;
    return p;
}

/* The pair ids of one encoding into ids; their count.  Each control's own
 * value counts as the pair (a, a), so that every value is covered too (an
 * op with one paired control gets a row per value). */
#define MAX_PAIRS (CTRL_COUNT * (CTRL_COUNT + 1) / 2)
static unsigned pairs_of(const paired_list *p, const uint32_t *ctrl, unsigned *ids)
{
    unsigned n = 0;
    for (int i = 0; i < p->n; i++)
        for (int j = i; j < p->n; j++)
            ids[n++] = pair_id(p->c[i], ctrl[p->c[i]], p->c[j], ctrl[p->c[j]]);
    return n;
}

/* Pairs of ctrl not yet in covered. */
static unsigned gain(const paired_list *p, const uint32_t *ctrl, const uint8_t *covered)
{
    unsigned ids[MAX_PAIRS], n = pairs_of(p, ctrl, ids), g = 0;
    for (unsigned i = 0; i < n; i++)
        g += !bit(covered, ids[i]);
    return g;
}

static unsigned mark(const paired_list *p, const uint32_t *ctrl, uint8_t *bits)
{
    unsigned ids[MAX_PAIRS], n = pairs_of(p, ctrl, ids), added = 0;
    for (unsigned i = 0; i < n; i++)
        if (!bit(bits, ids[i])) {
            set_bit(bits, ids[i]);
            added++;
        }
    return added;
}

/* The pool entries by the gain last counted for them, most first (the
 * lower entry first among equals, so the schedule is the same everywhere):
 * a binary heap of entry numbers. */
typedef struct {
    unsigned n, at[POOL], key[POOL];
} gain_heap;

static bool before(const gain_heap *h, unsigned a, unsigned b)
{
    return h->key[a] > h->key[b] || (h->key[a] == h->key[b] && a < b);
}

static void sift_down(gain_heap *h, unsigned i)
{
    for (;;) {
        unsigned best = i, l = 2 * i + 1, r = l + 1;
        if (l < h->n && before(h, h->at[l], h->at[best]))
            best = l;
        if (r < h->n && before(h, h->at[r], h->at[best]))
            best = r;
        if (best == i)
            return;
        unsigned t = h->at[i];
        h->at[i] = h->at[best];
        h->at[best] = t;
        i = best;
    }
}

/* The next row: the pool entry that covers the most pairs not yet covered,
 * or -1 when none covers one.  A lazy greedy: an entry's gain only falls as
 * rows are added, so the gain last counted is a bound, and only the entry
 * on top is counted again until its count holds.  Against the best of 48
 * random candidates (before 2026-12-06): v_fma_f16 144-149 rows to 131-133,
 * the MIX forms 95-102 to 84-90, v_pk_fma_f16 93-96 to about 81, seeds 0-3;
 * each row is a pipeline built. */
static int next_row(const paired_list *p, uint32_t (*pool)[CTRL_COUNT], const uint8_t *covered, gain_heap *h)
{
    while (h->n) {
        unsigned top = h->at[0], g = gain(p, pool[top], covered);
        if (g == h->key[top])
            return g ? (int)top : -1;
        h->key[top] = g;
        sift_down(h, 0);
    }
    return -1;
}

void eng_cover_make(const isa_instance *tmpl, uint64_t seed, eng_cover *c)
{
    memset(c, 0, sizeof *c);
    const isa_op *op = tmpl->op;
    c->op = op;
    paired_list paired = paired_of(op);
    if (!paired.n)
        return;
    uint32_t (*pool)[CTRL_COUNT] = malloc(POOL * sizeof *pool);
    gain_heap *heap = malloc(sizeof *heap);
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
        c->legal += mark(&paired, pool[i], c->legal_bits);
    }
    /* Row 0 is the plain encoding: the first cases of an op test what a
     * translation meets first, as block 0 did before the schedule. */
    memcpy(c->ctrl[c->rows++], pool[0], sizeof c->ctrl[0]);
    unsigned done = mark(&paired, pool[0], covered);
    heap->n = POOL;
    for (unsigned i = 0; i < POOL; i++) {
        heap->at[i] = i;
        heap->key[i] = MAX_PAIRS;  /* a bound until counted */
    }
    while (done < c->legal && c->rows < ENG_COVER_MAX_ROWS) {
        int row = next_row(&paired, pool, covered, heap);
        if (row < 0)
            break;
        memcpy(c->ctrl[c->rows++], pool[row], sizeof c->ctrl[0]);
        done += mark(&paired, pool[row], covered);
    }
    c->segment = c->rows ? ENG_COVER_CASES / c->rows : 0;
    free(covered);
    free(heap);
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
    paired_list paired = paired_of(c->op);
    unsigned n = 0;
    for (unsigned k = 0; k < c->rows; k++)
        if (rows_run[k / 64] >> (k % 64) & 1)
            n += mark(&paired, c->ctrl[k], bits);
    free(bits);
    return n;
}
