/* libFuzzer target: the differential test.  An input is a binary case (the
 * encoding of `tiefuzz repro`'s crash files); it runs on the host and on the
 * device (lavapipe unless TIEFUZZ_DEVICE names another, opened once), and a
 * disagreement that no known-divergence rule covers aborts in a function
 * named for its kind, so crash files and libFuzzer's deduplication follow
 * the kinds.  Inputs that do not decode, or name an untranslated op, are
 * ignored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "engine/campaign.h"
#include "engine/compare.h"
#include "engine/exec.h"
#include "engine/signature.h"
#include "isa/classify.h"
#include "io/finding.h"
#include "io/known.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2, uint8_t *out,
                                 size_t max_size, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) __attribute__((weak));

/* Semantic coverage: the rounding cell of each final rounding (op, result
 * kind, exact or not, last kept bit, guard, sticky, sign) as a libFuzzer
 * extra counter, so that a new rounding situation is new coverage.  With
 * TIEFUZZ_PLAIN=1 the counters and the custom mutator are off (the
 * comparison run of scripts/fuzz-cells). */
#define CELLS_PER_OP 256
#define MAX_OPS 64
__attribute__((section("__libfuzzer_extra_counters"))) static uint8_t cell_counters[MAX_OPS * CELLS_PER_OP];
static uint8_t cells_seen[MAX_OPS * CELLS_PER_OP];
static unsigned cells_reached;
static bool plain;

static unsigned op_index(const isa_op *op)
{
    for (unsigned i = 0; i < isa_op_count() && i < MAX_OPS; i++)
        if (isa_op_at(i) == op)
            return i;
    return MAX_OPS - 1;
}

static void note_cells(const isa_instance *in, const uint32_t *words)
{
    isa_trace t;
    uint32_t out[ISA_MAX_OUT];
    in->op->impl->eval(in, words, out, &t);
    for (unsigned s = 0; s < t.n_steps; s++) {
        const isa_step *st = &t.step[s];
        if (!st->final)
            continue;
        unsigned cell = isa_step_cell(st);
        unsigned index = op_index(in->op) * CELLS_PER_OP + cell;
        if (!plain)
            cell_counters[index]++;
        if (!cells_seen[index]) {
            cells_seen[index] = 1;
            cells_reached++;
            const char *path = getenv("TIEFUZZ_CELLS_FILE");  /* kept current: a crash skips atexit */
            FILE *f = path ? fopen(path, "w") : NULL;
            if (f) {
                fprintf(f, "%u\n", cells_reached);
                fclose(f);
            }
        }
    }
}

static void report_cells(void) { fprintf(stderr, "fuzz_diff: rounding cells reached: %u\n", cells_reached); }

static vkd_device *device;
static eng_exec *exec[LOWERING_COUNT];
static io_known known;
static char driver[600];

/* A ClusterFuzzLite or OSS-Fuzz runner has neither the source tree nor a
 * Vulkan driver: ci/clusterfuzzlite/build.sh ships the known rules and
 * lavapipe beside the target, found here through argv[0]. */
