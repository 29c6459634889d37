/* A family's construct_many against construct, case by case: the same
 * words, the same answer, and each case's stream left where construct
 * leaves it.  Campaigns build cases many at a time, while replay, repro and
 * the rebuild of a miss build one at a time: a case must be the same
 * either way, or a finding could not be reproduced.  Every op that has
 * construct_many, every class it takes, over the control blocks of a
 * campaign's draws (eng_drawn_instance: the plain encoding first, then drawn
 * controls and literals), in counts that do not fill the last vector.
 * The same for whole generation: isa_generate_fast_many (construction,
 * verdicts, and the rebuild of each case that missed its class, in
 * batches) against isa_generate_fast a case at a time: the same words,
 * outputs, verdicts and streams, for those ops and every other one whose
 * misses are rebuilt in batches (one-word to eight-word tuples).  The
 * Maxwell ops' construct is a block of one, so their cases are also
 * pinned to the ones their seeds made before (check_maxwell_pins).  Then
 * the MIX ops under every op_sel_hi, the one-format forms under chosen abs
 * and neg, and the literal ops under Ks chosen where their routes turn,
 * which drawn controls seldom reach.
 * TIEFUZZ_CONSTRUCT_BLOCKS sets the blocks per op (default 24). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "check.h"
#include "engine/plan.h"
#include "isa/classify.h"

/* Per class and block: more than one generation block (ISA_GENERATE_BLOCK),
 * not a multiple of four or eight (the lanes' vectors). */
enum { CASES = ISA_GENERATE_BLOCK + 7 };

static uint32_t one_words[CASES * ISA_MAX_IN], many_words[CASES * ISA_MAX_IN];
static gen_rng one_rng[CASES], many_rng[CASES];
static bool one_reach[CASES], many_reach[CASES];
static gen_class cls[CASES];
static uint32_t one_out[CASES * ISA_MAX_OUT], many_out[CASES * ISA_MAX_OUT];
static isa_verdict one_v[CASES], many_v[CASES];
static unsigned long said;  /* differences printed, at most a few */
static unsigned long rebuilt; /* generated cases built more than once: the rebuild path ran */
static unsigned long most_rebuilt; /* the most in one compare_generated: above ISA_REBUILD_BATCH, its batches were crossed */

/* The class of case i: mine[only] (only >= 0); the op's classes
 * interleaved as a campaign asks for them (-1); scrambled by a hash of i,
 * with no period (-2: a family that groups a periodic block's cases by the
 * period sorts these); interleaved but for the last case of each block
 * (-3: not periodic at its very end); or a cycle whose period divides
 * neither a block nor the run, begun partway into it: the op's classes then
 * its first again (-4: n_mine + 1 entries, one class twice, from entry 5),
 * or 63 entries drawn from the op's classes by a hash (-5: the longest
 * periods, most classes repeated). */
static gen_class class_of(const gen_class *mine, unsigned n_mine, int only, unsigned i)
{
    if (only >= 0)
        return mine[only];
    if (only == -2 || only == -5) {
        gen_rng r = gen_rng_for(0, 0, only == -5 ? i % 63 : i);
        return mine[gen_below_of(gen_next(&r), n_mine)];
    }
    if (only == -4)
        return mine[(i + 5) % (n_mine + 1) % n_mine];
    return mine[(i + (only == -3 && i % ISA_GENERATE_BLOCK == ISA_GENERATE_BLOCK - 1)) % n_mine];
}

