/* tiefuzz fit: which model-parameter values reproduce a set of results.
 * Results come from a file of tiles and the outputs measured elsewhere (a
 * GPU, the seed's V100 data); the tiles are the seed's directed probes plus
 * random tiles (--emit-probes prints them to run elsewhere). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "options.h"
#include "engine/compare.h"
#include "io/finding.h"
#include "io/tuple.h"

static const char help[] =
    "usage: tiefuzz fit OP --param NAME=LO..HI[,NAME=A|B...] --results FILE [--strict-nan]\n"
    "       tiefuzz fit OP --emit-probes [--probes-only] [--random N] [--seed N]\n"
    "FILE: one tile a line, 'INPUT WORDS -> OUTPUT WORDS' ('#' comments), e.g. made by running the emitted\n"
    "probes on a device.  Prints every parameter combination that reproduces every tile, at most 1,000,000\n"
    "combinations.  Any NaN matches any NaN unless --strict-nan (as in 'run').  On a terminal, progress goes\n"
    "to stderr; Ctrl-C stops with what was tried so far.\n"
    "Exit 0 when some combination fits, 1 when none does, 2 for bad usage or input.\n";

typedef struct {
    isa_param_id id;
    int values[256];
    unsigned n;
} axis;

/* One integer, or LO..HI with nothing else around ("1...3" and "1..3x" are
 * refused, not read as 1..3).  0, or -1. */
static int parse_int(const char *s, char **end, int *out)
{
    errno = 0;
    long x = strtol(s, end, 10);
    if (*end == s || errno || x < INT_MIN || x > INT_MAX)
        return -1;
    *out = (int)x;
    return 0;
}

static int parse_range(const char *v, int *lo, int *hi)
{
    char *end;
    if (parse_int(v, &end, lo))
        return -1;
    if (!*end) {
        *hi = *lo;
        return 0;
    }
    if (strncmp(end, "..", 2) || end[2] == '.' || end[2] == ' ' || parse_int(end + 2, &end, hi))
        return -1;
    return *end ? -1 : 0;
}

