/* report/text: escaping for everything the page quotes from its inputs.
 * Finding explanations, op names and crash output come from files anyone
 * could have written, so none of it reaches the page unescaped. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "page.h"

void rep_escape(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            /* Keep newlines and tabs (for <pre>); other control bytes would be
             * invalid in HTML, so they become a visible escape. */
            if (*p < 0x20 && *p != '\n' && *p != '\t')
                fprintf(f, "\\x%02x", *p);
            else
                fputc(*p, f);
        }
    }
}

char *rep_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* The commands the page shows are meant to be pasted into a shell. */
void rep_shell_word(FILE *f, const char *s)
{
    static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%";
    if (!s)
        s = "";
    if (*s && strspn(s, plain) == strlen(s)) {
        rep_escape(f, s);
        return;
    }
    size_t n = strlen(s);
    char *q = malloc(4 * n + 3), *w = q;
    if (!q)
        return;
    *w++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            memcpy(w, "'\\''", 4);
            w += 4;
        } else {
            *w++ = *p;
        }
    }
    *w++ = '\'';
    *w = '\0';
    rep_escape(f, q);
    free(q);
}

/* 2459190 -> "2,459,190": counts in the tables are read at a glance. */
void rep_count_cell(FILE *f, double v)
{
    fputs("<td class=\"n\">", f);
    if (isfinite(v))
        rep_count(f, v);
    else
        fputc('-', f);
    fputs("</td>", f);
}

void rep_count(FILE *f, double v)
{
    char digits[32], out[48];
    snprintf(digits, sizeof digits, "%.0f", v);
    size_t n = strlen(digits), w = 0, lead = digits[0] == '-';
    for (size_t i = 0; i < n; i++) {
        if (i > lead && (n - i) % 3 == 0)
            out[w++] = ',';
        out[w++] = digits[i];
    }
    out[w] = '\0';
    fputs(out, f);
}
