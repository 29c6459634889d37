/* Finding files and the binary case encoding. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "finding.h"

typedef struct {
    char *s;
    size_t len, cap;
} buf_t;

static void put(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buf_t *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (b->s && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = (b->cap + (size_t)n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s)
            abort();
    }
}

static void put_words(buf_t *b, const char *key, const uint32_t *w, unsigned n)
{
    put(b, "%s", key);
    for (unsigned i = 0; i < n; i++)
        put(b, " %08x", w[i]);
    put(b, "\n");
}

char *io_finding_format(const io_finding *f)
{
    buf_t b = {0};
    put(&b, "tiefuzz-finding %d\n", IO_FINDING_VERSION);
    put(&b, "op %s\ncontrols %s\nparams %s\nlowering %s\n", f->op, f->controls, f->params, f->lowering);
    put(&b, "device %s\ndriver %s\ndriver-info %s\ndriver-version %u\napi-version %s\n", f->device, f->driver,
        f->driver_info, f->driver_version, f->api_version);
    put(&b, "declared %s\n", f->declared);
    put(&b, "seed %llu\ncase %llu\nclass %s\nkind %s\nsignature %016llx\ncount %llu\n", (unsigned long long)f->seed,
        (unsigned long long)f->case_index, f->gen_class, f->kind, (unsigned long long)f->signature,
        (unsigned long long)f->count);
    put(&b, "strict-nan %s\n", f->strict_nan ? "yes" : "no");
    if (f->verdict[0]) {
        put(&b, "verdict %s\n", f->verdict);
        if (f->verdict_cause[0])
            put(&b, "verdict-cause %s\n", f->verdict_cause);
        put(&b, "verdict-reason %s\n", f->verdict_reason);
    }
    put_words(&b, "input", f->input, f->n_in);
    put_words(&b, "host", f->host, f->n_out);
    put_words(&b, "device-output", f->device_out, f->n_out);
    if (f->minimized) {
        put(&b, "original-controls %s\n", f->original_controls);
        put_words(&b, "original-input", f->original_input, f->n_in);
        put_words(&b, "original-host", f->original_host, f->n_out);
        put_words(&b, "original-device-output", f->original_device, f->n_out);
    }
    if (f->explanation) {
        const char *p = f->explanation;
        while (*p) {
            size_t n = strcspn(p, "\n");
            put(&b, "| %.*s\n", (int)n, p);
            p += n + (p[n] == '\n');
        }
    }
    put(&b, "checksum xxh64 %016llx\n", (unsigned long long)XXH64(b.s, b.len, 0));
    return b.s;
}

/* ---- parsing ---- */

typedef struct {
    const char *name;
    char *err;
    size_t errn;
    unsigned line;
} parse_ctx;

static int fail(parse_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(parse_ctx *c, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(c->err, c->errn, "%s:%u: %s", c->name, c->line, msg);
    return -1;
}

static int copy_text(parse_ctx *c, const char *key, const char *v, size_t len, char *out, size_t n)
{
    if (len >= n)
        return fail(c, "%s: longer than %zu characters", key, n - 1);
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)v[i] < 0x20)
            return fail(c, "%s: control character in the value", key);
    memcpy(out, v, len);
    out[len] = 0;
    return 0;
}

static int parse_u64(parse_ctx *c, const char *key, const char *v, size_t len, int base, uint64_t *out)
{
    char tmp[32];
    if (!len || len >= sizeof tmp)
        return fail(c, "%s: expected a number", key);
    memcpy(tmp, v, len);
    tmp[len] = 0;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(tmp, &end, base);
    if (*end || errno || tmp[0] == '-')
        return fail(c, "%s: expected a number, found '%s'", key, tmp);
    *out = x;
    return 0;
}

