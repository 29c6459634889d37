/* The findings store. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "compare.h"
#include "explain.h"
#include "findings.h"

typedef struct {
    eng_finding_entry e;
    const io_known_rule *known;
} sig_entry;

struct eng_findings {
    eng_findings_options o;
    eng_exec *exec;
    eng_target target;
    sig_entry *sigs;
    unsigned n, cap;
    /* sigs' positions by signature, open addressing: slot + 1, 0 empty;
     * index_mask + 1 slots, a power of two, at least twice n.  A campaign
     * looks up every disagreement's signature: scanning the entries (4 KB
     * apart, each holding a path) touched a cache line and a page each, and
     * in a run of many ops every later op's disagreements passed every
     * earlier op's signatures. */
    uint32_t *index;
    uint32_t index_mask;
    uint64_t unknown, known;
    bool strict_nan;
};

eng_findings *eng_findings_create(const eng_findings_options *o, eng_exec *x, const eng_target *t)
{
    eng_findings *f = calloc(1, sizeof *f);
    f->o = *o;
    f->exec = x;
    f->target = *t;
    return f;
}

void eng_findings_destroy(eng_findings *f)
{
    if (!f)
        return;
    free(f->sigs);
    free(f->index);
    free(f);
}

void eng_findings_set_strict_nan(eng_findings *f, bool strict) { f->strict_nan = strict; }

uint64_t eng_findings_unknown(const eng_findings *f) { return f->unknown; }
uint64_t eng_findings_known(const eng_findings *f) { return f->known; }

void eng_finding_fill(io_finding *r, const isa_instance *in, const uint32_t *words, const uint32_t *host,
                      const uint32_t *device, const eng_target *t, const vkd_info *dev, char **explanation)
{
    memset(r, 0, sizeof *r);
    snprintf(r->op, sizeof r->op, "%s", in->op->name);
    isa_controls_text(in, r->controls, sizeof r->controls);
    isa_params_text(in, r->params, sizeof r->params);
    snprintf(r->lowering, sizeof r->lowering, "%s", t->lowering);
    snprintf(r->device, sizeof r->device, "%s", dev->name);
    snprintf(r->driver, sizeof r->driver, "%s", dev->driver_name);
    snprintf(r->driver_info, sizeof r->driver_info, "%s", dev->driver_info);
    r->driver_version = dev->driver_version;
    vkd_version_text(dev->api_version, r->api_version, sizeof r->api_version);
    r->n_in = in->op->n_in;
    r->n_out = in->op->n_out;
    memcpy(r->input, words, r->n_in * 4);
    memcpy(r->host, host, r->n_out * 4);
    memcpy(r->device_out, device, r->n_out * 4);
    eng_kind k = eng_classify(in, words, host, device);
    snprintf(r->kind, sizeof r->kind, "%s", eng_kind_name(k));
    r->signature = eng_signature(in, t, k);
    r->count = 1;
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m) {
        eng_explain(m, in, words, device, "");
        fclose(m);
    }
    r->explanation = text;
    *explanation = text;
}

const char *eng_finding_case(const io_finding *r, eng_case *out, isa_lowering *lowering)
{
    /* One per thread, so a caller on any thread keeps its own message. */
    static _Thread_local char why[400];
    const isa_op *op = isa_op_find(r->op);
    if (!op) {
        snprintf(why, sizeof why, "unknown op '%s'", r->op);
        return why;
    }
    static const char *const keys[2] = {"controls", "params"};
    if (isa_instance_from_text(op, r->controls, r->params, keys, &out->in, why, sizeof why))
        return why;
    if (r->n_in != op->n_in || r->n_out != op->n_out) {
        snprintf(why, sizeof why, "%s takes %u input and %u output words; the file has %u and %u", op->name, op->n_in,
                 op->n_out, r->n_in, r->n_out);
        return why;
    }
    memcpy(out->words, r->input, op->n_in * 4);
    int l = isa_lowering_parse(r->lowering);
    if (lowering)
        *lowering = l < 0 ? LOWERING_DIRECT : (isa_lowering)l;
    if (l < 0 && strcmp(r->lowering, "user-shader")) {
        snprintf(why, sizeof why, "unknown lowering '%s'", r->lowering);
        return why;
    }
    return NULL;
}

