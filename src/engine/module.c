/* Building, loading and checking compute modules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "module.h"
#include "spirv/kernel.h"
#include "validated.h"

typedef struct {
    const isa_instance *in;
    isa_lowering l;
} body_ctx;

static const char *body(void *ctx, spv_builder *b, const unsigned *in_words, unsigned *out_words, unsigned *needs,
                        const spv_tile *tile)
{
    body_ctx *c = ctx;
    const char *why = tile ? c->in->op->impl->lower_tile(c->in, c->l, b, tile, out_words)
                           : c->in->op->impl->lower(c->in, c->l, b, in_words, out_words);
    if (c->l == LOWERING_EXACT)
        *needs |= SB_NEED_RTE64 | SB_NEED_SZINP64;
    return why;
}

/* Tile ops run one invocation per output word. */
static unsigned per_tuple_of(const isa_op *op) { return op->impl->lower_tile ? op->n_out : 1; }

/* The built-in module, or -1 with why not in err. */
static int build_kernel(const isa_instance *in, isa_lowering l, const vkd_info *dev, spv_kernel *k, char *err,
                        size_t errn)
{
    body_ctx c = {in, l};
    const char *why = !in->op->translated
                          ? "this op is not translated (see doc/translation.md); only its host model exists"
                          : spv_kernel_build(in->op->n_in, in->op->n_out, per_tuple_of(in->op), &dev->caps, body, &c, k);
    if (why)
        snprintf(err, errn, "%s: %s lowering: %s", in->op->name, isa_lowering_name(l), why);
    return why ? -1 : 0;
}

int eng_module_words(const isa_instance *in, isa_lowering l, const vkd_info *dev, spv_module *out, char *err,
                     size_t errn)
{
    spv_kernel k;
    if (build_kernel(in, l, dev, &k, err, errn))
        return -1;
    out->words = k.words;
    out->count = k.count;
    return 0;
}

char *eng_module_text(const isa_instance *in, isa_lowering l, const vkd_info *dev, char *err, size_t errn)
{
    spv_module m;
    if (eng_module_words(in, l, dev, &m, err, errn))
        return NULL;
    char *text = spv_to_text(&m);
    if (!text)
        snprintf(err, errn, "%s: the generated module does not disassemble (a tiefuzz bug)", in->op->name);
    spv_module_free(&m);
    return text;
}

int eng_module_build(const isa_instance *in, isa_lowering l, const vkd_info *dev, eng_module *out, char *err,
                     size_t errn)
{
    memset(out, 0, sizeof *out);
    spv_kernel k;
    if (build_kernel(in, l, dev, &k, err, errn))
        return -1;
    out->spv.words = k.words;
    out->spv.count = k.count;
    k.words = NULL;
    /* A module already validated (the same words, Vulkan version and
     * validator: engine/validated.h) passes again; skip the validator. */
    char msg[1024];
    bool known = eng_validated_seen(&out->spv, dev->api_version);
    if (!known && spv_validate(&out->spv, dev->api_version, msg, sizeof msg)) {
        /* The validator names instructions as the disassembler writes them. */
        char *dis = spv_disassemble(&out->spv);
        snprintf(err, errn, "%s: the generated module fails validation (a tiefuzz bug): %s\n%s", in->op->name, msg,
                 dis ? dis : "(no disassembly)");
        free(dis);
        spv_module_free(&out->spv);
        return -1;
    }
    if (!known)
        eng_validated_add(&out->spv, dev->api_version);
    out->local_size = SPV_LOCAL_SIZE;
    out->per_tuple = per_tuple_of(in->op);
    snprintf(out->declared, sizeof out->declared, "%s", k.declared);
    return 0;
}

/* A LocalSize within the device's limits: a driver need not refuse one
 * beyond them, and one that runs anyway gives false findings. */
static int group_fits(const vkd_info *dev, const uint32_t size[3], const char *path, char *err, size_t errn)
{
    uint64_t all = (uint64_t)size[0] * size[1] * size[2];
    for (int i = 0; i < 3; i++)
        if (size[i] == 0 || size[i] > dev->max_group_size[i]) {
            snprintf(err, errn, "%s: LocalSize %u %u %u: the %c size must be 1 to %u on %s", path, size[0], size[1],
                     size[2], "xyz"[i], dev->max_group_size[i], dev->name);
            return -1;
        }
    if (all > dev->max_group_invocations) {
        snprintf(err, errn, "%s: LocalSize %u %u %u: %llu invocations a workgroup, more than the %u %s allows", path,
                 size[0], size[1], size[2], (unsigned long long)all, dev->max_group_invocations, dev->name);
        return -1;
    }
    return 0;
}

int eng_module_load(const char *path, const vkd_info *dev, eng_module *out, char *err, size_t errn)
{
    return eng_module_load_named(path, path, dev, out, err, errn);
}

int eng_module_load_named(const char *path, const char *name, const vkd_info *dev, eng_module *out, char *err,
                          size_t errn)
{
    memset(out, 0, sizeof *out);
    char msg[1024];
    if (spv_load_file(path, &out->spv, msg, sizeof msg)) {
        /* The loader's message starts with the path, which may be a scratch file. */
        const char *rest = strncmp(msg, path, strlen(path)) ? msg : msg + strlen(path);
        snprintf(err, errn, "%s%s%s", name, rest == msg ? ": " : "", rest);
        return -1;
    }
    if (spv_validate(&out->spv, dev->api_version, msg, sizeof msg)) {
        char *dis = spv_disassemble(&out->spv);
        snprintf(err, errn, "%s: %s\n%s", name, msg, dis ? dis : "");
        free(dis);
        spv_module_free(&out->spv);
        return -1;
    }
    spv_interface f;
    spv_scan_interface(&out->spv, &f);
    const char *why = !f.glcompute_main ? "no GLCompute entry point named \"main\""
                      : !f.local_size[0] ? "no LocalSize execution mode (LocalSizeId is not supported)"
                      : !f.binding[0]   ? "nothing decorated Binding 0 (the input words)"
                      : !f.binding[1]   ? "nothing decorated Binding 1 (the output words)"
                      : !f.push_constant ? "no push-constant block (the tuple count, a uint at offset 0)"
                                         : NULL;
    if (why) {
        snprintf(err, errn, "%s: does not fit the tiefuzz shader interface: %s (see README, 'Bring your own "
                 "shader')", name, why);
        spv_module_free(&out->spv);
        return -1;
    }
    if (group_fits(dev, f.local_size, name, err, errn)) {
        spv_module_free(&out->spv);
        return -1;
    }
    /* Tuples are dealt out along x (GlobalInvocationId.x); the groups follow from x alone. */
    out->local_size = f.local_size[0];
    out->user = true;
    out->per_tuple = 1;
    snprintf(out->declared, sizeof out->declared, "%s", f.declared[0] ? f.declared : "none");
    return 0;
}

void eng_module_free(eng_module *m) { spv_module_free(&m->spv); }
