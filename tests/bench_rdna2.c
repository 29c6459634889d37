/* Benchmark figures per op, measured in one run:
 *   host   tuples/s of the host evaluator (no trace), one thread;
 *   device tuples/s of a raw dispatch of the op's module (64K-tuple
 *          batches, inputs already in the buffer), submit to fence;
 * scripts/bench adds the end-to-end campaign rate and the ratios.
 * Usage: bench_rdna2 [--lowering direct|exact] [--batch N] [OP-GLOB...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "engine/campaign.h"
#include "engine/module.h"
#include "vk/runner.h"

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
    printf("%-24s %14s %14s\n", "op", "host_tps", "device_tps");
    for (int o = 0; o < n; o++) {
        const isa_op *op = ops[o];
        if (!op->translated)
            continue;
        isa_instance in;
        isa_instance_default(&in, op);
        isa_verdict t;
        /* Tiles are large: as many as the batch's words hold. */
        unsigned count = vkr_batch_capacity(batch, op->n_in, op->n_out);
        if (count > batch_size)
            count = batch_size;
        for (unsigned i = 0; i < count; i++)
            eng_make_case(&in, 1, i, all, GEN_CLASS_COUNT, words + (size_t)i * op->n_in, out, &t);
        /* Host: evaluate the batch repeatedly for at least half a second. */
        double t0 = now(), t1;
        uint64_t done = 0;
        do {
            for (unsigned i = 0; i < count; i++)
                op->impl->eval(&in, words + (size_t)i * op->n_in, out + (size_t)i * op->n_out, NULL);
            done += count;
        } while ((t1 = now()) - t0 < 0.5);
        double host = (double)done / (t1 - t0);
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
        printf("%-24s %14.0f %14.0f\n", op->name, host, device);
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
