/* report/finding_text: what the page quotes from each finding file (its
 * explanation), checked by the io reader first so that a corrupt or
 * tampered file is named as such instead of quoted. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "io/finding.h"
#include "report.h"

/* The "| " lines of a finding file, without the marker, one a line. */
static char *explanation_of(const char *buf, size_t len)
{
    char *out = malloc(len + 1), *w = out;
    if (!out)
        return NULL;
    for (const char *p = buf, *end = buf + len; p < end;) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        size_t n = eol ? (size_t)(eol - p) : (size_t)(end - p);
        if (n >= 2 && p[0] == '|' && p[1] == ' ') {
            memcpy(w, p + 2, n - 2);
            w += n - 2;
            *w++ = '\n';
        }
        p += n + 1;
    }
    *w = '\0';
    return out;
}

/* The recorded path if it is there, else findings_dir/NAME; NULL if neither. */
static char *locate(const char *recorded, const char *findings_dir)
{
    if (access(recorded, R_OK) == 0 || !findings_dir)
        return access(recorded, R_OK) == 0 ? rep_strdup(recorded) : NULL;
    const char *name = strrchr(recorded, '/') ? strrchr(recorded, '/') + 1 : recorded;
    size_t n = strlen(findings_dir) + strlen(name) + 2;
    char *alt = malloc(n);
    if (alt)
        snprintf(alt, n, "%s/%s", findings_dir, name);
    if (alt && access(alt, R_OK) == 0)
        return alt;
    free(alt);
    return NULL;
}

static void load_one(rep_finding *f, const char *findings_dir)
{
    char err[512];
    char *path = f->file ? locate(f->file, findings_dir) : NULL;
    if (!path) {
        snprintf(err, sizeof err, "%s", f->file ? "the finding file is not there any more" : "no finding file was written");
        f->unreadable = rep_strdup(err);
        return;
    }
    free(f->file);
    f->file = path;
    struct stat st;
    f->mtime = stat(path, &st) == 0 ? (int64_t)st.st_mtime : 0;
    char *buf;
    size_t len;
    io_finding *rec = malloc(sizeof *rec);
    if (!rec || io_read_file(path, IO_FINDING_MAX_BYTES, &buf, &len, err, sizeof err)) {
        f->unreadable = rep_strdup(rec ? err : "out of memory");
        free(rec);
        return;
    }
    if (io_finding_parse(buf, len, path, rec, err, sizeof err))
        f->unreadable = rep_strdup(err);
    else
        f->explanation = explanation_of(buf, len);
    free(rec);
    free(buf);
}

static int status_rank(const rep_finding *f)
{
    return !f->status ? 3 : !strcmp(f->status, "NEW") ? 0 : !strcmp(f->status, "again") ? 1 : 2;
}

/* Newest file first; then new before seen-before before known; then by op
 * and signature, so the order never depends on qsort. */
static int newest_first(const void *pa, const void *pb)
{
    const rep_finding *a = pa, *b = pb;
    if (a->mtime != b->mtime)
        return a->mtime > b->mtime ? -1 : 1;
    if (status_rank(a) != status_rank(b))
        return status_rank(a) - status_rank(b);
    int c = strcmp(a->op ? a->op : "", b->op ? b->op : "");
    return c ? c : strcmp(a->signature ? a->signature : "", b->signature ? b->signature : "");
}

void rep_findings_load(rep_night *n, const char *findings_dir)
{
    for (unsigned i = 0; i < n->n_findings; i++)
        load_one(&n->findings[i], findings_dir);
    if (n->n_findings > 1)  /* a night without findings has no array: qsort must not see NULL */
        qsort(n->findings, n->n_findings, sizeof *n->findings, newest_first);
}
