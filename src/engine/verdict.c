/* Verdicts: the device's output against the module's allowed set. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "compare.h"
#include "verdict.h"

static const char *const verdict_names[VERDICT_COUNT] = {"none", "translation", "device", "model", "unknown"};

const char *eng_verdict_name(eng_verdict_kind k) { return k < VERDICT_COUNT ? verdict_names[k] : "none"; }

int eng_verdict_parse(const char *name)
{
    for (int k = 0; k < VERDICT_COUNT; k++)
        if (!strcmp(name, verdict_names[k]))
            return k;
    return -1;
}

static const char *const liberty_ids[SPA_N_LIBERTIES] = {
    "fma-unfused", "contracted", "flush-input", "flush-result", "signed-zero", "inf-nan", "convert-rounding",
    "rounding-mode", "nan-payload"};

/* What takes each liberty away, for the reason a translation verdict gives. */
static const char *const liberty_fixes[SPA_N_LIBERTIES] = {
    "OpFmaKHR where the device offers VK_KHR_shader_fma, or an exact emulation (the exact lowering)",
    "NoContraction on the OpFMul or the OpFAdd",
    "DenormPreserve for the width where the device advertises it, or denormals handled with integer operations",
    "DenormPreserve for the width where the device advertises it, or denormals handled with integer operations",
    "SignedZeroInfNanPreserve for the width where the device advertises it, or the sign handled on bits",
    "SignedZeroInfNanPreserve for the width where the device advertises it, or inf and NaN handled on bits",
    "an FPRoundingMode decoration on the OpFConvert",
    "a RoundingModeRTE execution mode",
    "NaN payloads handled on bits"};

const char *eng_liberty_id(unsigned flag)
{
    for (unsigned i = 0; i < SPA_N_LIBERTIES; i++)
        if (flag == 1u << i)
            return liberty_ids[i];
    return "none";
}

const char *eng_verdict_cause(const eng_verdict *v, char *buf, size_t n)
{
    if (v->kind == VERDICT_TRANSLATION && v->liberty)
        snprintf(buf, n, "%s", eng_liberty_id(v->liberty));
    else if ((v->kind == VERDICT_DEVICE || v->kind == VERDICT_MODEL) && v->rule[0])
        snprintf(buf, n, "%s", v->rule);
    else
        return NULL;
    for (char *p = buf; *p; p++)
        if (*p == ' ')
            *p = '-';
    return buf;
}

const io_known_rule *eng_known_match_verdict(const io_known *k, io_known_query q, const eng_verdict *v)
{
    char cause[64];
    q.verdict = v->kind == VERDICT_NONE ? NULL : eng_verdict_name(v->kind);
    q.cause = eng_verdict_cause(v, cause, sizeof cause);
    const io_known_rule *r = io_known_match(k, &q);
    for (unsigned i = 0; !r && v->kind == VERDICT_TRANSLATION && i < SPA_N_LIBERTIES; i++)
        if ((v->alternatives & (1u << i)) && (1u << i) != v->liberty) {
            q.cause = liberty_ids[i];
            r = io_known_match(k, &q);
        }
    return r;
}

void eng_verdict_record(const eng_verdict *v, io_finding *rec)
{
    rec->verdict[0] = rec->verdict_cause[0] = rec->verdict_reason[0] = 0;
    if (v->kind == VERDICT_NONE)
        return;
    snprintf(rec->verdict, sizeof rec->verdict, "%s", eng_verdict_name(v->kind));
    eng_verdict_cause(v, rec->verdict_cause, sizeof rec->verdict_cause);
    snprintf(rec->verdict_reason, sizeof rec->verdict_reason, "%s", v->reason);
}

void eng_verdict_rules(const vkd_info *dev, spa_rules *r)
{
    memset(r, 0, sizeof *r);
    for (int w = 0; w < 3; w++) {
        r->denorm_preserve[w] = dev->denorm_preserve[w];
        r->denorm_flush[w] = dev->denorm_flush[w];
        r->signed_zero_inf_nan[w] = dev->caps.signed_zero_inf_nan[w];
        r->rte[w] = dev->caps.rte[w];
        r->rtz[w] = dev->rtz[w];
    }
    r->shader_fma = dev->khr_shader_fma;
}

