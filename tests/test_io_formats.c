/* The file readers: finding files, binary cases, regression tuples and
 * known-divergence rules round-trip, and reject truncated, oversized,
 * wrong-version, wrong-checksum and malformed input with "name:line: why". */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "engine/minimize.h"
#include "engine/signature.h"
#include "io/finding.h"
#include "io/known.h"
#include "io/regression.h"

static io_finding sample(void)
{
    io_finding f = {0};
    strcpy(f.op, "rdna2.v_fma_f32");
    strcpy(f.controls, "abs=0,neg=0,clamp=0,omod=0");
    strcpy(f.params, "omod=ignored");
    strcpy(f.lowering, "direct");
    strcpy(f.device, "llvmpipe (LLVM 15.0.6, 256 bits)");
    strcpy(f.driver, "llvmpipe");
    strcpy(f.driver_info, "Mesa 22.3.6");
    strcpy(f.api_version, "1.3.230");
    strcpy(f.declared, "RoundingModeRTE 32; SignedZeroInfNanPreserve 32");
    strcpy(f.gen_class, "tie");
    strcpy(f.kind, "other");
    f.seed = 1;
    f.case_index = 42;
    f.count = 3;
    f.signature = 0x0123456789abcdefull;
    f.n_in = 3;
    f.n_out = 1;
    uint32_t in[3] = {0x3f800800, 0x3f800800, 0xbf801000};
    memcpy(f.input, in, sizeof in);
    f.host[0] = 0x33800000;
    f.device_out[0] = 0;
    f.minimized = true;
    strcpy(f.original_controls, "abs=1,neg=0,clamp=0,omod=0");
    memcpy(f.original_input, in, sizeof in);
    f.original_host[0] = 0x33800000;
    f.explanation = "line one\nline two";
    return f;
}

/* Parse text; expect failure whose message contains want (and the name). */
static void reject(const char *text, size_t len, const char *want, const char *what)
{
    io_finding f;
    char err[512] = "";
    int rc = io_finding_parse(text, len, "t.finding", &f, err, sizeof err);
    CHECK(rc == -1, "%s: accepted", what);
    CHECK(strstr(err, want) != NULL, "%s: message '%s' lacks '%s'", what, err, want);
    CHECK(strncmp(err, "t.finding:", 10) == 0, "%s: message '%s' does not start with the file name", what, err);
}

/* Re-sign edited text so that only the edit is wrong, not the checksum.
 * Takes the edited text (replace()'s, malloc'd) and frees it. */
static char *resign(char *text)
{
    size_t len = strlen(text);
    const char *last = strstr(text, "checksum xxh64 ");
    size_t body = last ? (size_t)(last - text) : len;
    char *out = malloc(body + 64);
    memcpy(out, text, body);
    out[body] = 0;
    extern unsigned long long test_xxh64(const void *p, size_t n);
    sprintf(out + body, "checksum xxh64 %016llx\n", test_xxh64(out, body));
    free(text);
    return out;
}

static char *replace(const char *text, const char *from, const char *to)
{
    const char *p = strstr(text, from);
    if (!p)
        return strdup(text);
    size_t a = (size_t)(p - text), fl = strlen(from), tl = strlen(to), len = strlen(text);
    char *out = malloc(len - fl + tl + 1);
    memcpy(out, text, a);
    memcpy(out + a, to, tl);
    strcpy(out + a + tl, p + fl);
    return out;
}

