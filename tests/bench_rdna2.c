/* Benchmark figures per op, measured in one run, on the same generated tuples
 * (eng_make_case, every generator class that applies to the op, cycled as a
 * campaign does; block 0, the plain encoding):
 *   fast      tuples/s of the family's fast path, a tuple at a time, no
 *             verdict (impl->fast with v NULL); "-" where the family has none;
 *   batch     tuples/s of the family's batch path over the whole buffer
 *             (impl->fast_batch); "-" where it has none;
 *   exact     tuples/s of the exact model (impl->eval: the exact kit, no
 *             trace);
 *   hw        tuples/s of a plain loop of the hardware's fused multiply-add
 *             over the same tuples (the physical limit: one
 *             instruction a tuple); "-" for tiles;
 *   hw_vector tuples/s of the FMA instruction in vectors over the same
 *             operands already unpacked into arrays: the instruction's own
 *             throughput, printed beside hw (the targets stay against hw);
 *   pipeline  cases/s of eng_make_cases on one thread, 1,024 cases a call
 *             (construction, class verification, host evaluation, as a
 *             campaign's generation threads do) plus a comparison of the outputs
 *             with a copy (memcmp): what a campaign does per case, less the
 *             device;
 *   device    tuples/s of a raw dispatch of the op's module (64K-tuple
 *             batches, inputs already in the buffer), submit to fence: the
 *             higher of two readings, device_plain (the cores as they are,
 *             the higher of a window before and one after the other
 *             reading) and device_awake (every core kept from halting by an
 *             idle-class spinner, tests/awake.h), each printed too.
 * Host figures are one thread, each the median of passes over the same
 * items (a pass: the op's tuples once; the pipeline's: its cases once)
 * timed for at least --seconds (0.3) in all; the pipeline's in ten rounds
 * after every op's other figures, the ops in turn (pipeline_round), its
 * lines printed then.
 * Output: comment lines (#) and one line per op of KEY=VALUE fields (op,
 * kind, tuples, fast, batch, exact, hw, pipeline, device, same, hw_vector,
 * device_plain, device_awake), numbers as
 * rates per second, "-" where there is none; scripts/bench formats them.
 * kind: f32 (scalar f32 RDNA 2), f16, packed (v_pk_*), mix (v_fma_mix*),
 * maxwell, tile (tensor-core ops: tuples are tiles).  same=0 when a
 * pipeline pass's outputs differed from the reference's (the cases made
 * one at a time: they must be the same), "-" where no pipeline was timed.
 * --per-class prints instead, per op and class, where a generated case's
 * time goes: construction (impl->construct, one attempt), the fast verdict
 * of what was built (isa_eval_fast with the class wanted) in ns a case, and
 * the attempts per case isa_generate_fast makes (a miss is built again, up
 * to four times): lines "class op=... class=... construct_ns=...
 * verdict_ns=... attempts=...".
 * --per-block N prints instead, per op, the first N blocks of a campaign
 * (seed 1, every class, controls and K drawn as eng_block_instance draws
 * them): each block's instance and what generating 65,536 of its cases
 * costs on one thread (eng_make_cases, best of seven passes), ns a case: an
 * instance that sends classes to the scalar designs stands out.
 * --rows N prints instead, per op, what the driver spends on the first N
 * rows of a seed-1 campaign's covering schedule (engine/cover.h), each row
 * a pipeline of its own, as the campaign meets them: the module's build
 * (words and validation, cached across runs), the pipeline's creation
 * (vkr_pipeline_create) and its first and second dispatch of 1,024 tuples
 * (lavapipe compiles at the first), ms a row, medians over the rows: lines
 * "rows op=... rows=R timed=N module_ms=... create_ms=... first_ms=...
 * second_ms=...".  Ops with no row to pair print rows=0.
 * --device-only prints the main table's lines with the device figure alone
 * (the host figures "-"): scripts/bench takes this second reading in a
 * process of its own and divides its campaign ratios by the higher one.
 * --stages prints instead, per op, where the batch path a campaign runs
 * spends a case (seed, construct, verdict, rest: see per_stage), for all
 * the op's classes together and for each alone: lines "stages op=...
 * class=... seed_ns=... construct_ns=... verdict_ns=... rest_ns=...
 * whole_ns=...".  --per-class times the single-case path, which costs a
 * designed case several times what the batch path does.
 * --wake-latency prints instead one line, how long a thread takes to wake
 * on another core (tests/awake.h), the cores as they are and kept awake:
 * "wake p50_us=... p90_us=... p99_us=... awake_p50_us=... awake_p90_us=...
 * awake_p99_us=...".
 * Usage: bench_rdna2 [--lowering direct|exact] [--batch N] [--seconds S] [--no-device] [--per-class]
 *                    [--per-block N] [--rows N] [--stages] [--device-only] [--wake-latency] [OP-GLOB...] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "awake.h"
#include "isa/classify.h"
#include "isa/rdna2.h"
#include "engine/campaign.h"
#include "engine/cover.h"
#include "engine/module.h"
#include "vk/runner.h"

/* The physical limit: one fused multiply-add per tuple, nothing else, on the
 * tuple's first three words read as f32.  For the f32 ops those are the
 * operands themselves (with the literal K where an op takes one:
 * fma_loop_k).  For f16, packed and MIX ops (f16 halves, or f16 and
 * f32 sources) and for the Maxwell integer ops the words are reinterpreted as
 * f32: the values mean nothing, but the limit is the hardware's FMA rate
 * either way (one instruction a tuple, nothing cheaper exists), measured on
 * the same memory traffic.  Like any hardware FMA, it pays x86's microcode
 * assist where an operand or result is subnormal, so the same words give the
 * same limit the host model faces. */
