/* tiefuzz repro: re-run finding files and crash files on a device and the
 * host.  tiefuzz minimize: shrink a finding file's case on demand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"
#include "engine/campaign.h"
#include "engine/compare.h"
#include "engine/explain.h"
#include "engine/findings.h"
#include "io/finding.h"
#include "io/json.h"

/* A case read from a file: a finding (text) or a binary case (crash file). */
typedef struct {
    eng_case c;
    isa_lowering lowering;
    bool user_shader;
    bool is_finding;
    io_finding rec;
} loaded_case;

static int load_case(const char *path, loaded_case *out, char *err, size_t errn)
{
    memset(out, 0, sizeof *out);
    char *buf;
    size_t len;
    if (io_read_file(path, IO_FINDING_MAX_BYTES, &buf, &len, err, errn))
        return -1;
    int rc = 0;
    if (io_is_case_binary((const uint8_t *)buf, len)) {
        io_case bc;
        if (io_case_decode((const uint8_t *)buf, len, path, &bc, err, errn)) {
            rc = -1;
        } else {
            const isa_op *op = isa_op_find(bc.op);
            if (!op) {
                snprintf(err, errn, "%s:1: unknown op '%s'", path, bc.op);
                rc = -1;
            } else if (bc.n_words != op->n_in || bc.n_ctrl > CTRL_COUNT || bc.n_param > PARAM_COUNT ||
                       bc.lowering >= LOWERING_COUNT) {
                snprintf(err, errn, "%s:1: binary case does not fit %s (%u words, %u controls, %u params, lowering %u)",
                         path, op->name, bc.n_words, bc.n_ctrl, bc.n_param, bc.lowering);
                rc = -1;
            } else {
                isa_instance_default(&out->c.in, op);
                for (unsigned i = 0; i < bc.n_ctrl; i++)
                    out->c.in.ctrl[i] = bc.ctrl[i];
                for (unsigned i = 0; i < bc.n_param; i++)
                    out->c.in.param[i] = bc.param[i];
                const char *why = isa_instance_check(&out->c.in);
                if (why) {
                    snprintf(err, errn, "%s:1: %s", path, why);
                    rc = -1;
                }
                memcpy(out->c.words, bc.words, op->n_in * 4);
                out->lowering = (isa_lowering)bc.lowering;
            }
        }
    } else {
        if (io_finding_parse(buf, len, path, &out->rec, err, errn)) {
            rc = -1;
        } else {
            const char *why = eng_finding_case(&out->rec, &out->c, &out->lowering);
            if (why) {
                snprintf(err, errn, "%s: %s", path, why);
                rc = -1;
            }
            out->is_finding = true;
            out->user_shader = !strcmp(out->rec.lowering, "user-shader");
        }
    }
    free(buf);
    return rc;
}

typedef struct {
    vkd_device *dev;
    eng_exec *exec[LOWERING_COUNT + 1];  /* the last: the user's shader */
    const char *shader;
} devices;

static eng_exec *exec_for(devices *d, const loaded_case *lc, char *err, size_t errn)
{
    int slot = lc->user_shader || d->shader ? LOWERING_COUNT : (int)lc->lowering;
    if (slot == LOWERING_COUNT && !d->shader) {
        snprintf(err, errn, "this finding came from a user shader: give it again with --shader FILE");
        return NULL;
    }
    if (!d->exec[slot])
        d->exec[slot] = eng_exec_create(d->dev, lc->lowering, slot == LOWERING_COUNT ? d->shader : NULL, 65536, err, errn);
    return d->exec[slot];
}

static void close_devices(devices *d)
{
    for (int i = 0; i <= LOWERING_COUNT; i++)
        eng_exec_destroy(d->exec[i]);
    if (d->dev)
        vkd_close(d->dev);
}

static eng_target target_of(eng_exec *x, vkd_device *dev, char *driver, size_t n)
{
    snprintf(driver, n, "%s %s", vkd_device_info(dev)->driver_name, vkd_device_info(dev)->driver_info);
    return (eng_target){eng_exec_lowering_name(x), vkd_device_info(dev)->name, driver};
}

