/* Class verification and generation with verification. */
#ifndef TIEFUZZ_CLASSIFY_H
#define TIEFUZZ_CLASSIFY_H

#include <stddef.h>
#include "isa.h"

/* Bit per gen_class that the case verifiably belongs to.  The double-round
 * check costs two more roundings, so it is made only when `want` has its bit;
 * the other bits are always exact. */
uint32_t isa_trace_classes(const isa_trace *t, uint32_t want);
uint32_t isa_case_classes(const isa_instance *in, const uint32_t *words);
/* Construct one case of class c into words; returns its verified classes
 * (double-round only checked when c is double-round). */
uint32_t isa_generate(const isa_instance *in, gen_class c, gen_rng *rng, uint32_t *words);
/* The same, leaving the host outputs and the trace of the kept case. */
uint32_t isa_generate_eval(const isa_instance *in, gen_class c, gen_rng *rng, uint32_t *words, uint32_t *out,
                           isa_trace *t);
/* The unit exponent of the first tie among the final roundings, for the
 * spread report; ISA_NO_EXPONENT when none. */
#define ISA_NO_EXPONENT (-100000)
/* The classes of `wanted` that apply to op (its family's set), in order.
 * Returns how many (0: none applies). */
unsigned isa_op_classes(const isa_op *op, const gen_class *wanted, unsigned n, gen_class *out);
int isa_trace_tie_exponent(const isa_trace *t);
/* The rounding cells of a trace's final roundings (result kind x exact x
 * last bit x guard x sticky x sign: 7 bits, 0..191), as bits set in
 * cells[ISA_CELL_WORDS]; the same cells fuzz_diff counts. */
#define ISA_CELLS 192
void isa_trace_cells(const isa_trace *t, uint64_t *cells);
/* The kind of a rounding's result, for its cell: 0 zero, 1 tiny, 2 normal,
 * 3 overflow, 4 infinite, 5 NaN (of the exact value's kind, then the rounding's flags).
 * isa_result_kind and isa_cell are restated for eight lanes at a time in
 * src/isa/rdna2_verdict_lanes.c: change both together (test fast-verdicts
 * holds the two to each other). */
static inline unsigned isa_result_kind(fp_kind exact, bool overflow, bool tiny)
{
    return exact == FPK_NAN ? 5 : exact == FPK_INF ? 4 : exact == FPK_ZERO ? 0 : overflow ? 3 : tiny ? 1 : 2;
}
/* A rounding cell from its parts (the encoding isa_trace_cells uses, for
 * fast paths); kind from isa_result_kind. */
static inline unsigned isa_cell(unsigned kind, bool inexact, bool lsb, bool guard, bool sticky, bool sign)
{
    return kind << 5 | (unsigned)inexact << 4 | (unsigned)lsb << 3 | (unsigned)guard << 2 | (unsigned)sticky << 1 |
           (unsigned)sign;
}
/* The cell of one traced final rounding. */
static inline unsigned isa_step_cell(const isa_step *st)
{
    return isa_cell(isa_result_kind(st->exact.kind, st->info.overflow, st->info.tiny), st->info.position != FP_EXACT,
                    st->info.lsb, st->info.guard, st->info.sticky, st->exact.sign);
}

/* The exact path's verdict on a case whose trace is t (eval already run). */
void isa_verdict_of_trace(const isa_instance *in, const uint32_t *words, const isa_trace *t, uint32_t want,
                          isa_verdict *v);
/* Outputs and verdict by the exact model. */
void isa_eval_exact(const isa_instance *in, const uint32_t *words, uint32_t *out, uint32_t want, isa_verdict *v);
/* Outputs and verdict by the family's fast path, or the exact model where it has none. */
void isa_eval_fast(const isa_instance *in, const uint32_t *words, uint32_t *out, uint32_t want, isa_verdict *v);
bool isa_has_fast(const isa_op *op);
/* Outputs of n tuples (words and out packed by the op's n_in and n_out) at
 * the host model's full speed: the family's batch path, else its fast path,
 * else the exact model. */
void isa_eval_batch(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out);
/* Construct one case of class c, verified by the fast path (isa_generate_eval's
 * cases, outputs and classes exactly, at hardware speed). */
uint32_t isa_generate_fast(const isa_instance *in, gen_class c, gen_rng *rng, uint32_t *words, uint32_t *out,
                           isa_verdict *v);
/* isa_eval_fast on n tuples in a row, tuple i wanting want[i] (the family's
 * fast_verdicts where it has one). */
void isa_eval_fast_many(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out, const uint32_t *want,
                        isa_verdict *v);
/* isa_generate_fast on n cases in a row, case i of class c[i] from rng[i]:
 * the same cases, outputs and verdicts, built first and verified together,
 * ISA_GENERATE_BLOCK at a time.  A family's construct_many designs a
 * block's cases of each class together, a vector at a time, so its own
 * blocks and its callers' (eng_make_cases, the campaign's fill) are this
 * size too: with eight classes cycled, blocks of 256 gave each class about
 * 32 cases a call, and 1,024 took v_fma_f32 from 31.3-31.4 to 28.3-28.8 ns
 * a generated case (doc/fast-host.md).  A block's misses are rebuilt
 * ISA_REBUILD_BATCH at a time (a few in a hundred miss; the batch's arrays
 * stay small on the stack, and test construct-many crosses a batch). */
#define ISA_GENERATE_BLOCK 1024
#define ISA_REBUILD_BATCH 64
void isa_generate_fast_many(const isa_instance *in, const gen_class *c, gen_rng *rng, size_t n, uint32_t *words,
                            uint32_t *out, isa_verdict *v);
/* Two verdicts say the same (field by field: no padding compared). */
bool isa_verdict_equal(const isa_verdict *a, const isa_verdict *b);
/* The exact model re-evaluates a case the fast path gave out/v for: false
 * when outputs or verdict differ, with what differs (and the tuple) in why. */
bool isa_fast_audit(const isa_instance *in, const uint32_t *words, const uint32_t *out, const isa_verdict *v,
                    uint32_t want, char *why, size_t n);

#endif
