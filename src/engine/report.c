/* engine/report: per-op statistics, the summary table and the --json document. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/json.h"
#include "report.h"

/* The covering schedule's rows the op ran: a pipeline each. */
static unsigned rows_run(const eng_op_report *r)
{
    unsigned n = 0;
    for (size_t i = 0; i < sizeof r->cover_rows / sizeof r->cover_rows[0]; i++)
        n += (unsigned)__builtin_popcountll(r->cover_rows[i]);
    return n;
}

void eng_stats_merge(eng_class_stats *into, const eng_class_stats *from)
{
    for (int c = 0; c < GEN_CLASS_COUNT; c++) {
        into->generated[c] += from->generated[c];
        into->verified[c] += from->verified[c];
        into->ties[c] += from->ties[c];
        into->at_result[c] += from->at_result[c];
    }
    for (int i = 0; i < ENG_EXP_RANGE / 8; i++)
        into->tie_exps[i] |= from->tie_exps[i];
    for (int i = 0; i < ISA_CELL_WORDS; i++)
        into->cells[i] |= from->cells[i];
}

unsigned eng_stats_cells(const eng_class_stats *s)
{
    unsigned n = 0;
    for (int i = 0; i < ISA_CELL_WORDS; i++)
        n += (unsigned)__builtin_popcountll(s->cells[i]);
    return n;
}

char *eng_case_message(const char *why, uint64_t index, uint64_t seed)
{
    size_t size = strlen(why) + 64;
    char *msg = malloc(size);
    if (msg)
        snprintf(msg, size, "%s (case %llu of seed %llu)", why, (unsigned long long)index, (unsigned long long)seed);
    return msg;
}

void eng_stats_note_tie_exponent(eng_class_stats *s, int e)
{
    int i = e + ENG_EXP_RANGE / 2;
    if (i >= 0 && i < ENG_EXP_RANGE)
        s->tie_exps[i / 8] |= (uint8_t)(1u << (i % 8));
}

unsigned eng_stats_tie_exponents(const eng_class_stats *s)
{
    unsigned n = 0;
    for (int i = 0; i < ENG_EXP_RANGE / 8; i++)
        n += (unsigned)__builtin_popcount(s->tie_exps[i]);
    return n;
}

/* The class rates of one op, "tie 99.3% (255 exps)  near-tie 99.7%  ...". */
static void class_rates(const eng_options *o, const eng_op_report *r, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    bool seen[GEN_CLASS_COUNT] = {false};
    bool float_op = !r->op->classes || (r->op->classes & (1u << GEN_TIE));
    for (unsigned c = 0; c < o->n_classes && k < n; c++) {
        gen_class g = o->classes[c];
        if (seen[g] || !r->stats.generated[g] || (g == GEN_RANDOM && !float_op))
            continue;
        seen[g] = true;
        double gen = (double)r->stats.generated[g];
        double verified = 100.0 * (double)r->stats.verified[g] / gen, at = 100.0 * (double)r->stats.at_result[g] / gen;
        int w = g == GEN_RANDOM
                    ? snprintf(buf + k, n - k, "%srandom:tie %.3f%%", k ? "  " : "", 100.0 * (double)r->stats.ties[g] / gen)
                    : snprintf(buf + k, n - k, "%s%s %.1f%%", k ? "  " : "", gen_class_name(g), verified);
        k += w > 0 ? (size_t)w : 0;
        /* Where part of a class is reached only before the result (a flushed source, an
         * unfused form's product), the rate at the result too. */
        if (verified - at >= 0.05 && k < n)
            k += (size_t)snprintf(buf + k, n - k, " (%.1f%% at the result)", at);
        if (g == GEN_TIE && eng_stats_tie_exponents(&r->stats) && k < n)
            k += (size_t)snprintf(buf + k, n - k, " (%u exps)", eng_stats_tie_exponents(&r->stats));
    }
}

/* Text in lines of at most `width` columns after an indent, broken at the
 * double spaces between items. */
static void print_wrapped(FILE *f, const char *text, unsigned indent, unsigned width)
{
    while (*text) {
        size_t len = strlen(text), cut = len;
        if (len > width) {
            cut = 0;
            for (const char *p = strstr(text, "  "); p && (size_t)(p - text) <= width; p = strstr(p + 2, "  "))
                cut = (size_t)(p - text);
            if (!cut)
                cut = len;  /* one item longer than the line: whole */
        }
        fprintf(f, "%*s%.*s\n", (int)indent, "", (int)cut, text);
        text += cut;
        while (*text == ' ')
            text++;
    }
}

