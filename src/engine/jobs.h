/* engine/jobs: one campaign on N worker processes (tiefuzz run --jobs N).
 *
 * Each worker is a fork of tiefuzz made before any Vulkan call, so each
 * opens its own device handle.  Worker j of N runs the chunks of the case
 * space that eng_next_owned gives it, writes its finding files into a
 * private directory and its results into a report file; the parent sums
 * the reports, keeps for each signature the finding of its earliest case
 * (what one process would have written) and ends the run as one process
 * would: same summary, findings, --json and exit status. */
#ifndef TIEFUZZ_ENGINE_JOBS_H
#define TIEFUZZ_ENGINE_JOBS_H

#include "campaign.h"
#include "report.h"

int eng_run_jobs(const eng_options *o);

#endif
