/* Batched dispatch of one compute module over buffers of words. */
#ifndef TIEFUZZ_VK_RUNNER_H
#define TIEFUZZ_VK_RUNNER_H

#include "device.h"

typedef struct vkr_batch vkr_batch;
typedef struct vkr_pipeline vkr_pipeline;

/* Buffers of in_words input and out_words output words in all. */
vkr_batch *vkr_batch_create(vkd_device *d, size_t in_words, size_t out_words, char *err, size_t errn);
void vkr_batch_destroy(vkd_device *d, vkr_batch *b);
uint32_t *vkr_batch_input(vkr_batch *b);
const uint32_t *vkr_batch_output(const vkr_batch *b);
/* How many tuples of n_in / n_out words fit. */
unsigned vkr_batch_capacity(const vkr_batch *b, unsigned n_in, unsigned n_out);

/* A compute pipeline for the module; spec[i] is SpecId i (n_spec of them);
 * per_tuple invocations run for each tuple. */
vkr_pipeline *vkr_pipeline_create(vkd_device *d, vkr_batch *b, const uint32_t *words, size_t count,
                                  const uint32_t *spec, unsigned n_spec, unsigned local_size, unsigned per_tuple,
                                  char *err, size_t errn);
void vkr_pipeline_destroy(vkd_device *d, vkr_pipeline *p);

/* Run count tuples already written to the input buffer.  submit returns at
 * once; wait blocks up to timeout_ms.  Both return 0, or -1 with a message
 * (a timeout or a lost device: the caller ends the run with exit 3). */
int vkr_submit(vkd_device *d, vkr_batch *b, vkr_pipeline *p, unsigned count, char *err, size_t errn);
int vkr_wait(vkd_device *d, vkr_batch *b, unsigned timeout_ms, char *err, size_t errn);

#endif
