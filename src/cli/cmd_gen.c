/* tiefuzz gen: generated tuples in the format eval --batch reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"
#include "engine/campaign.h"
#include "engine/report.h"
#include "io/tuple.h"
#include "isa/classify.h"

static const char help[] =
    "usage: tiefuzz gen OP [--gen CLASS,...] [--ctrl NAME=VALUE,...] [--param ...] [--seed N] [-n COUNT] [--stats]\n"
    "Classes: %s (or all).\n"
    "The first line is a comment naming the op and its controls (K included), so that\n"
    "'tiefuzz eval OP --ctrl ... --batch -' reproduces the host outputs.\n";

int cmd_gen(int argc, char **argv)
{
    cli_args a = {argc, argv, 1, "gen", false};
    const char *op_name = NULL, *ctrl = NULL, *param = NULL, *v;
    eng_options o;
    eng_options_default(&o);
    uint64_t count = 16;
    bool stats = false;
    cli_gen_slots slots = {&o.seed, NULL, o.classes, &o.n_classes}; /* -n, not --cases */
    while (a.i < argc && !a.failed) {
        if (cli_flag(&a, "--help")) {
            char names[512];
            printf(help, cli_class_names(names, sizeof names));
            return 0;
        } else if (cli_flag(&a, "--stats"))
            stats = true;
        else if ((v = cli_value(&a, "--ctrl")))
            ctrl = v;
        else if ((v = cli_value(&a, "--param")))
            param = v;
        else if (cli_gen_option(&a, &slots))
            continue;
        else if ((v = cli_value(&a, "-n"))) {
            if (!cli_parse_u64(v, &count))
                return cli_fail("gen", "-n '%s': expected a number", v);
        } else if (a.failed)
            break;
        else if (argv[a.i][0] == '-')
            return cli_fail("gen", "unknown option '%s'", argv[a.i]);
        else if (!op_name)
            op_name = argv[a.i++];
        else
            return cli_fail("gen", "unexpected argument '%s'", argv[a.i]);
    }
    if (a.failed)
        return EXIT_USAGE;
    if (!op_name) {
        fputs(help, stderr);
        return EXIT_USAGE;
    }
    isa_instance tmpl, in;
    if (cli_instance("gen", op_name, ctrl, param, &tmpl))
        return EXIT_USAGE;
    bool fixed_k = isa_literal_named(tmpl.op, ctrl);  /* K given: keep it */
    gen_class wanted[64];
    unsigned n_wanted = o.n_classes;
    memcpy(wanted, o.classes, sizeof wanted[0] * n_wanted);
    o.n_classes = isa_op_classes(tmpl.op, wanted, n_wanted, o.classes);
    if (!o.n_classes)
        return cli_fail("gen", "none of the requested classes applies to %s", tmpl.op->name);
    eng_block_instance(&tmpl, true, fixed_k, o.seed, 0, o.classes, o.n_classes, &in);
    char ctl[256], par[256];
    printf("# tiefuzz gen %s --ctrl %s --param %s --seed %llu\n", in.op->name, isa_controls_text(&in, ctl, sizeof ctl),
           isa_params_text(&in, par, sizeof par), (unsigned long long)o.seed);
    static char outbuf[1 << 20];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    uint32_t w[ISA_MAX_IN], host[ISA_MAX_OUT];
    /* Counted a case at a time as each comes, apart from a campaign's
     * counting of a block at once (test class-stats compares the two). */
    eng_class_stats st = {0};
    isa_verdict t;
    for (uint64_t i = 0; i < count; i++) {
        uint32_t m = eng_make_case(&in, o.seed, i, o.classes, o.n_classes, w, host, &t);
        gen_class c = o.classes[i % o.n_classes];
        st.generated[c]++;
        st.verified[c] += (m >> c) & 1;
        st.at_result[c] += (t.at_result >> c) & 1;
        st.ties[c] += (m >> GEN_TIE) & 1;
        for (int k = 0; k < ISA_CELL_WORDS; k++)
            st.cells[k] |= t.cells[k];
        if (m >> GEN_TIE & 1)
            eng_stats_note_tie_exponent(&st, t.tie_exp);
        io_print_words(stdout, w, in.op->n_in);
    }
    fflush(stdout);
    if (!stats)
        return 0;
    for (int c = 0; c < GEN_CLASS_COUNT; c++)
        if (st.generated[c])
            fprintf(stderr, "%s: %llu generated, %llu verified (%.2f%%), %llu at the result (%.2f%%), %llu ties\n",
                    gen_class_name((gen_class)c), (unsigned long long)st.generated[c],
                    (unsigned long long)st.verified[c], 100.0 * (double)st.verified[c] / (double)st.generated[c],
                    (unsigned long long)st.at_result[c], 100.0 * (double)st.at_result[c] / (double)st.generated[c],
                    (unsigned long long)st.ties[c]);
    fprintf(stderr, "rounding cells: %u, tie exponents: %u\n", eng_stats_cells(&st), eng_stats_tie_exponents(&st));
    return 0;
}
