/* engine/module: the compute module for an op instance (built in, or the
 * user's own translation), assembled and validated before use. */
#ifndef TIEFUZZ_ENGINE_MODULE_H
#define TIEFUZZ_ENGINE_MODULE_H

#include "isa/isa.h"
#include "spirv/tools.h"
#include "vk/device.h"

typedef struct {
    spv_module spv;
    unsigned local_size;
    char declared[160];   /* the float controls it declares */
    bool user;            /* from --shader or --translator */
    unsigned per_tuple;   /* invocations per tuple (tiles: one per output word) */
} eng_module;

/* Build the built-in module for an instance.  Returns 0, or -1 with a
 * message (a validation failure includes the disassembly). err may be large. */
int eng_module_build(const isa_instance *in, isa_lowering l, const vkd_info *dev, eng_module *out, char *err,
                     size_t errn);
/* The built-in module's words, not validated (out->words malloc'd), or -1 with err. */
int eng_module_words(const isa_instance *in, isa_lowering l, const vkd_info *dev, spv_module *out, char *err,
                     size_t errn);
/* Its SPIR-V assembly (the disassembly, which assembles to the same words;
 * malloc'd), or NULL with err. */
char *eng_module_text(const isa_instance *in, isa_lowering l, const vkd_info *dev, char *err, size_t errn);
/* Load the user's module and check it fits the tiefuzz interface. */
int eng_module_load(const char *path, const vkd_info *dev, eng_module *out, char *err, size_t errn);
/* The same, naming the module name in messages (a translator's output lies
 * in a scratch file whose path means nothing to the user). */
int eng_module_load_named(const char *path, const char *name, const vkd_info *dev, eng_module *out, char *err,
                          size_t errn);
void eng_module_free(eng_module *m);

#endif
