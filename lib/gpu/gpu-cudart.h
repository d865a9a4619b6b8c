/* gpu-cudart.h — CUDA's runtime as a table of functions, filled from the
 * libcudart that gpu-cuda.c finds at run time where the trainer's Python
 * would (core/dlfind.h, mcinit_dl_places: $MCINIT_CUDA_LIBRARY, the Python
 * environments' nvidia/cu13/lib, CUDA_HOME, the loader's path).
 *
 * Why a table over dlopen rather than a loadable backend module: these two
 * files call ~25 runtime functions and need much of the library (errors,
 * allocation, the store's clock), which a module would have to be handed;
 * a table keeps them as they are, one build runs validate and topology on a
 * login node without CUDA, and a test's libcudart (tests/double/) plugs in
 * by the same search.  (The fused kernels, whose nvcc-generated code
 * registers itself with libcudart as it loads, are a module instead:
 * lib/kernels/gpu-load.c.)
 *
 * Include after cuda_runtime_api.h: from here on the runtime's names are
 * the table's pointers, so the code reads as CUDA's.  Every call is made
 * after mcinit_cudart_load succeeded (mcinit_cuda_count is the first). */
#ifndef MCINIT_GPU_CUDART_H
#define MCINIT_GPU_CUDART_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#define MCINIT_CUDART_CALLS(X)                                                                     \
	X(cudaGetDeviceCount)                                                                      \
	X(cudaGetErrorName)                                                                        \
	X(cudaGetErrorString)                                                                      \
	X(cudaGetLastError)                                                                        \
	X(cudaRuntimeGetVersion)                                                                   \
	X(cudaDriverGetVersion)                                                                    \
	X(cudaDeviceGetPCIBusId)                                                                   \
	X(cudaDeviceGetAttribute)                                                                  \
	X(cudaSetDevice)                                                                           \
	X(cudaDeviceGetStreamPriorityRange)                                                        \
	X(cudaStreamCreateWithPriority)                                                            \
	X(cudaStreamQuery)                                                                         \
	X(cudaStreamDestroy)                                                                       \
	X(cudaMalloc)                                                                              \
	X(cudaFree)                                                                                \
	X(cudaMemcpy)                                                                              \
	X(cudaMemcpyAsync)                                                                         \
	X(cudaMemsetAsync)                                                                         \
	X(cudaEventCreate)                                                                         \
	X(cudaEventRecord)                                                                         \
	X(cudaEventQuery)                                                                          \
	X(cudaEventElapsedTime)                                                                    \
	X(cudaEventDestroy)

struct mcinit_cudart {
#define MCINIT_CUDART_MEMBER(f) __typeof__(f) *dl_##f;
	MCINIT_CUDART_CALLS(MCINIT_CUDART_MEMBER)
#undef MCINIT_CUDART_MEMBER
};
extern struct mcinit_cudart mcinit_cudart;

/* 0 once libcudart is open with every call found; else -1 with why (what
 * is missing, what was searched) in why[cap].  Opens once per process. */
int mcinit_cudart_load(char *why, size_t cap);
/* The file libcudart was loaded from ("" before, or when it was not). */
const char *mcinit_cudart_path(void);

#define cudaGetDeviceCount               (*mcinit_cudart.dl_cudaGetDeviceCount)
#define cudaGetErrorName                 (*mcinit_cudart.dl_cudaGetErrorName)
#define cudaGetErrorString               (*mcinit_cudart.dl_cudaGetErrorString)
#define cudaGetLastError                 (*mcinit_cudart.dl_cudaGetLastError)
#define cudaRuntimeGetVersion            (*mcinit_cudart.dl_cudaRuntimeGetVersion)
#define cudaDriverGetVersion             (*mcinit_cudart.dl_cudaDriverGetVersion)
#define cudaDeviceGetPCIBusId            (*mcinit_cudart.dl_cudaDeviceGetPCIBusId)
#define cudaDeviceGetAttribute           (*mcinit_cudart.dl_cudaDeviceGetAttribute)
#define cudaSetDevice                    (*mcinit_cudart.dl_cudaSetDevice)
#define cudaDeviceGetStreamPriorityRange (*mcinit_cudart.dl_cudaDeviceGetStreamPriorityRange)
#define cudaStreamCreateWithPriority     (*mcinit_cudart.dl_cudaStreamCreateWithPriority)
#define cudaStreamQuery                  (*mcinit_cudart.dl_cudaStreamQuery)
#define cudaStreamDestroy                (*mcinit_cudart.dl_cudaStreamDestroy)
#define cudaMalloc                       (*mcinit_cudart.dl_cudaMalloc)
#define cudaFree                         (*mcinit_cudart.dl_cudaFree)
#define cudaMemcpy                       (*mcinit_cudart.dl_cudaMemcpy)
#define cudaMemcpyAsync                  (*mcinit_cudart.dl_cudaMemcpyAsync)
#define cudaMemsetAsync                  (*mcinit_cudart.dl_cudaMemsetAsync)
#define cudaEventCreate                  (*mcinit_cudart.dl_cudaEventCreate)
#define cudaEventRecord                  (*mcinit_cudart.dl_cudaEventRecord)
#define cudaEventQuery                   (*mcinit_cudart.dl_cudaEventQuery)
#define cudaEventElapsedTime             (*mcinit_cudart.dl_cudaEventElapsedTime)
#define cudaEventDestroy                 (*mcinit_cudart.dl_cudaEventDestroy)

#endif
