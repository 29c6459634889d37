/* Module and pipeline caches, and small synchronous runs.
 *
 * The caches take helper threads beside the caller's (eng_exec_prefetch):
 * a lock guards the entry list, each entry is allocated on its own so that
 * a pointer to it stays valid, and an entry a helper is building is
 * marked; the caller waits for it rather than building it twice.  Helpers
 * build outside the lock, so a caller asking for another entry does not
 * wait. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exec.h"
#include "module.h"
#include "translator.h"

/* Pipelines kept per module, one per literal K (a specialization constant).
 * A literal op's campaign draws K with its instance, from a pool that grows
 * as the square root of the blocks (eng_block_instance), and the plain
 * encoding's draws share one module: the array grows with them up to this
 * many (an hour at 15M cases/s draws about 230 plain instances), and past
 * it a pipeline is rebuilt when its K comes round again. */
#define MODULE_PIPES 256

typedef struct {
    uint32_t k;
    vkr_pipeline *pipeline;
} k_pipeline;

typedef struct {
    isa_instance in;
    bool have_module;
    eng_module module;
    char *error;          /* why there is no module (malloc'd) */
    bool user_error;      /* the translator's fault, not tiefuzz's */
    k_pipeline *pipes;    /* n_pipes of cap_pipes (malloc'd) */
    unsigned n_pipes, cap_pipes;
    bool building;        /* eng_exec_prefetch is building its module or a pipeline */
} module_entry;

struct eng_exec {
    vkd_device *dev;
    isa_lowering lowering;
    bool user;
    eng_module user_module;
    eng_translator *translator;  /* --translator: a module per setting from it */
    const char *user_error;      /* the last pipeline failure, when the translator's */
    vkr_batch *batch;
    pthread_mutex_t lock;        /* the entry list and every entry's fields */
    pthread_cond_t built;        /* an entry's building flag went down */
    module_entry **modules;
    unsigned n_modules, cap_modules;
};

eng_exec *eng_exec_create(vkd_device *dev, isa_lowering l, const char *shader_path, unsigned capacity, char *err,
                          size_t errn)
{
    eng_exec *x = calloc(1, sizeof *x);
    pthread_mutex_init(&x->lock, NULL);
    pthread_cond_init(&x->built, NULL);
    x->dev = dev;
    x->lowering = l;
    if (shader_path) {
        if (eng_module_load(shader_path, vkd_device_info(dev), &x->user_module, err, errn)) {
            free(x);
            return NULL;
        }
        x->user = true;
    }
    /* Sized in words: capacity tuples of 8 words in, 2 out (the scalar ops),
     * so that a tile op fits proportionally fewer. */
    x->batch = vkr_batch_create(dev, (size_t)capacity * 8, (size_t)capacity * 2, err, errn);
    if (!x->batch) {
        eng_exec_destroy(x);
        return NULL;
    }
    return x;
}

void eng_exec_flush(eng_exec *x)
{
    pthread_mutex_lock(&x->lock);
    for (unsigned i = 0; i < x->n_modules; i++) {
        module_entry *m = x->modules[i];
        for (unsigned j = 0; j < m->n_pipes; j++)
            vkr_pipeline_destroy(x->dev, m->pipes[j].pipeline);
        free(m->pipes);
        if (m->have_module && !x->user)
            eng_module_free(&m->module);
        free(m->error);
        free(m);
    }
    free(x->modules);
    x->modules = NULL;
    x->n_modules = x->cap_modules = 0;
    x->user_error = NULL;
    pthread_mutex_unlock(&x->lock);
}

void eng_exec_destroy(eng_exec *x)
{
    if (!x)
        return;
    eng_exec_flush(x);
    if (x->user)
        eng_module_free(&x->user_module);
    eng_translator_destroy(x->translator);
    vkr_batch_destroy(x->dev, x->batch);
    pthread_cond_destroy(&x->built);
    pthread_mutex_destroy(&x->lock);
    free(x);
}

vkd_device *eng_exec_device(eng_exec *x) { return x->dev; }
unsigned eng_exec_capacity(const eng_exec *x, const isa_op *op)
{
    return vkr_batch_capacity(x->batch, op->n_in, op->n_out);
}
/* A translator's modules are user shaders: repro takes one back with --shader. */
const char *eng_exec_lowering_name(const eng_exec *x)
{
    return x->user || x->translator ? "user-shader" : isa_lowering_name(x->lowering);
}

void eng_exec_set_translator(eng_exec *x, const char *cmd, unsigned timeout_ms)
{
    eng_exec_flush(x);
    x->translator = eng_translator_create(cmd, timeout_ms);
}

const char *eng_exec_user_error(const eng_exec *x) { return x->user_error; }

/* Built-in modules read K as a specialization constant, so one serves
 * every K; a translator is asked again for each K, since it may fold K
 * into its module as a real translator would. */
