/* Maxwell cases a block at a time (maxwell_construct_many), and one at a
 * time as a block of one (maxwell_construct): one design of each class,
 * so that a campaign, a replay and the rebuild of a miss build the same
 * case.  A case draws its input words first (all of a block's together,
 * gen_draw_words: vector code), then its class's design takes its
 * stream's next draws.  A block's cases are grouped by class (by the
 * classes' period, else a counting sort), and each
 * class's cases get their next draws in vectors (gen_peek_draws) and are
 * designed in a loop of their own, the controls (a block's instance is
 * one) read once a chunk of a class's cases.  One case at a time, through
 * the family's construct with the class switched on for each,
 * construction was 26-29% of a Maxwell campaign's CPU on lavapipe (perf),
 * and a random case's four draws alone 4-5 ns (`bench_rdna2 --stages`).
 * The carry designs of XMAD and IADD3, a dozen shapes under the controls
 * with draws that depend on them, stay a case at a time
 * (maxwell_construct.c). */
#include <string.h>
#include "classify.h"
#include "maxwell.h"

static uint32_t sign_half_of(uint64_t draw) { return maxwell_sign_values[gen_below_of(draw, MAXWELL_SIGN_VALUES)]; }

/* on (0 or 1) ? a : b, in masks: a case's coin is data, and a branch on
 * it mispredicts half the time (GCC had made IADD3's zero-half word, one
 * of three drawn, two branches). */
static uint32_t pick(uint32_t on, uint32_t a, uint32_t b)
{
    uint32_t m = 0u - on;
    return (a & m) | (b & ~m);
}

/* One half zero, the other odd: the low half from the first draw, where
 * it goes from the second's coin (heads: low). */
static uint32_t zero_one_half_of(uint64_t d1, uint64_t d2)
{
    uint32_t nz = (uint32_t)(d1 & 0xffff) | 1;
    return pick(gen_coin_of(d2), nz, nz << 16);
}

/* What a class's design works on: up to CHUNK of a block's cases of that
 * class, at[0..n), and their streams' next draws, made before in vectors
 * (gen_peek_draws).  A design reads draw q of case j with drawn(), and
 * steps the case's stream past the draws it took with take(). */
enum { CHUNK = 256, DRAWS_MAX = 5 };  /* CHUNK: 10 KB of draws on the stack (gen_peek_draws has its own) */
typedef struct {
    const isa_instance *in;
    uint32_t *w;  /* the block's words, n_in a case */
    gen_rng *r;
    bool *reach;
    const uint32_t *at;
    size_t n;
    const uint64_t *d;  /* draw q of case j at q * n + j */
} class_cases;

static uint32_t *words_of(const class_cases *cs, size_t j) { return cs->w + (size_t)cs->at[j] * cs->in->op->n_in; }
static uint64_t drawn(const class_cases *cs, size_t j, unsigned q) { return cs->d[q * cs->n + j]; }
static void take(const class_cases *cs, size_t j, unsigned draws) { gen_skip(&cs->r[cs->at[j]], draws); }

static void set_reach(const class_cases *cs, bool reach)
{
    for (size_t j = 0; j < cs->n; j++)
        cs->reach[cs->at[j]] = reach;
}

/* ---- XMAD ---- */

static void xmad_sign(const class_cases *cs)
{
    set_reach(cs, true);
    const uint32_t *c = cs->in->ctrl;
    bool imm = c[CTRL_SB_KIND] == SB_IMM;
    uint32_t a_hi = c[CTRL_A_H1] != 0, b_hi = c[CTRL_B_H1] != 0;
    for (size_t j = 0; j < cs->n; j++) {
        uint32_t *w = words_of(cs, j);
        w[0] = maxwell_set_half(w[0], a_hi, sign_half_of(drawn(cs, j, 0)));
        if (!imm)
            w[1] = maxwell_set_half(w[1], b_hi, sign_half_of(drawn(cs, j, 1)));
        take(cs, j, imm ? 1 : 2);
    }
}

/* A's halves one zero; with a register Sb, on a coin, Sb's too. */
static void xmad_zero_half(const class_cases *cs)
{
    set_reach(cs, true);
    bool imm = cs->in->ctrl[CTRL_SB_KIND] == SB_IMM;
    for (size_t j = 0; j < cs->n; j++) {
        uint32_t *w = words_of(cs, j);
        w[0] = zero_one_half_of(drawn(cs, j, 0), drawn(cs, j, 1));
        if (imm) {
            take(cs, j, 2);
            continue;
        }
        uint32_t also_b = gen_coin_of(drawn(cs, j, 2));
        w[1] = pick(also_b, zero_one_half_of(drawn(cs, j, 3), drawn(cs, j, 4)), w[1]);
        take(cs, j, 3 + 2 * also_b);
    }
}

