/* io/known: known divergences, the .txt files under corpus/known.
 *
 * One rule a line: space-separated NAME=VALUE conditions, then
 * reason=TEXT to the end of the line.  Conditions: device (a
 * case-insensitive substring of the device name), op (a glob), lowering,
 * kind (a comma-separated list of disagreement kinds), signature (16 hex
 * digits), verdict (a comma-separated list of triage verdicts) and cause
 * (the liberty a translation verdict names, "fma-unfused", or the rule a
 * device verdict names, "SignedZeroInfNanPreserve-32").  A rule matches when
 * all its conditions do; '#' starts a comment. */
#ifndef TIEFUZZ_IO_KNOWN_H
#define TIEFUZZ_IO_KNOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    char device[128], op[96], lowering[16], kinds[160], verdicts[64], cause[64];
    uint64_t signature;
    bool has_signature;
    char reason[512];
    char where[300];  /* file:line */
} io_known_rule;

typedef struct {
    io_known_rule *rules;
    unsigned n;
} io_known;

int io_known_parse(const char *buf, size_t len, const char *name, io_known *k, char *err, size_t errn);
/* Every *.txt in dir (sorted).  A dir that is missing or not a directory
 * is an error when required (a --known the user named), else no rules. */
int io_known_load_dir(const char *dir, bool required, io_known *k, char *err, size_t errn);
/* The lowering names a rule or a regression file may name. */
bool io_lowering_name_valid(const char *name);
/* What a rule is matched against: one disagreement.  verdict and cause are
 * NULL where no verdict was given; a rule with those conditions then does
 * not match. */
typedef struct {
    const char *device, *op, *lowering, *kind;
    uint64_t signature;
    const char *verdict, *cause;
} io_known_query;
const io_known_rule *io_known_match(const io_known *k, const io_known_query *q);
void io_known_free(io_known *k);

#endif