static void use_bundle(const char *argv0, const char **known_dir)
{
    static char known_path[4096], icd_path[4096];
    const char *slash = strrchr(argv0, '/');
    int dir_len = slash ? (int)(slash - argv0) : 1;
    const char *dir = slash ? argv0 : ".";
    snprintf(known_path, sizeof known_path, "%.*s/tiefuzz-known", dir_len, dir);
    snprintf(icd_path, sizeof icd_path, "%.*s/lib/lvp_icd.json", dir_len, dir);
    if (!*known_dir && access(known_path, R_OK) == 0)
        *known_dir = known_path;
    if (!getenv("VK_DRIVER_FILES") && !getenv("VK_ICD_FILENAMES") && access(icd_path, R_OK) == 0)
        setenv("VK_DRIVER_FILES", icd_path, 0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    char err[1024];
    const char *known_dir = getenv("TIEFUZZ_KNOWN");
    if (argv && *argv && (*argv)[0])
        use_bundle((*argv)[0], &known_dir);
    device = vkd_open(getenv("TIEFUZZ_DEVICE"), false, err, sizeof err);
    if (!device) {
        fprintf(stderr, "fuzz_diff: %s\n", err);
        exit(3);
    }
    for (int l = 0; l < LOWERING_COUNT; l++)
        if (!(exec[l] = eng_exec_create(device, (isa_lowering)l, NULL, 64, err, sizeof err))) {
            fprintf(stderr, "fuzz_diff: %s\n", err);
            exit(3);
        }
    if (eng_known_load(known_dir ? known_dir : eng_default_known_dir(), known_dir != NULL, &known, err, sizeof err))
        fprintf(stderr, "fuzz_diff: known divergences: %s\n", err);
    snprintf(driver, sizeof driver, "%s %s", vkd_device_info(device)->driver_name, vkd_device_info(device)->driver_info);
    plain = getenv("TIEFUZZ_PLAIN") && strcmp(getenv("TIEFUZZ_PLAIN"), "0");
    atexit(report_cells);
    return 0;
}

/* One function per kind: the crash's top frame names it. */
#define KIND_ABORT(name) static void __attribute__((noinline)) disagreement_##name(void) { abort(); }
KIND_ABORT(tie_direction)
KIND_ABORT(one_unit_rounding)
KIND_ABORT(flush_vs_subnormal)
KIND_ABORT(sign_of_zero)
KIND_ABORT(nan_vs_number)
KIND_ABORT(nan_payload)
KIND_ABORT(inf_vs_finite)
KIND_ABORT(other)
static void (*const abort_for[KIND_COUNT])(void) = {
    disagreement_tie_direction, disagreement_one_unit_rounding, disagreement_flush_vs_subnormal,
    disagreement_sign_of_zero, disagreement_nan_vs_number, disagreement_nan_payload, disagreement_inf_vs_finite,
    disagreement_other};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    io_case c;
    char err[512];
    if (io_case_decode(data, size, "input", &c, err, sizeof err))
        return 0;
    const isa_op *op = isa_op_find(c.op);
    if (!op || !op->translated || c.n_words != op->n_in || c.lowering >= LOWERING_COUNT || c.n_ctrl > CTRL_COUNT ||
        c.n_param > PARAM_COUNT)
        return 0;
    isa_instance in;
    isa_instance_default(&in, op);
    for (unsigned i = 0; i < c.n_ctrl; i++)
        in.ctrl[i] = c.ctrl[i];
    for (unsigned i = 0; i < c.n_param; i++)
        if (op->params & (1u << i))
            in.param[i] = c.param[i];
    if (isa_instance_check(&in))
        return 0;
    note_cells(&in, c.words);
    uint32_t host[ISA_MAX_OUT], dev[ISA_MAX_OUT];
    bool device_error;
    if (eng_exec_run(exec[c.lowering], &in, c.words, 1, dev, err, sizeof err, &device_error)) {
        if (device_error) {
            fprintf(stderr, "fuzz_diff: %s\n", err);
            exit(3);
        }
        return 0;  /* an instance the lowering cannot build */
    }
    op->impl->eval(&in, c.words, host, NULL);
    if (eng_outputs_agree(op, host, dev, false))
        return 0;
    eng_target t = {isa_lowering_name((isa_lowering)c.lowering), vkd_device_info(device)->name, driver};
    eng_kind k = eng_classify(&in, c.words, host, dev);
    io_known_query q = {t.device, op->name, t.lowering, eng_kind_name(k), eng_signature(&in, &t, k), NULL, NULL};
    if (io_known_match(&known, &q))
        return 0;
    abort_for[k]();
    return 0;
}

/* ---- the custom mutator: the generators move operands onto ties, near
 * ties and boundaries; low bits (last, guard, sticky) flip; controls and
 * the op change; sometimes libFuzzer's own mutation. Deterministic per seed. */

/* encode_case copies an instance's whole control and parameter arrays into
 * io_case's fixed slots: a control or parameter added past them must stop
 * the build, not overrun the record. */
_Static_assert(sizeof ((isa_instance *)0)->ctrl <= sizeof ((io_case *)0)->ctrl,
               "io_case.ctrl needs a slot for each of the CTRL_COUNT controls");