static void write_file(FILE *f, void *ctx) { fputs(ctx, f); }

/* Signatures are hashes already: their low bits pick the first slot. */
static uint32_t *index_slot(const eng_findings *f, uint64_t sig)
{
    uint32_t at = (uint32_t)sig & f->index_mask;
    while (f->index[at] && f->sigs[f->index[at] - 1].e.signature != sig)
        at = (at + 1) & f->index_mask;
    return &f->index[at];
}

/* The index made again for every entry (after growing, or a sort moved them). */
static void index_rebuild(eng_findings *f)
{
    memset(f->index, 0, ((size_t)f->index_mask + 1) * sizeof *f->index);
    for (unsigned i = 0; i < f->n; i++)
        *index_slot(f, f->sigs[i].e.signature) = i + 1;
}

static sig_entry *find_signature(eng_findings *f, uint64_t sig)
{
    if (!f->index)
        return NULL;
    uint32_t i = *index_slot(f, sig);
    return i ? &f->sigs[i - 1] : NULL;
}

/* Room for one more entry, in the array and the index; false when memory is out. */
static bool entry_room(eng_findings *f)
{
    if (f->n == f->cap) {
        unsigned cap = f->cap ? 2 * f->cap : 16;
        sig_entry *sigs = realloc(f->sigs, (size_t)cap * sizeof *sigs);
        if (!sigs)
            return false;
        f->sigs = sigs;
        f->cap = cap;
    }
    if (!f->index || 2 * ((size_t)f->n + 1) > (size_t)f->index_mask + 1) {
        uint32_t slots = f->index ? 2 * (f->index_mask + 1) : 64;
        uint32_t *index = malloc((size_t)slots * sizeof *index);
        if (!index)
            return false;
        free(f->index);
        f->index = index;
        f->index_mask = slots - 1;
        index_rebuild(f);
    }
    return true;
}

/* A new signature with the verdict on its first case, which is one of the
 * things a known-divergence rule may name (--known auto's rules name only
 * verdicts and their causes). */
static sig_entry *new_entry(eng_findings *f, uint64_t sig, const isa_op *op, eng_kind kind, uint64_t case_index,
                            const eng_verdict *verdict)
{
    if (!entry_room(f))
        return NULL;
    *index_slot(f, sig) = f->n + 1;
    sig_entry *se = &f->sigs[f->n++];
    memset(se, 0, sizeof *se);
    se->e.signature = sig;
    se->e.op = op;
    se->e.kind = kind;
    se->e.case_index = case_index;
    se->e.verdict = *verdict;
    io_known_query q = {f->target.device, op->name, f->target.lowering, eng_kind_name(kind), sig, NULL, NULL};
    se->known = eng_known_match_verdict(f->o.known, q, verdict);
    return se;
}

static void count_cases(eng_findings *f, sig_entry *se, uint64_t n)
{
    se->e.count += n;
    if (se->known)
        f->known += n;
    else
        f->unknown += n;
}

/* DIR/<op>-<signature>.finding */
static int finding_path(const eng_findings *f, const isa_op *op, uint64_t sig, char *path, size_t n, char *err,
                        size_t errn)
{
    if (io_make_dirs(f->o.dir)) {
        snprintf(err, errn, "cannot create the findings directory %s (%s)", f->o.dir, strerror(errno));
        return -1;
    }
    /* A name cut short by the buffer would be written all the same, under a
     * name that export, merge and report do not read: refuse it instead. */
    char name[128];
    snprintf(name, sizeof name, "%s-%016llx.finding", op->name, (unsigned long long)sig);
    if (!io_path_join(path, n, f->o.dir, name)) {
        path[0] = 0;
        snprintf(err, errn, "the findings directory %s makes finding file names longer than %zu bytes", f->o.dir,
                 n - 1);
        return -1;
    }
    return 0;
}


/* After a failure (a file that cannot be written, a device error while
 * minimizing): this entry has no file, and later disagreements are only
 * counted, so that the summary, the findings and --json agree. */
