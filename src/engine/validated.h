/* engine/validated: the built-in modules the SPIR-V validator has passed,
 * remembered across runs, so that a campaign's control rows (a module
 * each) are validated once per machine rather than once per run.
 *
 * A module is known by a 128-bit hash of its words, the Vulkan version it
 * was validated for, the SPIRV-Tools build that validated it and how
 * tiefuzz calls it (VALIDATION_SCHEME in validated.c): the same key means
 * the same input to the same validator, so its verdict holds.
 * Only passes are recorded.  The record lives in the cache directory
 * (vkd_cache_dir) as validated-modules.bin, 16 bytes a module, appended;
 * a record cut short (a run stopped mid-write) is dropped when the file is
 * read, and a file of ENG_VALIDATED_MAX records is started afresh (memory
 * stays bounded).  Without a cache directory, the record is this process's. */
#ifndef TIEFUZZ_ENGINE_VALIDATED_H
#define TIEFUZZ_ENGINE_VALIDATED_H

#include <stdbool.h>
#include <stdint.h>
#include "spirv/tools.h"

#define ENG_VALIDATED_MAX (1u << 20)

/* Whether this module passed the validator for api (VK_MAKE_API_VERSION)
 * in this process or an earlier run. */
bool eng_validated_seen(const spv_module *m, uint32_t api);
/* Record that it passed. */
void eng_validated_add(const spv_module *m, uint32_t api);
/* Read the record on a thread of its own now, where the caller has other
 * work before its first module (a campaign opening its device): the first
 * call above then finds it read, or waits for the rest.  Where no thread
 * can be started, the first call reads it, as it would without this. */
void eng_validated_preload(void);
/* Forget what was read (the next call reads the file again), once any
 * read ahead started before it is over: for tests. */
void eng_validated_reset(void);

#endif
