/* spirv/allowed: questions about a computed set. */
#include <stdlib.h>
#include <string.h>
#include "allowed_internal.h"

const char *spa_liberty_name(unsigned flag)
{
    switch (flag) {
    case SPA_FMA_UNFUSED: return "GLSL.std.450 Fma computed unfused";
    case SPA_CONTRACTED: return "OpFMul contracted into the add it feeds";
    case SPA_FLUSH_INPUT: return "denormal operand read as zero";
    case SPA_FLUSH_RESULT: return "denormal result flushed";
    case SPA_SIGNED_ZERO: return "sign of a zero not kept";
    case SPA_INF_NAN: return "inf or NaN not kept";
    case SPA_CONVERT_ROUNDING: return "conversion rounded other than to nearest even";
    case SPA_ROUNDING_MODE: return "rounded toward zero (no rounding mode in force)";
    case SPA_NAN_PAYLOAD: return "NaN bits read by an integer instruction";
    default: return "unknown liberty";
    }
}

void spa_set_free(spa_set *s)
{
    free(s->groups);
    s->groups = NULL;
    s->n_groups = 0;
}

/* A NaN lane: the dev half d must be a NaN of that kind; other bits free. */
bool spa_word_matches(uint32_t dev, uint32_t want, uint8_t lanes)
{
    if (!lanes)
        return dev == want;
    for (unsigned h = 0; h < 2; h++) {
        unsigned code = (lanes >> (3 * h)) & 7;
        uint32_t d = (dev >> (16 * h)) & 0xffff, w = (want >> (16 * h)) & 0xffff;
        switch (code) {
        case SPA_LANE_F16:
            if ((d & 0x7c00) != 0x7c00 || !(d & 0x3ff))
                return false;
            break;
        case SPA_LANE_F32_LO:
            if (h == 0 && ((lanes >> 3) & 7) == SPA_LANE_F32_HI) {
                if ((dev & 0x7f800000u) != 0x7f800000u || !(dev & 0x7fffffu))
                    return false;
                return true;
            }
            if (d != w)
                return false;
            break;
        case SPA_LANE_F64_P0: case SPA_LANE_F64_P1: case SPA_LANE_F64_P2:
            break;   /* the low bits of an f64 NaN: any (the pair is not checked) */
        case SPA_LANE_F64_P3:
            if ((d & 0x7ff0) != 0x7ff0)
                return false;
            break;
        default:
            if (d != w)
                return false;
            break;
        }
    }
    return true;
}

static bool result_matches(const spa_group *g, const spa_result *r, const uint32_t *dev, unsigned n_out)
{
    for (unsigned k = 0; k < g->n_words; k++) {
        if (g->word[k] >= n_out || !spa_word_matches(dev[g->word[k]], r->out[k], r->nan_lanes[k]))
            return false;
    }
    return true;
}

static const spa_result *group_match(const spa_group *g, const uint32_t *dev, unsigned n_out)
{
    for (unsigned i = 0; i < g->n_results; i++)
        if (result_matches(g, &g->results[i], dev, n_out))
            return &g->results[i];
    return NULL;
}

bool spa_contains(const spa_set *s, const uint32_t *dev, unsigned n_out)
{
    if (s->status == SPA_UNSUPPORTED || !s->n_groups)
        return false;
    for (unsigned i = 0; i < s->n_groups; i++)
        if (!group_match(&s->groups[i], dev, n_out))
            return false;
    return true;
}

const spa_result *spa_match(const spa_set *s, const uint32_t *dev, unsigned w)
{
    for (unsigned i = 0; i < s->n_groups; i++) {
        const spa_group *g = &s->groups[i];
        for (unsigned k = 0; k < g->n_words; k++)
            if (g->word[k] == w)
                return group_match(g, dev, ~0u);
    }
    return NULL;
}