/* Cases of class_of(only); the number that differ. */
static unsigned long compare(const isa_instance *in, const gen_class *mine, unsigned n_mine, int only, uint64_t seed)
{
    const isa_op *op = in->op;
    for (unsigned i = 0; i < CASES; i++) {
        cls[i] = class_of(mine, n_mine, only, i);
        one_rng[i] = many_rng[i] = gen_rng_for(seed, (uint64_t)cls[i], i);
    }
    memset(one_words, 0, sizeof one_words);
    memset(many_words, 0, sizeof many_words);
    op->impl->construct_many(in, cls, many_rng, CASES, many_words, many_reach);
    unsigned long differ = 0;
    for (unsigned i = 0; i < CASES; i++) {
        one_reach[i] = op->impl->construct(in, cls[i], &one_rng[i], one_words + (size_t)i * op->n_in);
        bool same = one_reach[i] == many_reach[i] && one_rng[i].s == many_rng[i].s &&
                    !memcmp(one_words + (size_t)i * op->n_in, many_words + (size_t)i * op->n_in,
                            op->n_in * sizeof one_words[0]);
        differ += !same;
        if (!same && said++ < 4)
            CHECK(0, "%s class %s case %u (seed %llu): construct %08x %08x %08x reach %d, construct_many %08x %08x %08x "
                  "reach %d%s",
                  op->name, gen_class_name(cls[i]), i, (unsigned long long)seed, one_words[i * op->n_in],
                  one_words[i * op->n_in + 1], op->n_in > 2 ? one_words[i * op->n_in + 2] : 0, one_reach[i],
                  many_words[i * op->n_in], many_words[i * op->n_in + 1],
                  op->n_in > 2 ? many_words[i * op->n_in + 2] : 0, many_reach[i],
                  one_rng[i].s != many_rng[i].s ? "; streams differ" : "");
    }
    return differ;
}

/* isa_generate_fast_many against isa_generate_fast, as compare() does
 * construction; the number of cases that differ. */
static unsigned long compare_generated(const isa_instance *in, const gen_class *mine, unsigned n_mine, int only,
                                       uint64_t seed)
{
    const isa_op *op = in->op;
    for (unsigned i = 0; i < CASES; i++) {
        cls[i] = class_of(mine, n_mine, only, i);
        one_rng[i] = many_rng[i] = gen_rng_for(seed, (uint64_t)cls[i], i);
    }
    isa_generate_fast_many(in, cls, many_rng, CASES, many_words, many_out, many_v);
    unsigned long differ = 0, rebuilt_here = 0;
    for (unsigned i = 0; i < CASES; i++) {
        const uint32_t *w1 = one_words + (size_t)i * op->n_in, *wm = many_words + (size_t)i * op->n_in;
        const uint32_t *o1 = one_out + (size_t)i * op->n_out, *om = many_out + (size_t)i * op->n_out;
        gen_rng once = gen_rng_for(seed, (uint64_t)cls[i], i);
        uint32_t scratch[ISA_MAX_IN];
        op->impl->construct(in, cls[i], &once, scratch);
        isa_generate_fast(in, cls[i], &one_rng[i], one_words + (size_t)i * op->n_in, one_out + (size_t)i * op->n_out,
                          &one_v[i]);
        rebuilt_here += once.s != one_rng[i].s;
        bool same = one_rng[i].s == many_rng[i].s && !memcmp(w1, wm, op->n_in * sizeof *w1) &&
                    !memcmp(o1, om, op->n_out * sizeof *o1) && isa_verdict_equal(&one_v[i], &many_v[i]);
        differ += !same;
        if (!same && said++ < 4)
            CHECK(0, "%s class %s case %u (seed %llu): isa_generate_fast %08x %08x classes %#x, "
                  "isa_generate_fast_many %08x %08x classes %#x%s",
                  op->name, gen_class_name(cls[i]), i, (unsigned long long)seed, w1[0], w1[1], one_v[i].classes,
                  wm[0], wm[1], many_v[i].classes, one_rng[i].s != many_rng[i].s ? "; streams differ" : "");
    }
    rebuilt += rebuilt_here;
    most_rebuilt = rebuilt_here > most_rebuilt ? rebuilt_here : most_rebuilt;
    return differ;
}

/* Of 200 cases of class c under ctrl, how many construction calls
 * reachable and how many the verdict finds in the class. */
static void class_reach(const char *op_name, const char *ctrl, gen_class c, unsigned *reach, unsigned *hit)
{
    const isa_op *op = isa_op_find(op_name);
    isa_instance in;
    isa_instance_default(&in, op);
    const char *e = isa_parse_controls(&in, ctrl);
    CHECK(!e, "%s", e ? e : "");
    *reach = *hit = 0;
    for (unsigned i = 0; i < 200; i++) {
        gen_rng r = gen_rng_for(5, 0, i);
        uint32_t w[ISA_MAX_IN], out[ISA_MAX_OUT];
        isa_verdict v;
        *reach += op->impl->construct(&in, c, &r, w);
        isa_eval_fast(&in, w, out, 1u << c, &v);
        *hit += (v.classes >> c) & 1;
    }
}

