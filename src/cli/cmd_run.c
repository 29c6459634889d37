/* tiefuzz run: the campaign. */
#include <stdio.h>
#include <string.h>
#include "options.h"
#include "engine/campaign.h"
#include "engine/findings.h"
#include "engine/jobs.h"

static const char help[] =
    "usage: tiefuzz run [OP-GLOB...] [--device SEL] [--lowering direct|exact] [--gen CLASS,...] [--seed N]\n"
    "                   [--cases N | --time DURATION] [--json FILE] [--quiet] [--shader FILE]\n"
    "                   [--ctrl NAME=VALUE,...] [--param NAME=VALUE,...] [--batch N] [--timeout DURATION]\n"
    "                   [--show N] [--keep N] [--strict-nan] [--validate] [--audit N]\n"
    "                   [--findings DIR | --no-findings] [--no-minimize] [--known DIR|auto] [--shard K/N] [--jobs N]\n"
    "                   [--translator CMD]\n"
    "--translator CMD: CMD gives the module for each control setting (README, 'Bring your own translator').\n"
    "With no OP-GLOB, every translated op; with no --cases or --time, 60 seconds in all.\n"
    "--gen classes (default all, cycled): %s.\n"
    "--cases is per op; --time is for all ops together, shared evenly.\n"
    "--shard K/N runs every N-th block of 262,144 cases starting at block K: N shards cover one run.\n"
    "--jobs N runs the campaign on N worker processes, each with its own device handle, and merges\n"
    "their results: the same cases, findings and summary as one process (time-bound runs: N times\n"
    "the cases).  Workers take chunks of 65,536 cases in turn; no more start than there are chunks.\n"
    "Findings: one minimized file per new signature in DIR (default findings/); known divergences\n"
    "(default corpus/known) are reported apart and do not change the exit status.  --known auto: the rules\n"
    "'characterize --known-rules' derives for the device instead (./auto names a directory called auto).\n"
    "Each signature gets a triage verdict (translation, device, model, unknown; README, 'Triage').\n"
    "--audit N: the exact model re-checks every N-th case and every disagreement against the fast\n"
    "host path (default 256; 0: disagreements only); a difference is an internal error (exit 4).\n"
    "Exit: 0 no unknown disagreement, 1 disagreement, 2 bad usage or input, 3 no usable device, 4 internal error.\n";