/* B's low half unlike its high one, where the op reads both (reads: an
 * instance's controls decide it). */
static void merge_b(const class_cases *cs, bool reads)
{
    for (size_t j = 0; j < cs->n; j++) {
        uint32_t *w = words_of(cs, j);
        w[1] ^= reads && (w[1] & 0xffff) == (w[1] >> 16);
    }
    set_reach(cs, reads);
}

/* XMAD: where .MRG or CBCC read Sb whole. */
static void xmad_merge(const class_cases *cs) { merge_b(cs, maxwell_xmad_reads_sb_whole(cs->in->ctrl)); }

/* ---- IADD3 ---- */

static void iadd3_sign(const class_cases *cs)
{
    set_reach(cs, true);
    const uint32_t *c = cs->in->ctrl;
    uint32_t hi[3];
    for (int i = 0; i < 3; i++)
        hi[i] = c[CTRL_A_PART + i] != 1;
    for (size_t j = 0; j < cs->n; j++) {
        uint32_t *w = words_of(cs, j);
        for (unsigned i = 0; i < 3; i++)
            w[i] = maxwell_set_half(w[i], hi[i], sign_half_of(drawn(cs, j, i)));
        take(cs, j, 3);
    }
}

/* One of the three words, drawn, has one half zero. */
static void iadd3_zero_half(const class_cases *cs)
{
    set_reach(cs, true);
    for (size_t j = 0; j < cs->n; j++) {
        uint32_t *w = words_of(cs, j);
        uint32_t which = gen_below_of(drawn(cs, j, 0), 3), v = zero_one_half_of(drawn(cs, j, 1), drawn(cs, j, 2));
        for (uint32_t i = 0; i < 3; i++)
            w[i] = pick(i == which, v, w[i]);
        take(cs, j, 3);
    }
}

/* ---- the multiply sequences: A, then B (a register) or the immediate, then C ---- */

static bool has_b(const isa_instance *in) { return in->op->form != MAXWELL_IMUL_IMM16; }

/* A and B each get a sign value in a half drawn. */
static void seq_sign(const class_cases *cs)
{
    set_reach(cs, true);
    bool b = has_b(cs->in);
    for (size_t j = 0; j < cs->n; j++) {
        uint32_t *w = words_of(cs, j);
        /* The value before the half it goes to (the order of the draws is GCC's
         * evaluation order where the designs were once arguments of a call). */
        w[0] = maxwell_set_half(w[0], gen_coin_of(drawn(cs, j, 1)), sign_half_of(drawn(cs, j, 0)));
        if (b)
            w[1] = maxwell_set_half(w[1], gen_coin_of(drawn(cs, j, 3)), sign_half_of(drawn(cs, j, 2)));
        take(cs, j, b ? 4 : 2);
    }
}

static void seq_zero_half(const class_cases *cs)
{
    set_reach(cs, true);
    for (size_t j = 0; j < cs->n; j++) {
        words_of(cs, j)[0] = zero_one_half_of(drawn(cs, j, 0), drawn(cs, j, 1));
        take(cs, j, 2);
    }
}

/* IMAD.LO's .MRG step reads B's low half. */
static void seq_merge(const class_cases *cs) { merge_b(cs, maxwell_seq_reads_b_low(cs->in->op->form)); }

/* The high words: big halves make the middle sum need its 33rd bit.  The
 * low word: C = -(A * B) + 0..2, and a zero immediate leaves C alone,
 * which never carries: out of reach, not a miss to build three times more. */
static void seq_carry(const class_cases *cs)
{
    if (maxwell_seq_high_word(cs->in->op->form)) {
        set_reach(cs, true);
        for (size_t j = 0; j < cs->n; j++) {
            uint32_t *w = words_of(cs, j);
            w[0] |= 0xc000c000u;
            w[1] |= 0xc000c000u;
        }
        return;
    }
    bool b = has_b(cs->in);
    uint32_t imm = cs->in->ctrl[CTRL_IMM];
    unsigned c_at = b ? 2 : 1;
    for (size_t j = 0; j < cs->n; j++) {
        uint32_t *w = words_of(cs, j);
        uint32_t factor = b ? w[1] : imm;
        w[c_at] = 0u - (uint32_t)((uint64_t)w[0] * factor) + gen_below_of(drawn(cs, j, 0), 3);
        take(cs, j, 1);
    }
    set_reach(cs, b || imm != 0);
}

/* The carry designs of XMAD and IADD3 (maxwell_construct.c), a case at a
 * time: a dozen shapes under the controls, and draws that depend on them.
 * Their first draw is a coin (a carry-in's shape on heads), and the cases
 * go in two runs, tails then heads, so that no branch depends on it (a
 * coin's branch mispredicts half the time; doc/fast-host.md, "Maxwell
 * cases a block at a time"). */
