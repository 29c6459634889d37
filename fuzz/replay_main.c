/* A main for the fuzz targets without libFuzzer (any compiler): runs the
 * target once on each file given, or on each file of each directory given,
 * so that crash-* files reproduce anywhere. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "io/finding.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: cannot open\n", path);
        return 1;
    }
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0, n;
    do {
        if (len == cap) {
            cap = cap ? cap * 2 : 4096;
            buf = realloc(buf, cap);
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
    } while (n > 0 && len < (64u << 20));
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    unsigned runs = 0;
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            char **names, err[1200];
            unsigned k;
            if (io_dir_list(argv[i], "", &names, &k, err, sizeof err)) {
                fprintf(stderr, "replay: %s\n", err);
                rc = 1;
                continue;
            }
            for (unsigned j = 0; j < k; j++) {
                if (names[j][0] != '.') {  /* "." and ".." (and hidden files) are not inputs */
                    char path[4096];
                    snprintf(path, sizeof path, "%s/%s", argv[i], names[j]);
                    rc |= run_file(path);
                    runs++;
                }
            }
            io_names_free(names, k);
        } else {
            rc |= run_file(argv[i]);
            runs++;
        }
    }
    printf("replay: %u inputs run, no crash\n", runs);
    return rc;
}
