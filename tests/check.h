/* A minimal assertion kit for the C tests: each CHECK counts, failures are
 * printed with file and line, and the test's exit status is the verdict. */
#ifndef TIEFUZZ_TEST_CHECK_H
#define TIEFUZZ_TEST_CHECK_H

#include <stdio.h>

static int check_failures, check_count;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        check_count++;                                                     \
        if (!(cond)) {                                                     \
            check_failures++;                                              \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
        }                                                                  \
    } while (0)

#define CHECK_EQ_HEX(got, want, what)                                      \
    CHECK((unsigned long long)(got) == (unsigned long long)(want), "%s: got 0x%llx, want 0x%llx", what, \
          (unsigned long long)(got), (unsigned long long)(want))

static int check_report(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, check_count - check_failures, check_failures);
    return check_failures ? 1 : 0;
}

#endif
