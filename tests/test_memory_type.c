/* vk/memory: the memory type a batch's buffer takes, on memory property
 * tables of the shapes drivers report (no device needed).  Read-back
 * buffers take a host-cached type where one is host-visible and coherent
 * and allowed, else the first host-visible, coherent one; uploads always
 * the first; -1 where none is host-visible and coherent. */
#include "check.h"
#include "vk/memory.h"

enum {
    DL = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
    VIS = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
    COH = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
    CACHED = VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
};

/* A table of n types; the flags past n are written too (a driver's array
 * holds whatever there), and must be passed over. */
static VkPhysicalDeviceMemoryProperties table(const VkMemoryPropertyFlags *flags, uint32_t n)
{
    VkPhysicalDeviceMemoryProperties mp = {.memoryTypeCount = n, .memoryHeapCount = 1};
    for (uint32_t i = 0; i < 8; i++)
        mp.memoryTypes[i] = (VkMemoryType){.propertyFlags = flags[i], .heapIndex = 0};
    return mp;
}

typedef struct {
    const char *what;
    VkMemoryPropertyFlags flags[8];
    uint32_t n, type_bits;
    int upload, readback;
} shape;

int main(void)
{
    static const shape shapes[] = {
        {"one type with every property (lavapipe)", {DL | VIS | COH | CACHED}, 1, 0x1, 0, 0},
        {"a discrete GPU: write-combined system memory listed before the cached one",
         {DL, VIS | COH, VIS | COH | CACHED, DL | VIS | COH}, 4, 0xf, 1, 2},
        {"the cached type last", {DL, VIS | COH, DL | VIS | COH, VIS | COH | CACHED}, 4, 0xf, 1, 3},
        {"the cached type not allowed by the buffer", {DL, VIS | COH, VIS | COH | CACHED}, 3, 0x3, 1, 1},
        {"cached but not coherent: passed over (nothing flushes or invalidates)",
         {VIS | CACHED, VIS | COH}, 2, 0x3, 1, 1},
        {"no cached type", {DL, VIS | COH}, 2, 0x3, 1, 1},
        {"nothing host-visible and coherent", {DL, VIS | CACHED}, 2, 0x3, -1, -1},
        {"the only visible type not allowed", {DL, VIS | COH | CACHED}, 2, 0x1, -1, -1},
        /* Entries past memoryTypeCount are not types, whatever they hold. */
        {"a visible type past the count", {DL, VIS | COH | CACHED, VIS | COH | CACHED}, 1, ~0u, -1, -1},
        {"a cached type past the count", {VIS | COH, VIS | COH | CACHED}, 1, ~0u, 0, 0},
    };
    for (unsigned k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        const shape *s = &shapes[k];
        VkPhysicalDeviceMemoryProperties mp = table(s->flags, s->n);
        int up = vkr_memory_type(&mp, s->type_bits, VKR_UPLOAD);
        int back = vkr_memory_type(&mp, s->type_bits, VKR_READBACK);
        CHECK(up == s->upload, "%s: upload takes type %d, want %d", s->what, up, s->upload);
        CHECK(back == s->readback, "%s: read-back takes type %d, want %d", s->what, back, s->readback);
    }
    return check_report("memory-type");
}
