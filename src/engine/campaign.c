/* The campaign loop.
 *
 * Cases are made per index from (seed, op, index), so the same seed gives
 * the same cases whatever the batch size.  Several batches are in flight
 * (run_batches): while the device runs one, worker threads generate and
 * evaluate those after it and check those before it. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include "campaign.h"
#include "compare.h"
#include "cover.h"
#include "explain.h"
#include "exec.h"
#include "findings.h"
#include "pool.h"
#include "worker_report.h"
#include "validated.h"
#include "report.h"
#include "io/json.h"
#include "isa/classify.h"
#include "known_derive.h"
#include "vk/runner.h"

static volatile sig_atomic_t interrupted;
static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* Ctrl-C, or SIGTERM from a CI job's timeout: stop cleanly, with the summary.
 * old, when given, receives the two previous handlers. */
static void catch_interrupts(struct sigaction old[2])
{
    struct sigaction sa = {.sa_handler = on_sigint};
    sigaction(SIGINT, &sa, old ? &old[0] : NULL);
    sigaction(SIGTERM, &sa, old ? &old[1] : NULL);
}

void eng_catch_interrupts(void) { catch_interrupts(NULL); }

/* ---- the campaign ---- */

typedef struct {
    const eng_options *o;
    vkd_device *dev;
    eng_exec *exec;
    eng_findings *findings;
    eng_pool *pool;       /* the generation and check threads */
    const char *declared;
    int failure;          /* exit status of a failure inside a batch check */
    char *audit_failure;  /* the first fast/exact difference found (malloc'd), or NULL */
    gen_class classes[64];  /* the requested classes that apply to the current op */
    unsigned n_classes;
    unsigned workers;     /* the pool's threads besides the caller's; each slot has a share for each (one if none) */
    uint64_t cases_before, disagreements_before;  /* of the ops already run, for progress */
    eng_progress *progress;  /* a --jobs worker's, read by its parent; else NULL */
    double end;  /* when a --time run ends */
} run_state;

/* Where a slot's batch stands.  Batches go through the slots in case
 * order: the main thread readies one (FILLING), the workers generate it a
 * chunk at a time (FILLED), the main thread submits it (ON_DEVICE) and,
 * once the device is done, hands it back to the workers to compare and
 * re-check a chunk at a time (CHECKING, CHECKED), then records its
 * disagreements and frees it.  A batch whose sampled audit failed is not
 * submitted (AUDIT_FAILED): it is reported once the batches before it are
 * recorded. */
typedef enum { SLOT_FREE, SLOT_FILLING, SLOT_FILLED, SLOT_ON_DEVICE, SLOT_AUDIT_FAILED, SLOT_CHECKING, SLOT_CHECKED } slot_state;

/* One worker's part in one batch, on cache lines of its own (the worker
 * writes its statistics for every case): what its chunks measured, and the
 * earliest failures it met, of the sampled audit and of the re-checks.  A
 * worker takes a batch's chunks in increasing order, so its first failure
 * is its earliest. */
typedef struct {
    _Alignas(64) eng_class_stats stats;
    uint64_t audited;
    char *audit_failure;   /* a sampled case's fast/exact difference (malloc'd), or NULL */
    uint64_t audit_index;  /* its case index */
    char *check_failure;   /* a disagreement's failed re-check (malloc'd), or NULL */
    unsigned check_at;     /* its case within the batch */
} slot_share;

/* A slot's shares: one a worker, and one where there is none (the
 * conductor then does the chunks). */
static unsigned shares(const run_state *s) { return s->workers ? s->workers : 1; }

/* One batch slot: cases [start, start+count) of one instance. */
typedef struct {
    vkr_batch *batch;
    uint32_t *words, *host;
    /* Of each case, for check's disagreements (fill_range keeps them):
     * whether its verdict has a final rounding on a tie.  (A case's class
     * is its index's, eng_case_class.) */
    uint8_t *tie;
    uint64_t start;
    unsigned count;
    isa_instance in;
    int row;             /* the covering schedule's row it runs, or -1 (a block's instance) */
    char declared[160];  /* the module's declared behaviour, for its findings */
    /* Under the flow's lock: the state, and the chunks of the current
     * stage (generation or check) handed out and done. */
    slot_state state;
    unsigned chunk, chunks, next_chunk, chunks_done;
    slot_share *shares;  /* one a worker */
} slot;

/* Batches in flight at once: about 1M cases' worth, 2 to 16 slots (16 at
 * the default --batch, 84 MB of buffers; 2 from 349,526 cases a batch).  With
 * two (one generated while the device ran the other) both threads met at
 * the end of each generation and each check: on lavapipe, whose threads
 * share the cores, one was often waiting for the other's last chunk while
 * the device's thread held its core, and the cores stood idle 15-17% of a
 * maxwell.xmad campaign (perf sched).  A worker that finds one batch's
 * chunks gone goes on to the next, and the slots ahead keep the workers
 * busy while the conductor waits for a core (with four, 8% idle).  Sixteen
 * took 4-15% more cases a second than eight for five of the six Maxwell
 * ops, v_fmac_f32 and v_pk_fma_f16 on lavapipe (plain 32M-case campaigns,
 * 7 alternating runs; as many wake-ups, perf), for 25 MB more of a
 * maxwell.xmad run's memory; 32 were a little faster again, for 75 MB
 * more and 0.15 s more to start. */
#define SLOTS_MAX 16
#define IN_FLIGHT_CASES (1u << 20)
static unsigned slot_count(unsigned batch)
{
    unsigned n = IN_FLIGHT_CASES / batch;
    return n < 2 ? 2 : n > SLOTS_MAX ? SLOTS_MAX : n;
}

/* A block's cases, first .. first + m - 1, into the statistics, and each
 * case's tie mark into tie[0..m) (check reads them for the disagreements).
 * The classes cycle with the case index, so the cases go a class at a
 * time, every n-th from the class's first: in the inner loop the class is
 * fixed and its counts are registers.  The cells too: ORed into an array,
 * GCC 12 kept part of it on the stack, a store and a load a case on one
 * chain.  A case at a time, with the class stepped and a case's four counts
 * packed into one add to memory, this was about a tenth of a plain
 * maxwell.imul_imm16 campaign's CPU time (perf); 3.2 to 1.6 ns a case on a
 * block in the cache, the cells in registers half of that. */
_Static_assert(ISA_CELL_WORDS == 3, "note_block ORs three words of cells");
static void note_block(eng_class_stats *st, uint64_t first, const gen_class *classes, unsigned n,
                       const isa_verdict *v, unsigned m, uint8_t *tie)
{
    uint64_t cells0 = 0, cells1 = 0, cells2 = 0;
    for (unsigned j = 0; j < n && j < m; j++) {
        gen_class c = eng_case_class(first + j, classes, n);
        uint64_t generated = 0, verified = 0, at_result = 0, ties = 0;
        for (unsigned t = j; t < m; t += n) {
            const isa_verdict *x = &v[t];
            cells0 |= x->cells[0];
            cells1 |= x->cells[1];
            cells2 |= x->cells[2];
            uint32_t is_tie = x->classes >> GEN_TIE & 1;
            generated++;
            verified += x->classes >> c & 1;
            at_result += x->at_result >> c & 1;
            ties += is_tie;
            if (is_tie)
                eng_stats_note_tie_exponent(st, x->tie_exp);
            tie[t] = x->tie_exp != ISA_NO_EXPONENT;
        }
        st->generated[c] += generated;
        st->verified[c] += verified;
        st->at_result[c] += at_result;
        st->ties[c] += ties;
    }
    st->cells[0] |= cells0;
    st->cells[1] |= cells1;
    st->cells[2] |= cells2;
}

