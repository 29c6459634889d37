/* Known-divergence rules. */
#define _GNU_SOURCE   /* strcasestr */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "finding.h"
#include "known.h"


static bool in_list(const char *list, const char *item)
{
    size_t n = strlen(item);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && !strncmp(p, item, n))
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

int io_known_parse(const char *buf, size_t len, const char *name, io_known *k, char *err, size_t errn)
{
    unsigned line = 0;
    size_t pos = 0;
    if (memchr(buf, 0, len)) {
        snprintf(err, errn, "%s:1: contains a NUL byte: not a text rules file", name);
        return -1;
    }
    while (pos < len) {
        line++;
        size_t n = strcspn(buf + pos, "\n");
        if (pos + n > len)
            n = len - pos;
        char text[1024];
        if (n >= sizeof text) {
            snprintf(err, errn, "%s:%u: line longer than %zu characters", name, line, sizeof text - 1);
            return -1;
        }
        memcpy(text, buf + pos, n);
        text[n] = 0;
        pos += n + 1;
        char *hash = strchr(text, '#');
        char *reason = strstr(text, "reason=");
        if (hash && (!reason || hash < reason)) {
            *hash = 0;
            reason = NULL;  /* a reason= inside a comment is part of the comment */
        }
        if (reason)
            *reason = 0;
        io_known_rule r = {0};
        snprintf(r.where, sizeof r.where, "%s:%u", name, line);
        bool any = false;
        for (char *save = NULL, *tok = strtok_r(text, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save)) {
            char *eq = strchr(tok, '=');
            if (!eq) {
                snprintf(err, errn, "%s:%u: expected NAME=VALUE, found '%s'", name, line, tok);
                return -1;
            }
            *eq = 0;
            const char *v = eq + 1;
            char *dst = NULL;
            size_t cap = 0;
            if (!strcmp(tok, "device")) dst = r.device, cap = sizeof r.device;
            else if (!strcmp(tok, "op")) dst = r.op, cap = sizeof r.op;
            else if (!strcmp(tok, "lowering")) dst = r.lowering, cap = sizeof r.lowering;
            else if (!strcmp(tok, "kind")) dst = r.kinds, cap = sizeof r.kinds;
            else if (!strcmp(tok, "verdict")) dst = r.verdicts, cap = sizeof r.verdicts;
            else if (!strcmp(tok, "cause")) dst = r.cause, cap = sizeof r.cause;
            else if (!strcmp(tok, "signature")) {
                char *end;
                r.signature = strtoull(v, &end, 16);
                if (strlen(v) != 16 || *end) {
                    snprintf(err, errn, "%s:%u: signature: expected 16 hex digits", name, line);
                    return -1;
                }
                r.has_signature = true;
                any = true;
                continue;
            } else {
                snprintf(err, errn, "%s:%u: unknown condition '%s' (device, op, lowering, kind, signature, verdict, cause, reason)",
                         name, line, tok);
                return -1;
            }
            if (strlen(v) >= cap || !*v) {
                snprintf(err, errn, "%s:%u: %s: empty or too long", name, line, tok);
                return -1;
            }
            if (dst == r.lowering && !io_lowering_name_valid(v)) {
                snprintf(err, errn, "%s:%u: lowering '%s': expected direct, exact or user-shader", name, line, v);
                return -1;
            }
            strcpy(dst, v);
            any = true;
        }
        if (!any && !reason)
            continue;
        if (!reason) {
            snprintf(err, errn, "%s:%u: expected reason=TEXT: every known divergence says why", name, line);
            return -1;
        }
        if (!any) {
            snprintf(err, errn, "%s:%u: a rule needs at least one condition", name, line);
            return -1;
        }
        const char *why = buf + (pos - n - 1) + (reason - text) + 7;
        size_t wlen = strcspn(why, "\n");
        snprintf(r.reason, sizeof r.reason, "%.*s", (int)wlen, why);
        k->rules = realloc(k->rules, (k->n + 1) * sizeof *k->rules);
        k->rules[k->n++] = r;
    }
    return 0;
}

bool io_lowering_name_valid(const char *name)
{
    return !strcmp(name, "direct") || !strcmp(name, "exact") || !strcmp(name, "user-shader");
}

int io_known_load_dir(const char *dir, bool required, io_known *k, char *err, size_t errn)
{
    char **names;
    unsigned n;
    if (io_dir_list(dir, ".txt", &names, &n, err, errn))
        /* The default directory may be absent (no rules); running out of memory never passes. */
        return !required && errno != ENOMEM ? 0 : -1;
    int rc = 0;
    for (unsigned i = 0; i < n && !rc; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        char *buf;
        size_t len;
        rc = io_read_file(path, 1u << 20, &buf, &len, err, errn);
        if (!rc) {
            rc = io_known_parse(buf, len, path, k, err, errn);
            free(buf);
        }
    }
    io_names_free(names, n);
    return rc;
}

static bool rule_matches(const io_known_rule *r, const io_known_query *q)
{
    if (r->device[0] && !strcasestr(q->device, r->device))
        return false;
    if (r->op[0] && fnmatch(r->op, q->op, 0) != 0)
        return false;
    if (r->lowering[0] && strcmp(r->lowering, q->lowering))
        return false;
    if (r->kinds[0] && !in_list(r->kinds, q->kind))
        return false;
    if (r->has_signature && r->signature != q->signature)
        return false;
    if (r->verdicts[0] && !(q->verdict && in_list(r->verdicts, q->verdict)))
        return false;
    return !r->cause[0] || (q->cause && !strcmp(r->cause, q->cause));
}

const io_known_rule *io_known_match(const io_known *k, const io_known_query *q)
{
    for (unsigned i = 0; k && i < k->n; i++)
        if (rule_matches(&k->rules[i], q))
            return &k->rules[i];
    return NULL;
}

void io_known_free(io_known *k)
{
    free(k->rules);
    k->rules = NULL;
    k->n = 0;
}