/* The FMA instruction where the CPU has it, else libm's fmaf (the fastest
 * fused multiply-add such a CPU has): one clone each, chosen at load time. */
__attribute__((target_clones("fma", "default")))
static void fma_loop(const uint32_t *w, unsigned stride, unsigned n, uint32_t *out)
{
    for (unsigned i = 0; i < n; i++) {
        const uint32_t *t = w + (size_t)i * stride;
        float a, b, c, r;
        memcpy(&a, &t[0], 4);
        memcpy(&b, &t[stride > 1 ? 1 : 0], 4);
        memcpy(&c, &t[stride > 2 ? 2 : 0], 4);
        r = __builtin_fmaf(a, b, c);
        memcpy(&out[i], &r, 4);
    }
}

/* The same for an RDNA 2 op with the literal K as one operand (V_FMAAK_F32:
 * a*b + K, V_FMAMK_F32: a*K + b, and the legacy MADAK/MADMK): a two-word
 * tuple's words and K, in the op's operand order, so that the loop does
 * the op's own multiply-add (reading a word twice instead made a
 * different product, often out of range, and a limit up to 3x off). */
__attribute__((target_clones("fma", "default")))
static void fma_loop_k(const uint32_t *w, unsigned n, uint32_t k_bits, bool k_is_b, uint32_t *out)
{
    float k;
    memcpy(&k, &k_bits, 4);
    for (unsigned i = 0; i < n; i++) {
        float x, y, r;
        memcpy(&x, &w[2 * (size_t)i], 4);
        memcpy(&y, &w[2 * (size_t)i + 1], 4);
        r = k_is_b ? __builtin_fmaf(x, k, y) : __builtin_fmaf(x, y, k);
        memcpy(&out[i], &r, 4);
    }
}

/* A stricter limit: the FMA instruction in vectors, as wide as the CPU has,
 * over three arrays already holding each tuple's operands (those fma_loop
 * and fma_loop_k read), so that no unpacking is counted at all.  The batch
 * paths run vector code too, and a scalar loop is no ceiling for them.
 * Intrinsics: the project builds with -frounding-math, under which GCC
 * does not vectorize a loop of fmaf. */
#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx512f"))) static unsigned fma_x16(const float *a, const float *b, const float *c, unsigned n,
                                                           float *out)
{
    unsigned i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(out + i, _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i),
                                                  _mm512_loadu_ps(c + i)));
    return i;
}

__attribute__((target("avx2,fma"))) static unsigned fma_x8(const float *a, const float *b, const float *c, unsigned n,
                                                           float *out)
{
    unsigned i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(out + i, _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i),
                                                  _mm256_loadu_ps(c + i)));
    return i;
}
#endif