int cmd_run(int argc, char **argv)
{
    cli_args a = {argc, argv, 1, "run", false};
    eng_options o;
    eng_options_default(&o);
    const char *globs[64];
    unsigned n_globs = 0;
    const char *v;
    bool have_time = false;
    cli_gen_slots slots = {&o.seed, &o.cases, o.classes, &o.n_classes};
    while (a.i < argc && !a.failed) {
        if (cli_flag(&a, "--help")) {
            char names[512];
            printf(help, cli_class_names(names, sizeof names));
            return 0;
        } else if (cli_flag(&a, "--quiet"))
            o.quiet = true;
        else if (cli_flag(&a, "--validate"))
            o.validation = true;
        else if (cli_flag(&a, "--strict-nan"))
            o.strict_nan = true;
        else if (cli_flag(&a, "--no-minimize"))
            o.minimize = false;
        else if (cli_flag(&a, "--no-findings"))
            o.findings_dir = NULL;
        else if ((v = cli_value(&a, "--findings")))
            o.findings_dir = v;
        else if ((v = cli_value(&a, "--known")))
            o.known_dir = v;
        else if ((v = cli_value(&a, "--shard"))) {
            if (sscanf(v, "%u/%u", &o.shard, &o.shards) != 2 || o.shards == 0 || o.shard >= o.shards)
                return cli_fail("run", "--shard '%s': expected K/N with 0 <= K < N", v);
        }
        else if ((v = cli_value(&a, "--jobs"))) {
            uint64_t j;
            if (!cli_parse_u64(v, &j) || j < 1 || j > 256)
                return cli_fail("run", "--jobs '%s': expected 1 to 256 worker processes", v);
            o.jobs = (unsigned)j;
        }
        else if ((v = cli_value(&a, "--device")))
            o.device = v;
        else if ((v = cli_value(&a, "--lowering"))) {
            int l = isa_lowering_parse(v);
            if (l < 0)
                return cli_fail("run", "--lowering '%s': expected direct or exact", v);
            o.lowering = (isa_lowering)l;
        } else if (cli_gen_option(&a, &slots))
            continue;
        else if ((v = cli_value(&a, "--time"))) {
            if (!cli_parse_duration(v, &o.seconds) || o.seconds <= 0)
                return cli_fail("run", "--time '%s': expected a duration such as 90s, 5m or 1h", v);
            have_time = true;
        } else if ((v = cli_value(&a, "--json")))
            o.json_path = v;
        else if ((v = cli_value(&a, "--shader")))
            o.shader_path = v;
        else if ((v = cli_value(&a, "--translator")))
            o.translator = v;
        else if ((v = cli_value(&a, "--ctrl")))
            o.ctrl_text = v;
        else if ((v = cli_value(&a, "--param")))
            o.param_text = v;
        else if ((v = cli_value(&a, "--batch"))) {
            uint64_t b;
            if (!cli_parse_u64(v, &b) || b < 1 || b > (1u << 22))
                return cli_fail("run", "--batch '%s': expected 1 to 4194304 tuples", v);
            o.batch = (unsigned)b;
        } else if ((v = cli_value(&a, "--timeout"))) {
            double s;
            if (!cli_parse_duration(v, &s) || s <= 0)
                return cli_fail("run", "--timeout '%s': expected a duration", v);
            o.timeout_ms = (unsigned)(s * 1000);
        } else if ((v = cli_value(&a, "--show"))) {
            uint64_t n;
            if (!cli_parse_u64(v, &n))
                return cli_fail("run", "--show '%s': expected a number", v);
            o.show = (unsigned)n;
        } else if ((v = cli_value(&a, "--audit"))) {
            uint64_t n;
            if (!cli_parse_u64(v, &n) || n > UINT32_MAX)
                return cli_fail("run", "--audit '%s': expected a number (every N-th case; 0: disagreements only)", v);
            o.audit = (unsigned)n;
        } else if ((v = cli_value(&a, "--keep"))) {
            uint64_t n;
            if (!cli_parse_u64(v, &n) || n > 1000000)
                return cli_fail("run", "--keep '%s': expected a number up to 1000000", v);
            o.keep = (unsigned)n;
        } else if (a.failed)
            break;
        else if (argv[a.i][0] == '-')
            return cli_fail("run", "unknown option '%s'", argv[a.i]);
        else if (!cli_printable(argv[a.i]))  /* op names are printable ASCII: no glob with other bytes matches */
            return cli_fail("run", "no op matches '%s' (see 'tiefuzz ops')", argv[a.i]);
        else if (n_globs < 64)
            globs[n_globs++] = argv[a.i++];
        else
            return cli_fail("run", "too many op globs");
    }
    if (a.failed)
        return EXIT_USAGE;
    if (o.cases && have_time) /* o.cases is 0 (time-bound) unless --cases gave it */
        return cli_fail("run", "give --cases or --time, not both");
    if (o.translator && o.shader_path)
        return cli_fail("run", "give --shader or --translator, not both");
    o.globs = globs;
    o.n_globs = n_globs;
    /* Bad usage first, so that it creates no findings directory. */
    const isa_op *ops[ENG_MAX_OPS];
    int n = eng_check_run(&o, ops);
    if (n < 0)
        return -n;
    int stack = cli_check_stack("run");
    if (stack)
        return stack;
    /* One writer a findings directory for the whole run, --jobs workers
     * included (they write into scratch directories the parent merges). */
    eng_dir_lock lock;
    char err[4400];
    int rc = eng_dir_lock_take(o.findings_dir, &lock, err, sizeof err);
    if (rc != ENG_LOCK_HELD) {
        fprintf(stderr, "tiefuzz run: %s\n", err);
        return rc == ENG_LOCK_BUSY ? EXIT_USAGE : EXIT_INTERNAL;
    }
    int status = o.jobs > 1 ? eng_run_jobs(&o) : eng_run(&o);
    eng_dir_lock_release(&lock);
    return status;
}
