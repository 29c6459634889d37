/* engine/jobs: one campaign on N worker processes; see jobs.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cover.h"
#include "explain.h"
#include "jobs.h"
#include "known_derive.h"
#include "worker_report.h"

/* ---- merging ---- */

static int by_case_index(const void *pa, const void *pb)
{
    const eng_kept_case *a = pa, *b = pb;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Fold one worker's op report into the run's: counts and CPU times add
 * up, the op's time is the longest worker's (they ran side by side), and the kept
 * disagreements are appended (sorted and cut to --keep at the end). */
static void merge_op(eng_op_report *into, const eng_op_report *from)
{
    into->cases += from->cases;
    into->disagreements += from->disagreements;
    into->audited += from->audited;
    eng_stats_merge(&into->stats, &from->stats);
    into->cpu_seconds += from->cpu_seconds;
    if (from->seconds > into->seconds)
        into->seconds = from->seconds;
    if (!into->declared[0])
        memcpy(into->declared, from->declared, sizeof into->declared);
    if (!into->skipped[0])
        memcpy(into->skipped, from->skipped, sizeof into->skipped);
    into->stopped = into->stopped || from->stopped;
    for (int i = 0; i < 8; i++)
        into->cover_rows[i] |= from->cover_rows[i];
    if (from->n_kept) {
        into->kept = realloc(into->kept, (size_t)(into->n_kept + from->n_kept) * sizeof *into->kept);
        memcpy(into->kept + into->n_kept, from->kept, (size_t)from->n_kept * sizeof *from->kept);
        into->n_kept += from->n_kept;
        into->kept_cap = into->n_kept;
    }
}

/* The first disagreements of each op by case index, as one process keeps
 * them, and the first --show of them explained, as one process explains. */
static void finish_kept(const eng_options *o, eng_op_report *r)
{
    if (r->n_kept > 1)
        qsort(r->kept, r->n_kept, sizeof *r->kept, by_case_index);
    if (r->n_kept > o->keep)
        r->n_kept = o->keep;
    for (unsigned k = 0; k < r->n_kept && k < o->show && !o->quiet; k++) {
        const eng_kept_case *c = &r->kept[k];
        fprintf(stderr, "\ntiefuzz: disagreement in %s, case %llu (seed %llu):\n", r->op->name,
                (unsigned long long)c->index, (unsigned long long)o->seed);
        eng_explain(stderr, &c->in, c->words, c->device, "  ");
    }
}

/* ---- the workers' scratch directory ---- */

static void remove_dir_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char path[IO_PATH_MAX];
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) && errno == EISDIR) {
            remove_dir_files(path);
            rmdir(path);
        }
    }
    closedir(d);
}

static volatile sig_atomic_t parent_interrupted;
static void on_parent_sigint(int sig)
{
    (void)sig;
    parent_interrupted = 1;
}

/* A worker: the same campaign, its share of the cases, nothing printed but
 * errors; results go to DIR/job-K.report and DIR/job-K/. */
static int run_worker(const eng_options *o, unsigned k, const char *scratch, eng_progress *progress)
{
    char findings_dir[1100], report_path[1100];
    snprintf(findings_dir, sizeof findings_dir, "%s/job-%u", scratch, k);
    snprintf(report_path, sizeof report_path, "%s/job-%u.report", scratch, k);
    eng_options w = *o;
    w.jobs = 1;
    w.job = k;
    w.n_jobs = o->jobs;
    w.quiet = true;
    w.show = 0;
    w.keep = o->keep > o->show ? o->keep : o->show;  /* the parent explains the first --show */
    w.json_path = NULL;
    w.findings_dir = o->findings_dir ? findings_dir : NULL;
    /* The machine's cores are shared among the workers' generation threads. */
    w.threads = o->threads / o->jobs ? o->threads / o->jobs : 1;
    eng_worker_io io = {report_path, progress};
    return eng_run_worker(&w, &io);
}

/* ---- a parent killed outright ----
 *
 * The workers die with their parent (SIGTERM: each stops cleanly and
 * leaves its report and finding files in the scratch directory), and the
 * scratch directory names its owner, so that a later --jobs run can point
 * at what a killed one left (tiefuzz merge brings it in). */

static void write_owner(const char *scratch, const char *findings_dir)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/owner", scratch);
    FILE *f = fopen(path, "w");
    if (!f)
        return;  /* only the orphan note needs it */
    fprintf(f, "pid %ld\nfindings %s\n", (long)getpid(), findings_dir ? findings_dir : "-");
    fclose(f);
}

