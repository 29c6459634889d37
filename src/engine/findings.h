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
#include "verdict.h"

typedef struct eng_findings eng_findings;

typedef struct {
    const char *dir;          /* NULL: write no files */
    const io_known *known;
    bool minimize;
    uint64_t seed;
} eng_findings_options;

eng_findings *eng_findings_create(const eng_findings_options *o, eng_exec *x, const eng_target *t);
void eng_findings_destroy(eng_findings *f);
/* The run compares NaN payloads (--strict-nan): each file records it, so
 * repro and export judge the case as the run did. */
void eng_findings_set_strict_nan(eng_findings *f, bool strict);
/* Record one disagreement.  0, or -1 with err (device_error tells a device
 * failure from a file that could not be written). */
int eng_findings_add(eng_findings *f, const isa_instance *in, const uint32_t *words, const uint32_t *host,
                     const uint32_t *device, uint64_t case_index, gen_class c, const char *declared, char *err,
                     size_t errn, bool *device_error);
/* The same in two steps: what a disagreement is (its kind and signature),
 * a pure function of the case that threads may compute side by side, then
 * its recording, in case order. */
typedef struct {
    eng_kind kind;
    uint64_t signature;
} eng_finding_key;
eng_finding_key eng_findings_key(const eng_findings *f, const isa_instance *in, const uint32_t *words,
                                 const uint32_t *host, const uint32_t *device);
/* The signature part of a key, for a caller that judged the kind itself
 * (eng_kind_of): within one instance it depends on the kind alone. */
uint64_t eng_findings_signature(const eng_findings *f, const isa_instance *in, eng_kind k);
int eng_findings_add_keyed(eng_findings *f, eng_finding_key key, const isa_instance *in, const uint32_t *words,
                           const uint32_t *host, const uint32_t *device, uint64_t case_index, gen_class c,
                           const char *declared, char *err, size_t errn, bool *device_error);
/* Whether the store has the key's signature already: its disagreements
 * are then counts alone (eng_findings_count_more), where a new one is recorded,
 * minimized and written by eng_findings_add_keyed. */
bool eng_findings_has(const eng_findings *f, eng_finding_key key);
/* n more disagreements of a signature the store has. */
void eng_findings_count_more(eng_findings *f, eng_finding_key key, uint64_t n);
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
    /* its finding file, or "" when none was written: DIR/<op>-<signature>.finding */
    char path[IO_PATH_MAX];
    bool existed;               /* the file was there before this run (an earlier run found it) */
    eng_verdict verdict;        /* triage of the first case */
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

/* One writer a findings directory: two runs (or a run and a merge) on one
 * directory would mix their records, one run's case with the other's count.
 * The lock is an flock(2) on DIR/.tiefuzz.lock, which also holds the
 * holder's pid for the message; the kernel drops it when the holder dies,
 * so a killed run leaves no stale lock.  --jobs workers, forked after the
 * parent took it, write to their own scratch directories and the parent
 * merges them, so the parent's lock covers them. */
typedef struct {
    int fd;   /* -1: nothing held */
} eng_dir_lock;
enum { ENG_LOCK_HELD = 0, ENG_LOCK_BUSY = 1, ENG_LOCK_FAILED = 2 };
/* Create DIR if needed and lock it without waiting: ENG_LOCK_HELD; or
 * ENG_LOCK_BUSY (another process holds it: err names DIR and its pid) or
 * ENG_LOCK_FAILED (DIR or the lock file cannot be made: err says why).
 * A NULL dir (no findings written) locks nothing and is HELD. */
int eng_dir_lock_take(const char *dir, eng_dir_lock *lock, char *err, size_t errn);
void eng_dir_lock_release(eng_dir_lock *lock);

/* Fill a finding record for a case (explanation included, malloc'd in
 * *explanation_out for the caller to free). */
void eng_finding_fill(io_finding *rec, const isa_instance *in, const uint32_t *words, const uint32_t *host,
                      const uint32_t *device, const eng_target *t, const vkd_info *dev, char **explanation_out);
/* Turn a parsed finding back into an instance and words; NULL or why not. */
const char *eng_finding_case(const io_finding *rec, eng_case *out, isa_lowering *lowering);

#endif
