/* tiefuzz export: findings as regression tuples, Amber scripts or
 * TestFloat-style lines. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "options.h"
#include "engine/findings.h"
#include "engine/module.h"
#include "io/finding.h"
#include "io/json.h"
#include "io/regression.h"

static const char help[] =
    "usage: tiefuzz export FILE|DIR... --format tuples|amber|testfloat [-o DIR]\n"
    "  tuples     merge into DIR/<op>.tuples (default DIR: corpus/regression), sorted, no duplicates\n"
    "  amber      DIR/<op>-<signature>.amber per finding (default DIR: .), uint32 buffers, EQ_BUFFER\n"
    "  testfloat  DIR/<op>.testfloat lines 'a b c result' for scalar f32 ops without controls (default DIR: .)\n";

typedef struct {
    char path[600];
    io_finding rec;
    eng_case c;
    isa_lowering lowering;
} item;

static int collect(const char *path, item **items, unsigned *n, char *err, size_t errn)
{
    struct stat st;
    if (stat(path, &st)) {
        snprintf(err, errn, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d) {
            snprintf(err, errn, "%s: cannot open", path);
            return -1;
        }
        char *names[4096];
        unsigned k = 0;
        for (struct dirent *e; (e = readdir(d)) && k < 4096;) {
            size_t len = strlen(e->d_name);
            if (len > 8 && !strcmp(e->d_name + len - 8, ".finding"))
                names[k++] = strdup(e->d_name);
        }
        closedir(d);
        int rc = 0;
        for (unsigned i = 0; i < k; i++) {
            char p[600];
            snprintf(p, sizeof p, "%s/%s", path, names[i]);
            if (!rc)
                rc = collect(p, items, n, err, errn);
            free(names[i]);
        }
        return rc;
    }
    char *buf;
    size_t len;
    if (io_read_file(path, IO_FINDING_MAX_BYTES, &buf, &len, err, errn))
        return -1;
    *items = realloc(*items, (*n + 1) * sizeof **items);
    item *it = &(*items)[*n];
    memset(it, 0, sizeof *it);
    snprintf(it->path, sizeof it->path, "%s", path);
    int rc = io_finding_parse(buf, len, path, &it->rec, err, errn);
    free(buf);
    if (rc)
        return -1;
    const char *why = eng_finding_case(&it->rec, &it->c, &it->lowering);
    if (why) {
        snprintf(err, errn, "%s: %s", path, why);
        return -1;
    }
    ++*n;
    return 0;
}

static int by_path(const void *a, const void *b) { return strcmp(((const item *)a)->path, ((const item *)b)->path); }

static void write_text(FILE *f, void *ctx) { fputs(ctx, f); }


static int export_tuples(item *items, unsigned n, const char *dir)
{
    if (io_make_dirs(dir)) {
        fprintf(stderr, "tiefuzz export: cannot create %s\n", dir);
        return 2;
    }
    for (unsigned i = 0; i < n; i++) {
        if (!items[i].c.in.op)
            continue;
        const isa_op *op = items[i].c.in.op;
        char path[700], err[600];
        snprintf(path, sizeof path, "%s/%s.tuples", dir, op->name);
        io_regression r = {0};
        char *buf;
        size_t len;
        FILE *exists = fopen(path, "r");
        if (exists) {
            fclose(exists);
            if (io_read_file(path, 64u << 20, &buf, &len, err, sizeof err) ||
                io_regression_parse(buf, len, path, &r, err, sizeof err)) {
                fprintf(stderr, "tiefuzz export: %s\n", err);
                return 2;
            }
            free(buf);
        }
        snprintf(r.op, sizeof r.op, "%s", op->name);
        /* Every finding of this op goes into the same file. */
        unsigned added = 0;
        for (unsigned j = i; j < n; j++) {
            if (items[j].c.in.op != op)
                continue;
            io_regression_entry e = {0};
            isa_controls_text(&items[j].c.in, e.controls, sizeof e.controls);
            isa_params_text(&items[j].c.in, e.params, sizeof e.params);
            snprintf(e.lowering, sizeof e.lowering, "%s", items[j].rec.lowering);
            e.n_in = op->n_in;
            e.n_out = op->n_out;
            memcpy(e.in, items[j].c.words, op->n_in * 4);
            op->impl->eval(&items[j].c.in, e.in, e.out, NULL);  /* the model's answer is the expectation */
            snprintf(e.comment, sizeof e.comment, "%s %016llx on %.60s", items[j].rec.kind,
                     (unsigned long long)items[j].rec.signature, items[j].rec.device);
            io_regression_add(&r, &e);
            added++;
            if (j != i)
                items[j].c.in.op = NULL;  /* done */
        }
        io_regression_normalize(&r);
        char *text = io_regression_format(&r);
        int rc = io_write_atomic(path, write_text, text);
        free(text);
        io_regression_free(&r);
        if (rc) {
            fprintf(stderr, "tiefuzz export: cannot write %s\n", path);
            return 2;
        }
        printf("%s: %u tuples merged\n", path, added);
    }
    return 0;
}