/* A fused sum of a product and c whose signs abs fixes alike cannot cancel:
 * the class is out of reach there (no rebuilds spent on it), and within
 * reach where one sign differs.  A legacy form's stays within reach (a
 * product flushed to zero plus a zero c counts as cancelled), though the
 * designs do not aim there: min_hits 0. */
static void check_cancel_by_signs(void)
{
    static const struct {
        const char *op, *ctrl;
        bool reachable;
        unsigned min_hits;
    } rows[] = {
        {"v_fma_f32", "abs=7,neg=0", false, 0},  {"v_fma_f32", "abs=7,neg=1", true, 150},
        {"v_fma_f32", "abs=7,neg=4", true, 150}, {"v_fma_f32", "abs=7,neg=3", false, 0},
        {"v_fma_f32", "abs=3,neg=0", true, 150}, {"v_mad_f32", "abs=7,neg=0", true, 0},
        {"v_mad_f32", "abs=7,neg=4", true, 150}, {"v_fma_f16", "abs=7,neg=0", false, 0},
        {"v_fma_mix_f32", "neg_hi=7,neg_lo=0", false, 0}, {"v_fma_mix_f32", "neg_hi=7,neg_lo=4", true, 150},
    };
    for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        unsigned reach, hit;
        class_reach(rows[i].op, rows[i].ctrl, GEN_CANCEL, &reach, &hit);
        if (rows[i].reachable)
            CHECK(reach == 200 && hit >= rows[i].min_hits, "%s %s: cancel reachable in %u of 200, cancelled in %u",
                  rows[i].op, rows[i].ctrl, reach, hit);
        else  /* the fallback builds ties: only the answer can say */
            CHECK(reach == 0, "%s %s: cancel out of reach, yet reachable in %u of 200", rows[i].op, rows[i].ctrl,
                  reach);
    }
}

/* The legacy forms flush a subnormal K to zero: as a factor the product
 * is zero and c alone reaches the subnormal and overflow ranges; as c the
 * sum's rounding is exact, no double round (the product's rounding keeps
 * its ties).  Those classes are out of reach there (each had eight designs
 * a case, all missed), the others within reach.  A fused form keeps its
 * subnormal K. */
static void check_flushed_k(void)
{
    static const struct {
        const char *op;
        gen_class c;
        bool reachable;
        unsigned min_hits;
    } rows[] = {
        {"v_madmk_f32", GEN_TIE, false, 0},         {"v_madmk_f32", GEN_NEAR_TIE, false, 0},
        {"v_madmk_f32", GEN_DOUBLE_ROUND, false, 0}, {"v_madmk_f32", GEN_CANCEL, false, 0},
        {"v_madmk_f32", GEN_SUBNORMAL, true, 190},   {"v_madmk_f32", GEN_OVERFLOW, true, 190},
        {"v_madak_f32", GEN_TIE, true, 0},          {"v_madak_f32", GEN_DOUBLE_ROUND, false, 0},
        {"v_madak_f32", GEN_CANCEL, true, 20},      {"v_madak_f32", GEN_SUBNORMAL, true, 190},
        {"v_fmamk_f32", GEN_TIE, true, 190},        {"v_fmamk_f32", GEN_DOUBLE_ROUND, true, 150},
    };
    for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        unsigned reach, hit;
        class_reach(rows[i].op, "k=0x00007214", rows[i].c, &reach, &hit);
        if (rows[i].reachable)
            CHECK(reach == 200 && hit >= rows[i].min_hits, "%s subnormal K: %s reachable in %u of 200, made %u",
                  rows[i].op, gen_class_name(rows[i].c), reach, hit);
        else
            CHECK(reach == 0, "%s subnormal K: %s out of reach, yet reachable in %u of 200", rows[i].op,
                  gen_class_name(rows[i].c), reach);
    }
}

