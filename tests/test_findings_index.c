/* The findings store's lookup by signature (findings.c's index): every
 * signature absorbed again lands on its own entry, however many there are
 * (the index grows and is made again), whatever their low bits share
 * (signatures that differ only above bit 32 probe past each other), and
 * after eng_findings_sort has moved the entries.  A lookup that missed
 * would add a second entry for a signature: a second finding file, and
 * counts split between the two. */
#include <string.h>
#include "check.h"
#include "engine/findings.h"
#include "isa/classify.h"

enum { N = 600 };

/* Signature k: alike in the low 32 bits for a quarter of them. */
static uint64_t signature_of(unsigned k) { return k % 4 == 0 ? (uint64_t)(k + 1) << 32 : 0x9e3779b97f4a7c15ull * (k + 1); }

static void absorb_all(eng_findings *f, unsigned pass)
{
    char err[512];
    for (unsigned i = 0; i < N; i++) {
        unsigned k = (i * 7 + pass * 13) % N;  /* each pass in its own order */
        eng_finding_entry e;
        memset(&e, 0, sizeof e);
        e.signature = signature_of(k);
        e.count = k + 1;
        e.case_index = 1000 * pass + k;
        e.op = isa_op_at(k % isa_op_count());
        CHECK(eng_findings_absorb(f, &e, err, sizeof err) == 0, "absorb %u: %s", k, err);
    }
}

/* Every signature once, with pass times its count. */
static void check_entries(const eng_findings *f, unsigned passes, const char *when)
{
    CHECK(eng_findings_count(f) == N, "%s: %u entries, want %d", when, eng_findings_count(f), N);
    static bool seen[N];
    memset(seen, 0, sizeof seen);
    for (unsigned i = 0; i < eng_findings_count(f); i++) {
        eng_finding_entry e;
        eng_findings_entry(f, i, &e);
        unsigned k = N;
        for (unsigned j = 0; j < N; j++)
            if (signature_of(j) == e.signature)
                k = j;
        CHECK(k < N && !seen[k], "%s: entry %u's signature %016llx", when, i, (unsigned long long)e.signature);
        if (k < N) {
            seen[k] = true;
            CHECK(e.count == (uint64_t)passes * (k + 1), "%s: signature %u counted %llu", when, k,
                  (unsigned long long)e.count);
        }
    }
}

int main(void)
{
    io_known none = {0};
    eng_findings_options o = {NULL, &none, false, 1};
    eng_target t = {"direct", "test device", "test driver"};
    eng_findings *f = eng_findings_create(&o, NULL, &t);
    absorb_all(f, 1);
    check_entries(f, 1, "first pass");
    absorb_all(f, 2);
    check_entries(f, 2, "second pass");
    eng_findings_sort(f);
    absorb_all(f, 3);
    check_entries(f, 3, "after the sort");
    eng_findings_destroy(f);
    return check_report("findings-index");
}
