/* A small SPIR-V builder.  Lowerings describe their arithmetic through it
 * (ids in, ids out), and the shared emulation routines in emulate.c are
 * written against it once.  Instructions are written as their assembly
 * ("OpIAdd $ $") and encoded to words at once: a campaign builds a module
 * for every row of its control schedule, and SPIRV-Tools' text assembler
 * had taken a quarter of each row's time.  Text, where a person reads it,
 * is the disassembly (tools.c). */
#ifndef TIEFUZZ_SPV_BUILDER_H
#define TIEFUZZ_SPV_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { T_VOID, T_BOOL, T_U32, T_I32, T_U64, T_F16, T_F32, T_F64, T_V2U32, T_V2F16, T_TYPE_COUNT } sb_type;

typedef struct spv_builder spv_builder;

spv_builder *sb_create(void);
void sb_destroy(spv_builder *b);

unsigned sb_type_id(spv_builder *b, sb_type t);
unsigned sb_u32(spv_builder *b, uint32_t v);
unsigned sb_i32(spv_builder *b, int32_t v);
unsigned sb_u64(spv_builder *b, uint64_t v);
unsigned sb_f64(spv_builder *b, double v);
unsigned sb_bool(spv_builder *b, bool v);
unsigned sb_spec_u32(spv_builder *b, unsigned spec_id, uint32_t default_value);
unsigned sb_fresh(spv_builder *b);

/* The GLSL.std.450 import's id, fixed by the scaffold. */
#define SB_ID_GLSL 1
/* The header's generator word: SPIRV-Tools' assembler (tool 7), version 0. */
#define SB_GENERATOR 0x00070000u

/* Body instruction with a result: fmt uses $ for an id argument (unsigned)
 * and # for a literal number (unsigned), and may hold decimal numbers;
 * "OpIAdd $ $", "OpCompositeExtract $ 0".  Enumerants are passed with #
 * from spirv.h (their names repeat across kinds).  The opcode must be in
 * builder.c's table: a name missing there ends the process (a tiefuzz bug). */
unsigned sb_op(spv_builder *b, sb_type result, const char *fmt, ...);
/* Body instruction with no result or with its own ("$ = OpLoad $ $": the
 * first $ the result id, then the type where the op has one), and the
 * same in the other sections: the preamble (capabilities, the memory
 * model, execution modes), decorations, globals (types, constants, variables). */
void sb_stmt(spv_builder *b, const char *fmt, ...);
void sb_preamble(spv_builder *b, const char *fmt, ...);
void sb_decoration(spv_builder *b, const char *fmt, ...);
void sb_global(spv_builder *b, const char *fmt, ...);
/* A preamble instruction with a literal string between other operands
 * (OpExtInstImport, OpEntryPoint); the kinds strings give one letter a
 * word: 'r' the result id, 'i' another id, 'l' a literal. */
void sb_preamble_named(spv_builder *b, uint32_t op, const uint32_t *before, const char *before_kinds,
                       const char *name, const uint32_t *after, const char *after_kinds);
void sb_label(spv_builder *b, unsigned id);
/* GLSL.std.450 extended instruction: sb_glsl(b, T_F32, "Fma $ $ $", a, b, c). */
unsigned sb_glsl(spv_builder *b, sb_type result, const char *fmt, ...);
/* A float result that must not be contracted or reassociated. */
void sb_no_contraction(spv_builder *b, unsigned id);

/* Which float widths the body computes in (16, 32, 64 as bits 0..2). */
unsigned sb_float_widths(const spv_builder *b);
bool sb_uses_int64(const spv_builder *b);

/* The module: the header (SPIR-V 1.5, the id bound) and the sections in
 * the order SPIR-V lays them out, ids renumbered from 1 in order of first
 * appearance (malloc'd; NULL when out of memory). */
uint32_t *sb_module_words(const spv_builder *b, size_t *count);

/* Convenience for common shapes. */
unsigned sb_bitcast(spv_builder *b, sb_type t, unsigned x);
unsigned sb_select(spv_builder *b, sb_type t, unsigned cond, unsigned x, unsigned y);
unsigned sb_and(spv_builder *b, unsigned x, uint32_t mask);  /* u32 */
unsigned sb_shr(spv_builder *b, unsigned x, unsigned n);      /* u32 logical */
unsigned sb_shl(spv_builder *b, unsigned x, unsigned n);
unsigned sb_ieq(spv_builder *b, unsigned x, uint32_t k);
unsigned sb_ult(spv_builder *b, unsigned x, uint32_t k);      /* x < k */
unsigned sb_ugt(spv_builder *b, unsigned x, uint32_t k);

#endif
