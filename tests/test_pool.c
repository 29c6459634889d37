/* engine/pool: every job of a run below the pool's width runs exactly once
 * and has finished when eng_pool_run returns; jobs past the width do not
 * run; runs of different sizes follow each other on the same threads.
 * Each job sleeps a little before it writes, so a run that returned
 * before its workers finished would be seen. */
#include <time.h>
#include "check.h"
#include "engine/pool.h"

typedef struct {
    _Alignas(64) unsigned runs;  /* times this job ran */
} job;

static void *work(void *arg)
{
    job *j = arg;
    struct timespec pause = {0, 200000};
    nanosleep(&pause, NULL);
    j->runs++;
    return NULL;
}

static void rounds(unsigned threads)
{
    eng_pool *p = eng_pool_create(threads);
    CHECK(p != NULL, "pool of %u", threads);
    unsigned width = eng_pool_width(p);
    CHECK(width == threads, "width %u, want %u (threads could be started here)", width, threads);
    enum { JOBS = 8 };
    job jobs[JOBS] = {0};
    unsigned want[JOBS] = {0};
    for (unsigned round = 0; round < 300; round++) {
        unsigned n = 1 + round % JOBS;  /* fewer, as many and more jobs than threads */
        eng_pool_run(p, work, jobs, sizeof jobs[0], n);
        for (unsigned k = 0; k < n && k < width; k++)
            want[k]++;
        for (unsigned k = 0; k < JOBS; k++)
            CHECK(jobs[k].runs == want[k], "%u threads, round %u (%u jobs): job %u ran %u times, want %u", threads,
                  round, n, k, jobs[k].runs, want[k]);
    }
    eng_pool_destroy(p);
}

int main(void)
{
    job alone = {0};
    eng_pool_run(NULL, work, &alone, sizeof alone, 1);
    CHECK(alone.runs == 1, "no pool: the caller runs the job (ran %u times)", alone.runs);
    rounds(1);
    rounds(2);
    rounds(5);
    return check_report("pool");
}
