/* report/html: the nightly report page.  One file, nothing fetched: the
 * style is inline, the plots are inline SVG, and there is no script, so it
 * opens the same from a CI artifact, a mail attachment or a phone.  Every
 * string from the inputs goes through rep_escape. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "page.h"

static const char style[] =
    "*{box-sizing:border-box}"
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;padding:0 1rem 2rem;"
    "max-width:78rem;color:#1f2328;background:#fff}"
    "h1{font-size:1.5rem;margin:1rem 0 .25rem}h2{font-size:1.2rem;margin:1.6rem 0 .5rem;"
    "border-bottom:1px solid #d0d7de}h3{font-size:1rem;margin:.2rem 0}"
    ".meta{color:#59636e;margin:0}code,pre{font:13px/1.4 ui-monospace,'DejaVu Sans Mono',monospace}"
    "pre{background:#f6f8fa;padding:.5rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}"
    ".verdict{border-radius:6px;padding:.6rem 1rem;border:2px solid}"
    ".good{border-color:#1a7f37;background:#dafbe1}.bad{border-color:#d1242f;background:#ffebe9}"
    "dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;margin:.4rem 0}"
    "dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}"
    ".wrap{overflow-x:auto}table{border-collapse:collapse;font-size:13px;width:100%}"
    "th,td{border-bottom:1px solid #d0d7de;padding:.25rem .45rem;text-align:left;vertical-align:top}"
    "th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    ".rates{color:#59636e;font-size:12px}.rates-cell{min-width:18rem}.warn{color:#9a6700;font-weight:600}.err{color:#d1242f;font-weight:600}"
    ".bar{display:inline-block;height:.6em;background:#1f6feb;vertical-align:middle;margin-left:.3em}"
    ".plots{display:grid;grid-template-columns:repeat(auto-fit,minmax(20rem,1fr));gap:1rem}"
    "figure{margin:0}figcaption{font-size:13px;color:#59636e}svg{width:100%;height:auto}"
    ".plot text,.cellmap text{font-size:12px;fill:#1f2328}.plot .label{fill:#59636e}"
    ".axis line{stroke:#59636e}.axis line.grid{stroke:#d0d7de}"
    "td.trend{white-space:nowrap}.spark{width:5rem;height:1.5rem;display:inline-block;margin-right:.3rem}.spark polyline{fill:none;stroke:#1f6feb;stroke-width:1.5}"
    ".spark circle{fill:#1f6feb}"
    ".cellmap .on{fill:#1f6feb}.cellmap .off{fill:#fff;stroke:#d0d7de}"
    ".cells{display:grid;grid-template-columns:repeat(auto-fit,minmax(22rem,1fr));gap:.8rem}"
    "article{border:1px solid #d0d7de;border-radius:6px;padding:.5rem .8rem;margin:.6rem 0}"
    ".badge{display:inline-block;border-radius:1em;padding:0 .5em;font-size:12px;background:#eaeef2}"
    ".badge.NEW{background:#ffebe9;color:#d1242f}"
    "@media (max-width:40rem){body{font-size:14px;padding:0 .5rem}table{font-size:12px}"
    "dl{grid-template-columns:1fr}}"
    "@media print{body{max-width:none;font-size:10pt}.wrap{overflow:visible}pre{white-space:pre-wrap}"
    "details::details-content{content-visibility:visible;display:block}"
    "figure,article,tr{break-inside:avoid}.good,.bad{background:none}}";

static void text_elem(FILE *f, const char *tag, const char *s)
{
    fprintf(f, "<%s>", tag);
    rep_escape(f, s);
    fprintf(f, "</%s>", tag);
}

static void head(FILE *f, const rep_night *n)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
          "<title>tiefuzz report ", f);
    rep_escape(f, n->date ? n->date : "");
    fprintf(f, "</title><style>%s</style></head><body>\n", style);
    fputs("<header><h1>tiefuzz nightly report</h1><p class=\"meta\">", f);
    rep_escape(f, n->date ? n->date : "date unknown");
    fputs(" · device ", f);
    rep_escape(f, n->device ? n->device : "unknown");
    if (n->commit) {
        fputs(" · commit ", f);
        rep_escape(f, n->commit);
    }
    if (n->lowering) {
        fputs(" · lowering ", f);
        rep_escape(f, n->lowering);
    }
    if (n->has_seed)
        fprintf(f, " · seed %llu", (unsigned long long)n->seed);
    fputs("</p></header>\n", f);
}

static const char *exit_meaning(int status, bool derived)
{
    switch (status) {
    case 0: return "nothing new";
    case 1: return derived ? "a disagreement no known rule covers" : "new findings or crashes";
    case 2: return "bad usage or input";
    case 3: return "no usable device, or the device stopped an op";
    case 4: return derived ? "internal error" : "a step of the night failed";
    case 5: return "incomplete: part of the campaign did not run";
    default: return "unknown status";
    }
}

static void verdict(FILE *f, const rep_night *n)
{
    unsigned stopped = 0, not_run = 0;
    for (unsigned i = 0; i < n->n_ops; i++) {
        stopped += n->ops[i].stopped;
        not_run += n->ops[i].not_run;
    }
    bool good = n->exit_status == 0;
    fprintf(f, "<section id=\"verdict\" class=\"verdict %s\"><h2>Verdict: %s</h2><dl>", good ? "good" : "bad",
            exit_meaning(n->exit_status, n->exit_derived));
    fprintf(f, "<dt>New findings</dt><dd id=\"v-new\">%u</dd>", n->new_findings);
    fprintf(f, "<dt>Crashes</dt><dd id=\"v-crashes\">%u</dd>", n->n_crashes);
    fprintf(f, "<dt>Stopped ops</dt><dd id=\"v-stopped\">%u</dd>", stopped);
    fprintf(f, "<dt>Ops not run</dt><dd id=\"v-not-run\">%u%s</dd>", not_run,
            n->complete ? "" : n->interrupted ? " (the campaign was interrupted)" : " (the campaign is incomplete)");
    fprintf(f, "<dt>Exit status</dt><dd id=\"v-exit\">%d: %s%s</dd>", n->exit_status,
            exit_meaning(n->exit_status, n->exit_derived),
            n->exit_derived ? " (what tiefuzz run returns for this summary; a run --json does not record it)" : "");
    for (unsigned i = 0; i < n->n_failed_steps; i++) {
        fputs("<dt>Failed step</dt><dd class=\"err\">", f);
        rep_escape(f, n->failed_steps[i]);
        fputs("</dd>", f);
    }
    fputs("</dl></section>\n", f);
}

/* The classes any op generated, in the order the first op lists them. */
static unsigned class_columns(const rep_night *n, const char **names, unsigned max)
{
    unsigned k = 0;
    for (unsigned i = 0; i < n->n_ops; i++)
        for (unsigned c = 0; c < n->ops[i].n_classes; c++) {
            const rep_class *x = &n->ops[i].classes[c];
            unsigned j = 0;
            while (j < k && strcmp(names[j], x->name))
                j++;
            if (j == k && k < max && x->generated)
                names[k++] = x->name;
        }
    return k;
}

