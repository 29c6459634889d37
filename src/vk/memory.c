/* Memory types for the batches' buffers.
 *
 * Every buffer is host-visible and host-coherent (no flushes or
 * invalidations).  A buffer the host reads back (the outputs, which a
 * campaign compares whole and re-reads for every disagreement) prefers a
 * type that is also host-cached: the Vulkan specification says host
 * accesses to uncached memory are slower, and a discrete GPU's first
 * host-visible type is commonly system memory mapped write-combined, where
 * every read of the host's goes to memory uncached.  Uploads are written
 * once, in order, which write-combining serves well, so they take the
 * first host-visible, host-coherent type, as they always have.  Lavapipe
 * has one memory type, which has every property. */
#include "memory.h"

static int first_with(const VkPhysicalDeviceMemoryProperties *mp, uint32_t type_bits, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < mp->memoryTypeCount && i < VK_MAX_MEMORY_TYPES; i++)
        if ((type_bits >> i & 1) && (mp->memoryTypes[i].propertyFlags & want) == want)
            return (int)i;
    return -1;
}

int vkr_memory_type(const VkPhysicalDeviceMemoryProperties *mp, uint32_t type_bits, vkr_buffer_use use)
{
    VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    int cached = use == VKR_READBACK ? first_with(mp, type_bits, visible | VK_MEMORY_PROPERTY_HOST_CACHED_BIT) : -1;
    return cached >= 0 ? cached : first_with(mp, type_bits, visible);
}
