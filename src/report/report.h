/* report: the nightly report page (tiefuzz report).  Reads what a run or a
 * night left behind (a run --json file, a nightly directory's summary.json,
 * run.json and history.jsonl) into the structs below, and renders them as
 * one self-contained HTML page.  Sits above io (it reads files) and below
 * cli; it never runs a campaign.  The formats are in doc/report.md. */
#ifndef TIEFUZZ_REPORT_H
#define TIEFUZZ_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The version of a history.jsonl line this reader understands. */
#define REP_HISTORY_VERSION 1
/* Rounding cells in the space the engine counts (isa/classify.h ISA_CELLS). */
#define REP_CELLS 192

typedef struct {
    char *name;
    uint64_t generated, verified;
    double rate;
} rep_class;

typedef struct {
    char *op;
    uint64_t cases, disagreements;
    uint64_t unknown, known;      /* disagreement cases: not covered / covered by a known rule */
    unsigned new_signatures;      /* findings of this op no earlier run had */
    double seconds;
    bool has_cells;
    unsigned cells;
    bool has_cell_map;            /* the optional per-cell list (doc/report.md) */
    uint64_t cell_map[(REP_CELLS + 63) / 64];
    bool has_pairs;
    unsigned pairs_reached, pairs_legal;
    char *skipped;                /* why it was skipped or stopped, or NULL */
    bool stopped, not_run;
    rep_class *classes;
    unsigned n_classes;
} rep_op;

typedef struct {
    char *op, *kind, *status, *signature, *reason, *file;
    char *verdict, *verdict_cause, *verdict_reason;   /* triage's, where it has judged (else NULL) */
    uint64_t count;
    bool known;
    char *explanation;            /* the finding file's "| " lines, or NULL */
    char *unreadable;             /* why the finding file could not be read, or NULL */
    int64_t mtime;                /* the finding file's, for newest first (0: unknown) */
} rep_finding;

typedef struct {
    char *target, *file, *kind, *repro;
} rep_crash;

typedef struct {
    char *name;
    int status;
    uint64_t runs, corpus_before, corpus_after;
} rep_target;

/* One night (or one run): what the page shows in detail. */
typedef struct {
    char *source;                 /* the path it was read from */
    char *date, *commit, *device, *lowering;
    bool has_seed;
    uint64_t seed;
    bool complete, interrupted;
    int exit_status;
    bool exit_derived;            /* a run --json holds no exit status: derived from its contents */
    rep_op *ops;
    unsigned n_ops;
    rep_finding *findings;
    unsigned n_findings;
    rep_crash *crashes;
    unsigned n_crashes;
    rep_target *targets;
    unsigned n_targets;
    char **failed_steps;
    unsigned n_failed_steps;
    unsigned new_findings;        /* findings new tonight (a nightly's new_findings; a run's NEW) */
} rep_night;

/* One night's line of history.jsonl (absent numbers are NaN). */
typedef struct {
    char *name;
    double cases, cases_per_s, unknown, known, cells;
} rep_hist_op;

typedef struct {
    char *name;
    double corpus, runs, crashes;
} rep_hist_target;

typedef struct {
    char *date, *commit;
    int exit_status;
    double new_findings, crashes;
    rep_hist_op *ops;
    unsigned n_ops;
    rep_hist_target *targets;
    unsigned n_targets;
} rep_hist_night;

typedef struct {
    rep_hist_night *nights;       /* oldest first */
    unsigned n;
    unsigned skipped_lines;       /* malformed lines reported and left out */
} rep_history;

/* model.c: a run --json file, or a nightly directory (summary.json, with
 * run.json beside it for the per-op detail).  0, or -1 with err. */
int rep_night_read_run(const char *path, rep_night *out, char *err, size_t errn);
int rep_night_read_nightly(const char *dir, rep_night *out, char *err, size_t errn);
void rep_night_free(rep_night *n);

/* finding_text.c: fill each finding's explanation and mtime from its file
 * (a missing or corrupt file is noted in `unreadable`, not an error), then
 * sort them newest first.  A file no longer at its recorded path is looked
 * for by name in findings_dir (a nightly directory copied elsewhere), when
 * that is not NULL. */
void rep_findings_load(rep_night *n, const char *findings_dir);

/* history.c: append the lines of a history.jsonl file.  A missing file is
 * no history.  Each malformed line is reported on `warn` as
 * "PATH:LINE: skipped: WHAT" and left out; never an error. */
void rep_history_read(const char *path, rep_history *h, FILE *warn);
/* The history point of a night (for a run, or a night its file lacks). */
void rep_history_add_night(rep_history *h, const rep_night *n);
/* Whether a night of that date is in h already (a night's own line). */
bool rep_history_has_date(const rep_history *h, const char *date);
void rep_history_free(rep_history *h);

/* text.c: HTML-escaped text (& < > " ' and control bytes). */
void rep_escape(FILE *f, const char *s);
char *rep_strdup(const char *s);

/* svg.c: a line plot, inline SVG with <title>, <desc>, axes and a legend.
 * values[s * n_x + i] is series s at night i (NaN: no value). */
typedef struct {
    const char *id, *title, *desc, *y_label;
    const char *const *x_labels;
    unsigned n_x;
    const char *const *series_names;
    unsigned n_series;
    const double *values;
} rep_plot;
void rep_svg_plot(FILE *f, const rep_plot *p);
/* A sparkline (one op's quantity across nights, NaN where missing) for a table cell,
 * labelled with what it shows and its first and last values. */
void rep_svg_sparkline(FILE *f, const double *v, unsigned n, const char *what);
/* A 192-cell map: reached cells filled, the others empty. */
void rep_svg_cell_map(FILE *f, const char *op, const uint64_t *cells);

/* html.c: the whole page. */
void rep_html_page(FILE *f, const rep_night *night, const rep_history *h);

#endif
