/* engine/translator: the user's translation command (run --translator CMD),
 * asked for the module of each op instance the campaign reaches.
 *
 * The protocol (README, 'Bring your own translator'): CMD runs under
 * /bin/sh -c with stdin from /dev/null and, in its environment,
 *   TIEFUZZ_OP      the op's full name (rdna2.v_fma_f32)
 *   TIEFUZZ_CTRL    every control as --ctrl takes it, the literal K included
 *                   ("neg=0x00000002,clamp=0", "none" for an op without any)
 *   TIEFUZZ_K       the literal K as 0x%08x, empty for an op without one
 *   TIEFUZZ_PARAM   the model parameters as --param takes them ("none")
 *   TIEFUZZ_DEVICE  the device's name (a --device selector for it)
 *   TIEFUZZ_OUT     where to write the module (.spv binary or assembly)
 * It must exit 0 having written a module with the --shader interface; its
 * stdout and stderr are kept (bounded) for the error message. */
#ifndef TIEFUZZ_ENGINE_TRANSLATOR_H
#define TIEFUZZ_ENGINE_TRANSLATOR_H

#include "module.h"

typedef struct eng_translator eng_translator;

/* timeout_ms bounds each call; the command and its children are killed
 * past it. */
eng_translator *eng_translator_create(const char *cmd, unsigned timeout_ms);
void eng_translator_destroy(eng_translator *t);
/* Run the command for an instance and load its module like --shader's.
 * 0, or -1 with a message whose first line names the command, the op, the
 * controls and the parameters, followed by the command's output or the
 * validator's report (several lines; err may be large). */
int eng_translator_module(eng_translator *t, const isa_instance *in, const vkd_info *dev, eng_module *out, char *err,
                          size_t errn);

#endif
