/* io/finding: the finding file, one per distinct disagreement.
 *
 * Text, line-oriented, "key value" per line; the explanation is kept as
 * lines starting with "| "; the last line is "checksum xxh64 HEX" over every
 * byte before it.  Readers are pure functions over a buffer and reject
 * truncated, oversized, wrong-version, wrong-checksum and malformed input
 * with "file:line: what was expected".  Strings only: the engine turns them
 * into instances. */
#ifndef TIEFUZZ_IO_FINDING_H
#define TIEFUZZ_IO_FINDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 2 added the triage verdict; version 1 files still read (no verdict). */
#define IO_FINDING_VERSION 2
#define IO_FINDING_MAX_BYTES (1u << 20)
#define IO_MAX_WORDS 384

typedef struct {
    char op[64], controls[256], params[256], lowering[16];
    char device[256], driver[256], driver_info[256], api_version[32];
    uint32_t driver_version;
    char declared[160];
    uint64_t seed, case_index, count;
    char gen_class[32], kind[32];
    uint64_t signature;
    /* "strict-nan yes|no": whether the run compared NaN payloads.  Absent in
     * older files: no, unless the kind is nan-payload (only a strict run
     * makes one). */
    bool strict_nan;
    /* The triage verdict (engine/verdict.h): "translation", "device",
     * "model", "unknown", or "" when none was given (a version 1 file); its
     * cause (a liberty, a broken rule or a parameter; may be "") and reason. */
    char verdict[16], verdict_cause[64], verdict_reason[480];
    unsigned n_in, n_out;
    uint32_t input[IO_MAX_WORDS], host[IO_MAX_WORDS], device_out[IO_MAX_WORDS];
    bool minimized;
    char original_controls[256];
    uint32_t original_input[IO_MAX_WORDS], original_host[IO_MAX_WORDS], original_device[IO_MAX_WORDS];
    const char *explanation;   /* writing only: lines to quote */
} io_finding;

/* Render to a malloc'd NUL-terminated buffer (checksum line included). */
char *io_finding_format(const io_finding *f);
/* A finding file's text with its "count" line set to count and the checksum
 * redone, everything else byte for byte (the explanation survives, which a
 * parse and format would drop).  malloc'd, or NULL if buf has no count line. */
char *io_finding_with_count(const char *buf, size_t len, uint64_t count);
/* Parse; returns 0, or -1 with "name:line: message" in err. */
int io_finding_parse(const char *buf, size_t len, const char *name, io_finding *out, char *err, size_t errn);

/* The binary case encoding shared with the libFuzzer targets' crash files:
 *   "TFZC" | u8 version (1) | u8 lowering | u8 n_ctrl | u8 n_param | u16 LE n_words |
 *   u8 op-name length | op name | n_ctrl x u32 LE | n_param x i32 LE | n_words x u32 LE
 * Nothing may follow. */
#define IO_CASE_MAGIC "TFZC"
typedef struct {
    char op[64];
    uint8_t lowering;
    uint8_t n_ctrl, n_param;
    uint16_t n_words;
    uint32_t ctrl[32];
    int32_t param[16];
    uint32_t words[IO_MAX_WORDS];
} io_case;

size_t io_case_encode(const io_case *c, uint8_t *buf, size_t n);  /* bytes written, 0 if too small */
int io_case_decode(const uint8_t *buf, size_t len, const char *name, io_case *out, char *err, size_t errn);
bool io_is_case_binary(const uint8_t *buf, size_t len);

/* Read a whole file (at most max bytes) into a malloc'd buffer; 0 or -1 with err. */
int io_read_file(const char *path, size_t max, char **buf, size_t *len, char *err, size_t errn);
/* The names in dir that end in suffix (and are longer than it), sorted by strcmp so that nothing
 * depends on the order the file system returns them, and every one of them (a dropped rule or
 * finding file would change a verdict).  0 with a malloc'd array (io_names_free), or -1 with
 * "dir: why" in err and errno saying why (ENOMEM: out of memory; else opendir's). */
int io_dir_list(const char *dir, const char *suffix, char ***names, unsigned *n, char *err, size_t errn);
void io_names_free(char **names, unsigned n);

#endif
