/* isa: instruction descriptors.  Each instruction is one row of its family's
 * table; the family supplies the host evaluator, the SPIR-V lowerings and the
 * case constructors that the row's fields parameterize.  Nothing here knows
 * about Vulkan: a lowering writes SPIR-V through the builder only. */
#ifndef TIEFUZZ_ISA_H
#define TIEFUZZ_ISA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../fp/fp.h"
#include "../gen/gen.h"

struct spv_builder;
struct spv_tile_s;

typedef enum {
    WORD_F32,    /* one binary32 value */
    WORD_F16X2,  /* two binary16 values, bits 15:0 and 31:16 */
    WORD_B32,    /* a register read as f32 or as halves, per op_sel_hi */
    WORD_F64LO,  /* low / high word of a binary64 value */
    WORD_F64HI,
    WORD_FLAG,   /* bit 0 is a condition (VCC) */
    WORD_U32,    /* a 32-bit integer register */
    WORD_CC      /* condition codes: bit 0 ZF, 1 SF, 2 CF, 3 OF */
} isa_word_format;

typedef struct {
    const char *name;
    isa_word_format format;
} isa_word;

/* Static controls: fixed in the instruction encoding, hence compile-time
 * constants of the translated shader.  Declared once here; each op says
 * which it takes and how wide. */
typedef enum {
    /* RDNA 2 */
    CTRL_ABS, CTRL_NEG, CTRL_CLAMP, CTRL_OMOD, CTRL_OP_SEL, CTRL_OP_SEL_HI,
    CTRL_NEG_LO, CTRL_NEG_HI, CTRL_K,
    /* Maxwell integer */
    CTRL_SASIGN, CTRL_SBSIGN, CTRL_PSL, CTRL_COP, CTRL_MRG, CTRL_X, CTRL_CC, CTRL_A_H1, CTRL_B_H1,
    CTRL_SB_KIND, CTRL_SC_KIND, CTRL_IMM, CTRL_SHIFT, CTRL_NEGA, CTRL_NEGB, CTRL_NEGC,
    CTRL_A_PART, CTRL_B_PART, CTRL_C_PART,
    CTRL_COUNT
} isa_control_id;

typedef struct {
    const char *name;
    const char *meaning;
    bool value;   /* a number of the encoding (a literal, an immediate), not a flag or a choice: shown in hex */
} isa_control_desc;

extern const isa_control_desc isa_controls[CTRL_COUNT];

/* Model parameters: the points no public source settles.  Value 0 is the
 * default. */
typedef enum {
    PARAM_MIX_ROUNDING, PARAM_DIV_FMAS_SCALE, PARAM_DIV_FMAS_ORDER, PARAM_OMOD, PARAM_CSFU, PARAM_XMAD_CC,
    /* tensor-core MMA (T-FDPA) */
    PARAM_F, PARAM_E_ZERO_F16, PARAM_E_ZERO_F32, PARAM_E_ZERO_KEY, PARAM_L_MAX, PARAM_RHO,
    PARAM_COUNT
} isa_param_id;

/* A parameter is an enumeration (values[], count; value = index) or, with
 * integer set, a whole number in [lo, hi]. */
typedef struct {
    const char *name;
    const char *values[4];
    unsigned count;
    const char *meaning;
    bool integer;
    int lo, hi;
} isa_param_desc;

extern const isa_param_desc isa_params[PARAM_COUNT];

typedef enum { LOWERING_DIRECT, LOWERING_EXACT, LOWERING_COUNT } isa_lowering;
const char *isa_lowering_name(isa_lowering l);
int isa_lowering_parse(const char *s); /* -1 when unknown */

typedef struct isa_op isa_op;

/* A literal of the encoding (RDNA 2's K): a control the translated shader
 * reads as a specialization constant, so that one module serves every
 * value.  Campaigns draw it and the minimizer simplifies it as a value of
 * its format. */
typedef struct {
    isa_control_id ctrl;
    const fp_format *format;
} isa_literal;

/* One op instance: the op plus everything that is fixed in its encoding. */
typedef struct {
    const isa_op *op;
    uint32_t ctrl[CTRL_COUNT];
    int32_t param[PARAM_COUNT];
} isa_instance;

/* Explanations: every rounding a model makes, and the exact operands of
 * each multiply-add lane (what the class verifier reads). */
typedef struct {
    const char *label;
    const fp_format *format;
    fp_rounding mode;
    fp_value exact;
    fp_round_info info;
    uint64_t result;
    bool final;          /* rounds to the destination format */
    bool intermediate;   /* a final rounding whose result a later step rounds again (an
                          * unfused form's product): it does not write the result */
} isa_step;