static void fma_vector_loop(const float *a, const float *b, const float *c, unsigned n, float *out)
{
    unsigned i = 0;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512f"))
        i = fma_x16(a, b, c, n, out);
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        i = fma_x8(a, b, c, n, out);
#endif
    for (; i < n; i++)
        out[i] = __builtin_fmaf(a[i], b[i], c[i]);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Host figures are the median of timed passes over the same items: on the
 * shared virtual machine this runs on, a neighbour's burst slows some
 * passes by a fifth to a third (one op's pipeline, five runs a second
 * apart: 39 to 47 M cases/s as a 0.3 s mean), and the median keeps the
 * code's own speed, dropping bursts both ways, where a mean takes them in. */
enum { MAX_PASSES = 1 << 16 };
static double pass_seconds[MAX_PASSES];

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *x, unsigned n)
{
    qsort(x, n, sizeof *x, by_value);
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* Items a second of the median of n passes (their seconds in x, sorted here), of `items` each. */
static double median_rate(double *x, unsigned n, uint64_t items) { return (double)items / median_of(x, n); }

static const char *op_kind(const isa_op *op)
{
    if (!strcmp(op->family, "mma"))
        return "tile";
    if (!strcmp(op->family, "maxwell"))
        return "maxwell";
    if (strstr(op->name, ".v_pk_"))
        return "packed";
    if (strstr(op->name, ".v_fma_mix"))
        return "mix";
    for (unsigned i = 0; i < op->n_in; i++)
        if (op->in[i].format == WORD_F16X2)
            return "f16";
    return "f32";
}

/* A rate as a field value: "-" when not measured (negative). */
static const char *rate(double r, char *buf)
{
    if (r < 0)
        return "-";
    snprintf(buf, 32, "%.0f", r);
    return buf;
}

typedef struct {
    const isa_instance *in;
    const uint32_t *words;
    uint32_t *out;
    unsigned count;
    float *operand[3];  /* each tuple's operands as fma_loop reads them (RUN_HW_VECTOR) */
} bench_set;

enum { RUN_FAST, RUN_BATCH, RUN_EXACT, RUN_HW_FMA, RUN_HW_VECTOR };

/* s->operand[] filled with what the scalar loops read: the words in the
 * op's operand order, the literal K where an RDNA 2 op takes one. */
static void unpack_operands(const bench_set *s)
{
    const isa_op *op = s->in->op;
    bool k_form = op->literal && op->n_in == 2 && !strcmp(op->family, "rdna2");
    for (unsigned i = 0; i < s->count; i++) {
        const uint32_t *t = s->words + (size_t)i * op->n_in;
        uint32_t w[3] = {t[0], t[op->n_in > 1 ? 1 : 0], t[op->n_in > 2 ? 2 : 0]};
        if (k_form) {
            uint32_t k = s->in->ctrl[op->literal->ctrl];
            bool k_is_b = op->src[1] == RDNA2_SRC_K;
            w[1] = k_is_b ? k : t[1];
            w[2] = k_is_b ? t[1] : k;
        }
        for (int j = 0; j < 3; j++)
            memcpy(&s->operand[j][i], &w[j], 4);
    }
}

static void run_once(const bench_set *s, int what)
{
    const isa_op *op = s->in->op;
    switch (what) {
    case RUN_FAST:
        for (unsigned i = 0; i < s->count; i++)
            op->impl->fast(s->in, s->words + (size_t)i * op->n_in, s->out + (size_t)i * op->n_out, NULL, 0);
        break;
    case RUN_BATCH:
        op->impl->fast_batch(s->in, s->words, s->count, s->out);
        break;
    case RUN_EXACT:
        for (unsigned i = 0; i < s->count; i++)
            op->impl->eval(s->in, s->words + (size_t)i * op->n_in, s->out + (size_t)i * op->n_out, NULL);
        break;
    case RUN_HW_FMA:
        if (op->literal && op->n_in == 2 && !strcmp(op->family, "rdna2"))
            fma_loop_k(s->words, s->count, s->in->ctrl[op->literal->ctrl], op->src[1] == RDNA2_SRC_K, s->out);
        else
            fma_loop(s->words, op->n_in, s->count, s->out);
        break;
    case RUN_HW_VECTOR:
        fma_vector_loop(s->operand[0], s->operand[1], s->operand[2], s->count, (float *)s->out);
        break;
    }
}

/* Tuples per second of `what` over the set, repeated for at least `seconds`
 * (after one untimed pass that warms the caches). */
static double timed(const bench_set *s, int what, double seconds)
{
    run_once(s, what);
    double start = now(), t = start;
    unsigned n = 0;
    do {
        double t0 = t;
        run_once(s, what);
        t = now();
        pass_seconds[n++] = t - t0;
    } while (t - start < seconds && n < MAX_PASSES);
    return median_rate(pass_seconds, n, s->count);
}

/* The pipeline figure of an op, measured in rounds: every op's pipeline
 * takes --seconds / PIPELINE_ROUNDS of passes a round, the ops in turn,
 * and the figure is the median of all its passes.  Each op's job (its
 * cases' words, outputs and reference outputs, about 3 MB at the default
 * --batch) is kept until the rounds end.  Timed in one window an
 * op at a time, a slow spell of this shared machine (a second or two at
 * 0.7 of the speed) fell on one op's window whole: v_fma_f32 read 34-37 M
 * cases/s in three of eight runs of scripts/bench and 43-48 in the other
 * five, v_fmac_f32 (the same form, next in the table) 44-47 in the first
 * three.  Spread over the table's time, a spell takes a like share of every
 * op's passes and the median leaves it out. */
enum {
    PIPELINE_ROUNDS = 10,
    PIPELINE_ROUND_PASSES = 2048,
    PIPELINE_PASSES_MAX = PIPELINE_ROUNDS * PIPELINE_ROUND_PASSES
};
typedef struct {
    isa_instance in;
    gen_class classes[GEN_CLASS_COUNT];
    unsigned n_classes, count;
    uint32_t *words, *out, *ref;  /* a pass's words and outputs; the reference pass's outputs */
    bool same;                    /* every pass gave the reference pass's outputs */
    double pass_seconds[PIPELINE_PASSES_MAX];
    unsigned passes;
} pipeline_job;

enum { PIPELINE_BASE = 1u << 20 };  /* the pipeline's cases are [2^20, 2^20 + count) */

/* A job for the op's pipeline, its reference pass made (a case at a time,
 * as eng_make_case makes it: same also holds the block path to it); NULL
 * when out of memory. */
static pipeline_job *pipeline_job_new(const isa_instance *in, const gen_class *classes, unsigned n_classes,
                                      unsigned count)
{
    pipeline_job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->in = *in;
    memcpy(j->classes, classes, n_classes * sizeof *classes);
    j->n_classes = n_classes, j->count = count, j->same = true;
    j->words = malloc((size_t)count * in->op->n_in * 4);
    j->out = malloc((size_t)count * in->op->n_out * 4);
    j->ref = malloc((size_t)count * in->op->n_out * 4);
    if (!j->words || !j->out || !j->ref) {
        free(j->words), free(j->out), free(j->ref), free(j);
        return NULL;
    }
    isa_verdict v;
    for (unsigned i = 0; i < count; i++)
        eng_make_case(in, 1, PIPELINE_BASE + i, classes, n_classes, j->words + (size_t)i * in->op->n_in,
                      j->ref + (size_t)i * in->op->n_out, &v);
    return j;
}

static void pipeline_job_free(pipeline_job *j)
{
    if (j)
        free(j->words), free(j->out), free(j->ref), free(j);
}

/* One pass of the job: the cases made again ISA_GENERATE_BLOCK at a time,
 * as a campaign's generation threads make them, and the outputs compared
 * with the reference's, as a campaign compares the host's with the
 * device's. */
static void pipeline_pass(pipeline_job *j)
{
    static isa_verdict vs[ISA_GENERATE_BLOCK];
    const isa_op *op = j->in.op;
    for (unsigned i = 0; i < j->count; i += ISA_GENERATE_BLOCK) {
        unsigned m = j->count - i < ISA_GENERATE_BLOCK ? j->count - i : ISA_GENERATE_BLOCK;
        eng_make_cases(&j->in, 1, PIPELINE_BASE + i, m, j->classes, j->n_classes, j->words + (size_t)i * op->n_in,
                       j->out + (size_t)i * op->n_out, vs);
    }
    j->same &= memcmp(j->out, j->ref, (size_t)j->count * op->n_out * 4) == 0;
}

/* One round of the job's passes: an untimed one first, as timed() makes
 * (the other ops' rounds in between leave this one's arrays out of the
 * caches), then at least one timed, for `seconds` in all, at most
 * PIPELINE_ROUND_PASSES (so each round has its share of the array). */
static void pipeline_round(pipeline_job *j, double seconds)
{
    unsigned end = j->passes + PIPELINE_ROUND_PASSES;
    if (end > PIPELINE_PASSES_MAX)
        end = PIPELINE_PASSES_MAX;
    pipeline_pass(j);
    double start = now(), t = start;
    while (j->passes < end) {
        double t0 = t;
        pipeline_pass(j);
        t = now();
        j->pass_seconds[j->passes++] = t - t0;
        if (t - start >= seconds)
            break;
    }
}

/* An op's line of the main table, kept until the pipeline rounds are done. */
typedef struct {
    const isa_op *op;
    const char *kind;
    unsigned count;
    double fast, fast_batch, exact, hwfma, hwvector, device, device_plain, device_awake;
    pipeline_job *pipeline;  /* NULL: no pipeline figure ("-") */
} op_line;

static void print_line(const op_line *L)
{
    char b[9][32];
    double pipeline = -1;
    const char *same = "-";  /* no pipeline measured: nothing compared */
    if (L->pipeline) {
        pipeline = median_rate(L->pipeline->pass_seconds, L->pipeline->passes, L->count);
        same = L->pipeline->same ? "1" : "0";
    }
    printf("op=%s kind=%s tuples=%u fast=%s batch=%s exact=%s hw=%s pipeline=%s device=%s same=%s hw_vector=%s "
           "device_plain=%s device_awake=%s\n",
           L->op->name, L->kind, L->count, rate(L->fast, b[0]), rate(L->fast_batch, b[1]), rate(L->exact, b[2]),
           rate(L->hwfma, b[3]), rate(pipeline, b[4]), rate(L->device, b[5]), same, rate(L->hwvector, b[6]),
           rate(L->device_plain, b[7]), rate(L->device_awake, b[8]));
}

/* ns a case of construction alone, class c, over fresh cases each pass. */
static double construct_ns(const isa_instance *in, gen_class c, uint32_t *words, unsigned count, double seconds)
{
    const isa_op *op = in->op;
    uint64_t done = 0;
    double t0 = now(), t1;
    do {
        for (unsigned i = 0; i < count; i++) {
            gen_rng r = gen_rng_for(1, (uint64_t)c, done + i);
            op->impl->construct(in, c, &r, words + (size_t)i * op->n_in);
        }
        done += count;
    } while ((t1 = now()) - t0 < seconds);
    return (t1 - t0) / (double)done * 1e9;
}

/* ns a case of the fast verdict (outputs and classes) of the built cases. */
static double verdict_ns(const isa_instance *in, gen_class c, const uint32_t *words, uint32_t *out, unsigned count,
                         double seconds)
{
    const isa_op *op = in->op;
    static isa_verdict v[1024];
    static uint32_t want[1024];
    for (unsigned i = 0; i < 1024; i++)
        want[i] = 1u << c;
    uint64_t done = 0;
    double t0 = now(), t1;
    do {
        /* Many at a time, as campaigns verify. */
        for (unsigned i = 0; i < count; i += 1024)
            isa_eval_fast_many(in, words + (size_t)i * op->n_in, count - i < 1024 ? count - i : 1024,
                               out + (size_t)i * op->n_out, want, v);
        done += count;
    } while ((t1 = now()) - t0 < seconds);
    return (t1 - t0) / (double)done * 1e9;
}

/* Attempts per case, as isa_generate_fast makes them. */
static double attempts(const isa_instance *in, gen_class c, uint32_t *words, uint32_t *out, unsigned count)
{
    uint64_t made = 0;
    isa_verdict v;
    for (unsigned i = 0; i < count; i++) {
        gen_rng r = gen_rng_for(1, (uint64_t)c, i);
        for (int a = 0; a < 4; a++) {
            bool reachable = in->op->impl->construct(in, c, &r, words);
            isa_eval_fast(in, words, out, 1u << c, &v);
            made++;
            if ((v.classes & (1u << c)) || !reachable)
                break;
        }
    }
    return (double)made / count;
}

/* ns a case of eng_make_cases for the first `blocks` blocks' instances of a
 * campaign: each pass visits every block, and a block's figure is its best
 * pass (back-to-back passes of one block, 10 ms in all, read the same
 * instance from 46 to 169 ns a case on this shared machine). */
static void per_block(const isa_op *op, const gen_class *classes, unsigned n, uint32_t *words, uint32_t *out,
                      unsigned count, unsigned blocks)
{
    enum { PASSES = 7 };
    static isa_verdict v[65536];
    if (count > 65536)
        count = 65536;
    isa_instance tmpl;
    isa_instance_default(&tmpl, op);
    isa_instance *in = malloc(blocks * sizeof *in);
    double *best = malloc(blocks * sizeof *best);
    if (!in || !best) {
        fprintf(stderr, "bench: out of memory\n");
        exit(4);
    }
    for (unsigned b = 0; b < blocks; b++) {
        eng_block_instance(&tmpl, false, false, 1, b, classes, n, &in[b]);
        best[b] = 1e30;
    }
    for (int pass = 0; pass < PASSES; pass++)
        for (unsigned b = 0; b < blocks; b++) {
            double t0 = now();
            eng_make_cases(&in[b], 1, (uint64_t)b * ENG_BLOCK, count, classes, n, words, out, v);
            double t = (now() - t0) / count * 1e9;
            best[b] = t < best[b] ? t : best[b];
        }
    for (unsigned b = 0; b < blocks; b++) {
        char ctrl[512];
        printf("block op=%s block=%u ns=%.1f ctrl=%s\n", op->name, b, best[b],
               isa_controls_text(&in[b], ctrl, sizeof ctrl));
    }
    free(in);
    free(best);
}

/* The pipeline of an instance's module, as a campaign makes it (its
 * literal K as the specialization constant); NULL with err. */
static vkr_pipeline *module_pipeline(vkd_device *dev, vkr_batch *batch, const isa_instance *in, const eng_module *m,
                                     char *err, size_t errn)
{
    uint32_t k = in->ctrl[CTRL_K];
    return vkr_pipeline_create(dev, batch, m->spv.words, m->spv.count, &k, in->op->ctrl_limit[CTRL_K] ? 1 : 0,
                               m->local_size, m->per_tuple, err, errn);
}

/* Tuples/s of p dispatched back to back on the count tuples already in the
 * batch, submit to fence, for at least `seconds` (0: one dispatch); -1
 * with err. */
static double dispatch_rate(vkd_device *dev, vkr_batch *batch, vkr_pipeline *p, unsigned count, double seconds,
                            char *err, size_t errn)
{
    unsigned long done = 0;
    double t0 = now(), t1;
    do {
        if (vkr_submit(dev, batch, p, count, err, errn) || vkr_wait(dev, batch, 60000, err, errn))
            return -1;
        done += count;
    } while ((t1 = now()) - t0 < seconds);
    return (double)done / (t1 - t0);
}

/* The device figure's readings of p (see the header): the cores as they
 * are, with every core kept awake (tests/awake.h: the reading can halve
 * where a core halts between dispatches, the spinners cost a little where
 * it does not, and either state can come and go), and as they are again;
 * *plain the higher of the first and last, so that neither reading always
 * comes first, *awake the middle one (-1 where the spinners could not
 * start, said on stderr).  0, or -1 with err where a dispatch failed. */
static int device_readings(vkd_device *dev, vkr_batch *batch, vkr_pipeline *p, unsigned count, double seconds,
                           const char *name, double *plain, double *awake, char *err, size_t errn)
{
    *awake = -1;
    double before = dispatch_rate(dev, batch, p, count, seconds, err, errn);
    if (before < 0)
        return -1;
    bench_awake *spinners = bench_awake_start(err, errn);
    if (spinners) {
        *awake = dispatch_rate(dev, batch, p, count, seconds, err, errn);
        bench_awake_stop(spinners);
        if (*awake < 0)
            return -1;
    } else {
        fprintf(stderr, "bench: %s: the device figure without the cores kept awake: %s\n", name, err);
    }
    double after = dispatch_rate(dev, batch, p, count, seconds, err, errn);
    if (after < 0)
        return -1;
    *plain = before > after ? before : after;
    return 0;
}

/* --wake-latency: a thread's wake-up on another core, the cores as they
 * are and kept awake (tests/awake.h), 2,000 rounds each. */
static int wake_latency(void)
{
    char err[256];
    double as_is[3], awake[3];
    if (bench_wake_latency(2000, as_is, err, sizeof err)) {
        fprintf(stderr, "bench: %s\n", err);
        return 3;
    }
    bench_awake *a = bench_awake_start(err, sizeof err);
    if (!a) {
        fprintf(stderr, "bench: %s\n", err);
        return 3;
    }
    int rc = bench_wake_latency(2000, awake, err, sizeof err);
    bench_awake_stop(a);
    if (rc) {
        fprintf(stderr, "bench: %s\n", err);
        return 3;
    }
    printf("wake p50_us=%.1f p90_us=%.1f p99_us=%.1f awake_p50_us=%.1f awake_p90_us=%.1f awake_p99_us=%.1f\n",
           as_is[0], as_is[1], as_is[2], awake[0], awake[1], awake[2]);
    return 0;
}

/* The driver's time for the schedule's rows (see --rows above); 0, or 3
 * with a message where the device failed. */
static int per_row(vkd_device *dev, vkr_batch *batch, isa_lowering l, const isa_op *op, unsigned want)
{
    enum { TUPLES = 1024 };
    isa_instance tmpl;
    isa_instance_default(&tmpl, op);
    eng_cover cov;
    eng_cover_make(&tmpl, 1, &cov);
    unsigned n = cov.rows < want ? cov.rows : want;
    double *t[4];
    for (int k = 0; k < 4; k++)
        if (!(t[k] = calloc(n ? n : 1, sizeof *t[k]))) {
            fprintf(stderr, "bench: out of memory\n");
            exit(4);
        }
    static char err[1 << 16];
    int status = 0;
    for (unsigned r = 0; r < n && !status; r++) {
        isa_instance in = tmpl;
        memcpy(in.ctrl, cov.ctrl[r], sizeof in.ctrl);
        eng_module m;
        double t0 = now();
        if (eng_module_build(&in, l, vkd_device_info(dev), &m, err, sizeof err)) {
            fprintf(stderr, "bench: %s row %u: %s\n", op->name, r, err);
            status = 3;
            break;
        }
        double t1 = now();
        vkr_pipeline *p = module_pipeline(dev, batch, &in, &m, err, sizeof err);
        double t2 = now(), t3 = t2;
        if (!p || vkr_submit(dev, batch, p, TUPLES, err, sizeof err) || vkr_wait(dev, batch, 60000, err, sizeof err) ||
            (t3 = now(), vkr_submit(dev, batch, p, TUPLES, err, sizeof err)) ||
            vkr_wait(dev, batch, 60000, err, sizeof err)) {
            fprintf(stderr, "bench: %s row %u: %s\n", op->name, r, err);
            status = 3;
        }
        double t4 = now();
        if (p)
            vkr_pipeline_destroy(dev, p);
        eng_module_free(&m);
        double ms[4] = {t1 - t0, t2 - t1, t3 - t2, t4 - t3};
        for (int j = 0; j < 4; j++)
            t[j][r] = ms[j] * 1e3;
    }
    if (!status) {
        if (n)
            printf("rows op=%s rows=%u timed=%u module_ms=%.3f create_ms=%.3f first_ms=%.3f second_ms=%.3f\n", op->name,
                   cov.rows, n, median_of(t[0], n), median_of(t[1], n), median_of(t[2], n), median_of(t[3], n));
        else
            printf("rows op=%s rows=0\n", op->name);
    }
    for (int k = 0; k < 4; k++)
        free(t[k]);
    eng_cover_free(&cov);
    return status;
}

/* --stages: where the batch path a campaign runs (eng_make_cases) spends a
 * case, best of five passes over `count` cases of the op's plain instance
 * whose classes cycle over classes[0..n): the cases' streams and classes
 * (seed), their designs a block at a time (impl->construct_many, as
 * isa_generate_fast_many makes them), the verdicts and outputs of what was
 * built (isa_eval_fast_many), and the whole (eng_make_cases, which rebuilds
 * the misses too: "rest" is the whole less the three). */
static void stage_line(const isa_op *op, const char *label, const gen_class *classes, unsigned n, uint32_t *words,
                       uint32_t *out, unsigned count)
{
    enum { BLOCK = ISA_GENERATE_BLOCK, PASSES = 5 };
    isa_instance in;
    isa_instance_default(&in, op);
    gen_rng *r = malloc(sizeof *r * count);
    gen_class *c = malloc(sizeof *c * count);
    uint32_t *want = malloc(sizeof *want * count);
    isa_verdict *v = malloc(sizeof *v * count);
    bool *reach = malloc(count);
    if (!r || !c || !want || !v || !reach) {
        fprintf(stderr, "bench: out of memory\n");
        exit(4);
    }
    const uint64_t first = 1u << 20, stream = 0x7374616765ull;
    double best[4] = {1e30, 1e30, 1e30, 1e30};
    for (int pass = 0; pass < PASSES; pass++) {
        double t0 = now();
        gen_rngs_for(1, stream, first, count, r);
        eng_case_classes(first, count, classes, n, c);
        double t1 = now();
        for (unsigned i = 0; i < count; i += BLOCK) {
            unsigned m = count - i < BLOCK ? count - i : BLOCK;
            uint32_t *w = words + (size_t)i * op->n_in;
            if (op->impl->construct_many)
                op->impl->construct_many(&in, c + i, r + i, m, w, reach + i);
            else
                for (unsigned t = 0; t < m; t++)
                    reach[i + t] = op->impl->construct(&in, c[i + t], &r[i + t], w + (size_t)t * op->n_in);
        }
        double t2 = now();
        for (unsigned i = 0; i < count; i++)
            want[i] = 1u << c[i];
        for (unsigned i = 0; i < count; i += BLOCK) {
            unsigned m = count - i < BLOCK ? count - i : BLOCK;
            isa_eval_fast_many(&in, words + (size_t)i * op->n_in, m, out + (size_t)i * op->n_out, want + i, v + i);
        }
        double t3 = now();
        for (unsigned i = 0; i < count; i += BLOCK)
            eng_make_cases(&in, 1, first + i, count - i < BLOCK ? count - i : BLOCK, classes, n,
                           words + (size_t)i * op->n_in, out + (size_t)i * op->n_out, v + i);
        double t4 = now(), d[4] = {t1 - t0, t2 - t1, t3 - t2, t4 - t3};
        for (int k = 0; k < 4; k++)
            if (d[k] < best[k])
                best[k] = d[k];
    }
    double ns[4];
    for (int k = 0; k < 4; k++)
        ns[k] = best[k] / count * 1e9;
    printf("stages op=%s class=%s seed_ns=%.1f construct_ns=%.1f verdict_ns=%.1f rest_ns=%.1f whole_ns=%.1f\n", op->name,
           label, ns[0], ns[1], ns[2], ns[3] - ns[0] - ns[1] - ns[2], ns[3]);
    free(r), free(c), free(want), free(v), free(reach);
}

static void per_stage(const isa_op *op, const gen_class *classes, unsigned n, uint32_t *words, uint32_t *out,
                      unsigned count)
{
    stage_line(op, "all", classes, n, words, out, count);
    for (unsigned k = 0; k < n; k++)
        stage_line(op, gen_class_name(classes[k]), &classes[k], 1, words, out, count);
}

static void per_class(const isa_op *op, const gen_class *classes, unsigned n, uint32_t *words, uint32_t *out,
                      unsigned count, double seconds)
{
    isa_instance in;
    isa_instance_default(&in, op);
    for (unsigned k = 0; k < n; k++) {
        gen_class c = classes[k];
        double cn = construct_ns(&in, c, words, count, seconds);
        double vn = verdict_ns(&in, c, words, out, count, seconds);
        printf("class op=%s class=%s construct_ns=%.1f verdict_ns=%.1f attempts=%.3f\n", op->name, gen_class_name(c), cn,
               vn, attempts(&in, c, words, out, count));
    }
}

int main(int argc, char **argv)
{
    isa_lowering l = LOWERING_DIRECT;
    unsigned batch_size = 65536;
    double seconds = 0.3;
    bool device_too = true, by_class = false, device_only = false, wake = false, by_stage = false;
    unsigned blocks = 0, rows = 0;
    const char *globs[32] = {0};
    unsigned n_globs = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--lowering") && i + 1 < argc) {
            int v = isa_lowering_parse(argv[++i]);
            if (v < 0) {
                fprintf(stderr, "bench: unknown lowering %s\n", argv[i]);
                return 2;
            }
            l = (isa_lowering)v;
        } else if (!strcmp(argv[i], "--batch") && i + 1 < argc)
            batch_size = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--no-device"))
            device_too = false;
        else if (!strcmp(argv[i], "--device-only"))
            device_only = true;
        else if (!strcmp(argv[i], "--per-class"))
            by_class = true;
        else if (!strcmp(argv[i], "--wake-latency"))
            wake = true;
        else if (!strcmp(argv[i], "--stages"))
            by_stage = true;
        else if (!strcmp(argv[i], "--per-block") && i + 1 < argc) {
            int b = atoi(argv[++i]);
            if (b < 1 || b > 4096) {
                fprintf(stderr, "bench: --per-block %s: want 1 to 4096 blocks\n", argv[i]);
                return 2;
            }
            blocks = (unsigned)b;
        } else if (!strcmp(argv[i], "--rows") && i + 1 < argc) {
            int r = atoi(argv[++i]);
            if (r < 1 || r > (int)ENG_COVER_MAX_ROWS) {
                fprintf(stderr, "bench: --rows %s: want 1 to %u rows\n", argv[i], ENG_COVER_MAX_ROWS);
                return 2;
            }
            rows = (unsigned)r;
        } else if (n_globs < 32)
            globs[n_globs++] = argv[i];
    }
    if ((by_class != 0) + (blocks != 0) + (rows != 0) + (wake != 0) + (device_only != 0) + (by_stage != 0) > 1) {
        fprintf(stderr, "bench: --per-class, --per-block, --rows, --stages, --wake-latency and --device-only: one at "
                        "a time\n");
        return 2;
    }
    if (wake)
        return wake_latency();
    if (device_only && !device_too) {
        fprintf(stderr, "bench: --device-only is the main table's device figure alone: not with --no-device\n");
        return 2;
    }
    if (rows && !device_too) {
        fprintf(stderr, "bench: --rows times the device's pipelines: not with --no-device\n");
        return 2;
    }
    if (batch_size == 0 || seconds <= 0) {
        fprintf(stderr, "bench: --batch and --seconds must be positive\n");
        return 2;
    }
    const isa_op *ops[ENG_MAX_OPS];
    const char *bad;
    int n = eng_select_ops(globs, n_globs, ops, ENG_MAX_OPS, &bad);
    if (n < 0) {
        fprintf(stderr, "bench: no op matches %s\n", bad);
        return 2;
    }
    static char err[1 << 16];
    vkd_device *dev = NULL;
    vkr_batch *batch = NULL;
    if (device_too) {
        dev = vkd_open(NULL, false, err, sizeof err);
        if (!dev) {
            fprintf(stderr, "bench: %s\n", err);
            return 3;
        }
        batch = vkr_batch_create(dev, (size_t)batch_size * 8, (size_t)batch_size * 2, err, sizeof err);
        if (!batch) {
            fprintf(stderr, "bench: %s\n", err);
            return 3;
        }
    }
    gen_class all[GEN_CLASS_COUNT];
    for (int c = 0; c < GEN_CLASS_COUNT; c++)
        all[c] = (gen_class)c;
    size_t in_words = (size_t)batch_size * 8, out_words = (size_t)batch_size * 2;
    uint32_t *words = malloc(in_words * 4), *out = malloc(out_words * 4);
    float *operands = malloc((size_t)batch_size * 3 * sizeof *operands);
    if (!words || !out || !operands) {
        fprintf(stderr, "bench: out of memory\n");
        return 4;
    }
    bool hw = __builtin_cpu_supports("fma");
    printf("# device %s; lowering %s; batch %u; %.2f s of passes per host figure (the median pass)\n",
           dev ? vkd_device_info(dev)->name : "none", isa_lowering_name(l), batch_size, seconds);
    printf("# hw: %s\n", hw ? "the FMA instruction (__builtin_fmaf, target fma)"
                            : "libm fmaf (this CPU has no FMA instruction)");
    static op_line lines[ENG_MAX_OPS];
    int n_lines = 0;
    for (int o = 0; o < n; o++) {
        const isa_op *op = ops[o];
        if (!op->translated)
            continue;
        const char *kind = op_kind(op);
        isa_instance in;
        isa_instance_default(&in, op);
        gen_class mine[GEN_CLASS_COUNT];  /* the op's own classes, cycled as a campaign does */
        unsigned n_mine = isa_op_classes(op, all, GEN_CLASS_COUNT, mine);
        isa_verdict v;
        /* As many tuples as the campaign's batch holds (tiles are large). */
        unsigned count = (unsigned)(in_words / op->n_in);
        if (out_words / op->n_out < count)
            count = (unsigned)(out_words / op->n_out);
        if (count > batch_size)
            count = batch_size;
        if (by_class) {
            per_class(op, mine, n_mine, words, out, count, seconds);
            continue;
        }
        if (by_stage) {
            per_stage(op, mine, n_mine, words, out, count);
            continue;
        }
        if (blocks) {
            per_block(op, mine, n_mine, words, out, count, blocks);
            continue;
        }
        if (rows) {
            if (per_row(dev, batch, l, op, rows))
                return 3;
            continue;
        }
        for (unsigned i = 0; i < count; i++)
            eng_make_case(&in, 1, i, mine, n_mine, words + (size_t)i * op->n_in, out + (size_t)i * op->n_out, &v);
        bench_set s = {&in, words, out, count, {operands, operands + batch_size, operands + 2 * (size_t)batch_size}};
        op_line *L = &lines[n_lines];  /* "-" (negative) for a figure not measured */
        *L = (op_line){.op = op, .kind = kind, .count = count, .fast = -1, .fast_batch = -1, .exact = -1,
                       .hwfma = -1, .hwvector = -1, .device = -1, .device_plain = -1, .device_awake = -1};
        if (!device_only) {  /* the host figures */
            if (op->impl->fast)
                L->fast = timed(&s, RUN_FAST, seconds);
            if (op->impl->fast_batch)
                L->fast_batch = timed(&s, RUN_BATCH, seconds);
            L->exact = timed(&s, RUN_EXACT, seconds);
            if (strcmp(kind, "tile")) {
                L->hwfma = timed(&s, RUN_HW_FMA, seconds);
                unpack_operands(&s);
                L->hwvector = timed(&s, RUN_HW_VECTOR, seconds);
            }

            /* The pipeline: its reference pass now, its timed passes in
             * rounds once every op's other figures are in. */
            if (!(L->pipeline = pipeline_job_new(&in, mine, n_mine, count))) {
                fprintf(stderr, "bench: out of memory\n");
                return 4;
            }
        }

        /* Device: the same module the campaign uses, dispatched back to back,
         * on the tuples of the host figures. */
        eng_module m;
        vkr_pipeline *p = NULL;
        if (dev && eng_module_build(&in, l, vkd_device_info(dev), &m, err, sizeof err) == 0) {
            unsigned cap = vkr_batch_capacity(batch, op->n_in, op->n_out);
            unsigned dcount = count < cap ? count : cap;
            p = module_pipeline(dev, batch, &in, &m, err, sizeof err);
            if (p) {
                memcpy(vkr_batch_input(batch), words, (size_t)dcount * op->n_in * 4);
                /* Warm-up (the pipeline compiles here), then the readings. */
                if (dispatch_rate(dev, batch, p, dcount, 0, err, sizeof err) < 0 ||
                    device_readings(dev, batch, p, dcount, seconds, op->name, &L->device_plain, &L->device_awake,
                                    err, sizeof err)) {
                    fprintf(stderr, "bench: %s: %s\n", op->name, err);
                    return 3;
                }
                L->device = L->device_plain > L->device_awake ? L->device_plain : L->device_awake;
                vkr_pipeline_destroy(dev, p);
            } else
                fprintf(stderr, "bench: %s: %s\n", op->name, err);
            eng_module_free(&m);
        } else if (dev)
            fprintf(stderr, "bench: %s: %s\n", op->name, err);
        n_lines++;
    }
    unsigned timed_ops = 0, passes = 0;
    for (int r = 0; r < PIPELINE_ROUNDS; r++)
        for (int i = 0; i < n_lines; i++)
            if (lines[i].pipeline)
                pipeline_round(lines[i].pipeline, seconds / PIPELINE_ROUNDS);
    for (int i = 0; i < n_lines; i++)
        if (lines[i].pipeline)
            timed_ops++, passes += lines[i].pipeline->passes;
    if (timed_ops)
        printf("# pipeline: %d rounds of %.3f s an op, the %u ops in turn, %u passes in all; each op's figure the "
               "median of its passes\n",
               PIPELINE_ROUNDS, seconds / PIPELINE_ROUNDS, timed_ops, passes);
    for (int i = 0; i < n_lines; i++) {
        print_line(&lines[i]);
        pipeline_job_free(lines[i].pipeline);
    }
    fflush(stdout);
    if (dev) {
        vkr_batch_destroy(dev, batch);
        vkd_close(dev);
    }
    free(words);
    free(out);
    free(operands);
    return 0;
}
