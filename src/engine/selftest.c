/* tiefuzz selftest: generate cases as a campaign does (the fast path gives
 * their outputs and verdicts), and have the exact model re-evaluate every one;
 * the batch path's outputs are compared too.  Controls are fuzzed and model
 * parameters drawn per block of ENG_SELFTEST_BLOCK cases (of
 * ENG_SELFTEST_TILE_BLOCK tiles), so that every combination the rows allow
 * is reached often. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "selftest.h"
#include "pool.h"
#include "report.h"
#include "isa/classify.h"

void eng_selftest_options_default(eng_selftest_options *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < GEN_CLASS_COUNT; i++)
        o->classes[i] = (gen_class)i;
    o->n_classes = GEN_CLASS_COUNT;
    o->seed = 1;
    o->cases = 1000000;
    o->tiles = 10000;
    eng_options run;
    eng_options_default(&run);
    o->threads = run.threads;
    o->max_reported = 3;
}

/* One op's work, shared by the threads: block b goes to thread b % threads. */
typedef struct {
    const eng_selftest_options *o;
    const isa_instance *tmpl;
    bool fixed_ctrl, fixed_k, fixed_params;
    gen_class classes[64];
    unsigned n_classes;
    unsigned thread, threads;
    uint64_t cases_wanted, block;  /* the op's: tiles or cases, and its block size */
    /* results */
    uint64_t cases, differences;
    double fast_seconds, exact_seconds;
    /* The first differences this thread met (its blocks in increasing order),
     * with their case indices, so that the lowest of all threads can be shown
     * whatever the thread count. */
    struct difference {
        uint64_t index;
        char *why;    /* malloc'd */
    } first[8];
    unsigned n_first;
} selftest_job;

/* A random legal value of each model parameter (the template's where the
 * draw breaks a rule). */
static void draw_params(isa_instance *in, const isa_instance *tmpl, gen_rng *r)
{
    for (int p = 0; p < PARAM_COUNT; p++) {
        if (!(in->op->params & (1u << p)))
            continue;
        const isa_param_desc *d = &isa_params[p];
        in->param[p] = d->integer ? gen_range(r, d->lo, d->hi) : (int32_t)gen_below(r, d->count);
        if (isa_instance_check(in))
            in->param[p] = tmpl->param[p];
    }
}

static void note_difference(selftest_job *j, uint64_t index, const char *why)
{
    j->differences++;
    if (j->n_first < sizeof j->first / sizeof j->first[0]) {
        j->first[j->n_first++] = (struct difference){index, eng_case_message(why, index, j->o->seed)};
    }
}

static int by_index(const void *a, const void *b)
{
    const struct difference *x = a, *y = b;
    return x->index < y->index ? -1 : x->index > y->index;
}

