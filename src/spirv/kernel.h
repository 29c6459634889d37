/* The compute-shader scaffold every op module shares: binding 0 holds the
 * input tuple words, binding 1 the output words, a push constant the tuple
 * count; one invocation per tuple.  The op's lowering fills in the body. */
#ifndef TIEFUZZ_SPV_KERNEL_H
#define TIEFUZZ_SPV_KERNEL_H

#include <stdbool.h>
#include "builder.h"

#define SPV_LOCAL_SIZE 64

/* Float controls a device offers, per width: index 0 = 16, 1 = 32, 2 = 64. */
typedef struct {
    bool rte[3];
    bool signed_zero_inf_nan[3];
    bool float16, float64, int64;
} spv_device_caps;

/* What a built module declares and needs. */
typedef struct {
    uint32_t *words;          /* the module, malloc'd */
    size_t count;
    bool needs_float16, needs_float64, needs_int64;
    char declared[160];       /* e.g. "RoundingModeRTE 32 64; SignedZeroInfNanPreserve 32 64" */
} spv_kernel;

/* Requirements the body can state (the emulation routines do). */
typedef enum { SB_NEED_RTE64 = 1, SB_NEED_SZINP64 = 2 } sb_need;

/* Ops with large tuples (tiles) run several invocations per tuple, one per
 * output word; their body reads input words at computed indices. */
typedef struct spv_tile_s {
    unsigned base;      /* u32 id: index of the tuple's first input word */
    unsigned sub;       /* u32 id: which output word this invocation computes */
    unsigned ptr_type;  /* internal: pointer-to-u32 type and input variable */
    unsigned in_var;
    unsigned zero;
} spv_tile;
/* The input word at base + index (a u32 id). */
unsigned spv_tile_load(spv_builder *b, const spv_tile *t, unsigned index);

/* in_words holds the tuple's loaded words when tile is NULL; with a tile the
 * body writes out_words[0] only. */
typedef const char *(*spv_body_fn)(void *ctx, spv_builder *b, const unsigned *in_words, unsigned *out_words,
                                   unsigned *needs, const spv_tile *tile);

/* Builds the module; returns NULL or why it cannot be built. */
const char *spv_kernel_build(unsigned n_in, unsigned n_out, unsigned per_tuple, const spv_device_caps *caps,
                             spv_body_fn body, void *ctx, spv_kernel *out);
void spv_kernel_free(spv_kernel *k);

#endif
