/* tiefuzz selftest: the host's fast paths against the exact model, no device. */
#include <stdio.h>
#include <string.h>
#include "options.h"
#include "engine/selftest.h"

static const char help[] =
    "usage: tiefuzz selftest [OP-GLOB...] [--cases N] [--tiles N] [--seed N] [--gen CLASS,...]\n"
    "                        [--ctrl NAME=VALUE,...] [--param NAME=VALUE,...] [--threads N] [--quiet]\n"
    "Generates cases as a campaign does (default 1,000,000 per op; every op with no glob; the\n"
    "tensor-core ops, whose case is a whole tile, --tiles each: default 10,000), with controls\n"
    "fuzzed and model parameters drawn per block of 4,096 cases (64 tiles) unless fixed, and has the\n"
    "exact model re-evaluate every one: outputs and verdict (classes, rounding cells, tie exponent)\n"
    "from the fast path, outputs from the batch path.  No Vulkan device is needed.\n"
    "--gen classes (default all, cycled): %s.\n"
    "Exit: 0 all agree, 2 bad usage, 4 a difference (a tiefuzz bug; the cases are printed).\n";

int cmd_selftest(int argc, char **argv)
{
    cli_args a = {argc, argv, 1, "selftest", false};
    eng_selftest_options o;
    eng_selftest_options_default(&o);
    const char *globs[64];
    unsigned n_globs = 0;
    const char *v;
    cli_gen_slots slots = {&o.seed, &o.cases, o.classes, &o.n_classes};
    while (a.i < argc && !a.failed) {
        if (cli_flag(&a, "--help")) {
            char names[512];
            printf(help, cli_class_names(names, sizeof names));
            return 0;
        } else if (cli_flag(&a, "--quiet"))
            o.quiet = true;
        else if (cli_gen_option(&a, &slots))
            continue;
        else if ((v = cli_value(&a, "--tiles"))) {
            if (!cli_parse_u64(v, &o.tiles) || o.tiles < 1)
                return cli_fail("selftest", "--tiles '%s': expected a positive number of tiles", v);
        } else if ((v = cli_value(&a, "--threads"))) {
            uint64_t t;
            if (!cli_parse_u64(v, &t) || t < 1 || t > 64)
                return cli_fail("selftest", "--threads '%s': expected 1 to 64", v);
            o.threads = (unsigned)t;
        } else if ((v = cli_value(&a, "--ctrl")))
            o.ctrl_text = v;
        else if ((v = cli_value(&a, "--param")))
            o.param_text = v;
        else if (a.failed)
            break;
        else if (argv[a.i][0] == '-')
            return cli_fail("selftest", "unknown option '%s'", argv[a.i]);
        else if (!cli_printable(argv[a.i]))  /* op names are printable ASCII: no glob with other bytes matches */
            return cli_fail("selftest", "no op matches '%s' (see 'tiefuzz ops')", argv[a.i]);
        else if (n_globs < 64)
            globs[n_globs++] = argv[a.i++];
        else
            return cli_fail("selftest", "too many op globs");
    }
    if (a.failed)
        return EXIT_USAGE;
    o.globs = globs;
    o.n_globs = n_globs;
    int stack = cli_check_stack("selftest");
    return stack ? stack : eng_selftest(&o);
}
