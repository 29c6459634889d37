/* engine/worker_report: the report file a --jobs worker leaves for the parent.
 *
 * Writer and reader are the same program image (a worker is a fork of the
 * parent), so structures travel as they are, op pointers included: a fork
 * keeps the op tables at the same addresses.  The kept-case arrays follow
 * their op reports; the signature entries come last. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "io/json.h"
#include "worker_report.h"

static const char report_magic[8] = "TFJOBS1";

typedef struct {
    const eng_outcome *r;
    int status;
} report_ctx;

static void write_report(FILE *f, void *ctx)
{
    const report_ctx *c = ctx;
    const eng_outcome *r = c->r;
    eng_worker_report_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, report_magic, sizeof h.magic);
    h.status = c->status;
    h.validation_errors = r->validation_errors;
    h.interrupted = r->interrupted;
    h.n_ops = r->n;
    h.n_findings = eng_findings_count(r->findings);
    h.dev = *r->dev;
    fwrite(&h, sizeof h, 1, f);
    for (unsigned i = 0; i < r->n; i++) {
        fwrite(&r->reports[i], sizeof r->reports[i], 1, f);
        if (r->reports[i].n_kept)
            fwrite(r->reports[i].kept, sizeof *r->reports[i].kept, r->reports[i].n_kept, f);
    }
    for (unsigned i = 0; i < h.n_findings; i++) {
        eng_finding_entry e;
        eng_findings_entry(r->findings, i, &e);
        fwrite(&e, sizeof e, 1, f);
    }
}

int eng_worker_write(const char *path, const eng_outcome *r, int status)
{
    report_ctx c = {r, status};
    if (io_write_atomic(path, write_report, &c)) {
        fprintf(stderr, "tiefuzz run: worker: cannot write its report %s (%s)\n", path, strerror(errno));
        return EXIT_INTERNAL;
    }
    return status;
}

void eng_worker_report_free(eng_worker_report *w)
{
    if (w->ops)
        for (unsigned i = 0; i < w->h.n_ops; i++)
            free(w->ops[i].kept);
    free(w->ops);
    free(w->findings);
    memset(w, 0, sizeof *w);
}

int eng_worker_report_read(const char *path, unsigned n_ops, eng_worker_report *w, char *err, size_t errn)
{
    memset(w, 0, sizeof *w);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errn, "%s: %s", path, strerror(errno));
        return -1;
    }
    bool ok = fread(&w->h, sizeof w->h, 1, f) == 1 && !memcmp(w->h.magic, report_magic, sizeof report_magic) &&
              w->h.n_ops == n_ops;
    if (ok) {
        w->ops = calloc(n_ops, sizeof *w->ops);
        for (unsigned i = 0; i < n_ops && ok; i++) {
            ok = fread(&w->ops[i], sizeof w->ops[i], 1, f) == 1;
            w->ops[i].kept = NULL;
            w->ops[i].kept_cap = w->ops[i].n_kept;
            if (ok && w->ops[i].n_kept) {
                w->ops[i].kept = malloc((size_t)w->ops[i].n_kept * sizeof *w->ops[i].kept);
                ok = w->ops[i].kept && fread(w->ops[i].kept, sizeof *w->ops[i].kept, w->ops[i].n_kept, f) ==
                                           w->ops[i].n_kept;
            }
        }
    }
    if (ok && w->h.n_findings) {
        w->findings = malloc((size_t)w->h.n_findings * sizeof *w->findings);
        ok = w->findings && fread(w->findings, sizeof *w->findings, w->h.n_findings, f) == w->h.n_findings;
    }
    ok = ok && fgetc(f) == EOF;
    fclose(f);
    if (!ok) {
        snprintf(err, errn, "%s: not a complete worker report", path);
        eng_worker_report_free(w);
        return -1;
    }
    return 0;
}
