/* The tensor-core MMA ops: one row each, with the architecture's T-FDPA
 * parameters (mma-tfdpa.md's table).  The tuple layouts of hundreds of words
 * are built from the rows when the registry first asks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mma.h"

static const mma_row rows[] = {
    /* name                                    ab        c        d        m  n  k   F  ez16  ez32 L  rho */
    {"mma.volta.m8n8k4.f16.f16.f16.f16", MMA_F16, MMA_F16, MMA_F16, 8, 8, 4, 23, -19, -131, 4, RHO_RNE_FP16, "Volta sm_70 mma.sync.m8n8k4"},
    {"mma.volta.m8n8k4.f32.f16.f16.f16", MMA_F16, MMA_F16, MMA_F32, 8, 8, 4, 23, -19, -131, 4, RHO_RZ_FP32, "Volta sm_70 mma.sync.m8n8k4"},
    {"mma.volta.m8n8k4.f16.f16.f16.f32", MMA_F16, MMA_F32, MMA_F16, 8, 8, 4, 23, -19, -131, 4, RHO_RNE_FP16, "Volta sm_70 mma.sync.m8n8k4"},
    {"mma.volta.m8n8k4.f32.f16.f16.f32", MMA_F16, MMA_F32, MMA_F32, 8, 8, 4, 23, -19, -131, 4, RHO_RZ_FP32, "Volta sm_70 mma.sync.m8n8k4"},
    {"mma.turing.m16n8k8.f32.f16.f16.f32", MMA_F16, MMA_F32, MMA_F32, 16, 8, 8, 24, -20, -132, 8, RHO_RZ_FP32, "Turing sm_75 mma.sync.m16n8k8"},
    {"mma.ampere.m16n8k16.f32.f16.f16.f32", MMA_F16, MMA_F32, MMA_F32, 16, 8, 16, 24, -20, -132, 8, RHO_RZ_FP32, "Ampere/Ada sm_80-89 mma.sync.m16n8k16 (two steps)"},
    {"mma.ampere.m16n8k16.f16.f16.f16.f16", MMA_F16, MMA_F16, MMA_F16, 16, 8, 16, 24, -20, -132, 8, RHO_RNE_FP16, "Ampere/Ada sm_80-89 mma.sync.m16n8k16 (two steps)"},
    {"mma.ampere.m16n8k16.f32.bf16.bf16.f32", MMA_BF16, MMA_F32, MMA_F32, 16, 8, 16, 24, -20, -132, 8, RHO_RZ_FP32, "Ampere/Ada sm_80-89 mma.sync.m16n8k16 bf16"},
    {"mma.ampere.m16n8k8.f32.tf32.tf32.f32", MMA_TF32, MMA_F32, MMA_F32, 16, 8, 8, 24, -20, -132, 4, RHO_RZ_FP32, "Ampere/Ada sm_80-89 mma.sync.m16n8k8 tf32"},
    {"mma.ada.m16n8k32.f32.e4m3.e4m3.f32", MMA_E4M3, MMA_F32, MMA_F32, 16, 8, 32, 13, -20, -132, 16, RHO_RZ_E8M13, "Ada sm_89 mma.sync.m16n8k32 e4m3"},
    {"mma.ada.m16n8k32.f32.e5m2.e5m2.f32", MMA_E5M2, MMA_F32, MMA_F32, 16, 8, 32, 13, -20, -132, 16, RHO_RZ_E8M13, "Ada sm_89 mma.sync.m16n8k32 e5m2"},
    {"mma.hopper.m16n8k16.f32.f16.f16.f32", MMA_F16, MMA_F32, MMA_F32, 16, 8, 16, 25, -21, -133, 16, RHO_RZ_FP32, "Hopper/Blackwell sm_90+ mma.sync.m16n8k16"},
    {"mma.hopper.m16n8k16.f16.f16.f16.f16", MMA_F16, MMA_F16, MMA_F16, 16, 8, 16, 25, -21, -133, 16, RHO_RNE_FP16, "Hopper/Blackwell sm_90+ mma.sync.m16n8k16"},
};
#define N_ROWS (sizeof rows / sizeof rows[0])

static isa_op ops[N_ROWS];
static int32_t defaults[N_ROWS][PARAM_COUNT];
static isa_word words[N_ROWS][ISA_MAX_IN + ISA_MAX_OUT];  /* inputs, then outputs */
static char names[N_ROWS][ISA_MAX_IN + ISA_MAX_OUT][8];
static char summaries[N_ROWS][96];
static bool ready;

const fp_format *mma_format(mma_type t)
{
    static const fp_format *const formats[] = {[MMA_F16] = &fp_f16, [MMA_BF16] = &fp_bf16, [MMA_TF32] = &fp_tf32,
                                               [MMA_E4M3] = &fp_e4m3, [MMA_E5M2] = &fp_e5m2, [MMA_F32] = &fp_f32};
    return formats[t];
}

unsigned mma_ignored_bits(mma_type t) { return t == MMA_TF32 ? 32 - fp_tf32.bits : 0; }

