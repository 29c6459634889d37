/* tiefuzz report: the nightly report page from what runs and nights left
 * behind (src/report does the reading and the rendering). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "options.h"
#include "io/json.h"
#include "report/report.h"

static const char help[] =
    "usage: tiefuzz report RUN.json|NIGHTLY-DIR... [-o FILE]\n"
    "Writes one self-contained HTML page (default report.html): the verdict, per op cases, rates,\n"
    "disagreements and coverage, trend plots across nights, findings with the commands that\n"
    "reproduce and export them, and crashes.  Inputs are 'tiefuzz run --json' files and\n"
    "scripts/nightly output directories (summary.json, run.json, history.jsonl), oldest first:\n"
    "the last one is the night shown in detail; each adds its history (a nightly directory's\n"
    "history.jsonl, or one point for a run) to the trends.  A malformed history line is reported\n"
    "on stderr (file:line) and skipped.  Format of history.jsonl: doc/report.md.\n"
    "Exit: 0 written, 2 bad usage or an input that is not a run or a nightly directory,\n"
    "4 the page could not be written.\n";

#define MAX_INPUTS 256

typedef struct {
    const rep_night *night;
    const rep_history *history;
} page_args;

static void write_page(FILE *f, void *ctx)
{
    const page_args *p = ctx;
    rep_html_page(f, p->night, p->history);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Read one input, and add what it says about earlier nights and its own to h. */
static int read_input(const char *path, rep_night *night, rep_history *h)
{
    char err[1024];
    bool dir = is_dir(path);
    int rc = dir ? rep_night_read_nightly(path, night, err, sizeof err)
                 : rep_night_read_run(path, night, err, sizeof err);
    if (rc) {
        fprintf(stderr, "tiefuzz report: %s\n", err);
        return EXIT_USAGE;
    }
    if (dir) {
        char hist[4096];
        snprintf(hist, sizeof hist, "%s/history.jsonl", path);
        rep_history_read(hist, h, stderr);
    }
    /* scripts/nightly appends the night's line before it reports; a run has none. */
    if (!rep_history_has_date(h, night->date))
        rep_history_add_night(h, night);
    return 0;
}

static int by_date(const void *a, const void *b)
{
    const rep_hist_night *x = a, *y = b;
    return strcmp(x->date ? x->date : "", y->date ? y->date : "");
}

static int parse_args(int argc, char **argv, const char **inputs, unsigned *n, const char **out)
{
    cli_args a = {argc, argv, 1, "report", false};
    while (a.i < argc) {
        const char *v;
        if ((v = cli_value(&a, "-o")) || (v = cli_value(&a, "--output")))
            *out = v;
        else if (a.failed)
            return EXIT_USAGE;
        else if (cli_flag(&a, "--help") || cli_flag(&a, "-h")) {
            fputs(help, stdout);
            return -1;
        } else if (argv[a.i][0] == '-' && argv[a.i][1])
            return cli_fail("report", "unknown option '%s'", argv[a.i]);
        else if (*n == MAX_INPUTS)
            return cli_fail("report", "too many inputs (at most %d)", MAX_INPUTS);
        else
            inputs[(*n)++] = argv[a.i++];
    }
    if (a.failed)
        return EXIT_USAGE;
    if (!*n)
        return cli_fail("report", "no input: give a 'tiefuzz run --json' file or a nightly directory");
    return 0;
}

int cmd_report(int argc, char **argv)
{
    const char *inputs[MAX_INPUTS], *out = "report.html";
    unsigned n = 0;
    int rc = parse_args(argc, argv, inputs, &n, &out);
    if (rc)
        return rc < 0 ? 0 : rc;
    rep_history h = {0};
    rep_night night = {0};
    for (unsigned i = 0; i < n && !rc; i++) {
        rep_night_free(&night);
        rc = read_input(inputs[i], &night, &h);
    }
    if (!rc) {
        qsort(h.nights, h.n, sizeof *h.nights, by_date);
        char findings[4096];
        snprintf(findings, sizeof findings, "%s/findings", inputs[n - 1]);
        rep_findings_load(&night, is_dir(inputs[n - 1]) ? findings : NULL);
        page_args p = {&night, &h};
        if (io_write_atomic(out, write_page, &p)) {
            fprintf(stderr, "tiefuzz report: cannot write %s (%s)\n", out, strerror(errno));
            rc = EXIT_INTERNAL;
        }
    }
    rep_night_free(&night);
    rep_history_free(&h);
    return rc;
}