static bool alive(long pid) { return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM); }

/* Scratch directories under tmp whose owner is gone and which still hold
 * finding files: named on stderr, with the command that recovers them. */
static void note_orphans(const char *tmp)
{
    DIR *d = opendir(tmp);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, "tiefuzz-jobs-", 13))
            continue;
        char path[1100], findings[1100] = "-";
        long pid = 0;
        snprintf(path, sizeof path, "%s/%s/owner", tmp, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int got = fscanf(f, "pid %ld findings %1099[^\n]", &pid, findings);
        fclose(f);
        if (got < 1 || alive(pid))
            continue;
        fprintf(stderr, "tiefuzz run: %s/%s holds what the workers of an earlier --jobs run (pid %ld, findings %s) "
                "wrote before it was killed; 'tiefuzz merge -o DIR %s/%s/job-*/' brings their finding files in\n",
                tmp, e->d_name, pid, findings, tmp, e->d_name);
    }
    closedir(d);
}

/* In a new worker: die with the parent, even one killed outright. */
static void follow_parent(pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)  /* it died before the line above */
        raise(SIGTERM);
}

typedef struct {
    char **lines;
    unsigned n;
} line_set;

/* Print the messages worker k wrote (DIR/job-K.err) that no worker has
 * printed yet: N workers meeting the same failure say it once. */
static void relay_messages(const char *scratch, unsigned k, line_set *seen)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/job-%u.err", scratch, k);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[0] == '\n')
            continue;
        bool again = false;
        for (unsigned i = 0; i < seen->n && !again; i++)
            again = !strcmp(seen->lines[i], line);
        if (again)
            continue;
        fputs(line, stderr);
        if (line[len - 1] != '\n')
            fputc('\n', stderr);
        seen->lines = realloc(seen->lines, (seen->n + 1) * sizeof *seen->lines);
        seen->lines[seen->n++] = strdup(line);
    }
    free(line);
    fclose(f);
}

/* A worker's exit status from waitpid's (ws -1: it could not be waited for). */
static int exit_of(const eng_options *o, unsigned k, int ws)
{
    if (ws != -1 && WIFEXITED(ws))
        return WEXITSTATUS(ws);
    if (ws != -1 && WIFSIGNALED(ws))
        fprintf(stderr, "\ntiefuzz run: worker %u of %u was killed by signal %d (%s); its share of the cases is "
                "missing\n", k, o->jobs, WTERMSIG(ws), strsignal(WTERMSIG(ws)));
    return EXIT_INTERNAL;
}

/* All workers together: the ops they are on, cases, rate, disagreements. */
static void status_line(const eng_options *o, const isa_op *const *ops, unsigned n, eng_progress *progress,
                        const bool *reaped, unsigned started, double t0)
{
    uint64_t cases = 0, disagreements = 0;
    unsigned lo = n, hi = 0;
    for (unsigned k = 0; k < started; k++) {
        cases += atomic_load_explicit(&progress[k].cases, memory_order_relaxed);
        disagreements += atomic_load_explicit(&progress[k].disagreements, memory_order_relaxed);
        unsigned op = atomic_load_explicit(&progress[k].op, memory_order_relaxed);
        if (!reaped[k] && op < n) {
            lo = op < lo ? op : lo;
            hi = op > hi ? op : hi;
        }
    }
    double t = eng_now() - t0;
    if (lo == n)
        lo = hi = 0;
    char which[48];
    if (hi > lo)
        snprintf(which, sizeof which, "ops %u-%u of %u", lo + 1, hi + 1, n);
    else
        snprintf(which, sizeof which, "op %u of %u", lo + 1, n);
    fprintf(stderr, "\r\033[K%u jobs  %-24s %-14s %12llu cases %10.0f/s %6llu disagreements", o->jobs, ops[lo]->name,
            which, (unsigned long long)cases, t > 0 ? (double)cases / t : 0.0, (unsigned long long)disagreements);
    if (!o->cases)
        fprintf(stderr, "  %5.1fs left", o->seconds > t ? o->seconds - t : 0.0);
    fflush(stderr);
}

/* How many chunks of ENG_CHUNK cases a --cases run (of its shard) has to share. */
static uint64_t chunks_to_share(const eng_options *o)
{
    eng_options one = *o;
    one.n_jobs = 1;
    uint64_t count = 0;
    for (uint64_t i = eng_next_owned(&one, 0); i < o->cases && count < o->jobs;
         i = eng_next_owned(&one, (i / ENG_CHUNK + 1) * ENG_CHUNK))
        count++;
    return count;
}

