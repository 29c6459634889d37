/* engine/exec: op instances on a device.  Caches one module per controls
 * shape (per setting, K included, for a translator) and one pipeline per
 * literal value, and runs small batches of
 * tuples for the minimizer, repro and replay (the campaign uses its own
 * double-buffered batches with the same pipelines). */
#ifndef TIEFUZZ_ENGINE_EXEC_H
#define TIEFUZZ_ENGINE_EXEC_H

#include "isa/isa.h"
#include "module.h"
#include "vk/runner.h"

typedef struct eng_exec eng_exec;

/* shader_path: the user's module replacing the built-in lowering, or NULL. */
/* capacity: tuples of the largest ops tiefuzz has; smaller tuples fit more. */
eng_exec *eng_exec_create(vkd_device *dev, isa_lowering l, const char *shader_path, unsigned capacity, char *err,
                          size_t errn);
void eng_exec_destroy(eng_exec *x);
/* The pipeline for an instance (NULL with a message in err); declared gets
 * the float controls the module declares. */
vkr_pipeline *eng_exec_pipeline(eng_exec *x, const isa_instance *in, const char **declared, char *err, size_t errn);
/* Build the pipeline an instance will need, from a helper thread while the
 * caller goes on (from any number of threads; built-in modules only: a
 * translator is asked only when a batch needs it).  Never evicts; a
 * failure is left for eng_exec_pipeline to meet and report. */
void eng_exec_prefetch(eng_exec *x, const isa_instance *in);
/* Run n tuples (n <= capacity) and copy the outputs.  0, or -1 with err:
 * err_is_device tells a device failure (exit 3) from a build failure. */
int eng_exec_run(eng_exec *x, const isa_instance *in, const uint32_t *words, unsigned n, uint32_t *out, char *err,
                 size_t errn, bool *err_is_device);
/* --translator CMD: from now on each instance's module comes from CMD (see
 * translator.h), one per setting, K included; timeout_ms bounds each call. */
void eng_exec_set_translator(eng_exec *x, const char *cmd, unsigned timeout_ms);
/* When the last eng_exec_pipeline failed through the translator (it failed,
 * or its module is invalid): the whole message, several lines, whose first
 * is what err got; else NULL.  Valid until the next flush. */
const char *eng_exec_user_error(const eng_exec *x);
/* How an instance's module is dispatched: its specialization constants
 * (SpecId i = spec[i]) and the invocations one tuple takes. */
typedef struct {
    uint32_t spec[1];
    unsigned n_spec;
    unsigned per_tuple;
} eng_dispatch_shape;
eng_dispatch_shape eng_dispatch_shape_of(const eng_module *m, const isa_instance *in);
/* The module an instance runs (built or asked for if need be), or NULL with
 * why in err.  Owned by the executor: valid until the next flush. */
const eng_module *eng_exec_module(eng_exec *x, const isa_instance *in, eng_dispatch_shape *shape, char *err,
                                  size_t errn);
vkd_device *eng_exec_device(eng_exec *x);
unsigned eng_exec_capacity(const eng_exec *x, const isa_op *op);
const char *eng_exec_lowering_name(const eng_exec *x);
/* Drop every cached module and pipeline (between ops). */
void eng_exec_flush(eng_exec *x);

#endif
