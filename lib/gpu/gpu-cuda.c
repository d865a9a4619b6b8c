/* gpu-cuda.c — the CUDA runtime half of the GPU backend (gpu.h): devices
 * and versions.  Linked against libcudart only: the runtime loads the
 * driver (libcuda.so.1) itself when it is there, so a machine without one
 * still starts the program and hears "no driver" from cudaGetDeviceCount. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "gpu/gpu-cuda.h"
#include "gpu/gpu.h"

int
mcinit_cuda_count(char *why, size_t cap)
{
	int n = 0;
	cudaError_t rc = cudaGetDeviceCount(&n);

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
	v->nccl_header = NCCL_VERSION_CODE;
	v->cuda_header = CUDART_VERSION;
	v->nccl_runtime = mcinit_nccl_runtime_version();
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
	cudaError_t rc = cudaSetDevice(device);

	if (rc == cudaSuccess)
		rc = cudaGetDeviceProperties(&p, device);
	if (rc != cudaSuccess)
		return mcinit_err_set(err, MCINIT_E_UNAVAILABLE, "cudaSetDevice(%d): %s: %s",
		                      device, cudaGetErrorName(rc), cudaGetErrorString(rc));
	snprintf(name, ncap, "%s", p.name);
	mcinit_cuda_busid(device, busid, cap);
	return 0;
}
