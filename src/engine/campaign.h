/* engine/campaign: generate, dispatch, evaluate, compare, report. */
#ifndef TIEFUZZ_ENGINE_CAMPAIGN_H
#define TIEFUZZ_ENGINE_CAMPAIGN_H

#include "plan.h"

/* Run the campaign in this process: the summary, findings and --json, and
 * the exit status.  (The CLI chooses eng_run_jobs for --jobs; see jobs.h.) */
int eng_run(const eng_options *o);

/* A --jobs worker's campaign: its share of the cases (o->job of o->n_jobs),
 * its results written to report_path for the parent instead of printed,
 * its progress into shared memory the parent reads. */
typedef struct {
    const char *report_path;
    struct eng_progress *progress;
} eng_worker_io;
int eng_run_worker(const eng_options *o, const eng_worker_io *w);

/* From now on SIGINT and SIGTERM end the campaign cleanly (eng_run also
 * catches them once its device is open); for worker processes, which must
 * always report. */
void eng_catch_interrupts(void);

#endif