static void say(eng_verdict *v, eng_verdict_kind k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(eng_verdict *v, eng_verdict_kind k, const char *fmt, ...)
{
    v->kind = k;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->reason, sizeof v->reason, fmt, ap);
    va_end(ap);
}

/* The first output word the two sides differ in (0 when none does). */
static unsigned first_difference(const isa_op *op, const uint32_t *host, const uint32_t *device)
{
    for (unsigned w = 0; w < op->n_out; w++)
        if (host[w] != device[w])
            return w;
    return 0;
}

/* Another value of one of the op's parameters under which the model gives
 * the device's result: "NAME=VALUE" into name, or false. */
static bool other_parameter(const isa_instance *in, const uint32_t *words, const uint32_t *device, bool strict_nan,
                            char *name, size_t n)
{
    for (int p = 0; p < PARAM_COUNT; p++) {
        if (!(in->op->params & (1u << p)))
            continue;
        const isa_param_desc *d = &isa_params[p];
        int lo = d->integer ? d->lo : 0, hi = d->integer ? d->hi : (int)d->count - 1;
        if (hi - lo > 255)
            continue;   /* a wide range is fit's job, not a verdict's */
        for (int value = lo; value <= hi; value++) {
            isa_instance alt = *in;
            alt.param[p] = value;
            if (value == in->param[p] || (in->op->impl->check && in->op->impl->check(&alt)))
                continue;
            uint32_t out[ISA_MAX_OUT];
            in->op->impl->eval(&alt, words, out, NULL);
            if (eng_outputs_agree(in->op, out, device, strict_nan)) {
                char text[32];
                snprintf(name, n, "%s=%s", d->name, isa_param_value_text((isa_param_id)p, value, text, sizeof text));
                return true;
            }
        }
    }
    return false;
}

/* The result of group gr the device's words match, or NULL: bit for bit
 * (spa_match), else NaN for NaN as a run compares them (NaN payloads are
 * never promised, and the interpreter feeds integer instructions the
 * default NaN).  The fewest-choice match wins. */
static const spa_result *group_match(const spa_set *set, const spa_group *gr, const isa_op *op,
                                     const uint32_t *device)
{
    if (!gr->n_words || gr->word[0] >= op->n_out)
        return NULL;
    const spa_result *r = spa_match(set, device, gr->word[0]);
    if (r)
        return r;
    for (unsigned i = 0; i < gr->n_results; i++) {
        uint32_t candidate[ISA_MAX_OUT];
        memcpy(candidate, device, op->n_out * 4);
        for (unsigned k = 0; k < gr->n_words; k++)
            if (gr->word[k] < op->n_out)
                candidate[gr->word[k]] = gr->results[i].out[k];
        if (eng_outputs_agree(op, candidate, device, false) && (!r || gr->results[i].n_choices < r->n_choices))
            r = &gr->results[i];
    }
    return r;
}

/* Whether the device's words are allowed.  A group whose interpretation met
 * an inf or NaN where SignedZeroInfNanPreserve is not in force allows any
 * result (the set holds only the IEEE one): *open names the first such
 * group's word when it let a result in that its set does not hold. */
static bool allowed_result(const spa_set *set, const isa_op *op, const uint32_t *device, int *open)
{
    *open = -1;
    for (unsigned g = 0; g < set->n_groups; g++) {
        const spa_group *gr = &set->groups[g];
        if (!gr->n_words || gr->word[0] >= op->n_out || group_match(set, gr, op, device))
            continue;
        if (!(gr->approximate & SPA_INF_NAN))
            return false;
        if (*open < 0)
            *open = (int)gr->word[0];
    }
    return true;
}

/* The group that writes output word w. */
static const spa_group *group_of(const spa_set *set, unsigned w)
{
    for (unsigned g = 0; g < set->n_groups; g++)
        for (unsigned k = 0; k < set->groups[g].n_words; k++)
            if (set->groups[g].word[k] == w)
                return &set->groups[g];
    return NULL;
}

/* Of the liberties that explain a result equally well, the one the
 * interpreter ranks first (an unfused Fma underflowing to zero is also a
 * flush, and is named an unfused Fma). */
static unsigned primary_liberty(unsigned alternatives)
{
    unsigned best = 0;
    for (unsigned i = 0; i < SPA_N_LIBERTIES; i++) {
        unsigned flag = 1u << i;
        if ((alternatives & flag) && (!best || spa_liberty_rank(flag) < spa_liberty_rank(best)))
            best = flag;
    }
    return best;
}

