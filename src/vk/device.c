/* Instance, device enumeration and selection, features, the pipeline cache
 * file, and the validation-layer messenger. */
#define _GNU_SOURCE   /* strcasestr */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "device.h"

struct vkd_device {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical;
    VkDevice device;
    VkQueue queue;
    uint32_t family;
    VkPipelineCache cache;
    char cache_path[1024];
    vkd_info info;
    /* Atomic: the validation layer calls on_message on whichever thread
     * made the call, and a campaign builds pipelines ahead on threads of
     * its own. */
    atomic_uint validation_errors;
    bool abandoned;   /* timed out or lost: the device may still be running our work */
};

static bool any_abandoned;

void vkd_abandon(vkd_device *d)
{
    d->abandoned = true;
    any_abandoned = true;
}

bool vkd_abandoned(const vkd_device *d) { return d->abandoned; }
bool vkd_any_abandoned(void) { return any_abandoned; }

static VkBool32 VKAPI_PTR on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                     VkDebugUtilsMessageTypeFlagsEXT type,
                                     const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)type;
    vkd_device *d = user;
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
        d->validation_errors++;
        fprintf(stderr, "tiefuzz: validation error: %s\n", data->pMessage);
    }
    return VK_FALSE;
}

static bool layer_present(const char *name)
{
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, NULL);
    VkLayerProperties *props = calloc(n ? n : 1, sizeof *props);
    vkEnumerateInstanceLayerProperties(&n, props);
    bool found = false;
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(props[i].layerName, name) == 0)
            found = true;
    free(props);
    return found;
}

static VkResult make_instance(bool validation, VkInstance *out)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "tiefuzz",
                             .apiVersion = VK_API_VERSION_1_2};
    const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
    const char *exts[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    if (validation) {
        ci.enabledLayerCount = 1;
        ci.ppEnabledLayerNames = layers;
        ci.enabledExtensionCount = 1;
        ci.ppEnabledExtensionNames = exts;
    }
    return vkCreateInstance(&ci, NULL, out);
}

static bool has_extension(VkPhysicalDevice pd, const char *name)
{
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL);
    VkExtensionProperties *e = calloc(n ? n : 1, sizeof *e);
    vkEnumerateDeviceExtensionProperties(pd, NULL, &n, e);
    bool found = false;
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(e[i].extensionName, name) == 0)
            found = true;
    free(e);
    return found;
}

