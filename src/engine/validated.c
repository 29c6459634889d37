/* The modules the validator passed, as validated.h says: a set of 128-bit
 * keys in memory, read from the cache file on first use and appended to it
 * as modules pass.  One lock: the campaign's helper threads build modules
 * side by side.
 *
 * The keys sit in an array in the order read or added, and an
 * open-addressing index of 32-bit positions finds them; the file is read
 * in one call and the index sized for it once.  Read a record at a time
 * into a table of whole keys that doubled as it filled, this machine's
 * 17,932-record file took 11-13 ms to load, on the way to every run's
 * first pipeline, most of it page faults on the tables (the record grows
 * with the modules a machine has seen: 1M records would have taken most
 * of a second). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "validated.h"
#include "vk/device.h"

typedef struct {
    uint64_t lo, hi;
} key128;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t preloaded = PTHREAD_COND_INITIALIZER;  /* preloading fell */
static unsigned preloading;  /* read-ahead threads started and not yet done */
static bool loaded;
static char path[800];
static key128 *keys;     /* the set, in the order read or added */
static size_t count, keys_cap;
static uint32_t *positions;  /* 1 + a key's position in keys, at the key's slot; 0: empty */
static size_t cap;       /* the index's slots: a power of two, at least twice count */

_Static_assert(ENG_VALIDATED_MAX < UINT32_MAX, "the index holds positions in 32 bits");

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
static bool same(key128 a, key128 b) { return a.lo == b.lo && a.hi == b.hi; }

/* The index slot holding k, or the empty one it would go in (cap > 0). */
static uint32_t *slot_of(key128 k)
{
    size_t i = (size_t)k.lo & (cap - 1);
    while (positions[i] && !same(keys[positions[i] - 1], k))
        i = (i + 1) & (cap - 1);
    return &positions[i];
}

/* An index of `slots` slots (a power of two) for the keys there are. */
static bool index_keys(size_t slots)
{
    uint32_t *grown = calloc(slots, sizeof *grown);
    if (!grown)
        return false;
    free(positions);
    positions = grown;
    cap = slots;
    for (size_t i = 0; i < count; i++)
        *slot_of(keys[i]) = (uint32_t)(i + 1);
    return true;
}

/* The index's size for n keys: at least twice n, at least 1,024 slots. */
static size_t slots_for(size_t n)
{
    size_t slots = 1024;
    while (slots < 2 * (n + 1))
        slots *= 2;
    return slots;
}

/* Into the set (false when it is full or out of memory). */
static bool insert(key128 k)
{
    if (empty(k) || count >= ENG_VALIDATED_MAX)
        return false;
    if (2 * (count + 1) > cap && !index_keys(slots_for(count + 1)))
        return false;
    uint32_t *at = slot_of(k);
    if (*at)
        return true;
    if (count == keys_cap) {
        size_t n = keys_cap ? 2 * keys_cap : 256;
        key128 *more = realloc(keys, n * sizeof *more);
        if (!more)
            return false;
        keys = more, keys_cap = n;
    }
    keys[count] = k;
    *at = (uint32_t)++count;
    return true;
}

/* The set emptied (the memory freed). */
static void forget(void)
{
    free(keys), free(positions);
    keys = NULL, positions = NULL;
    count = keys_cap = cap = 0;
}

/* Up to n whole records of fd into keys (as its first n), in one read
 * where the kernel gives them so; the number read.  The file may shrink
 * meanwhile (another run dropping a record cut short). */
static size_t read_records(int fd, size_t n)
{
    size_t want = n * sizeof *keys, got = 0;
    while (got < want) {
        ssize_t r = read(fd, (char *)keys + got, want - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    return got / sizeof *keys;
}

/* The file's whole records; one holding ENG_VALIDATED_MAX or more is
 * removed unread.  The records are read into keys as they are, then
 * gathered to the distinct nonzero ones (a file zero-filled by a crash
 * holds empty records; runs side by side may append a key twice) as the
 * index, sized for them all, takes them. */
static void load_locked(void)
{
    loaded = true;
    char dir[768];
    if (!vkd_cache_dir(dir, sizeof dir))
        return;
    snprintf(path, sizeof path, "%s/validated-modules.bin", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return;
    if (fstat(fd, &st) != 0 || st.st_size <= 0) {
        close(fd);
        return;
    }
    long size = (long)st.st_size;
    if (size >= (long)ENG_VALIDATED_MAX * (long)sizeof(key128)) {
        close(fd);
        unlink(path);
        return;
    }
    size_t n = (size_t)size / sizeof(key128);
    keys_cap = n ? n : 1;
    keys = malloc(keys_cap * sizeof *keys);
    if (keys && n)
        n = read_records(fd, n);
    close(fd);
    if (!keys || !index_keys(slots_for(n))) {
        forget();  /* out of memory: the record starts empty (modules are validated again) */
        return;
    }
    for (size_t i = 0; i < n; i++) {
        key128 k = keys[i];
        uint32_t *at = empty(k) ? NULL : slot_of(k);
        if (at && !*at) {  /* count <= i: the gathered keys never overtake the ones read */
            keys[count] = k;
            *at = (uint32_t)++count;
        }
    }
    /* The size now, as the read left the file (another run may have
     * appended meanwhile): a record cut short (a run stopped mid-write) is
     * dropped, so that the records appended after it stay whole. */
    if (stat(path, &st) == 0 && st.st_size % (off_t)sizeof(key128)) {
        if (truncate(path, st.st_size - st.st_size % (off_t)sizeof(key128)) != 0)
            path[0] = 0;  /* cannot mend it: append nothing */
    }
}

static void *preload(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&lock);
    if (!loaded)
        load_locked();
    preloading--;
    pthread_cond_broadcast(&preloaded);
    pthread_mutex_unlock(&lock);
    return NULL;
}

void eng_validated_preload(void)
{
    pthread_mutex_lock(&lock);
    preloading++;
    pthread_mutex_unlock(&lock);
    pthread_t t;
    if (pthread_create(&t, NULL, preload, NULL) == 0) {
        pthread_detach(t);
        return;
    }
    pthread_mutex_lock(&lock);  /* no thread: read on first use instead */
    preloading--;
    pthread_mutex_unlock(&lock);
}

bool eng_validated_seen(const spv_module *m, uint32_t api)
{
    key128 k = key_of(m, api);
    pthread_mutex_lock(&lock);
    if (!loaded)
        load_locked();
    bool seen = cap && *slot_of(k);
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
    while (preloading)  /* a read ahead started before the reset is over first */
        pthread_cond_wait(&preloaded, &lock);
    forget();
    loaded = false;
    path[0] = 0;
    pthread_mutex_unlock(&lock);
}