typedef struct {
    uint32_t cases[2][CHUNK];  /* the chunk's cases (their j) on tails, on heads */
    size_t n[2];
} by_coin;

/* The chunk's cases by their coins, each stream stepped past its coin.
 * Where the controls give no carry-in, heads and tails design alike, and
 * every case goes with tails. */
static void split_by_coin(const class_cases *cs, bool carry_in, by_coin *b)
{
    b->n[0] = b->n[1] = 0;
    for (size_t j = 0; j < cs->n; j++) {
        uint32_t heads = gen_coin_of(drawn(cs, j, 0)) & carry_in;
        b->cases[0][b->n[0]] = (uint32_t)j;
        b->cases[1][b->n[1]] = (uint32_t)j;
        b->n[heads]++;
        take(cs, j, 1);
    }
}

static void xmad_carry(const class_cases *cs)
{
    maxwell_xmad_ctl x = maxwell_xmad_controls(cs->in);
    int csfu = cs->in->param[PARAM_CSFU];
    by_coin b;
    split_by_coin(cs, x.x, &b);
    for (int heads = 0; heads < 2; heads++)
        for (size_t i = 0; i < b.n[heads]; i++) {
            size_t j = b.cases[heads][i];
            cs->reach[cs->at[j]] = maxwell_xmad_carry(&x, csfu, heads, &cs->r[cs->at[j]], words_of(cs, j));
        }
}

static void iadd3_carry(const class_cases *cs)
{
    maxwell_iadd3_ctl x = maxwell_iadd3_controls(cs->in);
    by_coin b;
    split_by_coin(cs, maxwell_iadd3_has_carry_in(&x), &b);
    for (int heads = 0; heads < 2; heads++)
        for (size_t i = 0; i < b.n[heads]; i++) {
            size_t j = b.cases[heads][i];
            cs->reach[cs->at[j]] = maxwell_iadd3_carry(&x, heads, &cs->r[cs->at[j]], words_of(cs, j));
        }
}

static void out_of_reach(const class_cases *cs) { set_reach(cs, false); }
static void random_words(const class_cases *cs) { set_reach(cs, true); }

/* The designs, by form and class, and the draws made for each before it
 * runs: the most it reads with drawn(), at most DRAWS_MAX (ROW checks that
 * as it compiles).  Reading past them would read indeterminate memory; the
 * pinned cases of test construct-many would catch it.  The carry designs
 * of XMAD and IADD3 take further draws from their streams.  A class with
 * no design here (a floating-point one) is out of reach, and its cases
 * stay random.  Sign and zero-half are within reach under every control. */
typedef struct {
    void (*design)(const class_cases *cs);
    unsigned draws;
} design_row;

#define ROW(design, draws) {design, (draws) + 0 * sizeof(char[(draws) <= DRAWS_MAX ? 1 : -1])}
static const design_row designs[MAXWELL_FORM_COUNT][GEN_CLASS_COUNT] = {
    [MAXWELL_XMAD] = {[GEN_RANDOM] = ROW(random_words, 0), [GEN_SIGN] = ROW(xmad_sign, 2),
                      [GEN_ZERO_HALF] = ROW(xmad_zero_half, 5), [GEN_MERGE] = ROW(xmad_merge, 0),
                      [GEN_CARRY] = ROW(xmad_carry, 1)},
    [MAXWELL_IADD3] = {[GEN_RANDOM] = ROW(random_words, 0), [GEN_SIGN] = ROW(iadd3_sign, 3),
                       [GEN_ZERO_HALF] = ROW(iadd3_zero_half, 3), [GEN_MERGE] = ROW(out_of_reach, 0),
                       [GEN_CARRY] = ROW(iadd3_carry, 1)},
/* The high words' carry design sets bits and draws nothing; the low words' draws one. */
#define SEQUENCE(carry_draws) {[GEN_RANDOM] = ROW(random_words, 0), [GEN_SIGN] = ROW(seq_sign, 4), \
                               [GEN_ZERO_HALF] = ROW(seq_zero_half, 2), [GEN_MERGE] = ROW(seq_merge, 0), \
                               [GEN_CARRY] = ROW(seq_carry, carry_draws)}
    [MAXWELL_IMAD_LO] = SEQUENCE(1), [MAXWELL_IMAD_HI_U32] = SEQUENCE(0), [MAXWELL_IMUL_IMM16] = SEQUENCE(1),
    [MAXWELL_IMAD_HI_S32] = SEQUENCE(0),
#undef SEQUENCE
};
#undef ROW

