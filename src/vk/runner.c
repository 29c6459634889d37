/* Buffers, descriptor sets, pipelines, command recording and fences. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "memory.h"
#include "runner.h"

struct vkr_batch {
    size_t in_words, out_words;
    VkBuffer buf[2];
    VkDeviceMemory mem[2];
    void *map[2];
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkDescriptorPool pool;
    VkDescriptorSet set;
    VkCommandPool cmd_pool;
    VkCommandBuffer cmd;
    VkFence fence;
    bool pending;
};

struct vkr_pipeline {
    VkShaderModule module;
    VkPipeline pipeline;
    unsigned local_size, per_tuple;
};

static int make_buffer(vkd_device *d, VkDeviceSize size, vkr_buffer_use use, VkBuffer *buf, VkDeviceMemory *mem,
                       void **map)
{
    VkDevice dev = vkd_handle(d);
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    if (vkCreateBuffer(dev, &bi, NULL, buf) != VK_SUCCESS)
        return -1;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, *buf, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(vkd_physical(d), &mp);
    int type = vkr_memory_type(&mp, req.memoryTypeBits, use);
    if (type < 0)
        return -1;
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                               .memoryTypeIndex = (uint32_t)type};
    if (vkAllocateMemory(dev, &ai, NULL, mem) != VK_SUCCESS)
        return -1;
    if (vkBindBufferMemory(dev, *buf, *mem, 0) != VK_SUCCESS)
        return -1;
    return vkMapMemory(dev, *mem, 0, VK_WHOLE_SIZE, 0, map) == VK_SUCCESS ? 0 : -1;
}

vkr_batch *vkr_batch_create(vkd_device *d, size_t in_words, size_t out_words, char *err, size_t errn)
{
    VkDevice dev = vkd_handle(d);
    vkr_batch *b = calloc(1, sizeof *b);
    b->in_words = in_words;
    b->out_words = out_words;
    VkDeviceSize sizes[2] = {(VkDeviceSize)in_words * 4, (VkDeviceSize)out_words * 4};
    vkr_buffer_use use[2] = {VKR_UPLOAD, VKR_READBACK};
    for (int i = 0; i < 2; i++)
        if (make_buffer(d, sizes[i], use[i], &b->buf[i], &b->mem[i], &b->map[i])) {
            snprintf(err, errn, "cannot allocate a host-visible buffer of %llu bytes on '%s'",
                     (unsigned long long)sizes[i], vkd_device_info(d)->name);
            vkr_batch_destroy(d, b);
            return NULL;
        }
    VkDescriptorSetLayoutBinding bind[2] = {
        {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL}};
    VkDescriptorSetLayoutCreateInfo sli = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                           .bindingCount = 2, .pBindings = bind};
    vkCreateDescriptorSetLayout(dev, &sli, NULL, &b->set_layout);
    VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 4};
    VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                      .pSetLayouts = &b->set_layout, .pushConstantRangeCount = 1,
                                      .pPushConstantRanges = &pcr};
    vkCreatePipelineLayout(dev, &pli, NULL, &b->layout);
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2};
    VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1,
                                      .poolSizeCount = 1, .pPoolSizes = &ps};
    vkCreateDescriptorPool(dev, &dpi, NULL, &b->pool);
    VkDescriptorSetAllocateInfo dsai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                        .descriptorPool = b->pool, .descriptorSetCount = 1,
                                        .pSetLayouts = &b->set_layout};
    vkAllocateDescriptorSets(dev, &dsai, &b->set);
    VkDescriptorBufferInfo dbi[2] = {{b->buf[0], 0, VK_WHOLE_SIZE}, {b->buf[1], 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet w[2];
    for (int i = 0; i < 2; i++)
        w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = b->set,
                                      .dstBinding = (uint32_t)i, .descriptorCount = 1,
                                      .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &dbi[i]};
    vkUpdateDescriptorSets(dev, 2, w, 0, NULL);
    VkCommandPoolCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                   .queueFamilyIndex = vkd_queue_family(d)};
    vkCreateCommandPool(dev, &cpi, NULL, &b->cmd_pool);
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                       .commandPool = b->cmd_pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                       .commandBufferCount = 1};
    vkAllocateCommandBuffers(dev, &cai, &b->cmd);
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    vkCreateFence(dev, &fi, NULL, &b->fence);
    return b;
}

void vkr_batch_destroy(vkd_device *d, vkr_batch *b)
{
    if (!b)
        return;
    VkDevice dev = vkd_handle(d);
    if (b->pending && !vkd_abandoned(d) && vkWaitForFences(dev, 1, &b->fence, VK_TRUE, 5000000000ull) != VK_SUCCESS)
        vkd_abandon(d);
    if (vkd_abandoned(d)) {   /* the device may still use it: leave it */
        free(b);
        return;
    }
    if (b->fence)
        vkDestroyFence(dev, b->fence, NULL);
    if (b->cmd_pool)
        vkDestroyCommandPool(dev, b->cmd_pool, NULL);
    if (b->pool)
        vkDestroyDescriptorPool(dev, b->pool, NULL);
    if (b->layout)
        vkDestroyPipelineLayout(dev, b->layout, NULL);
    if (b->set_layout)
        vkDestroyDescriptorSetLayout(dev, b->set_layout, NULL);
    for (int i = 0; i < 2; i++) {
        if (b->buf[i])
            vkDestroyBuffer(dev, b->buf[i], NULL);
        if (b->mem[i])
            vkFreeMemory(dev, b->mem[i], NULL);
    }
    free(b);
}