/* NULL where the exact model agrees with the fast path on a case, else
 * what differs and the case's index and seed, as selftest says them
 * (malloc'd; NULL too where that fails: the next audit or re-check tries
 * again). */
static char *audit_case(const isa_instance *in, const uint32_t *words, const uint32_t *host, const isa_verdict *v,
                        uint32_t want, uint64_t index, uint64_t seed)
{
    char why[2048];
    if (isa_fast_audit(in, words, host, v, want, why, sizeof why))
        return NULL;
    return eng_case_message(why, index, seed);
}

/* A case's share of a chunk's work: 1 for every op whose cases fit in 8
 * words, n_in / 8 (a batch holds 8 words a case; a Volta tile's 64 words
 * weigh 8, an Ampere one's 320 weigh 40).  The split into chunks goes by
 * work: with a tile batch's 1,024-4,096 cases counted as cases, one
 * thread made all of a tile campaign's cases. */
static unsigned case_weight(const isa_op *op) { return op->n_in > 8 ? op->n_in / 8 : 1; }

/* A chunk of a batch, for its generation and its check: about 1,024 scalar
 * cases' work, so a batch spreads over the workers and a chunk's words
 * stay in one core's cache. */
#define CHUNK_WORK 1024u
static unsigned chunk_cases(const isa_op *op)
{
    unsigned n = CHUNK_WORK / case_weight(op);
    return n ? n : 1;
}

/* Generation and host evaluation of a batch's cases [from, to), one chunk,
 * by a worker (cases depend on their index only, so any split gives the
 * same cases). */
static void fill_range(const run_state *s, slot *sl, slot_share *sh, unsigned from, unsigned to)
{
    enum { BLOCK = ISA_GENERATE_BLOCK };  /* eng_make_cases's block: generation's designs go a class at a time */
    const isa_op *op = sl->in.op;
    unsigned audit = s->o->audit;
    uint32_t *upload = vkr_batch_input(sl->batch);
    isa_verdict v[BLOCK];
    /* The per-case stores below are bytes, which may alias anything: with
     * the slot's arrays and the statistics reached through pointers, GCC
     * reloaded those pointers and counters for every case (fill_range's own
     * loop was 5% of a v_fmaak_f32 campaign on lavapipe, perf).  In locals
     * they stay in registers; the statistics go back at the end. */
    uint8_t *tie = sl->tie;
    eng_class_stats stats = sh->stats;
    /* The next index the exact model audits (a multiple of audit), stepped
     * rather than divided for. */
    uint64_t start = sl->start + from;
    uint64_t next_audit = audit ? (start + audit - 1) / audit * audit : UINT64_MAX;
    bool has_fast = isa_has_fast(op);
    for (unsigned first = from; first < to; first += BLOCK) {
        unsigned m = to - first < BLOCK ? to - first : BLOCK;
        uint32_t *words = sl->words + (size_t)first * op->n_in;
        eng_make_cases(&sl->in, s->o->seed, sl->start + first, m, s->classes, s->n_classes, words,
                       sl->host + (size_t)first * op->n_out, v);
        /* Into the upload buffer while the words are in this core's cache.
         * The copy in host memory stays for check: mapped device memory may
         * be uncached, slow to read back (vk/memory.c), and a translated
         * shader under test may write its input binding by mistake, where
         * the host's copy is still what was asked.  The copy is 2-3% of a
         * Maxwell campaign's CPU on lavapipe (perf). */
        memcpy(upload + (size_t)first * op->n_in, words, (size_t)m * op->n_in * 4);
        note_block(&stats, sl->start + first, s->classes, s->n_classes, v, m, tie + first);
        /* The exact model re-checks a sample (by index, so any split audits
         * the same cases), where the op has a fast path to audit. */
        for (; has_fast && next_audit < sl->start + first + m;
             next_audit = audit > UINT64_MAX - next_audit ? UINT64_MAX : next_audit + audit) {
            unsigned i = (unsigned)(next_audit - sl->start), t = i - first;
            const uint32_t *w = sl->words + (size_t)i * op->n_in, *h = sl->host + (size_t)i * op->n_out;
            sh->audited++;
            if (!sh->audit_failure &&
                (sh->audit_failure = audit_case(&sl->in, w, h, &v[t],
                                                1u << eng_case_class(next_audit, s->classes, s->n_classes),
                                                next_audit, s->o->seed)))
                sh->audit_index = next_audit;
        }
    }
    sh->stats = stats;
}

/* A batch's disagreements: bad_at[0..n) the disagreeing cases in order,
 * keys[] beside them; while the chunks are checked, chunk c's at
 * c * chunk_cases, n_found[c] of them.  The run's, sized for --batch cases
 * (and chunks of one case): one batch is checked at a time. */
typedef struct {
    uint32_t *bad_at;
    eng_finding_key *keys;
    unsigned *n_found;
} disagreements;

/* What check needs of each disagreement before it records them in case
 * order: the comparison of host and device outputs, the exact model's
 * re-check of the host outputs and the finding's key.  All are pure, so the
 * workers share them out a chunk of the batch at a time, each chunk
 * compared and its disagreements re-checked while its words are in the
 * worker's cache.  On a device that takes a known liberty (lavapipe's
 * unfused Fma) about 30% of the fused ops' cases disagree, and on one thread the
 * re-check and keys were half the campaign's time; compared on one thread
 * before them, the batch's outputs came in from memory twice (the
 * comparison 4-12 ms of a 2M-case v_fmaak_f32 campaign's 110, the same
 * pass again 2.8). The key's kind asks whether a final rounding was a tie:
 * the case's verdict says (sl->tie, kept by fill_range), the same answer the
 * exact model's trace gives wherever the verdicts are audited (the --audit
 * sample, and case by case in tests), so the re-check runs the model without
 * a trace: with the class's division a disagreement gone too (check), a
 * --ctrl '' v_fma_f32 campaign on lavapipe went from 981 to 946
 * instructions a case (callgrind, the whole process).  A batch shares one
 * instance, so a signature depends on the kind alone: each is made once a
 * chunk. */
typedef struct {
    uint64_t signature[KIND_COUNT];
    bool signed_kind[KIND_COUNT];
} chunk_signatures;

