/* engine/worker_report: what a --jobs worker measured, written for the
 * parent to merge (a binary file, read by the same program image). */
#ifndef TIEFUZZ_ENGINE_WORKER_REPORT_H
#define TIEFUZZ_ENGINE_WORKER_REPORT_H

#include "report.h"

typedef struct {
    char magic[8];
    int status;                  /* the worker's exit status */
    unsigned validation_errors;
    int interrupted;
    unsigned n_ops, n_findings;
    vkd_info dev;
} eng_worker_report_header;

typedef struct {
    eng_worker_report_header h;
    eng_op_report *ops;          /* n_ops, each with its kept cases */
    eng_finding_entry *findings; /* n_findings */
} eng_worker_report;

/* In a worker: write what it measured.  Returns the worker's exit status
 * (status, or EXIT_INTERNAL when the report cannot be written). */
int eng_worker_write(const char *path, const eng_outcome *r, int status);
/* In the parent: 0, or -1 with err when the file is missing or incomplete. */
int eng_worker_report_read(const char *path, unsigned n_ops, eng_worker_report *w, char *err, size_t errn);
void eng_worker_report_free(eng_worker_report *w);

#endif