static int parse_words(parse_ctx *c, const char *key, const char *v, size_t len, uint32_t *w, unsigned *n)
{
    unsigned count = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && v[i] == ' ')
            i++;
        if (i == len)
            break;
        size_t start = i;
        while (i < len && v[i] != ' ')
            i++;
        uint64_t x = 0; /* set on success; GCC cannot see that through parse_u64 */
        if (i - start != 8 || parse_u64(c, key, v + start, i - start, 16, &x))
            return fail(c, "%s: expected 8-digit hex words", key);
        if (count == IO_MAX_WORDS)
            return fail(c, "%s: more than %d words", key, IO_MAX_WORDS);
        w[count++] = (uint32_t)x;
    }
    if (!count)
        return fail(c, "%s: expected at least one word", key);
    *n = count;
    return 0;
}

enum { F_OP = 1, F_CONTROLS = 2, F_PARAMS = 4, F_LOWERING = 8, F_INPUT = 16, F_HOST = 32, F_DEVICE = 64,
       F_KIND = 128, F_SIGNATURE = 256, F_STRICT_NAN = 512 };

/* The verdicts engine/verdict.h gives. */
static int parse_verdict(parse_ctx *c, const char *v, size_t len, io_finding *f)
{
    static const char *const names[] = {"translation", "device", "model", "unknown"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (len == strlen(names[i]) && !strncmp(v, names[i], len)) {
            snprintf(f->verdict, sizeof f->verdict, "%s", names[i]);
            return 0;
        }
    return fail(c, "verdict '%.*s': expected translation, device, model or unknown", (int)(len > 40 ? 40 : len), v);
}

static int parse_yes_no(parse_ctx *c, const char *key, const char *v, size_t len, bool *out)
{
    if ((len == 3 && !memcmp(v, "yes", 3)) || (len == 2 && !memcmp(v, "no", 2))) {
        *out = len == 3;
        return 0;
    }
    return fail(c, "%s: expected yes or no, found '%.*s'", key, (int)(len > 40 ? 40 : len), v);
}

int io_finding_parse(const char *buf, size_t len, const char *name, io_finding *f, char *err, size_t errn)
{
    parse_ctx c = {name, err, errn, 0};
    memset(f, 0, sizeof *f);
    if (len > IO_FINDING_MAX_BYTES)
        return fail(&c, "larger than %u bytes: not a finding file", IO_FINDING_MAX_BYTES);
    if (memchr(buf, 0, len))
        return fail(&c, "contains a NUL byte: not a text finding file");
    /* The checksum line comes last and covers everything before it. */
    size_t end = len;
    if (end && buf[end - 1] == '\n')
        end--;
    size_t start = end;
    while (start > 0 && buf[start - 1] != '\n')
        start--;
    unsigned lines = 0;
    for (size_t i = 0; i < start; i++)
        lines += buf[i] == '\n';
    c.line = lines + 1;
    const char *tag = "checksum xxh64 ";
    if (end - start != strlen(tag) + 16 || strncmp(buf + start, tag, strlen(tag)) != 0)
        return fail(&c, "expected the last line to be 'checksum xxh64 <16 hex digits>' (truncated file?)");
    uint64_t want = 0; /* as x in parse_words */
    if (parse_u64(&c, "checksum", buf + start + strlen(tag), 16, 16, &want))
        return -1;
    uint64_t got = XXH64(buf, start, 0);
    if (got != want)
        return fail(&c, "checksum mismatch: the file says %016llx, its content hashes to %016llx (edited or corrupted)",
                    (unsigned long long)want, (unsigned long long)got);
    unsigned seen = 0;
    unsigned n_host = 0, n_dev = 0, n_oin = 0, n_oh = 0, n_od = 0;
    int version = 0;
    size_t pos = 0;
    c.line = 0;
    while (pos < start) {
        c.line++;
        size_t n = 0;
        while (pos + n < start && buf[pos + n] != '\n')
            n++;
        const char *line = buf + pos;
        pos += n + 1;
        if (c.line == 1) {
            if (n < 16 || strncmp(line, "tiefuzz-finding ", 16))
                return fail(&c, "expected 'tiefuzz-finding %d' (not a finding file)", IO_FINDING_VERSION);
            if (n != 17 || line[16] < '1' || line[16] > '0' + IO_FINDING_VERSION)
                return fail(&c, "finding format version '%.*s' is not supported (expected 1 to %d)", (int)(n - 16),
                            line + 16, IO_FINDING_VERSION);
            version = line[16] - '0';
            continue;
        }
        if (n >= 2 && line[0] == '|' && line[1] == ' ')
            continue;  /* explanation: regenerated when needed */
        if (n == 1 && line[0] == '|')
            continue;
        const char *sp = memchr(line, ' ', n);
        if (!sp)
            return fail(&c, "expected 'key value'");
        size_t klen = (size_t)(sp - line);
        const char *v = sp + 1;
        size_t vlen = n - klen - 1;
        char key[32];
        if (klen >= sizeof key)
            return fail(&c, "unknown field '%.*s'", (int)(klen > 40 ? 40 : klen), line);
        memcpy(key, line, klen);
        key[klen] = 0;
        int rc = 0;
        uint64_t x;
#define TEXT(k, field, flag) else if (!strcmp(key, k)) { rc = copy_text(&c, k, v, vlen, f->field, sizeof f->field); seen |= flag; }
        if (0) {
        }
        TEXT("op", op, F_OP)
        TEXT("controls", controls, F_CONTROLS)
        TEXT("params", params, F_PARAMS)
        TEXT("lowering", lowering, F_LOWERING)
        TEXT("device", device, 0)
        TEXT("driver", driver, 0)
        TEXT("driver-info", driver_info, 0)
        TEXT("api-version", api_version, 0)
        TEXT("declared", declared, 0)
        TEXT("class", gen_class, 0)
        TEXT("kind", kind, F_KIND)
        TEXT("original-controls", original_controls, 0)
        else if (version >= 2 && !strcmp(key, "verdict"))
            rc = parse_verdict(&c, v, vlen, f);
        TEXT("verdict-cause", verdict_cause, 0)
        TEXT("verdict-reason", verdict_reason, 0)
        else if (!strcmp(key, "driver-version")) {
            rc = parse_u64(&c, key, v, vlen, 10, &x);
            f->driver_version = (uint32_t)x;
        } else if (!strcmp(key, "seed"))
            rc = parse_u64(&c, key, v, vlen, 10, &f->seed);
        else if (!strcmp(key, "case"))
            rc = parse_u64(&c, key, v, vlen, 10, &f->case_index);
        else if (!strcmp(key, "count"))
            rc = parse_u64(&c, key, v, vlen, 10, &f->count);
        else if (!strcmp(key, "strict-nan")) {
            rc = parse_yes_no(&c, key, v, vlen, &f->strict_nan);
            seen |= F_STRICT_NAN;
        } else if (!strcmp(key, "signature")) {
            rc = vlen == 16 ? parse_u64(&c, key, v, vlen, 16, &f->signature) : fail(&c, "signature: expected 16 hex digits");
            seen |= F_SIGNATURE;
        } else if (!strcmp(key, "input")) {
            rc = parse_words(&c, key, v, vlen, f->input, &f->n_in);
            seen |= F_INPUT;
        } else if (!strcmp(key, "host")) {
            rc = parse_words(&c, key, v, vlen, f->host, &n_host);
            seen |= F_HOST;
        } else if (!strcmp(key, "device-output")) {
            rc = parse_words(&c, key, v, vlen, f->device_out, &n_dev);
            seen |= F_DEVICE;
        } else if (!strcmp(key, "original-input")) {
            rc = parse_words(&c, key, v, vlen, f->original_input, &n_oin);
            f->minimized = true;
        } else if (!strcmp(key, "original-host"))
            rc = parse_words(&c, key, v, vlen, f->original_host, &n_oh);
        else if (!strcmp(key, "original-device-output"))
            rc = parse_words(&c, key, v, vlen, f->original_device, &n_od);
        else
            return fail(&c, "unknown field '%s'", key);
#undef TEXT
        if (rc)
            return -1;
    }
    static const struct { unsigned flag; const char *name; } required[] = {
        {F_OP, "op"}, {F_CONTROLS, "controls"}, {F_PARAMS, "params"}, {F_LOWERING, "lowering"}, {F_INPUT, "input"},
        {F_HOST, "host"}, {F_DEVICE, "device-output"}, {F_KIND, "kind"}, {F_SIGNATURE, "signature"}};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!(seen & required[i].flag))
            return fail(&c, "the field '%s' is missing", required[i].name);
    if (n_dev != n_host)
        return fail(&c, "host and device-output have different word counts (%u, %u)", n_host, n_dev);
    f->n_out = n_host;
    if (!(seen & F_STRICT_NAN))  /* a file from before the field */
        f->strict_nan = !strcmp(f->kind, "nan-payload");
    if (f->minimized && (n_oin != f->n_in || n_oh != n_host || n_od != n_host))
        return fail(&c, "original-input, original-host and original-device-output must match input and host in size");
    return 0;
}

