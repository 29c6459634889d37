/* A preload for test no-workers: pthread_create refuses (EAGAIN), as at a
 * process's thread limit, the threads tiefuzz itself starts with an
 * attribute (the campaign's workers: eng_thread_create, an 8 MiB stack),
 * and lets every other start: the driver's threads (created from a shared
 * library) and tiefuzz's own without one (the pipeline builders).  The
 * refusals are added to the file named by NO_WORKERS_COUNT at exit (a line
 * a process that refused any: timeout(1), which runs tiefuzz, refuses
 * none), so the test knows the preload took effect. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static int refused;

static int from_shared_library(const void *caller)
{
    Dl_info info;
    return dladdr(caller, &info) && info.dli_fname && strstr(info.dli_fname, ".so");
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    if (attr && !from_shared_library(__builtin_return_address(0))) {
        __atomic_add_fetch(&refused, 1, __ATOMIC_RELAXED);
        return EAGAIN;
    }
    create_fn *real = (create_fn *)dlsym(RTLD_NEXT, "pthread_create");
    return real(thread, attr, fn, arg);
}

__attribute__((destructor)) static void count_refusals(void)
{
    const char *path = getenv("NO_WORKERS_COUNT");
    FILE *f = path && refused ? fopen(path, "a") : NULL;
    if (f) {
        fprintf(f, "%d\n", refused);
        fclose(f);
    }
}
