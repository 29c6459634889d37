/* How a run's exit status is decided (engine/report.c eng_report_conclude),
 * without a device: validation-layer errors outrank disagreements (exit 4,
 * not 1: results seen through a validation error are not evidence; issue
 * 11, item 6), an unknown disagreement alone gives 1, an interrupted run
 * with agreement 5, a complete one 0. */
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "engine/findings.h"
#include "engine/report.h"

static int conclude(unsigned validation_errors, bool disagree, bool interrupted)
{
    eng_options o;
    eng_options_default(&o);
    o.quiet = true;
    const isa_op *op = isa_op_find("rdna2.v_fma_f32");
    io_known none = {0};
    eng_target target = {"direct", "test device", "test driver"};
    eng_findings_options fo = {NULL, &none, false, 1};  /* no directory: count only */
    eng_findings *f = eng_findings_create(&fo, NULL, &target);
    isa_instance in;
    isa_instance_default(&in, op);
    uint32_t words[3] = {0x3f800000, 0x3f800000, 0x3f800000}, host[1] = {0x40000000}, device[1] = {0x40000001};
    bool device_error;
    char err[200];
    if (disagree)
        CHECK(eng_findings_add(f, &in, words, host, device, 0, GEN_TIE, "", err, sizeof err, &device_error) == 0,
              "a disagreement not recorded: %s", err);
    eng_op_report r = {.op = op, .cases = 100, .disagreements = disagree};
    vkd_info dev = {0};
    snprintf(dev.name, sizeof dev.name, "test device");
    eng_outcome out = {.o = &o, .dev = &dev, .reports = &r, .n = 1, .findings = f, .known_dir = "none",
                       .validation_errors = validation_errors, .interrupted = interrupted};
    int status = eng_report_conclude(&out, EXIT_AGREE);
    eng_findings_destroy(f);
    return status;
}

int main(void)
{
    CHECK(conclude(0, false, false) == EXIT_AGREE, "agreement: want 0");
    CHECK(conclude(0, true, false) == EXIT_DISAGREE, "a disagreement: want 1");
    CHECK(conclude(2, true, false) == EXIT_INTERNAL, "validation errors with a disagreement: want 4, not 1");
    CHECK(conclude(2, false, false) == EXIT_INTERNAL, "validation errors: want 4");
    CHECK(conclude(0, false, true) == EXIT_INCOMPLETE, "interrupted with agreement: want 5");
    CHECK(conclude(0, true, true) == EXIT_DISAGREE, "interrupted with a disagreement: want 1");
    return check_report("test_conclude");
}
