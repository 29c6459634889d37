/* engine/campaign: generate, dispatch, evaluate, compare, report. */
#ifndef TIEFUZZ_ENGINE_CAMPAIGN_H
#define TIEFUZZ_ENGINE_CAMPAIGN_H

#include <stdbool.h>
#include <stdint.h>
#include "isa/isa.h"

/* Exit statuses, documented in the README. */
enum { EXIT_AGREE = 0, EXIT_DISAGREE = 1, EXIT_USAGE = 2, EXIT_NO_DEVICE = 3, EXIT_INTERNAL = 4,
       EXIT_INCOMPLETE = 5 /* no disagreement in what ran, but not all of it ran */ };

/* The exact model re-checks every ENG_DEFAULT_AUDIT-th case of a campaign
 * (about 1% of the host's time; see README, Fast and exact). */
#define ENG_DEFAULT_AUDIT 256u

typedef struct {
    const char *const *globs;
    unsigned n_globs;
    const char *device;          /* SEL, or NULL for the default */
    bool validation;
    isa_lowering lowering;
    gen_class classes[GEN_CLASS_LIST_MAX];
    unsigned n_classes;
    uint64_t seed;
    uint64_t cases;              /* per op; 0: time-bound */
    double seconds;              /* all ops together, when cases == 0 */
    const char *json_path;
    bool quiet;
    const char *shader_path;     /* the user's module for the single op */
    const char *ctrl_text;       /* fixed controls, or NULL to fuzz them */
    const char *param_text;
    unsigned batch;              /* tuples per dispatch */
    unsigned timeout_ms;         /* per batch */
    unsigned keep;               /* disagreements kept per op for --json */
    unsigned show;               /* disagreements explained on stderr per op */
    bool strict_nan;
    unsigned audit;              /* the exact model re-checks every audit-th case (0: disagreements only) */
    unsigned threads;            /* generation threads (default: online CPUs) */
    const char *findings_dir;    /* where finding files go (default findings); NULL: none */
    bool minimize;               /* minimize each new finding (default) */
    const char *known_dir;       /* known divergences (default: corpus/known) */
    unsigned shard, shards;      /* run only blocks b with b % shards == shard (shards 0: all) */
    unsigned jobs;               /* worker processes sharing the campaign (0 or 1: this process) */
    /* Set by the jobs layer for each worker process, never by users: */
    unsigned job, n_jobs;        /* this worker's share of the chunks (see eng_next_owned) */
    const char *worker_report;   /* write the results here for the parent instead of printing them */
    struct eng_progress *progress;  /* where the parent reads how far this worker is (shared memory) */
} eng_options;

/* A worker's progress, written by it after every batch, read by the parent
 * for its live status line. */
typedef struct eng_progress {
    _Atomic uint64_t cases, disagreements;
    _Atomic unsigned op;         /* index of the op it runs among the selected ones */
} eng_progress;

/* The known-divergence directory to use when none is given: corpus/known in
 * the working directory, else the one in tiefuzz's source tree. */
const char *eng_default_known_dir(void);
/* corpus/SUB in the working directory, else in tiefuzz's source tree,
 * written into buf (returned). */
const char *eng_default_corpus_dir(const char *sub, char *buf, size_t n);

/* Seconds on the monotonic clock. */
double eng_now(void);
void eng_options_default(eng_options *o);
int eng_run(const eng_options *o);
/* From now on SIGINT and SIGTERM end the campaign cleanly (eng_run also
 * catches them once its device is open); for worker processes, which must
 * always report. */
void eng_catch_interrupts(void);
/* What eng_run checks before it opens a device (op globs, --shader, --ctrl,
 * --param): the selected ops and their count, or -(exit status) after
 * saying what is wrong. */
#define ENG_MAX_OPS 256
int eng_check_run(const eng_options *o, const isa_op *ops[ENG_MAX_OPS]);

/* Select ops by glob (all translated ops when n == 0).  Returns the count,
 * or -1 with the bad glob in *bad. */
int eng_select_ops(const char *const *globs, unsigned n, const isa_op **out, unsigned max, const char **bad);

/* The instance used for cases [block * ENG_BLOCK, (block+1) * ENG_BLOCK):
 * controls and K depend on the seed and the block only, never on the batch
 * size.  fixed_ctrl keeps the template's controls. */
#define ENG_BLOCK 262144u
/* Worker processes of one run (--jobs) split each block into chunks. */
#define ENG_CHUNK 65536u
/* The first case index >= i this process runs: with --shard K/M the blocks
 * b with b % M == K; within them, for job j of n, the chunks whose number
 * among the shard's chunks is j modulo n.  Shards and jobs together still
 * cover every case exactly once. */
uint64_t eng_next_owned(const eng_options *o, uint64_t i);
void eng_block_instance(const isa_instance *tmpl, bool fixed_ctrl, bool fixed_k, uint64_t seed, uint64_t block,
                        const gen_class *classes, unsigned n_classes, isa_instance *out);
/* Case i of an op: its words, host outputs and verdict (by the fast path;
 * the same as the exact model's), and its verified classes. */
uint32_t eng_make_case(const isa_instance *in, uint64_t seed, uint64_t index, const gen_class *classes,
                       unsigned n_classes, uint32_t *words, uint32_t *host, isa_verdict *verdict);
/* The class case i is aimed at. */
static inline gen_class eng_case_class(uint64_t index, const gen_class *classes, unsigned n_classes)
{
    return classes[index % n_classes];
}

#endif
