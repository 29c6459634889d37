/* Generates N cases of each op named, as a campaign's generation threads
 * do (eng_make_cases, 1,024 a call, every class of the op cycled, the
 * default controls' block instances), and prints a checksum of the
 * outputs and verdicts (classes, at_result, tie exponent, cells).  Not a
 * test: scripts/bench-compare --instructions runs it under callgrind, for
 * N and for 0, to count the instructions a generated case costs; a count
 * does not drift with the machine's speed as a time does.
 * It uses only the engine's public calls, so bench-compare builds this same
 * file against an earlier revision's libraries.
 * TIEFUZZ_GEN_CLASS=NAME makes every case of that one class instead, and
 * the time a case took (wall clock, ns) goes to stderr: to time one class
 * of two builds side by side.
 * TIEFUZZ_GEN_PLAIN=1 keeps every block at the op's default instance (the
 * plain encoding, as bench_rdna2's pipeline figure) instead of the default
 * controls' block instances: to tell a control's cost from the class's.
 * Usage: gen_count N OP... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/options.h"
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
    /* TIEFUZZ_GEN_CLASS: the op's classes asked for are that one alone. */
    const char *one = getenv("TIEFUZZ_GEN_CLASS");
    int only = one ? gen_class_parse(one) : -1;
    if (one && only < 0) {
        fprintf(stderr, "gen_count: TIEFUZZ_GEN_CLASS: no class %s\n", one);
        return 2;
    }
    gen_class wanted = (gen_class)(only < 0 ? 0 : only);
    const char *plain_env = getenv("TIEFUZZ_GEN_PLAIN");
    bool plain = plain_env && *plain_env && strcmp(plain_env, "0") != 0;
    double started = eng_now();
    for (int a = 2; a < argc; a++) {
        const isa_op *op = isa_op_find(argv[a]);
        if (!op) {
            fprintf(stderr, "gen_count: no op %s\n", argv[a]);
            return 2;
        }
        isa_instance tmpl, in;
        isa_instance_default(&tmpl, op);
        unsigned nm = one ? isa_op_classes(op, &wanted, 1, mine) : isa_op_classes(op, all, GEN_CLASS_COUNT, mine);
        if (!nm) {
            fprintf(stderr, "gen_count: %s has no class %s\n", op->name, one);
            return 2;
        }
        for (unsigned long first = 0; first < n; first += 1024) {
            unsigned count = n - first < 1024 ? (unsigned)(n - first) : 1024;
            if (plain)
                in = tmpl;
            else
                eng_block_instance(&tmpl, false, false, 1, first / 2048, mine, nm, &in);
            eng_make_cases(&in, 1, first, count, mine, nm, words, out, v);
            for (unsigned i = 0; i < count * op->n_out; i++)
                sum = sum * 31 + out[i];
            for (unsigned i = 0; i < count; i++) {
                sum = sum * 31 + v[i].classes;
                sum = sum * 31 + v[i].at_result;
                sum = sum * 31 + (uint32_t)v[i].tie_exp;
                for (int k = 0; k < ISA_CELL_WORDS; k++) {  /* both halves: no two cells fold together */
                    sum = sum * 31 + (uint32_t)v[i].cells[k];
                    sum = sum * 31 + (uint32_t)(v[i].cells[k] >> 32);
                }
            }
        }
    }
    if (one && n)
        fprintf(stderr, "%.1f ns a case\n", (eng_now() - started) * 1e9 / (double)n / (argc - 2));
    printf("%08x\n", sum);
    return 0;
}