/* ---- binary cases ---- */

bool io_is_case_binary(const uint8_t *buf, size_t len) { return len >= 4 && memcmp(buf, IO_CASE_MAGIC, 4) == 0; }

size_t io_case_encode(const io_case *c, uint8_t *buf, size_t n)
{
    size_t name = strlen(c->op);
    size_t need = 4 + 7 + name + 4u * c->n_ctrl + 4u * c->n_param + 4u * c->n_words;
    if (need > n || name > 63 || c->n_ctrl > 32 || c->n_param > 16 || c->n_words > IO_MAX_WORDS)
        return 0;
    uint8_t *p = buf;
    memcpy(p, IO_CASE_MAGIC, 4);
    p += 4;
    *p++ = 1;
    *p++ = c->lowering;
    *p++ = c->n_ctrl;
    *p++ = c->n_param;
    *p++ = (uint8_t)c->n_words;
    *p++ = (uint8_t)(c->n_words >> 8);
    *p++ = (uint8_t)name;
    memcpy(p, c->op, name);
    p += name;
    for (unsigned i = 0; i < c->n_ctrl; i++, p += 4)
        for (int b = 0; b < 4; b++)
            p[b] = (uint8_t)(c->ctrl[i] >> (8 * b));
    for (unsigned i = 0; i < c->n_param; i++, p += 4)
        for (int b = 0; b < 4; b++)
            p[b] = (uint8_t)((uint32_t)c->param[i] >> (8 * b));
    for (unsigned i = 0; i < c->n_words; i++, p += 4)
        for (int b = 0; b < 4; b++)
            p[b] = (uint8_t)(c->words[i] >> (8 * b));
    return (size_t)(p - buf);
}