static int parse_axes(const isa_op *op, const char *text, axis *axes, unsigned *n_axes)
{
    char buf[512];
    if (strlen(text) >= sizeof buf)
        return cli_fail("fit", "--param: longer than %zu characters", sizeof buf - 1);
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
        for (unsigned i = 0; i + 1 < *n_axes; i++)
            if (axes[i].id == (isa_param_id)id)
                return cli_fail("fit", "--param: '%s' is given twice", tok);
        if (isa_params[id].integer) {
            int lo, hi;
            if (parse_range(v, &lo, &hi))
                return cli_fail("fit", "%s=%s: expected a whole number or LO..HI", tok, v);
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

typedef struct {
    uint32_t in[ISA_MAX_IN], out[ISA_MAX_OUT];
} sample;

/* The grid is evaluated in full on every tile: past this it is a mistake
 * (four 256-value ranges would be 2^32 combinations) rather than a search. */
#define FIT_MAX_COMBINATIONS 1000000u

static volatile sig_atomic_t fit_stop;
static void on_stop(int sig) { fit_stop = sig; }

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* Combination c of the grid: its parameters set in *in, its text in buf. */
static void combination(const isa_op *op, const axis *axes, unsigned n_axes, unsigned c, isa_instance *in, char *buf,
                        size_t n)
{
    isa_instance_default(in, op);
    int used = 0;
    for (unsigned i = 0; i < n_axes; i++) {
        int value = axes[i].values[c % axes[i].n];
        c /= axes[i].n;
        in->param[axes[i].id] = value;
        char vt[32];
        if ((size_t)used < n)  /* a full buffer truncates the text; n - used must not wrap */
            used += snprintf(buf + used, n - (size_t)used, "%s%s=%s", i ? " " : "", isa_params[axes[i].id].name,
                             isa_param_value_text(axes[i].id, value, vt, sizeof vt));
    }
}

static unsigned tiles_reproduced(const isa_op *op, const isa_instance *in, const sample *samples, unsigned n_samples,
                                 bool strict_nan)
{
    unsigned ok = 0;
    for (unsigned s = 0; s < n_samples; s++) {
        uint32_t out[ISA_MAX_OUT];
        op->impl->eval(in, samples[s].in, out, NULL);
        ok += eng_outputs_agree(op, out, samples[s].out, strict_nan);
    }
    return ok;
}

static uint64_t grid_size(const axis *axes, unsigned n_axes)
{
    uint64_t total = 1;
    for (unsigned i = 0; i < n_axes; i++)
        total *= axes[i].n;
    return total;
}

static int fit_grid(const isa_op *op, const axis *axes, unsigned n_axes, const sample *samples, unsigned n_samples,
                    bool strict_nan)
{
    uint64_t total = grid_size(axes, n_axes);
    /* Each result line reaches a pipe or file as it is found, so an
     * interrupted fit keeps what it printed. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct sigaction sa = {.sa_handler = on_stop}, old_int, old_term;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    bool tty = isatty(STDERR_FILENO);
    printf("%s: %u tiles, %llu parameter combinations%s\n", op->name, n_samples, (unsigned long long)total,
           strict_nan ? ", NaN payloads compared" : "");
    unsigned consistent = 0, best = 0, c;
    double next = now_s();  /* the first line at once: a short fit still shows one */
    for (c = 0; c < total && !fit_stop; c++) {
        isa_instance in;
        char text[256];
        combination(op, axes, n_axes, c, &in, text, sizeof text);
        unsigned ok = tiles_reproduced(op, &in, samples, n_samples, strict_nan);
        if (ok == n_samples) {
            if (tty)
                fputs("\r\033[K", stderr);
            printf("consistent: %s\n", text);
            consistent++;
        }
        best = ok > best ? ok : best;
        if (tty && now_s() >= next) {
            fprintf(stderr, "\r\033[Kfit: %u of %llu combinations, %u consistent", c + 1, (unsigned long long)total,
                    consistent);
            next = now_s() + 0.5;
        }
    }
    if (tty)
        fputs("\r\033[K", stderr);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (fit_stop) {
        printf("interrupted after %u of %llu combinations: %u consistent so far, the rest not tried\n", c,
               (unsigned long long)total, consistent);
        fflush(stdout);
        raise(fit_stop);  /* the old disposition: the caller sees the signal */
        return 130;
    }
    if (!consistent)
        printf("no combination reproduces every tile (the best reproduces %u of %u)\n", best, n_samples);
    else
        printf("%u of %llu combinations reproduce all %u tiles\n", consistent, (unsigned long long)total, n_samples);
    return consistent ? 0 : 1;
}

int cmd_fit(int argc, char **argv)
{
    cli_args a = {argc, argv, 1, "fit", false};
    const char *op_name = NULL, *grid = NULL, *results = NULL, *v;
    bool emit = false, probes_only = false, strict_nan = false;
    uint64_t random_tiles = 16, seed = 1;
    while (a.i < argc && !a.failed) {
        if (cli_flag(&a, "--help")) {
            fputs(help, stdout);
            return 0;
        } else if (cli_flag(&a, "--strict-nan"))
            strict_nan = true;
        else if (cli_flag(&a, "--emit-probes"))
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
        return EXIT_USAGE;
    if (!op_name || (!emit && (!grid || !results))) {
        fputs(help, stderr);
        return EXIT_USAGE;
    }
    const isa_op *op = isa_op_find(op_name);
    if (!op)
        return cli_fail("fit", "unknown op '%s'", op_name);
    if (!op->impl->probes)
        return cli_fail("fit", "%s: fit works on the tensor-core (mma.*) ops", op->name);
    if (emit) {
        static uint32_t tiles[512][ISA_MAX_IN];
        unsigned n = op->impl->probes(op, tiles, 512);
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
    unsigned n_axes = 0;
    if (parse_axes(op, grid, axes, &n_axes))
        return EXIT_USAGE;
    if (grid_size(axes, n_axes) > FIT_MAX_COMBINATIONS)
        return cli_fail("fit", "--param '%s': %llu parameter combinations, more than %u: narrow the ranges", grid,
                        (unsigned long long)grid_size(axes, n_axes), FIT_MAX_COMBINATIONS);
    /* The results: tiles and what the device returned. */
    char *buf, err[512];
    size_t len;
    if (io_read_file(results, 64u << 20, &buf, &len, err, sizeof err)) {
        fprintf(stderr, "tiefuzz fit: %s\n", err);
        return EXIT_USAGE;
    }
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
            return EXIT_USAGE;
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
            return EXIT_USAGE;
        }
        n_samples++;
    }
    free(buf);
    if (!n_samples) {
        free(samples);
        return cli_fail("fit", "%s: no tiles", results);
    }
    int rc = fit_grid(op, axes, n_axes, samples, n_samples, strict_nan);
    free(samples);
    return rc;
}
