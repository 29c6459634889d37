/* report/model: a run --json file or a nightly directory into a rep_night.
 * Fields are read by name and type; one that is absent or of another type
 * is left unknown rather than refused, so a report of an older or newer run
 * still renders what it can.  Only a file that is not JSON at all, or whose
 * top level is not an object, is an error. */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "io/finding.h"
#include "report.h"

/* Inputs this big are not a run or a summary. */
#define REP_JSON_MAX_BYTES (256u << 20)

static json_object *parse_file(const char *path, char *err, size_t errn)
{
    char *buf;
    size_t len;
    if (io_read_file(path, REP_JSON_MAX_BYTES, &buf, &len, err, errn))
        return NULL;
    json_tokener *tok = json_tokener_new();
    if (!tok) {
        snprintf(err, errn, "%s: out of memory", path);
        free(buf);
        return NULL;
    }
    json_object *o = json_tokener_parse_ex(tok, buf, (int)len);
    enum json_tokener_error e = json_tokener_get_error(tok);
    if (!o || e != json_tokener_success) {
        snprintf(err, errn, "%s: not JSON (%s at byte %zu)", path,
                 e == json_tokener_continue ? "unexpected end" : json_tokener_error_desc(e),
                 json_tokener_get_parse_end(tok));
        json_object_put(o);
        o = NULL;
    } else if (!json_object_is_type(o, json_type_object)) {
        snprintf(err, errn, "%s: the top level is not a JSON object", path);
        json_object_put(o);
        o = NULL;
    }
    json_tokener_free(tok);
    free(buf);
    return o;
}

static json_object *member(json_object *o, const char *key, json_type t)
{
    json_object *v;
    return o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, t) ? v : NULL;
}

