/* tiefuzz characterize: the device's arithmetic profile, as a table and as
 * versioned JSON (format documented in the README). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"
#include "engine/characterize.h"
#include "engine/known_derive.h"
#include "io/json.h"

static const char *width_name[3] = {"16", "32", "64"};

/* What the device advertises next to what a probe family observed there:
 * a mode advertised for a width must hold in every probe declaring it. */
typedef struct {
    const char *property;
    unsigned wi;            /* width index */
    bool advertised;
    char observed[96];
    bool contradicts;
} ch_check;

/* The verdicts of the probes whose id starts with prefix and ends with
 * suffix (the declared mode), of result width 16 << wi: "expected" when all are, else the first other. */
static void observe(const ch_report *r, const char *prefix, const char *suffix, unsigned wi, const char *expected,
                    ch_check *c)
{
    unsigned ran = 0;
    snprintf(c->observed, sizeof c->observed, "not probed");
    for (unsigned i = 0; i < r->n_results; i++) {
        const ch_result *x = &r->results[i];
        const char *id = x->probe->id;
        size_t n = strlen(id), m = strlen(suffix);
        if (strncmp(id, prefix, strlen(prefix)) || n < m || strcmp(id + n - m, suffix) || !x->ran ||
            x->probe->out_width != 16u << wi)
            continue;
        if (!strstr(x->verdict, expected) && !c->contradicts) {
            snprintf(c->observed, sizeof c->observed, "%.40s: %.50s", id, x->verdict);
            c->contradicts = c->advertised;
        }
        ran++;
    }
    if (ran && !c->contradicts && !strchr(c->observed, ':'))
        snprintf(c->observed, sizeof c->observed, "%s (%u probes)", expected, ran);
}

static unsigned build_checks(const ch_report *r, ch_check *c)
{
    const vkd_info *d = &r->info;
    unsigned n = 0;
    for (unsigned wi = 0; wi < 3; wi++) {
        c[n] = (ch_check){"denormPreserve", wi, d->denorm_preserve[wi], "", false};
        observe(r, "denorm.", ".preserve", wi, "preserved", &c[n++]);
        c[n] = (ch_check){"denormFlushToZero", wi, d->denorm_flush[wi], "", false};
        observe(r, "denorm.", ".flush", wi, "flushed", &c[n++]);
        c[n] = (ch_check){"shaderSignedZeroInfNanPreserve", wi, d->caps.signed_zero_inf_nan[wi], "", false};
        observe(r, "zero.", ".szinp", wi, "IEEE", &c[n++]);
        c[n] = (ch_check){"shaderRoundingModeRTE", wi, d->caps.rte[wi], "", false};
        observe(r, "fconvert.", ".rte", wi, "RTE", &c[n++]);
        c[n] = (ch_check){"shaderRoundingModeRTZ", wi, d->rtz[wi], "", false};
        observe(r, "fconvert.", ".rtz", wi, "RTZ", &c[n++]);
    }
    return n;
}

static void print_topic(const ch_report *r, const char *topic)
{
    printf("\n%s\n", topic);
    for (unsigned i = 0; i < r->n_results; i++) {
        const ch_result *x = &r->results[i];
        if (strcmp(x->probe->topic, topic))
            continue;
        printf("  %-30s %-34s", x->probe->id, x->ran ? x->verdict : "-");
        if (!x->ran)
            printf(" (%s)", x->skipped);
        else
            for (unsigned t = 0; t < x->probe->n_tuples; t++)
                printf(" %0*llx", (int)(x->probe->out_width / 4), (unsigned long long)x->observed[t]);
        putchar('\n');
    }
}

static void print_table(const ch_report *r)
{
    const vkd_info *d = &r->info;
    printf("device: %s (%s, %s)\n", d->name, d->driver_name, d->driver_info);
    printf("advertised: shaderFloat16 %s, shaderFloat64 %s, VK_KHR_shader_fma %s, VK_KHR_cooperative_matrix %s "
           "(not probed)\n",
           d->float16 ? "yes" : "no", d->float64 ? "yes" : "no", d->khr_shader_fma ? "yes" : "no",
           d->khr_cooperative_matrix ? "yes" : "no");
    /* Each topic once, in the order it first appears, with all its probes. */
    for (unsigned i = 0; i < r->n_results; i++) {
        const char *topic = r->results[i].probe->topic;
        bool seen = false;
        for (unsigned j = 0; j < i && !seen; j++)
            seen = !strcmp(r->results[j].probe->topic, topic);
        if (!seen)
            print_topic(r, topic);
    }
    ch_check c[16];
    unsigned n = build_checks(r, c);
    printf("\nadvertised against observed (declaring the mode)\n");
    for (unsigned i = 0; i < n; i++)
        printf("  %-32s f%-3s %-4s %s%s\n", c[i].property, width_name[c[i].wi], c[i].advertised ? "yes" : "no",
               c[i].observed, c[i].contradicts ? "  CONTRADICTS" : "");
}

