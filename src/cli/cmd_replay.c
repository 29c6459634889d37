/* tiefuzz replay: regression tuple files on the host and on a device.  A
 * host mismatch is a model bug and fails; a device mismatch fails unless a
 * known-divergence rule covers it for that device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "options.h"
#include "engine/campaign.h"
#include "engine/compare.h"
#include "engine/exec.h"
#include "engine/signature.h"
#include "io/finding.h"
#include "io/known.h"
#include "io/regression.h"

static const char help[] =
    "usage: tiefuzz replay [PATH...] [--device SEL | --host-only] [--known DIR]\n"
    "PATH: .tuples files or directories of them (default: corpus/regression).\n"
    "Exit 0 when everything passes, 1 on a failure, 2 for a bad file, 3 without a usable device.\n";

static bool push_path(char ***list, unsigned *n, const char *path)
{
    char **grown = realloc(*list, (*n + 1) * sizeof **list);
    if (!grown)
        return false;
    *list = grown;
    return (grown[*n] = strdup(path)) ? (++*n, true) : false;
}

/* Appends path, or the *.tuples files of the directory path (sorted).  0, or -1 with err. */
static int add_paths(const char *path, char ***list, unsigned *n, char *err, size_t errn)
{
    struct stat st;
    if (stat(path, &st)) {
        snprintf(err, errn, "%s: no such file or directory", path);
        return -1;
    }
    bool ok = true;
    if (!S_ISDIR(st.st_mode))
        ok = push_path(list, n, path);
    else {
        char **names;
        unsigned k;
        if (io_dir_list(path, ".tuples", &names, &k, err, errn))
            return -1;
        for (unsigned i = 0; i < k && ok; i++) {
            char p[1024];
            snprintf(p, sizeof p, "%s/%s", path, names[i]);
            ok = push_path(list, n, p);
        }
        io_names_free(names, k);
    }
    if (!ok)
        snprintf(err, errn, "%s: out of memory", path);
    return ok ? 0 : -1;
}

/* The first output word where a and b differ (0 when none does). */
static unsigned first_difference(const uint32_t *a, const uint32_t *b, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (a[i] != b[i])
            return i;
    return 0;
}

/* " (output word W of N)" for ops with several output words (a tile has
 * hundreds): word 0 alone may well agree. */
static const char *word_of(unsigned w, unsigned n, char *buf, size_t size)
{
    if (n <= 1)
        return "";
    snprintf(buf, size, " (output word %u of %u)", w, n);
    return buf;
}

