/* The registry: every family's table in one list, plus the controls and
 * parameters that the rows refer to. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isa.h"
#include "maxwell.h"
#include "mma.h"
#include "rdna2.h"

const isa_control_desc isa_controls[CTRL_COUNT] = {
    [CTRL_ABS] = {.name = "abs", .meaning = "per-source absolute value (VOP3), bit i for source i"},
    [CTRL_NEG] = {.name = "neg", .meaning = "per-source negation (VOP3), applied after abs"},
    [CTRL_CLAMP] = {.name = "clamp", .meaning = "clamp the result to [0, 1]; NaN and -0 give +0"},
    [CTRL_OMOD] = {.name = "omod", .meaning = "output modifier: 0 none, 1 x2, 2 x4, 3 x0.5 (see param omod)"},
    [CTRL_OP_SEL] = {.name = "op_sel", .meaning = "half select per source (bit 3: destination half)"},
    [CTRL_OP_SEL_HI] = {.name = "op_sel_hi", .meaning = "VOP3P: high-lane half select; for MIX, 1 = source is a half"},
    [CTRL_NEG_LO] = {.name = "neg_lo", .meaning = "VOP3P: negate low-lane inputs; for MIX, negate"},
    [CTRL_NEG_HI] = {.name = "neg_hi", .meaning = "VOP3P: negate high-lane inputs; for MIX, absolute value"},
    [CTRL_K] = {.name = "k", .meaning = "32-bit literal constant of the encoding (a specialization constant)", .value = true},
    [CTRL_SASIGN] = {.name = "sasign", .meaning = "XMAD: 1 = .S16 for A (sign-extend the selected half), 0 = .U16"},
    [CTRL_SBSIGN] = {.name = "sbsign", .meaning = "XMAD: 1 = .S16 for B, 0 = .U16"},
    [CTRL_PSL] = {.name = "psl", .meaning = "XMAD .PSL: the product shifted left by 16"},
    [CTRL_COP] = {.name = "cop", .meaning = "XMAD c operand: 0 C32, 1 CLO, 2 CHI, 3 CBCC, 4 CSFU"},
    [CTRL_MRG] = {.name = "mrg", .meaning = "XMAD .MRG: result high half = Sb[15:0]"},
    [CTRL_X] = {.name = "x", .meaning = ".X: add the carries from the CC input word"},
    [CTRL_CC] = {.name = "cc", .meaning = ".CC: write the condition codes"},
    [CTRL_A_H1] = {.name = "a_h1", .meaning = "XMAD: A reads its high half (.H1)"},
    [CTRL_B_H1] = {.name = "b_h1", .meaning = "XMAD: B reads its high half (.H1)"},
    [CTRL_SB_KIND] = {.name = "sb_kind", .meaning = "XMAD Sb: 0 register, 1 IMM16 (literal imm), 2 constant bank; IADD3: 0 register, 1 IMM20, 2 constant bank"},
    [CTRL_SC_KIND] = {.name = "sc_kind", .meaning = "XMAD Sc: 0 register, 1 constant bank"},
    [CTRL_IMM] = {.name = "imm", .meaning = "the immediate of the encoding (16 bits for XMAD, 20 for IADD3, multiplier for imul_imm16)", .value = true},
    [CTRL_SHIFT] = {.name = "shift", .meaning = "IADD3: 0 .NS, 1 .RS (first sum shifted right 16, 33 bits kept), 2 .LS"},
    [CTRL_NEGA] = {.name = "nega", .meaning = "IADD3: -Ra (ones' complement plus a carry)"},
    [CTRL_NEGB] = {.name = "negb", .meaning = "IADD3: -Sb"},
    [CTRL_NEGC] = {.name = "negc", .meaning = "IADD3: -Rc"},
    [CTRL_A_PART] = {.name = "a_part", .meaning = "IADD3 (register form): 0 full, 1 .H0, 2 .H1 of Ra"},
    [CTRL_B_PART] = {.name = "b_part", .meaning = "IADD3 (register form): 0 full, 1 .H0, 2 .H1 of Sb"},
    [CTRL_C_PART] = {.name = "c_part", .meaning = "IADD3 (register form): 0 full, 1 .H0, 2 .H1 of Rc"},
};

const isa_param_desc isa_params[PARAM_COUNT] = {
    [PARAM_MIX_ROUNDING] = {"mix_rounding", {"record", "always-twice", "always-once"}, 3,
                            "MIXLO/HI_F16: record = once when all sources are halves, else f32 then f16"},
    [PARAM_DIV_FMAS_SCALE] = {"div_fmas_scale", {"pm64", "guide32"}, 2,
                              "VCC scale: 2^64 if exponent(S2) > 127 else 2^-64, or 2^32 per the guide"},
    [PARAM_DIV_FMAS_ORDER] = {"div_fmas_order", {"before-rounding", "after-rounding"}, 2,
                              "scale the exact value before its one rounding, or the rounded fma"},
    [PARAM_OMOD] = {"omod", {"ignored", "applied"}, 2,
                    "omod has no effect while denormals are kept, or is applied"},
    [PARAM_CSFU] = {"csfu", {"envytools", "ryujinx", "cross"}, 3,
                    "XMAD.CSFU fix-up: envytools (zero check), ryujinx (no zero check), cross (unselected halves)"},
    [PARAM_XMAD_CC] = {"xmad_cc", {"final-carry", "refuse"}, 2,
                       "XMAD.CC: CF = carry out of the final add, OF = 0; or refuse .CC"},
    [PARAM_F] = {"F", {0}, 0, "T-FDPA: fraction bits kept below the alignment point", true, 1, 40},
    [PARAM_E_ZERO_F16] = {"e_zero_f16", {0}, 0, "T-FDPA: exponent given to zero terms, f16 key", true, -200, 0},
    [PARAM_E_ZERO_F32] = {"e_zero_f32", {0}, 0, "T-FDPA: exponent given to zero terms, f32 key", true, -200, 0},
    [PARAM_E_ZERO_KEY] = {"e_zero_key", {"output", "c-type"}, 2,
                          "T-FDPA: e_zero chosen by the output (D) type, or by the C type (MMA-Sim's code)"},
    [PARAM_L_MAX] = {"L_max", {0}, 0, "T-FDPA: products per fused step (larger K is chunked)", true, 1, 64},
    [PARAM_RHO] = {"rho", {"rz-fp32", "rne-fp16", "rz-e8m13"}, 3,
                   "T-FDPA output rounding: truncate to f32, nearest-even to f16, truncate to 14 bits (f32)"},
};

const char *isa_lowering_name(isa_lowering l) { return l == LOWERING_DIRECT ? "direct" : "exact"; }

int isa_lowering_parse(const char *s)
{
    if (strcmp(s, "direct") == 0)
        return LOWERING_DIRECT;
    if (strcmp(s, "exact") == 0)
        return LOWERING_EXACT;
    return -1;
}

const char *isa_word_format_name(isa_word_format f)
{
    static const char *names[] = {"f32", "f16x2", "b32", "f64lo", "f64hi", "flag", "u32", "cc"};
    return names[f];
}

/* Every family's table, in order: a new family adds its line here. */
static const isa_op *(*const family_tables[])(unsigned) = {rdna2_op_at, maxwell_op_at, mma_op_at};
#define N_FAMILIES (sizeof family_tables / sizeof family_tables[0])