int cmd_repro(int argc, char **argv)
{
    cli_args a = {argc, argv, 1, "repro", false};
    const char *device = NULL, *files[256], *v;
    unsigned n = 0;
    int lowering = -1;
    bool strict_nan = false;
    devices d = {0};
    while (a.i < argc && !a.failed) {
        if (cli_flag(&a, "--help")) {
            puts("usage: tiefuzz repro FILE... [--device SEL] [--lowering direct|exact] [--shader FILE] [--strict-nan]\n"
                 "FILE: a finding file or a binary case (crash-* files).  Exit 0 when every case agrees now,\n"
                 "1 when any still disagrees, 2 for a bad file, 3 without a usable device.  NaN payloads are\n"
                 "compared with --strict-nan, or when the finding file says its run did (strict-nan yes).");
            return 0;
        } else if (cli_flag(&a, "--strict-nan"))
            strict_nan = true;
        else if ((v = cli_value(&a, "--device")))
            device = v;
        else if ((v = cli_value(&a, "--shader")))
            d.shader = v;
        else if ((v = cli_value(&a, "--lowering"))) {
            if ((lowering = isa_lowering_parse(v)) < 0)
                return cli_fail("repro", "--lowering '%s': expected direct or exact", v);
        } else if (a.failed)
            break;
        else if (argv[a.i][0] == '-')
            return cli_fail("repro", "unknown option '%s'", argv[a.i]);
        else if (n < 256)
            files[n++] = argv[a.i++];
        else
            return cli_fail("repro", "too many files");
    }
    if (a.failed)
        return EXIT_USAGE;
    if (!n)
        return cli_fail("repro", "give at least one finding or crash file");
    static loaded_case cases[256];
    char err[1024];
    int bad = 0;
    for (unsigned i = 0; i < n; i++)
        if (load_case(files[i], &cases[i], err, sizeof err)) {
            fprintf(stderr, "tiefuzz repro: %s\n", err);
            bad = 1;
            cases[i].c.in.op = NULL;
        } else if (lowering >= 0) {
            cases[i].lowering = (isa_lowering)lowering;
            cases[i].user_shader = false;
        }
    d.dev = vkd_open(device, false, err, sizeof err);
    if (!d.dev) {
        fprintf(stderr, "tiefuzz repro: %s\n", err);
        return EXIT_NO_DEVICE;
    }
    bool still = false;
    int stop = 0;   /* the status that ends the loop early: no device, or a case it cannot run */
    for (unsigned i = 0; i < n && !stop; i++) {
        loaded_case *lc = &cases[i];
        if (!lc->c.in.op)
            continue;
        eng_exec *x = exec_for(&d, lc, err, sizeof err);
        uint32_t out[ISA_MAX_OUT], host[ISA_MAX_OUT];
        bool dev_err = false;
        if (!x || eng_exec_run(x, &lc->c.in, lc->c.words, 1, out, err, sizeof err, &dev_err)) {
            fprintf(stderr, "tiefuzz repro: %s: %s\n", files[i], err);
            if (dev_err || !x) {
                stop = dev_err ? EXIT_NO_DEVICE : EXIT_USAGE;
                continue;
            }
            bad = 1;
            continue;
        }
        lc->c.in.op->impl->eval(&lc->c.in, lc->c.words, host, NULL);
        printf("%s: %s lowering on %s\n", files[i], eng_exec_lowering_name(x), vkd_device_info(d.dev)->name);
        eng_explain(stdout, &lc->c.in, lc->c.words, out, "  ");
        if (eng_outputs_agree(lc->c.in.op, host, out, strict_nan || lc->rec.strict_nan)) {
            printf("  verdict: agrees%s\n\n", strict_nan || lc->rec.strict_nan ? "" : " (NaN payloads not compared)");
        } else {
            char driver[600];
            eng_target t = target_of(x, d.dev, driver, sizeof driver);
            eng_kind k = eng_classify(&lc->c.in, lc->c.words, host, out);
            printf("  verdict: disagrees (%s, signature %016llx)\n", eng_kind_name(k),
                   (unsigned long long)eng_signature(&lc->c.in, &t, k));
            eng_verdict v;
            eng_judge(x, &lc->c.in, lc->c.words, host, out, strict_nan || lc->rec.strict_nan, &v);
            char cause[64];
            const char *c = eng_verdict_cause(&v, cause, sizeof cause);
            printf("  triage: %s%s%s%s: %s\n\n", eng_verdict_name(v.kind), c ? " (" : "", c ? c : "", c ? ")" : "",
                   v.reason);
            still = true;
        }
    }
    close_devices(&d);
    return stop ? stop : bad ? EXIT_USAGE : still ? EXIT_DISAGREE : EXIT_AGREE;
}

static void write_text(FILE *f, void *ctx) { fputs(ctx, f); }

/* minimize's own status: the finding no longer disagrees on this device. */
enum { EXIT_NOTHING_TO_MINIMIZE = 1 };