static bool same_module(const eng_exec *x, const isa_instance *a, const isa_instance *b)
{
    if (a->op != b->op || memcmp(a->param, b->param, sizeof a->param))
        return false;
    const isa_literal *lit = x->translator ? NULL : a->op->literal;
    for (int i = 0; i < CTRL_COUNT; i++)
        if (!(lit && i == (int)lit->ctrl) && a->ctrl[i] != b->ctrl[i])
            return false;
    return true;
}

/* The built-in module for m->in, or why not: a validation failure carries
 * the module text, shown once on stderr; the entry keeps its first line. */
static void build_builtin(eng_exec *x, module_entry *m)
{
    char *big = malloc(1 << 20);
    if (eng_module_build(&m->in, x->lowering, vkd_device_info(x->dev), &m->module, big, 1 << 20) == 0) {
        m->have_module = true;
    } else {
        if (strchr(big, '\n'))
            fprintf(stderr, "tiefuzz: %s\n", big);
        m->error = strndup(big, strcspn(big, "\n"));
    }
    free(big);
}

/* The translator's module for m->in, or its whole message (the command's
 * output, the validator's report), for the campaign to show. */
static void ask_translator(eng_exec *x, module_entry *m)
{
    size_t n = 1 << 16;
    char *msg = malloc(n);
    if (eng_translator_module(x->translator, &m->in, vkd_device_info(x->dev), &m->module, msg, n) == 0) {
        m->have_module = true;
        free(msg);
    } else {
        m->error = msg;
        m->user_error = true;
    }
}

/* A user's module for a tile op follows the built-in convention: one
 * invocation per output word. */
eng_dispatch_shape eng_dispatch_shape_of(const eng_module *m, const isa_instance *in)
{
    eng_dispatch_shape s = {{isa_literal_value(in)}, in->op->literal ? 1 : 0,
                            m->user && in->op->impl->lower_tile ? in->op->n_out : m->per_tuple};
    return s;
}

/* The entry for an instance, or NULL; under the lock. */
static module_entry *lookup(eng_exec *x, const isa_instance *in)
{
    for (unsigned i = 0; i < x->n_modules; i++)
        if (same_module(x, &x->modules[i]->in, in))
            return x->modules[i];
    return NULL;
}

/* A new entry for an instance, its module not built (NULL: out of memory); under the lock. */
static module_entry *add_entry(eng_exec *x, const isa_instance *in)
{
    if (x->n_modules == x->cap_modules) {
        unsigned cap = x->cap_modules ? x->cap_modules * 2 : 16;
        module_entry **grown = realloc(x->modules, cap * sizeof *grown);
        if (!grown)
            return NULL;
        x->modules = grown;
        x->cap_modules = cap;
    }
    module_entry *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->in = *in;
    x->modules[x->n_modules++] = m;
    return m;
}

/* The entry for an instance, its module built (or why not); under the
 * lock, waiting for one the prefetch is building.  NULL: out of memory. */
static module_entry *find_module(eng_exec *x, const isa_instance *in)
{
    module_entry *m = lookup(x, in);
    if (m) {
        while (m->building)
            pthread_cond_wait(&x->built, &x->lock);
        return m;
    }
    m = add_entry(x, in);
    if (!m)
        return NULL;
    if (x->user) {
        m->module = x->user_module;
        m->have_module = true;
    } else if (x->translator) {
        ask_translator(x, m);
    } else {
        build_builtin(x, m);
    }
    return m;
}

/* The entry's pipeline for an instance (its literal as the specialization constant). */
static vkr_pipeline *create_pipeline(eng_exec *x, const module_entry *m, const isa_instance *in, char *err, size_t errn)
{
    eng_dispatch_shape shape = eng_dispatch_shape_of(&m->module, in);
    return vkr_pipeline_create(x->dev, x->batch, m->module.spv.words, m->module.spv.count, shape.spec, shape.n_spec,
                               m->module.local_size, shape.per_tuple, err, errn);
}

/* Whether the entry has room for one more pipeline, growing its array by
 * doubling up to MODULE_PIPES; false when full (or out of memory). */
static bool pipe_room(module_entry *m)
{
    if (m->n_pipes < m->cap_pipes)
        return true;
    unsigned cap = m->cap_pipes ? m->cap_pipes * 2 : 4;
    if (cap > MODULE_PIPES)
        return false;
    k_pipeline *p = realloc(m->pipes, cap * sizeof *p);
    if (!p)
        return false;
    m->pipes = p;
    m->cap_pipes = cap;
    return true;
}

/* The entry's pipeline for literal value k, or NULL. */
static vkr_pipeline *find_pipeline(const module_entry *m, uint32_t k)
{
    for (unsigned i = 0; i < m->n_pipes; i++)
        if (m->pipes[i].k == k)
            return m->pipes[i].pipeline;
    return NULL;
}

