/* report/page: the sections of the page, one file each (html.c puts them together). */
#ifndef TIEFUZZ_REPORT_PAGE_H
#define TIEFUZZ_REPORT_PAGE_H

#include "report.h"

/* trends.c: the plots across nights, and their numbers as a table. */
void rep_page_trends(FILE *f, const rep_history *h);
/* findings.c: findings newest first (with how to reproduce and export each), and crashes. */
void rep_page_findings(FILE *f, const rep_night *n);
void rep_page_crashes(FILE *f, const rep_night *n);
/* text.c: s as one shell word (quoted when it needs to be), HTML-escaped. */
void rep_shell_word(FILE *f, const char *s);
/* text.c: a count with thousands separators. */
void rep_count(FILE *f, double v);
/* text.c: a right-aligned table cell holding a count, or "-" for NaN. */
void rep_count_cell(FILE *f, double v);

#endif
