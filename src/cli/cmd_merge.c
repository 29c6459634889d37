/* tiefuzz merge: the finding directories of several shards or machines
 * into one.  A finding's file name is its op and signature, so the union is
 * by name.  Where several directories hold the same signature, the one
 * kept is, between runs of the same seed, the finding of the earliest case
 * (the one an unsharded run would have minimized and written, so merged
 * shards give that run's files byte for byte) and otherwise the simplest
 * case (fewest significant bits, eng_case_complexity); the first directory
 * on the command line wins ties.  The kept file's count line becomes the
 * sum of the counts; all else is copied byte for byte (explanation intact),
 * atomically.  Every input is read and checked before anything is written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "options.h"
#include "engine/findings.h"
#include "engine/minimize.h"
#include "io/finding.h"
#include "io/json.h"

static const char help[] =
    "usage: tiefuzz merge DIR... [-o DIR] [--json FILE]\n"
    "Merges finding directories (e.g. those of 'tiefuzz run --shard K/N' jobs) into -o DIR\n"
    "(default findings/), which may be one of the inputs or already hold findings.  For a signature\n"
    "found more than once, the finding of the earliest case is kept when the runs share a seed (as one\n"
    "unsharded run would have written it), else the simplest case; its count becomes the sum.\n"
    "--json FILE writes the merged list (signature, op, kind, total count, directories).\n"
    "-o DIR is locked for the merge: a run or merge already writing it makes this one refuse.\n"
    "Exit: 0 merged, 2 bad usage, an unreadable or corrupt finding or -o DIR in use (nothing written),\n"
    "4 a write failed.\n";

typedef struct {
    char name[256];        /* <op>-<signature>.finding */
    char path[IO_PATH_MAX]; /* the copy that is kept */
    char *bytes;
    size_t len;
    unsigned complexity;
    io_finding rec;
    uint64_t total_count;
    unsigned n_dirs;
} merged;

typedef struct {
    merged *items;
    unsigned n;
} merge_set;

static merged *find_name(merge_set *s, const char *name)
{
    for (unsigned i = 0; i < s->n; i++)
        if (!strcmp(s->items[i].name, name))
            return &s->items[i];
    return NULL;
}

/* Read, check and fold one finding file into the set. */
static int add_file(merge_set *s, const char *dir, const char *name, char *err, size_t errn)
{
    merged m;
    memset(&m, 0, sizeof m);
    if ((size_t)snprintf(m.name, sizeof m.name, "%s", name) >= sizeof m.name ||
        !io_path_join(m.path, sizeof m.path, dir, name)) {
        snprintf(err, errn, "%.600s/%.300s: path too long", dir, name);
        return -1;
    }
    if (io_read_file(m.path, IO_FINDING_MAX_BYTES, &m.bytes, &m.len, err, errn))
        return -1;
    if (io_finding_parse(m.bytes, m.len, m.path, &m.rec, err, errn)) {
        free(m.bytes);
        return -1;
    }
    eng_case c;
    isa_lowering lowering;
    const char *why = eng_finding_case(&m.rec, &c, &lowering);
    if (why) {
        snprintf(err, errn, "%s: %s", m.path, why);
        free(m.bytes);
        return -1;
    }
    m.complexity = eng_case_complexity(&c);
    m.total_count = m.rec.count;
    m.n_dirs = 1;
    merged *have = find_name(s, name);
    if (!have) {
        s->items = realloc(s->items, (s->n + 1) * sizeof *s->items);
        s->items[s->n++] = m;
        return 0;
    }
    have->total_count += m.rec.count;
    have->n_dirs++;
    bool better = m.rec.seed == have->rec.seed ? m.rec.case_index < have->rec.case_index
                                               : m.complexity < have->complexity;
    if (better) {   /* keep this case, its bytes and record */
        uint64_t total = have->total_count;
        unsigned dirs = have->n_dirs;
        free(have->bytes);
        *have = m;
        have->total_count = total;
        have->n_dirs = dirs;
    } else {
        free(m.bytes);
    }
    return 0;
}

static int add_dir(merge_set *s, const char *dir, char *err, size_t errn)
{
    char **names;
    unsigned k;
    if (io_dir_list(dir, ".finding", &names, &k, err, errn))
        return -1;
    int rc = 0;
    for (unsigned i = 0; i < k && !rc; i++)
        rc = add_file(s, dir, names[i], err, errn);
    io_names_free(names, k);
    return rc;
}

typedef struct {
    const char *bytes;
    size_t len;
} raw_bytes;

static void write_raw(FILE *f, void *ctx)
{
    const raw_bytes *r = ctx;
    fwrite(r->bytes, 1, r->len, f);
}

static void write_report(FILE *f, void *ctx)
{
    const merge_set *s = ctx;
    io_json j;
    json_begin(&j, f);
    json_object(&j, NULL);
    json_string(&j, "tool", "tiefuzz merge");
    json_uint(&j, "format", 1);
    json_array(&j, "findings");
    for (unsigned i = 0; i < s->n; i++) {
        const merged *m = &s->items[i];
        char sig[17];
        snprintf(sig, sizeof sig, "%016llx", (unsigned long long)m->rec.signature);
        json_object(&j, NULL);
        json_string(&j, "signature", sig);
        json_string(&j, "op", m->rec.op);
        json_string(&j, "kind", m->rec.kind);
        json_uint(&j, "count", m->total_count);
        json_uint(&j, "directories", m->n_dirs);
        json_uint(&j, "complexity", m->complexity);
        json_string(&j, "kept_from", m->path);
        json_end_object(&j);
    }
    json_end_array(&j);
    json_end_object(&j);
    fputc('\n', f);
}