typedef struct {
    bool used;
    const fp_format *dest;
    fp_value src[3];       /* after modifiers, widened exactly */
    bool src_subnormal[3]; /* in its source format */
    fp_value product;      /* exact a*b as the model uses it */
    fp_value addend;
    fp_value exact;        /* the exact value of the final rounding's input (fused) */
    bool unfused;          /* product rounded first */
} isa_lane;

#define ISA_MAX_STEPS 12
typedef struct {
    unsigned n_steps;
    isa_step step[ISA_MAX_STEPS];
    isa_lane lane[2];
    const char *note;      /* e.g. the scaling a div_fmas applied */
    char note_text[256];   /* a note made for this case (note may point here) */
} isa_trace;

void isa_trace_step(isa_trace *t, const char *label, const fp_format *f, fp_rounding mode,
                    fp_value exact, const fp_round_info *info, uint64_t result, bool final);

/* What a campaign needs of one case beyond its outputs: the classes it
 * verifiably belongs to (the double-round bit only when asked for, as
 * isa_trace_classes), the rounding cells its final roundings reach, and the
 * unit exponent of its first tie.  The exact path reduces a trace to it
 * (isa_verdict_of_trace); a family's fast path computes it directly from
 * hardware arithmetic, and the two must agree bit for bit. */
#define ISA_CELL_WORDS 3
typedef struct {
    uint32_t classes;
    /* The classes the roundings that write the result reach (each lane's
     * last: an unfused form's sum, not its product; not a flushed source):
     * tie, near-tie, subnormal and overflow from those roundings and the
     * values they round; cancel, special, double-round and random as in
     * classes. */
    uint32_t at_result;
    int32_t tie_exp;                  /* ISA_NO_EXPONENT when no final rounding is a tie */
    uint64_t cells[ISA_CELL_WORDS];   /* bit per rounding cell (isa_trace_cells) */
} isa_verdict;

/* Tiles of matrix ops are tuples of hundreds of words. */
#define ISA_MAX_IN 384
#define ISA_MAX_OUT 128

/* The family's implementation, shared by all of its rows. */
typedef struct {
    /* NULL when the instance is legal, else the rule it breaks. */
    const char *(*check)(const isa_instance *in);
    void (*eval)(const isa_instance *in, const uint32_t *words, uint32_t *out, isa_trace *trace);
    /* Writes the op body; reads input word ids, returns output word ids.
     * Returns NULL on success, or why the lowering cannot be built. */
    const char *(*lower)(const isa_instance *in, isa_lowering l, struct spv_builder *b,
                         const unsigned *in_ids, unsigned *out_ids);
    /* Fill words with one case aimed at class c.  Returns false when this
     * instance cannot reach the class at all (the case is then of another
     * class, and drawing again would not help). */
    bool (*construct)(const isa_instance *in, gen_class c, gen_rng *rng, uint32_t *words);
    /* The same for n cases of one instance (case i: class c[i], stream
     * rng[i], words at i * n_in, the answer in reachable[i]), the same
     * cases as n calls of construct; what a family sets up per instance it
     * sets up once (NULL: construct, case by case). */
    void (*construct_many)(const isa_instance *in, const gen_class *c, gen_rng *rng, size_t n, uint32_t *words,
                           bool *reachable);
    /* Which classes the case verifiably belongs to (NULL: the
     * floating-point classifier, from the trace). */
    uint32_t (*classify)(const isa_instance *in, const uint32_t *words, const isa_trace *t, uint32_t want);
    /* Tile ops (NULL otherwise): one invocation per output word, reading
     * input words at computed indices through the tile. */
    const char *(*lower_tile)(const isa_instance *in, isa_lowering l, struct spv_builder *b, const struct spv_tile_s *t,
                              unsigned *out_word);
    /* After the controls were fuzzed: adjust them, sometimes, so that a class
     * among `wanted` (a mask of the run's classes) that needs particular
     * controls can be reached (NULL: every class is reachable under any
     * controls).  The caller undoes an adjustment that breaks a legality rule. */
    void (*controls_for)(isa_instance *in, uint32_t wanted, gen_rng *rng);
    /* The fast twin of eval: the same output words from hardware arithmetic
     * and, when v is not NULL, the verdict the exact path gives for `want`
     * (NULL: the family has none and the exact model is used).  Campaigns
     * call it in the hot loop and audit it against eval (isa_fast_audit). */
    void (*fast)(const isa_instance *in, const uint32_t *words, uint32_t *out, isa_verdict *v, uint32_t want);
    /* Outputs only, for n tuples in a row (NULL: fast, else eval, a tuple at
     * a time): the host model at full speed, for eval --batch, replay and the
     * benchmarks.  Audited like fast. */
    void (*fast_batch)(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out);
    /* fast with verdicts, for n tuples in a row, tuple i wanting want[i]
     * (NULL: fast a tuple at a time): where the family computes common
     * lanes several at a time.  Campaigns and selftest call it.  The
     * verdicts are whole: a family that classifies (classify) gives
     * at_result = classes itself, as isa_eval_fast does for its fast. */
    void (*fast_verdicts)(const isa_instance *in, const uint32_t *words, size_t n, uint32_t *out, isa_verdict *v,
                          const uint32_t *want);
    /* The controls shape: the controls that change the operands' formats, as a
     * number, part of a disagreement's signature (NULL: no control does). */
    uint32_t (*shape)(const isa_instance *in);
    /* After isa_random_controls drew every control: clear those the drawn
     * encoding does not have, so that fewer draws break a legality rule
     * (NULL: nothing to clear). */
    void (*controls_drawn)(isa_instance *in);
    /* Directed probe tiles for `tiefuzz fit`: writes up to max tuples and
     * returns how many (NULL: the family's ops have no parameters to fit). */
    unsigned (*probes)(const isa_op *op, uint32_t (*tiles)[ISA_MAX_IN], unsigned max);
} isa_family_impl;

