/* io/json: a minimal JSON writer (strings escaped, commas managed), and
 * atomic file replacement for everything tiefuzz writes. */
#ifndef TIEFUZZ_IO_JSON_H
#define TIEFUZZ_IO_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    FILE *f;
    int depth;
    bool need_comma[32];
} io_json;

void json_begin(io_json *j, FILE *f);
void json_object(io_json *j, const char *key);   /* key NULL inside arrays / at top */
void json_array(io_json *j, const char *key);
void json_end_object(io_json *j);
void json_end_array(io_json *j);
void json_string(io_json *j, const char *key, const char *value);
void json_uint(io_json *j, const char *key, uint64_t v);
void json_double(io_json *j, const char *key, double v);
void json_bool(io_json *j, const char *key, bool v);
void json_hex_words(io_json *j, const char *key, const uint32_t *w, unsigned n);

/* Write through a temporary file in the same directory, fsync, rename.
 * The writer callback fills the FILE.  Returns 0 or -1 with errno. */
int io_write_atomic(const char *path, void (*writer)(FILE *f, void *ctx), void *ctx);
/* mkdir -p; 0 or -1 with errno (ENAMETOOLONG past IO_DIR_MAX bytes). */
int io_make_dirs(const char *dir);
/* Paths made from a directory io_make_dirs accepts and a file name (at most
 * 255 bytes): IO_PATH_MAX holds any of them with its NUL. */
#define IO_DIR_MAX 1023
#define IO_PATH_MAX (IO_DIR_MAX + 1 + 255 + 1)
/* DIR/NAME into path[n]; false when it does not fit.  A path cut short names
 * another file: callers refuse it rather than write there. */
bool io_path_join(char *path, size_t n, const char *dir, const char *name);

#endif