int cmd_replay(int argc, char **argv)
{
    cli_args a = {argc, argv, 1, "replay", false};
    const char *device = NULL, *known_dir = NULL, *v;
    bool host_only = false;
    char **files = NULL;
    unsigned n_files = 0;
    const char *given[256];
    unsigned n_given = 0;
    while (a.i < argc && !a.failed) {
        if (cli_flag(&a, "--help")) {
            fputs(help, stdout);
            return 0;
        } else if (cli_flag(&a, "--host-only"))
            host_only = true;
        else if ((v = cli_value(&a, "--device")))
            device = v;
        else if ((v = cli_value(&a, "--known")))
            known_dir = v;
        else if (a.failed)
            break;
        else if (argv[a.i][0] == '-')
            return cli_fail("replay", "unknown option '%s'", argv[a.i]);
        else if (n_given < 256)
            given[n_given++] = argv[a.i++];
        else
            return cli_fail("replay", "too many paths");
    }
    if (a.failed)
        return EXIT_USAGE;
    if (host_only && device)
        return cli_fail("replay", "give --device or --host-only, not both");
    char regression_dir[1024];
    if (!n_given)
        given[n_given++] = eng_default_corpus_dir("regression", regression_dir, sizeof regression_dir);
    char err[1024];
    for (unsigned i = 0; i < n_given; i++)
        if (add_paths(given[i], &files, &n_files, err, sizeof err))
            return cli_fail("replay", "%s", err);
    io_known known = {0};
    if (eng_known_load(known_dir ? known_dir : eng_default_known_dir(), known_dir != NULL, &known, err, sizeof err))
        return cli_fail("replay", "known divergences: %s", err);
    vkd_device *dev = NULL;
    eng_exec *exec[LOWERING_COUNT] = {0};
    if (!host_only) {
        dev = vkd_open(device, false, err, sizeof err);
        if (!dev) {
            fprintf(stderr, "tiefuzz replay: %s\n", err);
            return EXIT_NO_DEVICE;
        }
    }
    unsigned long total = 0, host_fail = 0, dev_fail = 0, dev_known = 0, skipped = 0;
    int status = 0;
    for (unsigned f = 0; f < n_files && status != EXIT_NO_DEVICE; f++) {
        char *buf;
        size_t len;
        io_regression r;
        if (io_read_file(files[f], 64u << 20, &buf, &len, err, sizeof err) ||
            (io_regression_parse(buf, len, files[f], &r, err, sizeof err) ? (free(buf), 1) : (free(buf), 0))) {
            fprintf(stderr, "tiefuzz replay: %s\n", err);
            status = EXIT_USAGE;
            continue;
        }
        const isa_op *op = isa_op_find(r.op);
        if (!op) {
            fprintf(stderr, "tiefuzz replay: %s:2: unknown op '%s'\n", files[f], r.op);
            status = EXIT_USAGE;
            io_regression_free(&r);
            continue;
        }
        for (unsigned i = 0; i < r.n; i++) {
            io_regression_entry *e = &r.e[i];
            static const char *const keys[2] = {"controls", "params"};
            isa_instance in;
            const char *why = NULL;
            if (isa_instance_from_text(op, e->controls, e->params, keys, &in, err, sizeof err))
                why = err;
            else if (e->n_in != op->n_in || e->n_out != op->n_out)
                why = "the word counts do not fit the op";
            if (why) {
                fprintf(stderr, "tiefuzz replay: %s:%u: %s\n", files[f], e->line, why);
                status = EXIT_USAGE;
                continue;
            }
            total++;
            char where[48];
            uint32_t host[ISA_MAX_OUT];
            op->impl->eval(&in, e->in, host, NULL);
            if (memcmp(host, e->out, op->n_out * 4)) {
                host_fail++;
                unsigned w = first_difference(e->out, host, op->n_out);
                fprintf(stderr, "%s:%u: HOST MODEL MISMATCH (a model bug): expected %08x, the model gives %08x%s\n",
                        files[f], e->line, e->out[w], host[w], word_of(w, op->n_out, where, sizeof where));
                continue;
            }
            if (host_only)
                continue;
            int l = isa_lowering_parse(e->lowering);
            if (l < 0 || !op->translated) {
                skipped++;
                continue;
            }
            if (!exec[l] && !(exec[l] = eng_exec_create(dev, (isa_lowering)l, NULL, 1024, err, sizeof err))) {
                fprintf(stderr, "tiefuzz replay: %s\n", err);
                status = EXIT_NO_DEVICE;
                break;
            }
            uint32_t out[ISA_MAX_OUT];
            bool dev_err;
            if (eng_exec_run(exec[l], &in, e->in, 1, out, err, sizeof err, &dev_err)) {
                fprintf(stderr, "tiefuzz replay: %s:%u: %s\n", files[f], e->line, err);
                if (dev_err) {
                    status = EXIT_NO_DEVICE;
                    break;
                }
                skipped++;
                continue;
            }
            if (eng_outputs_agree(op, e->out, out, false))
                continue;
            char driver[600];
            snprintf(driver, sizeof driver, "%s %s", vkd_device_info(dev)->driver_name, vkd_device_info(dev)->driver_info);
            eng_target t = {isa_lowering_name((isa_lowering)l), vkd_device_info(dev)->name, driver};
            eng_kind k = eng_classify(&in, e->in, e->out, out);
            io_known_query q = {t.device, op->name, t.lowering, eng_kind_name(k), eng_signature(&in, &t, k), NULL, NULL};
            const io_known_rule *rule = io_known_match(&known, &q);
            if (rule) {
                dev_known++;
                printf("%s:%u: known divergence on %s (%s): %s [%s]\n", files[f], e->line, t.device, eng_kind_name(k),
                       rule->reason, rule->where);
            } else {
                dev_fail++;
                unsigned w = first_difference(e->out, out, op->n_out);
                fprintf(stderr, "%s:%u: DEVICE MISMATCH on %s (%s lowering, %s): expected %08x, device %08x%s\n",
                        files[f], e->line, t.device, t.lowering, eng_kind_name(k), e->out[w], out[w],
                        word_of(w, op->n_out, where, sizeof where));
            }
        }
        io_regression_free(&r);
    }
    for (int l = 0; l < LOWERING_COUNT; l++)
        eng_exec_destroy(exec[l]);
    if (dev)
        vkd_close(dev);
    io_known_free(&known);
    for (unsigned i = 0; i < n_files; i++)
        free(files[i]);
    free(files);
    printf("replay: %lu tuples, %lu host mismatches, %lu device mismatches, %lu known divergences%s",
           total, host_fail, dev_fail, dev_known, host_only ? " (host only)" : "");
    if (skipped)
        printf(", %lu not run on the device", skipped);
    printf("\n");
    if (status)
        return status;
    return host_fail || dev_fail ? EXIT_DISAGREE : EXIT_AGREE;
}
