/*
 * gpu.h — what the phase engine asks of the GPU backend.  One backend is
 * built in, chosen by configure through automake conditionals: gpu-none.c
 * (no CUDA compiled in: no device, every GPU phase is skipped) today;
 * gpu-cuda.c / gpu-nccl.c (issue 14) implement the same calls for real.
 *
 * Ownership: nothing here allocates for the caller.
 */
#ifndef MCINIT_GPU_H
#define MCINIT_GPU_H

#include <stddef.h>

/* How many CUDA devices this process sees (0 with why filled: no driver,
 * no device, or not compiled in). */
int mcinit_gpu_count(char *why, size_t cap);

/* Versions for the report: 0 when unknown / not compiled in. */
struct mcinit_gpu_versions {
	int nccl_runtime, nccl_header, cuda_runtime, cuda_driver;
};
void mcinit_gpu_versions(struct mcinit_gpu_versions *v);

#endif