static unsigned family_size(unsigned f)
{
    unsigned n = 0;
    while (family_tables[f](n))
        n++;
    return n;
}

unsigned isa_op_count(void)
{
    unsigned n = 0;
    for (unsigned f = 0; f < N_FAMILIES; f++)
        n += family_size(f);
    return n;
}

const isa_op *isa_op_at(unsigned i)
{
    for (unsigned f = 0; f < N_FAMILIES; f++) {
        const isa_op *op = family_tables[f](i);
        if (op)
            return op;
        i -= family_size(f);
    }
    return NULL;
}

const isa_op *isa_op_find(const char *name)
{
    const isa_op *found = NULL;
    for (unsigned i = 0; i < isa_op_count(); i++) {
        const isa_op *op = isa_op_at(i);
        if (strcmp(op->name, name) == 0)
            return op;
        const char *dot = strchr(op->name, '.');
        if (dot && strcmp(dot + 1, name) == 0) {
            if (found)
                return NULL;
            found = op;
        }
    }
    return found;
}

bool isa_glob_match(const char *p, const char *s)
{
    for (; *p; p++, s++) {
        if (*p == '*') {
            while (p[1] == '*')
                p++;
            if (!p[1])
                return true;
            for (; *s; s++)
                if (isa_glob_match(p + 1, s))
                    return true;
            return false;
        }
        if (!*s || (*p != '?' && *p != *s))
            return false;
    }
    return !*s;
}