static int stop_writing(eng_findings *f, eng_finding_entry *e)
{
    e->path[0] = 0;
    f->o.dir = NULL;
    return -1;
}

eng_finding_key eng_findings_key(const eng_findings *f, const isa_instance *in, const uint32_t *words,
                                 const uint32_t *host, const uint32_t *device)
{
    eng_kind kind = eng_classify(in, words, host, device);
    return (eng_finding_key){kind, eng_findings_signature(f, in, kind)};
}

uint64_t eng_findings_signature(const eng_findings *f, const isa_instance *in, eng_kind k)
{
    return eng_signature(in, &f->target, k);
}

int eng_findings_add(eng_findings *f, const isa_instance *in, const uint32_t *words, const uint32_t *host,
                     const uint32_t *device, uint64_t case_index, gen_class c, const char *declared, char *err,
                     size_t errn, bool *device_error)
{
    return eng_findings_add_keyed(f, eng_findings_key(f, in, words, host, device), in, words, host, device,
                                  case_index, c, declared, err, errn, device_error);
}

bool eng_findings_has(const eng_findings *f, eng_finding_key key)
{
    return f->index && *index_slot(f, key.signature) != 0;
}

void eng_findings_count_more(eng_findings *f, eng_finding_key key, uint64_t n)
{
    sig_entry *se = find_signature(f, key.signature);
    if (se)
        count_cases(f, se, n);
}

int eng_findings_add_keyed(eng_findings *f, eng_finding_key key, const isa_instance *in, const uint32_t *words,
                           const uint32_t *host, const uint32_t *device, uint64_t case_index, gen_class c,
                           const char *declared, char *err, size_t errn, bool *device_error)
{
    *device_error = false;
    eng_kind kind = key.kind;
    uint64_t sig = key.signature;
    sig_entry *have = find_signature(f, sig);
    if (have) {
        count_cases(f, have, 1);
        return 0;
    }
    eng_verdict verdict;
    eng_judge(f->exec, in, words, host, device, f->strict_nan, &verdict);
    sig_entry *se = new_entry(f, sig, in->op, kind, case_index, &verdict);
    if (!se) {
        snprintf(err, errn, "out of memory recording signature %016llx of %s", (unsigned long long)sig, in->op->name);
        return -1;
    }
    count_cases(f, se, 1);
    eng_finding_entry *e = &se->e;
    /* Known divergences get a file too: the minimized case is what a
     * regression tuple or a driver bug report is made from. */
    if (!f->o.dir)
        return 0;
    /* New: minimize, then write. */
    eng_case start = {*in, {0}}, small = start;
    memcpy(start.words, words, in->op->n_in * 4);
    small = start;
    e->complexity_before = eng_case_complexity(&start);
    if (f->o.minimize &&
        eng_minimize(f->exec, &f->target, sig, &start, &small, &e->rounds, err, errn, device_error))
        return stop_writing(f, e);
    e->complexity_after = eng_case_complexity(&small);
    uint32_t small_host[ISA_MAX_OUT], small_dev[ISA_MAX_OUT];
    small.in.op->impl->eval(&small.in, small.words, small_host, NULL);
    if (eng_exec_run(f->exec, &small.in, small.words, 1, small_dev, err, errn, device_error))
        return stop_writing(f, e);
    io_finding rec;
    char *explanation;
    eng_finding_fill(&rec, &small.in, small.words, small_host, small_dev, &f->target,
                     vkd_device_info(eng_exec_device(f->exec)), &explanation);
    rec.signature = sig;  /* minimization kept it; the original's by definition */
    eng_verdict small_verdict;
    eng_judge(f->exec, &small.in, small.words, small_host, small_dev, f->strict_nan, &small_verdict);
    eng_verdict_record(&small_verdict, &rec);
    snprintf(rec.kind, sizeof rec.kind, "%s", eng_kind_name(kind));
    rec.seed = f->o.seed;
    /* A case that differs only in NaN payloads is a disagreement only to a
     * strict run, whatever the options said. */
    rec.strict_nan = f->strict_nan || eng_outputs_agree(in->op, host, device, false);
    rec.case_index = case_index;
    snprintf(rec.gen_class, sizeof rec.gen_class, "%s", gen_class_name(c));
    snprintf(rec.declared, sizeof rec.declared, "%s", declared ? declared : "");
    if (memcmp(&small, &start, sizeof small)) {
        rec.minimized = true;
        isa_controls_text(in, rec.original_controls, sizeof rec.original_controls);
        memcpy(rec.original_input, words, in->op->n_in * 4);
        memcpy(rec.original_host, host, in->op->n_out * 4);
        memcpy(rec.original_device, device, in->op->n_out * 4);
    }
    char *text = io_finding_format(&rec);
    free(explanation);
    if (finding_path(f, in->op, sig, e->path, sizeof e->path, err, errn)) {
        free(text);
        return stop_writing(f, e);
    }
    e->existed = access(e->path, F_OK) == 0;
    if (io_write_atomic(e->path, write_file, text)) {
        snprintf(err, errn, "cannot write %s (%s); no more finding files are written in this run", e->path,
                 strerror(errno));
        free(text);
        return stop_writing(f, e);
    }
    free(text);
    return 0;
}