static void run_block(selftest_job *j, uint64_t block, uint32_t *words, uint32_t *fast, uint32_t *batch,
                      isa_verdict *verdicts)
{
    const eng_selftest_options *o = j->o;
    const isa_op *op = j->tmpl->op;
    uint64_t first = block * j->block;
    uint64_t end = j->cases_wanted - first < j->block ? j->cases_wanted : first + j->block;
    unsigned n = (unsigned)(end - first);
    isa_instance in;
    eng_drawn_instance(j->tmpl, j->fixed_ctrl, j->fixed_k, o->seed, block, j->classes, j->n_classes, &in);
    if (!j->fixed_params && block > 0) {
        gen_rng r = gen_rng_for(o->seed, XXH64(op->name, strlen(op->name), 0) ^ 0x706172616d73ull, block);
        draw_params(&in, j->tmpl, &r);
    }
    double t0 = eng_now();
    eng_make_cases(&in, o->seed, first, n, j->classes, j->n_classes, words, fast, verdicts);
    double t1 = eng_now();
    char why[2048];
    for (unsigned i = 0; i < n; i++) {
        gen_class c = eng_case_class(first + i, j->classes, j->n_classes);
        const uint32_t *w = words + (size_t)i * op->n_in;
        if (!isa_fast_audit(&in, w, fast + (size_t)i * op->n_out, &verdicts[i], 1u << c, why, sizeof why))
            note_difference(j, first + i, why);
        /* Campaigns verify cases many at a time (isa_eval_fast_many), other
         * commands one at a time (isa_eval_fast): both are held to the model. */
        uint32_t one[ISA_MAX_OUT];
        isa_verdict v1;
        isa_eval_fast(&in, w, one, 1u << c, &v1);
        if (memcmp(one, fast + (size_t)i * op->n_out, op->n_out * sizeof one[0]) ||
            !isa_verdict_equal(&v1, &verdicts[i])) {
            if (isa_fast_audit(&in, w, one, &v1, 1u << c, why, sizeof why))
                continue;  /* the many-at-a-time path was wrong: reported above */
            char tagged[2100];
            snprintf(tagged, sizeof tagged, "one at a time: %s", why);
            note_difference(j, first + i, tagged);
        }
    }
    double t2 = eng_now();
    /* The batch path: outputs only, the whole block at once. */
    isa_eval_batch(&in, words, n, batch);
    for (unsigned i = 0; i < n; i++)
        if (memcmp(batch + (size_t)i * op->n_out, fast + (size_t)i * op->n_out, op->n_out * sizeof *batch)) {
            isa_verdict none;
            uint32_t exact[ISA_MAX_OUT];
            isa_eval_exact(&in, words + (size_t)i * op->n_in, exact, 0, &none);
            if (memcmp(batch + (size_t)i * op->n_out, exact, op->n_out * sizeof *batch) == 0)
                continue;  /* the scalar fast path was wrong: reported above */
            isa_fast_audit(&in, words + (size_t)i * op->n_in, batch + (size_t)i * op->n_out, NULL, 0, why,
                           sizeof why);
            char tagged[2100];
            snprintf(tagged, sizeof tagged, "batch path: %s", why);
            note_difference(j, first + i, tagged);
        }
    j->cases += n;
    j->fast_seconds += t1 - t0;
    j->exact_seconds += t2 - t1;
}

static void *run_job(void *arg)
{
    selftest_job *j = arg;
    const isa_op *op = j->tmpl->op;
    uint32_t *words = malloc((size_t)j->block * op->n_in * sizeof *words);
    uint32_t *fast = malloc((size_t)j->block * op->n_out * sizeof *fast);
    uint32_t *batch = malloc((size_t)j->block * op->n_out * sizeof *batch);
    isa_verdict *verdicts = malloc((size_t)j->block * sizeof *verdicts);
    uint64_t blocks = j->cases_wanted / j->block + (j->cases_wanted % j->block != 0);
    for (uint64_t b = j->thread; b < blocks && j->differences < j->o->max_reported; b += j->threads)
        run_block(j, b, words, fast, batch, verdicts);
    free(words);
    free(fast);
    free(batch);
    free(verdicts);
    return NULL;
}