/* ---- the run: start, wait, merge ---- */

/* One --jobs run's state, shared by its three steps. */
typedef struct {
    const eng_options *o;
    const isa_op *const *ops;
    unsigned n;
    char scratch[1024];
    pid_t *pids;
    int *exits;                /* each worker's exit status */
    unsigned started;
    eng_progress *progress;    /* shared memory, one per worker */
    io_known known;
    const char *known_dir;
} job_run;

/* The known rules, the scratch directory and the shared memory; 0 or an exit status. */
static int open_run(job_run *j)
{
    const eng_options *o = j->o;
    char err[4096];
    j->known_dir = o->known_dir ? o->known_dir : eng_default_known_dir();
    if (eng_known_for_run(o->known_dir, o->device, &j->known, err, sizeof err)) {
        fprintf(stderr, "tiefuzz run: known divergences: %s\n", err);
        return EXIT_USAGE;
    }
    const char *tmp = getenv("TMPDIR");
    tmp = tmp && *tmp ? tmp : "/tmp";
    note_orphans(tmp);
    snprintf(j->scratch, sizeof j->scratch, "%s/tiefuzz-jobs-XXXXXX", tmp);
    if (!mkdtemp(j->scratch)) {
        fprintf(stderr, "tiefuzz run: --jobs: cannot make a scratch directory %s (%s)\n", j->scratch, strerror(errno));
        j->scratch[0] = 0;
        return EXIT_INTERNAL;
    }
    write_owner(j->scratch, o->findings_dir);
    j->pids = calloc(o->jobs, sizeof *j->pids);
    j->exits = calloc(o->jobs, sizeof *j->exits);
    /* Shared with the workers: how far each is, for the status line. */
    j->progress = mmap(NULL, o->jobs * sizeof *j->progress, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (j->progress == MAP_FAILED) {
        j->progress = NULL;
        fprintf(stderr, "tiefuzz run: --jobs: cannot map shared memory (%s)\n", strerror(errno));
        return EXIT_INTERNAL;
    }
    memset(j->progress, 0, o->jobs * sizeof *j->progress);
    return 0;
}

static void close_run(job_run *j)
{
    free(j->exits);
    free(j->pids);
    if (j->progress)
        munmap(j->progress, j->o->jobs * sizeof *j->progress);
    io_known_free(&j->known);
}

/* In the child: never returns. */
static void worker_main(job_run *j, unsigned k, pid_t parent)
{
    follow_parent(parent);
    /* From here on Ctrl-C ends the worker's campaign cleanly, with a report. */
    eng_catch_interrupts();
    /* Its messages go to a file the parent relays: once, not once per worker,
     * and not through the parent's status line. */
    char err_path[1100];
    snprintf(err_path, sizeof err_path, "%s/job-%u.err", j->scratch, k);
    int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
        dup2(fd, 2);
        close(fd);
    }
    int rc = run_worker(j->o, k, j->scratch, &j->progress[k]);
    fflush(NULL);
    _exit(rc);
}

/* Fork the workers (no Vulkan call has been made in this process: each
 * starts clean).  EXIT_AGREE, or EXIT_INTERNAL when one could not start. */
static int start_workers(job_run *j)
{
    fflush(NULL);
    pid_t parent = getpid();
    for (unsigned k = 0; k < j->o->jobs; k++, j->started++) {
        j->pids[k] = fork();
        if (j->pids[k] == 0)
            worker_main(j, k, parent);
        if (j->pids[k] < 0) {
            fprintf(stderr, "tiefuzz run: --jobs: cannot start worker %u (%s)\n", k, strerror(errno));
            return EXIT_INTERNAL;
        }
    }
    return EXIT_AGREE;
}

/* Reap every worker, with a live status line on a terminal; a Ctrl-C or
 * SIGTERM to this process is passed on.  Returns status, or the first
 * worker's failure (2-4) when status was EXIT_AGREE. */
