/* Generates N cases of each op named, as a campaign's generation threads
 * do (eng_make_cases, 1,024 a call, every class of the op cycled, the
 * default controls' block instances), and prints a checksum of the
 * outputs.  Not a test: scripts/bench-compare --instructions runs it under
 * callgrind, for N and for 0, to count the instructions a generated case
 * costs; a count does not drift with the machine's speed as a time does.
 * It uses only the engine's public calls, so bench-compare builds this same
 * file against an earlier revision's libraries.
 * Usage: gen_count N OP... */
#include <stdio.h>
#include <stdlib.h>
#include "engine/plan.h"
#include "isa/classify.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: gen_count N OP...\n");
        return 2;
    }
    unsigned long n = strtoul(argv[1], NULL, 10);
    uint32_t sum = 0;
    static uint32_t words[1024 * ISA_MAX_IN], out[1024 * ISA_MAX_OUT];
    static isa_verdict v[1024];
    gen_class all[GEN_CLASS_COUNT], mine[GEN_CLASS_COUNT];
    for (int c = 0; c < GEN_CLASS_COUNT; c++)
        all[c] = (gen_class)c;
    for (int a = 2; a < argc; a++) {
        const isa_op *op = isa_op_find(argv[a]);
        if (!op) {
            fprintf(stderr, "gen_count: no op %s\n", argv[a]);
            return 2;
        }
        isa_instance tmpl, in;
        isa_instance_default(&tmpl, op);
        unsigned nm = isa_op_classes(op, all, GEN_CLASS_COUNT, mine);
        for (unsigned long first = 0; first < n; first += 1024) {
            unsigned count = n - first < 1024 ? (unsigned)(n - first) : 1024;
            eng_block_instance(&tmpl, false, false, 1, first / 2048, mine, nm, &in);
            eng_make_cases(&in, 1, first, count, mine, nm, words, out, v);
            for (unsigned i = 0; i < count * op->n_out; i++)
                sum = sum * 31 + out[i];
        }
    }
    printf("%08x\n", sum);
    return 0;
}