static void judge_allowed(const spa_set *set, const isa_instance *in, const uint32_t *words, const uint32_t *host,
                          const uint32_t *device, bool strict_nan, int open, eng_verdict *v)
{
    if (open >= 0) {
        v->liberty = v->alternatives = SPA_INF_NAN;
        say(v, VERDICT_TRANSLATION,
            "the device's result is allowed for this module: an inf or NaN met where SignedZeroInfNanPreserve is "
            "not in force (output word %d), where the rules allow any result; the translation relies on IEEE "
            "behaviour there; what takes the liberty away: %s",
            open, liberty_fixes[__builtin_ctz(SPA_INF_NAN)]);
        return;
    }
    const spa_group *gr = group_of(set, first_difference(in->op, host, device));
    const spa_result *r = gr ? group_match(set, gr, in->op, device) : NULL;
    if (r && r->liberties) {
        v->alternatives = r->alternatives | r->liberties;
        v->liberty = primary_liberty(v->alternatives);
        say(v, VERDICT_TRANSLATION,
            "the device's result is allowed for this module: it took a liberty Vulkan leaves it (%s) that the "
            "translation relies on it not taking; what takes the liberty away: %s",
            r->liberties == v->liberty ? r->where : spa_liberty_name(v->liberty),
            liberty_fixes[__builtin_ctz(v->liberty)]);
        return;
    }
    if (other_parameter(in, words, device, strict_nan, v->rule, sizeof v->rule)) {
        say(v, VERDICT_MODEL,
            "the device computes what the module says without taking a liberty, and that equals the model with "
            "%s: look at the model's parameter",
            v->rule);
        return;
    }
    say(v, VERDICT_TRANSLATION,
        "the device computes what the module says without taking any liberty: the module's own arithmetic "
        "differs from the instruction");
}

/* One promise the device makes, to take back when looking for the one it broke. */
typedef struct {
    const char *name;       /* "SignedZeroInfNanPreserve" */
    const char *section;
    size_t offset;          /* of the bool[3] (or bool) in spa_rules */
    bool per_width;
} promise;

static const promise promises[] = {
    {"SignedZeroInfNanPreserve", "SPV_KHR_float_controls execution modes; Vulkan Environment for SPIR-V, "
     "Precision and Operation of SPIR-V Instructions", offsetof(spa_rules, signed_zero_inf_nan), true},
    {"DenormPreserve", "SPV_KHR_float_controls execution modes; Vulkan Environment for SPIR-V, Precision and "
     "Operation of SPIR-V Instructions (denormals)", offsetof(spa_rules, denorm_preserve), true},
    {"DenormFlushToZero", "SPV_KHR_float_controls execution modes; Vulkan Environment for SPIR-V, Precision and "
     "Operation of SPIR-V Instructions (denormals)", offsetof(spa_rules, denorm_flush), true},
    {"RoundingModeRTE", "SPV_KHR_float_controls execution modes", offsetof(spa_rules, rte), true},
    {"RoundingModeRTZ", "SPV_KHR_float_controls execution modes", offsetof(spa_rules, rtz), true},
    {"OpFmaKHR correctly rounded", "VK_KHR_shader_fma", offsetof(spa_rules, shader_fma), false},
};

typedef struct {
    const eng_module *m;
    const eng_dispatch_shape *shape;
    const isa_op *op;
    const uint32_t *words;
} module_run;

/* The allowed set under rules; false when the interpreter gave no complete set. */
static bool allowed(const module_run *mr, const spa_rules *rules, spa_set *set, char *err, size_t errn)
{
    if (spa_allowed(mr->m->spv.words, mr->m->spv.count, rules, mr->shape->spec, mr->shape->n_spec, mr->words,
                    mr->op->n_in, mr->op->n_out, mr->shape->per_tuple, set, err, errn))
        return false;
    return true;
}

static bool admitted_without(const module_run *mr, const spa_rules *rules, const promise *p, int w,
                             const uint32_t *device)
{
    spa_rules relaxed = *rules;
    bool *flag = (bool *)((char *)&relaxed + p->offset) + (p->per_width ? w : 0);
    if (!*flag)
        return false;   /* not promised: nothing to take back */
    *flag = false;
    spa_set set;
    char err[200];
    if (!allowed(mr, &relaxed, &set, err, sizeof err))
        return false;
    int open;
    bool in = set.status == SPA_OK && allowed_result(&set, mr->op, device, &open);
    spa_set_free(&set);
    return in;
}