/* The exact model's re-check of disagreement i, and its key. */
static void recheck_one(const run_state *s, const slot *sl, slot_share *sh, unsigned i, chunk_signatures *sig,
                        eng_finding_key *key)
{
    const isa_instance *in = &sl->in;
    const isa_op *op = in->op;
    const uint32_t *w = sl->words + (size_t)i * op->n_in, *h = sl->host + (size_t)i * op->n_out;
    uint32_t exact[ISA_MAX_OUT];
    op->impl->eval(in, w, exact, NULL);
    bool differ = false;  /* a loop, not memcmp: a library call per disagreement, for a word or two */
    for (unsigned k = 0; k < op->n_out; k++)
        differ |= exact[k] != h[k];
    if (differ && isa_has_fast(op) && !sh->check_failure &&
        (sh->check_failure = audit_case(in, w, h, NULL, 0, sl->start + i, s->o->seed)))
        sh->check_at = i;
    eng_kind k = eng_kind_of(op, sl->tie[i], h, vkr_batch_output(sl->batch) + (size_t)i * op->n_out);
    if (!sig->signed_kind[k]) {
        sig->signature[k] = eng_findings_signature(s->findings, in, k);
        sig->signed_kind[k] = true;
    }
    *key = (eng_finding_key){k, sig->signature[k]};
}

/* The comparison and re-checks of a batch's cases [from, to), one chunk,
 * by a worker; its disagreements into found at from. */
static void check_range(const run_state *s, const slot *sl, slot_share *sh, disagreements *found, unsigned from,
                        unsigned to)
{
    const isa_op *op = sl->in.op;
    uint32_t *bad = found->bad_at + from;
    eng_finding_key *keys = found->keys + from;
    chunk_signatures sig = {0};
    unsigned n = eng_compare_buffers(op, sl->host + (size_t)from * op->n_out,
                                     vkr_batch_output(sl->batch) + (size_t)from * op->n_out, to - from,
                                     s->o->strict_nan, bad);
    found->n_found[from / sl->chunk] = n;
    for (unsigned b = 0; b < n; b++) {
        bad[b] += from;
        recheck_one(s, sl, sh, bad[b], &sig, &keys[b]);
    }
}

/* The checked batch's disagreements together, in case order; returns their count. */
static unsigned gather_disagreements(const slot *sl, disagreements *found)
{
    unsigned n = 0;
    for (unsigned c = 0; c < sl->chunks; n += found->n_found[c], c++) {
        memmove(found->bad_at + n, found->bad_at + c * sl->chunk, found->n_found[c] * sizeof *found->bad_at);
        memmove(found->keys + n, found->keys + c * sl->chunk, found->n_found[c] * sizeof *found->keys);
    }
    return n;
}

/* Room for one more kept disagreement, growing the array by doubling up to
 * --keep: a large --keep costs memory only as disagreements come. */
static bool keep_room(eng_op_report *r, unsigned keep)
{
    if (r->n_kept < r->kept_cap)
        return true;
    unsigned cap = r->kept_cap ? r->kept_cap * 2 : 64;
    if (cap > keep)
        cap = keep;
    eng_kept_case *k = realloc(r->kept, (size_t)cap * sizeof *k);
    if (!k)
        return false;
    r->kept = k;
    r->kept_cap = cap;
    return true;
}

/* A share emptied for its slot's next batch, any failure it held freed. */
static void clear_share(slot_share *sh)
{
    free(sh->audit_failure);
    free(sh->check_failure);
    memset(sh, 0, sizeof *sh);
}

/* The workers' parts of a checked batch into the report: statistics and
 * audited counts, and the earliest failed re-check (malloc'd, its case in
 * *at), or NULL.  The shares are left empty for the slot's next batch. */
static char *merge_shares(const run_state *s, eng_op_report *r, slot *sl, unsigned *at)
{
    char *first = NULL;
    for (unsigned w = 0; w < shares(s); w++) {
        slot_share *sh = &sl->shares[w];
        eng_stats_merge(&r->stats, &sh->stats);
        r->audited += sh->audited;
        if (sh->check_failure && (!first || sh->check_at < *at)) {
            free(first);
            first = sh->check_failure;
            *at = sh->check_at;
            sh->check_failure = NULL;
        }
        clear_share(sh);
    }
    return first;
}

/* A checked batch recorded: its statistics, and its disagreements in case
 * order.  On the main thread, while the workers generate the batches after
 * it: what it does for each disagreement is kept small.  A disagreement
 * whose signature the store has (most of them: within a batch a signature
 * depends on the kind alone) is counted in pending[] and the counts are
 * added at the end; a new one is recorded as it comes. */
static void check(run_state *s, eng_op_report *r, slot *sl, disagreements *found)
{
    const eng_options *o = s->o;
    const isa_op *op = sl->in.op;
    unsigned failure_at = 0;
    char *failure = merge_shares(s, r, sl, &failure_at);
    /* Read where the device wrote them: the slot's own buffer, which
     * nothing touches until the slot's next batch (a new finding's
     * minimization runs its cases through the executor's buffer, not this
     * one), so no copy is made of them (as check once did for every batch
     * with a disagreement: the batch's outputs, 256 KB for a one-word op at
     * the default --batch, with a malloc and a free); test cli-device holds
     * the kept disagreements the same with findings minimized as without. */
    const uint32_t *dev = vkr_batch_output(sl->batch);
    unsigned n = gather_disagreements(sl, found);
    s->declared = sl->declared;
    if (sl->row >= 0)  /* the report's rows are those whose cases ran */
        r->cover_rows[sl->row / 64] |= 1ull << (sl->row % 64);
    r->cases += sl->count;
    if (!n) {
        free(failure);
        return;
    }
    bool audited = isa_has_fast(op);
    uint64_t pending[KIND_COUNT] = {0};
    bool kind_known[KIND_COUNT] = {false};  /* the store has the batch's signature of the kind */
    eng_finding_key kind_key[KIND_COUNT];   /* that signature's key, where pending counts it */
    for (unsigned b = 0; b < n; b++) {
        unsigned i = found->bad_at[b];
        eng_finding_key key = found->keys[b];
        const uint32_t *w = sl->words + (size_t)i * op->n_in, *h = sl->host + (size_t)i * op->n_out;
        /* Every disagreement's host outputs are re-checked by the exact model before
         * they are believed (the verdicts are audited on the sample, in fill_range). */
        if (audited && !s->audit_failure) {
            r->audited++;
            if (failure && i == failure_at) {
                s->audit_failure = failure;
                failure = NULL;
                break;
            }
        }
        const uint32_t *d = dev + (size_t)i * op->n_out;
        if (r->disagreements < o->show && !o->quiet) {
            fprintf(stderr, "\ntiefuzz: disagreement in %s, case %llu (seed %llu):\n", op->name,
                    (unsigned long long)(sl->start + i), (unsigned long long)o->seed);
            eng_explain(stderr, &sl->in, w, d, "  ");
        }
        r->disagreements++;
        if (r->n_kept < o->keep && keep_room(r, o->keep)) {
            eng_kept_case *f = &r->kept[r->n_kept++];
            f->index = sl->start + i;
            f->in = sl->in;
            memcpy(f->words, w, op->n_in * 4);
            memcpy(f->host, h, op->n_out * 4);
            memcpy(f->device, d, op->n_out * 4);
        }
        if (kind_known[key.kind] || (kind_known[key.kind] = eng_findings_has(s->findings, key))) {
            kind_key[key.kind] = key;
            pending[key.kind]++;
            continue;
        }
        char err[600];
        bool device_error;
        /* A new signature: recorded (minimized and written where findings
         * are) with its case's class.  After a
         * failure the store only counts (the summary and the findings
         * agree). */
        if (eng_findings_add_keyed(s->findings, key, &sl->in, w, h, d, sl->start + i,
                                   eng_case_class(sl->start + i, s->classes, s->n_classes),
                                   s->declared, err, sizeof err, &device_error) &&
            !s->failure) {
            fprintf(stderr, "\ntiefuzz: %s\n", err);
            s->failure = device_error ? EXIT_NO_DEVICE : EXIT_INTERNAL;  /* a file that cannot be written: as merge */
        }
    }
    for (int k = 0; k < KIND_COUNT; k++)
        if (pending[k])
            eng_findings_count_more(s->findings, kind_key[k], pending[k]);
    free(failure);  /* not reached: an earlier case ended the batch */
}

