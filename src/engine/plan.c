/* engine/plan: what a campaign will run, decided before any device opens:
 * the options' defaults, the ops a run selects and their templates, which
 * case indices this process owns (--shard, --jobs), the instance of each
 * block of cases and case i itself.  Everything here depends on the seed,
 * the op and the index only, never on the batch size or the split. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "plan.h"
#include "isa/classify.h"

double eng_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

double eng_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void eng_options_default(eng_options *o)
{
    memset(o, 0, sizeof *o);
    o->lowering = LOWERING_DIRECT;
    for (int i = 0; i < GEN_CLASS_COUNT; i++)
        o->classes[i] = (gen_class)i;
    o->n_classes = GEN_CLASS_COUNT;
    o->seed = 1;
    o->seconds = 60;
    o->batch = 65536;
    o->timeout_ms = 20000;
    o->keep = 100;
    o->show = 1;
    o->audit = ENG_DEFAULT_AUDIT;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = cpus < 1 ? 1 : cpus > 16 ? 16 : (unsigned)cpus;
    o->findings_dir = "findings";
    o->minimize = true;
}

const char *eng_default_corpus_dir(const char *sub, char *buf, size_t n)
{
    snprintf(buf, n, "corpus/%s", sub);
    struct stat st;
    if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
        return buf;
#ifdef TIEFUZZ_SOURCE_DIR
    snprintf(buf, n, "%s/corpus/%s", TIEFUZZ_SOURCE_DIR, sub);
#endif
    return buf;
}

const char *eng_default_known_dir(void)
{
    static char path[1024];
    return eng_default_corpus_dir("known", path, sizeof path);
}

int eng_select_ops(const char *const *globs, unsigned n, const isa_op **out, unsigned max, const char **bad)
{
    unsigned count = 0;
    for (unsigned i = 0; i < isa_op_count() && count < max; i++) {
        const isa_op *op = isa_op_at(i);
        bool take = n == 0 && op->translated;
        for (unsigned g = 0; g < n; g++)
            if (isa_glob_match(globs[g], op->name) || (strchr(op->name, '.') && isa_glob_match(globs[g], strchr(op->name, '.') + 1)))
                take = true;
        if (take)
            out[count++] = op;
    }
    for (unsigned g = 0; g < n; g++) {
        bool any = false;
        for (unsigned i = 0; i < count; i++)
            if (isa_glob_match(globs[g], out[i]->name) ||
                (strchr(out[i]->name, '.') && isa_glob_match(globs[g], strchr(out[i]->name, '.') + 1)))
                any = true;
        if (!any) {
            *bad = globs[g];
            return -1;
        }
    }
    return (int)count;
}

/* The op's random stream, a hash of its name: remembered per thread, since
 * hashing the name for every case cost a tenth of generating it. */
static uint64_t op_stream(const isa_op *op)
{
    static _Thread_local const isa_op *last;
    static _Thread_local uint64_t hash;
    if (op != last) {
        hash = XXH64(op->name, strlen(op->name), 0);
        last = op;
    }
    return hash;
}

void eng_drawn_instance(const isa_instance *tmpl, bool fixed_ctrl, bool fixed_k, uint64_t seed, uint64_t draw,
                        const gen_class *classes, unsigned n_classes, isa_instance *out)
{
    *out = *tmpl;
    gen_rng r = gen_rng_for(seed, op_stream(tmpl->op) ^ 0x636f6e74726f6cull, draw);
    /* Draw 0 is the plain encoding; later draws fuzz the controls half the time. */
    if (!fixed_ctrl && draw > 0 && gen_coin(&r)) {
        isa_random_controls(out, &r);
        /* Families with classes that need particular controls may set them. */
        if (tmpl->op->impl->controls_for) {
            isa_instance fuzzed = *out;
            uint32_t wanted = 0;
            for (unsigned i = 0; i < n_classes; i++)
                wanted |= 1u << classes[i];
            tmpl->op->impl->controls_for(out, wanted, &r);
            if (isa_instance_check(out))
                *out = fuzzed;
        }
    }
    /* An ordinary normal K in draw 0 and mostly after, with which every
     * class can be aimed; sometimes one drawn for a requested class
     * (special, subnormal...). */
    if (!fixed_k && tmpl->op->literal)
        isa_literal_set(out, isa_literal_draw(tmpl->op, draw == 0 || gen_below(&r, 8) ? GEN_TIE : classes[gen_below(&r, n_classes)], &r));
}

/* floor(sqrt(b)), exact for every 64-bit b (the double's estimate corrected). */
static uint64_t isqrt(uint64_t b)
{
    uint64_t s = (uint64_t)__builtin_sqrt((double)b);
    while (s && s > b / s)
        s--;
    while ((s + 1) <= b / (s + 1))
        s++;
    return s;
}

uint64_t eng_block_draws(uint64_t block) { return 1 + isqrt(block); }

void eng_block_instance(const isa_instance *tmpl, bool fixed_ctrl, bool fixed_k, uint64_t seed, uint64_t block,
                        const gen_class *classes, unsigned n_classes, isa_instance *out)
{
    uint64_t draw = 0;
    if (block > 0) {
        gen_rng r = gen_rng_for(seed, op_stream(tmpl->op) ^ 0x706f6f6cull, block);
        draw = 1 + gen_below(&r, (uint32_t)eng_block_draws(block));
    }
    eng_drawn_instance(tmpl, fixed_ctrl, fixed_k, seed, draw, classes, n_classes, out);
}