void isa_instance_default(isa_instance *in, const isa_op *op)
{
    memset(in, 0, sizeof *in);
    in->op = op;
    if (op->param_defaults)
        memcpy(in->param, op->param_defaults, sizeof in->param);
    memcpy(in->ctrl, op->ctrl_default, sizeof in->ctrl);
}

/* The message isa_parse_controls, isa_parse_params and isa_instance_check
 * return: one per thread, since generation checks instances on several. */
static _Thread_local char parse_error[256];

/* Parse one "name=value" list against a table of names. */
static const char *parse_pairs(const char *text, const char *what, int count,
                               const char *(*name_of)(int), int (*value_of)(int, const char *, uint32_t *),
                               uint32_t *out)
{
    char buf[512];
    if (strlen(text) >= sizeof buf)
        return "list too long";
    /* Names and values are printable ASCII; saying where another byte is, instead of echoing it,
     * keeps raw bytes out of every message built here (the engine prints them as they are). */
    for (size_t i = 0; text[i]; i++)
        if ((unsigned char)text[i] < 0x20 || (unsigned char)text[i] >= 0x7f) {
            snprintf(parse_error, sizeof parse_error, "%s list: byte 0x%02x at position %zu is not printable ASCII",
                     what, (unsigned char)text[i], i + 1);
            return parse_error;
        }
    strcpy(buf, text);
    /* The value each name was given, to refuse a second one (neg=1,neg=2 would keep the last). */
    const char *given[CTRL_COUNT + PARAM_COUNT] = {0}; /* room for either table */
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            snprintf(parse_error, sizeof parse_error, "%s '%s': expected NAME=VALUE", what, tok);
            return parse_error;
        }
        *eq = 0;
        int id = -1;
        for (int i = 0; i < count; i++)
            if (strcmp(name_of(i), tok) == 0)
                id = i;
        if (id < 0) {
            snprintf(parse_error, sizeof parse_error, "unknown %s '%s'", what, tok);
            return parse_error;
        }
        if (given[id]) {
            snprintf(parse_error, sizeof parse_error, "%s %s given twice (%s=%s, then %s=%s)", what, tok, tok,
                     given[id], tok, eq + 1);
            return parse_error;
        }
        given[id] = eq + 1;
        if (!value_of(id, eq + 1, &out[id])) {
            snprintf(parse_error, sizeof parse_error, "%s %s: bad value '%s'", what, tok, eq + 1);
            return parse_error;
        }
    }
    return NULL;
}

static const char *control_name(int i) { return isa_controls[i].name; }
static const char *param_name(int i) { return isa_params[i].name; }

static int control_value(int id, const char *s, uint32_t *out)
{
    (void)id;
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (!*s || *end || v > 0xffffffffull)
        return 0;
    *out = (uint32_t)v;
    return 1;
}

static int param_value(int id, const char *s, uint32_t *out)
{
    if (isa_params[id].integer) {
        char *end;
        long v = strtol(s, &end, 10);
        if (!*s || *end || v < isa_params[id].lo || v > isa_params[id].hi)
            return 0;
        *out = (uint32_t)(int32_t)v;
        return 1;
    }
    for (unsigned i = 0; i < isa_params[id].count; i++)
        if (strcmp(isa_params[id].values[i], s) == 0) {
            *out = i;
            return 1;
        }
    return 0;
}

const char *isa_param_value_text(isa_param_id p, int32_t v, char *buf, unsigned n)
{
    if (isa_params[p].integer)
        snprintf(buf, n, "%d", v);
    else
        snprintf(buf, n, "%s", v >= 0 && (unsigned)v < isa_params[p].count ? isa_params[p].values[v] : "?");
    return buf;
}