unsigned mma_per_word(mma_type t)
{
    switch (t) {
    case MMA_E4M3: case MMA_E5M2: return 4;
    case MMA_TF32: case MMA_F32: return 1;
    default: return 2;
    }
}

unsigned mma_words(mma_type t, unsigned elements) { return (elements + mma_per_word(t) - 1) / mma_per_word(t); }

uint32_t mma_element(const uint32_t *w, mma_type t, unsigned i)
{
    unsigned per = mma_per_word(t);
    if (per == 1)
        return w[i];
    unsigned bits = 32 / per;
    return (w[i / per] >> (bits * (i % per))) & ((1u << bits) - 1);
}

static isa_word_format format_of(mma_type t)
{
    switch (t) {
    case MMA_F16: return WORD_F16X2;
    case MMA_F32: return WORD_F32;
    default: return WORD_U32;  /* bf16 pairs, fp8 quads, tf32: shown as raw words */
    }
}

static const char *type_name(mma_type t)
{
    static const char *n[] = {"f16", "bf16", "tf32", "e4m3", "e5m2", "f32"};
    return n[t];
}

static void build(void)
{
    for (unsigned r = 0; r < N_ROWS; r++) {
        const mma_row *row = &rows[r];
        isa_op *op = &ops[r];
        memset(op, 0, sizeof *op);
        op->name = row->name;
        op->family = "mma";
        op->scope = row->scope;
        snprintf(summaries[r], sizeof summaries[r], "D(%s) = A(%s) x B + C(%s), %ux%ux%u tile, T-FDPA",
                 type_name(row->d), type_name(row->ab), type_name(row->c), row->m, row->n, row->k);
        op->summary = summaries[r];
        op->translated = true;   /* the emulated lowering; a native one is still to come */
        unsigned wa = mma_words(row->ab, row->m * row->k), wb = mma_words(row->ab, row->k * row->n);
        unsigned wc = mma_words(row->c, row->m * row->n), wd = mma_words(row->d, row->m * row->n);
        unsigned n = 0;
        struct { unsigned count; char tag; mma_type t; } parts[3] = {{wa, 'a', row->ab}, {wb, 'b', row->ab}, {wc, 'c', row->c}};
        for (int p = 0; p < 3; p++)
            for (unsigned i = 0; i < parts[p].count; i++, n++) {
                snprintf(names[r][n], sizeof names[r][n], "%c%u", parts[p].tag, i);
                words[r][n] = (isa_word){names[r][n], format_of(parts[p].t)};
            }
        for (unsigned i = 0; i < wd; i++) {
            snprintf(names[r][n + i], sizeof names[r][n + i], "d%u", i);
            words[r][n + i] = (isa_word){names[r][n + i], format_of(row->d)};
        }
        op->in = words[r];
        op->out = words[r] + n;
        op->n_in = n;
        op->n_out = wd;
        op->params = 1u << PARAM_F | 1u << PARAM_E_ZERO_F16 | 1u << PARAM_E_ZERO_F32 | 1u << PARAM_E_ZERO_KEY |
                     1u << PARAM_L_MAX | 1u << PARAM_RHO;
        op->impl = &mma_impl;
        op->form = (int)r;
        if (row->m * row->k > MMA_MAX_ELEMENTS || row->k * row->n > MMA_MAX_ELEMENTS ||
            row->m * row->n > MMA_MAX_ELEMENTS || row->n % 4 || row->m > 64 || row->n > 64)
            abort();  /* past mma_fast's arrays (raise MMA_MAX_ELEMENTS), not four columns at a time, or
                       * more lines than mma_bit_classes' masks hold */
        op->classes = 1u << GEN_RANDOM | 1u << GEN_E_ZERO | 1u << GEN_SUBNORMAL | 1u << GEN_SPECIAL |
                      1u << GEN_TRUNCATION | 1u << GEN_CANCEL;
        if (row->rho == RHO_RNE_FP16)  /* ties exist where the output rounds to nearest */
            op->classes |= 1u << GEN_TIE | 1u << GEN_NEAR_TIE;
        defaults[r][PARAM_F] = row->F;
        defaults[r][PARAM_E_ZERO_F16] = row->e_zero_f16;
        defaults[r][PARAM_E_ZERO_F32] = row->e_zero_f32;
        defaults[r][PARAM_L_MAX] = row->l_max;
        defaults[r][PARAM_RHO] = row->rho;
        op->param_defaults = defaults[r];
    }
    ready = true;
}

const isa_op *mma_op_at(unsigned i)
{
    if (!ready)
        build();
    return i < N_ROWS ? &ops[i] : NULL;
}

const mma_row *mma_row_of(const isa_op *op) { return &rows[op->form]; }

static const char *lower(const isa_instance *in, isa_lowering l, struct spv_builder *b, const unsigned *ids,
                         unsigned *out)
{
    (void)in, (void)l, (void)b, (void)ids, (void)out;
    return "the tensor-core ops are lowered a tile at a time (one invocation per output word)";
}

const isa_family_impl mma_impl = {.eval = mma_eval, .lower = lower, .construct = mma_construct, .classify = mma_classify,
                                  .fast = mma_fast, .lower_tile = mma_lower_tile, .probes = mma_probes};