/* Every class of the op named under the controls ctrl (the op's default
 * instance otherwise): construct_many and the batched generation against
 * one case at a time, seeds from seed on.  The number of cases that
 * differ; *instances counts the instances run. */
static unsigned long compare_under(const char *op_name, const char *ctrl, uint64_t seed, unsigned *instances)
{
    const isa_op *op = isa_op_find(op_name);
    CHECK(op != NULL, "no op %s", op_name);
    if (!op)
        return 0;
    gen_class all[GEN_CLASS_COUNT], mine[GEN_CLASS_COUNT];
    for (int c = 0; c < GEN_CLASS_COUNT; c++)
        all[c] = (gen_class)c;
    unsigned n_mine = isa_op_classes(op, all, GEN_CLASS_COUNT, mine);
    isa_instance in;
    isa_instance_default(&in, op);
    const char *e = isa_parse_controls(&in, ctrl);
    CHECK(!e, "%s %s: %s", op->name, ctrl, e ? e : "");
    if (e)
        return 0;
    (*instances)++;
    unsigned long differ = 0;
    for (int k = -1; k < (int)n_mine; k++) {
        differ += compare(&in, mine, n_mine, k, seed);
        differ += compare_generated(&in, mine, n_mine, k, seed + 1000);
    }
    return differ;
}

/* Every MIX op under every op_sel_hi (each source a half or an f32: the
 * mixed-format closed and special lanes, and the ones that fall back to
 * the scalar designs), every class, as main() does over drawn controls
 * (which need not draw every mix).  The number that differ. */
static unsigned long compare_mix_formats(unsigned *instances)
{
    static const char *const mix_ops[] = {"rdna2.v_fma_mix_f32", "rdna2.v_fma_mixlo_f16", "rdna2.v_fma_mixhi_f16"};
    unsigned long differ = 0;
    for (unsigned o = 0; o < sizeof mix_ops / sizeof mix_ops[0]; o++)
        for (int sel = 0; sel < 8; sel++) {
            char ctrl[32];
            snprintf(ctrl, sizeof ctrl, "op_sel_hi=%d", sel);
            differ += compare_under(mix_ops[o], ctrl, 3000 + (uint64_t)sel, instances);
        }
    return differ;
}

/* The one-format forms under chosen abs and neg, every class: a forced
 * sign makes a design draw no sign (the lane designs too), and the drawn
 * controls reach abs on a given source only by chance.  The number of
 * cases that differ. */
static unsigned long compare_forced_signs(unsigned *instances)
{
    static const char *const rows[][2] = {
        {"rdna2.v_fma_f32", "abs=3,neg=1"},          {"rdna2.v_fma_f32", "abs=6,neg=2"},
        {"rdna2.v_fmac_f32", "abs=1,neg=3"},         {"rdna2.v_div_fmas_f32", "abs=3,neg=3"},
        {"rdna2.v_fma_f16", "abs=1,neg=1"},          {"rdna2.v_fma_f16", "abs=2,neg=6"},
        {"rdna2.v_fma_mixlo_f16", "op_sel_hi=7,neg_hi=3,neg_lo=1"},
        {"rdna2.v_fma_mix_f32", "op_sel_hi=0,neg_hi=1,neg_lo=5"},
    };
    unsigned long differ = 0;
    for (unsigned r = 0; r < sizeof rows / sizeof rows[0]; r++)
        differ += compare_under(rows[r][0], rows[r][1], 7000 + r, instances);
    return differ;
}

/* The literal ops under chosen Ks, every class: the drawn controls' Ks
 * seldom fall where a subnormal case's route turns (K as c near the
 * subnormal range or not; K as b a normal below 2^22 or not, or subnormal).
 * The number of cases that differ; *instances counts the instances
 * compared, *expected those there are (each op under each K). */
