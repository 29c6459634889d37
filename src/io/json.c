/* JSON writing and atomic files. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "json.h"

void json_begin(io_json *j, FILE *f)
{
    memset(j, 0, sizeof *j);
    j->f = f;
}

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void key(io_json *j, const char *k)
{
    if (j->need_comma[j->depth])
        fputc(',', j->f);
    j->need_comma[j->depth] = true;
    if (k) {
        put_string(j->f, k);
        fputc(':', j->f);
    }
}

void json_object(io_json *j, const char *k)
{
    key(j, k);
    fputc('{', j->f);
    j->need_comma[++j->depth] = false;
}

void json_array(io_json *j, const char *k)
{
    key(j, k);
    fputc('[', j->f);
    j->need_comma[++j->depth] = false;
}

void json_end_object(io_json *j)
{
    fputc('}', j->f);
    j->depth--;
    if (!j->depth)
        fputc('\n', j->f);
}

void json_end_array(io_json *j)
{
    fputc(']', j->f);
    j->depth--;
}

void json_string(io_json *j, const char *k, const char *v)
{
    key(j, k);
    if (v)
        put_string(j->f, v);
    else
        fputs("null", j->f);
}

void json_uint(io_json *j, const char *k, uint64_t v)
{
    key(j, k);
    fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_double(io_json *j, const char *k, double v)
{
    key(j, k);
    fprintf(j->f, "%.6g", v);
}

void json_bool(io_json *j, const char *k, bool v)
{
    key(j, k);
    fputs(v ? "true" : "false", j->f);
}

void json_hex_words(io_json *j, const char *k, const uint32_t *w, unsigned n)
{
    json_array(j, k);
    for (unsigned i = 0; i < n; i++) {
        char buf[16];
        snprintf(buf, sizeof buf, "%08x", w[i]);
        json_string(j, NULL, buf);
    }
    json_end_array(j);
}

int io_write_atomic(const char *path, void (*writer)(FILE *f, void *ctx), void *ctx)
{
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    if (!tmp)
        return -1;
    snprintf(tmp, len, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        free(tmp);
        return -1;
    }
    writer(f, ctx);
    int rc = ferror(f) ? -1 : 0;
    if (fflush(f) || fsync(fileno(f)))
        rc = -1;
    if (fclose(f))
        rc = -1;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -1;
    if (rc) {
        int e = errno;
        unlink(tmp);
        errno = e;
    }
    free(tmp);
    return rc;
}

bool io_path_join(char *path, size_t n, const char *dir, const char *name)
{
    int len = snprintf(path, n, "%s/%s", dir, name);
    return len >= 0 && (size_t)len < n;
}

int io_make_dirs(const char *dir)
{
    char path[IO_DIR_MAX + 1];
    if (strlen(dir) >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(path, dir);
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(path, 0755);
            *p = '/';
        }
    return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -1;
}
