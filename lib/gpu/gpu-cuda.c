/* gpu-cuda.c — the CUDA runtime half of the GPU backend (gpu.h): devices
 * and versions, and the runtime's table (gpu-cudart.h), filled from the
 * libcudart found at the first call.  Nothing links libcudart or libcuda:
 * a machine without CUDA still runs every command but the GPU phases, and
 * hears what is missing from mcinit_cuda_count. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "build.h" /* MCINIT_BUILD_CUDA_DIR */
#include "core/dlfind.h"
#include "gpu/gpu-cuda.h"
#include "gpu/gpu-cudart.h"
#include "gpu/gpu.h"

struct mcinit_cudart mcinit_cudart;
static pthread_once_t cudart_once = PTHREAD_ONCE_INIT;
static char cudart_why[1024] = "not loaded"; /* empty once loaded */
static struct mcinit_dl_found cudart_found;

/* The wheels that carry libcudart: nvidia-cuda-runtime (CUDA 13:
 * nvidia/cu13/lib; CUDA 12: nvidia/cuda_runtime/lib). */
static const char *const cudart_subs[] = {"cu13", "cuda_runtime", NULL};

static void
cudart_open(void)
{
	char soname[32], why[sizeof cudart_why];
	void *h;

	snprintf(soname, sizeof soname, "libcudart.so.%d", CUDART_VERSION / 1000);
	h = mcinit_dl_find_py(soname, "MCINIT_CUDA_LIBRARY", cudart_subs,
	                      MCINIT_BUILD_CUDA_DIR[0] ? MCINIT_BUILD_CUDA_DIR "/lib64" : NULL,
	                      &cudart_found, why, sizeof why);
	if (h == NULL) {
		snprintf(cudart_why, sizeof cudart_why, "%s", why[0] ? why : "nowhere to look");
		memset(&cudart_found, 0, sizeof cudart_found);
		return;
	}
	cudart_why[0] = '\0';
#define CUDART_FIND(f)                                                                             \
	if ((*(void **)&mcinit_cudart.dl_##f = dlsym(h, #f)) == NULL && cudart_why[0] == '\0')     \
		snprintf(cudart_why, sizeof cudart_why, "%.300s: no %s", cudart_found.used.file,   \
		         #f);
	MCINIT_CUDART_CALLS(CUDART_FIND)
#undef CUDART_FIND
}

int
mcinit_cudart_load(char *why, size_t cap)
{
	pthread_once(&cudart_once, cudart_open);
	if (cudart_why[0] == '\0')
		return 0;
	if (why)
		snprintf(why, cap, "%s", cudart_why);
	return -1;
}

const char *
mcinit_cudart_path(void)
{
	return mcinit_cudart_load(NULL, 0) == 0 ? cudart_found.used.file : "";
}

const struct mcinit_dl_found *
mcinit_cudart_found(void)
{
	pthread_once(&cudart_once, cudart_open);
	return &cudart_found;
}

int
mcinit_cuda_count(char *why, size_t cap)
{
	char w[sizeof cudart_why];
	cudaError_t rc;
	int n = 0;

	if (mcinit_cudart_load(w, sizeof w) != 0) {
		snprintf(why, cap, "no CUDA runtime: %s", w);
		return 0;
	}
	rc = cudaGetDeviceCount(&n);
	/* both mean "no GPU here": no driver at all, or a driver and no device */
	if (rc == cudaErrorInsufficientDriver)
		snprintf(why, cap, "no NVIDIA driver: cudaGetDeviceCount gave %s",
		         cudaGetErrorName(rc));
	else if (rc == cudaErrorNoDevice)
		snprintf(why, cap, "no device: cudaGetDeviceCount gave %s", cudaGetErrorName(rc));
	else if (rc != cudaSuccess)
		snprintf(why, cap, "cudaGetDeviceCount: %s: %s", cudaGetErrorName(rc),
		         cudaGetErrorString(rc));
	else if (n == 0)
		snprintf(why, cap, "cudaGetDeviceCount found none");
	if (rc != cudaSuccess)
		(void)cudaGetLastError(); /* clear the sticky-free error for later calls */
	return rc == cudaSuccess ? n : 0;
}

void
mcinit_cuda_versions(struct mcinit_gpu_versions *v)
{
	int x = 0;

	memset(v, 0, sizeof *v);
	/* libcudart first, as mcinit run opens them: a libnccl that needs
	 * libcudart.so.N by soname then finds the one chosen here */
	(void)mcinit_cudart_load(NULL, 0);
	v->nccl_header = NCCL_VERSION_CODE;
	v->cuda_header = CUDART_VERSION;
	v->nccl_runtime = mcinit_nccl_runtime_version();
	v->nccl_library = mcinit_nccl_path();
	v->nccl_missing = mcinit_nccl_missing();
	v->cuda_library = mcinit_cudart_path();
	/* why those files, and a different libnccl the trainer may load */
	v->nccl_how = mcinit_nccl_found()->used.how;
	v->cuda_how = mcinit_cudart_found()->used.how;
	v->nccl_other = mcinit_nccl_found()->other.file;
	v->nccl_other_how = mcinit_nccl_found()->other.how;
	if (mcinit_cudart_load(NULL, 0) != 0)
		return;
	if (cudaRuntimeGetVersion(&x) == cudaSuccess)
		v->cuda_runtime = x;
	/* 0 without a driver: the report then says null */
	if (cudaDriverGetVersion(&x) == cudaSuccess)
		v->cuda_driver = x;
}

int
mcinit_cuda_busid(int device, char *busid, size_t cap)
{
	if (cap == 0)
		return -1;
	busid[0] = '\0';
	if (mcinit_cudart_load(NULL, 0) != 0)
		return -1;
	if (cap > (size_t)INT32_MAX ||
	    cudaDeviceGetPCIBusId(busid, (int)cap, device) != cudaSuccess) {
		(void)cudaGetLastError();
		busid[0] = '\0';
		return -1;
	}
	return 0;
}

int
mcinit_cuda_select(int device, char *busid, size_t cap, char *name, size_t ncap,
                   struct mcinit_err *err)
{
	struct cudaDeviceProp p;
	char why[sizeof cudart_why];
	cudaError_t rc;

	if (mcinit_cudart_load(why, sizeof why) != 0)
		return mcinit_err_set(err, MCINIT_E_UNAVAILABLE, "no CUDA runtime: %s", why);
	rc = cudaSetDevice(device);
	if (rc == cudaSuccess)
		rc = cudaGetDeviceProperties(&p, device);
	if (rc != cudaSuccess)
		return mcinit_err_set(err, MCINIT_E_UNAVAILABLE, "cudaSetDevice(%d): %s: %s",
		                      device, cudaGetErrorName(rc), cudaGetErrorString(rc));
	snprintf(name, ncap, "%s", p.name);
	mcinit_cuda_busid(device, busid, cap);
	return 0;
}