_Static_assert(sizeof ((isa_instance *)0)->param <= sizeof ((io_case *)0)->param,
               "io_case.param needs a slot for each of the PARAM_COUNT model parameters");

static size_t encode_case(const isa_instance *in, unsigned lowering, const uint32_t *words, uint8_t *out, size_t max)
{
    io_case c = {0};
    snprintf(c.op, sizeof c.op, "%s", in->op->name);
    c.lowering = (uint8_t)lowering;
    c.n_ctrl = CTRL_COUNT;
    memcpy(c.ctrl, in->ctrl, sizeof in->ctrl);
    c.n_param = PARAM_COUNT;
    memcpy(c.param, in->param, sizeof in->param);
    c.n_words = in->op->n_in;
    memcpy(c.words, words, in->op->n_in * 4);
    return io_case_encode(&c, out, max);
}

static bool decode_case(const uint8_t *data, size_t size, isa_instance *in, unsigned *lowering, uint32_t *words)
{
    io_case c;
    char err[256];
    if (io_case_decode(data, size, "input", &c, err, sizeof err))
        return false;
    const isa_op *op = isa_op_find(c.op);
    if (!op || !op->translated || c.n_words != op->n_in || c.n_ctrl > CTRL_COUNT || c.n_param > PARAM_COUNT)
        return false;
    isa_instance_default(in, op);
    memcpy(in->ctrl, c.ctrl, c.n_ctrl * 4);
    for (unsigned i = 0; i < c.n_param; i++)
        if (op->params & (1u << i))
            in->param[i] = c.param[i];
    if (isa_instance_check(in))   /* controls and parameters in range: the evaluators index tables with them */
        isa_instance_default(in, op);
    *lowering = c.lowering % LOWERING_COUNT;
    memcpy(words, c.words, op->n_in * 4);
    return true;
}

static size_t fallback(uint8_t *data, size_t size, size_t max_size)
{
    return LLVMFuzzerMutate ? LLVMFuzzerMutate(data, size, max_size) : size;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    isa_instance in;
    unsigned lowering;
    uint32_t words[ISA_MAX_IN];
    if (plain || !decode_case(data, size, &in, &lowering, words))
        return fallback(data, size, max_size);
    gen_rng r = {seed * 0x9e3779b97f4a7c15ull + 1};
    switch (gen_below(&r, 6)) {
    case 0: { /* another op, fresh operands */
        const isa_op *op = isa_op_at(gen_below(&r, isa_op_count()));
        if (!op->translated || op->n_in > 16)
            return fallback(data, size, max_size);
        isa_instance_default(&in, op);
    }
        /* fall through */
    case 1:
    case 2: { /* operands aimed at a class of the op */
        gen_class all[GEN_CLASS_COUNT], mine[GEN_CLASS_COUNT];
        for (int k = 0; k < GEN_CLASS_COUNT; k++)
            all[k] = (gen_class)k;
        unsigned n = isa_op_classes(in.op, all, GEN_CLASS_COUNT, mine);
        isa_generate(&in, mine[gen_below(&r, n)], &r, words);
        break;
    }
    case 3: /* flip the last, guard or sticky bits of one word */
        words[gen_below(&r, in.op->n_in)] ^= 1u << gen_below(&r, 3);
        break;
    case 4:
        isa_random_controls(&in, &r);
        lowering = gen_below(&r, LOWERING_COUNT);
        break;
    default:
        return fallback(data, size, max_size);
    }
    size_t n = encode_case(&in, lowering, words, data, max_size);
    return n ? n : fallback(data, size, max_size);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2, uint8_t *out,
                                 size_t max_size, unsigned int seed)
{
    /* The op and controls of one parent, the operands of the other (when they fit). */
    isa_instance a, b;
    unsigned la, lb;
    uint32_t wa[ISA_MAX_IN], wb[ISA_MAX_IN];
    (void)seed;
    if (!decode_case(d1, s1, &a, &la, wa))
        return 0;
    if (decode_case(d2, s2, &b, &lb, wb) && b.op->n_in == a.op->n_in)
        memcpy(wa, wb, a.op->n_in * 4);
    return encode_case(&a, la, wa, out, max_size);
}