int eng_findings_finish(eng_findings *f, char *err, size_t errn)
{
    for (unsigned i = 0; i < f->n; i++) {
        const eng_finding_entry *e = &f->sigs[i].e;
        if (!e->path[0] || e->count == 1)
            continue;
        char *buf;
        size_t len;
        if (io_read_file(e->path, IO_FINDING_MAX_BYTES, &buf, &len, err, errn))
            return -1;
        char *text = io_finding_with_count(buf, len, e->count);
        free(buf);
        if (!text) {
            snprintf(err, errn, "%s: no count line to update", e->path);
            return -1;
        }
        int rc = io_write_atomic(e->path, write_file, text);
        free(text);
        if (rc) {
            snprintf(err, errn, "cannot write %s (%s)", e->path, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* NEW: no rule covers it and no earlier run wrote its file; again: an
 * earlier run did; known: a rule covers it (its reason printed once, below). */
static const char *status_of(const sig_entry *se)
{
    return se->known ? "known" : se->e.existed ? "again" : "NEW";
}

/* How many signatures got each verdict, then each verdict and cause with
 * its count (the reasons are long: the finding files, --json and repro
 * give them). */
static void print_verdicts(const eng_findings *f, FILE *out)
{
    unsigned counts[VERDICT_COUNT] = {0};
    for (unsigned i = 0; i < f->n; i++)
        counts[f->sigs[i].e.verdict.kind]++;
    fprintf(out, "verdicts:");
    for (int k = VERDICT_TRANSLATION; k < VERDICT_COUNT; k++)
        fprintf(out, " %u %s%s", counts[k], eng_verdict_name((eng_verdict_kind)k), k + 1 < VERDICT_COUNT ? "," : "\n");
    for (unsigned i = 0; i < f->n; i++) {
        const eng_verdict *v = &f->sigs[i].e.verdict;
        char cause[64], other[64];
        const char *c = eng_verdict_cause(v, cause, sizeof cause);
        unsigned same = 0;
        bool seen = false;
        for (unsigned j = 0; j < f->n && !seen; j++) {
            const eng_verdict *w = &f->sigs[j].e.verdict;
            const char *d = eng_verdict_cause(w, other, sizeof other);
            bool alike = w->kind == v->kind && (c && d ? !strcmp(c, d) : c == d);
            seen = alike && j < i;
            same += alike;
        }
        if (!seen && v->kind != VERDICT_NONE)
            fprintf(out, "  %s%s%s: %u signature%s\n", eng_verdict_name(v->kind), c ? ", " : "", c ? c : "", same,
                    same == 1 ? "" : "s");
    }
}

void eng_findings_print(const eng_findings *f, FILE *out)
{
    if (!f->n)
        return;
    const io_known_rule **rules = calloc(f->n, sizeof *rules);
    unsigned n_rules = 0, counts[3] = {0};
    for (unsigned i = 0; i < f->n; i++)
        counts[f->sigs[i].known ? 2 : f->sigs[i].e.existed ? 1 : 0]++;
    fprintf(out, "\nfindings: %u new, %u seen in an earlier run, %u known divergences\n", counts[0], counts[1],
            counts[2]);
    fprintf(out, "%-6s %-16s  %-18s %-11s %10s  %s\n", "", "signature", "kind", "verdict", "count", "finding");
    for (unsigned i = 0; i < f->n; i++) {
        const sig_entry *se = &f->sigs[i];
        unsigned r = 0;
        while (se->known && r < n_rules && rules[r] != se->known)
            r++;
        if (se->known && r == n_rules && rules)
            rules[n_rules++] = se->known;
        char note[32] = "";
        if (se->known)
            snprintf(note, sizeof note, "  [%u]", r + 1);
        fprintf(out, "%-6s %016llx  %-18s %-11s %10llu  %s%s%s\n", status_of(se), (unsigned long long)se->e.signature,
                eng_kind_name(se->e.kind), eng_verdict_name(se->e.verdict.kind), (unsigned long long)se->e.count,
                se->e.path[0] ? se->e.path : se->e.op->name, se->e.path[0] ? "" : " (no file written)", note);
    }
    for (unsigned r = 0; r < n_rules; r++)
        fprintf(out, "%s  [%u] KNOWN: %s (%s)\n", r ? "" : "known divergences:\n", r + 1, rules[r]->reason,
                rules[r]->where);
    free(rules);
    print_verdicts(f, out);
}

void eng_findings_json(const eng_findings *f, io_json *j)
{
    json_array(j, "findings");
    for (unsigned i = 0; i < f->n; i++) {
        const eng_finding_entry *e = &f->sigs[i].e;
        const io_known_rule *known = f->sigs[i].known;
        char sig[20];
        snprintf(sig, sizeof sig, "%016llx", (unsigned long long)e->signature);
        json_object(j, NULL);
        json_string(j, "signature", sig);
        json_string(j, "op", e->op->name);
        json_string(j, "kind", eng_kind_name(e->kind));
        json_uint(j, "count", e->count);
        json_bool(j, "known", known != NULL);
        json_string(j, "status", status_of(&f->sigs[i]));
        json_string(j, "reason", known ? known->reason : NULL);
        char cause[64];
        json_string(j, "verdict", e->verdict.kind == VERDICT_NONE ? NULL : eng_verdict_name(e->verdict.kind));
        json_string(j, "verdict_cause", eng_verdict_cause(&e->verdict, cause, sizeof cause));
        json_string(j, "verdict_reason", e->verdict.kind == VERDICT_NONE ? NULL : e->verdict.reason);
        json_string(j, "file", e->path[0] ? e->path : NULL);
        json_uint(j, "complexity_before", e->complexity_before);
        json_uint(j, "complexity_after", e->complexity_after);
        json_end_object(j);
    }
    json_end_array(j);
}

unsigned eng_findings_count(const eng_findings *f) { return f->n; }

void eng_findings_entry(const eng_findings *f, unsigned i, eng_finding_entry *out) { *out = f->sigs[i].e; }

/* Copy another process's finding file to this store's path for it. */
static int copy_finding(const eng_findings *f, const eng_finding_entry *from, char *path, size_t n, bool *existed,
                        char *err, size_t errn)
{
    char *bytes;
    size_t len;
    if (io_read_file(from->path, IO_FINDING_MAX_BYTES, &bytes, &len, err, errn))
        return -1;
    if (finding_path(f, from->op, from->signature, path, n, err, errn)) {
        free(bytes);
        return -1;
    }
    *existed = access(path, F_OK) == 0;
    int rc = io_write_atomic(path, write_file, bytes);
    if (rc)
        snprintf(err, errn, "cannot write %s (%s)", path, strerror(errno));
    free(bytes);
    return rc;
}

int eng_findings_absorb(eng_findings *f, const eng_finding_entry *e, char *err, size_t errn)
{
    sig_entry *se = find_signature(f, e->signature);
    bool first = !se, existed = false;
    bool take_file = e->path[0] && f->o.dir && (!se || e->case_index < se->e.case_index);
    if (!se) {
        se = new_entry(f, e->signature, e->op, e->kind, e->case_index, &e->verdict);
        if (!se) {
            snprintf(err, errn, "out of memory recording signature %016llx of %s", (unsigned long long)e->signature,
                     e->op->name);
            return -1;
        }
    } else if (take_file) {
        /* The earlier case's verdict, as one process would show; whether the
         * signature is known was settled by the first worker's. */
        se->e.case_index = e->case_index;
        se->e.verdict = e->verdict;
    }
    count_cases(f, se, e->count);
    if (take_file) {
        se->e.complexity_before = e->complexity_before;
        se->e.complexity_after = e->complexity_after;
        se->e.rounds = e->rounds;
        if (copy_finding(f, e, se->e.path, sizeof se->e.path, &existed, err, errn))
            return -1;
        if (first)  /* a later copy finds the first one's file */
            se->e.existed = existed;
    }
    return 0;
}

static unsigned op_order(const isa_op *op)
{
    for (unsigned i = 0; i < isa_op_count(); i++)
        if (isa_op_at(i) == op)
            return i;
    return ~0u;
}

static int by_op_then_case(const void *pa, const void *pb)
{
    const eng_finding_entry *a = &((const sig_entry *)pa)->e, *b = &((const sig_entry *)pb)->e;
    unsigned oa = op_order(a->op), ob = op_order(b->op);
    if (oa != ob)
        return oa < ob ? -1 : 1;
    return a->case_index < b->case_index ? -1 : a->case_index > b->case_index;
}

void eng_findings_sort(eng_findings *f)
{
    if (f->n > 1) {
        qsort(f->sigs, f->n, sizeof *f->sigs, by_op_then_case);
        index_rebuild(f);
    }
}

/* ---- one writer a directory ---- */

/* Hidden, and not a *.finding: directory walks and `ls` pass it by.  It
 * stays after the run: unlinking a lock file lets two processes each lock
 * a different file of the same name. */
#define LOCK_NAME ".tiefuzz.lock"

/* The pid the holder wrote into the lock file; 0 before it has. */
static long lock_holder(int fd)
{
    char buf[32];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    long pid = 0;
    if (n <= 0)
        return 0;
    buf[n] = 0;
    return sscanf(buf, "pid %ld", &pid) == 1 ? pid : 0;
}

/* Only for the message of the run that finds the directory busy: the lock
 * itself does not depend on it, so a failed write is ignored. */
static void lock_note_pid(int fd)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "pid %ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)n, 0) != n)
        return;
}

static void say_busy(const char *dir, const char *path, int fd, char *err, size_t errn)
{
    long pid = lock_holder(fd);
    char who[40] = "";
    if (pid)
        snprintf(who, sizeof who, " (pid %ld)", pid);
    snprintf(err, errn,
             "the findings directory %s is in use by another tiefuzz run or merge%s, which holds %s; "
             "wait for it to end or use another directory",
             dir, who, path);
}

int eng_dir_lock_take(const char *dir, eng_dir_lock *lock, char *err, size_t errn)
{
    lock->fd = -1;
    if (!dir)
        return ENG_LOCK_HELD;
    if (io_make_dirs(dir)) {
        snprintf(err, errn, "cannot create the findings directory %s (%s)", dir, strerror(errno));
        return ENG_LOCK_FAILED;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, LOCK_NAME);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errn, "cannot create the lock file %s (%s)", path, strerror(errno));
        return ENG_LOCK_FAILED;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int rc = ENG_LOCK_BUSY;
        if (errno == EWOULDBLOCK) {
            say_busy(dir, path, fd, err, errn);
        } else {
            snprintf(err, errn, "cannot lock %s (%s)", path, strerror(errno));
            rc = ENG_LOCK_FAILED;
        }
        close(fd);
        return rc;
    }
    lock_note_pid(fd);
    lock->fd = fd;
    return ENG_LOCK_HELD;
}

void eng_dir_lock_release(eng_dir_lock *lock)
{
    if (lock->fd < 0)
        return;
    /* Unlock before closing: --jobs workers share this open file, and a
     * close alone leaves it locked while any of them lives. */
    flock(lock->fd, LOCK_UN);
    close(lock->fd);
    lock->fd = -1;
}
