/* engine/verdict: who is wrong when the device and the model disagree.
 *
 * The device's output is set against what the Vulkan rules allow for the
 * module that ran (spirv/allowed: every fused/unfused, flushed, signed-zero
 * and conversion-rounding path of the module's own instructions):
 *   translation  allowed: the module is at fault.  Either the device took a
 *                liberty Vulkan leaves it (named) and the module relied on it
 *                not being taken, or no liberty was taken and the module's own
 *                arithmetic differs from the instruction.
 *   model        allowed, no liberty taken, and the model under another value
 *                of one of its parameters (named) gives the device's result.
 *   device       outside the allowed set: the rule broken is the one whose
 *                relaxation lets the result in (named, with the spec section).
 *   unknown      the interpreter cannot say (an instruction it does not model,
 *                too many paths, no module).
 * A liberty taken wins over a parameter match: a device that fuses or flushes
 * where the module let it has explained the result already. */
#ifndef TIEFUZZ_ENGINE_VERDICT_H
#define TIEFUZZ_ENGINE_VERDICT_H

#include <stdbool.h>
#include <stdint.h>
#include "exec.h"
#include "io/finding.h"
#include "io/known.h"
#include "spirv/allowed.h"

typedef enum {
    VERDICT_NONE,          /* not judged (an old finding file, no device) */
    VERDICT_TRANSLATION,
    VERDICT_DEVICE,
    VERDICT_MODEL,
    VERDICT_UNKNOWN,
    VERDICT_COUNT
} eng_verdict_kind;

typedef struct {
    eng_verdict_kind kind;
    unsigned liberty;      /* translation: the SPA_* liberty the device took (0: none) */
    unsigned alternatives; /* every liberty that explains the result as well (liberty among them) */
    char rule[96];         /* device: the rule broken ("SignedZeroInfNanPreserve 32"); model: the parameter */
    char reason[480];      /* one or two sentences for the finding and the summary */
    /* device: the result the rules require, when they allow exactly one
     * (what a driver bug report expects); else has_required is false. */
    bool has_required;
    uint32_t required[ISA_MAX_OUT];
} eng_verdict;

const char *eng_verdict_name(eng_verdict_kind k);
/* "translation" -> VERDICT_TRANSLATION; -1 when unknown. */
int eng_verdict_parse(const char *name);
/* What a known-divergence rule's cause= names: the liberty of a translation
 * verdict ("fma-unfused"), the rule of a device verdict with '-' for spaces
 * ("SignedZeroInfNanPreserve-32"), the parameter of a model verdict; NULL
 * when the verdict has none. */
const char *eng_verdict_cause(const eng_verdict *v, char *buf, size_t n);
/* The short name of one SPA_* liberty ("fma-unfused"). */
const char *eng_liberty_id(unsigned flag);
/* The first rule of k matching q with the verdict v: its cause, then (for a
 * translation verdict) each other liberty explaining the result as well. */
const io_known_rule *eng_known_match_verdict(const io_known *k, io_known_query q, const eng_verdict *v);
/* Into a finding record (verdict, verdict-cause, verdict-reason). */
void eng_verdict_record(const eng_verdict *v, io_finding *rec);

/* The float-controls promises a device makes, as the interpreter takes them. */
void eng_verdict_rules(const vkd_info *dev, spa_rules *r);
/* Judge one disagreeing case (host: the model's outputs, device: the
 * device's) against the module the executor runs for in (x NULL: no
 * verdict, VERDICT_NONE). */
void eng_judge(eng_exec *x, const isa_instance *in, const uint32_t *words, const uint32_t *host,
               const uint32_t *device, bool strict_nan, eng_verdict *v);
/* The same with the module and device given (repro, tests, export). */
void eng_judge_module(const eng_module *m, const eng_dispatch_shape *shape, const vkd_info *dev,
                      const isa_instance *in, const uint32_t *words, const uint32_t *host, const uint32_t *device,
                      bool strict_nan, eng_verdict *v);

#endif
