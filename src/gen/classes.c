/* Generator class names. */
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

int gen_class_list_parse(const char *s, gen_class *out, const char **bad)
{
    static char token[64];
    int n = 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        if (len == 0 || len >= sizeof token) {
            *bad = len ? "(too long)" : "(empty)";
            return -1;
        }
        memcpy(token, s, len);
        token[len] = 0;
        if (strcmp(token, "all") == 0) {
            for (int i = 0; i < GEN_CLASS_COUNT && n < GEN_CLASS_COUNT; i++)
                out[n++] = (gen_class)i;
        } else {
            int c = gen_class_parse(token);
            if (c < 0) {
                *bad = token;
                return -1;
            }
            if (n < 64)
                out[n++] = (gen_class)c;
        }
        s += len;
        if (*s == ',')
            s++;
    }
    return n;
}
