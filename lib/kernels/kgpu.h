/* gpu.h — the CUDA side's helpers for the phase's GPU backend (gpu-*.c),
 * defined in gpu-kernels.cu.  Not a public header.  Device pointers; the
 * work is enqueued on `stream' (a cudaStream_t). */
#ifndef MCINIT_KERNELS_GPU_H
#define MCINIT_KERNELS_GPU_H

#include "mcinit_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst[i] = mcinit_kernels_input(dt, seed, tensor, i) for i < n, stored as dt. */
int mcinit_kgpu_fill(enum mcinit_dtype dt, void *dst, size_t n, uint64_t seed, uint32_t tensor,
                     void *stream);
/* dst[j] = (float)src[idx[j]] for j < k; idx and dst are device memory. */
int mcinit_kgpu_gather(enum mcinit_dtype dt, const void *src, const uint64_t *idx, size_t k,
                       float *dst, void *stream);

/* mcinit_kbench's timing of op on a (device pointers) and of a copy, on
 * `stream'; a->offset is left at the last call's. */
int mcinit_kgpu_bench(enum mcinit_kop op, struct mcinit_kargs *a, int calls, void *stream,
                      struct mcinit_kbench *t);

#ifdef __cplusplus
}
#endif

#endif
