/* Benchmark figures per op, measured in one run, on the same generated tuples:
 *   fast      tuples/s of the host model at full speed (isa_eval_batch: the
 *             family's batch path, else its fast path), one thread;
 *   exact     tuples/s of the exact model (the 128-bit kit, no trace);
 *   hw_fma    tuples/s of a plain loop of the hardware's fused multiply-add
 *             (fmaf as the FMA instruction where the CPU has it) over the same
 *             tuples' first three words: the physical limit of any host model;
 *   pipeline  cases/s of generation on one thread: construction, class
 *             verification, host evaluation and comparison with a copy of the
 *             outputs (what a campaign does per case, less the device);
 *   device    tuples/s of a raw dispatch of the op's module (64K-tuple
 *             batches, inputs already in the buffer), submit to fence;
 * scripts/bench adds the end-to-end campaign rate and the ratios.
 * Usage: bench_rdna2 [--lowering direct|exact] [--batch N] [OP-GLOB...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
#include "isa/classify.h"
#include "engine/campaign.h"
#include "engine/module.h"
#include "vk/runner.h"

/* The physical limit: one fused multiply-add per tuple, nothing else. */
__attribute__((target("fma"))) static void fma_loop_hw(const uint32_t *w, unsigned stride, unsigned n, uint32_t *out)
{
    for (unsigned i = 0; i < n; i++) {
        const uint32_t *t = w + (size_t)i * stride;
        float a, b, c, r;
        memcpy(&a, &t[0], 4);
        memcpy(&b, &t[1], 4);
        memcpy(&c, &t[stride > 2 ? 2 : 0], 4);
        r = __builtin_fmaf(a, b, c);
        memcpy(&out[i], &r, 4);
    }
}