int io_case_decode(const uint8_t *buf, size_t len, const char *name, io_case *out, char *err, size_t errn)
{
    parse_ctx c = {name, err, errn, 1};
    memset(out, 0, sizeof *out);
    if (len < 11 || !io_is_case_binary(buf, len))
        return fail(&c, "expected a binary case starting with 'TFZC' and a 7-byte header (%zu bytes)", len);
    if (buf[4] != 1)
        return fail(&c, "binary case version %u is not supported (expected 1)", buf[4]);
    out->lowering = buf[5];
    out->n_ctrl = buf[6];
    out->n_param = buf[7];
    out->n_words = (uint16_t)(buf[8] | buf[9] << 8);
    size_t nlen = buf[10];
    if (out->n_ctrl > 32 || out->n_param > 16 || out->n_words > IO_MAX_WORDS || nlen > 63 || nlen == 0)
        return fail(&c, "binary case header out of range (controls %u, params %u, words %u, name %zu)", out->n_ctrl,
                    out->n_param, out->n_words, nlen);
    size_t need = 11 + nlen + 4u * out->n_ctrl + 4u * out->n_param + 4u * out->n_words;
    if (len != need)
        return fail(&c, "binary case is %zu bytes, its header says %zu (%s)", len, need, len < need ? "truncated" : "trailing bytes");
    const uint8_t *p = buf + 11;
    for (size_t i = 0; i < nlen; i++)
        if (p[i] < 0x21 || p[i] > 0x7e)
            return fail(&c, "binary case: op name has a byte 0x%02x that is not printable", p[i]);
    memcpy(out->op, p, nlen);
    p += nlen;
    for (unsigned i = 0; i < out->n_ctrl; i++, p += 4)
        out->ctrl[i] = p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    for (unsigned i = 0; i < out->n_param; i++, p += 4)
        out->param[i] = (int32_t)(p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
    for (unsigned i = 0; i < out->n_words; i++, p += 4)
        out->words[i] = p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    return 0;
}

int io_read_file(const char *path, size_t max, char **buf, size_t *len, char *err, size_t errn)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errn, "%s: cannot open (%s)", path, strerror(errno));
        return -1;
    }
    char *b = malloc(max + 1);
    size_t n = b ? fread(b, 1, max + 1, f) : 0;
    bool error = ferror(f);
    fclose(f);
    if (!b || error) {
        free(b);
        snprintf(err, errn, "%s: cannot read", path);
        return -1;
    }
    if (n > max) {
        free(b);
        snprintf(err, errn, "%s: larger than %zu bytes", path, max);
        return -1;
    }
    b[n] = 0;
    *buf = b;
    *len = n;
    return 0;
}