/* The length of an array; 0 for anything else (json-c asserts on a non-array). */
static size_t length_of(json_object *a)
{
    return a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

static char *str_of(json_object *o, const char *key)
{
    json_object *v = member(o, key, json_type_string);
    return v ? rep_strdup(json_object_get_string(v)) : NULL;
}

static bool num_of(json_object *o, const char *key, double *out)
{
    json_object *v;
    if (!o || !json_object_object_get_ex(o, key, &v))
        return false;
    if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
        return false;
    *out = json_object_get_double(v);
    return true;
}

static uint64_t uint_of(json_object *o, const char *key)
{
    json_object *v = member(o, key, json_type_int);
    if (!v)
        return 0;
    int64_t i = json_object_get_int64(v);
    return i < 0 ? json_object_get_uint64(v) : (uint64_t)i;
}

/* A signed integer (an exit status may be -1: scripts/nightly-report's "unknown"); dflt when absent. */
static int int_of(json_object *o, const char *key, int dflt)
{
    json_object *v = member(o, key, json_type_int);
    return v ? (int)json_object_get_int64(v) : dflt;
}

static bool bool_of(json_object *o, const char *key)
{
    json_object *v = member(o, key, json_type_boolean);
    return v && json_object_get_boolean(v);
}

static void read_classes(json_object *classes, rep_op *op)
{
    if (!classes)
        return;
    op->classes = calloc((size_t)json_object_object_length(classes) + 1, sizeof *op->classes);
    json_object_object_foreach(classes, name, c) {
        if (!op->classes || !json_object_is_type(c, json_type_object))
            continue;
        rep_class *k = &op->classes[op->n_classes++];
        k->name = rep_strdup(name);
        k->generated = uint_of(c, "generated");
        k->verified = uint_of(c, "verified");
        k->rate = NAN;
        num_of(c, "rate", &k->rate);
    }
}

/* The optional per-cell list: "rounding_cells_reached": [cell, ...]. */
static void read_cell_map(json_object *list, rep_op *op)
{
    if (!list)
        return;
    op->has_cell_map = true;
    for (size_t i = 0; i < length_of(list); i++) {
        json_object *c = json_object_array_get_idx(list, i);
        int64_t cell = json_object_is_type(c, json_type_int) ? json_object_get_int64(c) : -1;
        if (cell >= 0 && cell < REP_CELLS)
            op->cell_map[cell / 64] |= UINT64_C(1) << (cell % 64);
    }
}

static void read_op(json_object *o, rep_op *op)
{
    op->op = str_of(o, "op");
    if (!op->op)
        op->op = rep_strdup("(unnamed op)");
    op->cases = uint_of(o, "cases");
    op->disagreements = uint_of(o, "disagreements");
    num_of(o, "seconds", &op->seconds);
    op->skipped = str_of(o, "skipped");
    op->stopped = bool_of(o, "stopped");
    op->not_run = bool_of(o, "not_run");
    op->has_cells = member(o, "rounding_cells", json_type_int) != NULL;
    op->cells = (unsigned)uint_of(o, "rounding_cells");
    json_object *pairs = member(o, "control_pairs", json_type_object);
    op->pairs_legal = (unsigned)uint_of(pairs, "legal");
    op->pairs_reached = (unsigned)uint_of(pairs, "reached");
    op->has_pairs = op->pairs_legal > 0;
    read_classes(member(o, "classes", json_type_object), op);
    read_cell_map(member(o, "rounding_cells_reached", json_type_array), op);
}

static void read_ops(json_object *list, rep_night *n)
{
    size_t k = length_of(list);
    n->ops = calloc(k + 1, sizeof *n->ops);
    for (size_t i = 0; i < k && n->ops; i++) {
        json_object *o = json_object_array_get_idx(list, i);
        if (json_object_is_type(o, json_type_object))
            read_op(o, &n->ops[n->n_ops++]);
    }
}

static rep_op *op_named(rep_night *n, const char *name)
{
    for (unsigned i = 0; i < n->n_ops; i++)
        if (name && !strcmp(n->ops[i].op, name))
            return &n->ops[i];
    return NULL;
}

static void read_finding(json_object *o, rep_finding *f)
{
    f->op = str_of(o, "op");
    f->kind = str_of(o, "kind");
    f->status = str_of(o, "status");
    f->signature = str_of(o, "signature");
    f->reason = str_of(o, "reason");
    f->verdict = str_of(o, "verdict");   /* set by triage, where it has judged */
    f->verdict_cause = str_of(o, "verdict_cause");
    f->verdict_reason = str_of(o, "verdict_reason");
    f->file = str_of(o, "file");
    f->count = uint_of(o, "count");
    f->known = bool_of(o, "known");
}

/* The findings, and what they say per op: cases covered by a known rule or
 * not, and the signatures no earlier run had (status NEW). */
static void read_findings(json_object *list, rep_night *n)
{
    size_t k = length_of(list);
    n->findings = calloc(k + 1, sizeof *n->findings);
    for (size_t i = 0; i < k && n->findings; i++) {
        json_object *o = json_object_array_get_idx(list, i);
        if (!json_object_is_type(o, json_type_object))
            continue;
        rep_finding *f = &n->findings[n->n_findings++];
        read_finding(o, f);
        bool is_new = f->status && !strcmp(f->status, "NEW");
        n->new_findings += is_new;
        rep_op *op = op_named(n, f->op);
        if (!op)
            continue;
        *(f->known ? &op->known : &op->unknown) += f->count;
        op->new_signatures += is_new;
    }
}

/* A run --json has no exit status: the one tiefuzz run gives for what it
 * holds (README, Exit status), validation and audit errors aside. */
static int derived_exit(const rep_night *n)
{
    bool unknown = false, stopped = false;
    for (unsigned i = 0; i < n->n_ops; i++) {
        unknown |= n->ops[i].unknown > 0;
        stopped |= n->ops[i].stopped;
    }
    return stopped ? 3 : unknown ? 1 : !n->complete ? 5 : 0;
}

static char *mtime_date(const char *path)
{
    struct stat st;
    char buf[32];
    struct tm tm;
    time_t t = stat(path, &st) == 0 ? st.st_mtime : time(NULL);
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S+00:00", gmtime_r(&t, &tm));
    return rep_strdup(buf);
}

static void fill_from_run(json_object *run, rep_night *n)
{
    n->device = str_of(member(run, "device", json_type_object), "name");
    n->lowering = str_of(run, "lowering");
    n->has_seed = member(run, "seed", json_type_int) != NULL;
    n->seed = uint_of(run, "seed");
    n->complete = member(run, "complete", json_type_boolean) ? bool_of(run, "complete") : true;
    n->interrupted = bool_of(run, "interrupted");
    read_ops(member(run, "ops", json_type_array), n);
    read_findings(member(run, "findings", json_type_array), n);
}

int rep_night_read_run(const char *path, rep_night *out, char *err, size_t errn)
{
    memset(out, 0, sizeof *out);
    json_object *run = parse_file(path, err, errn);
    if (!run)
        return -1;
    if (!member(run, "ops", json_type_array)) {
        snprintf(err, errn, "%s: no \"ops\" list: not a tiefuzz run --json file", path);
        json_object_put(run);
        return -1;
    }
    out->source = rep_strdup(path);
    out->date = mtime_date(path);
    fill_from_run(run, out);
    out->exit_status = derived_exit(out);
    out->exit_derived = true;
    json_object_put(run);
    return 0;
}

static void read_targets(json_object *list, rep_night *n)
{
    size_t k = length_of(list), crashes = 0;
    for (size_t i = 0; i < k; i++)
        crashes += length_of(member(json_object_array_get_idx(list, i), "crashes", json_type_array));
    n->targets = calloc(k + 1, sizeof *n->targets);
    n->crashes = calloc(crashes + 1, sizeof *n->crashes);
    for (size_t i = 0; i < k && n->targets && n->crashes; i++) {
        json_object *t = json_object_array_get_idx(list, i);
        rep_target *r = &n->targets[n->n_targets++];
        r->name = str_of(t, "name");
        r->status = int_of(t, "status", -1);
        r->runs = uint_of(t, "runs");
        r->corpus_before = uint_of(t, "corpus_before");
        r->corpus_after = uint_of(t, "corpus_after");
        json_object *cl = member(t, "crashes", json_type_array);
        for (size_t c = 0; c < length_of(cl); c++) {
            json_object *x = json_object_array_get_idx(cl, c);
            rep_crash *cr = &n->crashes[n->n_crashes++];
            cr->target = rep_strdup(r->name);
            cr->file = str_of(x, "file");
            cr->kind = str_of(x, "kind");
            cr->repro = str_of(x, "repro");
        }
    }
}

static void read_failed_steps(json_object *list, rep_night *n)
{
    size_t k = length_of(list);
    n->failed_steps = calloc(k + 1, sizeof *n->failed_steps);
    for (size_t i = 0; i < k && n->failed_steps; i++) {
        json_object *s = json_object_array_get_idx(list, i);
        if (json_object_is_type(s, json_type_string))
            n->failed_steps[n->n_failed_steps++] = rep_strdup(json_object_get_string(s));
    }
}

int rep_night_read_nightly(const char *dir, rep_night *out, char *err, size_t errn)
{
    memset(out, 0, sizeof *out);
    char path[4096];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    json_object *s = parse_file(path, err, errn);
    if (!s)
        return -1;
    out->source = rep_strdup(dir);
    json_object *campaign = member(s, "campaign", json_type_object);
    /* run.json has the per-op detail (class rates) and every finding; the
     * summary alone has the ops' counts. */
    snprintf(path, sizeof path, "%s/run.json", dir);
    char ignored[512];
    json_object *run = parse_file(path, ignored, sizeof ignored);
    if (run) {
        fill_from_run(run, out);
    } else {
        read_ops(member(campaign, "ops", json_type_array), out);
        out->complete = bool_of(campaign, "complete");
        out->has_seed = member(campaign, "seed", json_type_int) != NULL;
        out->seed = uint_of(campaign, "seed");
    }
    free(out->device);
    out->device = str_of(s, "device");
    out->date = str_of(s, "date");
    out->commit = str_of(s, "commit");
    out->exit_status = int_of(s, "exit_status", -1);
    json_object *nf = member(s, "new_findings", json_type_array);
    out->new_findings = nf ? (unsigned)length_of(nf) : out->new_findings;
    read_targets(member(s, "fuzz_targets", json_type_array), out);
    read_failed_steps(member(s, "failed_steps", json_type_array), out);
    json_object_put(run);
    json_object_put(s);
    return 0;
}

void rep_night_free(rep_night *n)
{
    for (unsigned i = 0; i < n->n_ops; i++) {
        rep_op *o = &n->ops[i];
        for (unsigned k = 0; k < o->n_classes; k++)
            free(o->classes[k].name);
        free(o->classes);
        free(o->op);
        free(o->skipped);
    }
    for (unsigned i = 0; i < n->n_findings; i++) {
        rep_finding *f = &n->findings[i];
        char *fields[] = {f->op, f->kind, f->status, f->signature, f->reason, f->verdict, f->verdict_cause,
                          f->verdict_reason, f->file, f->explanation, f->unreadable};
        for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
            free(fields[k]);
    }
    for (unsigned i = 0; i < n->n_crashes; i++) {
        free(n->crashes[i].target);
        free(n->crashes[i].file);
        free(n->crashes[i].kind);
        free(n->crashes[i].repro);
    }
    for (unsigned i = 0; i < n->n_targets; i++)
        free(n->targets[i].name);
    for (unsigned i = 0; i < n->n_failed_steps; i++)
        free(n->failed_steps[i]);
    free(n->ops);
    free(n->findings);
    free(n->crashes);
    free(n->targets);
    free(n->failed_steps);
    free(n->source);
    free(n->date);
    free(n->commit);
    free(n->device);
    free(n->lowering);
    memset(n, 0, sizeof *n);
}
