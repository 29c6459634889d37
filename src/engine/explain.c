/* Explanations. */
#include <stdio.h>
#include <string.h>
#include "explain.h"
#include "compare.h"

static char *value_text(const fp_format *f, uint64_t bits, char *buf, unsigned n)
{
    fp_value v = fp_decode(f, bits);
    if (v.kind == FPK_NAN) {
        snprintf(buf, n, "%sNaN", v.snan ? "s" : "q");
        return buf;
    }
    fp_value_hexfloat(v, buf, n);
    if (fp_is_subnormal_bits(f, bits))
        strncat(buf, " subnormal", n - strlen(buf) - 1);
    return buf;
}

char *eng_word_text(isa_word_format fmt, uint32_t w, char *buf, unsigned n)
{
    char a[64], b[64];
    switch (fmt) {
    case WORD_F32:
    case WORD_B32:
        snprintf(buf, n, "0x%08x (f32 %s%s%s)", w, value_text(&fp_f32, w, a, sizeof a),
                 fmt == WORD_B32 ? "; halves " : "",
                 fmt == WORD_B32 ? (snprintf(b, sizeof b, "%04x %04x", w >> 16, w & 0xffff), b) : "");
        break;
    case WORD_F16X2:
        snprintf(buf, n, "0x%08x (hi %s, lo %s)", w, value_text(&fp_f16, w >> 16, a, sizeof a),
                 value_text(&fp_f16, w & 0xffff, b, sizeof b));
        break;
    default:
        snprintf(buf, n, "0x%08x", w);
        break;
    }
    return buf;
}

/* The signed distance from the exact value to the nearest tie, in units of
 * the destination's last place: exact, as a hex float. */
static void tie_distance(const fp_round_info *i, char *buf, unsigned n)
{
    if (i->shift == 0 || i->shift > 127) {
        snprintf(buf, n, i->shift ? "far below half a unit" : "on the grid (no bits dropped)");
        return;
    }
    fp_u128 half = (fp_u128)1 << (i->shift - 1);
    bool below = i->rem < half;
    fp_u128 d = below ? half - i->rem : i->rem - half;
    if (d == 0) {
        snprintf(buf, n, "0 (exactly a tie)");
        return;
    }
    char hf[96];
    fp_value_hexfloat(fp_from_int(below, d, -i->shift), hf, sizeof hf);
    snprintf(buf, n, "%s ulp (%s the tie)", hf, below ? "below" : "above");
}

void eng_explain(FILE *f, const isa_instance *in, const uint32_t *words, const uint32_t *device, const char *ind)
{
    const isa_op *op = in->op;
    char buf[256], ctl[256], par[256];
    uint32_t host[ISA_MAX_OUT];
    isa_trace t;
    op->impl->eval(in, words, host, &t);
    fprintf(f, "%s%s  controls: %s  params: %s\n", ind, op->name, isa_controls_text(in, ctl, sizeof ctl),
            isa_params_text(in, par, sizeof par));
    for (unsigned i = 0; i < op->n_in; i++)
        fprintf(f, "%s  in  %-6s %s\n", ind, op->in[i].name, eng_word_text(op->in[i].format, words[i], buf, sizeof buf));
    if (t.note)
        fprintf(f, "%s  note: %s\n", ind, t.note);
    for (unsigned s = 0; s < t.n_steps; s++) {
        const isa_step *st = &t.step[s];
        char pw[512], hx[96], dist[160], res[96];
        fprintf(f, "%s  step %u: %s, %s to %s\n", ind, s + 1, st->label, fp_rounding_name(st->mode), st->format->name);
        fprintf(f, "%s    exact    %s\n", ind, fp_value_powers(st->exact, pw, sizeof pw));
        fprintf(f, "%s             = %s\n", ind, fp_value_hexfloat(st->exact, hx, sizeof hx));
        if (st->exact.kind == FPK_FINITE) {
            tie_distance(&st->info, dist, sizeof dist);
            fprintf(f, "%s    position %s%s%s; distance to tie %s\n", ind, fp_position_name(st->info.position),
                    st->info.tiny ? ", below the normal range" : "", st->info.overflow ? ", overflows" : "", dist);
            fprintf(f, "%s    rounded  %s (last kept bit was %u, %s)\n", ind,
                    value_text(st->format, st->result, res, sizeof res), st->info.lsb,
                    st->info.position == FP_EXACT ? "exact" : st->info.rounded_up ? "magnitude rounded up"
                                                                                  : "magnitude rounded down");
        } else {
            fprintf(f, "%s    result   %s\n", ind, value_text(st->format, st->result, res, sizeof res));
        }
    }
    for (unsigned i = 0; i < op->n_out; i++) {
        fprintf(f, "%s  out %-6s host   %s\n", ind, op->out[i].name, eng_word_text(op->out[i].format, host[i], buf, sizeof buf));
        if (device)
            fprintf(f, "%s  out %-6s device %s%s\n", ind, op->out[i].name,
                    eng_word_text(op->out[i].format, device[i], buf, sizeof buf),
                    host[i] == device[i] ? "" : "   <-- differs");
    }
}
