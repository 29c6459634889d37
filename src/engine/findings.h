/* engine/findings: the findings store of a run.  Each disagreement gets a
 * kind and a signature; a known divergence is counted apart; the first case
 * of each new signature is minimized and written to DIR/<op>-<signature>.finding
 * (atomically), known divergences included; repeats are counted. */
#ifndef TIEFUZZ_ENGINE_FINDINGS_H
#define TIEFUZZ_ENGINE_FINDINGS_H

#include <stdio.h>
#include "exec.h"
#include "io/finding.h"
#include "io/json.h"
#include "io/known.h"
#include "minimize.h"
#include "signature.h"

typedef struct eng_findings eng_findings;

typedef struct {
    const char *dir;          /* NULL: write no files */
    const io_known *known;
    bool minimize;
    uint64_t seed;
} eng_findings_options;

eng_findings *eng_findings_create(const eng_findings_options *o, eng_exec *x, const eng_target *t);
void eng_findings_destroy(eng_findings *f);
/* Record one disagreement.  0, or -1 with err (device_error tells a device
 * failure from a file that could not be written). */
int eng_findings_add(eng_findings *f, const isa_instance *in, const uint32_t *words, const uint32_t *host,
                     const uint32_t *device, uint64_t case_index, gen_class c, const char *declared, char *err,
                     size_t errn, bool *device_error);
/* At the end of a run: each finding file written gets its final count (the
 * cases with its signature), so merged shards can sum them.  0, or -1 with err. */
int eng_findings_finish(eng_findings *f, char *err, size_t errn);
/* One signature's record, as it moves between processes (--jobs). */
typedef struct {
    uint64_t signature, count;
    uint64_t case_index;        /* of the first case with this signature, the one minimized */
    const isa_op *op;
    eng_kind kind;
    unsigned complexity_before, complexity_after, rounds;
    char path[600];             /* its finding file, or "" when none was written */
} eng_finding_entry;

unsigned eng_findings_count(const eng_findings *f);
void eng_findings_entry(const eng_findings *f, unsigned i, eng_finding_entry *out);
/* Fold in a signature another process found: counts add up and, where both
 * found it, the finding of the earlier case is kept, which is the one a
 * single process running the cases in order would have written (the
 * minimizer is deterministic).  Its file is copied into this store's
 * directory.  0, or -1 with err. */
int eng_findings_absorb(eng_findings *f, const eng_finding_entry *e, char *err, size_t errn);
/* Order the signatures as one process meets them: by op, then by first case. */
void eng_findings_sort(eng_findings *f);

uint64_t eng_findings_unknown(const eng_findings *f);  /* disagreements not known */
uint64_t eng_findings_known(const eng_findings *f);
void eng_findings_print(const eng_findings *f, FILE *out);
void eng_findings_json(const eng_findings *f, io_json *j);

/* Fill a finding record for a case (explanation included, malloc'd in
 * *explanation_out for the caller to free). */
void eng_finding_fill(io_finding *rec, const isa_instance *in, const uint32_t *words, const uint32_t *host,
                      const uint32_t *device, const eng_target *t, const vkd_info *dev, char **explanation_out);
/* Turn a parsed finding back into an instance and words; NULL or why not. */
const char *eng_finding_case(const io_finding *rec, eng_case *out, isa_lowering *lowering);

#endif
