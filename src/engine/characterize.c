/* Characterize: probe modules as SPIR-V assembly text, run one dispatch
 * each, and name the behaviour the results select. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "characterize.h"
#include "spirv/tools.h"
#include "vk/runner.h"

/* Each tuple: three operands in 64-bit slots (low word first), 6 words; the
 * result in 2 words (f16 in the low half of the first). */
enum { IN_WORDS = 6, OUT_WORDS = 2 };

typedef struct {
    char *s;
    size_t len, cap;
} text;

static void put(text *t, const char *s)
{
    size_t n = strlen(s);
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->s = realloc(t->s, t->cap);
    }
    memcpy(t->s + t->len, s, n + 1);
    t->len += n;
}

static void putf(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(text *t, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    put(t, buf);
}

/* s with $I and $O replaced by the float type names. */
static void put_typed(text *t, const char *s, unsigned iw, unsigned ow)
{
    for (; *s; s++) {
        if (s[0] == '$' && (s[1] == 'I' || s[1] == 'O')) {
            putf(t, "%%f%u", s[1] == 'I' ? iw : ow);
            s++;
        } else {
            char c[2] = {*s, 0};
            put(t, c);
        }
    }
}

static bool uses(const ch_probe *p, unsigned w) { return p->in_width == w || p->out_width == w; }

static void put_header(text *t, const ch_probe *p)
{
    static const struct { unsigned bit; const char *name; } modes[] = {
        {CH_SZINP, "SignedZeroInfNanPreserve"}, {CH_DENORM_PRESERVE, "DenormPreserve"},
        {CH_DENORM_FLUSH, "DenormFlushToZero"}, {CH_RTE, "RoundingModeRTE"}, {CH_RTZ, "RoundingModeRTZ"}};
    put(t, "; tiefuzz characterize probe\nOpCapability Shader\n");
    if (uses(p, 16))
        put(t, "OpCapability Float16\n");
    if (uses(p, 64))
        put(t, "OpCapability Float64\n");
    for (unsigned m = 0; m < sizeof modes / sizeof modes[0]; m++)
        if (p->modes & modes[m].bit)
            putf(t, "OpCapability %s\n", modes[m].name);
    put(t, "%glsl = OpExtInstImport \"GLSL.std.450\"\nOpMemoryModel Logical GLSL450\n"
           "OpEntryPoint GLCompute %main \"main\" %gid %inbuf %outbuf\n"
           "OpExecutionMode %main LocalSize 1 1 1\n");
    for (unsigned m = 0; m < sizeof modes / sizeof modes[0]; m++)
        for (unsigned w = 16; w <= 64; w *= 2)
            if ((p->modes & modes[m].bit) && uses(p, w))
                putf(t, "OpExecutionMode %%main %s %u\n", modes[m].name, w);
    put(t, "OpDecorate %gid BuiltIn GlobalInvocationId\nOpDecorate %arr ArrayStride 4\n"
           "OpMemberDecorate %blk 0 Offset 0\nOpDecorate %blk Block\n"
           "OpDecorate %inbuf DescriptorSet 0\nOpDecorate %inbuf Binding 0\nOpDecorate %inbuf NonWritable\n"
           "OpDecorate %outbuf DescriptorSet 0\nOpDecorate %outbuf Binding 1\nOpDecorate %outbuf NonReadable\n");
    put_typed(t, p->decor, p->in_width, p->out_width);
}

static void put_types(text *t, const ch_probe *p)
{
    put(t, "%u32 = OpTypeInt 32 0\n%void = OpTypeVoid\n%v3u = OpTypeVector %u32 3\n%v2u = OpTypeVector %u32 2\n"
           "%pv3u = OpTypePointer Input %v3u\n%arr = OpTypeRuntimeArray %u32\n%blk = OpTypeStruct %arr\n"
           "%pblk = OpTypePointer StorageBuffer %blk\n%pu32 = OpTypePointer StorageBuffer %u32\n"
           "%fn = OpTypeFunction %void\n%f32 = OpTypeFloat 32\n"
           "%gid = OpVariable %pv3u Input\n%inbuf = OpVariable %pblk StorageBuffer\n"
           "%outbuf = OpVariable %pblk StorageBuffer\n");
    if (uses(p, 16))
        put(t, "%f16 = OpTypeFloat 16\n%v2f16 = OpTypeVector %f16 2\n");
    if (uses(p, 64))
        put(t, "%f64 = OpTypeFloat 64\n");
    for (unsigned i = 0; i <= IN_WORDS; i++)
        putf(t, "%%u%u = OpConstant %%u32 %u\n", i, i);
    put_typed(t, p->consts, p->in_width, p->out_width);
}

/* Operand k (%a, %b, %c) of width w from words 2k, 2k+1 of the tuple. */
static void put_operand(text *t, unsigned k, unsigned w)
{
    char n = (char)('a' + k);
    for (unsigned j = 0; j < 2; j++)
        putf(t, "%%x%c%u = OpIAdd %%u32 %%base %%u%u\n%%p%c%u = OpAccessChain %%pu32 %%inbuf %%u0 %%x%c%u\n"
                "%%w%c%u = OpLoad %%u32 %%p%c%u\n", n, j, 2 * k + j, n, j, n, j, n, j, n, j);
    if (w == 32)
        putf(t, "%%%c = OpBitcast %%f32 %%w%c0\n", n, n);
    else if (w == 16)
        putf(t, "%%v%c = OpBitcast %%v2f16 %%w%c0\n%%%c = OpCompositeExtract %%f16 %%v%c 0\n", n, n, n, n);
    else
        putf(t, "%%v%c = OpCompositeConstruct %%v2u %%w%c0 %%w%c1\n%%%c = OpBitcast %%f64 %%v%c\n", n, n, n, n, n);
}

static void put_function(text *t, const ch_probe *p)
{
    put(t, "%main = OpFunction %void None %fn\n%entry = OpLabel\n%g = OpLoad %v3u %gid\n"
           "%i = OpCompositeExtract %u32 %g 0\n");
    putf(t, "%%base = OpIMul %%u32 %%i %%u%u\n%%obase = OpIMul %%u32 %%i %%u%u\n", IN_WORDS, OUT_WORDS);
    for (unsigned k = 0; k < 3; k++)
        put_operand(t, k, p->in_width);
    put_typed(t, p->body, p->in_width, p->out_width);
    if (p->out_width == 32)
        put(t, "%o0 = OpBitcast %u32 %r\n%o1 = OpCopyObject %u32 %u0\n");
    else if (p->out_width == 16)
        put(t, "%rv = OpCompositeConstruct %v2f16 %r %r\n%o0 = OpBitcast %u32 %rv\n%o1 = OpCopyObject %u32 %u0\n");
    else
        put(t, "%rv = OpBitcast %v2u %r\n%o0 = OpCompositeExtract %u32 %rv 0\n%o1 = OpCompositeExtract %u32 %rv 1\n");
    put(t, "%y1 = OpIAdd %u32 %obase %u1\n%q0 = OpAccessChain %pu32 %outbuf %u0 %obase\n"
           "%q1 = OpAccessChain %pu32 %outbuf %u0 %y1\nOpStore %q0 %o0\nOpStore %q1 %o1\nOpReturn\nOpFunctionEnd\n");
}

char *ch_module_text(const ch_probe *p)
{
    text t = {0};
    put_header(&t, p);
    put_types(&t, p);
    put_function(&t, p);
    return t.s;
}

static uint64_t width_mask(unsigned w) { return w == 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1; }

static bool is_nan(uint64_t v, unsigned w)
{
    unsigned man = w == 16 ? 10 : w == 32 ? 23 : 52;
    uint64_t exp = width_mask(w) >> (man + 1);   /* all ones, w - man - 1 bits */
    return ((v >> man) & exp) == exp && (v & (((uint64_t)1 << man) - 1));
}

static bool alt_matches(const ch_alt *a, uint64_t v, unsigned w)
{
    return a->label && (a->nan ? is_nan(v, w) : a->bits == v);
}

/* Whether some alternative of tuple t labelled `label` gives v. */
static bool label_matches(const ch_tuple *t, const char *label, uint64_t v, unsigned w)
{
    for (unsigned i = 0; i < CH_MAX_ALTS; i++)
        if (t->alt[i].label && !strcmp(t->alt[i].label, label) && alt_matches(&t->alt[i], v, w))
            return true;
    return false;
}

/* The first label (in the first tuple's order) every tuple's result
 * matches; else "depends on the operands" when each tuple matched some
 * label, else "other: " and the first unmatched result. */
const char *ch_verdict(const ch_probe *p, const uint64_t *observed, char *buf, size_t n)
{
    unsigned w = p->out_width;
    for (unsigned i = 0; i < CH_MAX_ALTS; i++) {
        const char *l = p->tuple[0].alt[i].label;
        bool all = l != NULL;
        for (unsigned t = 0; all && t < p->n_tuples; t++)
            all = label_matches(&p->tuple[t], l, observed[t], w);
        if (all) {
            snprintf(buf, n, "%s", l);
            return buf;
        }
    }
    for (unsigned t = 0; t < p->n_tuples; t++) {
        bool any = false;
        for (unsigned i = 0; i < CH_MAX_ALTS; i++)
            any = any || alt_matches(&p->tuple[t].alt[i], observed[t], w);
        if (!any) {
            snprintf(buf, n, "other: 0x%0*llx", (int)(w / 4), (unsigned long long)observed[t]);
            return buf;
        }
    }
    snprintf(buf, n, "depends on the operands");
    return buf;
}

/* Why the device cannot run p, or NULL. */
static const char *unsupported(const ch_probe *p, const vkd_info *d, char *buf, size_t n)
{
    if (uses(p, 16) && !d->float16)
        return "shaderFloat16 not offered";
    if (uses(p, 64) && !d->float64)
        return "shaderFloat64 not offered";
    for (unsigned w = 16, i = 0; w <= 64; w *= 2, i++) {
        if (!uses(p, w))
            continue;
        const char *miss = (p->modes & CH_SZINP) && !d->caps.signed_zero_inf_nan[i] ? "SignedZeroInfNanPreserve"
                           : (p->modes & CH_DENORM_PRESERVE) && !d->denorm_preserve[i] ? "DenormPreserve"
                           : (p->modes & CH_DENORM_FLUSH) && !d->denorm_flush[i]       ? "DenormFlushToZero"
                           : (p->modes & CH_RTE) && !d->caps.rte[i]                    ? "RoundingModeRTE"
                           : (p->modes & CH_RTZ) && !d->rtz[i]                         ? "RoundingModeRTZ"
                                                                                       : NULL;
        if (miss) {
            snprintf(buf, n, "%s %u not advertised", miss, w);
            return buf;
        }
    }
    return NULL;
}

/* Build, dispatch and read one probe.  0, or -1 with err (*dev_fail: the
 * device failed, else the module did). */
static int run_probe(vkd_device *dev, vkr_batch *b, const ch_probe *p, uint64_t *observed, bool *dev_fail, char *err,
                     size_t errn)
{
    const vkd_info *info = vkd_device_info(dev);
    *dev_fail = false;
    char *src = ch_module_text(p);
    spv_module m = {0};
    char msg[1024];
    int rc = spv_assemble(src, &m, msg, sizeof msg) || spv_validate(&m, info->api_version, msg, sizeof msg) ? -1 : 0;
    free(src);
    if (rc) {
        snprintf(err, errn, "probe %s: its module does not build: %s", p->id, msg);
        spv_module_free(&m);
        return -1;
    }
    vkr_pipeline *pl = vkr_pipeline_create(dev, b, m.words, m.count, &p->spec_value, p->spec ? 1 : 0, 1, 1, msg,
                                           sizeof msg);
    spv_module_free(&m);
    if (!pl) {
        snprintf(err, errn, "probe %s: %s", p->id, msg);
        return -1;
    }
    uint32_t *in = vkr_batch_input(b);
    for (unsigned t = 0; t < p->n_tuples; t++)
        for (unsigned k = 0; k < 3; k++)
            in[t * IN_WORDS + 2 * k] = (uint32_t)p->tuple[t].in[k], in[t * IN_WORDS + 2 * k + 1] = p->tuple[t].in[k] >> 32;
    if (vkr_submit(dev, b, pl, p->n_tuples, msg, sizeof msg) || vkr_wait(dev, b, 20000, msg, sizeof msg)) {
        snprintf(err, errn, "probe %s: %s", p->id, msg);
        *dev_fail = true;
        vkr_pipeline_destroy(dev, pl);
        return -1;
    }
    const uint32_t *out = vkr_batch_output(b);
    for (unsigned t = 0; t < p->n_tuples; t++)
        observed[t] = (out[t * OUT_WORDS] | (uint64_t)out[t * OUT_WORDS + 1] << 32) & width_mask(p->out_width);
    vkr_pipeline_destroy(dev, pl);
    return 0;
}

int ch_characterize(const char *sel, ch_report *out, bool *no_device, char *err, size_t errn)
{
    memset(out, 0, sizeof *out);
    *no_device = true;
    vkd_device *dev = vkd_open(sel, false, err, errn);
    if (!dev)
        return -1;
    out->info = *vkd_device_info(dev);
    vkr_batch *b = vkr_batch_create(dev, IN_WORDS * CH_MAX_TUPLES, OUT_WORDS * CH_MAX_TUPLES, err, errn);
    if (!b) {
        vkd_close(dev);
        return -1;
    }
    unsigned n;
    const ch_probe *probes = ch_probes(&n);
    out->results = calloc(n, sizeof *out->results);
    int rc = 0;
    for (unsigned i = 0; i < n && !rc; i++) {
        ch_result *r = &out->results[out->n_results++];
        r->probe = &probes[i];
        if (unsupported(r->probe, &out->info, r->skipped, sizeof r->skipped))
            continue;
        rc = run_probe(dev, b, r->probe, r->observed, no_device, err, errn);
        r->ran = rc == 0;
        if (r->ran)
            ch_verdict(r->probe, r->observed, r->verdict, sizeof r->verdict);
    }
    vkr_batch_destroy(dev, b);
    vkd_close(dev);
    return rc;
}

void ch_report_free(ch_report *r)
{
    free(r->results);
    memset(r, 0, sizeof *r);
}

const ch_result *ch_find(const ch_report *r, const char *id)
{
    for (unsigned i = 0; i < r->n_results; i++)
        if (!strcmp(r->results[i].probe->id, id))
            return &r->results[i];
    return NULL;
}
