/* Running the user's translator: one child process per op instance. */
#define _GNU_SOURCE  /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "translator.h"

extern char **environ;

/* What of the command's output a message quotes: enough for a compiler's
 * first errors, not a runaway log. */
#define OUTPUT_MAX 4096

struct eng_translator {
    char *cmd;
    unsigned timeout_ms;
    char dir[4096];   /* scratch directory for the modules, made on first use */
};

typedef struct {
    char text[OUTPUT_MAX + 1];
    size_t len, dropped;
} output;

eng_translator *eng_translator_create(const char *cmd, unsigned timeout_ms)
{
    eng_translator *t = calloc(1, sizeof *t);
    if (t) {
        t->cmd = strdup(cmd);
        t->timeout_ms = timeout_ms;
    }
    return t;
}

static void module_path(const eng_translator *t, char *buf, size_t n) { snprintf(buf, n, "%s/module", t->dir); }

void eng_translator_destroy(eng_translator *t)
{
    if (!t)
        return;
    if (t->dir[0]) {
        char path[4200];
        module_path(t, path, sizeof path);
        unlink(path);
        rmdir(t->dir);
    }
    free(t->cmd);
    free(t);
}

static int make_dir(eng_translator *t, char *err, size_t errn)
{
    if (t->dir[0])
        return 0;
    const char *tmp = getenv("TMPDIR");
    snprintf(t->dir, sizeof t->dir, "%s/tiefuzz-translator-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(t->dir)) {
        snprintf(err, errn, "--translator: cannot make a scratch directory %s: %s", t->dir, strerror(errno));
        t->dir[0] = 0;
        return -1;
    }
    return 0;
}

/* "OP --ctrl C --param P": the instance as the user would type it. */
static void setting_text(const isa_instance *in, char *buf, size_t n)
{
    char ctrl[512], param[512];
    snprintf(buf, n, "%s --ctrl %s --param %s", in->op->name, isa_controls_text(in, ctrl, sizeof ctrl),
             isa_params_text(in, param, sizeof param));
}

static const char *const our_vars[] = {"TIEFUZZ_OP", "TIEFUZZ_CTRL", "TIEFUZZ_K", "TIEFUZZ_PARAM", "TIEFUZZ_DEVICE",
                                       "TIEFUZZ_OUT"};
enum { N_VARS = sizeof our_vars / sizeof *our_vars };

static bool ours(const char *entry)
{
    for (unsigned i = 0; i < N_VARS; i++) {
        size_t k = strlen(our_vars[i]);
        if (!strncmp(entry, our_vars[i], k) && entry[k] == '=')
            return true;
    }
    return false;
}

/* This process's environment with the protocol's variables set (one
 * malloc'd block of pointers followed by their strings). */
static char **make_env(const isa_instance *in, const vkd_info *dev, const char *out_path)
{
    char ctrl[512], param[512], k[16] = "";
    if (in->op->literal)
        snprintf(k, sizeof k, "0x%08x", isa_literal_value(in));
    const char *value[N_VARS] = {in->op->name, isa_controls_text(in, ctrl, sizeof ctrl), k,
                                 isa_params_text(in, param, sizeof param), dev->name, out_path};
    size_t n = 0, bytes = 0;
    for (char **e = environ; *e; e++)
        n++;
    for (unsigned i = 0; i < N_VARS; i++)
        bytes += strlen(our_vars[i]) + strlen(value[i]) + 2;
    char **env = malloc((n + N_VARS + 1) * sizeof *env + bytes);
    if (!env)
        return NULL;
    char *s = (char *)(env + n + N_VARS + 1);
    size_t used = 0;
    for (char **e = environ; *e; e++)
        if (!ours(*e))
            env[used++] = *e;
    for (unsigned i = 0; i < N_VARS; i++) {
        env[used++] = s;
        s += sprintf(s, "%s=%s", our_vars[i], value[i]) + 1;
    }
    env[used] = NULL;
    return env;
}

/* The command in a process group of its own, so that a timeout kills what
 * it started too; stdout and stderr into one pipe. */
static int spawn(const char *cmd, char **env, pid_t *pid, int *read_fd, char *err, size_t errn)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC)) {
        snprintf(err, errn, "--translator: pipe: %s", strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    posix_spawnattr_init(&at);
    sigset_t none, dfl;
    sigemptyset(&none);
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGPIPE);  /* the campaign may ignore it; a shell pipeline must not */
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &dfl);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    char *argv[] = {"sh", "-c", (char *)cmd, NULL};
    int rc = posix_spawn(pid, "/bin/sh", &fa, &at, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(fds[1]);
    if (rc) {
        close(fds[0]);
        snprintf(err, errn, "--translator: cannot run /bin/sh: %s", strerror(rc));
        return -1;
    }
    *read_fd = fds[0];
    return 0;
}

