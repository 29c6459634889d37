/* spirv/allowed internals: the module as a table (allowed_read.c), the
 * float operations with their liberties (allowed_float.c), the interpreter
 * (allowed_run.c) and the set functions (allowed_set.c). */
#ifndef TIEFUZZ_SPV_ALLOWED_INTERNAL_H
#define TIEFUZZ_SPV_ALLOWED_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "allowed.h"
#include "../fp/fp.h"

/* ---- The module (allowed_read.c) ---- */

typedef enum { TK_NONE, TK_VOID, TK_BOOL, TK_INT, TK_FLOAT, TK_VECTOR, TK_POINTER, TK_OTHER } spa_tkind;

typedef struct {
    spa_tkind kind;
    unsigned width;      /* TK_INT, TK_FLOAT: bits; TK_BOOL: 1 */
    bool is_signed;
    unsigned comp;       /* TK_VECTOR: component type id */
    unsigned count;      /* TK_VECTOR: components */
    unsigned storage;    /* TK_POINTER: storage class */
} spa_type;

typedef struct {
    unsigned opcode, type, result, n_words;
    const uint32_t *w;   /* the instruction's words; w[0] is opcode and count */
} spa_inst;

/* What the interface variables are. */
typedef enum { VAR_NONE, VAR_IN, VAR_OUT, VAR_PUSH, VAR_GID, VAR_LOCAL } spa_var_kind;

typedef struct {
    uint32_t *words;       /* the module's words (a copy the table points into) */
    spa_inst *inst;
    unsigned n_inst, bound;
    spa_type *types;       /* by id */
    int *def;              /* id -> index of its defining instruction, -1 */
    int *label;            /* label id -> index of the OpLabel, -1 */
    uint8_t *no_contraction;
    int32_t *spec_id;      /* -1: none */
    int8_t *fp_rounding;   /* FPRoundingMode decoration: 0 RTE, 1 RTZ, 2 RTP, 3 RTN, -1 none */
    uint8_t *var_kind;     /* spa_var_kind of an OpVariable */
    /* 1 where some instruction other than a float arithmetic, conversion or
     * comparison reads the id (a store, a bitcast, an integer instruction):
     * its bits are observed as they are. */
    uint8_t *observed;
    unsigned glsl_set;     /* the GLSL.std.450 import id, 0 if none */
    unsigned entry;        /* the GLCompute entry point */
    unsigned fn_begin, fn_end;  /* the entry function's instructions [begin, end) */
    unsigned *globals;     /* indices of the constants and global variables, in order */
    unsigned n_globals;
    /* Float-control execution modes as declared, per width (0 16, 1 32, 2 64). */
    bool em_preserve[3], em_flush[3], em_szinp[3], em_rte[3], em_rtz[3];
} spa_module;

int spa_module_read(const uint32_t *words, size_t n_words, spa_module *m, char *err, size_t errn);
void spa_module_free(spa_module *m);
/* "OpFDiv", "GLSL.std.450 Sin": the instruction's name for messages. */
void spa_inst_name(const spa_module *m, const spa_inst *in, char *buf, size_t n);
static inline int spa_width_index(unsigned bits) { return bits == 16 ? 0 : bits == 32 ? 1 : bits == 64 ? 2 : -1; }

/* ---- Float operations (allowed_float.c) ---- */

/* The rules in force for one float width. */
typedef enum { SPA_RND_RTE, SPA_RND_RTZ, SPA_RND_RTP, SPA_RND_RTN, SPA_RND_FREE } spa_rounding;
typedef struct {
    bool preserve, flush, szinp;
    spa_rounding round;    /* arithmetic: RTE, RTZ or FREE (none in force) */
    /* Only float instructions read the result: a denormal's flush and a
     * zero's sign are left to them (spa_fcand.open) instead of forking here. */
    bool lazy;
} spa_fmode;

/* One value an operation may produce, with the liberties that produce it. */
typedef struct {
    uint64_t bits;
    unsigned lib;
    bool open;             /* a denormal's flush or a zero's sign left to its readers */
    bool has_prod;         /* OpFMul: the exact product, for a contraction */
    fp_value prod;
} spa_fcand;

