/* engine/report: what a campaign measured per op, and the summary table and
 * --json document made from it.  Kept apart from the campaign loop so the
 * jobs layer, which merges what worker processes measured, prints the same
 * reports as a single process. */
#ifndef TIEFUZZ_ENGINE_REPORT_H
#define TIEFUZZ_ENGINE_REPORT_H

#include <stdio.h>
#include "campaign.h"
#include "findings.h"
#include "isa/classify.h"
#include "vk/device.h"

/* One disagreeing case, kept for --json. */
typedef struct {
    uint64_t index;
    isa_instance in;
    uint32_t words[ISA_MAX_IN], host[ISA_MAX_OUT], device[ISA_MAX_OUT];
} eng_kept_case;

#define ENG_EXP_RANGE 2400
/* What generation measured: per class, cases generated and verified in
 * class, cases that are ties, and the result exponents ties reached. */
typedef struct {
    uint64_t generated[GEN_CLASS_COUNT], verified[GEN_CLASS_COUNT], ties[GEN_CLASS_COUNT];
    uint64_t at_result[GEN_CLASS_COUNT];  /* verified at the step that writes the result */
    uint8_t tie_exps[ENG_EXP_RANGE / 8];
    uint64_t cells[ISA_CELL_WORDS];   /* rounding cells reached */
} eng_class_stats;

typedef struct {
    const isa_op *op;
    uint64_t cases, disagreements;
    uint64_t audited;      /* cases the exact model re-checked (sample and disagreements) */
    eng_class_stats stats;
    double seconds;
    /* The process's CPU time over those seconds, every thread's (the
     * driver's too; with --jobs, the workers' summed): cpu_seconds /
     * seconds is how many cores the campaign kept busy. */
    double cpu_seconds;
    char declared[160];
    char skipped[512];     /* why the op did not run, or stopped */
    bool stopped;          /* by the device (a batch timed out, a lost device), not skipped */
    bool not_run;          /* it should have run and ran no case (skipped says why) */
    bool shard_empty;      /* --shard: this shard owns none of the --cases */
    uint64_t cover_rows[8];  /* the covering schedule's rows that ran (engine/cover.h; 512 at most) */
    unsigned pairs_reached, pairs_legal;  /* control-value pairs those rows reach, of the legal ones */
    eng_kept_case *kept;   /* the first n_kept disagreements, by case index */
    unsigned n_kept, kept_cap;  /* kept grows as disagreements come, up to --keep */
} eng_op_report;

void eng_stats_merge(eng_class_stats *into, const eng_class_stats *from);
/* why, followed by the case it is about as campaigns and selftest name one
 * ("(case N of seed S)"), malloc'd; NULL when out of memory. */
char *eng_case_message(const char *why, uint64_t index, uint64_t seed);
unsigned eng_stats_cells(const eng_class_stats *s);
unsigned eng_stats_tie_exponents(const eng_class_stats *s);
/* A tie at exponent e into s's tie exponents (those inside the window
 * campaigns report, ENG_EXP_RANGE wide about 0). */
void eng_stats_note_tie_exponent(eng_class_stats *s, int e);

/* The per-op table on f. */
void eng_report_summary(FILE *f, const eng_options *o, const eng_op_report *reports, unsigned n);

/* Everything a run ends with. */
typedef struct {
    const eng_options *o;
    const vkd_info *dev;
    const eng_op_report *reports;
    unsigned n;
    const eng_findings *findings;
    const char *known_dir;
    unsigned validation_errors;
    bool interrupted;
    unsigned workers, workers_failed;  /* --jobs: worker processes started, and failed (killed, ...) */
} eng_outcome;

/* Mark the ops that should have run and ran no case (translated, not
 * skipped for a reason of their own): interrupted, or the --time budget
 * spent before them.  The summary, --json and the exit status say so. */
void eng_mark_not_run(eng_op_report *reports, unsigned n, bool interrupted);

/* Print the summary table, the findings and the notes, write the --json
 * document (atomically), and return the exit status: status is a failure
 * met during the run (EXIT_AGREE when none); without one, unknown findings
 * (1), nothing run (3), validation-layer errors (4) and an incomplete run
 * (5: interrupted, a worker lost, ops not run) decide, in that order. */
int eng_report_conclude(const eng_outcome *r, int status);

#endif