static void keep_output(output *o, const char *buf, size_t n)
{
    size_t room = OUTPUT_MAX - o->len, take = n < room ? n : room;
    memcpy(o->text + o->len, buf, take);
    o->len += take;
    o->dropped += n - take;
    o->text[o->len] = 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Read what is in the pipe; true at its end. */
static bool drain(int fd, output *o)
{
    char buf[4096];
    for (;;) {
        ssize_t got = read(fd, buf, sizeof buf);
        if (got > 0)
            keep_output(o, buf, (size_t)got);
        else
            return got == 0 || (errno != EAGAIN && errno != EINTR);
    }
}

/* Read the output until the command exits (a child it left running may
 * hold the pipe open: it is not waited for) or the time is up.  Returns
 * the wait status, or -1 when it was killed for the timeout. */
static int collect(pid_t pid, int fd, unsigned timeout_ms, output *o)
{
    fcntl(fd, F_SETFL, O_NONBLOCK);
    double deadline = now() + timeout_ms / 1000.0;
    bool eof = false;
    for (;;) {
        if (!eof)
            eof = drain(fd, o);
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            if (!eof)
                drain(fd, o);  /* what it wrote last */
            return status;
        }
        double left = deadline - now();
        if (left <= 0) {
            kill(-pid, SIGKILL);  /* its process group: what it started goes too */
            waitpid(pid, &status, 0);
            return -1;
        }
        /* At the pipe's end poll would return at once: just wait a little. */
        struct pollfd p = {fd, POLLIN, 0};
        poll(&p, eof ? 0 : 1, left > 0.05 ? 50 : (int)(left * 1000) + 1);
    }
}

/* The output quoted below the message, each line marked. */
static void append_output(const output *o, char *err, size_t errn)
{
    size_t used = strlen(err);
    if (!o->len) {
        snprintf(err + used, errn - used, " (it printed nothing)");
        return;
    }
    bool line_start = true;
    for (size_t i = 0; i < o->len && used + 6 < errn; i++) {
        if (line_start)
            used += (size_t)snprintf(err + used, errn - used, "\n  | ");
        line_start = o->text[i] == '\n';
        if (!line_start)
            err[used++] = o->text[i];
    }
    err[used] = 0;
    if (o->dropped && used < errn)
        snprintf(err + used, errn - used, "\n  [%zu more bytes not shown]", o->dropped);
}

static void describe_failure(const eng_translator *t, const char *setting, int status, const output *o, char *err,
                             size_t errn)
{
    if (status < 0)
        snprintf(err, errn, "--translator '%s' for %s: did not finish within %.3g s (killed)", t->cmd, setting,
                 t->timeout_ms / 1000.0);
    else if (WIFSIGNALED(status))
        snprintf(err, errn, "--translator '%s' for %s: killed by signal %d", t->cmd, setting, WTERMSIG(status));
    else if (WEXITSTATUS(status))
        snprintf(err, errn, "--translator '%s' for %s: exited with status %d", t->cmd, setting, WEXITSTATUS(status));
    else
        snprintf(err, errn, "--translator '%s' for %s: exited 0 but wrote no module to $TIEFUZZ_OUT", t->cmd,
                 setting);
    append_output(o, err, errn);
}

int eng_translator_module(eng_translator *t, const isa_instance *in, const vkd_info *dev, eng_module *out, char *err,
                          size_t errn)
{
    if (make_dir(t, err, errn))
        return -1;
    char path[4200], setting[1200];
    module_path(t, path, sizeof path);
    unlink(path);  /* a module left from the previous setting must not pass for this one's */
    setting_text(in, setting, sizeof setting);
    char **env = make_env(in, dev, path);
    pid_t pid;
    int fd;
    if (!env || spawn(t->cmd, env, &pid, &fd, err, errn)) {
        if (!env)
            snprintf(err, errn, "--translator: out of memory");
        free(env);
        return -1;
    }
    free(env);
    output o = {.len = 0};
    int status = collect(pid, fd, t->timeout_ms, &o);
    close(fd);
    struct stat st;
    int rc = 0;
    if (status != 0 || stat(path, &st) != 0) {
        describe_failure(t, setting, status, &o, err, errn);
        rc = -1;
    } else {
        char name[1400];
        snprintf(name, sizeof name, "--translator '%s': the module for %s", t->cmd, setting);
        rc = eng_module_load_named(path, name, dev, out, err, errn);
    }
    return rc;
}
