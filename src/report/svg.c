/* report/svg: the page's plots, as inline SVG (no script, no external
 * resource).  Each carries a <title> and a <desc> stating what it shows,
 * for screen readers and for anyone whose browser does not draw it; the
 * page adds the numbers as a table beside each. */
#include <math.h>
#include <string.h>
#include "report.h"

enum { W = 640, H = 230, LEFT = 64, RIGHT = 16, TOP = 34, BOTTOM = 44 };

static const char *const palette[] = {"#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#bf3989"};

/* 1234567 -> "1.23M": axis labels stay short on a phone. */
static void compact(double v, char *buf, size_t n)
{
    const char *unit[] = {"", "k", "M", "G", "T"};
    unsigned u = 0;
    while (fabs(v) >= 1000 && u < 4) {
        v /= 1000;
        u++;
    }
    snprintf(buf, n, fabs(v) < 10 && v != floor(v) ? "%.2f%s" : "%.0f%s", v, unit[u]);
}

static double top_of(const rep_plot *p)
{
    double top = 0;
    for (unsigned i = 0; i < p->n_series * p->n_x; i++)
        if (isfinite(p->values[i]) && p->values[i] > top)
            top = p->values[i];
    return top > 0 ? top : 1;
}

static double x_at(const rep_plot *p, unsigned i)
{
    double span = W - LEFT - RIGHT;
    return p->n_x < 2 ? LEFT + span / 2 : LEFT + span * i / (p->n_x - 1);
}

static double y_at(double v, double top)
{
    return TOP + (H - TOP - BOTTOM) * (1 - v / top);
}

/* "2026-12-01T03:17:00+00:00" as "2026-12-01", or "2026-12-01 03:17" (escaped: it is input). */
static void label(FILE *f, const char *date, bool with_time)
{
    char buf[20];
    snprintf(buf, sizeof buf, "%.*s", with_time ? 16 : 10, date ? date : "");
    if (with_time && strlen(buf) > 10)
        buf[10] = ' ';
    rep_escape(f, buf);
}

static void axes(FILE *f, const rep_plot *p, double top)
{
    char buf[32];
    fprintf(f, "<g class=\"axis\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>",
            LEFT, TOP, LEFT, H - BOTTOM, LEFT, H - BOTTOM, W - RIGHT, H - BOTTOM);
    for (int k = 0; k <= 2; k++) {
        double v = top * k / 2, y = y_at(v, top);
        compact(v, buf, sizeof buf);
        fprintf(f, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", LEFT, y, W - RIGHT, y);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>", LEFT - 6, y + 4, buf);
    }
    /* The first and the last night's dates (and the middle one's when there is room);
     * with the time of day when they all fall on one day. */
    const char *first = p->x_labels[0] ? p->x_labels[0] : "", *last = p->x_labels[p->n_x - 1];
    bool same_day = p->n_x > 1 && last && !strncmp(first, last, 10);
    unsigned marks[3] = {0, p->n_x / 2, p->n_x - 1}, n_marks = p->n_x > 4 ? 3 : p->n_x > 1 ? 2 : 1;
    if (n_marks == 2)
        marks[1] = p->n_x - 1;
    for (unsigned k = 0; k < n_marks; k++) {
        unsigned i = marks[k];
        const char *anchor = p->n_x < 2 || (k == 1 && n_marks == 3) ? "middle" : k == 0 ? "start" : "end";
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">", x_at(p, i), H - BOTTOM + 16, anchor);
        label(f, p->x_labels[i], same_day);
        fputs("</text>", f);
    }
    fprintf(f, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">night (UTC %s)</text>",
            LEFT + (W - LEFT - RIGHT) / 2, H - 6, same_day ? "date and time" : "date");
    fprintf(f, "<text class=\"label\" transform=\"translate(14 %d) rotate(-90)\" text-anchor=\"middle\">", TOP + (H - TOP - BOTTOM) / 2);
    rep_escape(f, p->y_label);
    fputs("</text></g>", f);
}

/* One series: a polyline through each run of nights that have a value, and
 * a dot for a night standing alone (the first night, say). */
static void series(FILE *f, const rep_plot *p, unsigned s, double top)
{
    const double *v = p->values + (size_t)s * p->n_x;
    const char *colour = palette[s % (sizeof palette / sizeof palette[0])];
    for (unsigned i = 0; i < p->n_x;) {
        if (!isfinite(v[i])) {
            i++;
            continue;
        }
        unsigned j = i;
        while (j < p->n_x && isfinite(v[j]))
            j++;
        if (j - i == 1) {
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>", x_at(p, i), y_at(v[i], top), colour);
        } else {
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", colour);
            for (unsigned k = i; k < j; k++)
                fprintf(f, "%.1f,%.1f ", x_at(p, k), y_at(v[k], top));
            fputs("\"/>", f);
        }
        i = j;
    }
}

