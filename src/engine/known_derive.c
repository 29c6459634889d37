/* Known-divergence rules derived from a device's characterization: each
 * behaviour the probes measured that Vulkan allows becomes a rule on the
 * translation verdicts that behaviour explains, and each measured broken
 * promise a rule on the device verdicts naming it.  The text is the rule
 * format of corpus/known, so `characterize --known-rules` writes what
 * `run --known auto` uses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "known_derive.h"
#include "options.h"
#include "signature.h"

typedef struct {
    char *s;
    size_t len;
    FILE *f;
} text_out;

static const char *const width_names[3] = {"f16", "f32", "f64"};

/* The verdict of probe id, or "" when it did not run. */
static const char *observed(const ch_report *r, const char *id)
{
    const ch_result *x = ch_find(r, id);
    return x && x->ran ? x->verdict : "";
}

/* The widths (of f16, f32, f64) whose probe "<prefix>.<width><suffix>"
 * gave a verdict starting with one of want[]: "f32 f64" into buf. */
static const char *widths_where(const ch_report *r, const char *prefix, const char *suffix, const char *const *want,
                                char *buf, size_t n)
{
    buf[0] = 0;
    for (int w = 0; w < 3; w++) {
        char id[64];
        snprintf(id, sizeof id, "%s.%s%s", prefix, width_names[w], suffix);
        const char *v = observed(r, id);
        for (const char *const *p = want; *p; p++)
            if (*v && !strncmp(v, *p, strlen(*p))) {
                size_t used = strlen(buf);
                snprintf(buf + used, n - used, "%s%s", used ? " " : "", width_names[w]);
                break;
            }
    }
    return buf;
}

static void liberty_rule(FILE *f, const char *device, const char *cause, const char *widths, const char *what,
                         const char *probe)
{
    if (!widths[0])
        return;
    fprintf(f, "device=%s verdict=translation cause=%s reason=%s %s (%s; measured by characterize, probe %s), "
            "which Vulkan permits\n", device, cause, device, what, widths, probe);
}

static void allowed_behaviours(FILE *f, const ch_report *r, const char *dev)
{
    static const char *const unfused[] = {"unfused", "product rounded", NULL};
    static const char *const contracted[] = {"contracted", NULL};
    static const char *const flushed[] = {"flushed", NULL};
    char w[32];
    liberty_rule(f, dev, "fma-unfused", widths_where(r, "fma", "", unfused, w, sizeof w),
                 "computes GLSL.std.450 Fma unfused (a rounded multiply, then an add)", "fma.*");
    liberty_rule(f, dev, "contracted", widths_where(r, "contract", "", contracted, w, sizeof w),
                 "contracts an OpFMul into the OpFAdd it feeds", "contract.*");
    char in[32] = "", out[32] = "";
    static const char *const ops[] = {"add", "mul", "fma"};
    for (int i = 0; i < 3; i++) {
        char prefix[32], some[32];
        snprintf(prefix, sizeof prefix, "denorm.%s.in", ops[i]);
        if (!in[0])
            snprintf(in, sizeof in, "%s", widths_where(r, prefix, "", flushed, some, sizeof some));
        snprintf(prefix, sizeof prefix, "denorm.%s.out", ops[i]);
        if (!out[0])
            snprintf(out, sizeof out, "%s", widths_where(r, prefix, "", flushed, some, sizeof some));
    }
    liberty_rule(f, dev, "flush-input", in, "flushes denormal operands", "denorm.*.in.*");
    liberty_rule(f, dev, "flush-result", out, "flushes denormal results", "denorm.*.out.*");
}

/* Folding literal or specialization-constant arithmetic against a declared
 * and advertised SignedZeroInfNanPreserve: a driver bug, known once measured. */
static void broken_promises(FILE *f, const ch_report *r, const char *dev)
{
    static const char *const probes[] = {"zero.add-literal", "zero.mul-literal", "zero.add-spec", "zero.mul-spec"};
    for (int w = 0; w < 3; w++) {
        if (!r->info.caps.signed_zero_inf_nan[w])
            continue;
        char which[160] = "";
        for (size_t p = 0; p < sizeof probes / sizeof *probes; p++) {
            char id[64];
            snprintf(id, sizeof id, "%s.%s.szinp", probes[p], width_names[w]);
            if (!strncmp(observed(r, id), "folded", 6)) {
                size_t used = strlen(which);
                snprintf(which + used, sizeof which - used, "%s%s", used ? ", " : "", id);
            }
        }
        if (which[0])
            fprintf(f, "device=%s verdict=device cause=SignedZeroInfNanPreserve-%d reason=%s folds constant "
                    "arithmetic (x + 0 = x, x * 0 = 0) despite SignedZeroInfNanPreserve %d, which it advertises: a "
                    "driver bug (measured by characterize, probes %s)\n", dev, 16 << w, dev, 16 << w, which);
    }
}

char *eng_known_derive(const ch_report *r)
{
    text_out t = {0};
    t.f = open_memstream(&t.s, &t.len);
    if (!t.f)
        return NULL;
    /* The device condition is a substring of the name: the name up to its
     * first space or parenthesis ("llvmpipe"), so the rules survive a driver
     * update that changes the rest. */
    char dev[64];
    snprintf(dev, sizeof dev, "%.*s", (int)strcspn(r->info.name, " ("), r->info.name);
    fprintf(t.f, "# Known divergences derived by tiefuzz characterize for %s (%s %s).\n", r->info.name,
            r->info.driver_name, r->info.driver_info);
    fprintf(t.f, "# Behaviours Vulkan allows explain translation verdicts; broken promises measured by the probes "
            "explain device verdicts.\n");
    allowed_behaviours(t.f, r, dev);
    broken_promises(t.f, r, dev);
    fclose(t.f);
    return t.s;
}

int eng_known_for_run(const char *dir, const char *device_sel, io_known *k, char *err, size_t errn)
{
    if (dir && !strcmp(dir, "auto"))
        return eng_known_auto(device_sel, k, err, errn);
    return eng_known_load(dir ? dir : eng_default_known_dir(), dir != NULL, k, err, errn);
}

int eng_known_auto(const char *device_sel, io_known *k, char *err, size_t errn)
{
    ch_report r;
    bool no_device;
    if (ch_characterize(device_sel, &r, &no_device, err, errn))
        return -1;
    char *text = eng_known_derive(&r);
    char name[300];
    snprintf(name, sizeof name, "known rules derived for %s", r.info.name);
    ch_report_free(&r);
    if (!text) {
        snprintf(err, errn, "out of memory");
        return -1;
    }
    int rc = io_known_parse(text, strlen(text), name, k, err, errn);
    free(text);
    return rc;
}