const char *isa_parse_controls(isa_instance *in, const char *text)
{
    if (!strcmp(text, "none"))  /* what isa_controls_text prints for an op without controls */
        return isa_instance_check(in);
    uint32_t v[CTRL_COUNT];
    memcpy(v, in->ctrl, sizeof v);
    const char *err = parse_pairs(text, "control", CTRL_COUNT, control_name, control_value, v);
    if (err)
        return err;
    for (int i = 0; i < CTRL_COUNT; i++) {
        if (v[i] == in->ctrl[i])
            continue;
        if (!in->op->ctrl_limit[i]) {
            snprintf(parse_error, sizeof parse_error, "%s takes no control '%s'", in->op->name,
                     isa_controls[i].name);
            return parse_error;
        }
        if (v[i] & ~in->op->ctrl_limit[i]) {
            snprintf(parse_error, sizeof parse_error, "%s: control %s=0x%x is out of range (legal bits 0x%x)",
                     in->op->name, isa_controls[i].name, v[i], in->op->ctrl_limit[i]);
            return parse_error;
        }
    }
    memcpy(in->ctrl, v, sizeof v);
    return isa_instance_check(in);
}

const char *isa_parse_params(isa_instance *in, const char *text)
{
    if (!strcmp(text, "none"))
        return NULL;
    uint32_t v[PARAM_COUNT];
    for (int i = 0; i < PARAM_COUNT; i++)
        v[i] = (uint32_t)in->param[i];
    const char *err = parse_pairs(text, "model parameter", PARAM_COUNT, param_name, param_value, v);
    if (err)
        return err;
    for (int i = 0; i < PARAM_COUNT; i++) {
        if ((int32_t)v[i] != in->param[i] && !(in->op->params & (1u << i))) {
            snprintf(parse_error, sizeof parse_error, "%s has no model parameter '%s'", in->op->name,
                     isa_params[i].name);
            return parse_error;
        }
        in->param[i] = (int32_t)v[i];
    }
    return isa_instance_check(in);  /* a parameter can make controls illegal (xmad_cc=refuse) */
}

const char *isa_instance_check(const isa_instance *in)
{
    for (int i = 0; i < CTRL_COUNT; i++)
        if (in->ctrl[i] & ~in->op->ctrl_limit[i]) {
            snprintf(parse_error, sizeof parse_error, "%s: control %s=0x%x is not legal here", in->op->name,
                     isa_controls[i].name, in->ctrl[i]);
            return parse_error;
        }
    /* A parameter indexes its value table in the evaluators: every reader
     * (parsed text, binary cases, mutated fuzz inputs) is held to its range. */
    for (int i = 0; i < PARAM_COUNT; i++) {
        int32_t v = in->param[i];
        bool bad = !(in->op->params & (1u << i))
                       ? v != (in->op->param_defaults ? in->op->param_defaults[i] : 0)
                       : isa_params[i].integer ? v < isa_params[i].lo || v > isa_params[i].hi
                                               : v < 0 || (unsigned)v >= isa_params[i].count;
        if (bad) {
            snprintf(parse_error, sizeof parse_error, "%s: model parameter %s=%d is %s", in->op->name,
                     isa_params[i].name, v, in->op->params & (1u << i) ? "out of range" : "not one this op has");
            return parse_error;
        }
    }
    return in->op->impl->check ? in->op->impl->check(in) : NULL;
}

char *isa_controls_text(const isa_instance *in, char *buf, unsigned n)
{
    unsigned used = 0;
    buf[0] = 0;
    for (int i = 0; i < CTRL_COUNT; i++) {
        if (!in->op->ctrl_limit[i])
            continue;
        const char *fmt = isa_controls[i].value ? "%s%s=0x%08x" : "%s%s=%u";
        used += (unsigned)snprintf(buf + used, used < n ? n - used : 0, fmt, used ? "," : "",
                                   isa_controls[i].name, in->ctrl[i]);
    }
    if (!used)
        snprintf(buf, n, "none");
    return buf;
}