/* Every input read and checked; the output directory's own findings take
 * part, first, so a merge into it never loses one.  0, or EXIT_USAGE after saying why. */
static int read_inputs(merge_set *s, const char *out_dir, bool out_exists, const char *const *dirs, unsigned n)
{
    char err[2048];   /* a path of up to 1 KiB and what is wrong with it */
    bool bad = out_exists && add_dir(s, out_dir, err, sizeof err);
    for (unsigned i = 0; i < n && !bad; i++)
        bad = strcmp(dirs[i], out_dir) && add_dir(s, dirs[i], err, sizeof err);
    if (bad)
        fprintf(stderr, "tiefuzz merge: %s (nothing written)\n", err);
    return bad ? EXIT_USAGE : 0;
}

/* 0 with -o DIR locked (and made); else the exit status, after saying why:
 * another writer is bad usage, an unwritable directory a write failure (EXIT_INTERNAL). */
static int lock_out_dir(const char *dir, eng_dir_lock *lock)
{
    char err[4400];
    int rc = eng_dir_lock_take(dir, lock, err, sizeof err);
    if (rc == ENG_LOCK_HELD)
        return 0;
    fprintf(stderr, "tiefuzz merge: %s (nothing written)\n", err);
    return rc == ENG_LOCK_BUSY ? EXIT_USAGE : EXIT_INTERNAL;
}

int cmd_merge(int argc, char **argv)
{
    cli_args a = {argc, argv, 1, "merge", false};
    const char *out_dir = "findings", *json_path = NULL, *dirs[256], *v;
    unsigned n_dirs = 0;
    while (a.i < argc && !a.failed) {
        if (cli_flag(&a, "--help")) {
            fputs(help, stdout);
            return 0;
        } else if ((v = cli_value(&a, "-o")))
            out_dir = v;
        else if ((v = cli_value(&a, "--json")))
            json_path = v;
        else if (a.failed)
            break;
        else if (argv[a.i][0] == '-')
            return cli_fail("merge", "unknown option '%s'", argv[a.i]);
        else if (n_dirs < 256)
            dirs[n_dirs++] = argv[a.i++];
        else
            return cli_fail("merge", "too many directories (at most 256)");
    }
    if (a.failed)
        return EXIT_USAGE;
    if (!n_dirs) {
        fputs(help, stderr);
        return EXIT_USAGE;
    }
    merge_set s = {NULL, 0};
    int rc = 0;
    struct stat st;
    bool out_exists = stat(out_dir, &st) == 0 && S_ISDIR(st.st_mode);
    eng_dir_lock lock = {-1};
    /* An existing -o DIR is locked before it is read, so that no run writes
     * it under the merge; a new one is locked as it is made. */
    if (out_exists)
        rc = lock_out_dir(out_dir, &lock);
    if (!rc)
        rc = read_inputs(&s, out_dir, out_exists, dirs, n_dirs);
    if (!rc && !out_exists)
        rc = lock_out_dir(out_dir, &lock);
    unsigned written = 0;
    for (unsigned i = 0; i < s.n && !rc; i++) {
        merged *m = &s.items[i];
        char target[IO_PATH_MAX];
        if (!io_path_join(target, sizeof target, out_dir, m->name)) {
            fprintf(stderr, "tiefuzz merge: %.600s/%s: path too long\n", out_dir, m->name);
            rc = EXIT_USAGE;
            break;
        }
        char *counted = NULL;
        if (m->total_count != m->rec.count && !(counted = io_finding_with_count(m->bytes, m->len, m->total_count))) {
            fprintf(stderr, "tiefuzz merge: %s: no count line to update\n", m->path);
            rc = EXIT_INTERNAL;
            break;
        }
        if (!counted && !strcmp(target, m->path))
            continue;   /* the kept copy is already there, as it is */
        raw_bytes r = {counted ? counted : m->bytes, counted ? strlen(counted) : m->len};
        if (io_write_atomic(target, write_raw, &r)) {
            fprintf(stderr, "tiefuzz merge: %s: %s\n", target, strerror(errno));
            rc = EXIT_INTERNAL;
        } else {
            written++;
        }
        free(counted);
    }
    if (!rc) {
        printf("%-18s %-28s %-22s %10s %5s  %s\n", "signature", "op", "kind", "count", "dirs", "kept from");
        for (unsigned i = 0; i < s.n; i++) {
            const merged *m = &s.items[i];
            printf("%016llx   %-28s %-22s %10llu %5u  %s\n", (unsigned long long)m->rec.signature, m->rec.op,
                   m->rec.kind, (unsigned long long)m->total_count, m->n_dirs, m->path);
        }
        printf("%u findings in %s (%u files written)\n", s.n, out_dir, written);
        if (json_path && io_write_atomic(json_path, write_report, &s)) {
            fprintf(stderr, "tiefuzz merge: %s: %s\n", json_path, strerror(errno));
            rc = EXIT_INTERNAL;
        }
    }
    eng_dir_lock_release(&lock);
    for (unsigned i = 0; i < s.n; i++)
        free(s.items[i].bytes);
    free(s.items);
    return rc;
}
