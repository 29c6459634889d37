/* engine/pool: a campaign's worker threads, started once a run.  Each op's
 * batches are one run of the pool (campaign.c's run_batches: the caller's
 * thread conducts, the workers take chunks until the op ends).  A batch's
 * jobs once got threads of their own, twice a batch (generation, then the
 * check of its outputs): on the two-core machine a thread's creation and
 * join cost 50-90 us, and each new thread met cold caches. */
#ifndef TIEFUZZ_ENGINE_POOL_H
#define TIEFUZZ_ENGINE_POOL_H

#include <pthread.h>
#include <stddef.h>

typedef struct eng_pool eng_pool;
/* The most jobs a run can run at once: callers size their job arrays by it. */
#define ENG_POOL_MAX 64
typedef void *(*eng_pool_fn)(void *job);

/* A pool that runs up to `threads` jobs at once: the caller's thread and
 * threads - 1 workers.  Workers that cannot be started are left out (the
 * pool then runs fewer jobs); NULL only when out of memory. */
eng_pool *eng_pool_create(unsigned threads);
void eng_pool_destroy(eng_pool *p);
/* How many jobs eng_pool_run runs at once (1 for a NULL pool). */
unsigned eng_pool_width(const eng_pool *p);
/* fn on jobs[0..n) (each job_size bytes): jobs[0] on the calling thread,
 * the others on workers, returning when every one has.  Jobs past the
 * pool's width are not run: callers share their work out through a
 * counter the jobs take from, so fewer threads only take longer. */
void eng_pool_run(eng_pool *p, eng_pool_fn fn, void *jobs, size_t job_size, unsigned n);

/* pthread_create for a thread that generates cases, with a stack of
 * ENG_THREAD_STACK whatever the process's stack limit (a thread's default
 * size): generation keeps its 1,024-case blocks' arrays on the stack, about
 * 250-300 KB at the deepest.  0, or pthread_create's error. */
#define ENG_THREAD_STACK ((size_t)8 << 20)
/* The least stack a thread that generates may have: the blocks' arrays
 * and what the driver's calls take beside them, with room to spare. */
#define ENG_STACK_NEEDED ((size_t)1 << 20)
int eng_thread_create(pthread_t *thread, eng_pool_fn fn, void *arg);
/* Names the calling thread (up to 15 characters), as top -H and perf show
 * it: the campaign's threads beside the driver's own. */
void eng_thread_name(const char *name);

#endif
