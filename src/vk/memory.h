/* Which memory type a batch's host-visible buffer takes. */
#ifndef TIEFUZZ_VK_MEMORY_H
#define TIEFUZZ_VK_MEMORY_H

#include <vulkan/vulkan.h>

typedef enum {
    VKR_UPLOAD,    /* written by the host, read by the device */
    VKR_READBACK,  /* written by the device, read by the host */
} vkr_buffer_use;

/* The index of the memory type for a buffer whose requirements allow
 * type_bits, or -1 where none is host-visible and host-coherent. */
int vkr_memory_type(const VkPhysicalDeviceMemoryProperties *mp, uint32_t type_bits, vkr_buffer_use use);

#endif
