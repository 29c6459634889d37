/* Messages returned by the parsers are each thread's own: generation and
 * minimization run on several threads, and a message in one shared static
 * buffer could be overwritten by another thread's before it is printed.
 * Threads ask for distinct errors at once and check each message names
 * their own input (isa_parse_controls and isa_instance_check share one
 * buffer in registry.c; eng_finding_case has its own in findings.c). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "engine/findings.h"

enum { THREADS = 4, ROUNDS = 100000 };

static atomic_uint mismatches, messages;

static void expect(const char *got, const char *want)
{
    atomic_fetch_add(&messages, 1);
    if (!got || strcmp(got, want))
        atomic_fetch_add(&mismatches, 1);
}

static void *ask(void *arg)
{
    unsigned t = (unsigned)(size_t)arg;
    const isa_op *op = isa_op_find("rdna2.v_fma_f32");
    char text[64], want[128];
    snprintf(text, sizeof text, "nosuch%u=1", t);
    snprintf(want, sizeof want, "unknown control 'nosuch%u'", t);
    io_finding rec;
    memset(&rec, 0, sizeof rec);
    snprintf(rec.op, sizeof rec.op, "nosuch.op%u", t);
    char want_op[128];
    snprintf(want_op, sizeof want_op, "unknown op 'nosuch.op%u'", t);
    for (unsigned i = 0; i < ROUNDS; i++) {
        isa_instance in;
        isa_instance_default(&in, op);
        expect(isa_parse_controls(&in, text), want);
        eng_case c;
        expect(eng_finding_case(&rec, &c, NULL), want_op);
    }
    return NULL;
}

int main(void)
{
    CHECK(isa_op_find("rdna2.v_fma_f32") != NULL, "rdna2.v_fma_f32 exists");
    pthread_t tid[THREADS];
    for (unsigned t = 0; t < THREADS; t++)
        CHECK(pthread_create(&tid[t], NULL, ask, (void *)(size_t)t) == 0, "thread %u", t);
    for (unsigned t = 0; t < THREADS; t++)
        pthread_join(tid[t], NULL);
    CHECK(atomic_load(&messages) == 2u * THREADS * ROUNDS, "%u messages", atomic_load(&messages));
    CHECK(atomic_load(&mismatches) == 0, "%u of %u messages were another thread's", atomic_load(&mismatches),
          atomic_load(&messages));
    return check_report("message-threads");
}