char *io_finding_with_count(const char *buf, size_t len, uint64_t count)
{
    const char *tag = "\ncount ", *at = NULL;
    for (size_t i = 0; i + strlen(tag) <= len; i++)
        if (!memcmp(buf + i, tag, strlen(tag))) {
            at = buf + i + 1;
            break;
        }
    const char *sum = NULL;   /* the checksum line: the last one */
    for (size_t i = len >= 2 ? len - 2 : 0; i > 0; i--)
        if (buf[i] == '\n') {
            sum = buf + i + 1;
            break;
        }
    if (!at || !sum || at >= sum)
        return NULL;
    const char *eol = memchr(at, '\n', (size_t)(sum - at));
    if (!eol)
        return NULL;
    buf_t b = {NULL, 0, 0};
    put(&b, "%.*scount %llu%.*s", (int)(at - buf), buf, (unsigned long long)count, (int)(sum - eol), eol);
    put(&b, "checksum xxh64 %016llx\n", (unsigned long long)XXH64(b.s, b.len, 0));
    return b.s;
}

void io_names_free(char **names, unsigned n)
{
    while (n)
        free(names[--n]);
    free(names);
}

static bool has_suffix(const char *name, const char *suffix)
{
    size_t len = strlen(name), k = strlen(suffix);
    return len > k && !strcmp(name + len - k, suffix);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Appends a copy of name, growing the array by doubling; false when out of memory. */
static bool push_name(char ***names, unsigned *n, unsigned *cap, const char *name)
{
    if (*n == *cap) {
        unsigned grown_cap = *cap ? 2 * *cap : 16;
        char **grown = realloc(*names, grown_cap * sizeof *grown);
        if (!grown)
            return false;
        *names = grown;
        *cap = grown_cap;
    }
    return ((*names)[*n] = strdup(name)) ? (++*n, true) : false;
}

int io_dir_list(const char *dir, const char *suffix, char ***names_out, unsigned *n_out, char *err, size_t errn)
{
    DIR *d = opendir(dir);
    if (!d) {
        int why = errno;
        snprintf(err, errn, "%s: %s", dir, why == ENOTDIR ? "not a directory" : strerror(why));
        errno = why;
        return -1;
    }
    char **names = NULL;
    unsigned n = 0, cap = 0;
    bool oom = false;
    for (struct dirent *e; !oom && (e = readdir(d));)
        oom = has_suffix(e->d_name, suffix) && !push_name(&names, &n, &cap, e->d_name);
    closedir(d);
    if (oom) {
        io_names_free(names, n);
        snprintf(err, errn, "%s: out of memory listing the directory", dir);
        errno = ENOMEM;
        return -1;
    }
    if (n)
        qsort(names, n, sizeof *names, by_name);
    *names_out = names;
    *n_out = n;
    return 0;
}
