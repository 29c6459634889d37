/* spirv/allowed: the results the Vulkan rules allow a device to return for
 * one tuple of a tiefuzz compute module, computed exactly on the host.
 *
 * A small interpreter over the module's own instructions (read with
 * SPIRV-Tools' binary parser), run for the invocations of one tuple.  Where
 * the rules leave the device a liberty (an Fma fused or not, an OpFMul
 * contracted into the OpFAdd it feeds, a denormal input or result flushed to
 * a zero of either sign, a signed zero / inf / NaN mishandled, an OpFConvert
 * rounded either way), the interpreter forks: every combination of choices
 * is one path, and the allowed set is the union of the paths' outputs.  Which
 * liberties exist depends on the module's decorations and execution modes and
 * on what the device promises (spa_rules): a mode the device does not
 * advertise is not in force.
 *
 * It knows SPIR-V and the fp kit, not instructions: it serves the built-in
 * lowerings and user modules alike.  An instruction it does not model makes
 * the answer SPA_UNSUPPORTED, naming the instruction.  doc/allowed-sets.md
 * says what is modelled, the approximations and the rules relied on; in
 * short:
 *  - the strict path rounds to nearest even (toward zero where RoundingModeRTZ
 *    is in force), keeps denormals (flushes them where DenormFlushToZero is in
 *    force, keeping the sign), keeps zero signs and fuses every Fma;
 *  - where no rounding mode is in force for a width, the device may round
 *    all its additions and multiplications toward zero instead (one choice
 *    per path and width, SPA_ROUNDING_MODE); a
 *    conversion's rounding is either neighbour unless an FPRoundingMode
 *    decoration or the destination width's mode fixes it;
 *  - a flushed denormal becomes a zero of its own sign, or of either sign
 *    where SignedZeroInfNanPreserve is not in force;
 *  - a NaN result's bits are never promised (any NaN of its width matches);
 *    where SignedZeroInfNanPreserve is not in force, the rules let a device
 *    do anything with infinities and NaNs: the set holds the IEEE result and
 *    the group says so (spa_group.approximate);
 *  - a value the rules leave undefined (OpUndef, a shift by the width or
 *    more, a division by zero) is fine until a store, a branch or an address
 *    depends on it, which makes the answer SPA_UNSUPPORTED. */
#ifndef TIEFUZZ_SPV_ALLOWED_H
#define TIEFUZZ_SPV_ALLOWED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Width index: 0 = 16 bits, 1 = 32, 2 = 64. */
typedef struct {
    /* The execution mode, where the module declares it, is in force only
     * where the device advertises the matching float-controls property. */
    bool denorm_preserve[3], denorm_flush[3], signed_zero_inf_nan[3], rte[3], rtz[3];
    bool shader_fma;    /* VK_KHR_shader_fma: OpFmaKHR correctly rounded (OpFmaKHR is not modelled yet) */
} spa_rules;

/* The liberties a path may take (bit flags). */
enum {
    SPA_FMA_UNFUSED = 1u << 0,      /* GLSL.std.450 Fma as a rounded multiply, then an add */
    SPA_CONTRACTED = 1u << 1,       /* an OpFMul fused into the OpFAdd/OpFSub it feeds */
    SPA_FLUSH_INPUT = 1u << 2,      /* a denormal operand read as a zero */
    SPA_FLUSH_RESULT = 1u << 3,     /* a denormal result written as a zero */
    SPA_SIGNED_ZERO = 1u << 4,      /* a zero's sign not kept (no SignedZeroInfNanPreserve in force) */
    SPA_INF_NAN = 1u << 5,          /* inf / NaN not kept (no SignedZeroInfNanPreserve in force) */
    SPA_CONVERT_ROUNDING = 1u << 6, /* OpFConvert narrowing rounded other than to nearest even */
    SPA_ROUNDING_MODE = 1u << 7,    /* a width's arithmetic rounded toward zero where no rounding mode is in force */
    /* Not a liberty a path takes but an approximation a group reports (see
     * spa_group.approximate): a NaN whose bits the rules leave open reached
     * an integer instruction, which the interpreter fed the default NaN. */
    SPA_NAN_PAYLOAD = 1u << 8,
};
#define SPA_N_LIBERTIES 9
/* "GLSL.std.450 Fma computed unfused", ... (static text). */
const char *spa_liberty_name(unsigned flag);
/* Where several lists of liberties reach one value, which to name: the rank
 * of the best liberty in lib, lower first (an operation's own liberty, an
 * unfused Fma, before a denormal or special-value one it can look like). */
unsigned spa_liberty_rank(unsigned lib);

#define SPA_MAX_OUT 8        /* output words one invocation writes */
#define SPA_MAX_RESULTS 64   /* distinct results kept per invocation */