/* The op, its progress, and the time left of the whole run (not the op's share). */
static void status_line(const run_state *s, const eng_op_report *r, double started, bool time_bound)
{
    double t = eng_now();
    double rate = t > started ? (double)r->cases / (t - started) : 0;
    fprintf(stderr, "\r\033[K%-24s %12llu cases %10.0f/s %6llu disagreements", r->op->name,
            (unsigned long long)r->cases, rate, (unsigned long long)r->disagreements);
    if (time_bound)
        fprintf(stderr, "  %5.0fs left in all", s->end > t ? s->end - t : 0);
    fflush(stderr);
}

/* A batch that could not be submitted or did not finish: the op's report
 * says so (the summary shows "stopped: ..."), and the run ends with exit 3. */
static int device_failed(eng_op_report *r, const char *err)
{
    fprintf(stderr, "\ntiefuzz: %s\n", err);
    snprintf(r->skipped, sizeof r->skipped, "%.500s", err);
    r->stopped = true;
    return EXIT_NO_DEVICE;
}

/* The fast path and the exact model differ: tiefuzz's own bug.  Nothing
 * computed from the fast path can be trusted any more. */
static int audit_failed(eng_op_report *r, const char *why)
{
    fprintf(stderr, "\ntiefuzz: internal error: %s\n", why);
    snprintf(r->skipped, sizeof r->skipped, "internal error: %.480s", why);
    r->stopped = true;
    return EXIT_INTERNAL;
}

/* What an op's cases are run as: the template and how its controls vary. */
typedef struct {
    const isa_instance *tmpl;
    const eng_cover *cov;
    bool fixed_ctrl, fixed_k;
} op_schedule;

/* The instance of the cases from `next` on, and where they end: a row of
 * the covering schedule for the first cases (its number in *row), else the
 * block's (*row -1). */
static uint64_t instance_at(const run_state *s, const op_schedule *sch, uint64_t next, isa_instance *in, int *row)
{
    const isa_instance *tmpl = sch->tmpl;
    *row = eng_cover_row(sch->cov, next);
    uint64_t block = next / ENG_BLOCK;
    eng_block_instance(tmpl, sch->fixed_ctrl, sch->fixed_k, s->o->seed, *row >= 0 ? 0 : block, s->classes,
                       s->n_classes, in);
    if (*row < 0)
        return (block + 1) * ENG_BLOCK;
    const isa_literal *lit = tmpl->op->literal;
    for (int c = 0; c < CTRL_COUNT; c++)
        if (!lit || c != (int)lit->ctrl)  /* K as block 0 draws it */
            in->ctrl[c] = sch->cov->ctrl[*row][c];
    return (uint64_t)(*row + 1) * sch->cov->segment;
}

/* Pipelines built ahead, on threads of their own (one a core, at most
 * PREFETCH_THREADS), for the instances of the schedule up to PREFETCH_AHEAD
 * cases past the batch being made: the covering rows change the instance
 * every few thousand cases, and on the main thread each build (the module,
 * its validation, the driver's compile) held the campaign up while a core
 * stood idle (a quarter to a third of a 2M-case run's time).  The threads
 * wait on the batches when that far ahead, and stop at the op's end.  Which thread builds what changes
 * nothing but when: the cases and their instances are the schedule's. */
#define PREFETCH_AHEAD (2 * (uint64_t)ENG_BLOCK)
#define PREFETCH_THREADS 4
typedef struct {
    const run_state *s;
    const op_schedule *sch;
    uint64_t total;
    pthread_mutex_t lock;  /* the fields below */
    pthread_cond_t moved;  /* at or stop changed so that a waiting thread can go on */
    uint64_t next;         /* the first case of the next segment to build for */
    uint64_t at;           /* the first case of the batch being made */
    unsigned waiting;      /* threads waiting on moved */
    bool stop;
} prefetcher;

/* Whether a thread may build the next segment now, or must wait for the
 * batches to come within PREFETCH_AHEAD of it; under the lock. */
static bool prefetch_held(const prefetcher *p)
{
    return !p->stop && p->next < p->total && p->next > p->at + PREFETCH_AHEAD;
}

/* The next segment's instance for a thread to build, waiting while it is
 * more than PREFETCH_AHEAD past the batches; false when none is left. */
static bool next_segment(prefetcher *p, isa_instance *in)
{
    pthread_mutex_lock(&p->lock);
    while (prefetch_held(p)) {
        p->waiting++;
        pthread_cond_wait(&p->moved, &p->lock);
        p->waiting--;
    }
    bool some = !p->stop && p->next < p->total;
    if (some) {
        int row;
        p->next = eng_next_owned(p->s->o, instance_at(p->s, p->sch, p->next, in, &row));
    }
    pthread_mutex_unlock(&p->lock);
    return some;
}

static void *prefetch_pipelines(void *arg)
{
    prefetcher *p = arg;
    isa_instance in;
    eng_thread_name("tiefuzz-build");
    while (next_segment(p, &in))
        eng_exec_prefetch(p->s->exec, &in);
    return NULL;
}

/* The batches have reached case `at` (stop: they are over).  The waiting
 * threads are woken only where they can go on: woken at every batch, the
 * build threads took two of the 17 context switches a 64K-case batch cost
 * a plain maxwell.imul_imm16 campaign (strace -f, perf stat). */
static void prefetch_follow(prefetcher *p, uint64_t at, bool stop)
{
    pthread_mutex_lock(&p->lock);
    p->at = at;
    p->stop |= stop;
    if (p->waiting && !prefetch_held(p))
        pthread_cond_broadcast(&p->moved);
    pthread_mutex_unlock(&p->lock);
}