#define SPA_MAX_CANDS 64
typedef struct {
    spa_fcand c[SPA_MAX_CANDS];
    unsigned n;
    bool inf_nan;          /* an inf or NaN met where the rules do not keep them */
    bool overflow;         /* more candidates than fit (a tiefuzz limit) */
} spa_fcands;

const fp_format *spa_format_of(unsigned bits);
/* How an operand may be read: itself, or a denormal as a zero. */
unsigned spa_read_options(const fp_format *f, uint64_t bits, const spa_fmode *m, uint64_t opt[3], unsigned lib[3]);
/* How an open value (spa_fcand.open) may be observed: itself, a denormal
 * flushed, a zero of either sign. */
unsigned spa_open_options(const fp_format *f, uint64_t bits, const spa_fmode *m, uint64_t opt[3], unsigned lib[3]);
/* The values an exact result may be written as, added to out (with lib_in
 * added to their liberties).  conv: a conversion (its own rounding rule). */
void spa_result_options(const fp_format *f, fp_value exact, const spa_fmode *m, spa_rounding conv_round, bool conv,
                        unsigned lib_in, spa_fcands *out);
void spa_cands_add(spa_fcands *out, uint64_t bits, unsigned lib, const fp_value *prod);
void spa_cands_add_open(spa_fcands *out, const fp_format *f, uint64_t bits, unsigned lib, const fp_value *prod,
                        bool open);
bool spa_is_inf_or_nan(const fp_format *f, uint64_t bits);

typedef enum { SPA_F_ADD, SPA_F_SUB, SPA_F_MUL, SPA_F_NEG, SPA_F_ABS, SPA_F_FMA } spa_fop;
/* An arithmetic operation on operand bits a[0..2] (all of format f), every
 * operand read every allowed way; fma: fused (strict) and unfused. */
void spa_float_arith(spa_fop op, const fp_format *f, const uint64_t *a, const spa_fmode *m, spa_fcands *out);
/* a*b (exact product prod, read already) fused with c: prod + c, or c - prod
 * (sub_prod) or prod - c (sub_c). */
void spa_float_fused(const fp_format *f, fp_value prod, uint64_t c, bool prod_first, bool subtract,
                     const spa_fmode *m, unsigned lib, spa_fcands *out);
/* A conversion from float format from to format to (conv_round as decided). */
void spa_float_convert(const fp_format *from, const fp_format *to, uint64_t a, const spa_fmode *m_from,
                       const spa_fmode *m_to, spa_rounding conv_round, spa_fcands *out);
/* An exact value (from an integer) rounded to f as a conversion. */
void spa_int_to_float(const fp_format *f, fp_value v, const spa_fmode *m, spa_rounding conv_round, spa_fcands *out);
/* A comparison: candidates 0 / 1. */
typedef enum { SPA_CMP_EQ, SPA_CMP_NE, SPA_CMP_LT, SPA_CMP_GT, SPA_CMP_LE, SPA_CMP_GE } spa_cmp;
void spa_float_compare(spa_cmp c, bool ordered, const fp_format *f, uint64_t a, uint64_t b, const spa_fmode *m,
                       spa_fcands *out);

/* ---- The interpreter's state (allowed_run.c, allowed_eval.c, allowed_fops.c) ---- */

#define SPA_MAXC 4   /* vector components */

typedef enum { V_UNSET, V_VALUE, V_POINTER } val_state;

typedef struct {
    uint8_t state, n;             /* val_state; components */
    /* Components whose value the rules leave undefined (an OpUndef, a shift
     * by the width or more, a division by zero): harmless until a store, a
     * branch or an address depends on one. */
    uint8_t undef;
    uint16_t nan[SPA_MAXC];           /* per component: NaN lane codes, 3 bits per 16-bit lane */
    /* Per component, the same lane codes for float fields left open (a
     * denormal's flush, a zero's sign: spa_fcand.open), and the instruction
     * that wrote them. */
    uint16_t open[SPA_MAXC];
    unsigned open_from[SPA_MAXC];
    uint64_t c[SPA_MAXC];
    unsigned ptr_var, ptr_n;      /* V_POINTER: the variable and the indices into it */
    uint64_t ptr_idx[2];
    bool has_prod[SPA_MAXC];          /* an OpFMul result: its exact product (for contraction) */
    fp_value prod[SPA_MAXC];
} spa_val;