/* Why an entry has no module (m NULL: out of memory), its first line in err; true when so. */
static bool no_module(const module_entry *m, char *err, size_t errn)
{
    if (m && m->have_module)
        return false;
    const char *why = m && m->error ? m->error : "out of memory";
    snprintf(err, errn, "%.*s", (int)strcspn(why, "\n"), why);
    return true;
}

void eng_exec_prefetch(eng_exec *x, const isa_instance *in)
{
    if (x->user || x->translator)
        return;  /* a translator's work (and its messages) only when a batch asks */
    uint32_t k = isa_literal_value(in);
    pthread_mutex_lock(&x->lock);
    module_entry *m = lookup(x, in);
    bool fresh = !m;
    if (fresh)
        m = add_entry(x, in);
    else if (m->building || !m->have_module || find_pipeline(m, k) || !pipe_room(m))
        m = NULL;  /* nothing to do, or a slot only the caller may evict */
    if (m)
        m->building = true;
    pthread_mutex_unlock(&x->lock);
    if (!m)
        return;
    /* Outside the lock: nobody else touches an entry marked building. */
    if (fresh)
        build_builtin(x, m);
    vkr_pipeline *p = NULL;
    if (m->have_module) {
        char err[512];
        p = create_pipeline(x, m, in, err, sizeof err);  /* a failure: the caller meets it again and reports it */
    }
    pthread_mutex_lock(&x->lock);
    if (p && pipe_room(m))
        m->pipes[m->n_pipes++] = (k_pipeline){k, p};
    else if (p)
        vkr_pipeline_destroy(x->dev, p);  /* no memory to keep it: the caller builds it again */
    m->building = false;
    pthread_cond_broadcast(&x->built);
    pthread_mutex_unlock(&x->lock);
}

static vkr_pipeline *pipeline_locked(eng_exec *x, const isa_instance *in, const char **declared, char *err,
                                     size_t errn)
{
    module_entry *m = find_module(x, in);
    x->user_error = NULL;
    if (no_module(m, err, errn)) {
        x->user_error = m && m->user_error ? m->error : NULL;
        return NULL;
    }
    if (declared)
        *declared = m->module.declared;
    uint32_t k = isa_literal_value(in);
    vkr_pipeline *have = find_pipeline(m, k);
    if (have)
        return have;
    unsigned slot;
    if (pipe_room(m)) {
        slot = m->n_pipes++;
    } else if (!m->n_pipes) {
        snprintf(err, errn, "out of memory for a pipeline of %s", in->op->name);
        return NULL;
    } else {
        /* Evict one; a batch in flight may still use it, so let it finish. */
        slot = k % m->n_pipes;
        vkd_wait_idle(x->dev);
        vkr_pipeline_destroy(x->dev, m->pipes[slot].pipeline);
    }
    vkr_pipeline *p = create_pipeline(x, m, in, err, errn);
    m->pipes[slot].k = k;
    m->pipes[slot].pipeline = p;
    if (!p)  /* do not keep a failed slot: the last entry takes its place (cutting the list there leaked those above) */
        m->pipes[slot] = m->pipes[--m->n_pipes];
    return p;
}

vkr_pipeline *eng_exec_pipeline(eng_exec *x, const isa_instance *in, const char **declared, char *err, size_t errn)
{
    pthread_mutex_lock(&x->lock);
    vkr_pipeline *p = pipeline_locked(x, in, declared, err, errn);
    pthread_mutex_unlock(&x->lock);
    return p;
}

const eng_module *eng_exec_module(eng_exec *x, const isa_instance *in, eng_dispatch_shape *shape, char *err,
                                  size_t errn)
{
    pthread_mutex_lock(&x->lock);
    module_entry *m = find_module(x, in);
    pthread_mutex_unlock(&x->lock);
    if (no_module(m, err, errn))
        return NULL;
    *shape = eng_dispatch_shape_of(&m->module, in);
    return &m->module;
}

int eng_exec_run(eng_exec *x, const isa_instance *in, const uint32_t *words, unsigned n, uint32_t *out, char *err,
                 size_t errn, bool *err_is_device)
{
    *err_is_device = false;
    unsigned cap = vkr_batch_capacity(x->batch, in->op->n_in, in->op->n_out);
    if (n > cap) {
        snprintf(err, errn, "%u tuples exceed the executor's capacity of %u for %s", n, cap, in->op->name);
        return -1;
    }
    vkr_pipeline *p = eng_exec_pipeline(x, in, NULL, err, errn);
    if (!p)
        return -1;
    memcpy(vkr_batch_input(x->batch), words, (size_t)n * in->op->n_in * 4);
    if (vkr_submit(x->dev, x->batch, p, n, err, errn) || vkr_wait(x->dev, x->batch, 20000, err, errn)) {
        *err_is_device = true;
        return -1;
    }
    memcpy(out, vkr_batch_output(x->batch), (size_t)n * in->op->n_out * 4);
    return 0;
}
