/* The tensor-core family: NVIDIA MMAs as the truncated fused dot-product-add
 * (T-FDPA) model.  Semantics: README.md, "The tensor-core family".
 *
 * A tuple is a whole tile: A (M x K, row-major), B (K x N, column-major: each
 * column's K elements together), C (M x N, row-major), then D as output.
 * Elements are packed into words from bit 0: two 16-bit elements, four fp8
 * elements or one tf32 (an f32 word whose low 13 bits are ignored). */
#ifndef TIEFUZZ_MMA_H
#define TIEFUZZ_MMA_H

#include "isa.h"

typedef enum { MMA_F16, MMA_BF16, MMA_TF32, MMA_E4M3, MMA_E5M2, MMA_F32 } mma_type;

typedef struct {
    const char *name;
    mma_type ab, c, d;
    unsigned m, n, k;
    int F, e_zero_f16, e_zero_f32, l_max, rho;  /* the architecture's defaults */
    const char *scope;
} mma_row;

enum { RHO_RZ_FP32, RHO_RNE_FP16, RHO_RZ_E8M13 };

extern const isa_family_impl mma_impl;
/* The table's rows (built on the first call): NULL past the last. */
const isa_op *mma_op_at(unsigned i);
const mma_row *mma_row_of(const isa_op *op);

/* An element's format (the fp kit's), and how many low bits of its word it
 * ignores (tf32: the top 19 bits of an f32 word). */
const fp_format *mma_format(mma_type t);
unsigned mma_ignored_bits(mma_type t);
/* Elements per word and words of each part of the tuple. */
unsigned mma_per_word(mma_type t);
unsigned mma_words(mma_type t, unsigned elements);
uint32_t mma_element(const uint32_t *words, mma_type t, unsigned index);

void mma_eval(const isa_instance *in, const uint32_t *words, uint32_t *out, isa_trace *trace);
/* What one step did, for class verification (first chunk of an element). */
typedef struct {
    bool truncated;  /* some term had bits below the grid */
    bool tie;        /* the sum sat exactly on an f16 rounding tie (RNE-FP16) */
    bool cancel;     /* the sum is more than 8 bits below its largest term */
    bool near_tie;   /* within 2^-7 of a unit of such a tie, not on it */
} mma_step_info;
void mma_inspect(const isa_instance *in, const uint32_t *words, unsigned i, unsigned j, mma_step_info *info);
uint32_t mma_tfdpa_info(const isa_instance *in, mma_type ab, const uint32_t *a, const uint32_t *b, unsigned l,
                        mma_type c_type, uint32_t c, mma_type d_type, mma_step_info *info);

/* The e_zero a step with output type d uses (e_zero_key decides which). */
int mma_e_zero(const isa_instance *in, mma_type d);
/* The larger of the two e_zero values: a product below it can leave E_max to e_zero (the e-zero class). */
int mma_e_zero_threshold(const isa_instance *in);
/* The model's NaN and infinities in output type d. */
uint32_t mma_canonical_nan(mma_type d);
uint32_t mma_infinity(mma_type d, bool sign);
/* Whether output element (i, j) changes when e_zero (whichever the key
 * selects) or F is one lower or one higher: the model's own evidence that a
 * tile reaches the bit e_zero or F decides (the e-zero and truncation
 * variants aimed at output ties; test gen-rates). */
enum { MMA_SENS_EZ_DOWN = 1, MMA_SENS_EZ_UP = 2, MMA_SENS_F_DOWN = 4, MMA_SENS_F_UP = 8 };
unsigned mma_sensitivity(const isa_instance *in, const uint32_t *w, unsigned i, unsigned j);

/* Tiles aimed at a class (mma_construct.c), and the classes a tile verifiably reaches. */
bool mma_construct(const isa_instance *in, gen_class c, gen_rng *rng, uint32_t *words);
uint32_t mma_classify(const isa_instance *in, const uint32_t *words, const isa_trace *t, uint32_t want);

/* The most elements of one part of a tile (A, B or C). */
#define MMA_MAX_ELEMENTS 512
/* A tile's elements one a word: a[i*K + q], b[j*K + q], c[i*N + j]. */
void mma_unpack(const isa_instance *in, const uint32_t *words, uint32_t *a, uint32_t *b, uint32_t *c);
/* The classifier in two parts, shared by the exact path (mma_classify) and
 * the fast one (mma_fast.c): the classes the elements' bits decide, and
 * those of an element's first step, which a wanted class among
 * MMA_STEP_CLASSES asks for. */
#define MMA_STEP_CLASSES (1u << GEN_TIE | 1u << GEN_NEAR_TIE | 1u << GEN_TRUNCATION | 1u << GEN_CANCEL)
uint32_t mma_bit_classes(const isa_instance *in, const uint32_t *a, const uint32_t *b, const uint32_t *c);
uint32_t mma_step_classes(const mma_step_info *info);
/* The fast path (mma_fast.c): mma_eval's outputs and the exact verdict in
 * 64-bit integers, each element decoded once a tile. */
void mma_fast(const isa_instance *in, const uint32_t *words, uint32_t *out, isa_verdict *v, uint32_t want);

/* One T-FDPA step, exposed for the tests: l products a[i]*b[i] plus c. */
uint32_t mma_tfdpa(const isa_instance *in, mma_type ab, const uint32_t *a, const uint32_t *b, unsigned l,
                   mma_type c_type, uint32_t c, mma_type d_type);

struct spv_tile_s;
const char *mma_lower_tile(const isa_instance *in, isa_lowering l, struct spv_builder *b, const struct spv_tile_s *t,
                           unsigned *out_word);

/* The directed probe tiles of the V100 report, for fit: returns how many
 * were written (0 for inputs other than f16). */
unsigned mma_probes(const isa_op *op, uint32_t (*tiles)[ISA_MAX_IN], unsigned max);

#endif
