/* Device tests on the default Vulkan device (lavapipe in CI), with the
 * Khronos validation layer on: any validation error fails the test.
 * - the record's hand-worked cases hold with the exact lowering;
 * - every translated op, both lowerings, default and random controls: the
 *   module builds, validates and runs; the exact lowering agrees with the
 *   host model on generated cases of every class.  Where both lowerings give
 *   the same module word for word (the tile ops), it runs once. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "engine/campaign.h"
#include "engine/compare.h"
#include "engine/module.h"
#include "isa/classify.h"
#include "vk/runner.h"

static vkd_device *dev;
static vkr_batch *batch;

/* Run n tuples of one instance; returns 0 or -1 (message printed). */
static int dispatch(const isa_instance *in, isa_lowering l, const uint32_t *words, unsigned n, uint32_t *out)
{
    static char err[1 << 16];
    eng_module m;
    if (eng_module_build(in, l, vkd_device_info(dev), &m, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    uint32_t k = in->ctrl[CTRL_K];
    vkr_pipeline *p = vkr_pipeline_create(dev, batch, m.spv.words, m.spv.count, &k, in->op->ctrl_limit[CTRL_K] ? 1 : 0,
                                          m.local_size, m.per_tuple, err, sizeof err);
    int rc = -1;
    if (p) {
        memcpy(vkr_batch_input(batch), words, (size_t)n * in->op->n_in * 4);
        if (!vkr_submit(dev, batch, p, n, err, sizeof err) && !vkr_wait(dev, batch, 20000, err, sizeof err)) {
            memcpy(out, vkr_batch_output(batch), (size_t)n * in->op->n_out * 4);
            rc = 0;
        }
        vkr_pipeline_destroy(dev, p);
    }
    if (rc)
        fprintf(stderr, "%s: %s\n", in->op->name, err);
    eng_module_free(&m);
    return rc;
}

/* Whether two lowerings give an instance the same module word for word (the
 * tile ops have one lowering): the second need not be dispatched again. */
static bool same_module(const isa_instance *in, isa_lowering a, isa_lowering b)
{
    static char err[1 << 16];
    eng_module ma, mb;
    if (eng_module_build(in, a, vkd_device_info(dev), &ma, err, sizeof err))
        return false;
    bool same = false;
    if (!eng_module_build(in, b, vkd_device_info(dev), &mb, err, sizeof err)) {
        same = ma.spv.count == mb.spv.count && !memcmp(ma.spv.words, mb.spv.words, ma.spv.count * 4);
        eng_module_free(&mb);
    }
    eng_module_free(&ma);
    return same;
}

static void hand_case(const char *op, const char *ctrl, const char *param, uint32_t a, uint32_t b, uint32_t c,
                      uint32_t d, uint32_t want)
{
    isa_instance in;
    isa_instance_default(&in, isa_op_find(op));
    if (ctrl)
        CHECK(!isa_parse_controls(&in, ctrl), "%s ctrl", op);
    if (param)
        CHECK(!isa_parse_params(&in, param), "%s param", op);
    uint32_t w[6] = {a, b, c, d}, out[2] = {0};
    CHECK(dispatch(&in, LOWERING_EXACT, w, 1, out) == 0, "%s dispatch", op);
    CHECK_EQ_HEX(out[0], want, op);
}

int main(void)
{
    char err[1024];
    dev = vkd_open(NULL, true, err, sizeof err);
    if (!dev) {
        fprintf(stderr, "test_device: %s\n", err);
        return 1;
    }
    printf("device: %s (%s)\n", vkd_device_info(dev)->name, vkd_device_info(dev)->driver_info);
    const unsigned n = 8192;
    batch = vkr_batch_create(dev, (size_t)n * ISA_MAX_IN, (size_t)n * ISA_MAX_OUT, err, sizeof err);
    CHECK(batch != NULL, "batch: %s", err);

    hand_case("v_fma_f32", 0, 0, 0x3f800800, 0x3f800800, 0xbf801000, 0, 0x33800000);
    hand_case("v_fmac_f32", 0, 0, 0x3f800800, 0x3f800800, 0xbf801000, 0, 0x33800000);
    hand_case("v_fmaak_f32", "k=0xbf801000", 0, 0x3f800800, 0x3f800800, 0, 0, 0x33800000);
    hand_case("v_fmamk_f32", "k=0x3f800800", 0, 0x3f800800, 0xbf801000, 0, 0, 0x33800000);
    hand_case("v_div_fmas_f32", 0, 0, 0x3f800800, 0x3f800800, 0xbf801000, 0, 0x33800000);
    hand_case("v_fma_mix_f32", "op_sel_hi=0", 0, 0x3f800800, 0x3f800800, 0xbf801000, 0, 0x33800000);
    hand_case("v_mad_f32", 0, 0, 0x3f800800, 0x3f800800, 0xbf801000, 0, 0);
    hand_case("v_madak_f32", "k=0xbf801000", 0, 0x3f800800, 0x3f800800, 0, 0, 0);
    hand_case("v_fma_f16", 0, 0, 0x1001, 0x3bfe, 0x3c01, 0, 0x3c01);
    hand_case("v_fmac_f16", 0, 0, 0x1001, 0x3bfe, 0xabcd3c01, 0, 0xabcd3c01);
    hand_case("v_pk_fma_f16", 0, 0, 0x10011001, 0x3bfe3bfe, 0x3c013c01, 0, 0x3c013c01);
    hand_case("v_fma_mixlo_f16", 0, 0, 0x1001, 0x3bfe, 0x3c01, 0x55550000, 0x55553c01);
    hand_case("v_fma_mixlo_f16", "op_sel_hi=3", 0, 0x1001, 0x3bfe, 0x3f802000, 0, 0x3c02);
    hand_case("v_div_fmas_f32", 0, 0, 0x15400000, 0x3f800000, 0x86000000, 1, 0x00000001);
    hand_case("v_div_fmas_f32", 0, "div_fmas_order=after-rounding", 0x15400000, 0x3f800000, 0x86000000, 1, 0x00000002);

    gen_class all[GEN_CLASS_COUNT];
    for (int c = 0; c < GEN_CLASS_COUNT; c++)
        all[c] = (gen_class)c;
    gen_class mine[GEN_CLASS_COUNT];
    uint32_t *words = malloc((size_t)n * ISA_MAX_IN * 4), *host = malloc((size_t)n * ISA_MAX_OUT * 4);
    uint32_t *out = malloc((size_t)n * ISA_MAX_OUT * 4), *bad_at = malloc((size_t)n * sizeof *bad_at);
    isa_verdict t;
    for (unsigned o = 0; o < isa_op_count(); o++) {
        const isa_op *op = isa_op_at(o);
        if (!op->translated) {
            isa_instance in;
            isa_instance_default(&in, op);
            eng_module m;
            CHECK(eng_module_build(&in, LOWERING_EXACT, vkd_device_info(dev), &m, err, sizeof err) != 0,
                  "%s builds although not translated", op->name);
            continue;
        }
        unsigned disagree[LOWERING_COUNT] = {0}, last = 0;
        unsigned nm = isa_op_classes(op, all, GEN_CLASS_COUNT, mine);
        for (unsigned block = 0; block < 4; block++) {
            isa_instance tmpl, in;
            isa_instance_default(&tmpl, op);
            eng_drawn_instance(&tmpl, block == 0, false, 3, block, mine, nm, &in);  /* a fresh draw each */
            for (unsigned i = 0; i < n; i++)
                eng_make_case(&in, 3, block * n + i, mine, nm, words + (size_t)i * op->n_in,
                              host + (size_t)i * op->n_out, &t);
            for (int l = 0; l < LOWERING_COUNT; l++) {
                if (l > 0 && same_module(&in, (isa_lowering)(l - 1), (isa_lowering)l)) {
                    disagree[l] += last;
                    continue;
                }
                CHECK(dispatch(&in, (isa_lowering)l, words, n, out) == 0, "%s %s dispatch", op->name,
                      isa_lowering_name((isa_lowering)l));
                last = eng_compare_buffers(op, host, out, n, false, bad_at);
                disagree[l] += last;
            }
        }
        printf("%-24s exact: %u disagreements, direct: %u%s\n", op->name, disagree[LOWERING_EXACT],
               disagree[LOWERING_DIRECT], op->classes & (1u << GEN_CARRY) ? "" : " (not asserted: Vulkan lets Fma be unfused)");
        if (op->classes & (1u << GEN_CARRY))  /* integer code: both lowerings are exact */
            CHECK(disagree[LOWERING_DIRECT] == 0, "%s: direct lowering disagrees", op->name);
        CHECK(disagree[LOWERING_EXACT] == 0, "%s: exact lowering disagrees %u times", op->name, disagree[LOWERING_EXACT]);
    }
    CHECK(vkd_validation_errors(dev) == 0, "%u validation errors", vkd_validation_errors(dev));
    free(words);
    free(host);
    free(out);
    free(bad_at);
    vkr_batch_destroy(dev, batch);
    vkd_close(dev);
    return check_report("test_device");
}
