/* Worker threads that sleep on a condition variable between batches.  A
 * run is a generation number: each worker runs its job of the newest
 * generation once, then counts itself done. */
#define _GNU_SOURCE  /* pthread_setname_np */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include "pool.h"

typedef struct {
    eng_pool *pool;
    unsigned index;  /* the job it runs: 1, 2, ... (the caller runs 0) */
} worker;

struct eng_pool {
    pthread_mutex_t lock;
    pthread_cond_t start, done;
    unsigned long generation;  /* bumped by each run */
    bool stop;
    eng_pool_fn fn;
    char *jobs;
    size_t job_size;
    unsigned n;        /* jobs in the current run */
    unsigned pending;  /* workers yet to finish the current run */
    unsigned workers;  /* started */
    pthread_t thread[ENG_POOL_MAX];
    worker self[ENG_POOL_MAX];
};

static void *work(void *arg)
{
    worker *w = arg;
    eng_pool *p = w->pool;
    unsigned long seen = 0;
    eng_thread_name("tiefuzz-gen");
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->generation == seen && !p->stop)
            pthread_cond_wait(&p->start, &p->lock);
        if (p->stop)
            break;
        seen = p->generation;
        eng_pool_fn fn = p->fn;
        void *job = w->index < p->n ? p->jobs + w->index * p->job_size : NULL;
        pthread_mutex_unlock(&p->lock);
        if (job)
            fn(job);
        pthread_mutex_lock(&p->lock);
        if (--p->pending == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

void eng_thread_name(const char *name) { pthread_setname_np(pthread_self(), name); }

int eng_thread_create(pthread_t *thread, eng_pool_fn fn, void *arg)
{
    pthread_attr_t attr;
    int rc = pthread_attr_init(&attr);
    if (rc)
        return rc;
    rc = pthread_attr_setstacksize(&attr, ENG_THREAD_STACK);
    if (!rc)
        rc = pthread_create(thread, &attr, fn, arg);
    pthread_attr_destroy(&attr);
    return rc;
}

eng_pool *eng_pool_create(unsigned threads)
{
    eng_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->start, NULL);
    pthread_cond_init(&p->done, NULL);
    if (threads > ENG_POOL_MAX)
        threads = ENG_POOL_MAX;
    for (unsigned k = 1; k < threads; k++) {
        p->self[p->workers] = (worker){p, p->workers + 1};
        if (eng_thread_create(&p->thread[p->workers], work, &p->self[p->workers]))
            break;
        p->workers++;
    }
    return p;
}

void eng_pool_destroy(eng_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->lock);
    for (unsigned k = 0; k < p->workers; k++)
        pthread_join(p->thread[k], NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->start);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

unsigned eng_pool_width(const eng_pool *p) { return p ? p->workers + 1 : 1; }

void eng_pool_run(eng_pool *p, eng_pool_fn fn, void *jobs, size_t job_size, unsigned n)
{
    if (!p || !p->workers || n < 2) {
        if (n)
            fn(jobs);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->jobs = jobs;
    p->job_size = job_size;
    p->n = n;
    p->pending = p->workers;
    p->generation++;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->lock);
    fn(jobs);
    pthread_mutex_lock(&p->lock);
    while (p->pending)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}