uint32_t *vkr_batch_input(vkr_batch *b) { return b->map[0]; }
const uint32_t *vkr_batch_output(const vkr_batch *b) { return b->map[1]; }
unsigned vkr_batch_capacity(const vkr_batch *b, unsigned n_in, unsigned n_out)
{
    size_t a = b->in_words / (n_in ? n_in : 1), c = b->out_words / (n_out ? n_out : 1);
    size_t n = a < c ? a : c;
    return n > (1u << 22) ? 1u << 22 : (unsigned)n;
}

vkr_pipeline *vkr_pipeline_create(vkd_device *d, vkr_batch *b, const uint32_t *words, size_t count,
                                  const uint32_t *spec, unsigned n_spec, unsigned local_size, unsigned per_tuple,
                                  char *err, size_t errn)
{
    VkDevice dev = vkd_handle(d);
    vkr_pipeline *p = calloc(1, sizeof *p);
    p->local_size = local_size ? local_size : 1;
    p->per_tuple = per_tuple ? per_tuple : 1;
    VkShaderModuleCreateInfo smi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = count * 4,
                                    .pCode = words};
    if (vkCreateShaderModule(dev, &smi, NULL, &p->module) != VK_SUCCESS) {
        snprintf(err, errn, "the driver rejected the shader module");
        free(p);
        return NULL;
    }
    VkSpecializationMapEntry entries[8];
    for (unsigned i = 0; i < n_spec && i < 8; i++)
        entries[i] = (VkSpecializationMapEntry){i, i * 4, 4};
    VkSpecializationInfo si = {n_spec, entries, n_spec * 4, spec};
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = p->module, .pName = "main", .pSpecializationInfo = n_spec ? &si : NULL},
        .layout = b->layout};
    VkResult r = vkCreateComputePipelines(dev, vkd_pipeline_cache(d), 1, &ci, NULL, &p->pipeline);
    if (r != VK_SUCCESS) {
        snprintf(err, errn, "the driver could not build the compute pipeline (VkResult %d)", r);
        vkDestroyShaderModule(dev, p->module, NULL);
        free(p);
        return NULL;
    }
    return p;
}

void vkr_pipeline_destroy(vkd_device *d, vkr_pipeline *p)
{
    if (!p)
        return;
    if (vkd_abandoned(d)) {
        free(p);
        return;
    }
    vkDestroyPipeline(vkd_handle(d), p->pipeline, NULL);
    vkDestroyShaderModule(vkd_handle(d), p->module, NULL);
    free(p);
}

int vkr_submit(vkd_device *d, vkr_batch *b, vkr_pipeline *p, unsigned count, char *err, size_t errn)
{
    if (vkd_abandoned(d)) {
        snprintf(err, errn, "the device '%s' was abandoned after a timeout or loss", vkd_device_info(d)->name);
        return -1;
    }
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    vkResetCommandBuffer(b->cmd, 0);
    vkBeginCommandBuffer(b->cmd, &bi);
    vkCmdBindPipeline(b->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
    vkCmdBindDescriptorSets(b->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, b->layout, 0, 1, &b->set, 0, NULL);
    vkCmdPushConstants(b->cmd, b->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &count);
    uint64_t invocations = (uint64_t)count * p->per_tuple;
    vkCmdDispatch(b->cmd, (uint32_t)((invocations + p->local_size - 1) / p->local_size), 1, 1);
    /* Make the shader's writes visible to the host mapping. */
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(b->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL,
                         0, NULL);
    vkEndCommandBuffer(b->cmd);
    vkResetFences(vkd_handle(d), 1, &b->fence);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &b->cmd};
    VkResult r = vkQueueSubmit(vkd_queue(d), 1, &si, b->fence);
    if (r != VK_SUCCESS) {
        if (r == VK_ERROR_DEVICE_LOST)
            vkd_abandon(d);
        snprintf(err, errn, "vkQueueSubmit failed on '%s' (VkResult %d%s)", vkd_device_info(d)->name, r,
                 r == VK_ERROR_DEVICE_LOST ? ": device lost" : "");
        return -1;
    }
    b->pending = true;
    return 0;
}

int vkr_wait(vkd_device *d, vkr_batch *b, unsigned timeout_ms, char *err, size_t errn)
{
    VkResult r = vkWaitForFences(vkd_handle(d), 1, &b->fence, VK_TRUE, (uint64_t)timeout_ms * 1000000ull);
    if (r == VK_SUCCESS) {
        b->pending = false;
        return 0;
    }
    vkd_abandon(d);   /* the batch may still be running */
    if (r == VK_TIMEOUT)
        snprintf(err, errn, "the device '%s' did not finish a batch within %u ms (abandoned: nothing more runs on it)",
                 vkd_device_info(d)->name, timeout_ms);
    else
        snprintf(err, errn, "waiting for the device '%s' failed (VkResult %d%s)", vkd_device_info(d)->name, r,
                 r == VK_ERROR_DEVICE_LOST ? ": device lost" : "");
    return -1;
}