char *isa_params_text(const isa_instance *in, char *buf, unsigned n)
{
    unsigned used = 0;
    buf[0] = 0;
    char value[32];
    for (int i = 0; i < PARAM_COUNT; i++)
        if (in->op->params & (1u << i))
            used += (unsigned)snprintf(buf + used, used < n ? n - used : 0, "%s%s=%s", used ? "," : "",
                                       isa_params[i].name, isa_param_value_text((isa_param_id)i, in->param[i], value, sizeof value));
    if (!used)
        snprintf(buf, n, "none");
    return buf;
}

void isa_random_controls(isa_instance *in, gen_rng *rng)
{
    uint32_t before[CTRL_COUNT];
    memcpy(before, in->ctrl, sizeof before);
    const isa_literal *lit = in->op->literal;
    /* Illegal combinations are never generated: draw again, a few times,
     * then fall back to the plain encoding with the values it had. */
    for (int attempt = 0; attempt < 32; attempt++) {
        for (int i = 0; i < CTRL_COUNT; i++)
            in->ctrl[i] = (uint32_t)gen_next(rng) & in->op->ctrl_limit[i];
        if (lit)
            in->ctrl[lit->ctrl] = before[lit->ctrl];
        if (in->op->impl->controls_drawn)
            in->op->impl->controls_drawn(in);
        if (!isa_instance_check(in))
            return;
    }
    for (int i = 0; i < CTRL_COUNT; i++)
        in->ctrl[i] = isa_controls[i].value ? before[i] : in->op->ctrl_default[i];
}

uint32_t isa_literal_value(const isa_instance *in) { return in->op->literal ? in->ctrl[in->op->literal->ctrl] : 0; }

void isa_literal_set(isa_instance *in, uint32_t v)
{
    if (in->op->literal)
        in->ctrl[in->op->literal->ctrl] = v;
}

bool isa_literal_named(const isa_op *op, const char *text)
{
    if (!op->literal || !text)
        return false;
    const char *name = isa_controls[op->literal->ctrl].name;
    size_t n = strlen(name);
    for (const char *p = text; *p; p += strcspn(p, ","), p += *p == ',')
        if (!strncmp(p, name, n) && p[n] == '=')
            return true;
    return false;
}

uint32_t isa_literal_draw(const isa_op *op, gen_class c, gen_rng *r)
{
    const fp_format *f = op->literal->format;
    switch (c) {
    case GEN_RANDOM: return (uint32_t)gen_next(r);
    case GEN_SPECIAL: return (uint32_t)gen_special(f, r);
    case GEN_SUBNORMAL: return (uint32_t)gen_near_subnormal(f, r);
    case GEN_OVERFLOW: {
        /* Draws as statements, last argument first (see gen_near_subnormal). */
        int e = gen_range(r, f->emax - 7, f->emax);
        return (uint32_t)gen_value_with_exp(f, r, gen_coin(r), e, 0);
    }
    default: {
        int trailing_zeros = gen_below(r, 2) ? 0 : gen_range(r, 0, (int)f->precision - 1);
        int e = gen_range(r, -20, 20);
        return (uint32_t)gen_value_with_exp(f, r, gen_coin(r), e, trailing_zeros);
    }
    }
}

void isa_trace_step(isa_trace *t, const char *label, const fp_format *f, fp_rounding mode, fp_value exact,
                    const fp_round_info *info, uint64_t result, bool final)
{
    if (!t || t->n_steps >= ISA_MAX_STEPS)
        return;
    /* Field by field: a compound literal cleared the whole step first (a
     * string store that cost a fifth of a traced re-check). */
    isa_step *s = &t->step[t->n_steps++];
    s->label = label;
    s->format = f;
    s->mode = mode;
    s->exact = exact;
    s->info = *info;
    s->result = result;
    s->final = final;
    s->intermediate = false;
}

int isa_instance_from_text(const isa_op *op, const char *ctrl, const char *param, const char *const names[2],
                           isa_instance *out, char *err, size_t errn)
{
    isa_instance_default(out, op);
    const char *e = ctrl ? isa_parse_controls(out, ctrl) : NULL;
    int which = 0;
    if (!e && param) {
        e = isa_parse_params(out, param);
        which = 1;
    }
    if (e)
        snprintf(err, errn, "%s: %s", names[which], e);
    return e ? -1 : 0;
}
