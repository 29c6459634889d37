/* tiefuzz export: findings as regression tuples, Amber scripts or
 * TestFloat-style lines. */
#include <errno.h>
#include <stdarg.h>
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

/* DIR/NAME into path[IO_PATH_MAX]; false, with a message, when it does not fit. */
static bool join_path(char *path, const char *dir, const char *name)
{
    if (io_path_join(path, IO_PATH_MAX, dir, name))
        return true;
    fprintf(stderr, "tiefuzz export: %s/%s: path longer than %d bytes\n", dir, name, IO_PATH_MAX - 1);
    return false;
}

typedef struct {
    char path[IO_PATH_MAX];
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
        char **names;
        unsigned k;
        if (io_dir_list(path, ".finding", &names, &k, err, errn))
            return -1;
        int rc = 0;
        for (unsigned i = 0; i < k && !rc; i++) {
            char p[IO_PATH_MAX];
            if (!io_path_join(p, sizeof p, path, names[i])) {
                snprintf(err, errn, "%.500s/%.200s: path longer than %d bytes", path, names[i], IO_PATH_MAX - 1);
                rc = -1;
            } else {
                rc = collect(p, items, n, err, errn);
            }
        }
        io_names_free(names, k);
        return rc;
    }
    char *buf;
    size_t len;
    if (io_read_file(path, IO_FINDING_MAX_BYTES, &buf, &len, err, errn))
        return -1;
    if (!(*n & (*n - 1)) && !(*items = realloc(*items, (*n ? 2 * *n : 1) * sizeof **items)))  /* doubles at 2^k */
        abort();
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
        return EXIT_USAGE;
    }
    for (unsigned i = 0; i < n; i++) {
        if (!items[i].c.in.op)
            continue;
        const isa_op *op = items[i].c.in.op;
        char path[IO_PATH_MAX], name[128], err[600];
        snprintf(name, sizeof name, "%s.tuples", op->name);
        if (!join_path(path, dir, name))
            return EXIT_USAGE;
        io_regression r = {0};
        char *buf;
        size_t len;
        FILE *exists = fopen(path, "r");
        if (exists) {
            fclose(exists);
            if (io_read_file(path, 64u << 20, &buf, &len, err, sizeof err) ||
                io_regression_parse(buf, len, path, &r, err, sizeof err)) {
                fprintf(stderr, "tiefuzz export: %s\n", err);
                return EXIT_USAGE;
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
            return EXIT_USAGE;
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

/* A growing text buffer for one script. */
typedef struct {
    char *s;
    size_t len, cap;
} text_buf;

static void add(text_buf *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(text_buf *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (t->s && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        t->cap = (t->cap + (size_t)n + 1) * 2;
        if (!(t->s = realloc(t->s, t->cap)))
            abort();
    }
}

/* Workgroups for one tuple, as the engine dispatches it: per_tuple
 * invocations (a tile op: one per output word) in groups of local_size. */
static unsigned amber_groups(const eng_module *m)
{
    return (m->per_tuple + m->local_size - 1) / m->local_size;
}

static bool f16_nan(uint32_t h) { return fp_is_nan_bits(&fp_f16, h & 0xffff); }

/* Marks the 16-bit halves of the outputs that the run compared as "any NaN
 * equals any NaN" (no --strict-nan, the rule of eng_outputs_agree): those
 * where the host and the finding's device both gave a NaN.  A NaN the device
 * did not match stays checked bit for bit.  Returns how many. */
static unsigned nan_halves(const isa_op *op, const uint32_t *host, const uint32_t *dev, bool *skip)
{
    unsigned n = 0;
    for (unsigned w = 0; w < op->n_out; w++) {
        bool lo = false, hi = false;
        switch (op->out[w].format) {
        case WORD_F32:
        case WORD_B32:
            lo = hi = fp_is_nan_bits(&fp_f32, host[w]) && fp_is_nan_bits(&fp_f32, dev[w]);
            break;
        case WORD_F16X2:
            lo = f16_nan(host[w]) && f16_nan(dev[w]);
            hi = f16_nan(host[w] >> 16) && f16_nan(dev[w] >> 16);
            break;
        case WORD_F64LO:
            if (w + 1 < op->n_out) {  /* the pair is one f64: four halves */
                bool nan = fp_is_nan_bits(&fp_f64, host[w] | (uint64_t)host[w + 1] << 32) &&
                           fp_is_nan_bits(&fp_f64, dev[w] | (uint64_t)dev[w + 1] << 32);
                for (unsigned k = 0; k < 4; k++)
                    skip[2 * w + k] = nan;
                n += 4 * nan;
                w++;
                continue;
            }
            break;
        default:
            break;
        }
        skip[2 * w] = lo, skip[2 * w + 1] = hi;
        n += lo + hi;
    }
    return n;
}

/* The output buffer, and the expected one when the whole buffer is compared. */
static void amber_buffers(text_buf *t, const isa_op *op, const uint32_t *host, bool whole)
{
    if (!whole) {  /* compared by 16-bit halves, so a NaN half can be left out */
        add(t, "BUFFER out DATA_TYPE uint16 SIZE %u FILL 0\n\n", 2 * op->n_out);
        return;
    }
    add(t, "BUFFER out DATA_TYPE uint32 SIZE %u FILL 0\n\nBUFFER expected DATA_TYPE uint32 DATA\n", op->n_out);
    for (unsigned w = 0; w < op->n_out; w++)
        add(t, "0x%08x%s", host[w], w + 1 < op->n_out ? " " : "\n");
    add(t, "END\n\n");
}

/* EXPECT lines for the halves not skipped, one per run of them (IDX in bytes). */
static void amber_expect_halves(text_buf *t, const isa_op *op, const uint32_t *host, const bool *skip)
{
    unsigned halves = 2 * op->n_out;
    for (unsigned h = 0; h < halves;) {
        if (skip[h]) {
            h++;
            continue;
        }
        add(t, "EXPECT out IDX %u EQ", 2 * h);
        for (; h < halves && !skip[h]; h++)
            add(t, " 0x%04x", (host[h / 2] >> (16 * (h % 2))) & 0xffff);
        add(t, "\n");
    }
}

/* A device verdict: the result the Vulkan rules require for this module on
 * dev, when they allow exactly one (the expectation a driver bug report
 * needs), with the verdict for the text beside the script.  False when the
 * case is not a device bug here (or the rules allow several results). */
static bool rules_require(const item *it, const eng_module *m, const vkd_info *dev, eng_verdict *v)
{
    if (strcmp(it->rec.verdict, "device"))
        return false;
    eng_dispatch_shape shape = eng_dispatch_shape_of(m, &it->c.in);
    uint32_t host[ISA_MAX_OUT];
    it->c.in.op->impl->eval(&it->c.in, it->c.words, host, NULL);
    eng_judge_module(m, &shape, dev, &it->c.in, it->c.words, host, it->rec.device_out, it->rec.strict_nan, v);
    return v->kind == VERDICT_DEVICE && v->has_required;
}

static char *amber_script(const item *it, const eng_module *m, const char *dis, const eng_verdict *v)
{
    const isa_op *op = it->c.in.op;
    uint32_t host[ISA_MAX_OUT];
    op->impl->eval(&it->c.in, it->c.words, host, NULL);
    if (v)   /* a driver bug: expect what the rules require, not the model */
        memcpy(host, v->required, op->n_out * 4);
    bool skip[2 * ISA_MAX_OUT] = {0};
    /* A run that took any NaN for any NaN must not fail here on a payload. */
    unsigned skipped = it->rec.strict_nan ? 0 : nan_halves(op, host, it->rec.device_out, skip);
    text_buf t = {0};
    add(&t, "#!amber\n# tiefuzz finding %s: %s, %s lowering, signature %016llx\n", op->name, it->rec.kind,
        it->rec.lowering, (unsigned long long)it->rec.signature);
    if (v)
        add(&t, "# Seen on %s (%s). Expected output: the one result the Vulkan rules allow for this module\n"
            "# (a device bug: %s; see the .txt beside this file).\n", it->rec.device, it->rec.driver_info, v->rule);
    else
        add(&t, "# Seen on %s (%s). Expected output: tiefuzz's host model.\n", it->rec.device, it->rec.driver_info);
    add(&t, "# The module declares: %s.\n# Amber cannot request float-control properties (DEVICE_PROPERTY is CTS-only):\n"
        "# run it on a device that offers them. Run with: amber -v 1.2 THIS_FILE\n", m->declared);
    if (skipped)
        add(&t, "# The run compared NaNs without their payloads (no --strict-nan): the %u 16-bit halves where\n"
            "# both sides gave a NaN are not checked (Amber has no 'any NaN'); the others are, bit for bit.\n", skipped);
    if (strstr(dis, "OpCapability Float64"))
        add(&t, "DEVICE_FEATURE shaderFloat64\n");
    if (strstr(dis, "OpCapability Int64"))
        add(&t, "DEVICE_FEATURE shaderInt64\n");
    if (strstr(dis, "OpCapability Float16"))
        add(&t, "DEVICE_FEATURE Float16Int8Features.shaderFloat16\n");
    add(&t, "\nSHADER compute tiefuzz_op SPIRV-ASM TARGET_ENV spv1.5\n%sEND\n\nBUFFER in DATA_TYPE uint32 DATA\n", dis);
    for (unsigned w = 0; w < op->n_in; w++)
        add(&t, "0x%08x%s", it->c.words[w], w + 1 < op->n_in ? " " : "\n");
    add(&t, "END\n\n");
    amber_buffers(&t, op, host, !skipped);
    add(&t, "BUFFER count DATA_TYPE uint32 DATA\n1\nEND\n\nPIPELINE compute tiefuzz_pipeline\n  ATTACH tiefuzz_op");
    if (op->literal)
        add(&t, " SPECIALIZE 0 AS uint32 %u", isa_literal_value(&it->c.in));
    add(&t, "\n  BIND BUFFER in AS storage DESCRIPTOR_SET 0 BINDING 0\n"
        "  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 1\n"
        "  BIND BUFFER count AS push_constant\nEND\n\nRUN tiefuzz_pipeline %u 1 1\n\n", amber_groups(m));
    if (skipped)
        amber_expect_halves(&t, op, host, skip);
    else
        add(&t, "EXPECT out EQ_BUFFER expected\n");
    return t.s;
}

/* The default device's float controls, else those of a device offering all. */
static vkd_info export_device(void)
{
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
    return dev;
}

/* DIR/<op>-<signature>.txt: the rule a device verdict says was broken,
 * in words to paste into a driver bug report. */
static int write_bug_note(const item *it, const eng_verdict *v, const char *dir)
{
    text_buf t = {0};
    add(&t, "Driver bug: %s\n\nDevice: %s (%s %s)\nModule: the SPIR-V in the .amber script beside this file "
        "(tiefuzz %s, %s lowering); it declares %s.\n\n%s.\n\nThe script expects the one result the rules allow; "
        "the device returned", v->rule, it->rec.device, it->rec.driver, it->rec.driver_info, it->rec.op,
        it->rec.lowering, it->rec.declared, v->reason);
    for (unsigned w = 0; w < it->c.in.op->n_out; w++)
        add(&t, " %08x", it->rec.device_out[w]);
    add(&t, " where the rules require");
    for (unsigned w = 0; w < it->c.in.op->n_out; w++)
        add(&t, " %08x", v->required[w]);
    add(&t, ".\n");
    char path[IO_PATH_MAX], name[128];
    snprintf(name, sizeof name, "%s-%016llx.txt", it->rec.op, (unsigned long long)it->rec.signature);
    int rc = join_path(path, dir, name) ? io_write_atomic(path, write_text, t.s) : -1;
    free(t.s);
    if (rc)
        fprintf(stderr, "tiefuzz export: cannot write %s\n", path);
    else
        printf("%s\n", path);
    return rc;
}

static int export_amber(item *items, unsigned n, const char *dir)
{
    if (io_make_dirs(dir)) {
        fprintf(stderr, "tiefuzz export: cannot create %s\n", dir);
        return EXIT_USAGE;
    }
    vkd_info dev = export_device();
    static char err[1 << 16];
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
            return EXIT_USAGE;
        }
        char *dis = spv_disassemble(&m.spv);
        eng_verdict v;
        bool device_bug = rules_require(it, &m, &dev, &v);
        char *s = amber_script(it, &m, dis, device_bug ? &v : NULL);
        char path[IO_PATH_MAX], name[128];
        snprintf(name, sizeof name, "%s-%016llx.amber", op->name, (unsigned long long)it->rec.signature);
        int rc = join_path(path, dir, name) ? io_write_atomic(path, write_text, s) : -1;
        free(s);
        if (!rc && device_bug)
            rc = write_bug_note(it, &v, dir);
        free(dis);
        eng_module_free(&m);
        if (rc) {
            fprintf(stderr, "tiefuzz export: cannot write %s\n", path);
            return EXIT_USAGE;
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
        return EXIT_USAGE;
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
        char path[IO_PATH_MAX], name[128];
        snprintf(name, sizeof name, "%s.testfloat", op->name);
        if (!join_path(path, dir, name))
            return EXIT_USAGE;
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
                return EXIT_USAGE;
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
        return EXIT_USAGE;
    if (!format || !n_paths) {
        fputs(help, stderr);
        return EXIT_USAGE;
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
            return EXIT_USAGE;
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
