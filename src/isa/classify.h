/* Class verification and generation with verification. */
#ifndef TIEFUZZ_CLASSIFY_H
#define TIEFUZZ_CLASSIFY_H

#include "isa.h"

/* Bit per gen_class that the case verifiably belongs to. */
uint32_t isa_trace_classes(const isa_trace *t);
uint32_t isa_case_classes(const isa_instance *in, const uint32_t *words);
/* Construct one case of class c into words; returns its verified classes. */
uint32_t isa_generate(const isa_instance *in, gen_class c, gen_rng *rng, uint32_t *words);

#endif
