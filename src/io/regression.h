/* io/regression: regression tuple files, corpus/regression/<op>.tuples.
 *
 *   tiefuzz-regression 1
 *   op rdna2.v_fma_f32
 *   instance controls=... params=... lowering=direct
 *   3f800800 3f800800 bf801000 -> 33800000   # optional comment
 *
 * Tuples follow the instance line they belong to; the expected words are
 * the host model's.  Writers keep the file sorted and free of duplicates. */
#ifndef TIEFUZZ_IO_REGRESSION_H
#define TIEFUZZ_IO_REGRESSION_H

#include <stddef.h>
#include <stdint.h>
#include "finding.h"

typedef struct {
    char controls[256], params[256], lowering[16];
    unsigned n_in, n_out;
    uint32_t in[IO_MAX_WORDS], out[IO_MAX_WORDS];
    char comment[160];
    unsigned line;
} io_regression_entry;

typedef struct {
    char op[64];
    io_regression_entry *e;
    unsigned n;
} io_regression;

int io_regression_parse(const char *buf, size_t len, const char *name, io_regression *r, char *err, size_t errn);
void io_regression_add(io_regression *r, const io_regression_entry *e);
/* Sort and drop duplicates (same instance and inputs). */
void io_regression_normalize(io_regression *r);
char *io_regression_format(const io_regression *r);
void io_regression_free(io_regression *r);

#endif