/* The batches of one op as they go through the slots (see slot_state).
 * The main thread conducts: it readies batches, submits them, waits for the
 * device and records what was checked, all in case order; the pool's other
 * threads, one a core, are the workers, taking chunks of generation and
 * check from whichever batch has some (a check first: it frees a slot).
 * Taking chunks rather than fixed shares keeps every worker busy while the
 * device's own threads share the cores: with halves, the thread that lost
 * the most time to them held the batch up (two threads filled 1.3 times as
 * fast as one).  Chunks are taken under the lock, about 1,024 cases' work
 * each (tens of microseconds): the lock is taken twice a chunk. */
typedef struct {
    run_state *s;
    slot *slots;
    unsigned n_slots;
    disagreements *found;
    pthread_mutex_t lock;    /* the slots' states and chunk counts, stop */
    pthread_cond_t work;     /* a chunk to take, or stop */
    pthread_cond_t changed;  /* a batch generated or checked */
    bool stop;               /* the workers return */
} flow;

/* The next chunk for a worker, under the lock: a chunk of the batch being
 * checked, else of the earliest batch being generated; NULL when there is
 * none. */
static slot *take_chunk(flow *f, unsigned *from, unsigned *to)
{
    slot *best = NULL;
    for (unsigned i = 0; i < f->n_slots; i++) {
        slot *sl = &f->slots[i];
        if (sl->next_chunk >= sl->chunks)
            continue;
        if (sl->state == SLOT_CHECKING) {
            best = sl;
            break;
        }
        if (sl->state == SLOT_FILLING && (!best || sl->start < best->start))
            best = sl;
    }
    if (!best)
        return NULL;
    *from = best->next_chunk++ * best->chunk;
    *to = best->count - *from < best->chunk ? best->count : *from + best->chunk;
    return best;
}

typedef struct {
    _Alignas(64) flow *f;
    unsigned worker;  /* its share of each slot; the conductor's job has none */
    eng_op_report *r;
    prefetcher *ahead;
    double deadline;
    int status;       /* the conductor's exit status */
} flow_job;

/* One chunk taken and done as worker w, under the lock (released while
 * the chunk runs); false where there was none to take. */
static bool do_chunk(flow *f, unsigned w)
{
    unsigned from, to;
    slot *sl = take_chunk(f, &from, &to);
    if (!sl)
        return false;
    bool checking = sl->state == SLOT_CHECKING;
    pthread_mutex_unlock(&f->lock);
    if (checking)
        check_range(f->s, sl, &sl->shares[w], f->found, from, to);
    else
        fill_range(f->s, sl, &sl->shares[w], from, to);
    pthread_mutex_lock(&f->lock);
    if (++sl->chunks_done == sl->chunks) {
        sl->state = checking ? SLOT_CHECKED : SLOT_FILLED;
        pthread_cond_signal(&f->changed);
    }
    return true;
}

static void work(flow_job *j)
{
    flow *f = j->f;
    pthread_mutex_lock(&f->lock);
    while (!f->stop)
        if (!do_chunk(f, j->worker))
            pthread_cond_wait(&f->work, &f->lock);
    pthread_mutex_unlock(&f->lock);
}

/* Hands a slot's current stage to the workers, chunk by chunk; under the lock. */
static void publish(flow *f, slot *sl, slot_state state)
{
    sl->state = state;
    sl->chunk = chunk_cases(sl->in.op);
    sl->chunks = (sl->count + sl->chunk - 1) / sl->chunk;
    sl->next_chunk = sl->chunks_done = 0;
    pthread_cond_broadcast(&f->work);
}

/* Readies the batch of cases from *next on in sl (its instance and how
 * many, at least one: a block, a row and a --jobs chunk each end past
 * *next), or returns false where none is left to make. */
static bool ready_batch(flow_job *j, slot *sl, uint64_t *next, uint64_t total)
{
    run_state *s = j->f->s;
    const eng_options *o = s->o;
    const op_schedule *sch = j->ahead->sch;
    const isa_op *op = sch->tmpl->op;
    *next = eng_next_owned(o, *next);
    if (*next >= total || interrupted || (!o->cases && eng_now() >= j->deadline))
        return false;
    prefetch_follow(j->ahead, *next, false);
    uint64_t end = instance_at(s, sch, *next, &sl->in, &sl->row);
    if (o->n_jobs > 1 && end > (*next / ENG_CHUNK + 1) * ENG_CHUNK)  /* a job owns single chunks */
        end = (*next / ENG_CHUNK + 1) * ENG_CHUNK;
    if (end > total)
        end = total;
    uint64_t count = end - *next;
    unsigned room = vkr_batch_capacity(sl->batch, op->n_in, op->n_out);
    if (room > o->batch)
        room = o->batch;
    sl->start = *next;
    sl->count = (unsigned)(count > room ? room : count);
    *next += sl->count;
    return true;
}

/* The share holding a generated batch's earliest sampled audit failure, or NULL. */
static slot_share *first_audit_failure(const run_state *s, slot *sl)
{
    slot_share *first = NULL;
    for (unsigned w = 0; w < shares(s); w++)
        if (sl->shares[w].audit_failure && (!first || sl->shares[w].audit_index < first->audit_index))
            first = &sl->shares[w];
    return first;
}

/* A generated batch onto the device (*state ON_DEVICE), or held back where
 * its sampled audit failed (AUDIT_FAILED: the failure stays in its shares
 * until the batches before it are recorded, whose re-checks may fail at
 * earlier cases).  Where its pipeline fails, *state stays FILLED and
 * r->skipped says why: the op goes no further, and *after is what it ends
 * with once the batches before are recorded (EXIT_USAGE where the user's
 * translator failed, else EXIT_AGREE: the op is skipped).  Returns 0, or
 * the exit status of a device failure, which ends the op at once. */
static int submit_batch(flow_job *j, slot *sl, slot_state *state, int *after)
{
    run_state *s = j->f->s;
    eng_op_report *r = j->r;
    if (first_audit_failure(s, sl)) {
        *state = SLOT_AUDIT_FAILED;
        return 0;
    }
    char err[600];
    const char *declared = "";
    vkr_pipeline *pipe = eng_exec_pipeline(s->exec, &sl->in, &declared, err, sizeof err);
    if (!pipe) {
        snprintf(r->skipped, sizeof r->skipped, "%.500s", err);
        if (eng_exec_user_error(s->exec)) {  /* the user's translator failed: bad input, not a skip */
            fprintf(stderr, "\ntiefuzz run: %s\n", eng_exec_user_error(s->exec));
            r->stopped = true;
            *after = EXIT_USAGE;
        }
        return 0;
    }
    snprintf(r->declared, sizeof r->declared, "%s", declared);
    snprintf(sl->declared, sizeof sl->declared, "%s", declared);
    if (vkr_submit(s->dev, sl->batch, pipe, sl->count, err, sizeof err))
        return device_failed(r, err);
    *state = SLOT_ON_DEVICE;
    return 0;
}

/* A recorded batch's effect on progress: the --jobs parent's counters and
 * the terminal's status line. */
