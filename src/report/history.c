/* report/history: history.jsonl, one JSON object a night, appended by
 * scripts/nightly-report (format: doc/report.md).  The file outlives many
 * builds and may end in a line a killed night left half written, so the
 * reader takes what it can: each line that is not a complete version-1
 * record is reported with its file and line and left out, never fatal. */
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

static json_object *member(json_object *o, const char *key, json_type t)
{
    json_object *v;
    return o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, t) ? v : NULL;
}

static double number(json_object *o, const char *key)
{
    json_object *v;
    if (!o || !json_object_object_get_ex(o, key, &v))
        return NAN;
    if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
        return NAN;
    return json_object_get_double(v);
}

/* Parse one line; NULL with why in err when it is not one JSON value. */
static json_object *parse_line(const char *line, size_t len, bool ended, char *err, size_t errn)
{
    json_tokener *tok = json_tokener_new();
    if (!tok) {
        snprintf(err, errn, "out of memory");
        return NULL;
    }
    json_object *o = json_tokener_parse_ex(tok, line, (int)len);
    enum json_tokener_error e = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    while (o && end < len && strchr(" \t\r", line[end]))
        end++;
    if (o && e == json_tokener_success && end == len)
        return o;
    json_object_put(o);
    const char *what = e == json_tokener_continue ? "the record ends early"
                       : e != json_tokener_success ? json_tokener_error_desc(e) : "text after the record";
    if (!ended)
        snprintf(err, errn, "truncated last line (no end of line: %s; a night killed while writing it?)", what);
    else
        snprintf(err, errn, "not JSON (%s at byte %zu)", what, end + 1);
    return NULL;
}

/* The fields every version-1 line has; NULL when all are there, else what is wrong. */
static const char *missing_field(json_object *o, char *buf, size_t n)
{
    if (!json_object_is_type(o, json_type_object))
        return "not a JSON object";
    json_object *v = member(o, "version", json_type_int);
    if (!v)
        return "no \"version\" field (an integer)";
    if (json_object_get_int64(v) != REP_HISTORY_VERSION) {
        snprintf(buf, n, "version %lld, and this reader reads version %d", (long long)json_object_get_int64(v),
                 REP_HISTORY_VERSION);
        return buf;
    }
    if (!member(o, "date", json_type_string))
        return "missing field \"date\" (a string)";
    if (!member(o, "exit_status", json_type_int))
        return "missing field \"exit_status\" (an integer)";
    json_object *ops = member(o, "ops", json_type_object);
    if (!ops)
        return "missing field \"ops\" (an object from op name to its counts)";
    json_object_object_foreach(ops, name, op) {
        if (!json_object_is_type(op, json_type_object)) {
            snprintf(buf, n, "op \"%.100s\" is not an object", name);
            return buf;
        }
    }
    return NULL;
}

static void read_ops(json_object *ops, rep_hist_night *h)
{
    h->ops = calloc((size_t)json_object_object_length(ops) + 1, sizeof *h->ops);
    json_object_object_foreach(ops, name, o) {
        if (!h->ops)
            return;
        rep_hist_op *x = &h->ops[h->n_ops++];
        x->name = rep_strdup(name);
        x->cases = number(o, "cases");
        x->cases_per_s = number(o, "cases_per_s");
        x->unknown = number(o, "new");
        x->known = number(o, "known");
        x->cells = number(o, "cells");
    }
}

static void read_targets(json_object *targets, rep_hist_night *h)
{
    if (!targets)
        return;
    h->targets = calloc((size_t)json_object_object_length(targets) + 1, sizeof *h->targets);
    json_object_object_foreach(targets, name, t) {
        if (!h->targets)
            return;
        rep_hist_target *x = &h->targets[h->n_targets++];
        x->name = rep_strdup(name);
        x->corpus = number(t, "corpus");
        x->runs = number(t, "runs");
        x->crashes = number(t, "crashes");
    }
}

static rep_hist_night *append(rep_history *h)
{
    rep_hist_night *grown = realloc(h->nights, (h->n + 1) * sizeof *h->nights);
    if (!grown)
        return NULL;
    h->nights = grown;
    memset(&h->nights[h->n], 0, sizeof *h->nights);
    return &h->nights[h->n++];
}

