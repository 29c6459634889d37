/* Every online core kept from halting while the benchmark times the device.
 *
 * Why: on the development machine (a Firecracker virtual machine with no
 * guest idle driver, so an idle core halts and the halt leaves the virtual
 * machine), a thread woken on another core took 11-12.5 us at the median
 * but 19-181 us at the 90th percentile and 223-350 us at the 99th (eleven
 * runs of bench_wake_latency's measure, eight of them bench_rdna2's),
 * against 4.2-5.3, 4.7-6.4 and 5.7-12.4 us with the cores kept busy.  lavapipe wakes its workers for every
 * dispatch, and a 64K-tuple dispatch takes about 300 us: one worker woken
 * late leaves the other to do the whole dispatch, and the rate halves (the
 * process then ran 0.9-1.0 cores, against 1.85 in the fast state).
 * doc/fast-host.md, "Two raw-dispatch readings", has the measurements.
 *
 * How: one thread per online core, pinned there, at SCHED_IDLE (the
 * weakest policy: any other thread of this process that wakes on the core
 * preempts it at once), spinning on a pause instruction.  Not free: where
 * the machine was already fast, the reading with spinners came out 10-33%
 * below the one without, so the benchmark takes both and keeps the higher.
 * Nor private: SCHED_IDLE yields to the threads of its own scheduling group,
 * so under autogroup or a cgroup CPU quota the spinners take a share of the
 * cores from other sessions' busy processes (a concurrent benchmark's) for
 * the second or so of each reading. */
#ifndef TIEFUZZ_TESTS_AWAKE_H
#define TIEFUZZ_TESTS_AWAKE_H

#include <stddef.h>
#include <stdint.h>

typedef struct bench_awake bench_awake;

/* Starts the spinners; NULL with a message in err where a thread could not
 * be made, pinned or given SCHED_IDLE (none is left running then). */
bench_awake *bench_awake_start(char *err, size_t err_size);
/* Stops and joins them, and frees. */
void bench_awake_stop(bench_awake *a);
/* How many spinners, and spinner i's thread id and spin count so far
 * (for the test that they run where and as they should). */
unsigned bench_awake_count(const bench_awake *a);
int bench_awake_tid(const bench_awake *a, unsigned i);
uint64_t bench_awake_spins(const bench_awake *a, unsigned i);

/* How long a thread takes to wake on another core: `rounds` times, a
 * thread pinned to the first core the process may use posts a semaphore
 * 300 us after the last round, and one pinned to the second takes it and
 * reads the clock; the 50th, 90th and 99th percentiles in us into p[3].
 * -1 with err where the process may use fewer than two cores. */
int bench_wake_latency(unsigned rounds, double p[3], char *err, size_t err_size);

#endif
