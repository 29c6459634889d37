/* engine/options: what a campaign is asked to do, and its exit statuses. */
#ifndef TIEFUZZ_ENGINE_OPTIONS_H
#define TIEFUZZ_ENGINE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
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
    const char *translator;      /* the user's command giving a module per setting (--translator) */
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
    /* Set by the jobs layer in each worker's copy, never by users: */
    unsigned job, n_jobs;        /* this worker's share of the chunks (see eng_next_owned) */
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

/* The lowering a run's findings and reports name: "user-shader" for a
 * module the user gives (--shader, --translator), else the built-in one's. */
static inline const char *eng_lowering_label(const eng_options *o)
{
    return o->shader_path || o->translator ? "user-shader" : isa_lowering_name(o->lowering);
}

/* Seconds on the monotonic clock. */
double eng_now(void);
/* The CPU time the process has used, every thread's (a Vulkan driver's
 * own threads included), in seconds. */
double eng_cpu_seconds(void);
void eng_options_default(eng_options *o);

#endif