/* Shrinks lc's case on d's device and writes the finding to out (NULL: file).  Returns the exit status. */
static int minimize_on(devices *d, loaded_case *lc, const char *file, const char *out)
{
    char err[1024];
    eng_exec *x = exec_for(d, lc, err, sizeof err);
    if (!x) {
        fprintf(stderr, "tiefuzz minimize: %s\n", err);
        return EXIT_USAGE;
    }
    uint32_t dev_out[ISA_MAX_OUT], host[ISA_MAX_OUT];
    bool dev_err;
    if (eng_exec_run(x, &lc->c.in, lc->c.words, 1, dev_out, err, sizeof err, &dev_err)) {
        fprintf(stderr, "tiefuzz minimize: %s\n", err);
        return dev_err ? EXIT_NO_DEVICE : EXIT_USAGE;
    }
    lc->c.in.op->impl->eval(&lc->c.in, lc->c.words, host, NULL);
    if (eng_outputs_agree(lc->c.in.op, host, dev_out, lc->rec.strict_nan)) {
        fprintf(stderr, "tiefuzz minimize: %s: the case agrees on %s now: nothing to minimize\n", file,
                vkd_device_info(d->dev)->name);
        return EXIT_NOTHING_TO_MINIMIZE;
    }
    char driver[600];
    eng_target t = target_of(x, d->dev, driver, sizeof driver);
    eng_kind k = eng_classify(&lc->c.in, lc->c.words, host, dev_out);
    uint64_t sig = eng_signature(&lc->c.in, &t, k);
    eng_case small;
    unsigned rounds;
    if (eng_minimize(x, &t, sig, &lc->c, &small, &rounds, err, sizeof err, &dev_err)) {
        fprintf(stderr, "tiefuzz minimize: %s\n", err);
        return EXIT_NO_DEVICE;
    }
    uint32_t small_host[ISA_MAX_OUT], small_dev[ISA_MAX_OUT];
    small.in.op->impl->eval(&small.in, small.words, small_host, NULL);
    eng_exec_run(x, &small.in, small.words, 1, small_dev, err, sizeof err, &dev_err);
    io_finding rec;
    char *explanation;
    eng_finding_fill(&rec, &small.in, small.words, small_host, small_dev, &t, vkd_device_info(d->dev), &explanation);
    /* What the file said about where the case came from stays. */
    rec.seed = lc->rec.seed;
    rec.case_index = lc->rec.case_index;
    rec.count = lc->rec.count;
    snprintf(rec.gen_class, sizeof rec.gen_class, "%s", lc->rec.gen_class);
    snprintf(rec.declared, sizeof rec.declared, "%s", lc->rec.declared);
    rec.signature = sig;
    rec.strict_nan = lc->rec.strict_nan;
    snprintf(rec.kind, sizeof rec.kind, "%s", eng_kind_name(k));
    eng_verdict v;
    eng_judge(x, &small.in, small.words, small_host, small_dev, rec.strict_nan, &v);
    eng_verdict_record(&v, &rec);
    rec.minimized = lc->rec.minimized || memcmp(&small, &lc->c, sizeof small) != 0;
    if (lc->rec.minimized) {  /* keep the first original */
        snprintf(rec.original_controls, sizeof rec.original_controls, "%s", lc->rec.original_controls);
        memcpy(rec.original_input, lc->rec.original_input, sizeof rec.original_input);
        memcpy(rec.original_host, lc->rec.original_host, sizeof rec.original_host);
        memcpy(rec.original_device, lc->rec.original_device, sizeof rec.original_device);
    } else {
        isa_controls_text(&lc->c.in, rec.original_controls, sizeof rec.original_controls);
        memcpy(rec.original_input, lc->c.words, sizeof lc->c.words[0] * lc->c.in.op->n_in);
        memcpy(rec.original_host, host, sizeof host[0] * lc->c.in.op->n_out);
        memcpy(rec.original_device, dev_out, sizeof dev_out[0] * lc->c.in.op->n_out);
    }
    char *text = io_finding_format(&rec);
    free(explanation);
    int rc = 0;
    if (io_write_atomic(out ? out : file, write_text, text)) {
        fprintf(stderr, "tiefuzz minimize: cannot write %s\n", out ? out : file);
        rc = EXIT_USAGE;
    } else {
        printf("%s: complexity %u -> %u in %u steps\n", out ? out : file, eng_case_complexity(&lc->c),
               eng_case_complexity(&small), rounds);
    }
    free(text);
    return rc;
}

int cmd_minimize(int argc, char **argv)
{
    cli_args a = {argc, argv, 1, "minimize", false};
    const char *device = NULL, *file = NULL, *out = NULL, *v;
    devices d = {0};
    while (a.i < argc && !a.failed) {
        if (cli_flag(&a, "--help")) {
            puts("usage: tiefuzz minimize FILE [-o OUT] [--device SEL] [--shader FILE]\n"
                 "Shrinks the finding's case keeping its signature on this device; writes OUT (default: FILE).");
            return 0;
        } else if ((v = cli_value(&a, "--device")))
            device = v;
        else if ((v = cli_value(&a, "--shader")))
            d.shader = v;
        else if ((v = cli_value(&a, "-o")))
            out = v;
        else if (a.failed)
            break;
        else if (argv[a.i][0] == '-')
            return cli_fail("minimize", "unknown option '%s'", argv[a.i]);
        else if (!file)
            file = argv[a.i++];
        else
            return cli_fail("minimize", "one finding file at a time");
    }
    if (a.failed)
        return EXIT_USAGE;
    if (!file)
        return cli_fail("minimize", "give a finding file");
    char err[1024];
    static loaded_case lc;
    if (load_case(file, &lc, err, sizeof err)) {
        fprintf(stderr, "tiefuzz minimize: %s\n", err);
        return EXIT_USAGE;
    }
    if (!lc.is_finding)
        return cli_fail("minimize", "%s: a binary case carries no signature; run 'tiefuzz repro' on it", file);
    d.dev = vkd_open(device, false, err, sizeof err);
    if (!d.dev) {
        fprintf(stderr, "tiefuzz minimize: %s\n", err);
        return EXIT_NO_DEVICE;
    }
    int rc = minimize_on(&d, &lc, file, out);
    close_devices(&d);
    return rc;
}