static void legend(FILE *f, const rep_plot *p)
{
    double x = LEFT;
    for (unsigned s = 0; s < p->n_series; s++) {
        const char *colour = palette[s % (sizeof palette / sizeof palette[0])];
        fprintf(f, "<rect x=\"%.0f\" y=\"10\" width=\"10\" height=\"10\" fill=\"%s\"/>", x, colour);
        fprintf(f, "<text x=\"%.0f\" y=\"19\">", x + 14);
        rep_escape(f, p->series_names[s]);
        fputs("</text>", f);
        x += 24 + 7.5 * (double)strlen(p->series_names[s]);
    }
}

void rep_svg_plot(FILE *f, const rep_plot *p)
{
    double top = top_of(p);
    fprintf(f, "<svg class=\"plot\" id=\"%s\" viewBox=\"0 0 %d %d\" role=\"img\" aria-labelledby=\"%s-t %s-d\">",
            p->id, W, H, p->id, p->id);
    fprintf(f, "<title id=\"%s-t\">", p->id);
    rep_escape(f, p->title);
    fprintf(f, "</title><desc id=\"%s-d\">", p->id);
    rep_escape(f, p->desc);
    fputs("</desc>", f);
    axes(f, p, top);
    for (unsigned s = 0; s < p->n_series; s++)
        series(f, p, s, top);
    legend(f, p);
    fputs("</svg>\n", f);
}

static const char *const result_kinds[6] = {"zero", "tiny", "normal", "overflow", "infinite", "NaN"};

/* Rows: the result kind; columns: exact or not, last, guard and sticky bits
 * and sign (the low five bits of the cell, isa_cell's encoding). */
void rep_svg_cell_map(FILE *f, const char *op, const uint64_t *cells)
{
    enum { CELL = 14, LABEL = 64 };
    unsigned reached = 0;
    for (unsigned c = 0; c < REP_CELLS; c++)
        reached += (unsigned)(cells[c / 64] >> (c % 64) & 1);
    fprintf(f, "<svg class=\"cellmap\" viewBox=\"0 0 %d %d\" role=\"img\">",
            LABEL + 32 * CELL + 4, 6 * CELL + 4);
    fputs("<title>Rounding cells of ", f);
    rep_escape(f, op);
    fprintf(f, "</title><desc>%u of %d cells reached. Rows: result kind (zero, tiny, normal, overflow, infinite, NaN);"
               " columns: inexact, last, guard, sticky bits and sign of the final rounding. Filled: reached.</desc>",
            reached, REP_CELLS);
    for (unsigned k = 0; k < 6; k++) {
        fprintf(f, "<text x=\"0\" y=\"%u\">%s</text>", k * CELL + 12, result_kinds[k]);
        for (unsigned low = 0; low < 32; low++) {
            unsigned c = k << 5 | low;
            bool on = cells[c / 64] >> (c % 64) & 1;
            fprintf(f, "<rect class=\"%s\" x=\"%u\" y=\"%u\" width=\"%d\" height=\"%d\"/>", on ? "on" : "off",
                    LABEL + low * CELL, k * CELL + 2, CELL - 2, CELL - 2);
        }
    }
    fputs("</svg>\n", f);
}

void rep_svg_sparkline(FILE *f, const double *v, unsigned n, const char *what)
{
    enum { SW = 120, SH = 24 };
    double lo = INFINITY, hi = -INFINITY, first = NAN, last = NAN;
    for (unsigned i = 0; i < n; i++)
        if (isfinite(v[i])) {
            lo = fmin(lo, v[i]);
            hi = fmax(hi, v[i]);
            first = isfinite(first) ? first : v[i];
            last = v[i];
        }
    char a[32] = "-", b[32] = "-";
    if (isfinite(first)) {
        compact(first, a, sizeof a);
        compact(last, b, sizeof b);
    }
    fprintf(f, "<svg class=\"spark\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", SW, SH);
    rep_escape(f, what);
    fprintf(f, " across %u night%s: first %s, last %s\"><title>", n, n == 1 ? "" : "s", a, b);
    rep_escape(f, what);
    fprintf(f, ": %s to %s</title>", a, b);
    double span = hi > lo ? hi - lo : 1;
    bool open = false;
    for (unsigned i = 0; i < n; i++) {
        double x = n < 2 ? SW / 2.0 : 2 + (SW - 4.0) * i / (n - 1), y = SH - 3 - (SH - 6) * (v[i] - lo) / span;
        if (!isfinite(v[i])) {
            fputs(open ? "\"/>" : "", f);
            open = false;
            continue;
        }
        if (!open)
            fputs("<polyline points=\"", f);
        fprintf(f, "%.0f,%.1f ", x, y);
        open = true;
    }
    fputs(open ? "\"/>" : "", f);
    if (isfinite(last))   /* the last night stands out, so a single night shows too */
        fprintf(f, "<circle cx=\"%.0f\" cy=\"%.1f\" r=\"2\"/>", n < 2 ? SW / 2.0 : SW - 2.0,
                SH - 3 - (SH - 6) * (last - lo) / span);
    fputs("</svg>", f);
}
