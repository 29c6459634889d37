/* Regression tuple files. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "known.h"
#include "regression.h"
#include "tuple.h"

static int fail(char *err, size_t errn, const char *name, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail(char *err, size_t errn, const char *name, unsigned line, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err, errn, "%s:%u: %s", name, line, msg);
    return -1;
}

static int field(const char *text, const char *key, char *out, size_t n)
{
    const char *p = strstr(text, key);
    if (!p || (p != text && p[-1] != ' '))
        return -1;
    p += strlen(key);
    size_t len = strcspn(p, " ");
    if (len >= n || len == 0)
        return -1;
    memcpy(out, p, len);
    out[len] = 0;
    return 0;
}

int io_regression_parse(const char *buf, size_t len, const char *name, io_regression *r, char *err, size_t errn)
{
    memset(r, 0, sizeof *r);
    if (len > (64u << 20))
        return fail(err, errn, name, 1, "larger than 64 MiB");
    if (memchr(buf, 0, len))
        return fail(err, errn, name, 1, "contains a NUL byte: not a text tuple file");
    unsigned line = 0;
    size_t pos = 0;
    io_regression_entry cur = {0};
    bool have_instance = false;
    while (pos < len) {
        line++;
        size_t n = strcspn(buf + pos, "\n");
        if (pos + n > len)
            n = len - pos;
        char text[8192];
        if (n >= sizeof text) {
            io_regression_free(r);
            return fail(err, errn, name, line, "line longer than %zu characters", sizeof text - 1);
        }
        memcpy(text, buf + pos, n);
        text[n] = 0;
        pos += n + 1;
        if (line == 1) {
            if (strcmp(text, "tiefuzz-regression 1")) {
                io_regression_free(r);
                return fail(err, errn, name, line, "expected 'tiefuzz-regression 1'%s",
                            strncmp(text, "tiefuzz-regression ", 19) ? " (not a regression file)" : ": unsupported version");
            }
            continue;
        }
        if (line == 2) {
            if (strncmp(text, "op ", 3) || strlen(text + 3) >= sizeof r->op || !text[3] || strchr(text + 3, ' ')) {
                io_regression_free(r);
                return fail(err, errn, name, line, "expected 'op NAME'");
            }
            strcpy(r->op, text + 3);
            continue;
        }
        char *comment = strchr(text, '#');
        char note[160] = "";
        if (comment) {
            snprintf(note, sizeof note, "%s", comment + 1 + (comment[1] == ' '));
            *comment = 0;
        }
        char *s = text;
        while (*s == ' ' || *s == '\t' || *s == '\r')
            s++;
        if (!*s)
            continue;
        if (!strncmp(s, "instance ", 9)) {
            memset(&cur, 0, sizeof cur);
            if (field(s, "controls=", cur.controls, sizeof cur.controls) ||
                field(s, "params=", cur.params, sizeof cur.params) ||
                field(s, "lowering=", cur.lowering, sizeof cur.lowering)) {
                io_regression_free(r);
                return fail(err, errn, name, line, "expected 'instance controls=.. params=.. lowering=..'");
            }
            if (!io_lowering_name_valid(cur.lowering)) {
                io_regression_free(r);
                return fail(err, errn, name, line, "lowering '%s': expected direct, exact or user-shader", cur.lowering);
            }
            have_instance = true;
            continue;
        }
        char *arrow = strstr(s, "->");
        if (!arrow) {
            io_regression_free(r);
            return fail(err, errn, name, line, "expected 'INPUT WORDS -> EXPECTED WORDS' or an instance line");
        }
        if (!have_instance) {
            io_regression_free(r);
            return fail(err, errn, name, line, "a tuple before any 'instance' line");
        }
        *arrow = 0;
        io_regression_entry e = cur;
        char msg[200];
        int a = io_parse_words(s, e.in, IO_MAX_WORDS, msg, sizeof msg);
        int b = a > 0 ? io_parse_words(arrow + 2, e.out, IO_MAX_WORDS, msg, sizeof msg) : -1;
        if (a <= 0 || b <= 0) {
            io_regression_free(r);
            return fail(err, errn, name, line, "%s", a == 0 || b == 0 ? "expected words on both sides of '->'" : msg);
        }
        e.n_in = (unsigned)a;
        e.n_out = (unsigned)b;
        e.line = line;
        snprintf(e.comment, sizeof e.comment, "%s", note);
        io_regression_add(r, &e);
    }
    if (line < 2) {
        io_regression_free(r);
        return fail(err, errn, name, line ? line : 1, "truncated: expected a header and an 'op' line");
    }
    return 0;
}

void io_regression_add(io_regression *r, const io_regression_entry *e)
{
    r->e = realloc(r->e, (r->n + 1) * sizeof *r->e);
    r->e[r->n++] = *e;
}

static int compare(const void *pa, const void *pb)
{
    const io_regression_entry *a = pa, *b = pb;
    int c = strcmp(a->controls, b->controls);
    if (!c)
        c = strcmp(a->params, b->params);
    if (!c)
        c = strcmp(a->lowering, b->lowering);
    for (unsigned i = 0; !c && i < a->n_in && i < b->n_in; i++)
        c = a->in[i] < b->in[i] ? -1 : a->in[i] > b->in[i];
    if (!c)
        c = (int)a->n_in - (int)b->n_in;
    return c;
}

void io_regression_normalize(io_regression *r)
{
    if (!r->n)
        return;  /* qsort must not see a null array (found by fuzz_formats) */
    qsort(r->e, r->n, sizeof *r->e, compare);
    unsigned k = 0;
    for (unsigned i = 0; i < r->n; i++)
        if (!k || compare(&r->e[k - 1], &r->e[i]))
            r->e[k++] = r->e[i];
    r->n = k;
}

