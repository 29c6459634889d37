/* tiefuzz devices: what the loader sees, and what matters for exactness. */
#include <stdio.h>
#include <stdlib.h>
#include "options.h"
#include "io/json.h"
#include "vk/device.h"

static const char *independence(VkShaderFloatControlsIndependence i)
{
    return i == VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL ? "all"
           : i == VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_32_BIT_ONLY ? "32-bit-only" : "none";
}

static void widths_json(io_json *j, const char *key, const bool v[3])
{
    json_object(j, key);
    json_bool(j, "16", v[0]);
    json_bool(j, "32", v[1]);
    json_bool(j, "64", v[2]);
    json_end_object(j);
}

static void widths_text(const char *name, const bool v[3])
{
    printf("    %-26s f16 %-5s f32 %-5s f64 %s\n", name, v[0] ? "yes" : "no", v[1] ? "yes" : "no", v[2] ? "yes" : "no");
}

int cmd_devices(int argc, char **argv)
{
    cli_args a = {argc, argv, 1, "devices", false};
    bool json = false;
    while (a.i < argc) {
        if (cli_flag(&a, "--json"))
            json = true;
        else if (cli_flag(&a, "--help")) {
            puts("usage: tiefuzz devices [--json]");
            return 0;
        } else
            return cli_fail("devices", "unknown argument '%s'", argv[a.i]);
    }
    vkd_info *list;
    unsigned n;
    char err[512], ver[32];
    if (vkd_enumerate(&list, &n, err, sizeof err)) {
        fprintf(stderr, "tiefuzz devices: %s\n", err);
        return EXIT_NO_DEVICE;
    }
    int def = vkd_choose(list, n, NULL);
    if (json) {
        io_json j;
        json_begin(&j, stdout);
        json_object(&j, NULL);
        json_array(&j, "devices");
        for (unsigned i = 0; i < n; i++) {
            vkd_info *d = &list[i];
            json_object(&j, NULL);
            json_uint(&j, "index", d->index);
            json_string(&j, "name", d->name);
            json_string(&j, "type", vkd_type_name(d->type));
            json_bool(&j, "default", (int)i == def);
            json_string(&j, "driver", d->driver_name);
            json_string(&j, "driver_info", d->driver_info);
            json_uint(&j, "driver_version", d->driver_version);
            json_string(&j, "api_version", vkd_version_text(d->api_version, ver, sizeof ver));
            json_bool(&j, "shaderFloat16", d->float16);
            json_bool(&j, "shaderFloat64", d->float64);
            json_bool(&j, "shaderInt64", d->int64);
            json_bool(&j, "shaderInt16", d->int16);
            json_bool(&j, "storageBuffer16BitAccess", d->storage16);
            json_object(&j, "float_controls");
            widths_json(&j, "roundingModeRTE", d->caps.rte);
            widths_json(&j, "roundingModeRTZ", d->rtz);
            widths_json(&j, "signedZeroInfNanPreserve", d->caps.signed_zero_inf_nan);
            widths_json(&j, "denormPreserve", d->denorm_preserve);
            widths_json(&j, "denormFlushToZero", d->denorm_flush);
            json_string(&j, "denormBehaviorIndependence", independence(d->denorm_independence));
            json_string(&j, "roundingModeIndependence", independence(d->rounding_independence));
            json_end_object(&j);
            json_bool(&j, "VK_KHR_shader_fma", d->khr_shader_fma);
            json_bool(&j, "VK_KHR_cooperative_matrix", d->khr_cooperative_matrix);
            json_end_object(&j);
        }
        json_end_array(&j);
        json_end_object(&j);
    } else {
        for (unsigned i = 0; i < n; i++) {
            vkd_info *d = &list[i];
            printf("%u: %s%s\n    type %s, driver %s (%s), Vulkan %s\n", d->index, d->name,
                   (int)i == def ? "  (default)" : "", vkd_type_name(d->type), d->driver_name, d->driver_info,
                   vkd_version_text(d->api_version, ver, sizeof ver));
            printf("    shaderFloat16 %s, shaderFloat64 %s, shaderInt64 %s, shaderInt16 %s, 16-bit storage %s\n",
                   d->float16 ? "yes" : "no", d->float64 ? "yes" : "no", d->int64 ? "yes" : "no",
                   d->int16 ? "yes" : "no", d->storage16 ? "yes" : "no");
            widths_text("RoundingModeRTE", d->caps.rte);
            widths_text("RoundingModeRTZ", d->rtz);
            widths_text("SignedZeroInfNanPreserve", d->caps.signed_zero_inf_nan);
            widths_text("DenormPreserve", d->denorm_preserve);
            widths_text("DenormFlushToZero", d->denorm_flush);
            printf("    independence: denorm %s, rounding %s\n", independence(d->denorm_independence),
                   independence(d->rounding_independence));
            printf("    VK_KHR_shader_fma %s, VK_KHR_cooperative_matrix %s\n", d->khr_shader_fma ? "yes" : "no",
                   d->khr_cooperative_matrix ? "yes" : "no");
        }
    }
    free(list);
    return 0;
}