int main(void)
{
    /* Round trip. */
    io_finding f = sample(), g;
    char *text = io_finding_format(&f);
    char err[512] = "";
    CHECK(io_finding_parse(text, strlen(text), "t.finding", &g, err, sizeof err) == 0, "round trip: %s", err);
    CHECK(!strcmp(g.op, f.op) && !strcmp(g.controls, f.controls) && g.n_in == 3 && g.n_out == 1, "fields");
    CHECK(g.input[2] == 0xbf801000 && g.host[0] == 0x33800000 && g.signature == f.signature && g.minimized, "values");
    CHECK(g.case_index == 42 && g.count == 3 && !strcmp(g.original_controls, f.original_controls), "provenance");

    /* Version 2 carries the triage verdict; version 1 files (without it) still read. */
    io_finding judged = f;
    snprintf(judged.verdict, sizeof judged.verdict, "device");
    snprintf(judged.verdict_cause, sizeof judged.verdict_cause, "SignedZeroInfNanPreserve-32");
    snprintf(judged.verdict_reason, sizeof judged.verdict_reason, "the device broke SignedZeroInfNanPreserve 32");
    char *judged_text = io_finding_format(&judged);
    CHECK(io_finding_parse(judged_text, strlen(judged_text), "j.finding", &g, err, sizeof err) == 0 &&
              !strcmp(g.verdict, "device") && !strcmp(g.verdict_cause, "SignedZeroInfNanPreserve-32") &&
              !strcmp(g.verdict_reason, judged.verdict_reason), "verdict round trip: %s", err);
    CHECK(!strncmp(judged_text, "tiefuzz-finding 2\n", 18), "the format version is 2");
    char *v1 = resign(replace(text, "tiefuzz-finding 2", "tiefuzz-finding 1"));
    CHECK(io_finding_parse(v1, strlen(v1), "v1.finding", &g, err, sizeof err) == 0 && !g.verdict[0],
          "a version 1 file reads, without a verdict: %s", err);
    char *v1_verdict = resign(replace(judged_text, "tiefuzz-finding 2", "tiefuzz-finding 1"));
    reject(v1_verdict, strlen(v1_verdict), "unknown field 'verdict'", "a verdict in a version 1 file");
    char *bad_verdict = resign(replace(judged_text, "verdict device", "verdict driver"));
    reject(bad_verdict, strlen(bad_verdict), "expected translation, device, model or unknown", "verdict name");
    free(judged_text), free(v1), free(v1_verdict), free(bad_verdict);

    /* The final count of a run replaces the count line only; the rest, explanation included, stays. */
    char *recounted = io_finding_with_count(text, strlen(text), 123456789012ull);
    CHECK(recounted && io_finding_parse(recounted, strlen(recounted), "r.finding", &g, err, sizeof err) == 0,
          "recounted file parses: %s", err);
    CHECK(g.count == 123456789012ull && g.case_index == 42 && g.signature == f.signature, "recounted fields");
    if (recounted) {   /* from the line after count up to the checksum line, byte for byte */
        const char *a = strchr(strstr(text, "\ncount ") + 1, '\n'), *b = strchr(strstr(recounted, "\ncount ") + 1, '\n');
        size_t na = (size_t)(strstr(a, "checksum xxh64") - a), nb = (size_t)(strstr(b, "checksum xxh64") - b);
        CHECK(na == nb && !memcmp(a, b, na) && strstr(a, "| line two"), "the rest, explanation included, unchanged");
    }
    CHECK(recounted && !strncmp(recounted, text, (size_t)(strstr(text, "\ncount ") - text)), "prefix unchanged");
    free(recounted);
    CHECK(io_finding_with_count("no count here\n", 14, 5) == NULL, "a file without a count line");

    /* Corruptions. */
    char *bad = strdup(text);
    bad[strstr(bad, "input") - bad + 6] = '4';  /* one changed digit */
    reject(bad, strlen(bad), "checksum mismatch", "edited");
    free(bad);
    reject(text, strlen(text) / 2, "expected the last line", "truncated");
    reject("", 0, "expected the last line", "empty");
    char *big = calloc(IO_FINDING_MAX_BYTES + 2, 1);
    memset(big, 'a', IO_FINDING_MAX_BYTES + 1);
    reject(big, IO_FINDING_MAX_BYTES + 1, "larger than", "oversized");
    free(big);
    char *v3 = resign(replace(text, "tiefuzz-finding 2", "tiefuzz-finding 3"));
    reject(v3, strlen(v3), "version '3' is not supported", "wrong version");
    char *other = resign(replace(text, "tiefuzz-finding 2", "hello"));
    reject(other, strlen(other), "not a finding file", "not a finding");
    char *unknown = resign(replace(text, "seed 1\n", "seed 1\ncolour blue\n"));
    reject(unknown, strlen(unknown), "unknown field 'colour'", "unknown field");
    char *missing = resign(replace(text, "kind other\n", ""));
    reject(missing, strlen(missing), "the field 'kind' is missing", "missing field");
    char *badword = resign(replace(text, "input 3f800800", "input 3f8008"));
    reject(badword, strlen(badword), "expected 8-digit hex words", "short word");
    char *badnum = resign(replace(text, "seed 1\n", "seed one\n"));
    reject(badnum, strlen(badnum), "expected a number", "bad number");
    char *mismatch = resign(replace(text, "device-output 00000000", "device-output 00000000 00000000"));
    reject(mismatch, strlen(mismatch), "different word counts", "word counts");
    char nul[] = "tiefuzz-finding 1\n\0\nchecksum xxh64 0000000000000000\n";
    reject(nul, sizeof nul - 1, "NUL byte", "binary content");
    /* The line number points at the bad line. */
    io_finding h;
    io_finding_parse(unknown, strlen(unknown), "t.finding", &h, err, sizeof err);
    CHECK(strstr(err, "t.finding:") && atoi(err + 10) > 1, "line number in '%s'", err);
    free(v3); free(other); free(unknown); free(missing); free(badword); free(badnum); free(mismatch);

    /* Binary cases. */
    io_case c = {0}, d;
    strcpy(c.op, "rdna2.v_fmaak_f32");
    c.lowering = 1;
    c.n_ctrl = 9;
    c.ctrl[8] = 0xbf801000;
    c.n_param = 4;
    c.n_words = 2;
    c.words[0] = 0x3f800800;
    c.words[1] = 0x3f800800;
    uint8_t buf[256];
    size_t len = io_case_encode(&c, buf, sizeof buf);
    CHECK(len > 0 && io_is_case_binary(buf, len), "encode");
    CHECK(io_case_decode(buf, len, "crash-1", &d, err, sizeof err) == 0, "decode: %s", err);
    CHECK(!strcmp(d.op, c.op) && d.ctrl[8] == 0xbf801000 && d.words[1] == 0x3f800800 && d.lowering == 1, "fields");
    CHECK(io_case_decode(buf, len - 1, "crash-1", &d, err, sizeof err) == -1 && strstr(err, "truncated"), "%s", err);
    buf[len] = 0;
    CHECK(io_case_decode(buf, len + 1, "crash-1", &d, err, sizeof err) == -1 && strstr(err, "trailing"), "%s", err);
    buf[4] = 9;
    CHECK(io_case_decode(buf, len, "crash-1", &d, err, sizeof err) == -1 && strstr(err, "version 9"), "%s", err);
    CHECK(io_case_decode((const uint8_t *)"TFZ", 3, "crash-1", &d, err, sizeof err) == -1, "short");

    /* Regression files. */
    const char *reg = "tiefuzz-regression 1\nop rdna2.v_fma_f32\n"
                      "instance controls=none params=omod=ignored lowering=exact\n"
                      "3f800800 3f800800 bf801000 -> 33800000  # record\n"
                      "00000000 00000000 00000000 -> 00000000\n"
                      "3f800800 3f800800 bf801000 -> 33800000\n";
    io_regression r;
    CHECK(io_regression_parse(reg, strlen(reg), "r.tuples", &r, err, sizeof err) == 0, "regression: %s", err);
    CHECK(r.n == 3 && !strcmp(r.e[0].comment, "record"), "entries %u", r.n);
    io_regression_normalize(&r);
    CHECK(r.n == 2 && r.e[0].in[0] == 0, "normalize: sorted, no duplicates (%u)", r.n);
    char *out = io_regression_format(&r);
    io_regression r2;
    CHECK(io_regression_parse(out, strlen(out), "r2", &r2, err, sizeof err) == 0 && r2.n == 2, "format round trip");
    free(out);
    io_regression_free(&r);
    io_regression_free(&r2);
    struct { const char *text, *want; } bad_regs[] = {
        {"tiefuzz-regression 2\nop x\n", "unsupported version"},
        {"hello\n", "not a regression file"},
        {"tiefuzz-regression 1\n", "truncated"},
        {"tiefuzz-regression 1\nop a b\n", "expected 'op NAME'"},
        {"tiefuzz-regression 1\nop x\n1 2 3 -> 4\n", "before any 'instance'"},
        {"tiefuzz-regression 1\nop x\ninstance controls=none\n", "expected 'instance controls"},
        {"tiefuzz-regression 1\nop x\ninstance controls=none params=none lowering=exact\n1 2 3\n", "expected 'INPUT"},
        {"tiefuzz-regression 1\nop x\ninstance controls=none params=none lowering=exact\n1 zz 3 -> 4\n", "r.tuples:4: column"},
        {"tiefuzz-regression 1\nop x\ninstance controls=none params=none lowering=exact\n1 2 3 ->\n", "both sides"},
    };
    for (size_t i = 0; i < sizeof bad_regs / sizeof bad_regs[0]; i++) {
        err[0] = 0;
        int rc = io_regression_parse(bad_regs[i].text, strlen(bad_regs[i].text), "r.tuples", &r, err, sizeof err);
        CHECK(rc == -1 && strstr(err, bad_regs[i].want) && !strncmp(err, "r.tuples:", 9), "regression %zu: '%s'", i, err);
    }

    /* Known rules. */
    const char *rules = "# comment with reason=inside\n"
                        "device=llvmpipe op=rdna2.v_fma_* lowering=direct kind=one-unit-rounding,other reason=unfused Fma\n";
    io_known k = {0};
    CHECK(io_known_parse(rules, strlen(rules), "k.txt", &k, err, sizeof err) == 0 && k.n == 1, "rules: %s", err);
    CHECK(io_known_match(&k, &(io_known_query){"llvmpipe (LLVM 15)", "rdna2.v_fma_f32", "direct", "other", 1, NULL, NULL}) != NULL, "match");
    CHECK(io_known_match(&k, &(io_known_query){"NVIDIA H200", "rdna2.v_fma_f32", "direct", "other", 1, NULL, NULL}) == NULL, "device");
    CHECK(io_known_match(&k, &(io_known_query){"llvmpipe", "rdna2.v_fma_f32", "exact", "other", 1, NULL, NULL}) == NULL, "lowering");
    CHECK(io_known_match(&k, &(io_known_query){"llvmpipe", "rdna2.v_fma_f32", "direct", "sign-of-zero", 1, NULL, NULL}) == NULL, "kind");
    CHECK(!strcmp(k.rules[0].reason, "unfused Fma"), "reason '%s'", k.rules[0].reason);
    io_known_free(&k);
    /* Rules derived from a device's profile name a verdict and its cause. */
    const char *derived = "device=llvmpipe verdict=translation cause=fma-unfused reason=unfused\n";
    CHECK(io_known_parse(derived, strlen(derived), "d.txt", &k, err, sizeof err) == 0 && k.n == 1, "derived: %s", err);
    CHECK(io_known_match(&k, &(io_known_query){"llvmpipe", "rdna2.v_fma_f32", "direct", "other", 1, "translation",
                                               "fma-unfused"}) != NULL, "verdict and cause match");
    CHECK(io_known_match(&k, &(io_known_query){"llvmpipe", "rdna2.v_fma_f32", "direct", "other", 1, "device",
                                               "fma-unfused"}) == NULL, "verdict");
    CHECK(io_known_match(&k, &(io_known_query){"llvmpipe", "rdna2.v_fma_f32", "direct", "other", 1, "translation",
                                               "flush-input"}) == NULL, "cause");
    CHECK(io_known_match(&k, &(io_known_query){"llvmpipe", "rdna2.v_fma_f32", "direct", "other", 1, NULL, NULL}) == NULL,
          "no verdict given");
    io_known_free(&k);
    const char *bad_rules[] = {"device=x\n", "colour=red reason=x\n", "device=x signature=12 reason=y\n", "reason=no conditions\n",
                               "device reason=x\n"};
    for (size_t i = 0; i < sizeof bad_rules / sizeof bad_rules[0]; i++) {
        err[0] = 0;
        CHECK(io_known_parse(bad_rules[i], strlen(bad_rules[i]), "k.txt", &k, err, sizeof err) == -1 &&
                  !strncmp(err, "k.txt:1:", 8), "rules %zu: '%s'", i, err);
        io_known_free(&k);
    }

    /* The complexity the minimizer lowers: the record's f32 case is 7
     * (two operands 1 + 2^-12, one -(1 + 2^-11)); cli_findings.sh compares
     * minimized findings against it. */
    eng_case rc = {{0}, {0x3f800800, 0x3f800800, 0xbf801000}};
    isa_instance_default(&rc.in, isa_op_find("rdna2.v_fma_f32"));
    CHECK(eng_case_complexity(&rc) == 7, "record complexity %u", eng_case_complexity(&rc));

    /* Signatures are kept in finding files, file names and known rules, so they
     * stay the hash of their documented text whatever computes them: every op,
     * every kind, both op_sel_hi extremes. */
    extern unsigned long long test_xxh64(const void *p, size_t n);
    eng_target target = {"direct", "llvmpipe (LLVM 15.0.6, 256 bits)", "llvmpipe Mesa 22.3.6 (LLVM 15.0.6)"};
    unsigned sig_checked = 0, sig_wrong = 0;
    for (unsigned o = 0; o < isa_op_count(); o++)
        for (int kind = 0; kind < KIND_COUNT; kind++)
            for (uint32_t sel = 0; sel < 8; sel += 7) {
                isa_instance in;
                isa_instance_default(&in, isa_op_at(o));
                in.ctrl[CTRL_OP_SEL_HI] = sel & in.op->ctrl_limit[CTRL_OP_SEL_HI];
                bool mix = in.op->ctrl_limit[CTRL_OP_SEL_HI] && in.op->ctrl_limit[CTRL_NEG_HI] && in.op->n_out == 1 &&
                           in.op->in[0].format == WORD_B32;
                char expect[512];
                snprintf(expect, sizeof expect, "%s|shape=%x,k=%d|%s|%s|%s|%s", in.op->name,
                         mix ? in.ctrl[CTRL_OP_SEL_HI] : 0, in.op->ctrl_limit[CTRL_K] != 0, target.lowering,
                         target.device, target.driver, eng_kind_name((eng_kind)kind));
                sig_checked++;
                sig_wrong += eng_signature(&in, &target, (eng_kind)kind) != test_xxh64(expect, strlen(expect));
            }
    CHECK(sig_checked > 100 && sig_wrong == 0, "signatures: %u of %u differ from their text", sig_wrong, sig_checked);
    free(text);
    return check_report("test_io_formats");
}