static void rate_cell(FILE *f, const rep_op *o, const char *name)
{
    for (unsigned c = 0; c < o->n_classes; c++) {
        const rep_class *x = &o->classes[c];
        if (!strcmp(x->name, name) && x->generated && isfinite(x->rate)) {
            fprintf(f, "<td class=\"n%s\">%.1f</td>", x->rate < 0.5 ? " warn" : "", 100 * x->rate);
            return;
        }
    }
    fputs("<td class=\"n\">-</td>", f);
}

/* Per op, the share of each class's generated cases verified to be of that class. */
static void class_rates(FILE *f, const rep_night *n)
{
    const char *names[64];
    unsigned k = class_columns(n, names, 64);
    if (!k)
        return;
    fputs("<section id=\"classes\"><h2>Class rates</h2><div class=\"wrap\"><table id=\"class-table\">"
          "<caption class=\"meta\">Per op and generator class, the percentage of generated cases verified to "
          "be of that class (for random, how often a uniform pattern happens to be one: the baseline).</caption>"
          "<thead><tr><th scope=\"col\">op</th>", f);
    for (unsigned c = 0; c < k; c++) {
        fputs("<th scope=\"col\">", f);
        rep_escape(f, names[c]);
        fputs("</th>", f);
    }
    fputs("</tr></thead><tbody>\n", f);
    for (unsigned i = 0; i < n->n_ops; i++) {
        if (!n->ops[i].n_classes)
            continue;
        fputs("<tr><th scope=\"row\">", f);
        rep_escape(f, n->ops[i].op);
        fputs("</th>", f);
        for (unsigned c = 0; c < k; c++)
            rate_cell(f, &n->ops[i], names[c]);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div></section>\n", f);
}

static void op_status(FILE *f, const rep_op *o)
{
    if (!o->skipped && !o->stopped && !o->not_run) {
        fputs("ran", f);
        return;
    }
    fprintf(f, "<span class=\"%s\">%s</span> ", o->stopped ? "err" : "warn",
            o->stopped ? "stopped:" : o->not_run ? "not run:" : "skipped:");
    rep_escape(f, o->skipped);
}

/* One op's quantity on every night of the history (at offset in rep_hist_op); NaN where absent. */
static void op_history(const rep_history *h, const char *op, size_t offset, double *out)
{
    for (unsigned i = 0; i < h->n; i++) {
        out[i] = NAN;
        for (unsigned k = 0; k < h->nights[i].n_ops; k++)
            if (!strcmp(h->nights[i].ops[k].name, op))
                out[i] = *(const double *)((const char *)&h->nights[i].ops[k] + offset);
    }
}

static void trend_cell(FILE *f, const rep_history *h, const char *op, double *buf)
{
    fputs("<td class=\"trend\">", f);
    op_history(h, op, offsetof(rep_hist_op, cases_per_s), buf);
    rep_svg_sparkline(f, buf, h->n, "cases/s");
    op_history(h, op, offsetof(rep_hist_op, cells), buf);
    rep_svg_sparkline(f, buf, h->n, "rounding cells");
    fputs("</td>", f);
}

static void op_row(FILE *f, const rep_op *o, const rep_history *h, double *buf)
{
    fputs("<tr class=\"op\" data-op=\"", f);
    rep_escape(f, o->op);
    fputs("\"><th scope=\"row\">", f);
    rep_escape(f, o->op);
    fputs("</th>", f);
    rep_count_cell(f, (double)o->cases);
    rep_count_cell(f, o->seconds > 0 ? (double)o->cases / o->seconds : NAN);
    rep_count_cell(f, (double)o->disagreements);
    fputs("<td class=\"n\">", f);
    rep_count(f, (double)o->unknown);
    fputs(" / ", f);
    rep_count(f, (double)o->known);
    fputs("</td>", f);
    rep_count_cell(f, o->new_signatures);
    if (o->has_cells && o->cases > 0)
        fprintf(f, "<td class=\"n\">%u / %d<span class=\"bar\" style=\"width:%.1fem\"></span></td>", o->cells,
                REP_CELLS, 3.0 * o->cells / REP_CELLS);
    else
        fputs("<td class=\"n\">-</td>", f);
    if (o->has_pairs)
        fprintf(f, "<td class=\"n\">%u / %u</td><td>", o->pairs_reached, o->pairs_legal);
    else
        fputs("<td class=\"n\">-</td><td>", f);
    op_status(f, o);
    fputs("</td>", f);
    trend_cell(f, h, o->op, buf);
    fputs("</tr>\n", f);
}

static void ops_table(FILE *f, const rep_night *n, const rep_history *h)
{
    double *buf = calloc(h->n + 1, sizeof *buf);
    fputs("<section id=\"ops\"><h2>Ops</h2><div class=\"wrap\"><table id=\"ops-table\">"
          "<caption class=\"meta\">Disagreements: unknown (no known rule covers them) / known. New signatures: "
          "findings no earlier run had. Rounding cells: reached of the 192 in the cell space (how many an op can "
          "reach is not recorded). Control pairs: value pairs of two controls the schedule reached, of those a "
          "legal encoding has. The last column draws each op's cases per second and rounding cells "
          "over the nights of the history.</caption><thead><tr><th scope=\"col\">op</th><th scope=\"col\">cases</th>"
          "<th scope=\"col\">cases/s</th><th scope=\"col\">disagreements</th><th scope=\"col\">unknown / known</th>"
          "<th scope=\"col\">new signatures</th>"
          "<th scope=\"col\">rounding cells</th><th scope=\"col\">control pairs</th><th scope=\"col\">status</th>"
          "<th scope=\"col\">across nights: cases/s, cells</th>"
          "</tr></thead><tbody>\n", f);
    for (unsigned i = 0; i < n->n_ops && buf; i++)
        op_row(f, &n->ops[i], h, buf);
    if (!n->n_ops)
        fputs("<tr><td colspan=\"10\">No op ran.</td></tr>", f);
    free(buf);
    fputs("</tbody></table></div></section>\n", f);
}

/* An op with rounding: one that reached a rounding cell (integer ops never do). */
static bool has_rounding(const rep_op *o)
{
    return o->has_cells && o->cells > 0;
}

static void cell_maps(FILE *f, const rep_night *n)
{
    unsigned with_map = 0, float_ops = 0;
    for (unsigned i = 0; i < n->n_ops; i++) {
        float_ops += has_rounding(&n->ops[i]);
        with_map += n->ops[i].has_cell_map;
    }
    fputs("<section id=\"cells\"><h2>Rounding cells</h2>", f);
    if (!with_map) {
        fprintf(f, "<p id=\"cells-note\">The run's JSON carries the number of rounding cells each op reached "
                   "(the column above, %u ops with rounding), not which cells: a per-cell map needs the optional "
                   "<code>rounding_cells_reached</code> list (doc/report.md), which <code>tiefuzz run</code> "
                   "writes; this run's JSON predates the list.</p>", float_ops);
    }
    fputs("<div class=\"cells\">", f);
    for (unsigned i = 0; i < n->n_ops; i++) {
        const rep_op *o = &n->ops[i];
        if (!o->has_cell_map)
            continue;
        fputs("<figure class=\"cellmap-fig\" data-op=\"", f);
        rep_escape(f, o->op);
        fputs("\">", f);
        rep_svg_cell_map(f, o->op, o->cell_map);
        fputs("<figcaption>", f);
        rep_escape(f, o->op);
        fputs(": filled cells were reached, empty ones never</figcaption></figure>\n", f);
    }
    fputs("</div></section>\n", f);
}

static void targets_table(FILE *f, const rep_night *n)
{
    if (!n->n_targets)
        return;
    fputs("<section id=\"targets\"><h2>Fuzz targets</h2><div class=\"wrap\"><table><thead><tr>"
          "<th scope=\"col\">target</th><th scope=\"col\">runs</th><th scope=\"col\">corpus before</th>"
          "<th scope=\"col\">corpus after</th><th scope=\"col\">exit</th></tr></thead><tbody>", f);
    for (unsigned i = 0; i < n->n_targets; i++) {
        const rep_target *t = &n->targets[i];
        fputs("<tr><th scope=\"row\">", f);
        rep_escape(f, t->name);
        fprintf(f, "</th><td class=\"n\">%llu</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td>"
                   "<td class=\"n\">%d</td></tr>",
                (unsigned long long)t->runs, (unsigned long long)t->corpus_before,
                (unsigned long long)t->corpus_after, t->status);
    }
    fputs("</tbody></table></div></section>\n", f);
}

static void footer(FILE *f, const rep_night *n, const rep_history *h)
{
    fputs("<footer><p class=\"meta\">Written by <code>tiefuzz report</code> from ", f);
    text_elem(f, "code", n->source);
    fprintf(f, "; %u night%s of history", h->n, h->n == 1 ? "" : "s");
    if (h->skipped_lines)
        fprintf(f, " (%u malformed history line%s skipped)", h->skipped_lines, h->skipped_lines == 1 ? "" : "s");
    fputs(".</p></footer>\n", f);
}

void rep_html_page(FILE *f, const rep_night *night, const rep_history *h)
{
    head(f, night);
    fputs("<main>\n", f);
    verdict(f, night);
    ops_table(f, night, h);
    rep_page_trends(f, h);
    rep_page_findings(f, night);
    rep_page_crashes(f, night);
    class_rates(f, night);
    cell_maps(f, night);
    targets_table(f, night);
    fputs("</main>\n", f);
    footer(f, night, h);
    fputs("</body></html>\n", f);
}
