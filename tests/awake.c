/* Spinners that keep every online core from halting (see awake.h). */
#define _GNU_SOURCE
#include "awake.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A cache line each: a spinner's count must not share one with another's. */
typedef struct {
    _Alignas(64) atomic_uint_fast64_t spins;
    atomic_int tid;    /* its thread id once it runs at SCHED_IDLE */
    atomic_int failed; /* or the error that kept it from that */
    pthread_t thread;
    bench_awake *owner;
} spinner;

struct bench_awake {
    atomic_bool stop;
    unsigned n;
    spinner *s;
};

/* A pause between spins: the core stays busy without hammering its sibling. */
static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static void *spin(void *arg)
{
    spinner *s = arg;
    /* Here, not in the attributes: glibc's pthread_attr_setschedpolicy
     * refuses SCHED_IDLE. */
    struct sched_param none = {0};
    int e = pthread_setschedparam(pthread_self(), SCHED_IDLE, &none);
    if (e) {
        atomic_store(&s->failed, e);
        return NULL;
    }
    atomic_store(&s->tid, (int)gettid());
    while (!atomic_load_explicit(&s->owner->stop, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&s->spins, 1, memory_order_relaxed);
        relax();
    }
    return NULL;
}

/* Stops and joins the first n spinners. */
static void join_first(bench_awake *a, unsigned n)
{
    atomic_store(&a->stop, true);
    for (unsigned i = 0; i < n; i++)
        pthread_join(a->s[i].thread, NULL);
}

/* Spinner i's thread, pinned to core `core` from its first instruction (and at SCHED_IDLE from its second). */
static int start_one(bench_awake *a, unsigned i, int core, char *err, size_t err_size)
{
    pthread_attr_t attr;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core, &set);
    a->s[i].owner = a;
    int e = pthread_attr_init(&attr);
    if (!e) {
        e = pthread_attr_setaffinity_np(&attr, sizeof set, &set);
        if (!e)
            e = pthread_create(&a->s[i].thread, &attr, spin, &a->s[i]);
        pthread_attr_destroy(&attr);
    }
    if (e)
        snprintf(err, err_size, "a spinner pinned to core %d: %s", core, strerror(e));
    return e;
}

bench_awake *bench_awake_start(char *err, size_t err_size)
{
    cpu_set_t mine;
    if (sched_getaffinity(0, sizeof mine, &mine)) {
        snprintf(err, err_size, "sched_getaffinity: %s", strerror(errno));
        return NULL;
    }
    size_t bytes = sizeof(spinner) * (size_t)CPU_COUNT(&mine);  /* a multiple of 64: spinner is aligned to it */
    bench_awake *a = calloc(1, sizeof *a);
    spinner *s = aligned_alloc(64, bytes);
    if (!a || !s) {
        free(a);
        free(s);
        snprintf(err, err_size, "out of memory for %d spinners", CPU_COUNT(&mine));
        return NULL;
    }
    a->s = memset(s, 0, bytes);
    atomic_init(&a->stop, false);
    for (int core = 0; core < CPU_SETSIZE && a->n < (unsigned)CPU_COUNT(&mine); core++) {
        if (!CPU_ISSET(core, &mine))
            continue;
        if (start_one(a, a->n, core, err, err_size)) {
            join_first(a, a->n);
            free(a->s);
            free(a);
            return NULL;
        }
        a->n++;
    }
    /* Each has said its thread id (running, pinned and idle-class from
     * here) or why it could not be. */
    int failed = 0;
    for (unsigned i = 0; i < a->n; i++) {
        while (!atomic_load(&a->s[i].tid) && !atomic_load(&a->s[i].failed))
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        if (!failed && atomic_load(&a->s[i].failed)) {
            failed = atomic_load(&a->s[i].failed);
            snprintf(err, err_size, "a spinner at SCHED_IDLE: %s", strerror(failed));
        }
    }
    if (failed) {
        bench_awake_stop(a);
        return NULL;
    }
    return a;
}

void bench_awake_stop(bench_awake *a)
{
    if (!a)
        return;
    join_first(a, a->n);
    free(a->s);
    free(a);
}

unsigned bench_awake_count(const bench_awake *a) { return a->n; }
int bench_awake_tid(const bench_awake *a, unsigned i) { return atomic_load(&a->s[i].tid); }
uint64_t bench_awake_spins(const bench_awake *a, unsigned i) { return atomic_load(&a->s[i].spins); }

/* bench_wake_latency's two threads. */
typedef struct {
    sem_t go, back;
    double posted;  /* written before the post, read after the wait: the semaphore orders them */
    double *took;
    unsigned rounds;
    int core;
} wake_pair;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void pin_self(int core)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *woken(void *arg)
{
    wake_pair *w = arg;
    pin_self(w->core);
    for (unsigned i = 0; i < w->rounds; i++) {
        sem_wait(&w->go);
        w->took[i] = now_s() - w->posted;
        sem_post(&w->back);
    }
    return NULL;
}

static int by_time(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int bench_wake_latency(unsigned rounds, double p[3], char *err, size_t err_size)
{
    cpu_set_t mine;
    int cores[2], n = 0;
    if (sched_getaffinity(0, sizeof mine, &mine)) {
        snprintf(err, err_size, "sched_getaffinity: %s", strerror(errno));
        return -1;
    }
    for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
        if (CPU_ISSET(c, &mine))
            cores[n++] = c;
    if (n < 2) {
        snprintf(err, err_size, "the wake-up latency needs two cores (this process may use %d)", n);
        return -1;
    }
    if (rounds == 0) {
        snprintf(err, err_size, "the wake-up latency needs one round or more");
        return -1;
    }
    wake_pair w = {.took = calloc(rounds, sizeof(double)), .rounds = rounds, .core = cores[1]};
    if (!w.took) {
        snprintf(err, err_size, "out of memory for %u rounds", rounds);
        return -1;
    }
    /* Process-private semaphores with a valid count never fail to start. */
    sem_init(&w.go, 0, 0);
    sem_init(&w.back, 0, 0);
    pthread_t t;
    int e = pthread_create(&t, NULL, woken, &w);
    if (e) {
        snprintf(err, err_size, "the woken thread: %s", strerror(e));
        free(w.took);
        sem_destroy(&w.go);
        sem_destroy(&w.back);
        return -1;
    }
    /* The poster keeps its own core busy (as a dispatching process does)
     * and leaves the other idle 300 us, about one 64K-tuple dispatch. */
    cpu_set_t before;
    pthread_getaffinity_np(pthread_self(), sizeof before, &before);
    pin_self(cores[0]);
    for (unsigned i = 0; i < rounds; i++) {
        double t0 = now_s();
        while (now_s() - t0 < 300e-6)
            ;
        w.posted = now_s();
        sem_post(&w.go);
        sem_wait(&w.back);
    }
    pthread_join(t, NULL);
    pthread_setaffinity_np(pthread_self(), sizeof before, &before);
    qsort(w.took, rounds, sizeof(double), by_time);
    static const double at[3] = {0.50, 0.90, 0.99};
    for (int k = 0; k < 3; k++)
        p[k] = w.took[(unsigned)(at[k] * (rounds - 1))] * 1e6;
    free(w.took);
    sem_destroy(&w.go);
    sem_destroy(&w.back);
    return 0;
}
