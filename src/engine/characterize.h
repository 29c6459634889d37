/* engine/characterize: a device's arithmetic profile from directed probes.
 * Each probe is one small compute module (assembled and validated) run on a
 * few hand-chosen tuples whose results differ bit for bit between the
 * behaviours Vulkan allows; the verdict names the behaviour all its tuples
 * agree on. */
#ifndef TIEFUZZ_ENGINE_CHARACTERIZE_H
#define TIEFUZZ_ENGINE_CHARACTERIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "vk/device.h"

/* The JSON format's version (README, characterize). */
#define CH_FORMAT "tiefuzz-characterize/1"

#define CH_MAX_TUPLES 3
#define CH_MAX_ALTS 5

/* One behaviour's result for a tuple; nan: any NaN of the width matches. */
typedef struct {
    const char *label;
    uint64_t bits;
    bool nan;
} ch_alt;

typedef struct {
    uint64_t in[3];
    ch_alt alt[CH_MAX_ALTS];
} ch_tuple;

/* Execution modes a probe declares, for every float width its module uses. */
enum { CH_SZINP = 1, CH_DENORM_PRESERVE = 2, CH_DENORM_FLUSH = 4, CH_RTE = 8, CH_RTZ = 16 };

typedef struct {
    char id[48];            /* "fma.f32", "denorm.add.in.f32.preserve" */
    const char *topic;      /* the table's section */
    const char *question;
    unsigned in_width, out_width;
    unsigned modes;
    const char *consts;     /* global SPIR-V: $I / $O are the input / output float types */
    const char *decor;      /* decorations */
    const char *body;       /* defines %r of type $O from %a %b %c of type $I */
    bool spec;              /* SpecId 0 is a 32-bit constant of value spec_value */
    uint32_t spec_value;
    ch_tuple tuple[CH_MAX_TUPLES];
    unsigned n_tuples;
} ch_probe;

/* Every probe, in table order (static storage). */
const ch_probe *ch_probes(unsigned *count);

typedef struct {
    const ch_probe *probe;
    bool ran;
    char skipped[96];       /* why it did not run */
    uint64_t observed[CH_MAX_TUPLES];
    char verdict[64];       /* a behaviour's label, or "other: ..." / "depends on the operands" */
} ch_result;

typedef struct {
    vkd_info info;
    ch_result *results;
    unsigned n_results;
} ch_report;

/* Open the device SEL (NULL: the default) and run every probe.  Returns 0,
 * or -1 with err; *no_device tells a device that cannot be used (no match,
 * a failed dispatch) from a probe module that failed to build (internal). */
int ch_characterize(const char *sel, ch_report *out, bool *no_device, char *err, size_t errn);
void ch_report_free(ch_report *r);
/* The result of probe id, or NULL. */
const ch_result *ch_find(const ch_report *r, const char *id);
/* The module text of a probe (malloc'd): what characterize runs. */
char *ch_module_text(const ch_probe *p);
/* Which label the observed results select (into buf). */
const char *ch_verdict(const ch_probe *p, const uint64_t *observed, char *buf, size_t n);

#endif