static void fma_loop_libm(const uint32_t *w, unsigned stride, unsigned n, uint32_t *out)
{
    for (unsigned i = 0; i < n; i++) {
        const uint32_t *t = w + (size_t)i * stride;
        float a, b, c, r;
        memcpy(&a, &t[0], 4);
        memcpy(&b, &t[1], 4);
        memcpy(&c, &t[stride > 2 ? 2 : 0], 4);
        r = fmaf(a, b, c);
        memcpy(&out[i], &r, 4);
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    isa_lowering l = LOWERING_DIRECT;
    unsigned batch_size = 65536;
    const char *globs[32];
    unsigned n_globs = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--lowering") && i + 1 < argc)
            l = (isa_lowering)isa_lowering_parse(argv[++i]);
        else if (!strcmp(argv[i], "--batch") && i + 1 < argc)
            batch_size = (unsigned)atoi(argv[++i]);
        else if (n_globs < 32)
            globs[n_globs++] = argv[i];
    }
    const isa_op *ops[64];
    const char *bad;
    int n = eng_select_ops(globs, n_globs, ops, 64, &bad);
    if (n < 0) {
        fprintf(stderr, "bench: no op matches %s\n", bad);
        return 2;
    }
    char err[1 << 16];
    vkd_device *dev = vkd_open(NULL, false, err, sizeof err);
    if (!dev) {
        fprintf(stderr, "bench: %s\n", err);
        return 3;
    }
    vkr_batch *batch = vkr_batch_create(dev, (size_t)batch_size * 8, (size_t)batch_size * 2, err, sizeof err);
    gen_class all[GEN_CLASS_COUNT];
    for (int c = 0; c < GEN_CLASS_COUNT; c++)
        all[c] = (gen_class)c;
    uint32_t *words = malloc((size_t)batch_size * ISA_MAX_IN * 4), *out = malloc((size_t)batch_size * ISA_MAX_OUT * 4);
    printf("# device %s; lowering %s; batch %u\n", vkd_device_info(dev)->name, isa_lowering_name(l), batch_size);
    bool hw = __builtin_cpu_supports("fma");
    printf("# hardware loop: %s\n", hw ? "the FMA instruction" : "libm fmaf (no FMA instruction on this CPU)");
    printf("%-24s %14s %14s %14s %14s %14s\n", "op", "fast_tps", "exact_tps", "hw_fma_tps", "pipeline_cps", "device_tps");
    for (int o = 0; o < n; o++) {
        const isa_op *op = ops[o];
        if (!op->translated)
            continue;
        isa_instance in;
        isa_instance_default(&in, op);
        gen_class mine[GEN_CLASS_COUNT];  /* the op's own classes, cycled as a campaign does */
        unsigned n_mine = isa_op_classes(op, all, GEN_CLASS_COUNT, mine);
        isa_verdict t;
        /* Tiles are large: as many as the batch's words hold. */
        unsigned count = vkr_batch_capacity(batch, op->n_in, op->n_out);
        if (count > batch_size)
            count = batch_size;
        for (unsigned i = 0; i < count; i++)
            eng_make_case(&in, 1, i, mine, n_mine, words + (size_t)i * op->n_in, out, &t);
        /* Host, each for at least 0.3 s over the same tuples. */
        double t0, t1, fast, exact, hwfma, pipeline;
        uint64_t done = 0;
        t0 = now();
        do {
            isa_eval_batch(&in, words, count, out);
            done += count;
        } while ((t1 = now()) - t0 < 0.3);
        fast = (double)done / (t1 - t0);
        done = 0;
        t0 = now();
        do {
            for (unsigned i = 0; i < count; i++)
                op->impl->eval(&in, words + (size_t)i * op->n_in, out + (size_t)i * op->n_out, NULL);
            done += count;
        } while ((t1 = now()) - t0 < 0.3);
        exact = (double)done / (t1 - t0);
        done = 0;
        t0 = now();
        do {
            (hw ? fma_loop_hw : fma_loop_libm)(words, op->n_in, count, out);
            done += count;
        } while ((t1 = now()) - t0 < 0.3);
        hwfma = (double)done / (t1 - t0);
        /* The pipeline: fresh cases, evaluated, compared with a copy. */
        uint32_t *copy = malloc((size_t)count * op->n_out * 4);
        uint64_t next = 1u << 20;
        done = 0;
        t0 = now();
        do {
            for (unsigned i = 0; i < count; i++, next++)
                eng_make_case(&in, 1, next, mine, n_mine, words + (size_t)i * op->n_in,
                              out + (size_t)i * op->n_out, &t);
            memcpy(copy, out, (size_t)count * op->n_out * 4);
            if (memcmp(copy, out, (size_t)count * op->n_out * 4))
                return 4;
            done += count;
        } while ((t1 = now()) - t0 < 0.3);
        pipeline = (double)done / (t1 - t0);
        free(copy);
        /* Device: the same module the campaign uses, dispatched back to back. */
        eng_module m;
        if (eng_module_build(&in, l, vkd_device_info(dev), &m, err, sizeof err)) {
            fprintf(stderr, "bench: %s\n", err);
            continue;
        }
        uint32_t k = in.ctrl[CTRL_K];
        vkr_pipeline *p = vkr_pipeline_create(dev, batch, m.spv.words, m.spv.count, &k, op->ctrl_limit[CTRL_K] ? 1 : 0,
                                              m.local_size, m.per_tuple, err, sizeof err);
        if (!p) {
            fprintf(stderr, "bench: %s\n", err);
            continue;
        }
        memcpy(vkr_batch_input(batch), words, (size_t)count * op->n_in * 4);
        vkr_submit(dev, batch, p, count, err, sizeof err);  /* warm-up: the pipeline compiles here */
        vkr_wait(dev, batch, 60000, err, sizeof err);
        done = 0;
        t0 = now();
        do {
            if (vkr_submit(dev, batch, p, count, err, sizeof err) || vkr_wait(dev, batch, 60000, err, sizeof err)) {
                fprintf(stderr, "bench: %s\n", err);
                return 3;
            }
            done += count;
        } while ((t1 = now()) - t0 < 0.5);
        double device = (double)done / (t1 - t0);
        printf("%-24s %14.0f %14.0f %14.0f %14.0f %14.0f\n", op->name, fast, exact, hwfma, pipeline, device);
        fflush(stdout);
        vkr_pipeline_destroy(dev, p);
        eng_module_free(&m);
    }
    vkr_batch_destroy(dev, batch);
    vkd_close(dev);
    free(words);
    free(out);
    return 0;
}