static void note_progress(flow_job *j, double started, double *last_status)
{
    run_state *s = j->f->s;
    eng_op_report *r = j->r;
    if (s->progress) {
        atomic_store_explicit(&s->progress->cases, s->cases_before + r->cases, memory_order_relaxed);
        atomic_store_explicit(&s->progress->disagreements, s->disagreements_before + r->disagreements,
                              memory_order_relaxed);
    }
    if (isatty(2) && !s->o->quiet && eng_now() - *last_status > 0.25) {
        status_line(s, r, started, s->o->cases == 0);
        *last_status = eng_now();
    }
}

/* Whether a time-bound op has enough in flight: the batches readied and
 * not yet recorded (in_flight cases) would, at the pace recorded so far,
 * take it to its deadline.  Readying more would run the op past its share
 * of the time, which the ops after it lose: eight slots of a tile op's
 * batches are 30-160 ms of work here, and a 6 s run of every op left the
 * last two with no case.  Before its first batch is recorded an op has no pace yet, and
 * readies at most START_BATCHES (in_flight cases in `batches`): readying
 * all sixteen slots, `scripts/run --time 6s` left two or three tile ops
 * with no case again. */
#define START_BATCHES 8
static bool enough_in_flight(const flow_job *j, double started, uint64_t in_flight, uint64_t batches)
{
    if (j->f->s->o->cases)
        return false;
    if (!j->r->cases)
        return batches >= START_BATCHES;
    double now = eng_now();
    if (now <= started)
        return false;
    double pace = (double)j->r->cases / (now - started);
    return now + (double)in_flight / pace >= j->deadline;
}

/* After a failure that ends the batches (the device's, a finding not
 * written, a pipeline not built, the driver's or a translator's): the
 * batches still being generated finish, and the earliest readied but not
 * submitted whose sampled audit failed is returned, or NULL; under the
 * lock.  Their cases were being made anyway, and a failed sample is
 * tiefuzz's own bug, reported before the failure that ended the run:
 * without the wait, whether it was reported turned on whether its batch
 * was generated before the conductor met the failure (test audit's
 * timeout, about 1 run in 400).  The wait is for at most the slots in
 * flight: about 1M cases, or 0.1-0.3 s of a tile op's. */
static slot *held_sample_after(flow *f, uint64_t submitted, uint64_t readied)
{
    for (uint64_t b = submitted; b < readied; b++) {
        slot *sl = &f->slots[b % f->n_slots];
        while (sl->state == SLOT_FILLING)
            if (f->s->workers || !do_chunk(f, 0))  /* with no worker, the conductor makes them (share 0) */
                pthread_cond_wait(&f->changed, &f->lock);
        if (first_audit_failure(f->s, sl))
            return sl;
    }
    return NULL;
}

/* The conductor: batches readied, submitted, waited for and recorded in
 * case order (counters of batches: readied - recorded are in the slots).
 * Every wait is for the workers or the device; the workers go on
 * generating meanwhile.  Returns the op's exit status. */
static int conduct(flow_job *j)
{
    flow *f = j->f;
    run_state *s = f->s;
    eng_op_report *r = j->r;
    uint64_t total = s->o->cases ? s->o->cases : UINT64_MAX, next = 0;
    uint64_t readied = 0, submitted = 0, recorded = 0, readied_cases = 0;
    bool more = true, held = false;  /* held: nothing more is submitted (a failed audit or pipeline) */
    slot *held_back = NULL;          /* the batch whose sampled audit failed */
    int after = EXIT_AGREE;          /* a failed pipeline's status, once the batches before it are recorded */
    double started = eng_now(), cpu_started = eng_cpu_seconds(), last_status = 0;
    int status = EXIT_AGREE;
    char err[600];
    pthread_mutex_lock(&f->lock);
    for (;;) {
        while (more && !held && readied - recorded < f->n_slots &&
               !enough_in_flight(j, started, readied_cases - r->cases, readied - recorded)) {
            slot *sl = &f->slots[readied % f->n_slots];
            if ((more = ready_batch(j, sl, &next, total))) {
                publish(f, sl, SLOT_FILLING);
                readied++;
                readied_cases += sl->count;
            }
        }
        slot *sub = &f->slots[submitted % f->n_slots], *rec = &f->slots[recorded % f->n_slots];
        if (!held && submitted < readied && sub->state == SLOT_FILLED) {
            slot_state state = SLOT_FILLED;
            pthread_mutex_unlock(&f->lock);
            status = submit_batch(j, sub, &state, &after);
            pthread_mutex_lock(&f->lock);
            if (status)
                break;
            held = state != SLOT_ON_DEVICE;
            if (state != SLOT_FILLED) {  /* on the device, or held back to be reported in turn */
                sub->state = state;
                submitted++;
            }
            if (state == SLOT_AUDIT_FAILED)
                held_back = sub;
            continue;
        }
        if (recorded < submitted && rec->state == SLOT_ON_DEVICE) {
            /* With no worker the conductor generates the batches after it
             * while the device runs it. */
            if (!s->workers && do_chunk(f, 0))
                continue;
            pthread_mutex_unlock(&f->lock);
            int failed = vkr_wait(s->dev, rec->batch, s->o->timeout_ms, err, sizeof err);
            pthread_mutex_lock(&f->lock);
            if (failed) {
                status = device_failed(r, err);
                break;
            }
            publish(f, rec, SLOT_CHECKING);
            continue;
        }
        if (recorded < submitted && rec->state == SLOT_AUDIT_FAILED)
            break;  /* every batch before it recorded: reported below */
        if (recorded < submitted && rec->state == SLOT_CHECKED) {
            pthread_mutex_unlock(&f->lock);
            check(s, r, rec, f->found);
            note_progress(j, started, &last_status);
            pthread_mutex_lock(&f->lock);
            rec->state = SLOT_FREE;
            recorded++;
            if (s->audit_failure) {
                status = audit_failed(r, s->audit_failure);
                break;
            }
            if (s->failure) {
                status = s->failure;
                break;
            }
            continue;
        }
        if (recorded == submitted && (held || submitted == readied)) {
            status = after;
            break;  /* all submitted recorded, and nothing more to submit */
        }
        if (!s->workers) {  /* no worker thread could be started: the conductor does the chunks (share 0) */
            do_chunk(f, 0);
            continue;
        }
        pthread_cond_wait(&f->changed, &f->lock);
    }
    if ((status || held) && !held_back && !s->audit_failure)  /* held, none held back: a pipeline not built */
        held_back = held_sample_after(f, submitted, readied);
    f->stop = true;
    pthread_cond_broadcast(&f->work);
    pthread_mutex_unlock(&f->lock);
    /* A held sampled failure is tiefuzz's own bug: it is reported whatever
     * ended the batches before it (a device failing meanwhile, a finding
     * that could not be written), unless a re-check there failed first. */
    if (held_back && !s->audit_failure) {
        slot_share *first = first_audit_failure(s, held_back);
        s->audit_failure = first->audit_failure;
        first->audit_failure = NULL;
        status = audit_failed(r, s->audit_failure);
    }
    if (!status) {
        r->seconds = eng_now() - started;
        r->cpu_seconds = eng_cpu_seconds() - cpu_started;
        if (isatty(2) && !s->o->quiet)
            fprintf(stderr, "\r\033[K");
    }
    return status;
}

