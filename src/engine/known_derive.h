/* engine/known_derive: known-divergence rules from a device's profile
 * (characterize), for `characterize --known-rules` and `run --known auto`. */
#ifndef TIEFUZZ_ENGINE_KNOWN_DERIVE_H
#define TIEFUZZ_ENGINE_KNOWN_DERIVE_H

#include "characterize.h"
#include "io/known.h"

/* The rules text (corpus/known format), malloc'd; NULL when out of memory. */
char *eng_known_derive(const ch_report *r);
/* Characterize the device SEL (NULL: the default) and load its derived
 * rules into k.  0, or -1 with err. */
int eng_known_auto(const char *device_sel, io_known *k, char *err, size_t errn);
/* A run's rules: --known DIR (required to exist), --known auto (derived for
 * the device SEL; "./auto" names a directory), or corpus/known when dir is
 * NULL.  0, or -1 with err. */
int eng_known_for_run(const char *dir, const char *device_sel, io_known *k, char *err, size_t errn);

#endif
