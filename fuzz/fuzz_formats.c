/* libFuzzer target: every file reader tiefuzz has (finding files, binary
 * cases, regression tuple files, known-divergence rules, tuple lines).  They
 * are pure functions over a buffer; none may crash, leak or read out of
 * bounds on any input (run under AddressSanitizer and UBSan). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "io/finding.h"
#include "io/known.h"
#include "io/regression.h"
#include "io/tuple.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    /* Binary cases take the bytes as they are. */
    io_case c;
    io_case_decode(data, size, "input", &c, err, sizeof err);
    /* The text readers get the same bytes, NUL-terminated as files read by tiefuzz are. */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    io_finding f;
    if (io_finding_parse(text, size, "input", &f, err, sizeof err) == 0) {
        char *again = io_finding_format(&f);  /* what parses must format again */
        free(again);
    }
    io_regression r;
    if (io_regression_parse(text, size, "input", &r, err, sizeof err) == 0) {
        io_regression_normalize(&r);
        char *again = io_regression_format(&r);
        free(again);
        io_regression_free(&r);
    }
    io_known k = {0};
    io_known_parse(text, size, "input", &k, err, sizeof err);
    io_known_free(&k);
    uint32_t words[64];
    io_parse_words(text, words, 64, err, sizeof err);
    free(text);
    return 0;
}