/* Returns the differences found for one op. */
static uint64_t selftest_op(const eng_selftest_options *o, const isa_instance *tmpl, const gen_class *classes,
                            unsigned n_classes)
{
    const isa_op *op = tmpl->op;
    bool tile = op->impl->lower_tile != NULL;
    uint64_t wanted = tile ? o->tiles : o->cases;
    unsigned threads = o->threads ? o->threads : 1;
    if (threads > 64)
        threads = 64;
    selftest_job jobs[64];
    pthread_t tid[64];
    bool started[64] = {false};
    for (unsigned k = 0; k < threads; k++) {
        jobs[k] = (selftest_job){.o = o, .tmpl = tmpl, .fixed_ctrl = o->ctrl_text != NULL,
                                 .fixed_k = isa_literal_named(op, o->ctrl_text),
                                 .fixed_params = o->param_text != NULL, .n_classes = n_classes, .thread = k,
                                 .threads = threads, .cases_wanted = wanted,
                                 .block = tile ? ENG_SELFTEST_TILE_BLOCK : ENG_SELFTEST_BLOCK};
        memcpy(jobs[k].classes, classes, n_classes * sizeof *classes);
        if (k)
            started[k] = eng_thread_create(&tid[k], run_job, &jobs[k]) == 0;
    }
    run_job(&jobs[0]);
    uint64_t cases = 0, differences = 0;
    double fast_s = 0, exact_s = 0;
    struct difference first[64 * 8];
    unsigned n_first = 0;
    for (unsigned k = 0; k < threads; k++) {
        if (k && started[k])
            pthread_join(tid[k], NULL);
        else if (k)
            run_job(&jobs[k]);  /* no thread to be had: do it here */
        cases += jobs[k].cases;
        differences += jobs[k].differences;
        fast_s += jobs[k].fast_seconds;
        exact_s += jobs[k].exact_seconds;
        for (unsigned i = 0; i < jobs[k].n_first; i++)
            first[n_first++] = jobs[k].first[i];
    }
    /* The lowest case indices first: the same lines for any thread count. */
    qsort(first, n_first, sizeof first[0], by_index);
    for (unsigned i = 0; i < n_first; i++) {
        if (i < o->max_reported && first[i].why)
            fprintf(stderr, "tiefuzz selftest: %s\n", first[i].why);
        free(first[i].why);
    }
    if (!o->quiet) {
        printf("%-40s %10llu cases %6llu differences", op->name, (unsigned long long)cases,
               (unsigned long long)differences);
        if (fast_s > 0 && exact_s > 0)
            printf(tile ? "   generated %6.1f K tiles/s, exact re-check %5.1f K/s (per thread)"
                        : "   generated %6.1f M cases/s, exact re-check %5.1f M/s (per thread)",
                   cases / fast_s * (tile ? 1e-3 : 1e-6), cases / exact_s * (tile ? 1e-3 : 1e-6));
        printf("%s\n", cases < wanted ? "  (stopped)" : "");
    }
    return differences;
}

int eng_selftest(const eng_selftest_options *o)
{
    static const char *const every[] = {"*"};
    const isa_op *ops[ENG_MAX_OPS];
    const char *bad = NULL;
    int n = o->n_globs ? eng_select_ops(o->globs, o->n_globs, ops, ENG_MAX_OPS, &bad)
                       : eng_select_ops(every, 1, ops, ENG_MAX_OPS, &bad);
    if (n < 0) {
        fprintf(stderr, "tiefuzz selftest: no op matches '%s' (see 'tiefuzz ops')\n", bad);
        return EXIT_USAGE;
    }
    uint64_t differences = 0;
    unsigned compared = 0, tiles_compared = 0;
    for (int i = 0; i < n; i++) {
        isa_instance tmpl;
        static const char *const flags[2] = {"--ctrl", "--param"};
        char err[600];
        if (isa_instance_from_text(ops[i], o->ctrl_text, o->param_text, flags, &tmpl, err, sizeof err)) {
            fprintf(stderr, "tiefuzz selftest: %s\n", err);
            return EXIT_USAGE;
        }
        gen_class classes[64];
        unsigned n_classes = isa_op_classes(ops[i], o->classes, o->n_classes, classes);
        /* Without a fast or batch path the exact model serves every caller:
         * nothing to compare. */
        if ((!isa_has_fast(ops[i]) && !ops[i]->impl->fast_batch) || !n_classes) {
            if (!o->quiet)
                printf("%-40s %s\n", ops[i]->name,
                       n_classes ? "no fast path (the exact model serves both): nothing to compare"
                                 : "none of the requested classes applies");
            continue;
        }
        differences += selftest_op(o, &tmpl, classes, n_classes);
        compared++;
        tiles_compared += ops[i]->impl->lower_tile != NULL;
    }
    if (differences) {
        fprintf(stderr, "tiefuzz selftest: %llu differences between the fast path and the exact model "
                "(a tiefuzz bug: please report it with the lines above)\n", (unsigned long long)differences);
        return EXIT_INTERNAL;
    }
    if (!o->quiet) {
        printf("%u ops compared", compared);
        if (compared > tiles_compared)
            printf(", %llu cases each", (unsigned long long)o->cases);
        if (tiles_compared)
            printf("%s %llu tiles each for the %u tile ops", compared > tiles_compared ? ";" : ",",
                   (unsigned long long)o->tiles, tiles_compared);
        printf(": the fast path agrees with the exact model\n");
    }
    return EXIT_AGREE;
}