static unsigned long compare_literals(unsigned *instances, unsigned *expected)
{
    static const char *const k_ops[] = {"rdna2.v_madak_f32", "rdna2.v_fmaak_f32", "rdna2.v_madmk_f32",
                                        "rdna2.v_fmamk_f32"};
    /* 2^-125, the smallest normal, 2^-124 - 2^-148, a subnormal, 1.5, -2^21, 2^22, 3 * 2^23, a K of 24
     * bits below 2^-5 (as b: the subnormal class's coin and aimed design a vector of cases at a time). */
    static const char *const ks[] = {"0x01000000", "0x00800000", "0x017fffff", "0x00000003", "0x3fc00000",
                                     "0xca000000", "0x4a800000", "0x4bc00000", "0xbcf6e801"};
    unsigned long differ = 0;
    *expected = (unsigned)(sizeof k_ops / sizeof k_ops[0] * (sizeof ks / sizeof ks[0]));
    for (unsigned o = 0; o < sizeof k_ops / sizeof k_ops[0]; o++)
        for (unsigned ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
            char ctrl[32];
            snprintf(ctrl, sizeof ctrl, "k=%s", ks[ki]);
            differ += compare_under(k_ops[o], ctrl, 5000 + ki, instances);
        }
    return differ;
}

/* The Maxwell ops' cases pinned to what they were when each was built a
 * case at a time (2d19076, before maxwell_designs.c): a finding file's seed
 * and index must make the same case in every later build, and compare()
 * holds construct_many only to construct, which now share their code.  For
 * each row's op and controls, 1,031 cases of every class the op takes, of
 * a floating-point class (out of reach) and of a value past the class list:
 * an XXH3 hash of their words, answers and streams after, over the rows
 * of the op.  The rows reach every design's shapes: .X's carry-in, CLO and
 * CHI, .PSL, an immediate Sb, .MRG, CSFU; IADD3's shifts, negations, parts
 * and immediate; a zero and a nonzero multiplier.  The pins were first
 * hand-written FNV-1a hashes, which the test built against 2d19076's
 * libraries passed; the XXH3 ones were taken from code that still passed
 * those.  A change that means to change these cases changes the hashes
 * here, and says so. */

/* One instance's pinned cases into the op's hash. */
static void pin_instance(const isa_instance *in, XXH3_state_t *h)
{
    const isa_op *op = in->op;
    gen_class all[GEN_CLASS_COUNT], mine[GEN_CLASS_COUNT + 2];
    for (int c = 0; c < GEN_CLASS_COUNT; c++)
        all[c] = (gen_class)c;
    unsigned n_mine = isa_op_classes(op, all, GEN_CLASS_COUNT, mine);
    mine[n_mine++] = GEN_TIE;
    mine[n_mine++] = (gen_class)GEN_CLASS_COUNT;
    for (unsigned k = 0; k < n_mine; k++) {
        for (unsigned i = 0; i < CASES; i++) {
            cls[i] = mine[k];
            many_rng[i] = gen_rng_for(77, k, i);
        }
        for (unsigned i = 0; i < CASES; i++)  /* construct: compare() holds construct_many to it */
            many_reach[i] = op->impl->construct(in, cls[i], &many_rng[i], many_words + (size_t)i * op->n_in);
        XXH3_64bits_update(h, many_words, (size_t)CASES * op->n_in * sizeof many_words[0]);
        XXH3_64bits_update(h, many_reach, CASES);
        for (unsigned i = 0; i < CASES; i++)
            XXH3_64bits_update(h, &many_rng[i].s, sizeof many_rng[i].s);
    }
}