static void add_record(rep_history *h, json_object *o)
{
    rep_hist_night *x = append(h);
    if (!x)
        return;
    x->date = rep_strdup(json_object_get_string(member(o, "date", json_type_string)));
    json_object *commit = member(o, "commit", json_type_string);
    x->commit = commit ? rep_strdup(json_object_get_string(commit)) : NULL;
    x->exit_status = (int)json_object_get_int64(member(o, "exit_status", json_type_int));
    x->new_findings = number(o, "new_findings");
    x->crashes = number(o, "crashes");
    read_ops(member(o, "ops", json_type_object), x);
    read_targets(member(o, "fuzz_targets", json_type_object), x);
}

void rep_history_read(const char *path, rep_history *h, FILE *warn)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;   /* no history yet: the first night */
    char *line = NULL, err[256], buf[160];
    size_t cap = 0;
    ssize_t got;
    for (unsigned long no = 1; (got = getline(&line, &cap, f)) > 0; no++) {
        size_t len = (size_t)got;
        bool ended = line[len - 1] == '\n';
        len -= ended;
        if (strspn(line, " \t\r") == len)
            continue;   /* a blank line holds no night */
        json_object *o = parse_line(line, len, ended, err, sizeof err);
        const char *why = o ? missing_field(o, buf, sizeof buf) : err;
        if (why) {
            fprintf(warn, "tiefuzz report: %s:%lu: skipped: %s\n", path, no, why);
            h->skipped_lines++;
        } else {
            add_record(h, o);
        }
        json_object_put(o);
    }
    if (ferror(f)) {
        fprintf(warn, "tiefuzz report: %s: read error; the history after it is left out\n", path);
        h->skipped_lines++;
    }
    free(line);
    fclose(f);
}

static double per_second(const rep_op *o)
{
    return o->seconds > 0 ? (double)o->cases / o->seconds : NAN;
}

void rep_history_add_night(rep_history *h, const rep_night *n)
{
    rep_hist_night *x = append(h);
    if (!x)
        return;
    x->date = rep_strdup(n->date ? n->date : "");
    x->commit = rep_strdup(n->commit);
    x->exit_status = n->exit_status;
    x->new_findings = n->new_findings;
    x->crashes = n->n_crashes;
    x->ops = calloc(n->n_ops + 1, sizeof *x->ops);
    for (unsigned i = 0; i < n->n_ops && x->ops; i++, x->n_ops++) {
        const rep_op *o = &n->ops[i];
        x->ops[i] = (rep_hist_op){rep_strdup(o->op), (double)o->cases, per_second(o), (double)o->unknown,
                                  (double)o->known, o->has_cells ? (double)o->cells : NAN};
    }
    x->targets = calloc(n->n_targets + 1, sizeof *x->targets);
    for (unsigned i = 0; i < n->n_targets && x->targets; i++, x->n_targets++) {
        const rep_target *t = &n->targets[i];
        unsigned crashes = 0;
        for (unsigned c = 0; c < n->n_crashes; c++)
            crashes += n->crashes[c].target && t->name && !strcmp(n->crashes[c].target, t->name);
        x->targets[i] = (rep_hist_target){rep_strdup(t->name), (double)t->corpus_after, (double)t->runs, crashes};
    }
}

bool rep_history_has_date(const rep_history *h, const char *date)
{
    for (unsigned i = 0; i < h->n; i++)
        if (date && h->nights[i].date && !strcmp(h->nights[i].date, date))
            return true;
    return false;
}

void rep_history_free(rep_history *h)
{
    for (unsigned i = 0; i < h->n; i++) {
        rep_hist_night *x = &h->nights[i];
        for (unsigned k = 0; k < x->n_ops; k++)
            free(x->ops[k].name);
        for (unsigned k = 0; k < x->n_targets; k++)
            free(x->targets[k].name);
        free(x->ops);
        free(x->targets);
        free(x->date);
        free(x->commit);
    }
    free(h->nights);
    memset(h, 0, sizeof *h);
}
