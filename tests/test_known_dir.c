/* io_known_load_dir reads every rule file of a directory, however many:
 * a file left out would turn its known divergences into new findings.  The
 * count is well past 256, where the loader once stopped without a word. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "io/known.h"

enum { N_FILES = 1000 };

static void write_rules(const char *dir)
{
    for (int i = 0; i < N_FILES; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/rules-%04d.txt", dir, i);
        FILE *f = fopen(path, "w");
        CHECK(f != NULL, "cannot create %s", path);
        if (f) {
            fprintf(f, "op=rdna2.v_fma_f32 signature=%016x reason=rule %d\n", (unsigned)i, i);
            fclose(f);
        }
    }
}

static void remove_rules(const char *dir)
{
    for (int i = 0; i < N_FILES; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/rules-%04d.txt", dir, i);
        unlink(path);
    }
    rmdir(dir);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    char dir[400];
    snprintf(dir, sizeof dir, "%s/tiefuzz-known-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror(dir);
        return 1;
    }
    write_rules(dir);
    io_known k = {0};
    char err[1024] = "";
    CHECK(io_known_load_dir(dir, true, &k, err, sizeof err) == 0, "%s", err);
    CHECK(k.n == N_FILES, "%u rules loaded from %d files", k.n, N_FILES);
    /* Sorted by file name, each rule where its file says. */
    for (unsigned i = 0; i < k.n; i++) {
        char want[64];
        snprintf(want, sizeof want, "/rules-%04u.txt:1", i);
        size_t lw = strlen(want), lg = strlen(k.rules[i].where);
        CHECK(lg >= lw && !strcmp(k.rules[i].where + lg - lw, want), "rule %u from %s", i, k.rules[i].where);
        CHECK(k.rules[i].has_signature && k.rules[i].signature == i, "rule %u's signature", i);
    }
    io_known_free(&k);
    remove_rules(dir);
    return check_report("known-dir");
}
