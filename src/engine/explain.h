/* engine/explain: a person-readable account of one case: the operands, each
 * rounding the model made with the exact value before it, its distance to
 * the nearest tie, and what each side returned. */
#ifndef TIEFUZZ_ENGINE_EXPLAIN_H
#define TIEFUZZ_ENGINE_EXPLAIN_H

#include <stdio.h>
#include "isa/isa.h"

/* device may be NULL (host only). */
void eng_explain(FILE *f, const isa_instance *in, const uint32_t *words, const uint32_t *device, const char *indent);
/* One word as text: "0x3f800800 (0x1.008p+0)" per its format. */
char *eng_word_text(isa_word_format fmt, uint32_t w, char *buf, unsigned n);

#endif
