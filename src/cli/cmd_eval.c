/* tiefuzz eval: the host model on tuples given as hex words. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "options.h"
#include "engine/explain.h"
#include "io/tuple.h"

static const char help[] =
    "usage: tiefuzz eval OP [--ctrl NAME=VALUE,...] [--param NAME=VALUE,...] [--explain] WORD...\n"
    "       tiefuzz eval OP [--ctrl ...] [--param ...] --batch FILE|-\n"
    "Input words in hex, in the op's tuple order ('tiefuzz ops'); prints the output words.\n";

static int run_batch(const isa_instance *in, const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!f)
        return cli_fail("eval", "--batch %s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        if (f != stdin)
            fclose(f);
        return cli_fail("eval", "--batch %s: is a directory, not a tuple file", path);
    }
    static char outbuf[1 << 20];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    char line[8193];
    unsigned long lineno = 0;
    uint32_t w[ISA_MAX_IN + 1], out[ISA_MAX_OUT];
    char err[256];
    int rc = 0, got;
    while ((got = io_read_line(f, line, sizeof line, err, sizeof err)) != 0) {
        lineno++;
        if (got < 0) {
            rc = cli_fail("eval", "%s:%lu: %s", path, lineno, err);
            break;
        }
        int n = io_parse_words(line, w, ISA_MAX_IN + 1, err, sizeof err);
        if (n == 0)
            continue;
        if (n < 0 || n != in->op->n_in) {
            if (n >= 0)
                snprintf(err, sizeof err, "expected %u input words for %s, found %d", in->op->n_in, in->op->name, n);
            rc = cli_fail("eval", "%s:%lu: %s", path, lineno, err);  /* err may quote the line */
            break;
        }
        in->op->impl->eval(in, w, out, NULL);
        io_print_words(stdout, out, in->op->n_out);
    }
    if (f != stdin)
        fclose(f);
    fflush(stdout);
    return rc;
}

int cmd_eval(int argc, char **argv)
{
    cli_args a = {argc, argv, 1, "eval", false};
    const char *op_name = NULL, *ctrl = NULL, *param = NULL, *batch = NULL, *v;
    bool explain = false;
    const char *words[ISA_MAX_IN + 1];
    unsigned n_words = 0;
    while (a.i < argc && !a.failed) {
        if (cli_flag(&a, "--help")) {
            fputs(help, stdout);
            return 0;
        } else if (cli_flag(&a, "--explain"))
            explain = true;
        else if ((v = cli_value(&a, "--ctrl")))
            ctrl = v;
        else if ((v = cli_value(&a, "--param")))
            param = v;
        else if ((v = cli_value(&a, "--batch")))
            batch = v;
        else if (a.failed)
            break;
        else if (argv[a.i][0] == '-' && argv[a.i][1] == '-')
            return cli_fail("eval", "unknown option '%s'", argv[a.i]);
        else if (!op_name)
            op_name = argv[a.i++];
        else if (n_words <= ISA_MAX_IN)
            words[n_words++] = argv[a.i++];
        else
            return cli_fail("eval", "too many words");
    }
    if (a.failed)
        return EXIT_USAGE;
    if (!op_name) {
        fputs(help, stderr);
        return EXIT_USAGE;
    }
    isa_instance in;
    if (cli_instance("eval", op_name, ctrl, param, &in))
        return EXIT_USAGE;
    if (batch) {
        if (n_words)
            return cli_fail("eval", "give either --batch or words, not both");
        return run_batch(&in, batch);
    }
    if (n_words != in.op->n_in)
        return cli_fail("eval", "%s takes %u input words (%s), %u given", in.op->name, in.op->n_in,
                        in.op->n_in == 3 ? "s0 s1 s2 or as 'tiefuzz ops' lists" : "see 'tiefuzz ops'", n_words);
    uint32_t w[ISA_MAX_IN], out[ISA_MAX_OUT];
    char err[256];
    for (unsigned i = 0; i < n_words; i++) {
        uint32_t one[2];
        if (io_parse_words(words[i], one, 1, err, sizeof err) != 1)
            return cli_fail("eval", "word %u '%s': expected one hex word", i + 1, words[i]);
        w[i] = one[0];
    }
    if (explain)
        eng_explain(stdout, &in, w, NULL, "");
    in.op->impl->eval(&in, w, out, NULL);
    io_print_words(stdout, out, in.op->n_out);
    return 0;
}
