/* tiefuzz fit: which model-parameter values reproduce a set of results.
 * Results come from a file of tiles and the outputs measured elsewhere (a
 * GPU, the seed's V100 data); the tiles are the seed's directed probes plus
 * random tiles (--emit-probes prints them to run elsewhere). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"
#include "io/finding.h"
#include "io/tuple.h"
#include "isa/mma.h"

static const char help[] =
    "usage: tiefuzz fit OP --param NAME=LO..HI[,NAME=A|B...] --results FILE\n"
    "       tiefuzz fit OP --emit-probes [--probes-only] [--random N] [--seed N]\n"
    "FILE: one tile a line, 'INPUT WORDS -> OUTPUT WORDS' ('#' comments), e.g. made by running the emitted\n"
    "probes on a device.  Prints every parameter combination that reproduces every tile.\n"
    "Exit 0 when some combination fits, 1 when none does, 2 for bad usage or input.\n";

typedef struct {
    isa_param_id id;
    int values[256];
    unsigned n;
} axis;

static int parse_axes(const isa_op *op, const char *text, axis *axes, unsigned *n_axes)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    *n_axes = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || *n_axes == 4)
            return cli_fail("fit", "--param '%s': expected NAME=LO..HI or NAME=A|B (at most 4 names)", tok);
        *eq = 0;
        int id = -1;
        for (int p = 0; p < PARAM_COUNT; p++)
            if (!strcmp(isa_params[p].name, tok) && (op->params & (1u << p)))
                id = p;
        if (id < 0)
            return cli_fail("fit", "%s has no model parameter '%s'", op->name, tok);
        axis *a = &axes[(*n_axes)++];
        a->id = (isa_param_id)id;
        a->n = 0;
        const char *v = eq + 1;
        if (isa_params[id].integer) {
            int lo, hi;
            if (sscanf(v, "%d..%d", &lo, &hi) != 2) {
                if (sscanf(v, "%d", &lo) != 1)
                    return cli_fail("fit", "%s: expected LO..HI", tok);
                hi = lo;
            }
            if (lo > hi || lo < isa_params[id].lo || hi > isa_params[id].hi || hi - lo >= 256)
                return cli_fail("fit", "%s=%s: out of range (%d..%d, at most 256 values)", tok, v,
                                isa_params[id].lo, isa_params[id].hi);
            for (int x = lo; x <= hi; x++)
                a->values[a->n++] = x;
        } else {
            char list[256];
            snprintf(list, sizeof list, "%s", v);
            for (char *s2 = NULL, *name = strtok_r(list, "|", &s2); name; name = strtok_r(NULL, "|", &s2)) {
                unsigned k;
                for (k = 0; k < isa_params[id].count && strcmp(isa_params[id].values[k], name); k++)
                    ;
                if (k == isa_params[id].count)
                    return cli_fail("fit", "%s: unknown value '%s'", tok, name);
                a->values[a->n++] = (int)k;
            }
        }
    }
    return 0;
}

int cmd_fit(int argc, char **argv)
{
    cli_args a = {argc, argv, 1, "fit", false};
    const char *op_name = NULL, *grid = NULL, *results = NULL, *v;
    bool emit = false, probes_only = false;
    uint64_t random_tiles = 16, seed = 1;
    while (a.i < argc && !a.failed) {
        if (cli_flag(&a, "--help")) {
            fputs(help, stdout);
            return 0;
        } else if (cli_flag(&a, "--emit-probes"))
            emit = true;
        else if (cli_flag(&a, "--probes-only"))
            probes_only = true;
        else if ((v = cli_value(&a, "--param")))
            grid = v;
        else if ((v = cli_value(&a, "--results")))
            results = v;
        else if ((v = cli_value(&a, "--device")))
            return cli_fail("fit", "--device %s: this op has no device lowering yet; run the probes elsewhere "
                            "(--emit-probes) and give --results", v);
        else if ((v = cli_value(&a, "--random"))) {
            if (!cli_parse_u64(v, &random_tiles) || random_tiles > 4096)
                return cli_fail("fit", "--random '%s': expected 0 to 4096", v);
        } else if ((v = cli_value(&a, "--seed"))) {
            if (!cli_parse_u64(v, &seed))
                return cli_fail("fit", "--seed '%s': expected a number", v);
        } else if (a.failed)
            break;
        else if (argv[a.i][0] == '-')
            return cli_fail("fit", "unknown option '%s'", argv[a.i]);
        else if (!op_name)
            op_name = argv[a.i++];
        else
            return cli_fail("fit", "unexpected argument '%s'", argv[a.i]);
    }
    if (a.failed)
        return 2;
    if (!op_name || (!emit && (!grid || !results))) {
        fputs(help, stderr);
        return 2;
    }
    const isa_op *op = isa_op_find(op_name);
    if (!op)
        return cli_fail("fit", "unknown op '%s'", op_name);
    if (strcmp(op->family, "mma"))
        return cli_fail("fit", "%s: fit works on the tensor-core (mma.*) ops", op->name);
    if (emit) {
        static uint32_t tiles[512][ISA_MAX_IN];
        unsigned n = mma_probes(op, tiles, 512);
        for (unsigned i = 0; i < n; i++)
            io_print_words(stdout, tiles[i], op->n_in);
        gen_rng r = {seed};
        for (unsigned t = 0; !probes_only && t < random_tiles; t++) {
            uint32_t w[ISA_MAX_IN];
            for (unsigned i = 0; i < op->n_in; i++)
                w[i] = (uint32_t)gen_next(&r);
            io_print_words(stdout, w, op->n_in);
        }
        return 0;
    }
    axis axes[4];
    unsigned n_axes;
    if (parse_axes(op, grid, axes, &n_axes))
        return 2;
    /* The results: tiles and what the device returned. */
    char *buf, err[512];
    size_t len;
    if (io_read_file(results, 64u << 20, &buf, &len, err, sizeof err)) {
        fprintf(stderr, "tiefuzz fit: %s\n", err);
        return 2;
    }
    typedef struct { uint32_t in[ISA_MAX_IN], out[ISA_MAX_OUT]; } sample;
    sample *samples = NULL;
    unsigned n_samples = 0, line = 0;
    for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        line++;
        char *arrow = strstr(l, "->");
        if (!arrow) {
            uint32_t dummy[2];
            if (io_parse_words(l, dummy, 0, err, sizeof err) == 0)
                continue;  /* blank or comment */
            fprintf(stderr, "tiefuzz fit: %s:%u: expected 'INPUT WORDS -> OUTPUT WORDS'\n", results, line);
            free(buf);
            free(samples);
            return 2;
        }
        *arrow = 0;
        samples = realloc(samples, (n_samples + 1) * sizeof *samples);
        sample *s = &samples[n_samples];
        int ni = io_parse_words(l, s->in, ISA_MAX_IN, err, sizeof err);
        int no = ni >= 0 ? io_parse_words(arrow + 2, s->out, ISA_MAX_OUT, err, sizeof err) : -1;
        if (ni != op->n_in || no != op->n_out) {
            fprintf(stderr, "tiefuzz fit: %s:%u: %s\n", results, line,
                    ni < 0 || no < 0 ? err : "the word counts do not fit the op (see 'tiefuzz ops')");
            free(buf);
            free(samples);
            return 2;
        }
        n_samples++;
    }
    free(buf);
    if (!n_samples) {
        free(samples);
        return cli_fail("fit", "%s: no tiles", results);
    }
    /* Every combination of the axes. */
    unsigned total = 1;
    for (unsigned i = 0; i < n_axes; i++)
        total *= axes[i].n;
    unsigned consistent = 0, best = 0;
    char line_buf[256];
    printf("%s: %u tiles, %u parameter combinations\n", op->name, n_samples, total);
    for (unsigned c = 0; c < total; c++) {
        isa_instance in;
        isa_instance_default(&in, op);
        unsigned rest = c;
        int used = 0;
        for (unsigned i = 0; i < n_axes; i++) {
            int value = axes[i].values[rest % axes[i].n];
            rest /= axes[i].n;
            in.param[axes[i].id] = value;
            char vt[32];
            used += snprintf(line_buf + used, sizeof line_buf - (size_t)used, "%s%s=%s", i ? " " : "",
                             isa_params[axes[i].id].name, isa_param_value_text(axes[i].id, value, vt, sizeof vt));
        }
        unsigned ok = 0;
        for (unsigned s = 0; s < n_samples; s++) {
            uint32_t out[ISA_MAX_OUT];
            op->impl->eval(&in, samples[s].in, out, NULL);
            ok += memcmp(out, samples[s].out, op->n_out * 4) == 0;
        }
        if (ok == n_samples) {
            printf("consistent: %s\n", line_buf);
            consistent++;
        }
        if (ok > best)
            best = ok;
    }
    if (!consistent)
        printf("no combination reproduces every tile (the best reproduces %u of %u)\n", best, n_samples);
    else
        printf("%u of %u combinations reproduce all %u tiles\n", consistent, total, n_samples);
    free(samples);
    return consistent ? 0 : 1;
}
