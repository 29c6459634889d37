/* Printing exact values: as a hex float and as a sum of powers of two. */
#include <stdio.h>
#include <string.h>
#include "fp.h"

static const char *special(fp_value v)
{
    switch (v.kind) {
    case FPK_NAN: return "NaN";
    case FPK_INF: return v.sign ? "-inf" : "+inf";
    case FPK_ZERO: return v.sign ? "-0" : "+0";
    default: return NULL;
    }
}

char *fp_value_hexfloat(fp_value v, char *buf, unsigned n)
{
    const char *s = special(v);
    if (s) {
        snprintf(buf, n, "%s", s);
        return buf;
    }
    /* 1.xxxx form: leading bit, then the rest padded to whole hex digits. */
    int len = fp_msb(v) - v.exp + 1;
    int frac_bits = len - 1;
    int digits = (frac_bits + 3) / 4;
    fp_u128 frac = v.sig & (((fp_u128)1 << frac_bits) - 1);
    frac <<= digits * 4 - frac_bits;
    char hex[40] = {0};
    for (int i = digits - 1; i >= 0; i--) {
        hex[i] = "0123456789abcdef"[(unsigned)(frac & 15)];
        frac >>= 4;
    }
    while (digits > 0 && hex[digits - 1] == '0')
        hex[--digits] = 0;
    snprintf(buf, n, "%s0x1%s%sp%+d%s", v.sign ? "-" : "", digits ? "." : "", hex, fp_msb(v),
             v.jammed ? " (+sticky)" : "");
    return buf;
}

char *fp_value_powers(fp_value v, char *buf, unsigned n)
{
    const char *s = special(v);
    if (s) {
        snprintf(buf, n, "%s", s);
        return buf;
    }
    size_t used = 0;
    buf[0] = 0;
    int terms = 0;
    used += (size_t)snprintf(buf + used, n - used, "%s(", v.sign ? "-" : "");
    for (int bit = 127; bit >= 0 && used < n; bit--) {
        if (!((v.sig >> bit) & 1))
            continue;
        if (terms == 8) {
            int left = 0;
            for (int b = bit; b >= 0; b--)
                left += (int)((v.sig >> b) & 1);
            used += (size_t)snprintf(buf + used, n - used, " + ... %d more terms down to 2^%d", left,
                                     fp_lsb(v));
            break;
        }
        used += (size_t)snprintf(buf + used, n - used, "%s2^%d", terms ? " + " : "", v.exp + bit);
        terms++;
    }
    if (used < n)
        snprintf(buf + used, n - used, ")%s", v.jammed ? " + sticky" : "");
    return buf;
}
