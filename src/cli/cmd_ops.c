/* tiefuzz ops: the instruction table, as text or JSON. */
#include <stdio.h>
#include <string.h>
#include "options.h"
#include "io/json.h"
#include "isa/isa.h"

static const char *word_direction(bool out) { return out ? "output" : "input"; }

/* Words, with runs of one letter and format (a tile's a0..a15) shown as one. */
static void print_words(const char *dir, const isa_word *w, unsigned n)
{
    for (unsigned i = 0; i < n;) {
        unsigned j = i + 1;
        while (j < n && w[j].format == w[i].format && w[j].name[0] == w[i].name[0] && strlen(w[i].name) > 1 &&
               w[i].name[1] >= '0' && w[i].name[1] <= '9')
            j++;
        if (j - i > 1)
            printf(" %s:%s..%s:%s", dir, w[i].name, w[j - 1].name, isa_word_format_name(w[i].format));
        else
            printf(" %s:%s:%s", dir, w[i].name, isa_word_format_name(w[i].format));
        i = j;
    }
}

static void print_json(void)
{
    io_json j;
    json_begin(&j, stdout);
    json_object(&j, NULL);
    json_array(&j, "ops");
    for (unsigned i = 0; i < isa_op_count(); i++) {
        const isa_op *op = isa_op_at(i);
        json_object(&j, NULL);
        json_string(&j, "name", op->name);
        json_string(&j, "family", op->family);
        json_string(&j, "isa_scope", op->scope);
        json_string(&j, "summary", op->summary);
        json_string(&j, "status", op->translated ? "translated" : "not translated");
        json_array(&j, "tuple");
        for (int d = 0; d < 2; d++) {
            unsigned n = d ? op->n_out : op->n_in;
            for (unsigned w = 0; w < n; w++) {
                const isa_word *word = d ? &op->out[w] : &op->in[w];
                json_object(&j, NULL);
                json_string(&j, "name", word->name);
                json_string(&j, "format", isa_word_format_name(word->format));
                json_string(&j, "direction", word_direction(d));
                json_uint(&j, "index", w);
                json_end_object(&j);
            }
        }
        json_end_array(&j);
        json_array(&j, "controls");
        for (int c = 0; c < CTRL_COUNT; c++) {
            if (!op->ctrl_limit[c])
                continue;
            json_object(&j, NULL);
            json_string(&j, "name", isa_controls[c].name);
            unsigned width = 0;
            for (uint32_t v = op->ctrl_limit[c]; v; v >>= 1)
                width++;
            json_uint(&j, "width", width);
            char legal[64];
            snprintf(legal, sizeof legal, "bits 0x%x", op->ctrl_limit[c]);
            json_string(&j, "legal", legal);
            json_string(&j, "meaning", isa_controls[c].meaning);
            json_end_object(&j);
        }
        json_end_array(&j);
        json_array(&j, "params");
        for (int p = 0; p < PARAM_COUNT; p++) {
            if (!(op->params & (1u << p)))
                continue;
            json_object(&j, NULL);
            json_string(&j, "name", isa_params[p].name);
            char value[32];
            int32_t def = op->param_defaults ? op->param_defaults[p] : 0;
            json_string(&j, "default", isa_param_value_text((isa_param_id)p, def, value, sizeof value));
            json_array(&j, "alternatives");
            if (isa_params[p].integer) {
                snprintf(value, sizeof value, "%d..%d", isa_params[p].lo, isa_params[p].hi);
                json_string(&j, NULL, value);
            }
            for (unsigned v = 0; v < isa_params[p].count; v++)
                if ((int32_t)v != def)
                    json_string(&j, NULL, isa_params[p].values[v]);
            json_end_array(&j);
            json_string(&j, "meaning", isa_params[p].meaning);
            json_end_object(&j);
        }
        json_end_array(&j);
        json_array(&j, "classes");
        for (int c = 0; c < GEN_CLASS_COUNT; c++)
            if ((op->classes ? op->classes : GEN_FLOAT_CLASSES) & (1u << c))
                json_string(&j, NULL, gen_class_name((gen_class)c));
        json_end_array(&j);
        json_array(&j, "lowerings");
        if (op->translated) {
            json_string(&j, NULL, "direct");
            json_string(&j, NULL, "exact");
        }
        json_end_array(&j);
        json_end_object(&j);
    }
    json_end_array(&j);
    json_end_object(&j);
}

int cmd_ops(int argc, char **argv)
{
    cli_args a = {argc, argv, 1, "ops", false};
    bool json = false;
    while (a.i < argc) {
        if (cli_flag(&a, "--json"))
            json = true;
        else if (cli_flag(&a, "--help")) {
            puts("usage: tiefuzz ops [--json]");
            return 0;
        } else
            return cli_fail("ops", "unknown argument '%s'", argv[a.i]);
    }
    if (json) {
        print_json();
        return 0;
    }
    for (unsigned i = 0; i < isa_op_count(); i++) {
        const isa_op *op = isa_op_at(i);
        printf("%s  [%s]%s\n    %s\n    scope: %s\n    tuple:", op->name, op->family,
               op->translated ? "" : "  NOT TRANSLATED", op->summary, op->scope);
        print_words("in", op->in, op->n_in);
        print_words("out", op->out, op->n_out);
        printf("\n    controls:");
        bool any = false;
        for (int c = 0; c < CTRL_COUNT; c++)
            if (op->ctrl_limit[c]) {
                printf(" %s(0x%x)", isa_controls[c].name, op->ctrl_limit[c]);
                any = true;
            }
        printf("%s\n    params:", any ? "" : " none");
        any = false;
        for (int p = 0; p < PARAM_COUNT; p++)
            if (op->params & (1u << p)) {
                char value[32];
                int32_t def = op->param_defaults ? op->param_defaults[p] : 0;
                printf(" %s=%s", isa_params[p].name, isa_param_value_text((isa_param_id)p, def, value, sizeof value));
                if (isa_params[p].integer)
                    printf("(%d..%d)", isa_params[p].lo, isa_params[p].hi);
                for (unsigned v = 0; v < isa_params[p].count; v++)
                    if ((int32_t)v != def)
                        printf("|%s", isa_params[p].values[v]);
                any = true;
            }
        printf("%s\n    lowerings: %s\n", any ? "" : " none", op->translated ? "direct exact" : "none");
    }
    return 0;
}
