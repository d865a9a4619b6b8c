/* gpu-cuda.h — the CUDA runtime half of the CUDA/NCCL backend (gpu-cuda.c),
 * for gpu-nccl.c's table of the backend.  As gpu.h's calls of the same name;
 * and what gpu-cuda.c asks of gpu-nccl.c. */
#ifndef MCINIT_GPU_CUDA_H
#define MCINIT_GPU_CUDA_H

#include "core/dlfind.h"
#include "gpu/gpu.h"

int mcinit_cuda_count(char *why, size_t cap);
void mcinit_cuda_versions(struct mcinit_gpu_versions *v);
int mcinit_cuda_select(int device, char *busid, size_t cap, char *name, size_t ncap,
                       struct mcinit_err *err);
int mcinit_cuda_busid(int device, char *busid, size_t cap);
int mcinit_cuda_props(int device, struct mcinit_gpu_props *p);
/* ncclGetVersion of the libnccl gpu-nccl.c opens (opening it), 0 when it
 * does not open. */
int mcinit_nccl_runtime_version(void);
/* The file libnccl was loaded from ("" when it was not). */
const char *mcinit_nccl_path(void);
/* Where libnccl was found and why there, and another copy seen (all ""
 * when it was not loaded). */
const struct mcinit_dl_found *mcinit_nccl_found(void);
/* The same for libcudart. */
const struct mcinit_dl_found *mcinit_cudart_found(void);
/* Why libnccl did not load (what was searched), NULL when it did. */
const char *mcinit_nccl_missing(void);

#endif