static spv_device_caps generic_caps(void)
{
    spv_device_caps c = {{true, true, true}, {true, true, true}, true, true, true};
    return c;
}

static int export_amber(item *items, unsigned n, const char *dir)
{
    if (io_make_dirs(dir)) {
        fprintf(stderr, "tiefuzz export: cannot create %s\n", dir);
        return 2;
    }
    /* The module declares float controls as the default device offers them;
     * without a device, as a device offering all of them would. */
    vkd_info *list = NULL, dev;
    unsigned count = 0;
    char err[1 << 16];
    memset(&dev, 0, sizeof dev);
    dev.caps = generic_caps();
    dev.api_version = VK_API_VERSION_1_2;
    if (vkd_enumerate(&list, &count, err, sizeof err) == 0) {
        int idx = vkd_choose(list, count, NULL);
        if (idx >= 0)
            dev = list[idx];
    }
    free(list);
    for (unsigned i = 0; i < n; i++) {
        item *it = &items[i];
        const isa_op *op = it->c.in.op;
        if (!strcmp(it->rec.lowering, "user-shader")) {
            fprintf(stderr, "tiefuzz export: %s: came from a user shader; export its own module instead\n", it->path);
            continue;
        }
        eng_module m;
        if (eng_module_build(&it->c.in, it->lowering, &dev, &m, err, sizeof err)) {
            fprintf(stderr, "tiefuzz export: %s: %s\n", it->path, err);
            return 2;
        }
        char *dis = spv_disassemble(&m.spv);
        spv_interface f;
        spv_scan_interface(&m.spv, &f);
        uint32_t host[ISA_MAX_OUT];
        op->impl->eval(&it->c.in, it->c.words, host, NULL);
        size_t cap = strlen(dis) + 8192, len = 0;
        char *s = malloc(cap);
#define OUT(...) len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__)
        OUT("#!amber\n# tiefuzz finding %s: %s, %s lowering, signature %016llx\n", op->name, it->rec.kind,
            it->rec.lowering, (unsigned long long)it->rec.signature);
        OUT("# Seen on %s (%s). Expected output: tiefuzz's host model.\n", it->rec.device, it->rec.driver_info);
        OUT("# The module declares: %s.\n# Amber cannot request float-control properties (DEVICE_PROPERTY is CTS-only):\n"
            "# run it on a device that offers them. Run with: amber -v 1.2 THIS_FILE\n", m.declared);
        if (m.spv.count && strstr(dis, "OpCapability Float64"))
            OUT("DEVICE_FEATURE shaderFloat64\n");
        if (strstr(dis, "OpCapability Int64"))
            OUT("DEVICE_FEATURE shaderInt64\n");
        if (strstr(dis, "OpCapability Float16"))
            OUT("DEVICE_FEATURE Float16Int8Features.shaderFloat16\n");
        OUT("\nSHADER compute tiefuzz_op SPIRV-ASM TARGET_ENV spv1.5\n%sEND\n\n", dis);
        OUT("BUFFER in DATA_TYPE uint32 DATA\n");
        for (unsigned w = 0; w < op->n_in; w++)
            OUT("0x%08x%s", it->c.words[w], w + 1 < op->n_in ? " " : "\n");
        OUT("END\n\nBUFFER out DATA_TYPE uint32 SIZE %u FILL 0\n\nBUFFER expected DATA_TYPE uint32 DATA\n", op->n_out);
        for (unsigned w = 0; w < op->n_out; w++)
            OUT("0x%08x%s", host[w], w + 1 < op->n_out ? " " : "\n");
        OUT("END\n\nBUFFER count DATA_TYPE uint32 DATA\n1\nEND\n\nPIPELINE compute tiefuzz_pipeline\n  ATTACH tiefuzz_op");
        if (op->ctrl_limit[CTRL_K])
            OUT(" SPECIALIZE 0 AS uint32 %u", it->c.in.ctrl[CTRL_K]);
        OUT("\n  BIND BUFFER in AS storage DESCRIPTOR_SET 0 BINDING 0\n"
            "  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 1\n"
            "  BIND BUFFER count AS push_constant\nEND\n\nRUN tiefuzz_pipeline 1 1 1\n\nEXPECT out EQ_BUFFER expected\n");
#undef OUT
        char path[800];
        snprintf(path, sizeof path, "%s/%s-%016llx.amber", dir, op->name, (unsigned long long)it->rec.signature);
        int rc = io_write_atomic(path, write_text, s);
        free(s);
        free(dis);
        eng_module_free(&m);
        if (rc) {
            fprintf(stderr, "tiefuzz export: cannot write %s\n", path);
            return 2;
        }
        printf("%s\n", path);
    }
    return 0;
}