static void *flow_thread(void *arg)
{
    flow_job *j = arg;
    if (j->worker == UINT_MAX)
        j->status = conduct(j);
    else
        work(j);
    return NULL;
}

/* One op's batches through the slots: the conductor on this thread, the
 * workers on the pool's.  After a failure, batches still on the device are
 * waited for (unless the device was abandoned) so that the slots can be
 * reused or freed. */
static int run_batches(run_state *s, eng_op_report *r, prefetcher *ahead, double deadline, slot slots[SLOTS_MAX],
                       disagreements *found)
{
    flow f = {.s = s, .slots = slots, .n_slots = slot_count(s->o->batch), .found = found};
    pthread_mutex_init(&f.lock, NULL);
    pthread_cond_init(&f.work, NULL);
    pthread_cond_init(&f.changed, NULL);
    flow_job jobs[ENG_POOL_MAX];
    unsigned n = s->workers + 1;
    for (unsigned k = 0; k < n; k++)
        jobs[k] = (flow_job){.f = &f, .worker = k ? k - 1 : UINT_MAX, .r = r, .ahead = ahead, .deadline = deadline};
    eng_pool_run(s->pool, flow_thread, jobs, sizeof jobs[0], n);
    char err[600];
    for (unsigned i = 0; i < f.n_slots; i++) {
        if (slots[i].state == SLOT_ON_DEVICE && !vkd_abandoned(s->dev))
            vkr_wait(s->dev, slots[i].batch, s->o->timeout_ms, err, sizeof err);
        for (unsigned w = 0; w < shares(s); w++)
            clear_share(&slots[i].shares[w]);
        slots[i].state = SLOT_FREE;
        slots[i].next_chunk = slots[i].chunks = 0;
    }
    pthread_cond_destroy(&f.changed);
    pthread_cond_destroy(&f.work);
    pthread_mutex_destroy(&f.lock);
    return jobs[0].status;
}

/* One op's campaign: its batches, with the pipelines they will need built
 * ahead where a core is free. */
static int run_op(run_state *s, eng_op_report *r, const isa_instance *tmpl, const eng_cover *cov, bool fixed_ctrl,
                  bool fixed_k, double deadline, slot slots[SLOTS_MAX], disagreements *found)
{
    op_schedule sch = {tmpl, cov, fixed_ctrl, fixed_k};
    prefetcher p = {.s = s, .sch = &sch, .total = s->o->cases ? s->o->cases : UINT64_MAX,
                    .next = eng_next_owned(s->o, 0)};
    pthread_mutex_init(&p.lock, NULL);
    pthread_cond_init(&p.moved, NULL);
    /* Up to one thread a core: the builds overlap each other and the batches. */
    unsigned n = s->o->threads < PREFETCH_THREADS ? s->o->threads : PREFETCH_THREADS;
    pthread_t thread[PREFETCH_THREADS];
    bool started[PREFETCH_THREADS] = {false};
    for (unsigned k = 0; k < n; k++)
        started[k] = pthread_create(&thread[k], NULL, prefetch_pipelines, &p) == 0;
    int rc = run_batches(s, r, &p, deadline, slots, found);
    prefetch_follow(&p, p.at, true);
    for (unsigned k = 0; k < n; k++)
        if (started[k])
            pthread_join(thread[k], NULL);
    pthread_cond_destroy(&p.moved);
    pthread_mutex_destroy(&p.lock);
    return rc;
}

/* What a run holds from set-up to teardown (NULL / 0 where not yet made). */
typedef struct {
    const isa_op *ops[ENG_MAX_OPS];
    int n;
    unsigned usable;             /* ops that can run on a device */
    isa_instance *tmpl;
    vkd_device *dev;
    io_known known;
    const char *known_dir;
    char driver[600];            /* the findings' target names it */
    eng_op_report *reports;
    slot slots[SLOTS_MAX];
    disagreements found;         /* a batch's, as check finds them */
} run_res;

/* Everything a run needs, in order; 0, or the exit status of what failed
 * (said on stderr).  close_run frees whatever was made either way. */
static int open_run(const eng_options *o, run_res *res, run_state *s)
{
    char err[4096];
    res->n = eng_prepare(o, res->ops, &res->tmpl, &res->usable);
    if (res->n < 0)
        return -res->n;
    eng_validated_preload();  /* beside the device's opening, off the first pipeline's way */
    res->dev = vkd_open(o->device, o->validation, err, sizeof err);
    if (!res->dev) {
        fprintf(stderr, "tiefuzz run: %s\n", err);
        return EXIT_NO_DEVICE;
    }
    s->dev = res->dev;
    size_t big_n = 1 << 16;  /* a user shader's validation report can be long */
    char *big = malloc(big_n);
    s->exec = big ? eng_exec_create(res->dev, o->lowering, o->shader_path, 65536, big, big_n) : NULL;
    if (!s->exec) {
        fprintf(stderr, "tiefuzz run: %s%s\n", o->shader_path ? "--shader " : "", big ? big : "out of memory");
        free(big);
        return o->shader_path ? EXIT_USAGE : EXIT_NO_DEVICE;
    }
    free(big);
    if (o->translator)
        eng_exec_set_translator(s->exec, o->translator, o->timeout_ms);
    res->known_dir = o->known_dir ? o->known_dir : eng_default_known_dir();
    if (eng_known_for_run(o->known_dir, o->device, &res->known, err, sizeof err)) {
        fprintf(stderr, "tiefuzz run: known divergences: %s\n", err);
        return EXIT_USAGE;
    }
    const vkd_info *info = vkd_device_info(res->dev);
    snprintf(res->driver, sizeof res->driver, "%s %s", info->driver_name, info->driver_info);
    eng_target target = {eng_exec_lowering_name(s->exec), info->name, res->driver};
    eng_findings_options fo = {o->findings_dir, &res->known, o->minimize, o->seed};
    s->findings = eng_findings_create(&fo, s->exec, &target);
    eng_findings_set_strict_nan(s->findings, o->strict_nan);
    res->reports = calloc((size_t)res->n, sizeof *res->reports);
    /* Batches are sized in words: o->batch tuples of up to 8 words; ops with
     * larger tuples (tiles) get proportionally fewer a batch. */
    size_t words_in = (size_t)o->batch * 8, words_out = (size_t)o->batch * 2;
    /* Room for one tuple of the largest op whatever --batch says: a --batch
     * under 64 gave a tile op (320 words in, 128 out) no room at all, and
     * run_op then submitted empty batches forever without advancing. */
    if (words_in < ISA_MAX_IN)
        words_in = ISA_MAX_IN;
    if (words_out < ISA_MAX_OUT)
        words_out = ISA_MAX_OUT;
    for (unsigned i = 0; i < slot_count(o->batch); i++) {
        res->slots[i].batch = vkr_batch_create(res->dev, words_in, words_out, err, sizeof err);
        if (!res->slots[i].batch) {
            fprintf(stderr, "tiefuzz run: %s\n", err);
            return EXIT_NO_DEVICE;
        }
        res->slots[i].words = malloc(words_in * 4);
        res->slots[i].host = malloc(words_out * 4);
        res->slots[i].tie = malloc(o->batch);  /* a slot's count is at most --batch (run_op) */
    }
    res->found.bad_at = malloc((size_t)o->batch * sizeof *res->found.bad_at);
    res->found.keys = malloc((size_t)o->batch * sizeof *res->found.keys);
    res->found.n_found = malloc((size_t)o->batch * sizeof *res->found.n_found);
    /* The conductor's thread and a worker a core (run_batches). */
    s->pool = eng_pool_create((o->threads ? o->threads : 1) + 1);
    s->workers = eng_pool_width(s->pool) - 1;
    bool made = s->pool && res->reports && res->found.bad_at && res->found.keys && res->found.n_found;
    for (unsigned i = 0; i < slot_count(o->batch); i++) {
        res->slots[i].shares = made ? aligned_alloc(64, shares(s) * sizeof(slot_share)) : NULL;
        if (res->slots[i].shares)
            memset(res->slots[i].shares, 0, shares(s) * sizeof(slot_share));
        made &= res->slots[i].words && res->slots[i].host && res->slots[i].tie &&
                res->slots[i].shares;
    }
    if (!made) {
        fprintf(stderr, "tiefuzz run: out of memory setting up the run (--batch %u)\n", o->batch);
        return EXIT_INTERNAL;
    }
    return 0;
}

