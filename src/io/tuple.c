/* The tuple text format. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "tuple.h"

static int hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int io_parse_words(const char *line, uint32_t *words, unsigned max, char *err, size_t errn)
{
    unsigned n = 0;
    const char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == ',' || *p == '\r' || *p == '\n')
            p++;
        if (!*p || *p == '#')
            return (int)n;
        const char *start = p;
        if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
            p += 2;
        uint64_t v = 0;
        int digits = 0;
        for (int d; (d = hex_digit((unsigned char)*p)) >= 0; p++) {
            v = v << 4 | (unsigned)d;
            if (++digits > 8) {
                snprintf(err, errn, "column %d: more than 8 hex digits in a 32-bit word", (int)(start - line) + 1);
                return -1;
            }
        }
        if (!digits || (*p && !strchr(" \t,\r\n#", *p))) {
            snprintf(err, errn, "column %d: expected a hex word, found '%.12s'", (int)(p - line) + 1, p);
            return -1;
        }
        if (n == max) {
            snprintf(err, errn, "column %d: more than %u words", (int)(start - line) + 1, max);
            return -1;
        }
        words[n++] = (uint32_t)v;
    }
}

void io_print_words(FILE *f, const uint32_t *words, unsigned n)
{
    static const char hex[] = "0123456789abcdef";
    char buf[9];
    for (unsigned i = 0; i < n; i++) {
        size_t len = 0;
        if (i)
            buf[len++] = ' ';
        for (int s = 28; s >= 0; s -= 4)
            buf[len++] = hex[(words[i] >> s) & 15];
        fwrite(buf, 1, len, f);
    }
    fputc('\n', f);
}

int io_read_line(FILE *f, char *buf, size_t cap, char *err, size_t errn)
{
    size_t n = 0;
    int c;
    while ((c = getc_unlocked(f)) != EOF && c != '\n') {
        if (c == 0) {
            snprintf(err, errn, "contains a NUL byte: not a text tuple file");
            return -1;
        }
        if (n + 1 >= cap) {
            snprintf(err, errn, "line too long (more than %zu characters)", cap - 1);
            return -1;
        }
        buf[n++] = (char)c;
    }
    buf[n] = 0;
    if (c == EOF && ferror(f)) {
        snprintf(err, errn, "read error: %s", strerror(errno));
        return -1;
    }
    return c == EOF && n == 0 ? 0 : 1;
}