static void required_result(const spa_set *set, const isa_op *op, const uint32_t *device, eng_verdict *v)
{
    memcpy(v->required, device, op->n_out * 4);
    for (unsigned g = 0; g < set->n_groups; g++) {
        const spa_group *gr = &set->groups[g];
        if (gr->n_results != 1)
            return;
        for (unsigned i = 0; i < gr->n_words; i++)
            if (gr->word[i] < op->n_out)
                v->required[gr->word[i]] = gr->results[0].out[i];
    }
    v->has_required = true;
}

static void judge_outside(const module_run *mr, const spa_rules *rules, const spa_set *set, const uint32_t *device,
                          eng_verdict *v)
{
    static const unsigned widths[3] = {16, 32, 64};
    required_result(set, mr->op, device, v);
    const char *folded = mr->shape->n_spec ? " (a specialization constant feeds it: the float controls bind its "
                                             "folding too)" : "";
    for (size_t i = 0; i < sizeof promises / sizeof *promises; i++)
        for (int w = 0; w < (promises[i].per_width ? 3 : 1); w++) {
            if (!admitted_without(mr, rules, &promises[i], w, device))
                continue;
            if (promises[i].per_width)
                snprintf(v->rule, sizeof v->rule, "%s %u", promises[i].name, widths[w]);
            else
                snprintf(v->rule, sizeof v->rule, "%s", promises[i].name);
            v->kind = VERDICT_DEVICE;
            snprintf(v->reason, sizeof v->reason,
                     "no path Vulkan allows for this module gives the device's result: the device broke %s, which "
                     "the module declares and the device advertises (%s)%s",
                     v->rule, promises[i].section, folded);
            return;
        }
    snprintf(v->rule, sizeof v->rule, "correct rounding");
    v->kind = VERDICT_DEVICE;
    snprintf(v->reason, sizeof v->reason,
             "no path Vulkan allows for this module gives the device's result: OpFAdd, OpFSub and OpFMul are "
             "correctly rounded and integer operations exact (Vulkan Environment for SPIR-V, Precision and "
             "Operation of SPIR-V Instructions)%s",
             folded);
}

void eng_judge_module(const eng_module *m, const eng_dispatch_shape *shape, const vkd_info *dev,
                      const isa_instance *in, const uint32_t *words, const uint32_t *host, const uint32_t *device,
                      bool strict_nan, eng_verdict *v)
{
    memset(v, 0, sizeof *v);
    module_run mr = {m, shape, in->op, words};
    spa_rules rules;
    eng_verdict_rules(dev, &rules);
    spa_set set;
    char err[300];
    int open;
    if (!allowed(&mr, &rules, &set, err, sizeof err)) {
        say(v, VERDICT_UNKNOWN, "the module could not be read for its allowed set: %s", err);
        return;
    }
    if (set.status == SPA_UNSUPPORTED)
        say(v, VERDICT_UNKNOWN, "the allowed-set interpreter does not model %s", set.unsupported);
    else if (set.status == SPA_TOO_MANY)
        say(v, VERDICT_UNKNOWN, "the module allows more paths than the interpreter follows");
    else if (allowed_result(&set, in->op, device, &open))
        judge_allowed(&set, in, words, host, device, strict_nan, open, v);
    else
        judge_outside(&mr, &rules, &set, device, v);
    spa_set_free(&set);
}

void eng_judge(eng_exec *x, const isa_instance *in, const uint32_t *words, const uint32_t *host,
               const uint32_t *device, bool strict_nan, eng_verdict *v)
{
    if (!x) {   /* a store counting disagreements it did not run: nothing to judge against */
        memset(v, 0, sizeof *v);
        return;
    }
    eng_dispatch_shape shape;
    char err[300];
    const eng_module *m = eng_exec_module(x, in, &shape, err, sizeof err);
    if (!m) {
        memset(v, 0, sizeof *v);
        say(v, VERDICT_UNKNOWN, "no module to judge against: %s", err);
        return;
    }
    eng_judge_module(m, &shape, vkd_device_info(eng_exec_device(x)), in, words, host, device, strict_nan, v);
}