static void check_maxwell_pins(void)
{
    static const struct {
        const char *op;
        const char *ctrl[7];  /* NULL past the last */
        uint64_t hash;
    } pins[] = {
        {"maxwell.xmad",
         {"", "x=1,cc=1,mrg=1,b_h1=1", "x=1,cop=1,sasign=1", "psl=1,cop=2,sbsign=1,a_h1=1",
          "sb_kind=1,imm=0x8003,cop=3", "x=1,cop=4,sasign=1,sbsign=1"},
         0xf5a8d8b83b06b1d0ull},
        {"maxwell.iadd3",
         {"", "x=1,cc=1,shift=1", "nega=1,shift=2", "negb=1,x=1,cc=1,b_part=2", "negc=1,sb_kind=1,imm=0x80001",
          "x=1,a_part=1,c_part=2,shift=1"},
         0x291bdb926367a7d3ull},
        {"maxwell.imad_lo", {""}, 0xa1ba2d079961466full},
        {"maxwell.imad_hi_u32", {""}, 0x30c8f161a032af4cull},
        {"maxwell.imul_imm16", {"imm=0", "imm=0x8001", "imm=0x1234"}, 0xf0fef93193e88157ull},
        /* No controls, and the same designs as imad_hi_u32 (the streams here
         * are not seeded by the op): the same hash. */
        {"maxwell.imad_hi_s32", {""}, 0x30c8f161a032af4cull},
    };
    for (unsigned p = 0; p < sizeof pins / sizeof pins[0]; p++) {
        const isa_op *op = isa_op_find(pins[p].op);
        CHECK(op != NULL, "no op %s", pins[p].op);
        if (!op)
            continue;
        XXH3_state_t st;
        XXH3_64bits_reset(&st);
        for (unsigned r = 0; r < 7 && pins[p].ctrl[r]; r++) {
            isa_instance in;
            isa_instance_default(&in, op);
            const char *e = isa_parse_controls(&in, pins[p].ctrl[r]);
            if (!e)
                e = isa_instance_check(&in);
            CHECK(!e, "%s --ctrl %s: %s", op->name, pins[p].ctrl[r], e ? e : "");
            pin_instance(&in, &st);
        }
        uint64_t h = XXH3_64bits_digest(&st);
        CHECK(h == pins[p].hash, "%s: its cases are not the ones its seeds made before (hash %#llx, pinned %#llx)",
              pins[p].op, (unsigned long long)h, (unsigned long long)pins[p].hash);
    }
}

/* A block's streams and classes as the campaign makes them (gen_rngs_for,
 * eng_case_classes: in vectors and by copied periods) are each case's own
 * (gen_rng_for, eng_case_class), for blocks that start anywhere in the
 * classes' cycle, shorter and longer than one period; and eng_make_cases's
 * cases are eng_make_case's. */
static void check_block_streams(void)
{
    enum { M = 1100 };
    static gen_class c[M];
    static gen_rng r[M];
    gen_class list[GEN_CLASS_COUNT];
    for (int k = 0; k < GEN_CLASS_COUNT; k++)
        list[k] = (gen_class)(GEN_CLASS_COUNT - 1 - k);
    unsigned long wrong = 0, blocks = 0;
    static const unsigned lengths[] = {0, 1, 2, 3, 5, 7, 64, 1023, 1024, M};
    for (unsigned n = 1; n <= GEN_CLASS_COUNT; n++)
        for (uint64_t first = 0; first < 2 * n + 3; first++)
            for (unsigned l = 0; l < sizeof lengths / sizeof *lengths; l++, blocks++) {
                unsigned m = lengths[l];
                uint64_t start = first + (n == 3 ? (1ull << 40) : 0);  /* an index past 32 bits */
                eng_case_classes(start, m, list, n, c);
                gen_rngs_for(n, 77 + first, start, m, r);
                for (unsigned i = 0; i < m; i++)
                    wrong += c[i] != eng_case_class(start + i, list, n) ||
                             r[i].s != gen_rng_for(n, 77 + first, start + i).s;
            }
    CHECK(wrong == 0, "%lu cases' classes or streams differ from eng_case_class / gen_rng_for (%lu blocks)", wrong,
          blocks);
    const isa_op *op = isa_op_find("maxwell.xmad");
    isa_instance in;
    isa_instance_default(&in, op);
    gen_class mine[GEN_CLASS_COUNT], all[GEN_CLASS_COUNT];
    for (int k = 0; k < GEN_CLASS_COUNT; k++)
        all[k] = (gen_class)k;
    unsigned n_mine = isa_op_classes(op, all, GEN_CLASS_COUNT, mine);
    enum { FIRST = 12345, N = 1500 };
    eng_make_cases(&in, 9, FIRST, N, mine, n_mine, many_words, many_out, many_v);
    unsigned long differ = 0;
    for (unsigned i = 0; i < N; i++) {
        uint32_t w[ISA_MAX_IN], o[ISA_MAX_OUT];
        isa_verdict v;
        eng_make_case(&in, 9, FIRST + i, mine, n_mine, w, o, &v);
        differ += memcmp(w, many_words + (size_t)i * op->n_in, op->n_in * 4) != 0 ||
                  memcmp(o, many_out + (size_t)i * op->n_out, op->n_out * 4) != 0 || !isa_verdict_equal(&v, &many_v[i]);
    }
    CHECK(differ == 0, "%lu of eng_make_cases's %d cases differ from eng_make_case's", differ, N);
}

