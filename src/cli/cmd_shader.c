/* tiefuzz shader: the built-in translation of an op instance, as SPIR-V
 * assembly (or, to a file named *.spv, its words), for reading or as a
 * starting point for --shader. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"
#include "engine/module.h"
#include "io/json.h"

static const char help[] =
    "usage: tiefuzz shader OP [--lowering direct|exact] [--ctrl ...] [--param ...] [--device SEL] [-o FILE]\n"
    "The float controls declared depend on what the device offers (default device unless --device).\n"
    "-o FILE.spv writes the binary module; any other name (or stdout) gets SPIR-V assembly.\n";

static void write_text(FILE *f, void *ctx) { fputs(ctx, f); }
static void write_words(FILE *f, void *ctx)
{
    const spv_module *m = ctx;
    fwrite(m->words, sizeof *m->words, m->count, f);
}

static bool binary_name(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && !strcmp(path + n - 4, ".spv");
}

int cmd_shader(int argc, char **argv)
{
    cli_args a = {argc, argv, 1, "shader", false};
    const char *op_name = NULL, *ctrl = NULL, *param = NULL, *device = NULL, *out = NULL, *v;
    isa_lowering l = LOWERING_DIRECT;
    while (a.i < argc && !a.failed) {
        if (cli_flag(&a, "--help")) {
            fputs(help, stdout);
            return 0;
        } else if ((v = cli_value(&a, "--ctrl")))
            ctrl = v;
        else if ((v = cli_value(&a, "--param")))
            param = v;
        else if ((v = cli_value(&a, "--device")))
            device = v;
        else if ((v = cli_value(&a, "-o")))
            out = v;
        else if ((v = cli_value(&a, "--lowering"))) {
            int x = isa_lowering_parse(v);
            if (x < 0)
                return cli_fail("shader", "--lowering '%s': expected direct or exact", v);
            l = (isa_lowering)x;
        } else if (a.failed)
            break;
        else if (argv[a.i][0] == '-')
            return cli_fail("shader", "unknown option '%s'", argv[a.i]);
        else if (!op_name)
            op_name = argv[a.i++];
        else
            return cli_fail("shader", "unexpected argument '%s'", argv[a.i]);
    }
    if (a.failed)
        return EXIT_USAGE;
    if (!op_name) {
        fputs(help, stderr);
        return EXIT_USAGE;
    }
    isa_instance in;
    if (cli_instance("shader", op_name, ctrl, param, &in))
        return EXIT_USAGE;
    vkd_info *list;
    unsigned n;
    char err[1024];
    if (vkd_enumerate(&list, &n, err, sizeof err)) {
        fprintf(stderr, "tiefuzz shader: %s\n", err);
        return EXIT_NO_DEVICE;
    }
    int idx = vkd_choose(list, n, device);
    if (idx < 0) {
        free(list);
        return cli_fail("shader", "no device matches '%s'", device);
    }
    spv_module words = {0};
    char *text = NULL;
    bool binary = out && binary_name(out);
    bool built = binary ? !eng_module_words(&in, l, &list[idx], &words, err, sizeof err)
                        : (text = eng_module_text(&in, l, &list[idx], err, sizeof err)) != NULL;
    free(list);
    if (!built) {
        fprintf(stderr, "tiefuzz shader: %s\n", err);
        return EXIT_USAGE;
    }
    int rc = 0;
    if (out) {
        if (binary ? io_write_atomic(out, write_words, &words) : io_write_atomic(out, write_text, text)) {
            fprintf(stderr, "tiefuzz shader: cannot write %s\n", out);
            rc = EXIT_USAGE;
        }
    } else {
        fputs(text, stdout);
    }
    free(text);
    spv_module_free(&words);
    return rc;
}
