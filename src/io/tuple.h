/* io/tuple: the tuple text format: one tuple a line, 32-bit words in hex
 * (with or without 0x), separated by spaces or commas; '#' starts a
 * comment.  Pure functions over a buffer, so they can be fuzzed. */
#ifndef TIEFUZZ_IO_TUPLE_H
#define TIEFUZZ_IO_TUPLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Parse one line (NUL-terminated, no newline needed).  Returns the number
 * of words (0 for a blank or comment line), or -1 with a message in err
 * naming the column. */
int io_parse_words(const char *line, uint32_t *words, unsigned max, char *err, size_t errn);
/* Read one line of at most cap - 1 characters into buf (NUL-terminated,
 * without its newline): memory stays bounded whatever the input.  Returns 1,
 * 0 at the end of the input, or -1 with the reason in err (a line too long,
 * a NUL byte, a read error such as a directory, with errno's reason). */
int io_read_line(FILE *f, char *buf, size_t cap, char *err, size_t errn);
/* Print words as 8-digit lowercase hex, space separated, then a newline. */
void io_print_words(FILE *f, const uint32_t *words, unsigned n);

#endif
