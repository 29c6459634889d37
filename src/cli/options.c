/* Argument helpers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"
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

int cli_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tiefuzz %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

bool cli_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (!*s || *s == '-')
        return false;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end)
        return false;
    *out = v;
    return true;
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
        return 4;
    }
    return 0;
}

int cli_instance(const char *cmd, const char *op_name, const char *ctrl, const char *param, isa_instance *out)
{
    const isa_op *op = isa_op_find(op_name);
    if (!op)
        return cli_fail(cmd, "unknown op '%s' (see 'tiefuzz ops')", op_name);
    isa_instance_default(out, op);
    const char *e;
    if (ctrl && (e = isa_parse_controls(out, ctrl)))
        return cli_fail(cmd, "--ctrl: %s", e);
    if (param && (e = isa_parse_params(out, param)))
        return cli_fail(cmd, "--param: %s", e);
    return 0;
}