typedef struct {
    const spa_module *m;
    const spa_rules *rules;
    spa_fmode mode[3];
    const uint32_t *spec, *in;
    unsigned n_spec, n_in, n_out, invocation;
    spa_val *vals;
    /* The oracle: choices made so far on this path, the first n_prefix given. */
    unsigned *choice, *n_opt, depth, n_prefix, cap;
    /* This path's liberties and outputs. */
    unsigned liberties, n_lib_choices, approximate;
    char where[96];
    unsigned word[SPA_MAX_OUT], n_words;
    uint32_t out[SPA_MAX_OUT];
    uint8_t lanes[SPA_MAX_OUT];
    /* Why the run stopped early (unsupported names it). */
    bool failed;
    char why[96];
    char undef_from[96];   /* the first undefined value of this path: where it came from */
    /* Per width with no rounding mode in force: the device's mode this path
     * chose (0: not yet, 1: to nearest even, 2: toward zero). */
    uint8_t round_chosen[3];
    unsigned cur_label, prev_label;
} spa_run;


static inline uint64_t spa_mask_of(unsigned width) { return width >= 64 ? ~0ull : (1ull << width) - 1; }

/* Stops the run: unsupported names in (with detail, if any).  Returns -1. */
int spa_fail_at(spa_run *r, const spa_inst *in, const char *detail);
int spa_fail_undef(spa_run *r, const spa_inst *in, const char *what);
void spa_note_undef(spa_run *r, const spa_inst *in, const char *why);
/* The oracle: which of n options this path takes; and the liberty taken. */
unsigned spa_choose(spa_run *r, unsigned n);
void spa_take(spa_run *r, const spa_inst *in, unsigned lib);
const spa_type *spa_type_of(const spa_run *r, unsigned id);
/* The scalar type of a scalar or vector type, and its component count. */
const spa_type *spa_scalar_of(const spa_run *r, unsigned type, unsigned *n);
/* An operand's value (NULL, the run failed, when it has none). */
const spa_val *spa_get(spa_run *r, const spa_inst *in, unsigned id);
spa_val *spa_result_slot(spa_run *r, unsigned id, unsigned n);
bool spa_tainted(const spa_val *v);
/* v with its open fields settled (one choice each, in tmp), for an
 * instruction that observes bits; v itself when none is open. */
const spa_val *spa_settle(spa_run *r, const spa_val *v, spa_val *tmp);
/* A fresh result of n components, those in the undef mask undefined. */
spa_val spa_value_of(unsigned n, uint8_t undef);
/* The type of an operand id. */
static inline unsigned spa_type_id_of(const spa_run *r, unsigned id) { return r->m->inst[r->m->def[id]].type; }

/* One instruction (op, with operands ops[0..nops)) whose result is rid (allowed_eval.c). */
int spa_eval(spa_run *r, const spa_inst *in, unsigned op, unsigned type, unsigned rid, const uint32_t *ops,
             unsigned nops);
int spa_composite_construct(spa_run *r, const spa_inst *in, unsigned type, unsigned rid, const uint32_t *ops,
                            unsigned nops);
/* A pointer into a variable (allowed_run.c, with the memory it models). */
int spa_access_chain(spa_run *r, const spa_inst *in, unsigned rid, const uint32_t *ops, unsigned nops);
/* The float instructions (allowed_fops.c). */
int spa_op_float_arith(spa_run *r, const spa_inst *in, spa_fop op, unsigned type, unsigned rid, const uint32_t *ops,
                       unsigned n_args);
int spa_op_float_convert(spa_run *r, const spa_inst *in, unsigned type, unsigned rid, const uint32_t *ops);
int spa_op_int_to_float(spa_run *r, const spa_inst *in, unsigned type, unsigned rid, const uint32_t *ops, bool sgn);
int spa_op_float_compare(spa_run *r, const spa_inst *in, unsigned rid, const uint32_t *ops, spa_cmp cmp, bool ord);
int spa_op_float_class(spa_run *r, const spa_inst *in, unsigned rid, const uint32_t *ops, bool nan);

/* ---- Set helpers (allowed_set.c) ---- */
bool spa_word_matches(uint32_t dev, uint32_t want, uint8_t lanes);

#endif
