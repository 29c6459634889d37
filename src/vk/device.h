/* vk: Vulkan devices through the loader.  Knows SPIR-V modules and buffers
 * of words, nothing about instructions. */
#ifndef TIEFUZZ_VK_DEVICE_H
#define TIEFUZZ_VK_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>
#include "spirv/kernel.h"

typedef struct {
    unsigned index;
    char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
    VkPhysicalDeviceType type;
    char driver_name[VK_MAX_DRIVER_NAME_SIZE];
    char driver_info[VK_MAX_DRIVER_INFO_SIZE];
    uint32_t api_version, driver_version, vendor_id, device_id;
    uint8_t uuid[VK_UUID_SIZE];
    bool float16, float64, int64, int16, storage16;
    bool denorm_preserve[3], denorm_flush[3], rtz[3];
    VkShaderFloatControlsIndependence denorm_independence, rounding_independence;
    bool khr_shader_fma, khr_cooperative_matrix;
    uint32_t max_group_size[3], max_group_invocations;  /* compute workgroup limits */
    spv_device_caps caps;  /* what modules may declare */
} vkd_info;

typedef struct vkd_device vkd_device;

/* Every device the loader sees.  Returns 0, or -1 with a message. */
int vkd_enumerate(vkd_info **out, unsigned *count, char *err, size_t errn);
/* Choose by SEL (an index or a case-insensitive substring of the name) or,
 * with sel NULL, the first discrete GPU, else integrated, else any. */
int vkd_choose(const vkd_info *list, unsigned count, const char *sel);
const char *vkd_type_name(VkPhysicalDeviceType t);
/* "1.3.230" */
char *vkd_version_text(uint32_t v, char *buf, size_t n);

/* Open the chosen device; validation enables VK_LAYER_KHRONOS_validation
 * and counts its error messages. */
vkd_device *vkd_open(const char *sel, bool validation, char *err, size_t errn);
void vkd_close(vkd_device *d);
/* After a batch timed out or the device was lost: from now on nothing is
 * destroyed on it (vkd_close and the runner's destroy calls only free host
 * memory), and vkd_any_abandoned tells main to end the process with _exit,
 * since the driver's exit handlers could wait for the running batch. */
void vkd_abandon(vkd_device *d);
bool vkd_abandoned(const vkd_device *d);
bool vkd_any_abandoned(void);
const vkd_info *vkd_device_info(const vkd_device *d);
unsigned vkd_validation_errors(const vkd_device *d);
/* Wait until nothing submitted to the device is running (before destroying
 * what a batch in flight may still use). */
void vkd_wait_idle(vkd_device *d);

/* Internals the runner needs. */
VkDevice vkd_handle(const vkd_device *d);
VkPhysicalDevice vkd_physical(const vkd_device *d);
VkQueue vkd_queue(const vkd_device *d);
uint32_t vkd_queue_family(const vkd_device *d);
VkPipelineCache vkd_pipeline_cache(const vkd_device *d);
/* The directory tiefuzz caches in ($XDG_CACHE_HOME/tiefuzz, else
 * ~/.cache/tiefuzz), created where missing: pipelines per device, the
 * modules the validator passed.  False (dir empty) where neither is set. */
bool vkd_cache_dir(char *dir, size_t n);

#endif
