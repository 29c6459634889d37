/* engine/validated: the record of modules the validator passed.  A module
 * is known only for the Vulkan version and words it passed with; the
 * record outlives the process (read back from the cache file); a record
 * cut short is dropped without misaligning those appended after it; a
 * full file is started afresh; without a cache directory the record is
 * the process's own; read ahead on a thread of its own, it is the same
 * record, whichever of that thread and the first call comes first.  And
 * eng_module_build records a module it validated
 * and skips the validator for one recorded, as its file shows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "engine/module.h"
#include "engine/validated.h"

#define VK12 ((1u << 22) | (2u << 12))
#define VK13 ((1u << 22) | (3u << 12))

static char dir[256], file[400];

static long file_size(void)
{
    struct stat st;
    return stat(file, &st) == 0 ? (long)st.st_size : -1;
}

/* n bytes appended to the record file, as a run appends a record. */
static void append(const void *bytes, size_t n)
{
    FILE *f = fopen(file, "ab");
    CHECK(f && fwrite(bytes, 1, n, f) == n, "could not append %zu bytes to %s", n, file);
    if (f)
        fclose(f);
}

static spv_module module_of(uint32_t *words, uint32_t seed)
{
    for (int i = 0; i < 16; i++)
        words[i] = seed * 2654435761u + (uint32_t)i;
    return (spv_module){words, 16};
}

static void record(void)
{
    uint32_t wa[16], wb[16], wc[16];
    spv_module a = module_of(wa, 1), b = module_of(wb, 2), c = module_of(wc, 3);
    CHECK(!eng_validated_seen(&a, VK12), "a module never validated is known");
    eng_validated_add(&a, VK12);
    CHECK(eng_validated_seen(&a, VK12), "a module just recorded is unknown");
    CHECK(!eng_validated_seen(&a, VK13), "a module recorded for Vulkan 1.2 is known for 1.3");
    CHECK(!eng_validated_seen(&b, VK12), "another module is known");
    CHECK(file_size() == 16, "the file holds %ld bytes after one record, not 16", file_size());
    eng_validated_reset();
    CHECK(eng_validated_seen(&a, VK12), "the record did not outlive the process (read back from the file)");
    /* A record cut short, then another appended: both whole ones stay readable. */
    append("\x01\x02\x03\x04\x05\x06\x07", 7);
    eng_validated_reset();
    eng_validated_add(&c, VK12);
    eng_validated_reset();
    CHECK(eng_validated_seen(&a, VK12) && eng_validated_seen(&c, VK12),
          "a record cut short misaligned the records after it");
    CHECK(file_size() == 32, "the file holds %ld bytes, not 32 (two records)", file_size());
    /* An empty record (a file zero-filled by a crash) does not hide the records after it. */
    uint32_t wd[16];
    spv_module d = module_of(wd, 5);
    append((char[16]){0}, 16);
    eng_validated_reset();
    eng_validated_add(&d, VK12);
    eng_validated_reset();
    CHECK(eng_validated_seen(&d, VK12), "a record after an empty one was not read");
    /* A full file is started afresh. */
    FILE *f = fopen(file, "ab");
    uint64_t k[2] = {0, 0};
    for (uint64_t i = 1; i <= ENG_VALIDATED_MAX; i++) {
        k[0] = i * 0x9e3779b97f4a7c15ull, k[1] = i;
        fwrite(k, sizeof k, 1, f);
    }
    fclose(f);
    eng_validated_reset();
    CHECK(!eng_validated_seen(&a, VK12), "a full record file was kept");
    CHECK(file_size() < 0, "a full record file was not removed");
}

static void no_directory(void)
{
    setenv("XDG_CACHE_HOME", "", 1);
    unsetenv("HOME");
    eng_validated_reset();
    uint32_t w[16];
    spv_module m = module_of(w, 4);
    CHECK(!eng_validated_seen(&m, VK12), "without a cache directory: a module known at once");
    eng_validated_add(&m, VK12);
    CHECK(eng_validated_seen(&m, VK12), "without a cache directory: the process's record is lost");
}

static long read_first_record(unsigned char rec[16])
{
    FILE *f = fopen(file, "rb");
    long got = f ? (long)fread(rec, 1, 16, f) : -1;
    if (f)
        fclose(f);
    return got;
}

static void preloaded(void)
{
    setenv("XDG_CACHE_HOME", dir, 1);
    unlink(file);
    eng_validated_reset();
    uint32_t wa[16], wb[16];
    spv_module a = module_of(wa, 11), b = module_of(wb, 12);
    eng_validated_add(&a, VK12);
    /* The same record twice (runs side by side may both append it). */
    unsigned char rec[16];
    bool written = read_first_record(rec) == 16;
    CHECK(written, "the record of a module was not written");
    if (!written)
        return;
    append(rec, 16);
    /* The thread first (it has 20 ms), then the call most likely first (not forced: either order must hold). */
    for (int round = 0; round < 2; round++) {
        eng_validated_reset();
        eng_validated_preload();
        if (round == 0)
            usleep(20000);
        CHECK(eng_validated_seen(&a, VK12), "round %d: a recorded module is unknown after the read ahead", round);
        CHECK(!eng_validated_seen(&b, VK12), "round %d: a module never recorded is known", round);
    }
    eng_validated_add(&b, VK12);
    CHECK(file_size() == 48, "the file holds %ld bytes, not 48 (a record appended after two)", file_size());
    eng_validated_add(&a, VK12);
    CHECK(file_size() == 48, "a module read ahead was recorded again (%ld bytes)", file_size());
    eng_validated_reset();
    CHECK(eng_validated_seen(&b, VK12), "the record appended after the read ahead was lost");
}

static void module_build(void)
{
    setenv("XDG_CACHE_HOME", dir, 1);
    unlink(file);
    eng_validated_reset();
    vkd_info dev;
    memset(&dev, 0, sizeof dev);
    dev.api_version = VK12;
    for (int w = 0; w < 3; w++)
        dev.caps.rte[w] = dev.caps.signed_zero_inf_nan[w] = true;
    dev.caps.float16 = dev.caps.float64 = dev.caps.int64 = true;
    isa_instance in;
    isa_instance_default(&in, isa_op_find("v_fma_f32"));
    eng_module m;
    char err[4096];
    CHECK(eng_module_build(&in, LOWERING_DIRECT, &dev, &m, err, sizeof err) == 0, "build: %s", err);
    CHECK(file_size() == 16, "a validated module was not recorded (%ld bytes)", file_size());
    CHECK(eng_validated_seen(&m.spv, VK12), "the module built is not known");
    eng_module_free(&m);
    eng_validated_reset();
    CHECK(eng_module_build(&in, LOWERING_DIRECT, &dev, &m, err, sizeof err) == 0, "build again: %s", err);
    CHECK(file_size() == 16, "a module already recorded was validated and recorded again (%ld bytes)", file_size());
    eng_module_free(&m);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/tiefuzz-validated-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(file, sizeof file, "%s/tiefuzz/validated-modules.bin", dir);
    setenv("XDG_CACHE_HOME", dir, 1);
    eng_validated_reset();
    record();
    preloaded();
    module_build();
    no_directory();
    unlink(file);
    char sub[300];
    snprintf(sub, sizeof sub, "%s/tiefuzz", dir);
    rmdir(sub);
    rmdir(dir);
    return check_report("validated");
}
