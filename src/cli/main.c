/* tiefuzz: a differential fuzzer for GPU arithmetic translated to SPIR-V. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "options.h"
#include "vk/device.h"

/* tiefuzz report (cmd_report.c): the nightly report page. */
int cmd_report(int argc, char **argv);

static const char usage[] =
    "usage: tiefuzz COMMAND [ARGS]\n"
    "\n"
    "  ops [--json]                 every instruction, its tuple layout, controls and parameters\n"
    "  devices [--json]             the Vulkan devices and the features that matter here\n"
    "  eval OP [opts] WORD...       the host model on one tuple (--explain, --batch FILE|-)\n"
    "  gen OP [opts]                generated tuples, one a line, in eval --batch format\n"
    "  run [OP-GLOB...] [opts]      the campaign: device vs host, bit for bit\n"
    "  shader OP [opts]             the built-in translation as SPIR-V assembly\n"
    "  repro FILE... [opts]         re-run finding or crash files on the device and the host\n"
    "  minimize FILE [opts]         shrink a finding's case, keeping its signature\n"
    "  export FILE|DIR... --format tuples|amber|testfloat [-o DIR]\n"
    "  merge DIR... [-o DIR]        finding directories of shards or machines into one\n"
    "  replay [PATH...] [opts]      run regression tuple files on the host and a device\n"
    "  fit OP --param ... --results FILE   which model parameters reproduce measured tiles\n"
    "  selftest [OP-GLOB...] [opts]  the host's fast paths against the exact model (no device)\n"
    "  characterize [opts]          the device's arithmetic profile from directed probes\n"
    "  report RUN.json|DIR... [-o FILE]   the nightly report page (HTML) of runs and nights\n"
    "\n"
    "'tiefuzz COMMAND --help' shows a command's options; the README has the details.\n"
    "Exit status: 0 agree, 1 disagreement, 2 bad usage or input, 3 no usable device, 4 internal error.\n";

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        puts("tiefuzz 0.1.0");
        return 0;
    }
    int rc = cli_check_fp_environment();
    if (rc)
        return rc;
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } commands[] = {{"ops", cmd_ops}, {"devices", cmd_devices}, {"eval", cmd_eval},
                    {"gen", cmd_gen}, {"run", cmd_run},         {"shader", cmd_shader},
                    {"repro", cmd_repro}, {"minimize", cmd_minimize}, {"export", cmd_export}, {"merge", cmd_merge}, {"replay", cmd_replay},
                    {"fit", cmd_fit}, {"selftest", cmd_selftest}, {"characterize", cmd_characterize},
                    {"report", cmd_report}};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            rc = commands[i].fn(argc - 1, argv + 1);
            if (vkd_any_abandoned()) {
                /* A batch timed out or the device was lost and may still be running:
                 * the driver's exit handlers could wait for it, so end here (every
                 * file is already written). */
                fflush(NULL);
                _exit(rc);
            }
            return rc;
        }
    char name[256];
    fprintf(stderr, "tiefuzz: unknown command '%s'\n\n%s", cli_escape(argv[1], name, sizeof name), usage);
    return EXIT_USAGE;
}