/* The output grows as it is written: its length is not bounded by a fixed
 * share per tuple (an instance line alone can be 560 characters, a tuple of
 * 384 + 384 words 6,900).  A fixed estimate (256 + 400 per tuple) let
 * snprintf run past the buffer once a file's tuples were long enough (heap
 * overflow found by fuzz_formats). */
typedef struct {
    char *s;
    size_t len, cap;
    bool failed;
} out_buf;

static void out(out_buf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(out_buf *o, const char *fmt, ...)
{
    while (!o->failed) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(o->s + o->len, o->cap - o->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < o->cap - o->len) {
            o->len += (size_t)n;
            return;
        }
        size_t cap = n < 0 ? 0 : (o->len + (size_t)n + 1) * 2;
        char *s = cap ? realloc(o->s, cap) : NULL;
        if (!s) {
            o->failed = true;
            return;
        }
        o->s = s;
        o->cap = cap;
    }
}

char *io_regression_format(const io_regression *r)
{
    out_buf o = {malloc(256), 0, 256, false};
    if (!o.s)
        return NULL;
    out(&o, "tiefuzz-regression 1\nop %s\n", r->op);
    const io_regression_entry *prev = NULL;
    for (unsigned i = 0; i < r->n; i++) {
        const io_regression_entry *e = &r->e[i];
        if (!prev || strcmp(prev->controls, e->controls) || strcmp(prev->params, e->params) ||
            strcmp(prev->lowering, e->lowering))
            out(&o, "instance controls=%s params=%s lowering=%s\n", e->controls, e->params, e->lowering);
        for (unsigned j = 0; j < e->n_in; j++)
            out(&o, "%s%08x", j ? " " : "", e->in[j]);
        out(&o, " ->");
        for (unsigned j = 0; j < e->n_out; j++)
            out(&o, " %08x", e->out[j]);
        if (e->comment[0])
            out(&o, "   # %s", e->comment);
        out(&o, "\n");
        prev = e;
    }
    if (o.failed) {
        free(o.s);
        return NULL;
    }
    return o.s;
}

void io_regression_free(io_regression *r)
{
    free(r->e);
    r->e = NULL;
    r->n = 0;
}