void eng_report_summary(FILE *f, const eng_options *o, const eng_op_report *reports, unsigned n)
{
    fprintf(f, "\n%-24s %12s %13s %11s %6s\n", "op", "cases", "disagreements", "cases/s", "cells");
    for (unsigned i = 0; i < n; i++) {
        const eng_op_report *r = &reports[i];
        if (r->skipped[0] && !r->cases) {
            fprintf(f, "%-24s %s: %s\n", r->op->name, r->stopped ? "STOPPED" : r->not_run ? "NOT RUN" : "SKIPPED",
                    r->skipped);
            continue;
        }
        fprintf(f, "%-24s %12llu %13llu %11.0f %6u\n", r->op->name, (unsigned long long)r->cases,
                (unsigned long long)r->disagreements, r->seconds > 0 ? (double)r->cases / r->seconds : 0.0,
                eng_stats_cells(&r->stats));
        char rates[700];
        class_rates(o, r, rates, sizeof rates);
        size_t k = strlen(rates);
        if (r->pairs_legal)  /* the covering schedule's control-value pairs (engine/cover.h) */
            snprintf(rates + k, sizeof rates - k, "  control pairs %u/%u", r->pairs_reached, r->pairs_legal);
        print_wrapped(f, rates, 4, 92);
        if (r->skipped[0])
            fprintf(f, "    stopped: %s\n", r->skipped);
    }
}

void eng_mark_not_run(eng_op_report *reports, unsigned n, bool interrupted)
{
    for (unsigned i = 0; i < n; i++) {
        eng_op_report *r = &reports[i];
        if (r->cases || r->skipped[0] || !r->op->translated)
            continue;
        r->not_run = true;
        snprintf(r->skipped, sizeof r->skipped, "%s",
                 interrupted ? "interrupted before it ran a case" : "no case ran before the --time budget was spent");
    }
}

/* Whether part of the run did not happen; why in `why` (may be NULL). */
static bool eng_incomplete(const eng_outcome *r, char *why, size_t n)
{
    unsigned not_run = 0, stopped = 0;  /* stopped: by the device or an internal error, part-way */
    for (unsigned i = 0; i < r->n; i++) {
        not_run += r->reports[i].not_run;
        stopped += r->reports[i].stopped && !r->reports[i].not_run;
    }
    if (why && n) {
        int k = snprintf(why, n, "%s", r->interrupted ? "interrupted" : "");
        if (r->workers_failed && k >= 0 && (size_t)k < n)
            k += snprintf(why + k, n - (size_t)k, "%s%u of %u worker processes failed (their share is missing)",
                          k ? "; " : "", r->workers_failed, r->workers);
        if (not_run && k >= 0 && (size_t)k < n)
            k += snprintf(why + k, n - (size_t)k, "%s%u of %u ops ran no case", k ? "; " : "", not_run, r->n);
        if (stopped && k >= 0 && (size_t)k < n)
            snprintf(why + k, n - (size_t)k, "%s%u of %u ops stopped part-way", k ? "; " : "", stopped, r->n);
    }
    return r->interrupted || r->workers_failed || not_run || stopped;
}