uint32_t eng_make_case(const isa_instance *in, uint64_t seed, uint64_t index, const gen_class *classes,
                       unsigned n_classes, uint32_t *words, uint32_t *host, isa_verdict *verdict)
{
    gen_rng r = gen_rng_for(seed, op_stream(in->op), index);
    return isa_generate_fast(in, eng_case_class(index, classes, n_classes), &r, words, host, verdict);
}

/* The classes cycle with the case index: one period from first's place
 * in it, then the period doubled by copies (stepped a case at a time, with
 * its wrap, about a quarter of eng_make_cases's own time in a
 * maxwell.imul_imm16 campaign, perf). */
void eng_case_classes(uint64_t first, unsigned m, const gen_class *classes, unsigned n_classes, gen_class *c)
{
    unsigned at = (unsigned)(first % n_classes), have = m < n_classes - at ? m : n_classes - at;
    memcpy(c, classes + at, have * sizeof *c);
    if (have < m) {
        unsigned wrap = m - have < at ? m - have : at;
        memcpy(c + have, classes, wrap * sizeof *c);
        have += wrap;
    }
    for (; have < m; have *= 2)  /* have is a whole number of periods here */
        memcpy(c + have, c, (m - have < have ? m - have : have) * sizeof *c);
}

void eng_make_cases(const isa_instance *in, uint64_t seed, uint64_t first, unsigned n, const gen_class *classes,
                    unsigned n_classes, uint32_t *words, uint32_t *host, isa_verdict *verdicts)
{
    enum { BLOCK = ISA_GENERATE_BLOCK };  /* isa_generate_fast_many's own block: its designs go a class at a time */
    gen_rng r[BLOCK];
    gen_class c[BLOCK];
    uint64_t stream = op_stream(in->op);
    for (unsigned done = 0; done < n; done += BLOCK) {
        unsigned m = n - done < BLOCK ? n - done : BLOCK;
        gen_rngs_for(seed, stream, first + done, m, r);
        eng_case_classes(first + done, m, classes, n_classes, c);
        isa_generate_fast_many(in, c, r, m, words + (size_t)done * in->op->n_in, host + (size_t)done * in->op->n_out,
                               verdicts + done);
    }
}

uint64_t eng_next_owned(const eng_options *o, uint64_t i)
{
    for (;;) {
        uint64_t block = i / ENG_BLOCK;
        if (o->shards > 1 && block % o->shards != o->shard) {
            i = (block + (o->shard + o->shards - block % o->shards) % o->shards) * ENG_BLOCK;
            continue;
        }
        if (o->n_jobs <= 1)
            return i;
        /* Number the chunks of this shard's blocks in order; a job takes every n_jobs-th. */
        uint64_t local_block = o->shards > 1 ? block / o->shards : block;
        uint64_t chunk = local_block * (ENG_BLOCK / ENG_CHUNK) + (i % ENG_BLOCK) / ENG_CHUNK;
        if (chunk % o->n_jobs == o->job)
            return i;
        i = (i / ENG_CHUNK + 1) * ENG_CHUNK;
    }
}

/* --json is written at the end, atomically (a temporary file in its
 * directory, then a rename): say before the campaign if that cannot work. */
static bool json_path_writable(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "tiefuzz run: --json %s: is a directory\n", path);
        return false;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "tiefuzz run: --json %s: cannot write in %s: %s\n", path, dir, strerror(errno));
        return false;
    }
    return true;
}

int eng_prepare(const eng_options *o, const isa_op **ops, isa_instance **tmpl_out, unsigned *usable_out)
{
    const char *bad = NULL;
    int n = eng_select_ops(o->globs, o->n_globs, ops, ENG_MAX_OPS, &bad);
    if (n < 0) {
        fprintf(stderr, "tiefuzz run: no op matches '%s' (see 'tiefuzz ops')\n", bad);
        return -EXIT_USAGE;
    }
    if (o->shader_path && n != 1) {
        fprintf(stderr, "tiefuzz run: --shader needs exactly one op; %d match\n", n);
        return -EXIT_USAGE;
    }
    if (o->json_path && !json_path_writable(o->json_path))
        return -EXIT_USAGE;
    isa_instance *tmpl = calloc((size_t)n, sizeof *tmpl);
    unsigned usable = 0;
    for (int i = 0; i < n; i++) {
        static const char *const flags[2] = {"--ctrl", "--param"};
        char err[600];
        if (isa_instance_from_text(ops[i], o->ctrl_text, o->param_text, flags, &tmpl[i], err, sizeof err)) {
            fprintf(stderr, "tiefuzz run: %s\n", err);
            free(tmpl);
            return -EXIT_USAGE;
        }
        if (ops[i]->translated)
            usable++;
    }
    if (!usable) {
        fprintf(stderr, "tiefuzz run: %s is not translated (see doc/translation.md): nothing to run on a device; "
                "'tiefuzz eval' has its host model\n", ops[0]->name);
        free(tmpl);
        return -EXIT_USAGE;
    }
    *tmpl_out = tmpl;
    *usable_out = usable;
    return n;
}

int eng_check_run(const eng_options *o, const isa_op *ops[ENG_MAX_OPS])
{
    isa_instance *tmpl;
    unsigned usable;
    int n = eng_prepare(o, ops, &tmpl, &usable);
    if (n > 0)
        free(tmpl);
    return n;
}

