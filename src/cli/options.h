/* cli/options: the small argument helpers every subcommand shares. */
#ifndef TIEFUZZ_CLI_OPTIONS_H
#define TIEFUZZ_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "engine/campaign.h"   /* EXIT_*: the exit statuses every subcommand returns */
#include "gen/gen.h"
#include "isa/isa.h"

typedef struct {
    int argc;
    char **argv;
    int i;
    const char *cmd;
    bool failed;
} cli_args;

/* argv[i] is the flag: consume it. */
bool cli_flag(cli_args *a, const char *name);
/* argv[i] is --name VALUE or --name=VALUE: consume, return VALUE (NULL if not this option;
 * a missing value marks the args failed with a message). */
const char *cli_value(cli_args *a, const char *name);
/* Print "tiefuzz CMD: message" (one line, at most 2 KiB) with cli_escape applied, and return EXIT_USAGE. */
int cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s with each byte outside printable ASCII written as \xHH (truncated to fit buf), for echoing
 * user text in a message without sending raw bytes to the terminal. A backslash stays as it is,
 * so escaping twice changes nothing. Returns buf. */
const char *cli_escape(const char *s, char *buf, size_t n);
/* Whether s is printable ASCII only (what op names, globs, controls and parameters are). */
bool cli_printable(const char *s);
/* Decimal, 0x hex or 0 octal digits only, up to 2^64 - 1; false for anything else or more. */
bool cli_parse_u64(const char *s, uint64_t *out);
/* "90", "90s", "500ms", "5m", "1h". */
bool cli_parse_duration(const char *s, double *seconds);
/* Check the host floating-point environment; returns 0 or prints and returns EXIT_INTERNAL. */
int cli_check_fp_environment(void);
/* For the commands that generate cases (run, selftest): generation keeps
 * its 1,024-case blocks on the stack of the thread that runs it, the main
 * thread among them.  A soft stack limit below ENG_THREAD_STACK is raised
 * toward it, as far as the hard limit allows; 0, or EXIT_USAGE with a
 * message naming cmd where it stays below ENG_STACK_NEEDED. */
int cli_check_stack(const char *cmd);

/* The most --cases per op: far more than any run, and sums of cases and blocks stay in 64 bits. */
#define CLI_MAX_CASES (UINT64_C(1) << 62)
/* Where --gen, --seed and --cases (run, gen, selftest) store their values; cases NULL: no --cases. */
typedef struct {
    uint64_t *seed;
    uint64_t *cases;
    gen_class *classes; /* 64 slots */
    unsigned *n_classes;
} cli_gen_slots;
/* argv[i] is --gen, --seed or --cases: consume it, store its value and return true (a bad value
 * prints why and marks the args failed); false when it is another argument. */
bool cli_gen_option(cli_args *a, const cli_gen_slots *s);
/* Every generator class name, from the class table, separated by spaces. */
const char *cli_class_names(char *buf, size_t n);

int cmd_ops(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_shader(int argc, char **argv);
int cmd_repro(int argc, char **argv);
int cmd_minimize(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_fit(int argc, char **argv);
int cmd_selftest(int argc, char **argv);
int cmd_characterize(int argc, char **argv);
/* Resolve OP and apply --ctrl / --param texts (either may be NULL).
 * Returns 0, or prints why and returns EXIT_USAGE. */
int cli_instance(const char *cmd, const char *op_name, const char *ctrl, const char *param, isa_instance *out);
#endif
