/* report/trends: the history as plots (one per quantity, all nights on the
 * x axis) and as a table with the same numbers, which is also what a reader
 * without SVG gets. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "page.h"

/* A quantity of one night, summed over its ops (NaN when no op has it). */
static double op_sum(const rep_hist_night *x, size_t offset)
{
    double sum = NAN;
    for (unsigned i = 0; i < x->n_ops; i++) {
        double v = *(const double *)((const char *)&x->ops[i] + offset);
        if (isfinite(v))
            sum = isfinite(sum) ? sum + v : v;
    }
    return sum;
}

/* Cases per second of the whole campaign: all cases over all op seconds. */
static double campaign_rate(const rep_hist_night *x)
{
    double cases = 0, seconds = 0;
    for (unsigned i = 0; i < x->n_ops; i++)
        if (isfinite(x->ops[i].cases) && isfinite(x->ops[i].cases_per_s) && x->ops[i].cases_per_s > 0) {
            cases += x->ops[i].cases;
            seconds += x->ops[i].cases / x->ops[i].cases_per_s;
        }
    return seconds > 0 ? cases / seconds : NAN;
}

/* The fuzz targets named on any night, in order of first appearance. */
static unsigned target_names(const rep_history *h, const char **names, unsigned max)
{
    unsigned n = 0;
    for (unsigned i = 0; i < h->n; i++)
        for (unsigned t = 0; t < h->nights[i].n_targets; t++) {
            const char *name = h->nights[i].targets[t].name;
            unsigned k = 0;
            while (k < n && strcmp(names[k], name))
                k++;
            if (k == n && n < max)
                names[n++] = name;
        }
    return n;
}

static double corpus_of(const rep_hist_night *x, const char *name)
{
    for (unsigned t = 0; t < x->n_targets; t++)
        if (!strcmp(x->targets[t].name, name))
            return x->targets[t].corpus;
    return NAN;
}

typedef struct {
    const char **dates;
    double *cases, *rate, *found, *cells, *corpus;   /* found: new findings then crashes */
    const char *targets[8];
    unsigned n_targets;
} series_set;

static int collect(const rep_history *h, series_set *s)
{
    unsigned n = h->n;
    s->n_targets = target_names(h, s->targets, 8);
    s->dates = calloc(n + 1, sizeof *s->dates);
    s->cases = calloc(n + 1, sizeof(double));
    s->rate = calloc(n + 1, sizeof(double));
    s->found = calloc(2 * n + 1, sizeof(double));
    s->cells = calloc(n + 1, sizeof(double));
    s->corpus = calloc((size_t)(s->n_targets + 1) * n + 1, sizeof(double));
    if (!s->dates || !s->cases || !s->rate || !s->found || !s->cells || !s->corpus)
        return -1;
    for (unsigned i = 0; i < n; i++) {
        const rep_hist_night *x = &h->nights[i];
        s->dates[i] = x->date;
        s->cases[i] = op_sum(x, offsetof(rep_hist_op, cases));
        s->rate[i] = campaign_rate(x);
        s->found[i] = x->new_findings;
        s->found[n + i] = x->crashes;
        s->cells[i] = op_sum(x, offsetof(rep_hist_op, cells));
        for (unsigned t = 0; t < s->n_targets; t++)
            s->corpus[(size_t)t * n + i] = corpus_of(x, s->targets[t]);
    }
    return 0;
}

static void release(series_set *s)
{
    free(s->dates);
    free(s->cases);
    free(s->rate);
    free(s->found);
    free(s->cells);
    free(s->corpus);
}

static void figure(FILE *f, const rep_plot *p, const char *caption)
{
    fputs("<figure>", f);
    rep_svg_plot(f, p);
    fputs("<figcaption>", f);
    rep_escape(f, caption);
    fputs("</figcaption></figure>\n", f);
}

static void plots(FILE *f, const rep_history *h, const series_set *s)
{
    static const char *const cases[] = {"cases"}, *const rate[] = {"cases/s"},
                             *const found[] = {"new findings", "crashes"}, *const cells[] = {"cells"};
    unsigned n = h->n;
    rep_plot p[] = {
        {"plot-cases", "Cases per night", "Cases run by the campaign each night, all ops together.", "cases",
         s->dates, n, cases, 1, s->cases},
        {"plot-rate", "Cases per second", "The campaign's cases per second each night: all cases over all op time.",
         "cases per second", s->dates, n, rate, 1, s->rate},
        {"plot-found", "New findings and crashes", "New findings (signatures no earlier night had) and fuzz target "
         "crashes each night.", "count", s->dates, n, found, 2, s->found},
        {"plot-cells", "Rounding cells reached", "Rounding cells reached each night, summed over the ops.",
         "cells (sum over ops)", s->dates, n, cells, 1, s->cells},
        {"plot-corpus", "Fuzz target corpus sizes", "Inputs in each libFuzzer target's corpus after each night.",
         "inputs", s->dates, n, s->targets, s->n_targets, s->corpus},
    };
    fputs("<div class=\"plots\">", f);
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        if (p[i].n_series)
            figure(f, &p[i], p[i].desc);
    fputs("</div>\n", f);
}

static void data_table(FILE *f, const rep_history *h, const series_set *s)
{
    fputs("<details id=\"trend-data\"><summary>The numbers (one row a night)</summary><div class=\"wrap\">"
          "<table><thead><tr><th scope=\"col\">night</th><th scope=\"col\">commit</th><th scope=\"col\">exit</th>"
          "<th scope=\"col\">cases</th><th scope=\"col\">cases/s</th><th scope=\"col\">new findings</th>"
          "<th scope=\"col\">crashes</th><th scope=\"col\">cells</th>", f);
    for (unsigned t = 0; t < s->n_targets; t++) {
        fputs("<th scope=\"col\">corpus ", f);
        rep_escape(f, s->targets[t]);
        fputs("</th>", f);
    }
    fputs("</tr></thead><tbody>\n", f);
    for (unsigned i = h->n; i-- > 0;) {   /* newest first */
        const rep_hist_night *x = &h->nights[i];
        fputs("<tr><th scope=\"row\">", f);
        rep_escape(f, x->date);
        fputs("</th><td>", f);
        rep_escape(f, x->commit ? x->commit : "");
        fprintf(f, "</td><td class=\"n\">%d</td>", x->exit_status);
        rep_count_cell(f, s->cases[i]);
        rep_count_cell(f, s->rate[i]);
        rep_count_cell(f, s->found[i]);
        rep_count_cell(f, s->found[h->n + i]);
        rep_count_cell(f, s->cells[i]);
        for (unsigned t = 0; t < s->n_targets; t++)
            rep_count_cell(f, s->corpus[(size_t)t * h->n + i]);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div></details>\n", f);
}

void rep_page_trends(FILE *f, const rep_history *h)
{
    fprintf(f, "<section id=\"trends\"><h2>Trends</h2><p class=\"meta\">%u night%s%s.</p>", h->n,
            h->n == 1 ? "" : "s", h->n <= 1 ? " (the first night: no history yet, so each plot is one point)" : "");
    series_set s;
    memset(&s, 0, sizeof s);
    if (h->n && collect(h, &s) == 0) {
        plots(f, h, &s);
        data_table(f, h, &s);
    }
    release(&s);
    fputs("</section>\n", f);
}
