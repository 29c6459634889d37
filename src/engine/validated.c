/* The modules the validator passed, as validated.h says: an open-addressing
 * set of 128-bit keys in memory, read from the cache file on first use and
 * appended to it as modules pass.  One lock: the campaign's helper threads
 * build modules side by side. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "validated.h"
#include "vk/device.h"

typedef struct {
    uint64_t lo, hi;
} key128;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool loaded;
static char path[800];
static key128 *slots;  /* {0, 0}: empty (a real key is that with probability 2^-128) */
static size_t cap, count;

/* The way spv_validate is called (its target environments, its options):
 * raise this when that changes, so that older records no longer count. */
#define VALIDATION_SCHEME 1

static key128 key_of(const spv_module *m, uint32_t api)
{
    XXH3_state_t st;
    XXH3_128bits_reset(&st);
    const uint32_t scheme = VALIDATION_SCHEME;
    XXH3_128bits_update(&st, &scheme, sizeof scheme);
    const char *tools = spv_tools_version();
    XXH3_128bits_update(&st, tools, strlen(tools) + 1);
    uint32_t target = api >> 12;  /* major and minor: what spv_validate's target environment depends on */
    XXH3_128bits_update(&st, &target, sizeof target);
    XXH3_128bits_update(&st, m->words, m->count * sizeof *m->words);
    XXH128_hash_t h = XXH3_128bits_digest(&st);
    return (key128){h.low64, h.high64};
}

static bool empty(key128 k) { return !k.lo && !k.hi; }

/* The slot holding k, or the empty one it would go in. */
static key128 *slot_of(key128 k)
{
    size_t i = (size_t)k.lo & (cap - 1);
    while (!empty(slots[i]) && (slots[i].lo != k.lo || slots[i].hi != k.hi))
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

/* Into the set (false when it is full or out of memory). */
static bool insert(key128 k)
{
    if (empty(k) || count >= ENG_VALIDATED_MAX)
        return false;
    if (2 * (count + 1) > cap) {
        size_t old_cap = cap;
        key128 *old = slots;
        key128 *grown = calloc(cap ? 2 * cap : 1024, sizeof *grown);
        if (!grown)
            return false;
        cap = cap ? 2 * cap : 1024;
        slots = grown;
        for (size_t i = 0; i < old_cap; i++)
            if (!empty(old[i]))
                *slot_of(old[i]) = old[i];
        free(old);
    }
    key128 *s = slot_of(k);
    if (empty(*s)) {
        *s = k;
        count++;
    }
    return true;
}

/* The file's whole records; one holding ENG_VALIDATED_MAX or more is removed. */
static void load_locked(void)
{
    loaded = true;
    char dir[768];
    if (!vkd_cache_dir(dir, sizeof dir))
        return;
    snprintf(path, sizeof path, "%s/validated-modules.bin", dir);
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    /* Every whole record is read; an empty one (a file zero-filled by a
     * crash) is passed over, and the file's size decides whether it is full. */
    key128 k;
    while (fread(&k, sizeof k, 1, f) == 1)
        if (!empty(k) && !insert(k))
            break;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    bool full = size >= (long)ENG_VALIDATED_MAX * (long)sizeof k;
    fclose(f);
    if (!full && size > 0 && size % (long)sizeof k) {
        /* A record cut short (a run stopped mid-write): drop it, so that
         * the records appended after it stay whole. */
        if (truncate(path, size - size % (long)sizeof k) != 0)
            path[0] = 0;  /* cannot mend it: append nothing */
    }
    if (full) {
        unlink(path);
        free(slots);
        slots = NULL;
        cap = count = 0;
    }
}

bool eng_validated_seen(const spv_module *m, uint32_t api)
{
    key128 k = key_of(m, api);
    pthread_mutex_lock(&lock);
    if (!loaded)
        load_locked();
    bool seen = cap && !empty(*slot_of(k));
    pthread_mutex_unlock(&lock);
    return seen;
}

void eng_validated_add(const spv_module *m, uint32_t api)
{
    key128 k = key_of(m, api);
    pthread_mutex_lock(&lock);
    if (!loaded)
        load_locked();
    size_t before = count;
    if (insert(k) && count > before && path[0]) {
        /* One write of a whole record: O_APPEND keeps records of processes side by side whole. */
        int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) {
            /* After a short write (a full disk) append nothing more: the next
             * run drops the part record before it appends. */
            if (write(fd, &k, sizeof k) != (ssize_t)sizeof k)
                path[0] = 0;
            close(fd);
        }
    }
    pthread_mutex_unlock(&lock);
}

void eng_validated_reset(void)
{
    pthread_mutex_lock(&lock);
    free(slots);
    slots = NULL;
    cap = count = 0;
    loaded = false;
    path[0] = 0;
    pthread_mutex_unlock(&lock);
}