/* NaN fields of an output word whose bits the rules leave open, as a code
 * per 16-bit half (bits 0-2: bits 0..15 of the word, bits 3-5: bits 16..31):
 * SPA_LANE_F16 an f16 NaN; F32_LO + F32_HI one f32 NaN; F64_P0..P3 the
 * quarters of an f64 NaN (P0 lowest), which spans two words. */
enum { SPA_LANE_NONE, SPA_LANE_F16, SPA_LANE_F32_LO, SPA_LANE_F32_HI, SPA_LANE_F64_P0, SPA_LANE_F64_P1,
       SPA_LANE_F64_P2, SPA_LANE_F64_P3 };

typedef struct {
    uint32_t out[SPA_MAX_OUT];
    uint8_t nan_lanes[SPA_MAX_OUT]; /* per word: which halves hold an unspecified NaN (codes above) */
    unsigned liberties;      /* the fewest-liberty path reaching it */
    unsigned n_choices;      /* how many liberties that path took */
    /* The liberties of every path with that few choices reaching the same
     * output (an underflow to zero is an unfused Fma's as much as a flush's):
     * a known-divergence rule may name any of them. */
    unsigned alternatives;
    /* Its first liberty: "%157 OpFAdd: denormal result flushed", ...  Ids are
     * the binary's, as spv_disassemble prints them (assembling renumbers
     * the ids of a text). */
    char where[96];
} spa_result;

/* One invocation's outputs.  Invocations choose independently, so a tile's
 * allowed set is the product of its invocations' sets; one invocation's
 * words are chosen together (one path gives all of them). */
typedef struct {
    unsigned word[SPA_MAX_OUT];   /* which output words of the tuple it writes, in store order */
    unsigned n_words;
    spa_result strict;            /* the path that takes no liberty */
    spa_result results[SPA_MAX_RESULTS];
    unsigned n_results;           /* distinct outputs, strict first */
    bool any_nan[SPA_MAX_OUT];    /* a path stores a NaN there: any NaN of its width is allowed */
    unsigned nan_width[SPA_MAX_OUT]; /* that NaN's float width (16, 32, 64 low word) */
    /* Liberties the rules give that were reached but are not enumerated:
     * SPA_INF_NAN (an inf or NaN met where SignedZeroInfNanPreserve is not
     * in force: the rules allow any result there, the set holds the IEEE
     * one) and SPA_NAN_PAYLOAD.  0: the set is exact. */
    unsigned approximate;
    unsigned n_paths;             /* paths enumerated */
} spa_group;

typedef enum {
    SPA_OK = 0,
    SPA_UNSUPPORTED,   /* an instruction outside the interpreter: unsupported names it */
    SPA_TOO_MANY,      /* more paths than the bound: the set is incomplete */
} spa_status;

typedef struct {
    spa_status status;
    char unsupported[96];    /* "OpFDiv (%57)", "GLSL.std.450 Sin (%80)" (binary ids), with why if not plain */
    spa_group *groups;       /* one per invocation of the tuple (malloc'd) */
    unsigned n_groups;
} spa_set;

/* The module's interface is tiefuzz's (spirv/kernel.h): binding 0 the input
 * words, binding 1 the output words, a push constant the tuple count, one
 * GlobalInvocationId.x per tuple, or per_tuple invocations for a tile (each
 * writes one output word).  The tuple is run as tuple 0 of a dispatch of
 * one: in[0..n_in) at input index 0, a tuple count of 1, invocations 0 to
 * per_tuple - 1 (one when per_tuple <= 1), each one group.  spec[i] is the
 * value of SpecId i (i < n_spec; a 64-bit constant takes it zero-extended);
 * other SpecIds keep their defaults.  Bounded: at most 4096 paths an
 * invocation (beyond: SPA_TOO_MANY, with the results found so far).
 * Returns 0 with *out filled (status says whether it is complete), or -1
 * with err when the module cannot be read at all. */
int spa_allowed(const uint32_t *words, size_t n_words, const spa_rules *rules, const uint32_t *spec,
                unsigned n_spec, const uint32_t *in, unsigned n_in, unsigned n_out, unsigned per_tuple,
                spa_set *out, char *err, size_t errn);
void spa_set_free(spa_set *s);
/* Whether device output words dev[0..n_out) are in the set: every group's
 * words equal one of its results (a NaN matching any NaN where the result
 * has a NaN lane there).  False when the status is SPA_UNSUPPORTED; with
 * SPA_TOO_MANY it answers for the results found. */
bool spa_contains(const spa_set *s, const uint32_t *dev, unsigned n_out);
/* The result of the group holding output word w that dev (all the tuple's
 * output words) matches, or NULL. */
const spa_result *spa_match(const spa_set *s, const uint32_t *dev, unsigned w);

#endif