static int wait_workers(job_run *j, int status)
{
    const eng_options *o = j->o;
    bool forwarded = false, tty = isatty(2) && !o->quiet;
    bool *reaped = calloc(o->jobs, sizeof *reaped);
    unsigned left = j->started;
    double t0 = eng_now(), last_status = 0;
    line_set seen = {NULL, 0};
    while (left) {
        if (parent_interrupted && !forwarded) {
            /* Ctrl-C reaches the workers through the terminal; a signal sent
             * to this process alone is passed on, so they stop and report. */
            for (unsigned k = 0; k < j->started; k++)
                if (!reaped[k])
                    kill(j->pids[k], SIGINT);
            forwarded = true;
        }
        bool any = false;
        for (unsigned k = 0; k < j->started; k++) {
            if (reaped[k])
                continue;
            int ws;
            pid_t p = waitpid(j->pids[k], &ws, WNOHANG);
            if (p == 0 || (p < 0 && errno == EINTR))
                continue;
            reaped[k] = any = true;
            left--;
            if (tty)
                fprintf(stderr, "\r\033[K");
            relay_messages(j->scratch, k, &seen);
            j->exits[k] = exit_of(o, k, p < 0 ? -1 : ws);
            /* 0, 1 and 5 are outcomes (the parent judges the merged reports); 2-4 are failures. */
            if (j->exits[k] > EXIT_DISAGREE && j->exits[k] != EXIT_INCOMPLETE && status == EXIT_AGREE)
                status = j->exits[k];
        }
        if (left && tty && eng_now() - last_status >= 0.25) {
            status_line(o, j->ops, j->n, j->progress, reaped, j->started, t0);
            last_status = eng_now();
        }
        if (left && !any)
            nanosleep(&(struct timespec){0, 20000000}, NULL);
    }
    if (tty)
        fprintf(stderr, "\r\033[K");
    free(reaped);
    for (unsigned i = 0; i < seen.n; i++)
        free(seen.lines[i]);
    free(seen.lines);
    return status;
}

/* What the merge gathers from the workers' reports. */
typedef struct {
    eng_op_report *ops;
    eng_findings *findings;    /* NULL until a worker reported */
    vkd_info dev;
    char driver[600];
    eng_target target;
    unsigned validation_errors, reports, failed;
    bool interrupted, keep_scratch;
} merged_run;

/* Fold worker k's report into m; returns status, or a failure it met. */
static int absorb_worker(job_run *j, unsigned k, merged_run *m, int status)
{
    char path[1100], err[4096];
    m->failed += j->exits[k] > EXIT_DISAGREE && j->exits[k] != EXIT_INCOMPLETE;
    snprintf(path, sizeof path, "%s/job-%u.report", j->scratch, k);
    eng_worker_report w;
    if (eng_worker_report_read(path, j->n, &w, err, sizeof err)) {
        /* A worker that failed said why; one that exited cleanly must have a report. */
        if (j->exits[k] <= EXIT_DISAGREE) {
            fprintf(stderr, "tiefuzz run: worker %u: %s\n", k, err);
            status = status == EXIT_AGREE ? EXIT_INTERNAL : status;
        }
        /* Finding files it wrote before it died are not thrown away. */
        snprintf(path, sizeof path, "%s/job-%u", j->scratch, k);
        struct stat st;
        m->keep_scratch |= stat(path, &st) == 0;
        return status;
    }
    if (!m->reports++) {
        m->dev = w.h.dev;
        snprintf(m->driver, sizeof m->driver, "%s %s", m->dev.driver_name, m->dev.driver_info);
        eng_findings_options fo = {j->o->findings_dir, &j->known, j->o->minimize, j->o->seed};
        m->findings = eng_findings_create(&fo, NULL, &m->target);
    } else if (strcmp(m->dev.name, w.h.dev.name)) {
        fprintf(stderr, "tiefuzz run: workers opened different devices (%s, %s)\n", m->dev.name, w.h.dev.name);
        status = status == EXIT_AGREE ? EXIT_INTERNAL : status;
    }
    m->validation_errors += w.h.validation_errors;
    m->interrupted |= w.h.interrupted != 0;
    for (unsigned i = 0; i < j->n; i++)
        merge_op(&m->ops[i], &w.ops[i]);
    for (unsigned i = 0; i < w.h.n_findings; i++)
        if (eng_findings_absorb(m->findings, &w.findings[i], err, sizeof err)) {
            fprintf(stderr, "tiefuzz run: %s\n", err);
            status = status == EXIT_AGREE ? EXIT_USAGE : status;
            m->keep_scratch = true;
        }
    eng_worker_report_free(&w);
    return status;
}

/* The control pairs of the schedule rows any worker ran (the workers ran
 * disjoint parts of one deterministic schedule). */
