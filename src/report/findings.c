/* report/findings: the findings (newest first) and the crashes.  A finding
 * no known rule covers gets its own entry with the explanation from its
 * file and the commands that reproduce and export it; the known ones are
 * one table, since the page is read for what is new. */
#include <string.h>
#include "page.h"

static void commands(FILE *f, const rep_finding *x)
{
    fputs("<pre class=\"cmd\"><code>tiefuzz repro ", f);
    rep_shell_word(f, x->file);
    fputs("\ntiefuzz export ", f);
    rep_shell_word(f, x->file);
    fputs(" --format amber</code></pre>", f);
}

static void field(FILE *f, const char *name, const char *value)
{
    if (!value)
        return;
    fprintf(f, "<dt>%s</dt><dd>", name);
    rep_escape(f, value);
    fputs("</dd>", f);
}

static void finding_entry(FILE *f, const rep_finding *x)
{
    fputs("<article class=\"finding\" data-signature=\"", f);
    rep_escape(f, x->signature);
    fputs("\"><h3>", f);
    rep_escape(f, x->op);
    fputs(": ", f);
    rep_escape(f, x->kind);
    fputs(" <span class=\"badge ", f);
    rep_escape(f, x->status);
    fputs("\">", f);
    rep_escape(f, x->status ? x->status : "?");
    fprintf(f, "</span></h3><dl>");
    field(f, "kind", x->kind);
    field(f, "verdict", x->verdict);   /* only where triage has given one */
    field(f, "cause", x->verdict_cause);
    field(f, "why", x->verdict_reason);
    field(f, "signature", x->signature);
    fprintf(f, "<dt>cases</dt><dd>%llu</dd>", (unsigned long long)x->count);
    field(f, "file", x->file);
    fputs("</dl>", f);
    if (x->explanation) {
        fputs("<pre class=\"explanation\">", f);
        rep_escape(f, x->explanation);
        fputs("</pre>", f);
    } else {
        fputs("<p class=\"warn\">No explanation: ", f);
        rep_escape(f, x->unreadable);
        fputs("</p>", f);
    }
    if (x->file)
        commands(f, x);
    fputs("</article>\n", f);
}

static void known_row(FILE *f, const rep_finding *x)
{
    fputs("<tr class=\"known-finding\"><th scope=\"row\">", f);
    rep_escape(f, x->op);
    fputs("</th><td>", f);
    rep_escape(f, x->kind);
    fputs("</td><td>", f);
    rep_escape(f, x->verdict ? x->verdict : "");
    fputs("</td><td><code>", f);
    rep_escape(f, x->signature);
    fprintf(f, "</code></td><td class=\"n\">%llu</td><td>", (unsigned long long)x->count);
    rep_escape(f, x->reason);
    fputs("</td><td><code>", f);
    if (x->file) {
        fputs("tiefuzz repro ", f);
        rep_shell_word(f, x->file);
    }
    fputs("</code></td></tr>\n", f);
}

static void known_table(FILE *f, const rep_night *n, unsigned known)
{
    fprintf(f, "<details id=\"known-findings\"><summary>%u finding%s a known rule covers</summary>"
               "<div class=\"wrap\"><table><thead><tr><th scope=\"col\">op</th><th scope=\"col\">kind</th>"
               "<th scope=\"col\">verdict</th><th scope=\"col\">signature</th><th scope=\"col\">cases</th>"
               "<th scope=\"col\">rule's reason</th><th scope=\"col\">reproduce</th></tr></thead><tbody>\n",
            known, known == 1 ? "" : "s");
    for (unsigned i = 0; i < n->n_findings; i++)
        if (n->findings[i].known)
            known_row(f, &n->findings[i]);
    fputs("</tbody></table></div></details>\n", f);
}

void rep_page_findings(FILE *f, const rep_night *n)
{
    unsigned known = 0;
    for (unsigned i = 0; i < n->n_findings; i++)
        known += n->findings[i].known;
    fprintf(f, "<section id=\"findings\"><h2>Findings</h2><p class=\"meta\">%u finding%s no known rule covers, "
               "newest first; NEW: no earlier run had it.</p>\n",
            n->n_findings - known, n->n_findings - known == 1 ? "" : "s");
    for (unsigned i = 0; i < n->n_findings; i++)
        if (!n->findings[i].known)
            finding_entry(f, &n->findings[i]);
    if (known)
        known_table(f, n, known);
    fputs("</section>\n", f);
}

/* The libFuzzer crash kinds that are tiefuzz's own bugs (scripts/nightly-report's TOOL_FAULTS). */
static bool tool_fault(const char *kind)
{
    static const char *const faults[] = {"undefined-behaviour", "memory-error", "timeout", "out-of-memory", "crash"};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        if (kind && !strcmp(kind, faults[i]))
            return true;
    return !kind;
}

static void crash_entry(FILE *f, const rep_crash *c)
{
    fputs("<article class=\"crash\"><h3>", f);
    rep_escape(f, c->target);
    fputs(": ", f);
    rep_escape(f, c->kind);
    fputs("</h3><dl>", f);
    field(f, "file", c->file);
    fputs("</dl><pre class=\"cmd\"><code>", f);
    if (tool_fault(c->kind)) {
        fputs("build/nightly-clang/fuzz/", f);
        rep_escape(f, c->target);
        fputc(' ', f);
    } else {
        fputs("tiefuzz repro ", f);
    }
    rep_shell_word(f, c->file);
    fputs("</code></pre>", f);
    if (c->repro) {
        fputs("<pre class=\"repro\">", f);
        rep_escape(f, c->repro);
        fputs("</pre>", f);
    }
    fputs("</article>\n", f);
}

void rep_page_crashes(FILE *f, const rep_night *n)
{
    fprintf(f, "<section id=\"crashes\"><h2>Crashes</h2><p class=\"meta\">%u new crash file%s of the fuzz "
               "targets.</p>\n", n->n_crashes, n->n_crashes == 1 ? "" : "s");
    for (unsigned i = 0; i < n->n_crashes; i++)
        crash_entry(f, &n->crashes[i]);
    fputs("</section>\n", f);
}
