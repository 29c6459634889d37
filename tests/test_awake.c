/* The benchmark's spinners (tests/awake.c), which keep every core from
 * halting while it times the device: one a core the process may run on,
 * each pinned to its own core, each at SCHED_IDLE (so that it never takes
 * time from lavapipe's workers beyond the moment a woken one preempts it),
 * each spinning, and all gone after the stop.  No device needed. */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include "awake.h"
#include "check.h"

/* Whether /proc/self/task lists the thread. */
static bool thread_alive(int tid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d", tid);
    DIR *d = opendir(path);
    if (d)
        closedir(d);
    return d != NULL;
}

static void nap_ms(long ms) { nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL); }

int main(void)
{
    cpu_set_t mine;
    CHECK(sched_getaffinity(0, sizeof mine, &mine) == 0, "sched_getaffinity");
    char err[256];
    bench_awake *a = bench_awake_start(err, sizeof err);
    CHECK(a != NULL, "start: %s", err);
    if (!a)
        return check_report("awake");
    unsigned n = bench_awake_count(a);
    CHECK(n == (unsigned)CPU_COUNT(&mine), "%u spinners for %d cores", n, CPU_COUNT(&mine));

    cpu_set_t covered;
    CPU_ZERO(&covered);
    uint64_t before[CPU_SETSIZE];
    for (unsigned i = 0; i < n; i++) {
        int tid = bench_awake_tid(a, i);
        CHECK(sched_getscheduler(tid) == SCHED_IDLE, "spinner %u (thread %d): policy %d, want SCHED_IDLE", i, tid,
              sched_getscheduler(tid));
        cpu_set_t on;
        CPU_ZERO(&on);
        CHECK(sched_getaffinity(tid, sizeof on, &on) == 0 && CPU_COUNT(&on) == 1,
              "spinner %u: pinned to one core (%d allowed)", i, CPU_COUNT(&on));
        CPU_OR(&covered, &covered, &on);
        before[i] = bench_awake_spins(a, i);
    }
    CHECK(CPU_EQUAL(&covered, &mine), "the spinners' cores are every core the process may use");

    /* Each spins: its count moves (an idle-class thread on a busy machine
     * still gets a slice now and then, so allow seconds). */
    for (unsigned i = 0; i < n; i++) {
        for (int waited = 0; waited < 10000 && bench_awake_spins(a, i) < before[i] + 1000; waited += 10)
            nap_ms(10);
        CHECK(bench_awake_spins(a, i) >= before[i] + 1000, "spinner %u: %llu spins in 10 s", i,
              (unsigned long long)(bench_awake_spins(a, i) - before[i]));
    }

    int tids[CPU_SETSIZE];
    for (unsigned i = 0; i < n; i++)
        tids[i] = bench_awake_tid(a, i);
    bench_awake_stop(a);
    /* Joined, a thread may still be listed a moment (the kernel wakes the
     * join before it unlists the thread): a second at most. */
    for (unsigned i = 0; i < n; i++) {
        for (int waited = 0; waited < 1000 && thread_alive(tids[i]); waited += 10)
            nap_ms(10);
        CHECK(!thread_alive(tids[i]), "spinner %u (thread %d) still there a second after the stop", i, tids[i]);
    }
    return check_report("awake");
}