int main(void)
{
    const char *env = getenv("TIEFUZZ_CONSTRUCT_BLOCKS");
    unsigned blocks = env ? (unsigned)strtoul(env, NULL, 10) : 24;
    if (blocks < 1)
        blocks = 24;
    gen_class all[GEN_CLASS_COUNT];
    for (int c = 0; c < GEN_CLASS_COUNT; c++)
        all[c] = (gen_class)c;
    unsigned long differ = 0, generated_differ = 0, ops = 0, generated_ops = 0, runs = 0;
    for (unsigned o = 0; o < isa_op_count(); o++) {
        const isa_op *op = isa_op_at(o);
        bool many = op->impl->construct_many != NULL;
        if (!op->translated || (!many && op->n_in > 8))
            continue;
        gen_class mine[GEN_CLASS_COUNT];
        unsigned n_mine = isa_op_classes(op, all, GEN_CLASS_COUNT, mine);
        isa_instance tmpl, in;
        isa_instance_default(&tmpl, op);
        ops += many;
        generated_ops++;
        for (unsigned b = 0; b < blocks; b++) {
            eng_drawn_instance(&tmpl, false, false, 7, b, mine, n_mine, &in);
            for (int k = -5; k < (int)n_mine; k++, runs++) {
                if (many)
                    differ += compare(&in, mine, n_mine, k, 1000 + b);
                generated_differ += compare_generated(&in, mine, n_mine, k, 2000 + b);
            }
        }
    }
    check_cancel_by_signs();
    check_flushed_k();
    check_maxwell_pins();
    check_block_streams();
    unsigned mix_instances = 0;
    unsigned long mix_differ = compare_mix_formats(&mix_instances);
    CHECK(mix_instances == 24, "%u MIX instances (3 ops x 8 op_sel_hi)", mix_instances);
    CHECK(mix_differ == 0, "MIX ops under every op_sel_hi: %lu cases differ", mix_differ);
    unsigned sign_instances = 0;
    unsigned long sign_differ = compare_forced_signs(&sign_instances);
    CHECK(sign_instances == 8, "%u instances under chosen abs and neg", sign_instances);
    CHECK(sign_differ == 0, "one-format forms under chosen abs and neg: %lu cases differ", sign_differ);
    unsigned k_instances = 0, k_expected = 0;
    unsigned long k_differ = compare_literals(&k_instances, &k_expected);
    CHECK(k_instances == k_expected, "%u literal instances of %u (each op under each K)", k_instances, k_expected);
    CHECK(k_differ == 0, "literal ops under chosen Ks: %lu cases differ", k_differ);
    CHECK(ops == 22, "%lu ops with construct_many (the 16 RDNA 2 and 6 Maxwell ones)", ops);
    CHECK(generated_ops >= 22, "%lu ops generated a batch at a time", generated_ops);
    CHECK(differ == 0, "%lu cases differ", differ);
    CHECK(generated_differ == 0, "%lu generated cases differ", generated_differ);
    CHECK(rebuilt >= 100, "only %lu generated cases were rebuilt: the batched rebuild went untested", rebuilt);
    CHECK(most_rebuilt > ISA_REBUILD_BATCH, "at most %lu cases rebuilt in one block, not above a rebuild batch (%d)",
          most_rebuilt, ISA_REBUILD_BATCH);
    printf("construct_many: %lu ops, %lu runs of %d cases, %lu differ; generated a batch at a time: %lu ops, %lu differ "
           "(%lu rebuilt, at most %lu in a block); MIX ops under every op_sel_hi: %u instances, %lu differ; literal ops under chosen Ks: "
           "%u instances, %lu differ\n",
           ops, runs, CASES, differ, generated_ops, generated_differ, rebuilt, most_rebuilt, mix_instances, mix_differ, k_instances, k_differ);
    return check_report("construct-many");
}