static void count_pairs(const eng_options *o, eng_op_report *ops, unsigned n)
{
    const isa_op *sel[ENG_MAX_OPS];
    isa_instance *tmpl;
    unsigned usable;
    if (o->ctrl_text || o->shader_path || eng_prepare(o, sel, &tmpl, &usable) != (int)n)
        return;  /* controls fixed: no schedule */
    for (unsigned i = 0; i < n; i++) {
        eng_cover cov;
        eng_cover_make(&tmpl[i], o->seed, &cov);
        ops[i].pairs_legal = cov.legal;
        ops[i].pairs_reached = eng_cover_reached(&cov, ops[i].cover_rows);
        eng_cover_free(&cov);
    }
    free(tmpl);
}

/* Merge what the workers measured and conclude as one process would. */
static int merge_workers(job_run *j, int status)
{
    const eng_options *o = j->o;
    merged_run m = {.ops = calloc(j->n, sizeof *m.ops), .interrupted = parent_interrupted != 0};
    m.target = (eng_target){eng_lowering_label(o), m.dev.name, m.driver};
    for (unsigned i = 0; i < j->n; i++)
        m.ops[i].op = j->ops[i];
    for (unsigned k = 0; k < j->started; k++)
        status = absorb_worker(j, k, &m, status);
    count_pairs(o, m.ops, j->n);
    if (m.findings) {
        char err[4096];
        eng_findings_sort(m.findings);
        for (unsigned i = 0; i < j->n; i++)
            finish_kept(o, &m.ops[i]);
        if (eng_findings_finish(m.findings, err, sizeof err)) {
            fprintf(stderr, "tiefuzz run: %s\n", err);
            status = status == EXIT_AGREE ? EXIT_INTERNAL : status;
            m.keep_scratch = true;
        }
        if (status == EXIT_AGREE || m.failed)
            eng_mark_not_run(m.ops, j->n, m.interrupted);
        eng_outcome outcome = {.o = o, .dev = &m.dev, .reports = m.ops, .n = j->n, .findings = m.findings,
                               .known_dir = j->known_dir, .validation_errors = m.validation_errors,
                               .interrupted = m.interrupted, .workers = o->jobs, .workers_failed = m.failed};
        status = eng_report_conclude(&outcome, status);
    } else if (status == EXIT_AGREE) {
        status = EXIT_INTERNAL;  /* no worker reported and none said why */
        fprintf(stderr, "tiefuzz run: no worker reported\n");
    }
    if (m.keep_scratch) {
        fprintf(stderr, "tiefuzz run: the workers' finding files are kept in %s\n", j->scratch);
    } else {
        remove_dir_files(j->scratch);
        rmdir(j->scratch);
    }
    eng_findings_destroy(m.findings);
    for (unsigned i = 0; i < j->n; i++)
        free(m.ops[i].kept);
    free(m.ops);
    return status;
}

/* More workers than chunks would start idle processes and devices: the
 * run with fewer (this process alone for one).  -1 when not needed. */
static int with_fewer_workers(const eng_options *o)
{
    uint64_t chunks = o->cases ? chunks_to_share(o) : o->jobs;
    if (chunks >= o->jobs)
        return -1;
    eng_options fewer = *o;
    fewer.jobs = chunks ? (unsigned)chunks : 1;
    if (!o->quiet)
        fprintf(stderr, "tiefuzz: --jobs %u: %llu cases per op make %u chunk%s of 65,536 to share; %u worker%s\n",
                o->jobs, (unsigned long long)o->cases, fewer.jobs, fewer.jobs == 1 ? "" : "s", fewer.jobs,
                fewer.jobs == 1 ? " (this process)" : "s");
    return fewer.jobs > 1 ? eng_run_jobs(&fewer) : eng_run(&fewer);
}

int eng_run_jobs(const eng_options *o)
{
    const isa_op *ops[ENG_MAX_OPS];
    int n = eng_check_run(o, ops);
    if (n < 0)
        return -n;
    int fewer = with_fewer_workers(o);
    if (fewer >= 0)
        return fewer;
    job_run j = {.o = o, .ops = ops, .n = (unsigned)n};
    int status = open_run(&j);
    if (status) {
        if (j.scratch[0]) {
            remove_dir_files(j.scratch);
            rmdir(j.scratch);
        }
        close_run(&j);
        return status;
    }
    if (!o->quiet)
        fprintf(stderr, "tiefuzz: %u worker processes, lowering %s, seed %llu\n", o->jobs,
                eng_lowering_label(o), (unsigned long long)o->seed);
    /* Caught before the first fork, so no signal can end this process with workers running. */
    struct sigaction sa = {.sa_handler = on_parent_sigint}, old_int, old_term;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    status = start_workers(&j);
    status = wait_workers(&j, status);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    status = merge_workers(&j, status);
    close_run(&j);
    return status;
}
