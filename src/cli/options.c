/* Argument helpers. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "options.h"
#include "engine/pool.h"
#include "fp/fp.h"

bool cli_flag(cli_args *a, const char *name)
{
    if (a->i < a->argc && strcmp(a->argv[a->i], name) == 0) {
        a->i++;
        return true;
    }
    return false;
}

const char *cli_value(cli_args *a, const char *name)
{
    if (a->i >= a->argc)
        return NULL;
    const char *arg = a->argv[a->i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return NULL;
    if (arg[n] == '=') {
        a->i++;
        return arg + n + 1;
    }
    if (arg[n] != 0)
        return NULL;
    if (a->i + 1 >= a->argc) {
        cli_fail(a->cmd, "%s needs a value", name);
        a->failed = true;
        a->i++;
        return NULL;
    }
    a->i += 2;
    return a->argv[a->i - 1];
}

const char *cli_escape(const char *s, char *buf, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t used = 0;
    if (!n)
        return buf;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        bool plain = *p >= 0x20 && *p < 0x7f;
        size_t need = plain ? 1 : 4;
        if (used + need >= n)
            break;
        if (plain) {
            buf[used++] = (char)*p;
            continue;
        }
        buf[used++] = '\\';
        buf[used++] = 'x';
        buf[used++] = hex[*p >> 4];
        buf[used++] = hex[*p & 15];
    }
    buf[used] = 0;
    return buf;
}

bool cli_printable(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p >= 0x7f)
            return false;
    return true;
}

/* Messages echo user text (op names, values, paths, lines of files) and every message has one
 * line, so the whole message is escaped here rather than each argument at each call. */
int cli_fail(const char *cmd, const char *fmt, ...)
{
    char raw[2048], safe[4 * sizeof raw];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    fprintf(stderr, "tiefuzz %s: %s\n", cmd, cli_escape(raw, safe, sizeof safe));
    return EXIT_USAGE;
}

bool cli_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    /* strtoull would skip spaces, take a sign and saturate silently at 2^64 - 1. */
    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end || errno == ERANGE)
        return false;
    *out = v;
    return true;
}

const char *cli_class_names(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int c = 0; c < GEN_CLASS_COUNT && used < n; c++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", c ? " " : "", gen_class_name((gen_class)c));
    return buf;
}

/* --gen CLASS,... into the slots; the message names every class, from the class table. */
static void parse_gen(cli_args *a, const char *v, const cli_gen_slots *s)
{
    char bad[80];
    int n = gen_class_list_parse(v, s->classes, bad, sizeof bad);
    if (n > 0) {
        *s->n_classes = (unsigned)n;
        return;
    }
    char names[512];
    if (n == -2)
        cli_fail(a->cmd, "--gen '%s': more than %d classes", v, GEN_CLASS_LIST_MAX);
    else
        cli_fail(a->cmd, "--gen '%s': unknown class '%s' (expected %s, or all)", v, bad,
                 cli_class_names(names, sizeof names));
    a->failed = true;
}

bool cli_gen_option(cli_args *a, const cli_gen_slots *s)
{
    const char *v;
    int before = a->i;
    if ((v = cli_value(a, "--gen")))
        parse_gen(a, v, s);
    else if ((v = cli_value(a, "--seed"))) {
        if (!cli_parse_u64(v, s->seed)) {
            cli_fail(a->cmd, "--seed '%s': expected a number from 0 to 18446744073709551615 (2^64 - 1)", v);
            a->failed = true;
        }
    } else if (s->cases && (v = cli_value(a, "--cases"))) {
        if (!cli_parse_u64(v, s->cases) || !*s->cases || *s->cases > CLI_MAX_CASES) {
            cli_fail(a->cmd, "--cases '%s': expected a number from 1 to %llu (2^62)", v,
                     (unsigned long long)CLI_MAX_CASES);
            a->failed = true;
        }
    }
    return a->i != before;
}

bool cli_parse_duration(const char *s, double *seconds)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0)
        return false;
    double scale = 1;
    if (!strcmp(end, "ms"))
        scale = 1e-3;
    else if (!strcmp(end, "m"))
        scale = 60;
    else if (!strcmp(end, "h"))
        scale = 3600;
    else if (*end && strcmp(end, "s"))
        return false;
    *seconds = v * scale;
    return true;
}

int cli_check_fp_environment(void)
{
    const char *why = fp_check_host_environment();
    if (why) {
        fprintf(stderr, "tiefuzz: %s; refusing to run (results would not be exact)\n", why);
        return EXIT_INTERNAL;
    }
    return 0;
}

int cli_check_stack(const char *cmd)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_STACK, &r) || r.rlim_cur == RLIM_INFINITY || r.rlim_cur >= ENG_THREAD_STACK)
        return 0;
    /* Linux grows the main thread's stack up to the limit in force when it grows. */
    rlim_t want = r.rlim_max != RLIM_INFINITY && r.rlim_max < ENG_THREAD_STACK ? r.rlim_max : ENG_THREAD_STACK;
    int failed = 0;
    if (want > r.rlim_cur) {
        struct rlimit raised = {want, r.rlim_max};
        if (setrlimit(RLIMIT_STACK, &raised))
            failed = errno;
        else
            r.rlim_cur = want;
    }
    if (r.rlim_cur >= ENG_STACK_NEEDED)
        return 0;
    if (failed)
        fprintf(stderr, "tiefuzz %s: the stack limit is %llu KB, below the %zu KB case generation needs, and raising "
                        "it failed: %s\n",
                cmd, (unsigned long long)(r.rlim_cur >> 10), ENG_STACK_NEEDED >> 10, strerror(failed));
    else
        fprintf(stderr, "tiefuzz %s: the stack's hard limit is %llu KB, below the %zu KB case generation needs; "
                        "raise the hard limit (ulimit -Hs, limits.conf, docker --ulimit stack=) and run again\n",
                cmd, (unsigned long long)(r.rlim_cur >> 10), ENG_STACK_NEEDED >> 10);
    return EXIT_USAGE;
}

int cli_instance(const char *cmd, const char *op_name, const char *ctrl, const char *param, isa_instance *out)
{
    static const char *const flags[2] = {"--ctrl", "--param"};
    const isa_op *op = isa_op_find(op_name);
    if (!op)
        return cli_fail(cmd, "unknown op '%s' (see 'tiefuzz ops')", op_name);
    char err[1024];
    return isa_instance_from_text(op, ctrl, param, flags, out, err, sizeof err) ? cli_fail(cmd, "%s", err) : 0;
}