struct isa_op {
    const char *name;
    const char *family;
    const char *scope;      /* where the opcode exists */
    const char *summary;
    bool translated;
    uint16_t n_in, n_out;   /* at most ISA_MAX_IN, ISA_MAX_OUT */
    const isa_word *in;
    const isa_word *out;
    uint32_t ctrl_limit[CTRL_COUNT];    /* 0: not taken; else the legal bits */
    uint32_t ctrl_default[CTRL_COUNT];  /* the plain encoding's controls (within the limits) */
    const isa_literal *literal;         /* NULL: none */
    uint32_t params;                    /* bit per isa_param_id */
    const isa_family_impl *impl;
    int form;                         /* family-specific row fields */
    int src[3];
    int flags;
    uint32_t classes;                 /* generator classes that apply (0: the floating-point ones) */
    const int32_t *param_defaults;    /* per-op defaults (NULL: 0, the first value, for each) */
};

/* Registry over all families. */
unsigned isa_op_count(void);
const isa_op *isa_op_at(unsigned i);
const isa_op *isa_op_find(const char *name);  /* full name, or unique suffix after the family */
bool isa_glob_match(const char *pattern, const char *name);

/* Instances. */
void isa_instance_default(isa_instance *in, const isa_op *op);
/* A parameter's value as text ("record", "-19"), into buf. */
const char *isa_param_value_text(isa_param_id p, int32_t v, char *buf, unsigned n);
/* Parse "name=value,..." into ctrl or param; returns NULL or an error message (static buffer). */
const char *isa_parse_controls(isa_instance *in, const char *text);
const char *isa_parse_params(isa_instance *in, const char *text);
/* op's default instance with controls and parameters from text (NULL or
 * "none": the defaults), as --ctrl / --param and the corpus files give them.  0, or -1 with "NAME: what is wrong" in err, NAME being
 * names[0] for the controls and names[1] for the parameters ("--ctrl", say). */
int isa_instance_from_text(const isa_op *op, const char *ctrl, const char *param, const char *const names[2],
                           isa_instance *out, char *err, size_t errn);
const char *isa_instance_check(const isa_instance *in);
/* "abs=1,clamp=1,k=0x3f800000"; "none" when all zero. */
char *isa_controls_text(const isa_instance *in, char *buf, unsigned n);
char *isa_params_text(const isa_instance *in, char *buf, unsigned n);
/* A random legal control setting; the literal is left as it is. */
void isa_random_controls(isa_instance *in, gen_rng *rng);

/* The literal's value (0 for an op without one), and setting it. */
uint32_t isa_literal_value(const isa_instance *in);
void isa_literal_set(isa_instance *in, uint32_t v);
/* Whether a "name=value,..." controls text (NULL: none) sets op's literal. */
bool isa_literal_named(const isa_op *op, const char *controls_text);
/* A literal for a case block aimed at class c: an ordinary normal value for
 * the tie-aimed classes, a special, subnormal or huge one for those. */
uint32_t isa_literal_draw(const isa_op *op, gen_class c, gen_rng *r);

const char *isa_word_format_name(isa_word_format f);

#endif
