/* The fast verdicts with every class wanted, against the exact model's.
 * selftest asks each case for its own class only, so a test that runs only
 * when its class is wanted (the double-round one) never meets the cases of
 * other classes there: an exact tie, for which both roundings of the
 * double-round test are ties.  Here every floating-point op with a fast
 * path builds cases of each of its classes (default controls; every
 * eighth block with controls fuzzed, and every eighth with the op's model
 * parameters drawn: the MIX forms' rounding, V_DIV_FMAS's scale and order,
 * omod's, each of which picks its own fast path) and has isa_eval_fast_many and
 * isa_eval_exact judge them with all classes wanted: the outputs and
 * verdicts must be the same.
 * TIEFUZZ_VERDICT_CASES sets the cases per op and class (default 4,096). */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fp/fast.h"
#include "gen/gen.h"
#include "isa/classify.h"

enum { BLOCK = 256 };

/* Each model parameter of the op a random legal value (as selftest draws them). */
static void random_params(isa_instance *in, gen_rng *r)
{
    for (int p = 0; p < PARAM_COUNT; p++) {
        if (!(in->op->params & (1u << p)))
            continue;
        const isa_param_desc *d = &isa_params[p];
        in->param[p] = d->integer ? gen_range(r, d->lo, d->hi) : (int32_t)gen_below(r, d->count);
    }
}

static unsigned long compare_block(const isa_instance *in, const uint32_t *words, size_t m)
{
    const isa_op *op = in->op;
    static uint32_t fast_out[BLOCK * ISA_MAX_OUT], want[BLOCK];
    static isa_verdict fast[BLOCK];
    for (size_t t = 0; t < m; t++)
        want[t] = GEN_FLOAT_CLASSES;
    isa_eval_fast_many(in, words, m, fast_out, want, fast);
    unsigned long differ = 0;
    for (size_t t = 0; t < m; t++) {
        uint32_t exact_out[ISA_MAX_OUT];
        isa_verdict exact;
        isa_eval_exact(in, words + t * op->n_in, exact_out, GEN_FLOAT_CLASSES, &exact);
        bool same = !memcmp(exact_out, fast_out + t * op->n_out, op->n_out * 4) && isa_verdict_equal(&exact, &fast[t]);
        if (!same && differ++ < 3)
            CHECK(0, "%s: tuple %08x %08x %08x: classes %#x (fast) vs %#x (exact), at the result %#x vs %#x",
                  op->name, words[t * op->n_in], words[t * op->n_in + 1], words[t * op->n_in + 2], fast[t].classes,
                  exact.classes, fast[t].at_result, exact.at_result);
    }
    return differ;
}

int main(void)
{
    const char *env = getenv("TIEFUZZ_VERDICT_CASES");
    unsigned long per_class = env ? strtoul(env, NULL, 10) : 4096, ops = 0, total = 0, differ = 0;
    static uint32_t words[BLOCK * ISA_MAX_IN], out[BLOCK * ISA_MAX_OUT];
    static isa_verdict v[BLOCK];
    for (unsigned k = 0; k < isa_op_count(); k++) {
        const isa_op *op = isa_op_at(k);
        uint32_t classes = op->classes ? op->classes : GEN_FLOAT_CLASSES;
        if (!isa_has_fast(op) || op->n_in > 8 || (classes & ~GEN_FLOAT_CLASSES))
            continue;  /* the floating-point ops (their verdicts are the classifier's) */
        ops++;
        for (int c = 0; c < GEN_CLASS_COUNT; c++) {
            if (!(classes & (1u << c)))
                continue;
            for (unsigned long first = 0; first < per_class; first += BLOCK) {
                size_t m = per_class - first < BLOCK ? per_class - first : BLOCK;
                isa_instance in;
                isa_instance_default(&in, op);
                gen_rng r = gen_rng_for(7, (uint64_t)k << 8 | (uint64_t)c, first);
                if ((first / BLOCK) % 8 == 7)
                    isa_random_controls(&in, &r);
                if ((first / BLOCK) % 8 == 3)
                    random_params(&in, &r);
                gen_rng rng[BLOCK];
                gen_class cls[BLOCK];
                for (size_t t = 0; t < m; t++) {
                    rng[t] = gen_rng_for(7, (uint64_t)k << 8 | (uint64_t)c, 1000000 + first + t);
                    cls[t] = (gen_class)c;
                }
                isa_generate_fast_many(&in, cls, rng, m, words, out, v);
                differ += compare_block(&in, words, m);
                total += m;
            }
        }
    }
    /* Which lane build ran (src/fp/lanes.h): the -narrow run must have had
     * the four-lane one, and a host with AVX-512 runs the eight-lane one
     * otherwise, or the two runs test one build twice. */
    const char *lanes = getenv("TIEFUZZ_LANES");
    bool narrow = lanes && strcmp(lanes, "narrow") == 0;
    bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                  __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                  __builtin_cpu_supports("avx512cd");
    CHECK(fp_lanes_wide() == (avx512 && !narrow), "lane build: %s, expected %s", fp_lanes_wide() ? "wide" : "narrow",
          avx512 && !narrow ? "wide" : "narrow");
    printf("lane build: %s\n", fp_lanes_wide() ? "eight lanes (AVX-512)" : "four lanes");
    CHECK(ops >= 16, "only %lu floating-point ops with a fast path compared", ops);
    CHECK(differ == 0, "%lu of %lu cases: the fast verdict with every class wanted is not the exact one", differ, total);
    printf("fast verdicts with every class wanted: %lu ops, %lu cases, %lu differ\n", ops, total, differ);
    return check_report("test_fast_verdicts");
}