/* A class's n cases at[0..n) of a block, CHUNK at a time: their draws,
 * then the design.  cls GEN_CLASS_COUNT holds the values past the class
 * list, out of reach. */
static void design_class(const isa_instance *in, gen_class cls, gen_rng *r, uint32_t *w, bool *reach,
                         const uint32_t *at, size_t n)
{
    design_row row = cls < GEN_CLASS_COUNT ? designs[in->op->form][cls] : (design_row){NULL, 0};
    if (!row.design)
        row.design = out_of_reach;
    uint64_t d[DRAWS_MAX * CHUNK];
    for (size_t first = 0; first < n; first += CHUNK) {
        class_cases cs = {in, w, r, reach, at + first, n - first < CHUNK ? n - first : CHUNK, d};
        gen_peek_draws(r, cs.at, cs.n, row.draws, d);
        row.design(&cs);
    }
}

/* The cases grouped by class, each group in index order, a design call a
 * group.  Where the classes have a period p, case j's group is every p-th
 * case from j, written out as such; else a counting sort (a value past the
 * classes in a bucket of its own).  Each case is designed from its own
 * stream, so which group it goes with, and when, changes nothing: with
 * p = 4 (a plain maxwell.imul_imm16 campaign's four classes), the sort's
 * counts, each added to in memory every fourth case, were a chain of
 * stores and loads that took two thirds of the block's own time (perf). */
static void design_groups(const isa_instance *in, const gen_class *c, gen_rng *r, size_t n, uint32_t *w,
                          bool *reach)
{
    uint32_t at[ISA_GENERATE_BLOCK];
    size_t p = gen_class_period(c, n, GEN_CLASS_LIST_MAX);  /* a class list's length at most: its period */
    if (p) {
        for (size_t j = 0; j < p; j++) {
            size_t k = 0;
            for (size_t i = j; i < n; i += p)
                at[k++] = (uint32_t)i;
            design_class(in, (unsigned)c[j] < GEN_CLASS_COUNT ? c[j] : GEN_CLASS_COUNT, r, w, reach, at, k);
        }
        return;
    }
    enum { BUCKETS = GEN_CLASS_COUNT + 1 };
    size_t count[BUCKETS + 1] = {0}, next[BUCKETS];
    uint8_t bucket[ISA_GENERATE_BLOCK];
    for (size_t i = 0; i < n; i++) {
        bucket[i] = (unsigned)c[i] < GEN_CLASS_COUNT ? (uint8_t)c[i] : GEN_CLASS_COUNT;
        count[bucket[i] + 1]++;
    }
    for (int k = 0; k < BUCKETS; k++)
        count[k + 1] += count[k];
    for (int k = 0; k < BUCKETS; k++)
        next[k] = count[k];
    for (size_t i = 0; i < n; i++)
        at[next[bucket[i]]++] = (uint32_t)i;
    for (int k = 0; k < BUCKETS; k++)
        if (count[k + 1] > count[k])
            design_class(in, (gen_class)k, r, w, reach, at + count[k], count[k + 1] - count[k]);
}

/* Up to ISA_GENERATE_BLOCK cases: words, then each class's design.  A
 * block of one (maxwell_construct) goes the same way, at several times
 * the cost a case that it had when it was the only way: the single-case
 * callers (`tiefuzz gen`, the exact model's generation) do far more per
 * case than that. */
static void construct_block(const isa_instance *in, const gen_class *c, gen_rng *r, size_t n, uint32_t *w,
                            bool *reach)
{
    unsigned ni = in->op->n_in;
    gen_draw_words(r, n, ni, w);
    if (in->op->form == MAXWELL_XMAD || in->op->form == MAXWELL_IADD3) {
        /* Their rows' four words are A, B, C and the condition code, whose
         * four flags are the word's low bits.  All the words ANDed with a
         * pattern, which is vector code. */
        static const uint32_t keep[4] = {~0u, ~0u, ~0u, 0xf};
        for (size_t i = 0; i < n; i++)
            for (unsigned j = 0; j < 4; j++)
                w[i * 4 + j] &= keep[j];
    }
    design_groups(in, c, r, n, w, reach);
}

void maxwell_construct_many(const isa_instance *in, const gen_class *c, gen_rng *r, size_t n, uint32_t *words,
                            bool *reachable)
{
    for (size_t first = 0; first < n; first += ISA_GENERATE_BLOCK) {
        size_t m = n - first < ISA_GENERATE_BLOCK ? n - first : ISA_GENERATE_BLOCK;
        construct_block(in, c + first, r + first, m, words + first * in->op->n_in, reachable + first);
    }
}

bool maxwell_construct(const isa_instance *in, gen_class c, gen_rng *r, uint32_t *words)
{
    bool reachable;
    construct_block(in, &c, r, 1, words, &reachable);
    return reachable;
}
