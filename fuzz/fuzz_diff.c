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
#include "engine/campaign.h"
#include "engine/compare.h"
#include "engine/exec.h"
#include "engine/signature.h"
#include "io/finding.h"
#include "io/known.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static vkd_device *device;
static eng_exec *exec[LOWERING_COUNT];
static io_known known;
static char driver[600];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    char err[1024];
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
    const char *dir = getenv("TIEFUZZ_KNOWN");
    if (io_known_load_dir(dir ? dir : eng_default_known_dir(), &known, err, sizeof err))
        fprintf(stderr, "fuzz_diff: known divergences: %s\n", err);
    snprintf(driver, sizeof driver, "%s %s", vkd_device_info(device)->driver_name, vkd_device_info(device)->driver_info);
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
    for (int p = 0; p < PARAM_COUNT; p++)
        if ((op->params & (1u << p)) &&
            (isa_params[p].integer ? in.param[p] < isa_params[p].lo || in.param[p] > isa_params[p].hi
                                   : in.param[p] < 0 || (unsigned)in.param[p] >= isa_params[p].count))
            return 0;
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
    if (io_known_match(&known, t.device, op->name, t.lowering, eng_kind_name(k), eng_signature(&in, &t, k)))
        return 0;
    abort_for[k]();
    return 0;
}