static void describe(VkPhysicalDevice pd, unsigned index, vkd_info *o)
{
    memset(o, 0, sizeof *o);
    o->index = index;
    VkPhysicalDeviceVulkan12Properties p12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES};
    VkPhysicalDeviceIDProperties idp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES, .pNext = &p12};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &idp};
    VkPhysicalDeviceProperties base;
    vkGetPhysicalDeviceProperties(pd, &base);
    bool v12 = base.apiVersion >= VK_API_VERSION_1_2;
    if (v12)
        vkGetPhysicalDeviceProperties2(pd, &p2);
    else
        p2.properties = base;
    snprintf(o->name, sizeof o->name, "%s", base.deviceName);
    o->type = base.deviceType;
    o->api_version = base.apiVersion;
    o->driver_version = base.driverVersion;
    o->vendor_id = base.vendorID;
    o->device_id = base.deviceID;
    memcpy(o->max_group_size, base.limits.maxComputeWorkGroupSize, sizeof o->max_group_size);
    o->max_group_invocations = base.limits.maxComputeWorkGroupInvocations;
    memcpy(o->uuid, v12 ? idp.deviceUUID : base.pipelineCacheUUID, VK_UUID_SIZE);
    if (v12) {
        snprintf(o->driver_name, sizeof o->driver_name, "%s", p12.driverName);
        snprintf(o->driver_info, sizeof o->driver_info, "%s", p12.driverInfo);
        VkBool32 rte[3] = {p12.shaderRoundingModeRTEFloat16, p12.shaderRoundingModeRTEFloat32,
                           p12.shaderRoundingModeRTEFloat64};
        VkBool32 sz[3] = {p12.shaderSignedZeroInfNanPreserveFloat16, p12.shaderSignedZeroInfNanPreserveFloat32,
                          p12.shaderSignedZeroInfNanPreserveFloat64};
        VkBool32 dp[3] = {p12.shaderDenormPreserveFloat16, p12.shaderDenormPreserveFloat32,
                          p12.shaderDenormPreserveFloat64};
        VkBool32 df[3] = {p12.shaderDenormFlushToZeroFloat16, p12.shaderDenormFlushToZeroFloat32,
                          p12.shaderDenormFlushToZeroFloat64};
        VkBool32 rz[3] = {p12.shaderRoundingModeRTZFloat16, p12.shaderRoundingModeRTZFloat32,
                          p12.shaderRoundingModeRTZFloat64};
        for (int i = 0; i < 3; i++) {
            o->caps.rte[i] = rte[i];
            o->caps.signed_zero_inf_nan[i] = sz[i];
            o->denorm_preserve[i] = dp[i];
            o->denorm_flush[i] = df[i];
            o->rtz[i] = rz[i];
        }
        o->denorm_independence = p12.denormBehaviorIndependence;
        o->rounding_independence = p12.roundingModeIndependence;
    }
    VkPhysicalDeviceVulkan11Features f11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                            .pNext = &f11};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f12};
    if (v12)
        vkGetPhysicalDeviceFeatures2(pd, &f2);
    else
        vkGetPhysicalDeviceFeatures(pd, &f2.features);
    o->float64 = f2.features.shaderFloat64;
    o->int64 = f2.features.shaderInt64;
    o->int16 = f2.features.shaderInt16;
    o->float16 = v12 && f12.shaderFloat16;
    o->storage16 = v12 && f11.storageBuffer16BitAccess;
    o->caps.float16 = o->float16;
    o->caps.float64 = o->float64;
    o->caps.int64 = o->int64;
    o->khr_shader_fma = has_extension(pd, "VK_KHR_shader_fma");
    o->khr_cooperative_matrix = has_extension(pd, "VK_KHR_cooperative_matrix");
}

int vkd_enumerate(vkd_info **out, unsigned *count, char *err, size_t errn)
{
    VkInstance inst;
    VkResult r = make_instance(false, &inst);
    if (r != VK_SUCCESS) {
        snprintf(err, errn, "cannot create a Vulkan instance (VkResult %d): is a Vulkan driver installed "
                 "(mesa-vulkan-drivers for lavapipe)?", r);
        return -1;
    }
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(inst, &n, NULL);
    VkPhysicalDevice *pds = calloc(n ? n : 1, sizeof *pds);
    vkEnumeratePhysicalDevices(inst, &n, pds);
    *out = calloc(n ? n : 1, sizeof **out);
    for (uint32_t i = 0; i < n; i++)
        describe(pds[i], i, &(*out)[i]);
    *count = n;
    free(pds);
    vkDestroyInstance(inst, NULL);
    if (!n) {
        snprintf(err, errn, "the Vulkan loader found no device");
        return -1;
    }
    return 0;
}


int vkd_choose(const vkd_info *list, unsigned count, const char *sel)
{
    if (sel) {
        char *end;
        long idx = strtol(sel, &end, 10);
        if (*sel && !*end)
            return idx >= 0 && (unsigned long)idx < count ? (int)idx : -1;
        for (unsigned i = 0; i < count; i++)
            if (strcasestr(list[i].name, sel))
                return (int)i;
        return -1;
    }
    static const VkPhysicalDeviceType order[] = {VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU,
                                                 VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU};
    for (int k = 0; k < 2; k++)
        for (unsigned i = 0; i < count; i++)
            if (list[i].type == order[k])
                return (int)i;
    return count ? 0 : -1;
}

const char *vkd_type_name(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
    }
}

