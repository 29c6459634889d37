/* SPIRV-Tools glue: assemble, validate, disassemble. */
#ifndef TIEFUZZ_SPV_TOOLS_H
#define TIEFUZZ_SPV_TOOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t *words;
    size_t count;
} spv_module;

/* Assemble SPIR-V assembly for Vulkan 1.2 (SPIR-V 1.5).  Returns 0, or -1
 * with the assembler's diagnostic in err. */
int spv_assemble(const char *text, spv_module *out, char *err, size_t errn);
/* Validate for the Vulkan version the device offers (VK_MAKE_API_VERSION
 * encoding).  Returns 0, or -1 with the validator's message in err. */
int spv_validate(const spv_module *m, uint32_t vk_api_version, char *err, size_t errn);
/* The SPIRV-Tools build validating (a validation's result holds for it). */
const char *spv_tools_version(void);
/* Disassembly text, indented for messages (malloc'd), or NULL. */
char *spv_disassemble(const spv_module *m);
/* The same unindented: SPIR-V assembly that spv_assemble turns back into
 * the same words (malloc'd), or NULL. */
char *spv_to_text(const spv_module *m);
void spv_module_free(spv_module *m);
/* Read a .spv (binary) or .spvasm (text) file; 0 or -1 with err. */
int spv_load_file(const char *path, spv_module *out, char *err, size_t errn);

/* What a compute module offers at its interface (for --shader). */
typedef struct {
    bool glcompute_main;
    uint32_t main_id;
    uint32_t local_size[3];  /* LocalSize x, y, z (0: none declared) */
    bool binding[2];
    bool push_constant;
    char declared[160];   /* its float-control execution modes */
} spv_interface;
void spv_scan_interface(const spv_module *m, spv_interface *out);

#endif
