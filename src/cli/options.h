/* cli/options: the small argument helpers every subcommand shares. */
#ifndef TIEFUZZ_CLI_OPTIONS_H
#define TIEFUZZ_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

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
/* Print "tiefuzz CMD: message" and return 2. */
int cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool cli_parse_u64(const char *s, uint64_t *out);
/* "90", "90s", "500ms", "5m", "1h". */
bool cli_parse_duration(const char *s, double *seconds);
/* Check the host floating-point environment; returns 0 or prints and returns 4. */
int cli_check_fp_environment(void);

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



#include "isa/isa.h"
/* Resolve OP and apply --ctrl / --param texts (either may be NULL).
 * Returns 0, or prints why and returns 2. */
int cli_instance(const char *cmd, const char *op_name, const char *ctrl, const char *param, isa_instance *out);
#endif