char *vkd_version_text(uint32_t v, char *buf, size_t n)
{
    snprintf(buf, n, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
    return buf;
}

bool vkd_cache_dir(char *dir, size_t n)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (xdg && *xdg)
        snprintf(dir, n, "%s/tiefuzz", xdg);
    else if (home && *home)
        snprintf(dir, n, "%s/.cache/tiefuzz", home);
    else {
        dir[0] = 0;
        return false;
    }
    char parent[768];
    snprintf(parent, sizeof parent, "%.*s", (int)(strrchr(dir, '/') - dir), dir);
    mkdir(parent, 0755);
    mkdir(dir, 0755);
    return true;
}

static void cache_path(const vkd_info *info, char *out, size_t n)
{
    char dir[768];
    if (!vkd_cache_dir(dir, sizeof dir)) {
        out[0] = 0;
        return;
    }
    char uuid[2 * VK_UUID_SIZE + 1];
    for (unsigned i = 0; i < VK_UUID_SIZE; i++)
        snprintf(uuid + 2 * i, 3, "%02x", info->uuid[i]);
    snprintf(out, n, "%s/pipelines-%s.bin", dir, uuid);
}

static void load_cache(vkd_device *d)
{
    cache_path(&d->info, d->cache_path, sizeof d->cache_path);
    void *data = NULL;
    size_t size = 0;
    FILE *f = d->cache_path[0] ? fopen(d->cache_path, "rb") : NULL;
    if (f) {
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        fseek(f, 0, SEEK_SET);
        if (len > 0 && len < (256l << 20) && (data = malloc((size_t)len)) && fread(data, 1, (size_t)len, f) == (size_t)len)
            size = (size_t)len;
        fclose(f);
    }
    VkPipelineCacheCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
                                    .initialDataSize = size, .pInitialData = size ? data : NULL};
    /* A stale or foreign cache file is ignored by the driver, never trusted. */
    if (vkCreatePipelineCache(d->device, &ci, NULL, &d->cache) != VK_SUCCESS) {
        ci.initialDataSize = 0;
        ci.pInitialData = NULL;
        vkCreatePipelineCache(d->device, &ci, NULL, &d->cache);
    }
    free(data);
}

static void save_cache(vkd_device *d)
{
    if (!d->cache || !d->cache_path[0])
        return;
    size_t size = 0;
    if (vkGetPipelineCacheData(d->device, d->cache, &size, NULL) != VK_SUCCESS || !size)
        return;
    void *data = malloc(size);
    if (!data || vkGetPipelineCacheData(d->device, d->cache, &size, data) != VK_SUCCESS) {
        free(data);
        return;
    }
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", d->cache_path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (f) {
        bool ok = fwrite(data, 1, size, f) == size;
        ok = fflush(f) == 0 && fsync(fileno(f)) == 0 && ok;
        fclose(f);
        if (!ok || rename(tmp, d->cache_path) != 0)
            unlink(tmp);
    }
    free(data);
}

