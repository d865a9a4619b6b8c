/* kgpu.h — the CUDA side's helpers for the phase's GPU backend
 * (gpu-backend.c), launched through the driver API (kdrv.h) from the
 * module's fatbin.  Not a public header.  Device pointers; the work is
 * enqueued on `stream' (a CUstream, which is a cudaStream_t; NULL = the
 * default stream) in the calling thread's current context. */
#ifndef MCINIT_KERNELS_GPU_H
#define MCINIT_KERNELS_GPU_H

#include "mcinit_kernels.h"

/* The kernels' fatbin (kfatbin.c): cubins for sm_80, sm_90 and sm_100 and
 * compute_80 PTX, the kernels named as knames.h says. */
extern const unsigned char mcinit_kfatbin[] __attribute__((visibility("hidden")));
/* Its PTX's ISA ("7.0") and the release of the ptxas that made its cubins
 * ("13.0"): what a driver needs, named when one cannot load it. */
extern const char mcinit_kfatbin_ptx_isa[] __attribute__((visibility("hidden")));
extern const char mcinit_kfatbin_ptxas[] __attribute__((visibility("hidden")));

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

/* Why the kernels cannot run in the current context ("" when they can):
 * no driver, no context, or the fatbin not loadable there (the driver's
 * error, its version and what the fatbin's images need).  Loads the
 * module into the context when it is not yet. */
const char *mcinit_kgpu_ready(char *msg, size_t cap);

#endif
