/* engine/plan: what a campaign runs, decided before any device opens; see plan.c. */
#ifndef TIEFUZZ_ENGINE_PLAN_H
#define TIEFUZZ_ENGINE_PLAN_H

#include "options.h"

/* What a run checks before it opens a device (op globs, --shader, --ctrl,
 * --param, a writable --json): the selected ops and their count, or
 * -(exit status) after saying what is wrong. */
#define ENG_MAX_OPS 256
int eng_check_run(const eng_options *o, const isa_op *ops[ENG_MAX_OPS]);
/* The same, keeping each op's template instance (malloc'd) and the number
 * of ops that can run on a device. */
int eng_prepare(const eng_options *o, const isa_op **ops, isa_instance **tmpl_out, unsigned *usable_out);

/* Select ops by glob (all translated ops when n == 0).  Returns the count,
 * or -1 with the bad glob in *bad. */
int eng_select_ops(const char *const *globs, unsigned n, const isa_op **out, unsigned max, const char **bad);

/* The instance used for cases [block * ENG_BLOCK, (block+1) * ENG_BLOCK):
 * controls and K depend on the seed and the block only, never on the batch
 * size.  fixed_ctrl keeps the template's controls.
 * Block 0 runs the plain encoding (draw 0).  Block b > 0 runs one of the
 * op's first eng_block_draws(b) = 1 + floor(sqrt(b)) drawn instances
 * (eng_drawn_instance), picked by the seed and b: every distinct instance is
 * a pipeline build, which on lavapipe with a cold shader cache takes 40-60
 * ms for the f16, packed and MIX lowerings, more than a block's cases take
 * to make.  A fresh instance per block made 30-second campaigns with a new
 * seed 1.7-2.8x slower, and kept a module and pipeline per fuzzed block;
 * drawing from a pool that grows as the square root of the blocks keeps
 * the builds (and what the caches hold) a small share of any campaign while
 * still reaching a new instance now and then (about 450 in an hour at 15M
 * cases/s). */
#define ENG_BLOCK 262144u
/* Worker processes of one run (--jobs) split each block into chunks. */
#define ENG_CHUNK 65536u
/* The first case index >= i this process runs: with --shard K/M the blocks
 * b with b % M == K; within them, for job j of n, the chunks whose number
 * among the shard's chunks is j modulo n.  Shards and jobs together still
 * cover every case exactly once. */
uint64_t eng_next_owned(const eng_options *o, uint64_t i);
void eng_block_instance(const isa_instance *tmpl, bool fixed_ctrl, bool fixed_k, uint64_t seed, uint64_t block,
                        const gen_class *classes, unsigned n_classes, isa_instance *out);
uint64_t eng_block_draws(uint64_t block);
/* The op's draw-th instance for the seed: draw 0 the plain encoding (and a
 * K every class can aim at); later draws fuzz the controls half the time,
 * and K.  Host-only runs (selftest), which build no pipelines, take a fresh
 * draw per block. */
void eng_drawn_instance(const isa_instance *tmpl, bool fixed_ctrl, bool fixed_k, uint64_t seed, uint64_t draw,
                        const gen_class *classes, unsigned n_classes, isa_instance *out);
/* Case i of an op: its words, host outputs and verdict (by the fast path;
 * the same as the exact model's), and its verified classes. */
uint32_t eng_make_case(const isa_instance *in, uint64_t seed, uint64_t index, const gen_class *classes,
                       unsigned n_classes, uint32_t *words, uint32_t *host, isa_verdict *verdict);
/* Cases first .. first + n - 1 of an op, as eng_make_case makes each, built
 * together and verified together (isa_generate_fast_many). */
void eng_make_cases(const isa_instance *in, uint64_t seed, uint64_t first, unsigned n, const gen_class *classes,
                    unsigned n_classes, uint32_t *words, uint32_t *host, isa_verdict *verdicts);
/* The class case i is aimed at: the classes cycled (n_classes >= 1; a
 * campaign skips an op with none of the classes asked for, gen and
 * selftest refuse it). */
static inline gen_class eng_case_class(uint64_t index, const gen_class *classes, unsigned n_classes)
{
    return classes[index % n_classes];
}

/* eng_case_class of cases first .. first + m - 1, into c[0..m). */
void eng_case_classes(uint64_t first, unsigned m, const gen_class *classes, unsigned n_classes, gen_class *c);

#endif