static void close_run(run_res *res, run_state *s)
{
    eng_pool_destroy(s->pool);
    free(s->audit_failure);
    eng_findings_destroy(s->findings);
    io_known_free(&res->known);
    if (s->exec)
        eng_exec_destroy(s->exec);
    for (int i = 0; i < SLOTS_MAX; i++) {
        if (res->slots[i].batch)
            vkr_batch_destroy(res->dev, res->slots[i].batch);
        free(res->slots[i].words);
        free(res->slots[i].host);
        free(res->slots[i].tie);
        free(res->slots[i].shares);
    }
    for (int i = 0; res->reports && i < res->n; i++)
        free(res->reports[i].kept);
    free(res->reports);
    free(res->found.bad_at);
    free(res->found.keys);
    free(res->found.n_found);
    free(res->tmpl);
    if (res->dev)
        vkd_close(res->dev);
}

/* Why op i does not run here, into r->skipped; false when it runs. */
static bool skip_op(const eng_options *o, run_state *s, eng_op_report *r, bool owns_cases)
{
    if (!r->op->translated) {
        snprintf(r->skipped, sizeof r->skipped, "not translated (see doc/translation.md)");
        return true;
    }
    if (!owns_cases) {
        snprintf(r->skipped, sizeof r->skipped,
                 "shard %u/%u owns none of the %llu cases (shards take turns by blocks of %u cases)", o->shard,
                 o->shards, (unsigned long long)o->cases, ENG_BLOCK);
        r->shard_empty = true;
        return true;
    }
    s->n_classes = isa_op_classes(r->op, o->classes, o->n_classes, s->classes);
    if (!s->n_classes) {
        snprintf(r->skipped, sizeof r->skipped, "none of the requested generator classes applies to this op");
        return true;
    }
    return false;
}

/* Every op in turn; the first failure's exit status, or EXIT_AGREE. */
static int run_ops(const eng_options *o, run_res *res, run_state *s)
{
    s->end = eng_now() + o->seconds;
    unsigned done = 0;
    bool fixed_ctrl = o->ctrl_text != NULL || o->shader_path != NULL;
    /* With --shard and few --cases, a shard may own no block at all. */
    bool owns_cases = o->cases == 0 || eng_next_owned(o, 0) < o->cases;
    for (int i = 0; i < res->n && !interrupted; i++) {
        eng_op_report *r = &res->reports[i];
        r->op = res->ops[i];
        if (skip_op(o, s, r, owns_cases))
            continue;
        bool fixed_k = isa_literal_named(res->tmpl[i].op, o->ctrl_text);
        /* An even share of the time left: an op that overran (a slow
         * pipeline build) takes from the others, not all of it from the last. */
        double deadline = eng_now() + (s->end - eng_now()) / (double)(res->usable > done ? res->usable - done : 1);
        if (s->progress)
            atomic_store_explicit(&s->progress->op, (unsigned)i, memory_order_relaxed);
        /* Controls fixed (--ctrl, --shader): no schedule. */
        eng_cover cov = {0};
        if (!fixed_ctrl)
            eng_cover_make(&res->tmpl[i], o->seed, &cov);
        int rc = run_op(s, r, &res->tmpl[i], &cov, fixed_ctrl, fixed_k, deadline, res->slots, &res->found);
        r->pairs_legal = cov.legal;
        r->pairs_reached = eng_cover_reached(&cov, r->cover_rows);
        eng_cover_free(&cov);
        s->cases_before += r->cases;
        s->disagreements_before += r->disagreements;
        done++;
        if (rc)
            return rc;
        if (!o->shader_path)
            eng_exec_flush(s->exec);
    }
    return EXIT_AGREE;
}

static int run(const eng_options *o, const eng_worker_io *w)
{
    run_res res = {0};
    run_state s = {.o = o, .progress = w ? w->progress : NULL};
    int status = open_run(o, &res, &s);
    if (status) {
        close_run(&res, &s);
        return status;
    }
    struct sigaction old_handlers[2];
    catch_interrupts(old_handlers);
    if (!o->quiet)
        fprintf(stderr, "tiefuzz: device %s (%s), lowering %s, seed %llu\n", vkd_device_info(res.dev)->name,
                vkd_device_info(res.dev)->driver_name, eng_lowering_label(o), (unsigned long long)o->seed);
    status = run_ops(o, &res, &s);
    for (int i = 0; i < res.n; i++)
        if (!res.reports[i].op)
            res.reports[i].op = res.ops[i];
    if (!status && !w)  /* a worker's parent judges the merged reports */
        eng_mark_not_run(res.reports, (unsigned)res.n, interrupted != 0);
    sigaction(SIGINT, &old_handlers[0], NULL);
    sigaction(SIGTERM, &old_handlers[1], NULL);
    char finish_err[1200];
    /* A worker's files are copied by the parent, which writes the final counts. */
    if (!w && eng_findings_finish(s.findings, finish_err, sizeof finish_err)) {
        fprintf(stderr, "tiefuzz run: %s\n", finish_err);
        status = status ? status : EXIT_INTERNAL;
    }
    eng_outcome outcome = {.o = o, .dev = vkd_device_info(res.dev), .reports = res.reports, .n = (unsigned)res.n,
                           .findings = s.findings, .known_dir = res.known_dir,
                           .validation_errors = vkd_validation_errors(res.dev), .interrupted = interrupted != 0};
    status = w ? eng_worker_write(w->report_path, &outcome, status) : eng_report_conclude(&outcome, status);
    close_run(&res, &s);
    return status;
}

int eng_run(const eng_options *o) { return run(o, NULL); }

int eng_run_worker(const eng_options *o, const eng_worker_io *w) { return run(o, w); }