vkd_device *vkd_open(const char *sel, bool validation, char *err, size_t errn)
{
    vkd_info *list;
    unsigned count;
    if (vkd_enumerate(&list, &count, err, errn))
        return NULL;
    int idx = vkd_choose(list, count, sel);
    if (idx < 0) {
        snprintf(err, errn, "no Vulkan device matches '%s' (see 'tiefuzz devices')", sel ? sel : "");
        free(list);
        return NULL;
    }
    vkd_device *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errn, "out of memory opening the device");
        free(list);
        return NULL;
    }
    d->info = list[idx];
    free(list);
    if (validation && !layer_present("VK_LAYER_KHRONOS_validation")) {
        snprintf(err, errn, "validation was asked for but VK_LAYER_KHRONOS_validation is not installed "
                 "(Debian: vulkan-validationlayers)");
        free(d);
        return NULL;
    }
    if (make_instance(validation, &d->instance) != VK_SUCCESS) {
        snprintf(err, errn, "cannot create a Vulkan instance");
        free(d);
        return NULL;
    }
    if (validation) {
        PFN_vkCreateDebugUtilsMessengerEXT create =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(d->instance, "vkCreateDebugUtilsMessengerEXT");
        VkDebugUtilsMessengerCreateInfoEXT mi = {
            .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
            .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
            .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
            .pfnUserCallback = on_message, .pUserData = d};
        if (create)
            create(d->instance, &mi, NULL, &d->messenger);
    }
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(d->instance, &n, NULL);
    VkPhysicalDevice *pds = calloc(n ? n : 1, sizeof *pds);
    vkEnumeratePhysicalDevices(d->instance, &n, pds);
    d->physical = (uint32_t)idx < n ? pds[idx] : VK_NULL_HANDLE;
    free(pds);
    if (!d->physical) {
        snprintf(err, errn, "the device list changed while opening the device");
        vkd_close(d);
        return NULL;
    }
    uint32_t qn = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(d->physical, &qn, NULL);
    VkQueueFamilyProperties *qf = calloc(qn ? qn : 1, sizeof *qf);
    vkGetPhysicalDeviceQueueFamilyProperties(d->physical, &qn, qf);
    d->family = UINT32_MAX;
    for (uint32_t i = 0; i < qn; i++)
        if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
            d->family = i;
            break;
        }
    free(qf);
    if (d->family == UINT32_MAX) {
        snprintf(err, errn, "device '%s' has no compute queue", d->info.name);
        vkd_close(d);
        return NULL;
    }
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = d->family,
                                   .queueCount = 1, .pQueuePriorities = &prio};
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                            .shaderFloat16 = d->info.float16};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f12};
    f2.features.shaderFloat64 = d->info.float64;
    f2.features.shaderInt64 = d->info.int64;
    f2.features.shaderInt16 = d->info.int16;
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qci};
    if (d->info.api_version >= VK_API_VERSION_1_2)
        dci.pNext = &f2;
    else
        dci.pEnabledFeatures = &f2.features;
    VkResult r = vkCreateDevice(d->physical, &dci, NULL, &d->device);
    if (r != VK_SUCCESS) {
        snprintf(err, errn, "cannot create a logical device on '%s' (VkResult %d)", d->info.name, r);
        d->device = VK_NULL_HANDLE;
        vkd_close(d);
        return NULL;
    }
    vkGetDeviceQueue(d->device, d->family, 0, &d->queue);
    load_cache(d);
    return d;
}

void vkd_close(vkd_device *d)
{
    if (!d)
        return;
    /* A device still running a batch must not be waited for (it may never
     * finish) nor torn down under the work (the driver would crash in it):
     * it is left as it is, d included (the debug messenger points to it),
     * for the process's exit to end. */
    if (d->abandoned)
        return;
    if (d->device) {
        vkDeviceWaitIdle(d->device);
        save_cache(d);
        if (d->cache)
            vkDestroyPipelineCache(d->device, d->cache, NULL);
        vkDestroyDevice(d->device, NULL);
    }
    if (d->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            d->instance, "vkDestroyDebugUtilsMessengerEXT");
        if (destroy)
            destroy(d->instance, d->messenger, NULL);
    }
    if (d->instance)
        vkDestroyInstance(d->instance, NULL);
    free(d);
}

const vkd_info *vkd_device_info(const vkd_device *d) { return &d->info; }
unsigned vkd_validation_errors(const vkd_device *d) { return d->validation_errors; }
void vkd_wait_idle(vkd_device *d) { vkDeviceWaitIdle(d->device); }
VkDevice vkd_handle(const vkd_device *d) { return d->device; }
VkPhysicalDevice vkd_physical(const vkd_device *d) { return d->physical; }
VkQueue vkd_queue(const vkd_device *d) { return d->queue; }
uint32_t vkd_queue_family(const vkd_device *d) { return d->family; }
VkPipelineCache vkd_pipeline_cache(const vkd_device *d) { return d->cache; }
