/* Generator class names. */
#include <stdio.h>
#include <string.h>
#include "gen.h"

static const char *const class_names[GEN_CLASS_COUNT] = {
    "tie", "near-tie", "double-round", "subnormal", "overflow", "cancel", "special", "random",
    "carry", "sign", "merge", "zero-half", "e-zero", "truncation",
};

const char *gen_class_name(gen_class c) { return class_names[c]; }

int gen_class_parse(const char *s)
{
    for (int i = 0; i < GEN_CLASS_COUNT; i++)
        if (strcmp(s, class_names[i]) == 0)
            return i;
    return -1;
}

int gen_class_list_parse(const char *s, gen_class *out, char *bad, size_t badn)
{
    int n = 0;
    for (;;) {
        size_t len = strcspn(s, ",");
        char token[32];
        int c = -1;
        if (len < sizeof token) {
            memcpy(token, s, len);
            token[len] = 0;
            c = gen_class_parse(token);
        }
        bool all = len == 3 && strncmp(s, "all", 3) == 0;
        if (c < 0 && !all) {
            snprintf(bad, badn, "%.*s", (int)(len < 64 ? len : 64), s);  /* named, never stored */
            return -1;
        }
        int first = all ? 0 : c, last = all ? GEN_CLASS_COUNT - 1 : c;
        for (int i = first; i <= last; i++) {
            if (n == GEN_CLASS_LIST_MAX)
                return -2;
            out[n++] = (gen_class)i;
        }
        if (!s[len])
            return n;
        s += len + 1;
    }
}

/* A mismatch ends each memcmp early: in a periodic block only the period
 * itself reads the block whole (an almost periodic one, each multiple of
 * its near-period up to max). */
size_t gen_class_period(const gen_class *c, size_t n, size_t max)
{
    for (size_t p = 1; p <= max && 2 * p <= n; p++)
        if (!memcmp(c, c + p, (n - p) * sizeof *c))
            return p;
    return 0;
}