static bool scalar_f32(const isa_op *op)
{
    if (op->n_out != 1 || op->out[0].format != WORD_F32 || op->n_in != 3)
        return false;
    for (unsigned i = 0; i < op->n_in; i++)
        if (op->in[i].format != WORD_F32)
            return false;
    return true;
}

static int export_testfloat(item *items, unsigned n, const char *dir)
{
    if (io_make_dirs(dir)) {
        fprintf(stderr, "tiefuzz export: cannot create %s\n", dir);
        return 2;
    }
    unsigned skipped = 0;
    for (unsigned i = 0; i < n; i++) {
        const isa_op *op = items[i].c.in.op;
        if (!op)
            continue;
        isa_instance plain;
        isa_instance_default(&plain, op);
        if (!scalar_f32(op)) {
            skipped++;
            continue;
        }
        char path[700];
        snprintf(path, sizeof path, "%s/%s.testfloat", dir, op->name);
        size_t cap = 64 * (n + 1), len = 0;
        char *s = malloc(cap);
        s[0] = 0;
        unsigned lines = 0;
        for (unsigned j = i; j < n; j++) {
            if (items[j].c.in.op != op)
                continue;
            if (memcmp(items[j].c.in.ctrl, plain.ctrl, sizeof plain.ctrl)) {
                skipped++;
            } else {
                uint32_t host[ISA_MAX_OUT];
                op->impl->eval(&items[j].c.in, items[j].c.words, host, NULL);
                len += (size_t)snprintf(s + len, cap - len, "%08X %08X %08X %08X\n", items[j].c.words[0],
                                        items[j].c.words[1], items[j].c.words[2], host[0]);
                lines++;
            }
            if (j != i)
                items[j].c.in.op = NULL;
        }
        if (lines) {
            if (io_write_atomic(path, write_text, s)) {
                fprintf(stderr, "tiefuzz export: cannot write %s\n", path);
                free(s);
                return 2;
            }
            printf("%s: %u lines\n", path, lines);
        }
        free(s);
    }
    if (skipped)
        fprintf(stderr, "tiefuzz export: %u findings skipped: testfloat takes scalar f32 ops (three f32 inputs, one "
                "f32 output) without controls\n", skipped);
    return 0;
}

int cmd_export(int argc, char **argv)
{
    cli_args a = {argc, argv, 1, "export", false};
    const char *format = NULL, *dir = NULL, *paths[256], *v;
    unsigned n_paths = 0;
    while (a.i < argc && !a.failed) {
        if (cli_flag(&a, "--help")) {
            fputs(help, stdout);
            return 0;
        } else if ((v = cli_value(&a, "--format")))
            format = v;
        else if ((v = cli_value(&a, "-o")))
            dir = v;
        else if (a.failed)
            break;
        else if (argv[a.i][0] == '-')
            return cli_fail("export", "unknown option '%s'", argv[a.i]);
        else if (n_paths < 256)
            paths[n_paths++] = argv[a.i++];
        else
            return cli_fail("export", "too many paths");
    }
    if (a.failed)
        return 2;
    if (!format || !n_paths) {
        fputs(help, stderr);
        return 2;
    }
    if (strcmp(format, "tuples") && strcmp(format, "amber") && strcmp(format, "testfloat"))
        return cli_fail("export", "--format '%s': expected tuples, amber or testfloat", format);
    item *items = NULL;
    unsigned n = 0;
    char err[1024];
    for (unsigned i = 0; i < n_paths; i++)
        if (collect(paths[i], &items, &n, err, sizeof err)) {
            fprintf(stderr, "tiefuzz export: %s\n", err);
            free(items);
            return 2;
        }
    qsort(items, n, sizeof *items, by_path);
    int rc;
    if (!strcmp(format, "tuples"))
        rc = export_tuples(items, n, dir ? dir : "corpus/regression");
    else if (!strcmp(format, "amber"))
        rc = export_amber(items, n, dir ? dir : ".");
    else
        rc = export_testfloat(items, n, dir ? dir : ".");
    free(items);
    return rc;
}