static void write_json(FILE *f, void *ctx)
{
    const eng_outcome *c = ctx;
    io_json j;
    char buf[256], ver[32];
    json_begin(&j, f);
    json_object(&j, NULL);
    json_string(&j, "tool", "tiefuzz");
    json_uint(&j, "format", 1);
    json_object(&j, "device");
    json_string(&j, "name", c->dev->name);
    json_string(&j, "driver", c->dev->driver_name);
    json_string(&j, "driver_info", c->dev->driver_info);
    json_uint(&j, "driver_version", c->dev->driver_version);
    json_string(&j, "api_version", vkd_version_text(c->dev->api_version, ver, sizeof ver));
    json_end_object(&j);
    json_string(&j, "lowering", eng_lowering_label(c->o));
    json_uint(&j, "seed", c->o->seed);
    json_uint(&j, "jobs", c->o->jobs > 1 ? c->o->jobs : 1);
    char shard[32];
    snprintf(shard, sizeof shard, "%u/%u", c->o->shard, c->o->shards);
    json_string(&j, "shard", c->o->shards > 1 ? shard : NULL);
    json_bool(&j, "complete", !eng_incomplete(c, NULL, 0));
    json_bool(&j, "interrupted", c->interrupted);
    if (c->workers) {
        json_object(&j, "workers");
        json_uint(&j, "started", c->workers);
        json_uint(&j, "failed", c->workers_failed);
        json_end_object(&j);
    }
    json_array(&j, "ops");
    for (unsigned i = 0; i < c->n; i++) {
        const eng_op_report *r = &c->reports[i];
        json_object(&j, NULL);
        json_string(&j, "op", r->op->name);
        json_uint(&j, "cases", r->cases);
        json_uint(&j, "disagreements", r->disagreements);
        json_uint(&j, "audited", r->audited);
        json_double(&j, "seconds", r->seconds);
        json_double(&j, "cpu_seconds", r->cpu_seconds);
        json_string(&j, "declared", r->declared);
        json_string(&j, "skipped", r->skipped[0] ? r->skipped : NULL);
        json_bool(&j, "stopped", r->stopped);
        json_bool(&j, "not_run", r->not_run);
        json_object(&j, "classes");
        for (int k = 0; k < GEN_CLASS_COUNT; k++) {
            if (!r->stats.generated[k])
                continue;
            json_object(&j, gen_class_name((gen_class)k));
            json_uint(&j, "generated", r->stats.generated[k]);
            json_uint(&j, "verified", r->stats.verified[k]);
            json_double(&j, "rate", (double)r->stats.verified[k] / (double)r->stats.generated[k]);
            json_double(&j, "tie_rate", (double)r->stats.ties[k] / (double)r->stats.generated[k]);
            json_uint(&j, "ties", r->stats.ties[k]);
            json_uint(&j, "at_result", r->stats.at_result[k]);
            json_double(&j, "at_result_rate", (double)r->stats.at_result[k] / (double)r->stats.generated[k]);
            json_end_object(&j);
        }
        json_end_object(&j);
        json_uint(&j, "tie_exponents", eng_stats_tie_exponents(&r->stats));
        json_uint(&j, "rounding_cells", eng_stats_cells(&r->stats));
        json_array(&j, "rounding_cells_reached");   /* which: the report's cell map */
        for (unsigned c = 0; c < ISA_CELL_WORDS * 64; c++)
            if (r->stats.cells[c / 64] >> (c % 64) & 1)
                json_uint(&j, NULL, c);
        json_end_array(&j);
        json_object(&j, "control_pairs");
        json_uint(&j, "reached", r->pairs_reached);
        json_uint(&j, "legal", r->pairs_legal);
        json_uint(&j, "rows", rows_run(r));
        json_end_object(&j);
        json_array(&j, "disagreements_kept");
        for (unsigned k = 0; k < r->n_kept; k++) {
            const eng_kept_case *fd = &r->kept[k];
            json_object(&j, NULL);
            json_uint(&j, "case", fd->index);
            json_string(&j, "controls", isa_controls_text(&fd->in, buf, sizeof buf));
            json_string(&j, "params", isa_params_text(&fd->in, buf, sizeof buf));
            json_hex_words(&j, "input", fd->words, r->op->n_in);
            json_hex_words(&j, "host", fd->host, r->op->n_out);
            json_hex_words(&j, "device", fd->device, r->op->n_out);
            json_end_object(&j);
        }
        json_end_array(&j);
        json_end_object(&j);
    }
    json_end_array(&j);
    eng_findings_json(c->findings, &j);
    json_end_object(&j);
}


int eng_report_conclude(const eng_outcome *r, int status)
{
    eng_report_summary(stdout, r->o, r->reports, r->n);
    eng_findings_print(r->findings, stdout);
    if (eng_findings_known(r->findings))
        printf("\n%llu disagreements are known divergences, which do not change the exit status (rules: %s)\n",
               (unsigned long long)eng_findings_known(r->findings), r->known_dir);
    char why[200];
    bool incomplete = eng_incomplete(r, why, sizeof why);
    if (incomplete)
        fprintf(stderr, "tiefuzz: incomplete: %s; the summary above covers the cases that ran\n", why);
    if (r->o->json_path && io_write_atomic(r->o->json_path, write_json, (void *)r)) {
        fprintf(stderr, "tiefuzz run: cannot write --json %s\n", r->o->json_path);
        if (status == EXIT_AGREE)
            status = EXIT_USAGE;
    }
    if (r->validation_errors)
        fprintf(stderr, "tiefuzz: %u validation-layer errors: the device's results cannot be trusted\n",
                r->validation_errors);
    bool all_skipped = true, shard_empty = true;
    for (unsigned i = 0; i < r->n; i++) {
        all_skipped &= !r->reports[i].cases;
        shard_empty &= r->reports[i].shard_empty;
    }
    /* Validation errors first: disagreements seen through them are not evidence. */
    if (status <= EXIT_DISAGREE && r->validation_errors)
        status = EXIT_INTERNAL;
    if (status == EXIT_AGREE && eng_findings_unknown(r->findings))
        status = EXIT_DISAGREE;
    if (status == EXIT_AGREE && all_skipped && !incomplete && !shard_empty)
        status = EXIT_NO_DEVICE;  /* nothing could run on this device */
    if (status == EXIT_AGREE && incomplete)
        status = EXIT_INCOMPLETE;
    return status;
}
