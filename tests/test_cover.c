/* The covering schedule (issue 12, item 4): for every op and seeds 1-3,
 * every value of every control and every pair of control values that a
 * legal encoding has is reached by
 * the rows that run within the first 10^5 cases.  The legal pairs are
 * checked against an independent, larger sample of legal encodings (a
 * pair the schedule's own sample missed would show here), and every row
 * is a legal encoding. */
#include <string.h>
#include "check.h"
#include "engine/cover.h"
#include "gen/gen.h"

/* Pairs of one encoding that are not among the covered rows' pairs: 0 expected. */
static unsigned missed(const eng_cover *c, const uint32_t *ctrl)
{
    const isa_op *op = c->op;
    unsigned n = 0;
    for (int a = 0; a < CTRL_COUNT; a++)
        for (int b = a; b < CTRL_COUNT; b++) {
            if (!eng_cover_paired(op, a) || !eng_cover_paired(op, b))
                continue;
            bool found = false;
            for (unsigned k = 0; k < c->rows && !found; k++)
                found = c->ctrl[k][a] == ctrl[a] && c->ctrl[k][b] == ctrl[b];
            n += !found;
        }
    return n;
}

int main(void)
{
    for (unsigned o = 0; o < isa_op_count(); o++) {
        const isa_op *op = isa_op_at(o);
        for (uint64_t seed = 1; seed <= 3; seed++) {
            isa_instance tmpl;
            isa_instance_default(&tmpl, op);
            eng_cover c;
            eng_cover_make(&tmpl, seed, &c);
            if (seed == 1)
                printf("%-28s %3u rows x %5u cases, %5u legal pairs\n", op->name, c.rows, c.segment, c.legal);
            if (!c.rows) {
                eng_cover_free(&c);
                continue;
            }
            CHECK((uint64_t)c.rows * c.segment <= 100000, "%s: the schedule ends past 10^5 cases", op->name);
            uint64_t all[ENG_COVER_MAX_ROWS / 64];
            memset(all, 0xff, sizeof all);
            CHECK(eng_cover_reached(&c, all) == c.legal, "%s seed %llu: %u of %u legal pairs", op->name,
                  (unsigned long long)seed, eng_cover_reached(&c, all), c.legal);
            for (unsigned k = 0; k < c.rows; k++) {
                isa_instance x = tmpl;
                memcpy(x.ctrl, c.ctrl[k], sizeof x.ctrl);
                CHECK(isa_instance_check(&x) == NULL, "%s: row %u is not a legal encoding", op->name, k);
            }
            /* An independent sample of legal encodings, ten times the schedule's. */
            gen_rng r = gen_rng_for(seed + 1000, o, 7);
            unsigned miss = 0;
            for (int i = 0; i < 20000; i++) {
                isa_instance x = tmpl;
                isa_random_controls(&x, &r);
                miss += missed(&c, x.ctrl);
            }
            CHECK(miss == 0, "%s seed %llu: %u pairs of legal encodings never reached", op->name,
                  (unsigned long long)seed, miss);
            eng_cover_free(&c);
        }
    }
    return check_report("test_cover");
}