static void write_tuples(io_json *j, const ch_result *x)
{
    json_array(j, "tuples");
    for (unsigned t = 0; t < x->probe->n_tuples; t++) {
        char hex[24];
        unsigned digits = (x->probe->in_width + 3) / 4;
        json_object(j, NULL);
        json_array(j, "inputs");
        for (unsigned k = 0; k < 3; k++) {
            snprintf(hex, sizeof hex, "%0*llx", (int)digits, (unsigned long long)x->probe->tuple[t].in[k]);
            json_string(j, NULL, hex);
        }
        json_end_array(j);
        snprintf(hex, sizeof hex, "%0*llx", (int)(x->probe->out_width / 4), (unsigned long long)x->observed[t]);
        json_string(j, "observed", hex);
        json_end_object(j);
    }
    json_end_array(j);
}

static void write_json(FILE *f, void *ctx)
{
    const ch_report *r = ctx;
    const vkd_info *d = &r->info;
    io_json j;
    json_begin(&j, f);
    json_object(&j, NULL);
    json_string(&j, "format", CH_FORMAT);
    json_object(&j, "device");
    json_string(&j, "name", d->name);
    json_string(&j, "driver", d->driver_name);
    json_string(&j, "driver_info", d->driver_info);
    json_bool(&j, "shaderFloat16", d->float16);
    json_bool(&j, "shaderFloat64", d->float64);
    json_bool(&j, "VK_KHR_shader_fma", d->khr_shader_fma);
    json_bool(&j, "VK_KHR_cooperative_matrix", d->khr_cooperative_matrix);
    json_end_object(&j);
    json_object(&j, "profile");   /* id -> verdict: what a reader usually wants */
    for (unsigned i = 0; i < r->n_results; i++)
        json_string(&j, r->results[i].probe->id, r->results[i].ran ? r->results[i].verdict : "not run");
    json_end_object(&j);
    json_array(&j, "probes");
    for (unsigned i = 0; i < r->n_results; i++) {
        const ch_result *x = &r->results[i];
        json_object(&j, NULL);
        json_string(&j, "id", x->probe->id);
        json_string(&j, "topic", x->probe->topic);
        json_string(&j, "question", x->probe->question);
        json_uint(&j, "in_width", x->probe->in_width);
        json_uint(&j, "out_width", x->probe->out_width);
        json_bool(&j, "ran", x->ran);
        json_string(&j, x->ran ? "verdict" : "skipped", x->ran ? x->verdict : x->skipped);
        if (x->ran)
            write_tuples(&j, x);
        json_end_object(&j);
    }
    json_end_array(&j);
    ch_check c[16];
    unsigned n = build_checks(r, c);
    json_array(&j, "advertised");
    for (unsigned i = 0; i < n; i++) {
        json_object(&j, NULL);
        json_string(&j, "property", c[i].property);
        json_uint(&j, "width", 16u << c[i].wi);
        json_bool(&j, "advertised", c[i].advertised);
        json_string(&j, "observed", c[i].observed);
        json_bool(&j, "contradicts", c[i].contradicts);
        json_end_object(&j);
    }
    json_end_array(&j);
    json_end_object(&j);
    fputc('\n', f);
}

static void write_text(FILE *f, void *ctx) { fputs(ctx, f); }

static int usage(void)
{
    puts("usage: tiefuzz characterize [--device SEL] [--json FILE] [--known-rules FILE] [--module ID]\n"
         "  the device's arithmetic profile from directed probes (README, characterize);\n"
         "  --known-rules FILE writes the known-divergence rules the profile explains (what run --known auto uses);\n"
         "  --module ID prints that probe's SPIR-V assembly instead");
    return 0;
}

int cmd_characterize(int argc, char **argv)
{
    cli_args a = {argc, argv, 1, "characterize", false};
    const char *device = NULL, *json = NULL, *module = NULL, *rules = NULL, *v;
    while (a.i < argc && !a.failed) {
        if ((v = cli_value(&a, "--device")))
            device = v;
        else if ((v = cli_value(&a, "--json")))
            json = v;
        else if ((v = cli_value(&a, "--module")))
            module = v;
        else if ((v = cli_value(&a, "--known-rules")))
            rules = v;
        else if (cli_flag(&a, "--help"))
            return usage();
        else
            return cli_fail("characterize", "unknown argument '%s'", argv[a.i]);
    }
    if (a.failed)
        return EXIT_USAGE;
    if (module) {
        unsigned n;
        const ch_probe *p = ch_probes(&n);
        for (unsigned i = 0; i < n; i++)
            if (!strcmp(p[i].id, module)) {
                char *text = ch_module_text(&p[i]);
                fputs(text, stdout);
                free(text);
                return 0;
            }
        return cli_fail("characterize", "no probe '%s'", module);
    }
    ch_report r;
    bool no_device;
    char err[2048];
    if (ch_characterize(device, &r, &no_device, err, sizeof err)) {
        fprintf(stderr, "tiefuzz characterize: %s\n", err);
        ch_report_free(&r);
        return no_device ? EXIT_NO_DEVICE : EXIT_INTERNAL;
    }
    print_table(&r);
    int rc = 0;
    if (json && io_write_atomic(json, write_json, &r)) {
        fprintf(stderr, "tiefuzz characterize: cannot write %s: %s\n", json, strerror(errno));
        rc = EXIT_INTERNAL;
    }
    char *text = rules ? eng_known_derive(&r) : NULL;
    if (rules && (!text || io_write_atomic(rules, write_text, text))) {
        fprintf(stderr, "tiefuzz characterize: cannot write %s: %s\n", rules, text ? strerror(errno) : "out of memory");
        rc = EXIT_INTERNAL;
    }
    free(text);
    ch_report_free(&r);
    return rc;
}
